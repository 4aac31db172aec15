// A finished tournament table kept in sight before the page goes back to the tournament: a
// bar at the foot of the screen says "Back to the tournament in 7 s" (counting, hidden from
// screen readers, which hear one polite sentence instead) with a button to go at once. It never
// takes the keyboard's focus: the table's end (the last hand, the winner, the scoreboard) stays
// where it was.

import { h, fill } from "./text.js";
import { t } from "./i18n.js";

/** Seconds a finished tournament table stays in sight (tests set the desk's `lingerSeconds`). */
export const LINGER_SECONDS = 10;
/** How often the seconds shown are counted down. */
const TICK_MS = 250;

export class Linger {
  /** Show the bar in `parent` (before its first child); `back()` is called once, when the
   *  seconds are up or at the button, unless `close()` came first. */
  constructor(parent, seconds, back) {
    this.at = Date.now() + seconds * 1000;
    this.back = back;
    this.said = h("p", { id: "tournament-back-said", class: "sr-only", role: "status", "aria-live": "polite" });
    this.shown = h("span", { id: "tournament-back-shown", "aria-hidden": "true" });
    this.button = h("button", { type: "button", id: "tournament-back-now", class: "primary", onclick: () => this.finish() }, t("tourney.back_now"));
    this.node = h("div", { id: "tournament-back", class: "linger" }, this.said, this.shown, this.button);
    parent.prepend(this.node);
    this.count();
    // Filled once the region is in the page, so that a screen reader says it (once).
    this.saying = setTimeout(() => fill(this.said, t("tourney.back_said", { seconds: Math.round(seconds) })), 50);
    this.timer = setInterval(() => this.count(), TICK_MS);
  }

  /** Whole seconds left, at least 0. */
  secondsLeft() {
    return Math.max(0, Math.ceil((this.at - Date.now()) / 1000));
  }

  count() {
    const left = this.secondsLeft();
    if (left <= 0) {
      this.finish();
      return;
    }
    this.shown.textContent = t("tourney.back_in", { seconds: left });
  }

  /** Go back now (once). */
  finish() {
    const back = this.back;
    this.close();
    back?.();
  }

  /** Take the bar away; `back` is not called any more. */
  close() {
    clearInterval(this.timer);
    clearTimeout(this.saying);
    this.back = null;
    this.node.remove();
  }
}
