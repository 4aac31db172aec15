// The hard bot's review (GET /api/games/ID/review, protocol/review.py) in words. The review
// carries codes and numbers; every word a player reads of it is here.

/** A move as the table writes it: "6-6 west", "5-3", "pass". */
export function moveWords(move) {
  if (!move || move.pass || !move.tile) return "pass";
  return move.end ? `${move.tile} ${move.end}` : move.tile;
}

function nameAt(names, seat) {
  return Number.isInteger(seat) && seat >= 0 && seat < names.length && names[seat] ? names[seat] : `seat ${seat}`;
}

/** One reason in words: "passed up 15 points with 6-6 west", "opened 20 for Bob (4-4 east)". */
export function reasonWords(reason, names) {
  const points = Number(reason?.points) || 0;
  switch (reason?.kind) {
    case "passed_up":
      return `passed up ${points} points with ${moveWords(reason.move)}`;
    case "opened": {
      const whom = `${nameAt(names, reason.seat)} (${moveWords(reason.move)})`;
      return reason.scored > 0
        ? `scored ${reason.scored} now but opened ${points} for ${whom}`
        : `opened ${points} for ${whom}`;
    }
    case "kept_heavy": {
      const tile = String(reason.tile ?? "?");
      const what = tile[0] === tile[tile.length - 1] ? "a heavy double" : `${points} pips`;
      return reason.counted
        ? `kept ${tile} (${what}), counted against you when the hand ended`
        : `kept ${tile} (${what}) instead of shedding it`;
    }
    default:
      return null;
  }
}

/** A reviewed move in words: "best move", or what it lost and why. */
export function lineWords(line, names) {
  if (!line) return null;
  if (!(line.lost > 0)) return `${moveWords(line.played)}: the best move`;
  const why = (line.reasons ?? []).map((reason) => reasonWords(reason, names)).filter(Boolean);
  const head = `${moveWords(line.played)} lost ${line.lost.toFixed(1)} points against ${moveWords(line.best)}`;
  return why.length ? `${head}: ${why.join("; ")}` : head;
}

/** A player's total in words: "12.5 points lost over 4 hands (3.1 a hand), 1 costly move". */
export function playerWords(player) {
  const costly = player.costly === 1 ? "1 move cost 10 or more" : `${player.costly} moves cost 10 or more`;
  const hands = player.hands === 1 ? "1 hand" : `${player.hands} hands`;
  return `${Number(player.lost).toFixed(1)} points lost over ${hands} (${Number(player.lost_per_hand).toFixed(1)} a hand); ${costly}`;
}
