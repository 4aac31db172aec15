// Results as the table shows them: a hand's count explained (beside the hand), the winner with
// the final hand and a hand-by-hand scoreboard of the match, and the record to download.

import { h } from "./text.js";
import { signed } from "./results.js";
import { t } from "./i18n.js";

/** The card explaining a hand's result (`summary` from the table model); `id` is its title's
 *  (the winner's card holds one beside the dock's). */
export function handCard(summary, { onDismiss, id = "summary-title" } = {}) {
  const points = summary.sides.map((side) => h("li", { "data-side": side.side },
    h("span", { class: "chip-name" }, side.name), " ", h("b", {}, signed(side.points))));
  return [
    h("h2", { id }, t("summary.title", { number: summary.hand, title: summary.title })),
    h("div", { class: "steps" }, summary.steps.map((step) => h("p", { class: "step" }, step))),
    summary.agrees ? null : h("p", { class: "muted" }, summary.text),
    // The figures are the end count's alone (a hand's plays scored as they were made): said
    // in sight, not only to screen readers, so "Team A 0 Team B 0" is not read as the hand's.
    h("p", { class: "summary-points-label muted", id: `${id}-points` }, t("summary.points_label")),
    h("div", { class: "summary-row" },
      h("ol", { class: "summary-points", "aria-labelledby": `${id}-points` }, points),
      onDismiss ? h("button", { type: "button", id: "summary-ok", "data-key": "summary-ok", onclick: onDismiss }, t("summary.ok")) : null),
  ];
}

/** The match hand by hand: each side's points from plays and from the end count, and its score
 *  after the hand. `hands` as RoomState keeps them; `sides` the table model's. */
export function scoreboard(hands, sides) {
  if (!hands.length) return null;
  const first = hands[0].hand;
  const head = h("tr", {}, h("th", { scope: "col" }, t("scoreboard.hand")),
    sides.map((side) => h("th", { scope: "col", class: "chip-name" }, side.short)));
  const rows = hands.map((row) => h("tr", { "data-hand": row.hand },
    h("th", { scope: "row" }, String(row.hand)),
    sides.map((side) => {
      const plays = row.plays ? row.plays[side.index] ?? 0 : null;
      const end = row.points?.[side.index] ?? 0;
      const parts = [];
      if (plays !== null) parts.push(t("scoreboard.plays", { points: plays }));
      parts.push(t("scoreboard.end", { points: signed(end) }));
      return h("td", {}, h("b", {}, String(row.scores?.[side.index] ?? "")), h("small", {}, ` (${parts.join(", ")})`));
    })));
  return h("div", { class: "scoreboard-wrap" },
    h("table", { id: "scoreboard", class: "scoreboard" },
      h("caption", {}, first > 1 ? t("scoreboard.caption_from", { number: first }) : t("scoreboard.caption")),
      h("thead", {}, head), h("tbody", {}, rows)));
}

/** Save `record` (an allfives-record/1 document) as a JSON file named for the room. */
export function download(record, code) {
  const blob = new Blob([`${JSON.stringify(record, null, 2)}\n`], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: `allfives-${String(code).replace(/[^A-Za-z0-9-]/g, "")}-match.json`, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
