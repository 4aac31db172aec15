// What the server accepts of a name and a chat line (protocol/README.md, Limits), checked before
// sending so that nothing is cut or refused without a word to the player.

import { t } from "./i18n.js";

export const MAX_NAME = 24;
export const MAX_CHAT = 200;

/** Characters Python's str.isprintable refuses: controls, format, unassigned, line and
 *  paragraph separators, spaces other than the plain one. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

/** What prints as nothing (protocol/names.py `hidden`). */
const HIDDEN = /[\u2800\p{Default_Ignorable_Code_Point}]/u;
/** A combining mark with no letter under it, or more than two on one letter. */
const LOOSE_MARK = /(^|[^\p{L}\p{N}\p{M}])\p{M}|\p{M}{3}/u;
/** "bot" then what is not a letter or a digit: a bot's name to the eye ("bot:", "bot.hard"). */
const BOT_LIKE = /^bot(?![\p{Lu}\p{Ll}\p{Lt}\p{Lo}\p{N}]|$)/u;

/** A name as compared for "bot": compatibility forms, case and spaces folded. */
function folded(text) {
  return text.normalize("NFKC").toLowerCase().replace(/\s/gu, "");
}

/** Length in characters (code points), as the server counts. */
export function length(text) {
  return [...String(text)].length;
}

/** Why a name would be refused, or null: `{ text, problem }` with the name stripped. */
export function checkName(raw) {
  const text = String(raw ?? "").trim();
  if (!text) return { text, problem: t("name.empty") };
  if (length(text) > MAX_NAME) return { text, problem: t("name.too_long", { most: MAX_NAME, count: length(text) }) };
  if (UNPRINTABLE.test(text)) return { text, problem: t("name.unprintable") };
  if (HIDDEN.test(text) || LOOSE_MARK.test(text.normalize("NFD"))) return { text, problem: t("name.invisible") };
  if (BOT_LIKE.test(folded(text))) return { text, problem: t("name.bot") };
  return { text, problem: null };
}

/** Why a chat line would be refused, or null. */
export function checkChat(raw) {
  const text = String(raw ?? "").trim();
  if (!text) return { text, problem: null };
  if (length(text) > MAX_CHAT) return { text, problem: t("chat.too_long", { most: MAX_CHAT, count: length(text) }) };
  if (UNPRINTABLE.test(text)) return { text, problem: t("chat.unprintable") };
  return { text, problem: null };
}
