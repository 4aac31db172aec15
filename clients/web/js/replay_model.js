// A finished match's record (allfives-record/1) as the steps a replay shows: pure, no DOM.
//
// Each hand has a step for its deal, one after each move and, once the hand is over, one for
// its result. A step holds every seat's tiles at that moment (the record shows them all: the
// match is over), the boneyard left, the layout as the table draws it (`model.place`, the
// table's own placing), the move made and the scores. Every total and point is the record's
// (the server's `total`, `points` and `result.points`): nothing is counted here.

import { place } from "./model.js";
import { botSeatName, partnership, seatNumber } from "./describe.js";
import { t } from "./i18n.js";

const EMPTY = { line: [], spinner: null, north: [], south: [] };

/** A number from the record, or 0 (the record is not trusted). */
function num(value) {
  return Number.isSafeInteger(value) ? value : 0;
}

/** Two tiles are the same whichever way they are written. */
function sameTile(a, b) {
  return a === b || a === String(b).split("-").reverse().join("-");
}

/** The number open at each end of a drawn layout (null where nothing may be played). */
export function openEnds(layout) {
  const line = layout.line;
  if (!line.length) return { west: null, east: null, north: null, south: null };
  const spinner = layout.spinner;
  const armsOpen = spinner !== null && spinner > 0 && spinner < line.length - 1;
  const arm = (name) => {
    if (!armsOpen) return null;
    const tiles = layout[name];
    return tiles.length ? tiles[tiles.length - 1][1] : line[spinner][0];
  };
  return { west: line[0][0], east: line[line.length - 1][1], north: arm("north"), south: arm("south") };
}

/** The end a play went to: as written, else the one open end its tile fits (east first, as a
 *  tile on a lone lead double goes, rule 5.6). */
function endOf(layout, move) {
  if (!layout.line.length) return null;
  if (move.end) return move.end;
  const ends = openEnds(layout);
  const [a, b] = String(move.tile).split("-").map(Number);
  return ["east", "west", "north", "south"].find((end) => ends[end] === a || ends[end] === b) ?? "east";
}

/**
 * The replay of a record: `{names, teams, sides, hands, steps}`; `sides` is the number of
 * scores (seats, or two teams). Each step: `hand` (from 1), `move` (0 for the deal, then the
 * move's number), `kind` ("deal", "played", "passed", "hand_ended"), `seat`, `tile`, `end`,
 * `drew`, `total`, `points`, `result` (for "hand_ended"), `tiles` (each seat's, as dealt and
 * drawn), `boneyard` (tiles left in it), `layout`, `leadIndex`, `ends`, `scores` (per side,
 * after the step), `last` (the hand's last step).
 */
export function replaySteps(record) {
  const rules = record?.rules ?? {};
  const players = num(rules.players) || (record?.hands?.[0]?.deal?.length ?? 2);
  // `teams` is left out of a record when true (its default): four players are a partnership
  // unless the record says otherwise.
  const teams = partnership({ ...rules, players, teams: rules.teams !== false });
  const sides = teams ? 2 : players;
  const names = Array.from({ length: players }, (_, seat) => {
    const name = record?.names?.[seat];
    const bot = /^bot:(easy|normal|hard)$/.exec(String(name));
    if (bot) return botSeatName(seat, bot[1]); // "Bot 2 (hard)", as the table named the seat
    return typeof name === "string" && name ? name : t("review.seat", { seat: seatNumber(seat) });
  });
  const sideOf = (seat) => (teams ? seat % 2 : seat);
  const scores = new Array(sides).fill(0);
  const steps = [];
  const hands = Array.isArray(record?.hands) ? record.hands : [];
  hands.forEach((hand, index) => {
    const number = index + 1;
    const tiles = (hand.deal ?? []).map((seatTiles) => [...(seatTiles ?? [])]);
    const boneyard = [...(hand.boneyard ?? [])];
    let drawn = 0;
    let layout = EMPTY;
    let west = 0;
    const snapshot = (fields) => ({
      hand: number,
      tiles: tiles.map((t) => [...t]),
      boneyard: boneyard.length - drawn,
      layout,
      leadIndex: layout.line.length ? west : null,
      ends: openEnds(layout),
      scores: [...scores],
      last: false,
      ...fields,
    });
    steps.push(snapshot({ move: 0, kind: "deal", seat: num(hand.leader) }));
    (hand.moves ?? []).forEach((move, at) => {
      const seat = num(move.seat);
      const drew = num(move.drew);
      for (let k = 0; k < drew && drawn < boneyard.length; k += 1) {
        tiles[seat]?.push(boneyard[drawn]);
        drawn += 1;
      }
      if (move.pass || !move.tile) {
        steps.push(snapshot({ move: at + 1, kind: "passed", seat, drew }));
        return;
      }
      const end = endOf(layout, move);
      layout = place(layout, move.tile, end);
      if (end === "west") west += 1;
      const held = tiles[seat] ?? [];
      const found = held.findIndex((tile) => sameTile(tile, move.tile));
      if (found >= 0) held.splice(found, 1);
      const points = num(move.points);
      scores[sideOf(seat)] += points;
      steps.push(snapshot({
        move: at + 1, kind: "played", seat, tile: move.tile, end, drew, total: num(move.total), points,
      }));
    });
    if (hand.result) {
      (hand.result.points ?? []).forEach((points, side) => {
        if (side < sides) scores[side] += num(points);
      });
      steps.push(snapshot({ move: (hand.moves ?? []).length + 1, kind: "hand_ended", seat: null, result: hand.result }));
    }
    steps[steps.length - 1].last = true;
  });
  return { names, teams, sides, hands: hands.length, steps };
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
