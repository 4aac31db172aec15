// Events in words, as protocol/views.py `describe` says them (the log and the summaries).

/** A name per seat: people by their name, bots as "Bot 2", free seats as "(free)". */
export function displayNames(doc) {
  return (doc?.seats ?? []).map((seat, index) => {
    if (seat === null) return "(free)";
    if (seat.kind === "bot") return `Bot ${index}`;
    return seat.name;
  });
}

/** Whether scores are per team (four players in partnership). */
export function partnership(rules) {
  return Boolean(rules && rules.teams && rules.players === 4);
}

export function nameOf(seat, names) {
  return seat >= 0 && seat < names.length ? names[seat] : `seat ${seat}`;
}

/** A team ("team A (Ann & Cid)") when scores are per team, else the seat's name. */
export function sideName(index, names, teams) {
  if (!teams) return nameOf(index, names);
  const letter = index === 0 || index === 1 ? "AB"[index] : String(index);
  return `team ${letter} (${nameOf(index, names)} & ${nameOf(index + 2, names)})`;
}

/** One sentence for an event, e.g. "Ann played 5-3 east: total 15, scores 15". Seats in
 *  `standIns` had the move made for them by the stand-in bot ("Bob's stand-in played …"). */
export function describe(event, names, teams = false, standIns = new Set()) {
  const mover = (seat) => (standIns.has(seat) ? `${nameOf(seat, names)}'s stand-in` : nameOf(seat, names));
  switch (event.type) {
    case "played": {
      const who = mover(event.seat);
      const action = event.end === null || event.end === undefined
        ? `led ${event.tile}` : `played ${event.tile} ${event.end}`;
      const scored = event.points ? `, scores ${event.points}` : "";
      return `${who} ${action}: total ${event.total}${scored}`;
    }
    case "drew":
      return `${mover(event.seat)} drew ${event.count} tile${event.count !== 1 ? "s" : ""}`;
    case "passed":
      return `${nameOf(event.seat, names)} passed`;
    case "hand_ended":
      return describeHandEnd(event, names, teams);
    case "hand_started":
      return `Hand ${event.number}: ${nameOf(event.leader, names)} leads`;
    case "match_ended":
      return describeWinner(event.winner, names, teams);
    case "chat":
      return `${event.name}: ${event.text}`;
    default:
      return `(${String(event.type)})`;
  }
}

export function describeHandEnd(event, names, teams) {
  const by = event.by !== null && event.by !== undefined ? nameOf(event.by, names) : "?";
  const opening = {
    domino: `${by} went out`,
    blocked: "The hand is blocked",
    won: `${by} reached the target`,
  }[event.kind] ?? "The hand ended";
  const gains = [];
  event.points.forEach((points, index) => {
    if (points) {
      gains.push(`${sideName(index, names, teams)} ${points > 0 ? "scores" : "loses"} ${Math.abs(points)}`);
    }
  });
  const pips = event.pips.map((count, seat) => `${nameOf(seat, names)} ${count}`).join(", ");
  const scored = gains.length ? `: ${gains.join(", ")}` : ": nobody scores";
  return `${opening}${event.kind !== "won" ? scored : ""}. Pips left: ${pips}`;
}

export function describeWinner(winner, names, teams) {
  if (winner === null || winner === undefined) return "The match ended without a winner";
  if (Array.isArray(winner)) return `${winner.map((seat) => nameOf(seat, names)).join(" and ")} share the win`;
  return `${sideName(winner, names, teams)} wins the match`;
}

/** A suggested move in words: "play 5-3 north", "pass". */
export function describeMove(move) {
  if (!move || move.pass || !move.tile) return "pass";
  return `play ${move.tile}${move.end ? ` ${move.end}` : ""}`;
}
