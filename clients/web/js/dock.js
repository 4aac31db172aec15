// The dock under the board, pinned to the bottom of the screen on your turn: the last hand's
// result explained, the ends a picked tile may go to (or, for a lead, which way it faces), your
// tiles, and the hint and pass buttons.

import { h, fill } from "./text.js";
import { handTile, END_KEYS } from "./render.js";
import { handCard } from "./report.js";
import { t, plural } from "./i18n.js";
import { endWord } from "./describe.js";
import { tileWords } from "./speech.js";
import { handKey, roving } from "./keyboard.js";

/** Whether `part` must be redrawn: its inputs changed since the last time (a redraw of a
 *  button under the pointer would swallow the click). */
export function changed(cache, part, inputs) {
  const key = JSON.stringify(inputs);
  if (cache[part] === key) return false;
  cache[part] = key;
  return true;
}

/** "3-5" for "5-3": the other facing of a lead. */
/** Focus `el` without scrolling the page, unless it would sit under the sticky strip at the top
 *  (the page's scroll-padding-top is the strip's height): then the page scrolls it just clear,
 *  so the control focused is one the player can see and tap. */
export function focusInSight(el) {
  if (!el) return;
  el.focus({ preventScroll: true });
  const clear = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
  const top = el.getBoundingClientRect().top;
  if (top < clear) window.scrollBy(0, top - clear);
}

export function turned(tile) {
  return String(tile).split("-").reverse().join("-");
}

export class Dock {
  /** `actions`: play(tile, end); `onPick()` after the picked tile changes (the board redraws). */
  constructor(actions, onPick) {
    this.actions = actions;
    this.onPick = onPick;
    this.picked = null;
    /** The picked lead as it will be written (its first number faces west, rule 5.1). */
    this.facing = null;
    this.dismissed = null;
    this.drawn = {};
    // Nothing here is a live region: the table's announcer says what happened, and the end
    // choice takes the focus when it opens.
    this.summary = h("section", { id: "summary", class: "summary", hidden: true });
    this.endChoice = h("div", { id: "end-choice", class: "end-choice", role: "group", "aria-label": t("a11y.end_choice") });
    // A toolbar: one tile is in the Tab order, the arrows move between them (keyboard.js).
    this.hand = h("div", { id: "hand", class: "hand", role: "toolbar", "aria-label": t("dock.hand_label") });
    this.buttons = h("div", { id: "moves", class: "buttons" });
    this.node = h("section", { id: "dock", class: "dock", "aria-label": t("a11y.dock_label") }, this.summary, this.endChoice, this.hand, this.buttons);
    /** The tile that has the hand's Tab stop (the last one focused). */
    this.current = null;
    this.node.addEventListener("keydown", (event) => handKey(event, this));
  }

  /** The picked tile, if it is still playable. */
  pickedTile(game) {
    return game?.hand.find((held) => held.tile === this.picked && held.playable) ?? null;
  }

  cancel() {
    this.picked = null;
    this.facing = null;
  }

  draw(model, hintText) {
    const game = model.game;
    this.game = game;
    if (this.picked && !this.pickedTile(game)) this.cancel();
    this.node.classList.toggle("pinned", Boolean(game?.myTurn));
    this._drawSummary(model, game);
    this._drawEnds(game);
    this._drawHand(game);
    this._drawButtons(game, hintText, model);
  }

  _drawSummary(model, game) {
    const summary = game.summary;
    // A card dismissed is that hand's result, not its number: a rematch's hand 1 is another hand.
    // A match's first hand has no card, which forgets the dismissal.
    if (!summary) this.dismissed = null;
    const which = summary ? JSON.stringify([summary.hand, summary.kind, summary.by, summary.points, summary.pips]) : null;
    // While a picked tile waits for its end, the card folds away: the pinned dock then leaves
    // the board's end targets in sight (it comes back on cancel, and after the move).
    this.summary.hidden = !summary || this.dismissed === which || game.over || Boolean(this.pickedTile(game));
    if (this.summary.hidden) return;
    if (!changed(this.drawn, "summary", [summary, model.names])) return;
    fill(this.summary, handCard(summary, { onDismiss: () => {
      this.dismissed = which;
      this.summary.hidden = true;
    } }));
  }

  _drawEnds(game) {
    const tile = this.pickedTile(game);
    if (!changed(this.drawn, "ends", [tile, this.facing])) return;
    if (!tile) {
      this.endChoice.replaceChildren();
      return;
    }
    const cancel = h("button", { type: "button", id: "end-cancel", "data-key": "end-cancel", onclick: () => this._cancel() }, t("dock.cancel"));
    if (this.facing) {
      const [west, east] = this.facing.split("-");
      fill(this.endChoice,
        h("p", { id: "lead-facing", class: "lead-facing" }, t("dock.lead_facing", { tile: this.facing, west, east })),
        h("button", { type: "button", id: "lead-button", class: "end-button", "data-key": "lead", onclick: () => this._play(this.facing, null) }, t("dock.lead_button", { tile: this.facing, total: tile.options[0]?.total ?? "" })),
        h("button", { type: "button", id: "turn-button", "data-key": "turn", onclick: () => this._turn() }, t("dock.turn_button", { tile: turned(this.facing) })),
        cancel);
      return;
    }
    fill(this.endChoice, h("span", {}, t("dock.play_on", { tile: tile.tile }) + " "),
      tile.options.map((o) => h("button", {
        type: "button", class: `end-button${o.scores ? " gold" : ""}`, "data-end": o.end, "data-key": `end-${o.end}`,
        "aria-keyshortcuts": END_KEYS[o.end], onclick: () => this._play(tile.tile, o.end),
      }, o.scores
        ? t("a11y.end_button_scores", { end: endWord(o.end), total: o.total ?? "?" })
        : `${endWord(o.end)} → ${o.total ?? "?"}`)),
      cancel);
  }

