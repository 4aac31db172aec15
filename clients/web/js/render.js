// Dominoes as SVG: one tile, a hand tile, the whole layout with its open ends to tap.

import { s } from "./text.js";
import { t } from "./i18n.js";
import { placeLayout, lastPlaced } from "./geometry.js";
import { endWord } from "./describe.js";

/** The key that plays a picked tile at each end (on the board's targets and the end buttons). */
export const END_KEYS = { north: "n", south: "s", east: "e", west: "w" }; // i18n: not shown (keys)

const PIPS = {
  0: [],
  1: [[0.5, 0.5]],
  2: [[0.27, 0.27], [0.73, 0.73]],
  3: [[0.27, 0.27], [0.5, 0.5], [0.73, 0.73]],
  4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
  5: [[0.27, 0.27], [0.73, 0.27], [0.5, 0.5], [0.27, 0.73], [0.73, 0.73]],
  6: [[0.27, 0.25], [0.27, 0.5], [0.27, 0.75], [0.73, 0.25], [0.73, 0.5], [0.73, 0.75]],
};
/** Pixels per tile unit aimed at when a layout is drawn (a tile is 2 x 1 units). */
export const UNIT_PX = 22;

function half(x, y, value) {
  return (PIPS[value] ?? []).map(([px, py]) => s("circle", { class: "pip", cx: x + px, cy: y + py, r: 0.095 }));
}

/** A domino in a rect (x, y, w, h) with halves a (left or top) and b (right or bottom). */
export function tileShape(rect, a, b, cls = "") {
  const vertical = rect.h > rect.w;
  const g = s("g", { class: `domino ${cls}`.trim() });
  g.append(s("rect", { class: "face", x: rect.x + 0.03, y: rect.y + 0.03, width: rect.w - 0.06, height: rect.h - 0.06, rx: 0.14 }));
  if (vertical) {
    g.append(s("line", { class: "bar", x1: rect.x + 0.15, y1: rect.y + 1, x2: rect.x + rect.w - 0.15, y2: rect.y + 1 }));
    g.append(...half(rect.x + (rect.w - 1) / 2, rect.y, a), ...half(rect.x + (rect.w - 1) / 2, rect.y + 1, b));
  } else {
    g.append(s("line", { class: "bar", x1: rect.x + 1, y1: rect.y + 0.15, x2: rect.x + 1, y2: rect.y + rect.h - 0.15 }));
    g.append(...half(rect.x, rect.y + (rect.h - 1) / 2, a), ...half(rect.x + 1, rect.y + (rect.h - 1) / 2, b));
  }
  return g;
}

/** A hand tile as its own small SVG, first-written number on the left (west when led). */
export function handTile(tile) {
  const [a, b] = tile.split("-").map(Number);
  const svg = s("svg", { viewBox: "-0.05 -0.05 2.1 1.1", class: "tile-svg", "aria-hidden": "true", focusable: "false" });
  svg.append(tileShape({ x: 0, y: 0, w: 2, h: 1 }, a, b));
  return svg;
}

/** How far a line arm may run from the middle before it turns, for a drawing `width` px wide. */
export function halfWidthFor(width) {
  return Math.max(4, Math.min(14, Math.floor(width / UNIT_PX / 2) - 1));
}

/** Every tap spot is at least this many CSS pixels each way (WCAG 2.5.5), with some to spare. */
export const TAP_PX = 46;

function grown(box, rects) {
  return {
    minX: Math.min(box.minX, ...rects.map((r) => r.x)),
    minY: Math.min(box.minY, ...rects.map((r) => r.y)),
    maxX: Math.max(box.maxX, ...rects.map((r) => r.x + r.w)),
    maxY: Math.max(box.maxY, ...rects.map((r) => r.y + r.h)),
  };
}

/** A rect grown about its middle to at least `size` units each way. */
function atLeast(r, size) {
  const w = Math.max(r.w, size);
  const h = Math.max(r.h, size);
  return { x: r.x + r.w / 2 - w / 2, y: r.y + r.h / 2 - h / 2, w, h };
}

/**
 * Draw a layout into `svg`, `width` px wide and at most `maxHeight` px tall. `targets` maps end
 * names to {total, scores, onPick} for the ends a picked tile may go to; they are drawn as ghost
 * tiles showing the total the move would make (the server's, gold when it scores), each on a tap spot of at least TAP_PX square.
 */
