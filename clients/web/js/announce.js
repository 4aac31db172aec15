// The table's voice for screen readers: one polite live region that says what a player hears
// at a real table (each move with its total and points, "your turn", who went out, the hand's
// result, the winner). Sentences that come close together are said as one, and only the last
// few stay in the region, so a quick run of bot moves never floods the reader.

import { h } from "./text.js";
import { t, plural } from "./i18n.js";
import { spokenEvent, heard } from "./speech.js";

/** Sentences that arrive within this many ms of each other are said together. */
export const GATHER_MS = 350;
/** The most announcements kept in the region (older ones are removed, not said again). */
export const KEPT = 4;

export class Announcer {
  constructor() {
    this.node = h("div", { id: "announcer", class: "sr-only", "aria-live": "polite", "aria-relevant": "additions" });
    this.pending = [];
    this.timer = null;
    this.turnSaid = null;
  }

  /** Take the events a patch brought and the table after it; say what a player would hear. */
  hear(events, model) {
    const game = model?.game;
    for (const event of events ?? []) {
      if (heard(event)) this.say(spokenEvent(event, model.names, model.teams));
    }
    // Each turn of yours is said once: a new turn is a new hand or a move made since (after
    // going out, the next hand's lead is yours again with no one else's turn between).
    const turn = game?.myTurn ? `${game.handNumber}:${game.history?.length ?? 0}` : null;
    if (turn !== null && turn !== this.turnSaid) this.say(yourTurn(game));
    this.turnSaid = turn;
  }

  say(sentence) {
    if (!sentence) return;
    this.pending.push(sentence);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), GATHER_MS);
  }

  flush() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending.length) return;
    this.node.append(h("p", {}, this.pending.join(" ")));
    this.pending = [];
    while (this.node.childElementCount > KEPT) this.node.firstElementChild.remove();
  }

  destroy() {
    clearTimeout(this.timer);
  }
}

/** "Your turn: 2 tiles can be played." (or: only a pass). */
export function yourTurn(game) {
  const playable = game.hand.filter((held) => held.playable).length;
  if (!playable) return t("a11y.your_turn_pass");
  return plural(game.leading ? "a11y.your_lead" : "a11y.your_turn", playable);
}
