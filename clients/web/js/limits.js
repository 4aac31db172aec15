// What the server accepts of a name and a chat line (protocol/README.md, Limits), checked before
// sending so that nothing is cut or refused without a word to the player.

export const MAX_NAME = 24;
export const MAX_CHAT = 200;

/** Characters Python's str.isprintable refuses: controls, format, unassigned, line and
 *  paragraph separators, spaces other than the plain one. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

/** Length in characters (code points), as the server counts. */
export function length(text) {
  return [...String(text)].length;
}

/** Why a name would be refused, or null: `{ text, problem }` with the name stripped. */
export function checkName(raw) {
  const text = String(raw ?? "").trim();
  if (!text) return { text, problem: "Type your name first." };
  if (length(text) > MAX_NAME) return { text, problem: `A name has at most ${MAX_NAME} characters: this one has ${length(text)}.` };
  if (UNPRINTABLE.test(text)) return { text, problem: "A name may hold only printable characters (no control or direction marks)." };
  if (text.normalize("NFKC").toLowerCase().replaceAll(" ", "").startsWith("bot:")) return { text, problem: "\"bot:\" starts the names of bots only." };
  return { text, problem: null };
}

/** Why a chat line would be refused, or null. */
export function checkChat(raw) {
  const text = String(raw ?? "").trim();
  if (!text) return { text, problem: null };
  if (length(text) > MAX_CHAT) return { text, problem: `A chat line has at most ${MAX_CHAT} characters: this one has ${length(text)}. Nothing was sent.` };
  if (UNPRINTABLE.test(text)) return { text, problem: "A chat line may hold only printable characters. Nothing was sent." };
  return { text, problem: null };
}
