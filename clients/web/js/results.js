// Why a hand scored what it did (docs/rules.md 7): the pips counted, their sum, its rounding to
// five and the points, worked out from the hand's result as the server sent it. Pure: no DOM.

import { nameOf } from "./describe.js";

/** round5 of rule 7.2: to the nearest multiple of five, halves going up (7 -> 5, 7.5 -> 10). */
export function round5(x) {
  return 5 * Math.floor((2 * x + 5) / 10);
}

/** A side's name: "Team A" with partnerships, else the seat's name. */
function sideLabel(index, names, teams) {
  return teams ? `Team ${"AB"[index] ?? index}` : nameOf(index, names);
}

/** "Bot 1 12 + Bot 2 9 = 21" (no sum for a single count). */
function sumOf(seats, pips, names) {
  const parts = seats.map((seat) => `${nameOf(seat, names)} ${pips[seat]}`);
  const total = seats.reduce((sum, seat) => sum + pips[seat], 0);
  return { text: seats.length > 1 ? `${parts.join(" + ")} = ${total}` : parts.join(""), total };
}

function rounding(x) {
  const r = round5(x);
  return r === x ? `${x} is a multiple of five` : `${x} rounds to ${r}`;
}

/**
 * The hand's result explained: `{ title, steps: [sentences], sides: [{ side, name, points }],
 * agrees }` where `agrees` says the arithmetic gives the server's points. `result` is a
 * `last_hand` or `hand_ended` (kind, by, points, pips); `rules` the room's rules.
 */
export function explainHand(result, { rules, names, teams }) {
  const pips = result.pips ?? [];
  const seats = pips.map((_, seat) => seat);
  const side = (seat) => (teams ? seat % 2 : seat);
  const penalty = rules?.end_scoring === "penalty";
  const expected = (result.points ?? []).map(() => 0);
  const steps = [];
  let title;
  const by = result.by !== null && result.by !== undefined ? nameOf(result.by, names) : null;
  if (result.kind === "won") {
    title = `${by ?? "A player"} reached the target`;
    steps.push("The play that reached the target ended the match: no end-of-hand count (rule 8.2).");
  } else if (penalty) {
    title = result.kind === "domino" ? `${by} went out` : "The hand is blocked";
    steps.push("Penalty scoring: each player loses their own pips, rounded to five (rule 7.4).");
    for (const seat of seats) {
      const lost = round5(pips[seat]);
      expected[side(seat)] -= lost;
      steps.push(`${nameOf(seat, names)}: ${rounding(pips[seat])}, loses ${lost}.`);
    }
  } else if (result.kind === "domino") {
    title = `${by} went out`;
    const others = seats.filter((seat) => side(seat) !== side(result.by));
    const { text, total } = sumOf(others, pips, names);
    const points = round5(total);
    expected[side(result.by)] = points;
    steps.push(`Left in the ${others.length > 1 ? "opponents' hands" : "other hand"}: ${text} pips.`);
    if (teams) steps.push(`(${nameOf((result.by + 2) % 4, names)}'s ${pips[(result.by + 2) % 4]} count for nobody.)`);
    steps.push(`${rounding(total)}: ${sideLabel(side(result.by), names, teams)} scores ${points}.`);
  } else {
    title = "The hand is blocked";
    if (teams) {
      const team = [0, 1].map((t) => sumOf([t, t + 2], pips, names));
      steps.push(`Team A holds ${team[0].text}; team B holds ${team[1].text}.`);
      if (team[0].total === team[1].total) {
        steps.push("Equal pips: nobody scores.");
      } else {
        const low = team[0].total < team[1].total ? 0 : 1;
        const points = round5(team[1 - low].total);
        expected[low] = points;
        steps.push(`Team ${"AB"[low]} holds fewer and counts team ${"AB"[1 - low]}'s ${team[1 - low].total}: ${rounding(team[1 - low].total)}, so team ${"AB"[low]} scores ${points}.`);
      }
    } else {
      const fewest = Math.min(...pips);
      const lows = seats.filter((seat) => pips[seat] === fewest);
      const held = seats.map((seat) => `${nameOf(seat, names)} ${pips[seat]}`).join(", ");
      steps.push(`Pips held: ${held}.`);
      if (lows.length === 1) {
        const others = seats.filter((seat) => seat !== lows[0]);
        const { text, total } = sumOf(others, pips, names);
        const points = round5(total);
        expected[lows[0]] = points;
        steps.push(`${nameOf(lows[0], names)} holds the fewest and counts the others': ${text}.`);
        steps.push(`${rounding(total)}: ${nameOf(lows[0], names)} scores ${points}.`);
      } else if (lows.length === 2 && seats.length === 3) {
        const third = seats.find((seat) => !lows.includes(seat));
        const half = pips[third] / 2;
        const points = round5(half);
        for (const seat of lows) expected[seat] = points;
        steps.push(`${nameOf(lows[0], names)} and ${nameOf(lows[1], names)} tie for the fewest: each counts half of ${nameOf(third, names)}'s ${pips[third]}, ${half}.`);
        steps.push(`${rounding(half)}: each scores ${points}.`);
      } else {
        steps.push("The fewest pips are shared: nobody scores.");
      }
    }
  }
  const sides = (result.points ?? []).map((value, index) => ({ side: index, name: sideLabel(index, names, teams), points: value }));
  const agrees = expected.length === sides.length && expected.every((value, index) => value === sides[index].points);
  return { title, steps, sides, agrees };
}

/** "+20", "0", "−10": points as a change. */
export function signed(points) {
  if (points > 0) return `+${points}`;
  if (points < 0) return `\u2212${Math.abs(points)}`;
  return "0";
}
