// Why a hand scored what it did (docs/rules.md 7): the pips counted, their sum, its rounding to
// five and the points, worked out from the hand's result as the server sent it. Pure: no DOM.

import { nameOf, teamLetter } from "./describe.js";
import { t } from "./i18n.js";

/** round5 of rule 7.2: to the nearest multiple of five, halves going up (7 -> 5, 7.5 -> 10). */
export function round5(x) {
  return 5 * Math.floor((2 * x + 5) / 10);
}

/** A side's name: "Team A" with partnerships, else the seat's name. */
function sideLabel(index, names, teams) {
  return teams ? t("team.short", { letter: teamLetter(index) }) : nameOf(index, names);
}

/** "Bot 1 12 + Bot 2 9 = 21" (no sum for a single count). */
function sumOf(seats, pips, names) {
  const parts = seats.map((seat) => `${nameOf(seat, names)} ${pips[seat]}`);
  const total = seats.reduce((sum, seat) => sum + pips[seat], 0);
  return { text: seats.length > 1 ? `${parts.join(" + ")} = ${total}` : parts.join(""), total };
}

function rounding(x) {
  const r = round5(x);
  return r === x ? t("result.multiple", { value: x }) : t("result.rounds", { value: x, rounded: r });
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
    title = by === null ? t("result.someone_reached") : t("hand.reached_target", { who: by });
    steps.push(t("result.won_step"));
  } else if (penalty) {
    title = result.kind === "domino" ? t("hand.went_out", { who: by }) : t("hand.blocked");
    steps.push(t("result.penalty_step"));
    for (const seat of seats) {
      const lost = round5(pips[seat]);
      expected[side(seat)] -= lost;
      steps.push(t("result.penalty_loses", { who: nameOf(seat, names), rounding: rounding(pips[seat]), points: lost }));
    }
  } else if (result.kind === "domino") {
    title = t("hand.went_out", { who: by });
    const others = seats.filter((seat) => side(seat) !== side(result.by));
    const { text, total } = sumOf(others, pips, names);
    const points = round5(total);
    expected[side(result.by)] = points;
    steps.push(t(others.length > 1 ? "result.left_opponents" : "result.left_other", { sum: text }));
    if (teams) steps.push(t("result.partner_nobody", { who: nameOf((result.by + 2) % 4, names), pips: pips[(result.by + 2) % 4] }));
    steps.push(t("result.side_scores", { rounding: rounding(total), side: sideLabel(side(result.by), names, teams), points }));
  } else {
    title = t("hand.blocked");
    if (teams) {
      const team = [0, 1].map((index) => sumOf([index, index + 2], pips, names));
      steps.push(t("result.teams_hold", { a: team[0].text, b: team[1].text }));
      if (team[0].total === team[1].total) {
        steps.push(t("result.equal_pips"));
      } else {
        const low = team[0].total < team[1].total ? 0 : 1;
        const points = round5(team[1 - low].total);
        expected[low] = points;
        steps.push(t("result.team_fewer", {
          low: teamLetter(low), high: teamLetter(1 - low), pips: team[1 - low].total, rounding: rounding(team[1 - low].total), points,
        }));
      }
    } else {
      const fewest = Math.min(...pips);
      const lows = seats.filter((seat) => pips[seat] === fewest);
      const held = seats.map((seat) => `${nameOf(seat, names)} ${pips[seat]}`).join(", ");
      steps.push(t("result.pips_held", { held }));
      if (lows.length === 1) {
        const others = seats.filter((seat) => seat !== lows[0]);
        const { text, total } = sumOf(others, pips, names);
        const points = round5(total);
        expected[lows[0]] = points;
        steps.push(t("result.fewest_counts", { who: nameOf(lows[0], names), sum: text }));
        steps.push(t("result.side_scores", { rounding: rounding(total), side: nameOf(lows[0], names), points }));
      } else if (lows.length === 2 && seats.length === 3) {
        const third = seats.find((seat) => !lows.includes(seat));
        const half = pips[third] / 2;
        const points = round5(half);
        for (const seat of lows) expected[seat] = points;
        steps.push(t("result.tie_half", {
          first: nameOf(lows[0], names), second: nameOf(lows[1], names), third: nameOf(third, names), pips: pips[third], half,
        }));
        steps.push(t("result.each_scores", { rounding: rounding(half), points }));
      } else {
        steps.push(t("result.fewest_shared"));
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
