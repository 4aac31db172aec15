// The hard bot's review (the `review` message, as GET /api/games/ID/review answers it:
// protocol/review.py) in words. The review carries codes and numbers; the words come from the
// catalog (review.* keys), the same sentences as the terminal's (clients/cli/review_words.py).

import { decimal, t, plural } from "./i18n.js";
import { endWord, seatNumber } from "./describe.js";

/** A move as the table writes it: "6-6 west", "5-3", "pass". */
export function moveWords(move) {
  if (!move || move.pass || !move.tile) return t("review.pass");
  return move.end ? `${move.tile} ${endWord(move.end)}` : move.tile;
}

function nameAt(names, seat) {
  return Number.isInteger(seat) && seat >= 0 && seat < names.length && names[seat] ? names[seat] : t("review.seat", { seat: seatNumber(seat) });
}

/** One reason in words: "passed up 15 points with 6-6 west", "opened 20 for Bob (4-4 east)". */
export function reasonWords(reason, names) {
  const points = Number(reason?.points) || 0;
  switch (reason?.kind) {
    case "passed_up":
      return plural("review.passed_up", points, { move: moveWords(reason.move) });
    case "opened": {
      const whom = `${nameAt(names, reason.seat)} (${moveWords(reason.move)})`;
      return reason.scored > 0
        ? t("review.scored_but_opened", { scored: reason.scored, points, whom })
        : t("review.opened", { points, whom });
    }
    case "kept_heavy": {
      const tile = String(reason.tile ?? "?");
      const what = tile[0] === tile[tile.length - 1] ? t("review.heavy_double") : plural("review.pips", points);
      return reason.counted ? t("review.kept_counted", { tile, what }) : t("review.kept", { tile, what });
    }
    default:
      return null;
  }
}

const GRADES = { inaccuracy: "review.grade.inaccuracy", mistake: "review.grade.mistake", blunder: "review.grade.blunder" };

/** A move's grade in words ("a mistake"); null for the best move or a good one. */
export function gradeWords(grade) {
  return Object.hasOwn(GRADES, grade) ? t(GRADES[grade]) : null;
}

/** A reviewed move in words: "6-6 west: the best move", or what it lost (in game points), its
 *  grade and why: "5-0 lost 12.5 points against 1-1 (a blunder): opened 10 for Bob (5-5 west)". */
export function lineWords(line, names) {
  if (!line) return null;
  const lost = Number(line.lost) || 0;
  if (!(lost > 0) && (line.grade === undefined || line.grade === null || line.grade === "best")) {
    return t("review.best", { move: moveWords(line.played) });
  }
  const why = (line.reasons ?? []).map((reason) => reasonWords(reason, names)).filter(Boolean);
  let head = t("review.lost", { move: moveWords(line.played), points: decimal(lost), best: moveWords(line.best) });
  const grade = gradeWords(line.grade);
  if (grade) head += ` (${grade})`;
  return why.length ? `${head}: ${why.join("; ")}` : head;
}

/** A player's moves graded: "1 inaccuracy, 2 mistakes, 0 blunders". */
export function gradesWords(player) {
  return [
    plural("review.inaccuracies", Number(player.inaccuracies) || 0),
    plural("review.mistakes", Number(player.mistakes) || 0),
    plural("review.blunders", Number(player.blunders) || 0),
  ].join(", ");
}

/** A player's review in words, as the terminal words it: its accuracy, the game points it lost
 *  a move, and its moves graded ("accuracy 87.5%, 1.9 points lost a move, 16 decisions;
 *  1 inaccuracy, 2 mistakes, 0 blunders"). */
export function playerWords(player) {
  if (!(Number(player.decisions) > 0)) return t("review.no_choice_player");
  if (typeof player.accuracy !== "number") return t("review.older");
  return t("review.total", {
    accuracy: decimal(player.accuracy),
    points: decimal(Number(player.lost_per_move) || 0),
    decisions: plural("review.decisions", player.decisions),
    grades: gradesWords(player),
  });
}

/** One hand of a player's in words: "hand 2: accuracy 91.3%, 0.9 points lost a move". */
export function handWords(hand) {
  if (!(Number(hand.decisions) > 0) || typeof hand.accuracy !== "number") {
    return t("review.hand_no_choice", { hand: hand.hand });
  }
  return t("review.hand", { hand: hand.hand, accuracy: decimal(hand.accuracy), points: decimal(Number(hand.lost_per_move) || 0) });
}
