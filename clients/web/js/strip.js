// The strip that stays at the top of the table: each side's score, whose turn it is with the
// turn's clock (and the countdown to a stand-in), and the corner total.

import { h, fill } from "./text.js";
import { t } from "./i18n.js";
import { seatNumber } from "./describe.js";

/** The idle bound (a connected player's turn in a room without a turn clock) is counted down
 *  in its last this many seconds. */
export const IDLE_SHOWN = 60;

/** The turn in words and its clock: `{ text, left, limit, urgent }`; `left` null with no clock. */
export function turnWords(model, { left, online }) {
  const game = model.game;
  if (game.over) return { text: t("strip.over"), left: null };
  if (game.turn === null || game.turn === undefined) return { text: t("strip.between"), left: null };
  const seat = model.seats[game.turn];
  const name = seat?.name ?? t("seat.number", { seat: seatNumber(game.turn) });
  const head = `${t("strip.hand", { number: game.handNumber })} · `;
  const mine = game.turn === model.you;
  const who = mine ? t("strip.your_turn") : t("strip.turn_of", { who: name });
  if (!online) return { text: `${head}${who} · ${t("strip.offline")}`, left: null };
  if (seat?.standIn && seat.connected) {
    return { text: `${head}${mine ? t("strip.stand_in_you") : t("strip.stand_in_idle", { who: name })}`, left: null };
  }
  if (seat?.standIn) return { text: `${head}${t("strip.stand_in", { who: name })}`, left: null };
  if (left === null || left === undefined) return { text: `${head}${who}`, left: null };
  const seconds = Math.ceil(left);
  const away = seat && !seat.connected && !seat.bot;
  if (!away && !model.rules.turn_seconds) {
    // The idle bound: shown near its end only.
    if (seconds > IDLE_SHOWN) return { text: `${head}${who}`, left: null };
    const idle = mine ? t("strip.idle_you", { seconds }) : t("strip.idle_in", { seconds });
    return { text: `${head}${who} · ${idle}`, left: null, urgent: seconds <= 10 };
  }
  const text = away
    ? `${head}${who} · ${t("strip.away_in", { seconds })}`
    : `${head}${who} · ${t("strip.left", { seconds })}`;
  return { text, left, limit: model.rules.turn_seconds ?? null, urgent: seconds <= 5 };
}

export class Strip {
  constructor() {
    this.scores = h("ol", { id: "strip-scores", class: "strip-scores", "aria-label": t("strip.scores_label") });
    // Not a live region: it counts seconds down; the announcer says whose turn it is.
    this.turn = h("p", { id: "turn", class: "turn" });
    this.bar = h("span", { class: "timer-bar" });
    this.timer = h("div", { id: "timer", class: "timer", hidden: true, "aria-hidden": "true" }, this.bar);
    // The number alone is shown; its name says what it is (and whether it scored).
    this.total = h("div", { id: "total", class: "total", role: "img", "aria-label": t("strip.total_label") });
    this.node = h("section", { id: "strip", class: "strip", "aria-label": t("strip.label") },
      h("div", { class: "strip-main" }, this.scores, h("div", { class: "strip-turn" }, this.turn, this.timer)),
      this.total);
  }

  draw(model, clock) {
    const game = model.game;
    this.node.hidden = !game;
    if (!game) return;
    // Each seat's side is the server's (the room's `sides`, on the model's seats).
    const turnSide = game.turn === null || game.turn === undefined ? null : model.seats[game.turn]?.side ?? null;
    // With partnerships the chip of your team says so (a seat's chip is already its name).
    const mySide = model.teams && model.you !== null && model.you !== undefined ? model.seats[model.you]?.side ?? null : null;
    fill(this.scores, game.sides.map((side) => h("li", {
      class: `chip${side.index === turnSide && !game.over ? " chip-turn" : ""}${side.index === mySide ? " chip-mine" : ""}`, "data-side": side.index,
    }, h("span", { class: "chip-name" }, side.short),
    side.index === mySide ? h("span", { class: "chip-you" }, t("strip.your_team")) : null,
    " ", h("b", { class: "chip-score" }, String(side.score)))));
    this.tick(model, clock);
    this.total.textContent = String(game.total);
    this.total.dataset.total = String(game.total);
    this.total.classList.toggle("gold", game.gold);
    this.total.setAttribute("aria-label", t(game.gold ? "strip.total_gold" : "strip.total", { total: game.total }));
  }

  /** Redraw the turn and its clock only (every second). */
  tick(model, clock) {
    if (!model?.game) return;
    const words = turnWords(model, clock());
    this.turn.textContent = words.text;
    this.turn.classList.toggle("mine", model.game.myTurn);
    this.turn.classList.toggle("urgent", Boolean(words.urgent));
    this.timer.hidden = words.left === null || !words.limit;
    if (!this.timer.hidden) this.bar.style.width = `${Math.round((100 * words.left) / words.limit)}%`;
  }
}
