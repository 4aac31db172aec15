// Events in words, as the catalogs say them (the log and the summaries): the wire's event types
// and numbers worded in the player's language (i18n.js).

import { t, plural, both, currentLanguage } from "./i18n.js";

/** A seat's number as a player reads it: seats count from 1 on screen (the wire's seat 0 is
 *  seat 1), in every language and in both clients; a bot is named by its seat's number. */
export function seatNumber(index) {
  return index + 1;
}

/** An end's name in the player's language. */
export function endWord(end) {
  return ["north", "south", "east", "west"].includes(end) ? t(`end.${end}`) : String(end ?? "");
}

/** A bot level ("easy", "normal", "hard") in the player's language, as "easy bot". */
export function botWord(level) {
  return ["easy", "normal", "hard"].includes(level) ? t(`bot.${level}`) : String(level ?? "");
}

/** A bot's seat in a finished game (a replay, its review, a list of games): its name at the
 *  table with its level beside it, "Bot 2 (hard)". */
export function botSeatName(seat, level) {
  const known = ["easy", "normal", "hard"].includes(level) ? t(`level.${level}`) : String(level ?? "");
  return t("seat.bot_level", { name: t("seat.bot_name", { seat: seatNumber(seat) }), level: known });
}

/** A seat of a listed room (the `rooms` reply names a bot by its protocol name, "bot:easy"):
 *  a bot as the table names it, "Bot 2 (easy bot)"; a person by their name; null for free. */
export function listedSeatName(name, index) {
  if (name === null || name === undefined) return null;
  const level = /^bot:(easy|normal|hard)$/.exec(String(name));
  if (!level) return String(name);
  return t("seat.bot_level", { name: t("seat.bot_name", { seat: seatNumber(index) }), level: botWord(level[1]) });
}

/** Whether `name` is a bot's level alone ("bot:hard"), as the server names an ordinary room's
 *  bot; a tournament's bot entrant has a name of its own ("bot:hard 1"). */
export function levelOnly(name) {
  return /^bot:(easy|normal|hard)$/.test(String(name));
}

/** A name per seat: people by their name, an ordinary room's bots as "Bot 2" (in seat 2), a
 *  tournament's by the name the server gave it, free seats as "(free)". */
export function displayNames(doc) {
  return (doc?.seats ?? []).map((seat, index) => {
    if (seat === null) return t("seat.free_name");
    if (seat.kind === "bot" && levelOnly(seat.name)) return t("seat.bot_name", { seat: seatNumber(index) });
    return seat.name;
  });
}

/** Whether scores are per team: the room's `teams`, as the server resolved it (false with two
 *  or three players, whatever was asked). */
export function partnership(rules) {
  return Boolean(rules && rules.teams);
}

/** Each seat's index in the scores, as the room document says (`sides`): its team with teams,
 *  else the seat itself. Nothing here knows which seats are partners. */
export function seatSides(doc) {
  const sides = doc?.sides;
  return Array.isArray(sides) ? sides : (doc?.seats ?? []).map((_, seat) => seat);
}

export function nameOf(seat, names) {
  return seat >= 0 && seat < names.length ? names[seat] : t("seat.number", { seat: seatNumber(seat) });
}

/** A team's letter: A (seats 1 and 3 on screen, the wire's 0 and 2), B (2 and 4). */
export function teamLetter(index) {
  return index === 0 || index === 1 ? "AB"[index] : String(index);
}

/** A team ("Team A (Ann & Cid)") when scores are per team, else the seat's name. */
export function sideName(index, names, teams) {
  if (!teams) return nameOf(index, names);
  return t("team.with_names", { letter: teamLetter(index), first: nameOf(index, names), second: nameOf(index + 2, names) });
}

/** One sentence for an event, e.g. "Ann played 5-3 east: total 15, scores 15". Seats in
 *  `standIns` had the move made for them by the stand-in bot ("Bob's stand-in played …"; to the
 *  player of seat `you` themself, "Your stand-in played …"). */
export function describe(event, names, teams = false, standIns = new Set(), you = null) {
  const standIn = (seat) => (seat === you ? t("log.stand_in_you") : t("log.stand_in", { who: nameOf(seat, names) }));
  const mover = (seat) => (standIns.has(seat) ? standIn(seat) : nameOf(seat, names));
  switch (event.type) {
    case "played": {
      const who = mover(event.seat);
      const line = event.end === null || event.end === undefined
        ? t("log.led", { who, tile: event.tile, total: event.total })
        : t("log.played", { who, tile: event.tile, end: endWord(event.end), total: event.total });
      return event.points ? `${line}${t("log.scores", { points: event.points })}` : line;
    }
    case "drew":
      return plural("log.drew", event.count, { who: mover(event.seat) });
    case "passed":
      return t("log.passed", { who: nameOf(event.seat, names) });
    case "hand_ended":
      return describeHandEnd(event, names, teams);
    case "hand_started":
      return t("log.hand_started", { number: event.number, who: nameOf(event.leader, names) });
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
    domino: t("hand.went_out", { who: by }),
    blocked: t("hand.blocked"),
    won: t("hand.reached_target", { who: by }),
  }[event.kind] ?? t("hand.ended");
  const gains = [];
  event.points.forEach((points, index) => {
    if (points) {
      const side = sideName(index, names, teams);
      gains.push(t(points > 0 ? "log.side_scores" : "log.side_loses", { side, points: Math.abs(points) }));
    }
  });
  // The count first ("3 (Bot 2)"), as the hand's result card says it: "Bot 2 3" would read as "Bot 23".
  const pips = event.pips.map((count, seat) => t("result.pips_of", { pips: count, who: nameOf(seat, names) })).join(", ");
  if (event.kind === "won") return t("log.hand_end_won", { opening, pips });
  if (!gains.length) return t("log.hand_end_nobody", { opening, pips });
  return t("log.hand_end", { opening, gains: gains.join(", "), pips });
}

/** The text with a capital first letter (a sentence that begins with "team B (…)"). */
export function sentence(text) {
  return text ? text[0].toLocaleUpperCase(currentLanguage()) + text.slice(1) : text;
}

export function describeWinner(winner, names, teams) {
  if (winner === null || winner === undefined) return t("winner.none");
  if (Array.isArray(winner)) return t("winner.shared", { names: both(winner.map((seat) => nameOf(seat, names))) });
  // A team begins the sentence with a capital; a name stays as its player wrote it.
  const said = t("winner.side", { side: sideName(winner, names, teams) });
  return teams ? sentence(said) : said;
}

/** A suggested move in words: "play 5-3 north", "pass". */
export function describeMove(move) {
  if (!move || move.pass || !move.tile) return t("move.pass");
  if (move.end) return t("move.play_at", { tile: move.tile, end: endWord(move.end) });
  return t("move.play", { tile: move.tile });
}

/** What a refused request means, in the player's words: its reason if this page knows it, else
 *  its code (the server's own English `message` only for a code this page does not know). */
export function errorWords(message) {
  if (message.reason) {
    const reason = t(`reason.${message.reason}`);
    if (reason !== `reason.${message.reason}`) return reason;
  }
  const key = `error.${message.code}`;
  const said = t(key);
  return said === key ? String(message.message ?? message.code ?? "") : said;
}

/** The request that was refused, in the player's words. */
export function commandWords(command) {
  const key = `command.${command}`;
  const said = t(key);
  return said === key ? String(command) : said;
}
