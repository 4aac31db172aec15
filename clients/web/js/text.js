// Text from the server is untrusted: it is only ever put in the page as text (textContent),
// with control and direction-changing characters made visible, and every character that prints
// as nothing (default-ignorable code points: joiners, variation selectors, Hangul fillers...,
// and the braille blank), and combining marks with no letter under them (or past the second on
// one letter), which a name may not hold (protocol/names.py), shown as "\ufffd".

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2800\p{Default_Ignorable_Code_Point}]/gu;

/** A combining mark with no letter or digit under it, or past the second on one letter. */
const LOOSE_MARK = /(^|[^\p{L}\p{N}\p{M}])(\p{M}+)|([\p{L}\p{N}]\p{M}{2})(\p{M}+)/gu;

/** The text with control characters shown as visible symbols (never interpreted). */
export function visible(text) {
  return String(text ?? "").replace(CONTROL, (c) => {
    const code = c.codePointAt(0);
    if (code < 0x20) return String.fromCodePoint(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return "\ufffd";
  }).replace(LOOSE_MARK, (whole, before, loose, kept, extra) =>
    before !== undefined ? before + "\ufffd".repeat([...loose].length) : kept + "\ufffd".repeat([...extra].length));
}

/**
 * A DOM element: `h("button", {class: "x", onclick: f}, "text", child)`. Strings become text
 * nodes; attributes are set with setAttribute (event handlers as properties): never HTML.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** An SVG element, built the same way. */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(visible(child)));
  }
}

/** Replace a node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}
