// The table in words for assistive technology: a tile's name ("five-three", "double six"), the
// board read in order (the line west to east, the spinner's arms, every open end and the
// server's total), and the sentence a move makes when it is announced. Pure: no DOM.

import { t } from "./i18n.js";
import { describe, endWord } from "./describe.js";
import { END_NAMES } from "./model.js";

/** A pip count in words ("blank", "five"); anything else as it is. */
export function pipWord(pips) {
  return Number.isInteger(pips) && pips >= 0 && pips <= 6 ? t(`a11y.pips.${pips}`) : String(pips);
}

/** A tile in words, halves in the order given: "five-three", a double as "double six". `tile`
 *  is "5-3" or [5, 3]. */
export function tileWords(tile) {
  const [a, b] = Array.isArray(tile) ? tile : String(tile).split("-").map(Number);
  return a === b ? t("a11y.double", { pips: pipWord(a) }) : t("a11y.tile", { first: pipWord(a), second: pipWord(b) });
}

/** The open ends the server sent, in the order they are read: [[end, pips], ...]. */
export function endsSent(ends) {
  return END_NAMES.filter((name) => Number.isInteger(ends?.[name])).map((name) => [name, ends[name]]);
}

/**
 * The board as sentences, in reading order: the line west to east (the spinner named), each arm
 * of the spinner, every open end with its pips, and the ends total the server sent (whether the
 * last play scored on it, in words).
 */
export function boardSentences(layout, ends, total, scored) {
  const line = layout?.line ?? [];
  if (!line.length) return [t("board.empty_sentence")];
  const tiles = line.map((pips, i) => (i === layout.spinner ? t("board.spinner_tile", { tile: tileWords(pips) }) : tileWords(pips)));
  const sentences = [t("board.line", { tiles: tiles.join(", ") })];
  for (const arm of ["north", "south"]) {
    const run = layout[arm] ?? [];
    if (run.length) sentences.push(t(`board.arm_${arm}`, { tiles: run.map(tileWords).join(", ") }));
  }
  const open = endsSent(ends);
  if (open.length) sentences.push(t("board.open_ends", { ends: open.map(([name, pips]) => `${endWord(name)} ${pips}`).join(", ") }));
  if (Number.isInteger(total)) sentences.push(t(scored ? "a11y.total_scored" : "a11y.total", { total }));
  return sentences;
}

/** An event as a player hears it at the table: describe()'s sentence with the tile in words. */
export function spokenEvent(event, names, teams) {
  if (event?.type === "played" && event.tile) return describe({ ...event, tile: tileWords(event.tile) }, names, teams);
  return describe(event, names, teams);
}

/** The events a player hears (chat has its own panel; a new hand's deal is said). */
export function heard(event) {
  return ["played", "drew", "passed", "hand_ended", "hand_started", "match_ended"].includes(event?.type);
}