  _drawHand(game) {
    if (!changed(this.drawn, "hand", [game.spectator, game.hand, this.picked, this.facing])) return;
    if (game.spectator) {
      fill(this.hand, h("p", { class: "muted" }, t("dock.watching")));
      return;
    }
    const focused = this.hand.contains(document.activeElement);
    if (!game.hand.some((held) => held.tile === this.current)) this.current = game.hand.find((held) => held.playable)?.tile ?? game.hand[0]?.tile ?? null;
    fill(this.hand, game.hand.map((held) => {
      const facing = held.tile === this.picked && this.facing ? this.facing : held.tile;
      const scores = held.options.length === 1 && held.options[0].scores;
      const what = game.leading
        ? t("dock.lead_makes", { total: held.options[0]?.total })
        : held.options.length > 1 ? plural("dock.fits_ends", held.options.length) : t("dock.makes", { total: held.options[0]?.total });
      // The tile in words (a reader says "5-3" as "5 minus 3"), what it would make, and
      // whether that scores.
      const label = held.playable ? [tileWords(facing), what, scores ? t("a11y.scores") : null].filter(Boolean).join(", ") : tileWords(facing);
      // Unplayable tiles stay focusable (aria-disabled), so the hand can be read at any time
      // and the focus stays in it between turns.
      return h("button", {
        type: "button",
        class: ["hand-tile", held.playable ? "playable" : "", held.tile === this.picked ? "picked" : "", held.hinted ? "hinted" : ""].join(" "),
        "data-tile": held.tile, "data-key": `tile-${held.tile}`, "aria-label": label,
        "aria-pressed": held.tile === this.picked ? "true" : "false",
        "aria-disabled": held.playable ? null : "true",
        tabindex: held.tile === this.current ? 0 : -1,
        onfocus: () => roving(this, held.tile),
        onclick: () => this._pick(game, held),
      }, handTile(facing));
    }));
    if (focused && !this.hand.contains(document.activeElement)) this.focusHand();
  }

  _pick(game, tile) {
    if (!tile.playable) return;
    const [a, b] = tile.pips;
    if (game.leading && a !== b) {
      // A lead's facing matters (rule 5.1): the first tap shows it, the next turns it.
      if (this.picked === tile.tile) this.facing = turned(this.facing);
      else {
        this.picked = tile.tile;
        this.facing = tile.tile;
      }
      this.onPick();
      this._focus("#lead-button");
      return;
    }
    if (tile.options.length <= 1) {
      this._play(tile.tile, tile.options[0]?.end ?? null);
      return;
    }
    this.picked = this.picked === tile.tile ? null : tile.tile;
    this.facing = null;
    this.onPick();
    if (this.picked) this._focus(".end-button");
  }

  /** Put the focus on the hand's current tile (after a move, or from the skip link); false
   *  when there is no hand to focus. */
  focusHand() {
    const tile = this.hand.querySelector('[tabindex="0"]') ?? this.hand.querySelector(".hand-tile");
    focusInSight(tile);
    return Boolean(tile);
  }

  /** Focus a button without scrolling the page (the board's ends stay in sight). */
  _focus(selector) {
    focusInSight(this.endChoice.querySelector(selector));
  }

  /** Turn the lead; the focus goes to `then` (the turn button, pressed again to turn back; the
   *  T key gives it to the lead button, so that Enter then leads the tile as turned). */
  _turn(then = "#turn-button") {
    this.facing = turned(this.facing);
    this.onPick();
    this._focus(then);
  }

  _cancel() {
    this.cancel();
    this.onPick();
  }

  _play(tile, end) {
    this.cancel();
    this.actions.play(tile, end);
  }

  _drawButtons(game, hintText, model) {
    const mine = model.you !== null && model.you !== undefined ? model.seats[model.you] : null;
    // A stand-in took the seat while its player, still here, did not move: take it back.
    const standIn = Boolean(mine?.standIn && mine.connected && !game.over);
    if (!changed(this.drawn, "buttons", [game.myTurn, game.canPass, hintText, standIn])) return;
    const buttons = [];
    if (standIn) {
      buttons.push(h("span", { class: "stand-in-note", id: "stand-in-note" }, t("dock.stand_in_note")));
      buttons.push(h("button", { type: "button", class: "primary", id: "back-button", "data-key": "back", onclick: () => this.actions.back() }, t("dock.back")));
    }
    if (game.myTurn) buttons.push(h("button", { type: "button", id: "hint-button", "data-key": "hint", onclick: () => this.actions.hint() }, t("dock.hint")));
    if (game.canPass) buttons.push(h("button", { type: "button", id: "pass-button", "data-key": "pass", onclick: () => this.actions.pass() }, t("dock.pass")));
    if (hintText) buttons.push(h("span", { class: "hint", id: "hint" }, hintText));
    fill(this.buttons, buttons);
  }
}
