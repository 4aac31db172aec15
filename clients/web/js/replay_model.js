// A finished match's record (allfives-record/1) as the steps a replay shows: pure, no DOM.
//
// The steps are the server's positions (protocol/README.md, "Positions"): for each hand one for
// its deal, one after each move and, once the hand is over, one for its result, each holding
// every seat's tiles at that moment (the match is over), the boneyard left, the layout as the
// table draws it, the move made and the scores. Nothing is placed or counted here: the seats'
// names and which step ends its hand are all this module adds.

import { botSeatName, seatNumber } from "./describe.js";
import { t } from "./i18n.js";

const EMPTY = { line: [], spinner: null, north: [], south: [] };
const NO_ENDS = { west: null, east: null, north: null, south: null };

/** A number from the server, or 0 (the answer is not trusted). */
function num(value) {
  return Number.isSafeInteger(value) ? value : 0;
}

/**
 * The replay of a record from the server's `positions` of it: `{names, teams, sides, hands,
 * steps}`; `sides` is the number of scores (seats, or two teams). Each step is a position as the
 * server sent it (`hand`, `move`, `kind`, `seat`, `tile`, `end`, `drew`, `total`, `points`,
 * `result`, `tiles`, `boneyard`, `layout`, `ends`, `scores`), with `leadIndex` (the server's
 * `lead`) and `last` (the hand's last step).
 */
export function replaySteps(record, positions) {
  const rules = record?.rules ?? {};
  const players = num(rules.players) || (record?.hands?.[0]?.deal?.length ?? 2);
  const names = Array.from({ length: players }, (_, seat) => {
    const name = record?.names?.[seat];
    const bot = /^bot:(easy|normal|hard)$/.exec(String(name));
    if (bot) return botSeatName(seat, bot[1]); // "Bot 2 (hard)", as the table named the seat
    return typeof name === "string" && name ? name : t("review.seat", { seat: seatNumber(seat) });
  });
  const steps = (Array.isArray(positions) ? positions : []).map((position) => ({
    ...position,
    seat: position.seat ?? null,
    tile: position.tile ?? null,
    end: position.end ?? null,
    drew: num(position.drew),
    total: num(position.total),
    points: num(position.points),
    layout: position.layout ?? EMPTY,
    ends: position.ends ?? NO_ENDS,
    leadIndex: position.lead ?? null,
    scores: Array.isArray(position.scores) ? position.scores : [],
    last: false,
  }));
  steps.forEach((step, at) => {
    step.last = at === steps.length - 1 || steps[at + 1].hand !== step.hand;
  });
  // The server's scores are per side: fewer of them than seats are the teams'.
  const sides = steps[0]?.scores.length || players;
  const teams = sides < players;
  const hands = Array.isArray(record?.hands) ? record.hands.length : 0;
  return { names, teams, sides, hands, steps };
}

/** The index of the first step of the hand after (or, with `by` -1, before) step `at`'s. */
export function handStep(steps, at, by) {
  const hand = steps[at]?.hand ?? 1;
  const wanted = hand + by;
  if (by < 0) {
    const first = steps.findIndex((step) => step.hand === hand);
    if (at > first) return first;
    const before = steps.findIndex((step) => step.hand === wanted);
    return before >= 0 ? before : 0;
  }
  const next = steps.findIndex((step) => step.hand === wanted);
  return next >= 0 ? next : steps.length - 1;
}
