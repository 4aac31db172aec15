// The room document turned into what the table draws: pure functions, no DOM. Every total and
// score shown is the server's (game.total, legal[i].total and points, the events' points), and
// so is every layout drawn (the last hand's too: its hand_ended's layout). Nothing is placed here.

import { displayNames, partnership, seatSides, sideName, describeHandEnd, describeWinner, endWord, teamLetter } from "./describe.js";
import { t, decimal, signedDecimal } from "./i18n.js";
import { explainHand } from "./results.js";

export const END_NAMES = ["west", "east", "north", "south"];

/** "5-3" -> [5, 3] (as written). */
export function parseTile(tile) {
  const [a, b] = String(tile).split("-").map(Number);
  return [a, b];
}

function copyLayout(layout) {
  return {
    line: (layout?.line ?? []).map((t) => [...t]),
    spinner: layout?.spinner ?? null,
    north: (layout?.north ?? []).map((t) => [...t]),
    south: (layout?.south ?? []).map((t) => [...t]),
  };
}

/** A number the server sent, or null for anything else (the document is not trusted). */
function count(value) {
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** Whether the total on the table scored: the server's word on the play that made it. */
export function scoredNow(game) {
  const plays = (game?.history ?? []).filter((event) => event.type === "played");
  return plays.length > 0 && (count(plays[plays.length - 1].points) ?? 0) > 0;
}

/** Where the lead tile sits in the line: one to the east of every tile played west. */
export function leadIndex(game) {
  if (!game) return null;
  const plays = (game.history ?? []).filter((e) => e.type === "played");
  if (!plays.length || plays[0].end !== null) return null;
  return plays.filter((e) => e.end === "west").length;
}

/**
 * What the table shows, from the document (and the client's extras: a final layout kept from
 * the last hand, a hint, the tile picked to play). Everything a renderer needs, nothing it must
 * work out.
 */
export function tableModel(doc, extras = {}) {
  if (!doc) return null;
  const names = displayNames(doc);
  const teams = partnership(doc.rules);
  const seatSide = seatSides(doc);
  const game = doc.game;
  const you = doc.you;
  const seats = doc.seats.map((seat, index) => ({
    index,
    name: names[index],
    free: seat === null,
    bot: seat?.kind === "bot",
    level: seat?.level ?? null,
    connected: seat ? seat.connected : false,
    standIn: Boolean(seat?.stand_in),
    deadline: game && game.turn === index ? doc.deadline ?? null : null,
    you: index === you,
    host: index === doc.host,
    side: seatSide[index] ?? index,
    team: teams ? teamLetter(seatSide[index]) : null,
    tiles: game ? game.hand_counts[index] ?? 0 : null,
    score: game && !teams ? game.scores[index] ?? 0 : null,
    turn: Boolean(game && doc.phase === "playing" && game.turn === index),
  }));
  const model = {
    code: doc.code,
    // Whether the room's matches move ratings (a room stored before `rated` follows `public`).
    rated: doc.rules?.rated ?? doc.rules?.public !== false,
    phase: doc.phase,
    rules: doc.rules,
    names,
    teams,
    seats,
    you,
    host: doc.host,
    isHost: you !== null && you !== undefined && you === doc.host,
    spectators: doc.spectators ?? 0,
    freeSeats: seats.filter((seat) => seat.free).map((seat) => seat.index),
    chat: doc.chat ?? [],
    game: null,
  };
  if (!game) return model;
  const playing = doc.phase === "playing" && !game.over;
  const online = extras.online !== false;
  const myTurn = online && playing && you !== null && game.turn === you && (game.legal ?? []).length > 0;
  const layout = copyLayout(game.layout);
  const sides = teams
    ? [0, 1].map((index) => ({ index, name: sideName(index, names, true), short: t("team.short", { letter: teamLetter(index) }), score: game.scores[index] ?? 0 }))
    : seats.map((seat) => ({ index: seat.index, name: seat.name, short: seat.name, score: game.scores[seat.index] ?? 0 }));
  const legal = game.legal ?? [];
  const hand = (game.hand ?? []).map((tile) => {
    const moves = legal.filter((move) => move.tile === tile);
    // What each play would make is the server's (legal[i].total and points): nothing is counted here.
    const options = moves.map((move) => ({
      end: move.end ?? null,
      total: count(move.total),
      scores: (count(move.points) ?? 0) > 0,
    }));
    return {
      tile,
      pips: parseTile(tile),
      playable: myTurn && moves.length > 0,
      options: myTurn ? options : [],
      hinted: Boolean(extras.hint && extras.hint.tile === tile),
    };
  });
  const summary = game.last_hand
    ? {
      hand: game.over ? game.hand_number : game.hand_number - 1,
      text: describeHandEnd({ type: "hand_ended", ...game.last_hand }, names, teams),
      ...explainHand(game.last_hand, { rules: doc.rules, names, teams, sides: seatSide }),
      kind: game.last_hand.kind,
      by: game.last_hand.by,
      pips: game.last_hand.pips,
      points: game.last_hand.points,
      finalLayout: game.over ? layout : extras.finalLayout ?? null,
    }
    : null;
  // Before the next hand's lead the board keeps the last hand's table, as it ended (dimmed).
  const kept = extras.finalLayout;
  const previous = !game.over && layout.line.length === 0 && kept?.line?.length > 0 && extras.finalHand === game.hand_number;
  const board = previous
    ? { layout: copyLayout(kept), history: extras.finalHistory ?? [], leadIndex: leadIndex({ history: extras.finalHistory ?? [] }), previous: game.hand_number - 1 }
    : { layout, history: game.history ?? [], leadIndex: leadIndex(game), previous: null };
  model.game = {
    handNumber: game.hand_number,
    board,
    leader: game.leader,
    layout,
    leadIndex: leadIndex(game),
    ends: game.ends,
    total: game.total,
    gold: scoredNow(game),
    leading: myTurn && layout.line.length === 0,
    target: game.target,
    boneyard: game.boneyard,
    turn: game.turn,
    turnName: game.turn !== null && game.turn !== undefined ? names[game.turn] : null,
    myTurn,
    canPass: myTurn && legal.some((move) => move.pass),
    sides,
    hand,
    spectator: game.hand === null,
    summary,
    over: game.over,
    winner: game.winner,
    winnerText: game.over ? describeWinner(game.winner, names, teams) : null,
    history: game.history ?? [],
    ratingText: game.over ? ratingText(doc.ratings, you) : null,
    ratingNote: game.over ? ratingNote(doc.ratings, you) : null,
  };
  return model;
}

/** Your rating change at the end of a match, in words ("Your rating on the 2p ladder: 3.9
 *  (+3.9)"), from the room's `ratings`; null when none is yours (not rated, or not yet). */
export function ratingText(ratings, you) {
  if (!Array.isArray(ratings) || you === null || you === undefined) return null;
  const mine = ratings.find((change) => change?.seat === you);
  // No figure when nothing moved: "0,0 (0,0)" reads as "my rating is zero" (issue 45).
  if (mine && Number(mine.counted ?? 1) <= 0) return provisionalText(mine);
  const before = Number(mine?.before?.rating);
  const after = Number(mine?.after?.rating);
  if (!Number.isFinite(before) || !Number.isFinite(after)) return null;
  const params = { rating: decimal(after), change: signedDecimal(after - before) };
  return ["2p", "3p", "teams"].includes(mine.ladder)
    ? t(`rating.change.${mine.ladder}`, params)
    : t("rating.change.other", { ...params, ladder: String(mine.ladder) });
}

/** A match that moved no rating, in one sentence: when you are provisional, what counts and
 *  what you still lack (the change's `matches_to_go`, `opponents_to_go`); else that another
 *  player at the table was provisional. */
export function provisionalText(mine) {
  if (mine.provisional !== true) return t("rating.provisional");
  const whole = (value) => (Number.isInteger(value) && value > 0 ? value : 0);
  const matches = whole(mine.matches_to_go);
  const opponents = whole(mine.opponents_to_go);
  const parts = [];
  if (matches) parts.push(t("rating.to_go.matches", { count: matches }));
  if (opponents) parts.push(t("rating.to_go.opponents", { count: opponents }));
  if (!parts.length) return t("rating.provisional");
  const left = parts.length === 2 ? t("rating.to_go.both", { matches: parts[0], opponents: parts[1] }) : parts[0];
  return t("rating.provisional_you", { left });
}

/** Why your rating moved less than openskill's full change (the change's `counted`, 0 to 1):
 *  a provisional player at the table, or a short match or a repeat; null when it counted fully. */
export function ratingNote(ratings, you) {
  if (!Array.isArray(ratings) || you === null || you === undefined) return null;
  const counted = Number(ratings.find((change) => change?.seat === you)?.counted ?? 1);
  if (!Number.isFinite(counted) || counted >= 1) return null;
  if (counted <= 0) return null; // ratingText says it all in one sentence
  return t("rating.counted", { share: String(Math.max(1, Math.round(counted * 100))) });
}

/** The layout in words, for screen readers: the line west to east, the arms, the open ends. */
export function describeLayout(layout, ends) {
  if (!layout.line.length) return t("board.empty_sentence");
  const tile = (pips) => `${pips[0]}-${pips[1]}`;
  const line = layout.line.map((pips, i) => (i === layout.spinner ? t("board.spinner_tile", { tile: tile(pips) }) : tile(pips)));
  const parts = [t("board.line", { tiles: line.join(", ") })];
  for (const arm of ["north", "south"]) {
    if (layout[arm].length) parts.push(t(`board.arm_${arm}`, { tiles: layout[arm].map(tile).join(", ") }));
  }
  const open = END_NAMES.filter((name) => ends?.[name] !== null && ends?.[name] !== undefined);
  if (open.length) parts.push(t("board.open_ends", { ends: open.map((name) => `${endWord(name)} ${ends[name]}`).join(", ") }));
  return parts.join(" ");
}
