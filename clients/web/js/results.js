// Why a hand scored what it did (docs/rules.md 7): the pips counted, their sum, its rounding to
// five and the points, in words, from the counts the server sent with the hand's result. Pure: no DOM.

import { nameOf, teamLetter } from "./describe.js";
import { t } from "./i18n.js";

/** A side's name: "Team A" with partnerships, else the seat's name. */
function sideLabel(index, names, teams) {
  return teams ? t("team.short", { letter: teamLetter(index) }) : nameOf(index, names);
}

/** "12 (Bot 1)": a seat's pips, the count first, so that "Bot 3" and its 2 never read "Bot 32". */
function pipsOf(seat, pips, names) {
  return t("result.pips_of", { pips: pips[seat], who: nameOf(seat, names) });
}

/** "12 (Bot 1) + 9 (Bot 2) = 21" (no sum for a single count); `total` is the server's count
 *  (left out when the server sent none: nothing is added up here). */
function sumOf(seats, pips, names, total) {
  const parts = seats.map((seat) => pipsOf(seat, pips, names));
  return seats.length > 1 && total !== null && total !== undefined ? `${parts.join(" + ")} = ${total}` : parts.join(seats.length > 1 ? " + " : "");
}

/** "12 rounds to 10", or "15 is a multiple of five": `rounded` as the server counted it. */
function rounding(x, rounded) {
  return rounded === x ? t("result.multiple", { value: x }) : t("result.rounds", { value: x, rounded });
}

/**
 * The hand's result explained: `{ title, steps: [sentences], sides: [{ side, name, points }],
 * agrees }`. `result` is a `last_hand` or `hand_ended` (kind, by, points, pips, counts): the
 * server's `counts` say which side counted whose pips and what that made (rules 7.3, 7.4), so
 * nothing is worked out here but the words; `agrees` says the counts add up to the points.
 * `sides` is each seat's index in the scores (the room's `sides`): which seats are partners.
 */
export function explainHand(result, { rules, names, teams, sides: seatSide = [] }) {
  const pips = result.pips ?? [];
  const counts = Array.isArray(result.counts) ? result.counts : [];
  const penalty = rules?.end_scoring === "penalty";
  const expected = (result.points ?? []).map(() => 0);
  for (const count of counts) {
    if (count.side in expected) expected[count.side] += count.points;
  }
  const steps = [];
  let title;
  const by = result.by !== null && result.by !== undefined ? nameOf(result.by, names) : null;
  const first = counts[0];
  if (result.kind === "won") {
    title = by === null ? t("result.someone_reached") : t("hand.reached_target", { who: by });
    steps.push(t("result.won_step"));
  } else if (penalty) {
    title = result.kind === "domino" ? t("hand.went_out", { who: by }) : t("hand.blocked");
    steps.push(t("result.penalty_step"));
    for (const count of counts) {
      const lost = -count.points;
      steps.push(t("result.penalty_loses", { who: nameOf(count.seats[0], names), rounding: rounding(count.pips, lost), points: lost }));
    }
  } else if (result.kind === "domino") {
    title = t("hand.went_out", { who: by });
    if (first) {
      steps.push(t(first.seats.length > 1 ? "result.left_opponents" : "result.left_other", { sum: sumOf(first.seats, pips, names, first.pips) }));
      const partner = seatSide.findIndex((side, seat) => seat !== result.by && side === seatSide[result.by]);
      if (teams && partner >= 0) steps.push(t("result.partner_nobody", { who: nameOf(partner, names), pips: pips[partner] }));
      steps.push(t("result.side_scores", { rounding: rounding(first.pips, first.points), side: sideLabel(first.side, names, teams), points: first.points }));
    }
  } else {
    title = t("hand.blocked");
    if (teams) {
      const team = (index) => seatSide.flatMap((side, seat) => (side === index ? [seat] : []));
      const held = result.side_pips ?? [];
      steps.push(t("result.teams_hold", { a: sumOf(team(0), pips, names, held[0]), b: sumOf(team(1), pips, names, held[1]) }));
      if (!first) {
        steps.push(t("result.equal_pips"));
      } else {
        steps.push(t("result.team_fewer", {
          low: teamLetter(first.side), high: teamLetter(1 - first.side), pips: first.pips, rounding: rounding(first.pips, first.points), points: first.points,
        }));
      }
    } else {
      const held = pips.map((count, seat) => pipsOf(seat, pips, names)).join(", ");
      steps.push(t("result.pips_held", { held }));
      if (counts.length === 1) {
        steps.push(t("result.fewest_counts", { who: nameOf(first.side, names), sum: sumOf(first.seats, pips, names, first.pips) }));
        steps.push(t("result.side_scores", { rounding: rounding(first.pips, first.points), side: nameOf(first.side, names), points: first.points }));
      } else if (counts.length === 2 && first.halved) {
        const third = first.seats[0];
        steps.push(t("result.tie_half", {
          first: nameOf(counts[0].side, names), second: nameOf(counts[1].side, names), third: nameOf(third, names), pips: pips[third], half: first.pips,
        }));
        steps.push(t("result.each_scores", { rounding: rounding(first.pips, first.points), points: first.points }));
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
