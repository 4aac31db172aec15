// The hard bot's review (GET /api/games/ID/review, protocol/review.py) in words. The review
// carries codes and numbers; the words come from the catalog (review.* keys), the same
// sentences as the terminal's (clients/cli/review_words.py).

import { t, plural } from "./i18n.js";
import { endWord } from "./describe.js";

/** A move as the table writes it: "6-6 west", "5-3", "pass". */
export function moveWords(move) {
  if (!move || move.pass || !move.tile) return t("review.pass");
  return move.end ? `${move.tile} ${endWord(move.end)}` : move.tile;
}

function nameAt(names, seat) {
  return Number.isInteger(seat) && seat >= 0 && seat < names.length && names[seat] ? names[seat] : t("review.seat", { seat });
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

/** A reviewed move in words: "best move", or what it lost and why. */
export function lineWords(line, names) {
  if (!line) return null;
  if (!(line.lost > 0)) return t("review.best", { move: moveWords(line.played) });
  const why = (line.reasons ?? []).map((reason) => reasonWords(reason, names)).filter(Boolean);
  const head = t("review.lost", { move: moveWords(line.played), points: line.lost.toFixed(1), best: moveWords(line.best) });
  return why.length ? `${head}: ${why.join("; ")}` : head;
}

/** A player's total in words: "12.5 points lost over 4 hands (3.1 a hand), 1 costly move". */
export function playerWords(player) {
  return t("review.total", {
    points: Number(player.lost).toFixed(1),
    hands: plural("review.hands", player.hands),
    per_hand: Number(player.lost_per_hand).toFixed(1),
    costly: plural("review.costly", player.costly),
  });
}