export function drawLayout(svg, { layout, leadIndex, history, width, maxHeight = Infinity, targets = {}, ends = {} }) {
  const halfWidth = halfWidthFor(width);
  const placed = placeLayout(layout, halfWidth, leadIndex);
  const last = lastPlaced(history, placed);
  svg.replaceChildren();
  let { minX, minY, maxX, maxY } = placed.box;
  const minWidth = Math.min(2 * halfWidth + 2, 24);
  if (maxX - minX < minWidth) {
    const grow = (minWidth - (maxX - minX)) / 2;
    minX -= grow;
    maxX += grow;
  }
  if (maxY - minY < 7) {
    const grow = (7 - (maxY - minY)) / 2;
    minY -= grow;
    maxY += grow;
  }
  const pad = 0.4;
  const shown = Object.keys(placed.ends).filter((end) => targets[end] && ends[end] !== null && ends[end] !== undefined);
  let box = { minX, minY, maxX, maxY };
  let hits = {};
  for (let round = 0; round < 3; round += 1) {
    const scale = Math.min(width / (box.maxX - box.minX + 2 * pad), maxHeight / (box.maxY - box.minY + 2 * pad));
    hits = Object.fromEntries(shown.map((end) => [end, atLeast(placed.ends[end].ghost, TAP_PX / scale)]));
    box = grown({ minX, minY, maxX, maxY }, Object.values(hits));
  }
  svg.setAttribute("viewBox", `${box.minX - pad} ${box.minY - pad} ${box.maxX - box.minX + 2 * pad} ${box.maxY - box.minY + 2 * pad}`);
  if (!placed.tiles.length) {
    svg.append(s("text", { class: "empty", "aria-hidden": "true", x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2, "text-anchor": "middle" }, t("board.empty")));
  }
  for (const tile of placed.tiles) {
    const isLast = last && last.arm === tile.arm && last.pos === tile.pos;
    const cls = [tile.spinner ? "spinner" : "", isLast ? "last" : ""].join(" ");
    const shape = tileShape(tile, tile.a, tile.b, cls);
    shape.setAttribute("data-arm", tile.arm);
    shape.setAttribute("aria-hidden", "true"); // the board's text says the tiles in order
    svg.append(shape);
  }
  // Two ends' tap spots may overlap (a spinner's north end beside the line's east end): a tap
  // goes to the end whose ghost is nearest to it, whichever spot is drawn on top.
  const nearest = (event, fallback) => {
    const matrix = svg.getScreenCTM?.();
    if (!matrix || !Number.isFinite(event.clientX)) return fallback;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    const inside = shown.filter((end) => {
      const hit = hits[end];
      return p.x >= hit.x && p.x <= hit.x + hit.w && p.y >= hit.y && p.y <= hit.y + hit.h;
    });
    const away = (end) => {
      const g = placed.ends[end].ghost;
      return Math.hypot(p.x - (g.x + g.w / 2), p.y - (g.y + g.h / 2));
    };
    return inside.reduce((best, end) => (away(end) < away(best) ? end : best), inside.includes(fallback) ? fallback : inside[0] ?? fallback);
  };
  for (const end of shown) {
    const r = placed.ends[end].ghost;
    const hit = hits[end];
    // For pointers; keyboards and screen readers use the same choices as buttons by the hand.
    const target = targets[end];
    // A button in its own right, for pointers, keyboards (Tab, Enter or Space) and screen
    // readers alike; the buttons by the hand offer the same choices.
    const g = s("g", {
      class: "end-target", "data-end": end, role: "button", tabindex: 0, "aria-keyshortcuts": END_KEYS[end],
      "aria-label": t(target.scores ? "a11y.end_target_scores" : "a11y.end_target", { end: endWord(end), total: target.total ?? "?" }),
      onclick: (event) => targets[nearest(event, end)].onPick(),
      onkeydown: (event) => {
        if (event.key !== "Enter" && event.key !== " ") return; // i18n: not shown (keys' names)
        event.preventDefault();
        target.onPick();
      },
    });
    g.append(s("rect", { class: "hit", x: hit.x, y: hit.y, width: hit.w, height: hit.h }));
    g.append(s("rect", { class: "ghost", x: r.x + 0.05, y: r.y + 0.05, width: r.w - 0.1, height: r.h - 0.1, rx: 0.14 }));
    // A scoring end says so with a star as well as its colour.
    g.append(s("text", { x: r.x + r.w / 2, y: r.y + r.h / 2, "text-anchor": "middle", "dominant-baseline": "central", class: target.scores ? "gold" : "", "aria-hidden": "true" }, `${target.total ?? "?"}${target.scores ? "★" : ""}`));
    svg.append(g);
  }
  return placed;
}
