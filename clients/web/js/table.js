// The room screen: the strip (scores, turn, total) on top, the board, the dock with your hand
// pinned at the bottom on your turn, the winner with the match's scoreboard, the players and
// the room, the waiting room, the log and chat. Built once per room; `update(model, ...)`
// redraws the parts that change.

import { h, fill, s } from "./text.js";
import { drawLayout } from "./render.js";
import { LEVELS } from "./lobby.js";
import { checkChat, MAX_CHAT, length } from "./limits.js";
import { Strip } from "./strip.js";
import { Dock, changed, focusInSight } from "./dock.js";
import { handCard, scoreboard } from "./report.js";
import { t, plural } from "./i18n.js";
import { botWord, seatNumber } from "./describe.js";
import { boardSentences } from "./speech.js";
import { Announcer } from "./announce.js";
import { handKey } from "./keyboard.js";

const LOG_SHOWN = 60;
/** The board never gets smaller than this on a short screen (CSS px). */
const BOARD_MIN_PX = 160;

/** A seat in words: "Ann (7 tiles, you, host)", notes left out when there are none. */
export function seatNotes(seat) {
  const notes = [];
  if (seat.tiles !== null) notes.push(plural("seat.tiles", seat.tiles));
  if (seat.you) notes.push(t("seat.you"));
  if (seat.host) notes.push(t("seat.host"));
  if (seat.bot) notes.push(botWord(seat.level));
  if (!seat.connected && !seat.bot) notes.push(seat.standIn ? t("seat.away_stand_in") : t("seat.away"));
  else if (seat.standIn && !seat.bot) notes.push(t("seat.idle_stand_in"));
  return notes;
}

/** Whether the keyboard focus is nowhere a player can see: on the page's body, or on a
 *  control taken away or hidden (the start button once the match began). */
function focusLost() {
  const el = document.activeElement;
  return !el || el === document.body || !el.isConnected || Boolean(el.closest("[hidden]"));
}

export class Table {
  /** `actions`: play(tile, end), pass(), hint(), back(), chat(text), start(), rematch(), leave(),
   *  addBot(seat, level), removeBot(seat), record(), sound(on), retry(); `options`: clock()
   *  (seconds left on the turn and whether online), sound (on or off). */
  constructor(root, actions, options) {
    this.actions = actions;
    this.clock = options.clock;
    this.drawn = {};
    this.model = null;
    this.strip = new Strip();
    this.dock = new Dock(actions, () => this.redraw());
    const part = (tag, id, attrs = {}) => h(tag, { id, ...attrs });
    this.title = part("h2", "room-title");
    this.link = part("p", "room-link", { class: "muted" });
    this.seats = part("ol", "seats", { class: "seats", "aria-label": t("table.seats_label") });
    this.target = part("p", "target", { class: "muted" });
    this.boneyard = part("p", "boneyard", { class: "muted" });
    // A group, not an image: its end targets are buttons. Its tiles are hidden from assistive
    // technology, which reads the board's text (board-text) instead, in order.
    this.svg = s("svg", { id: "board", class: "board", role: "group", "aria-label": t("a11y.drawing") });
    this.boardText = part("div", "board-text", { class: "sr-only" });
    this.announcer = new Announcer();
    this.winner = part("section", "winner", { class: "winner card", hidden: true });
    this.waiting = part("section", "waiting", { class: "waiting card", hidden: true });
    this.confirm = part("section", "leave-confirm", { class: "confirm card", hidden: true, role: "alertdialog", "aria-labelledby": "leave-question" });
    // Not a live region: the announcer says each move once.
    this.log = part("ol", "log", { class: "log", "aria-label": t("table.log_label") });
    this.chatList = part("ol", "chat", { class: "chat", "aria-label": t("table.chat") });
    this.chatInput = h("input", { id: "chat-input", autocomplete: "off", "aria-label": t("table.chat_input_label"), placeholder: t("table.chat_placeholder"), "aria-describedby": "chat-note" });
    this.chatNote = part("small", "chat-note", { class: "field-note", "aria-live": "polite" });
    this.chatInput.addEventListener("input", () => this._noteChat());
    const chatForm = h("form", { class: "chat-form", onsubmit: (event) => {
      event.preventDefault();
      const { text, problem } = checkChat(this.chatInput.value);
      if (problem) {
        this.chatNote.textContent = problem;
        this.chatNote.dataset.kind = "error";
        return;
      }
      if (text) actions.chat(text);
      this.chatInput.value = "";
      this._noteChat();
    } }, this.chatInput, h("button", { type: "submit" }, t("table.send")));
    this.sound = h("input", { type: "checkbox", id: "sound-toggle", checked: Boolean(options.sound) });
    this.sound.addEventListener("change", () => actions.sound(this.sound.checked));
    this.boardNote = part("p", "board-note", { class: "board-note", hidden: true });
    this.boardWrap = h("div", { class: "board-wrap" }, this.boardNote, this.svg);
    // The boneyard's count above the board: below it the pinned dock would cover it.
    this.game = h("section", { class: "game", id: "game", "aria-label": t("table.board_label") }, this.boneyard, this.boardText, this.boardWrap);
    this.game.addEventListener("keydown", (event) => handKey(event, this.dock));
    this.leaveButton = h("button", { type: "button", id: "leave-button", onclick: () => this._leave() }, t("table.leave"));
    fill(root, h("div", { class: "room" },
      this.announcer.node, this.strip.node, this.confirm, this.waiting, this.winner, this.game, this.dock.node,
      h("section", { class: "players card" },
        h("div", { class: "room-head" }, this.title, this.leaveButton),
        this.link, this.seats, this.target,
        h("label", { class: "field check" }, this.sound, h("span", {}, t("table.sound")))),
      h("section", { class: "side card" },
        h("h2", {}, t("table.log")), this.log,
        h("h2", {}, t("table.chat")), this.chatList, chatForm, this.chatNote)));
    this.onKey = (event) => {
      if (event.key === "Escape" && this.dock.picked) { // i18n: not shown (a key's name)
        this.dock.cancel();
        this.redraw();
      }
    };
    document.addEventListener("keydown", this.onKey);
    this.ticker = setInterval(() => this.strip.tick(this.model, this.clock), 250);
    this.resize = new ResizeObserver(() => this._redrawBoard());
    this.resize.observe(this.boardWrap);
    this.resize.observe(this.dock.node);
    this.resize.observe(this.strip.node);
    this.onResize = () => this._redrawBoard();
    window.addEventListener("resize", this.onResize);
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    this.announcer.destroy();
    document.documentElement.style.scrollPaddingTop = "";
    document.documentElement.style.scrollPaddingBottom = "";
    window.removeEventListener("resize", this.onResize);
    clearInterval(this.ticker);
    this.resize.disconnect();
  }

  /** Redraw from a table model, the log lines, the latest word for the player and the hands
   *  of the match seen so far. */
  update(model, log, hintText, hands = [], events = []) {
    this.model = model;
    this.logLines = log;
    this.hintText = hintText;
    this.hands = hands;
    this.redraw();
    this.announcer.hear(events, model);
  }

  /** The skip link's target: your tiles when you hold some, else the board, else the room. */
  skipTo() {
    if (!this.dock.node.hidden && this.dock.focusHand()) return;
    const to = this.game.hidden ? this.title : this.game;
    to.setAttribute("tabindex", "-1");
    to.focus();
  }

  /** The keyboard's place when the room or the match appears: the waiting room's seats, or
   *  (as the skip link) your tiles, else the board. */
  _focusRoom() {
    if (!this.waiting.hidden) {
      this.waiting.querySelector("h2")?.focus({ preventScroll: true }); // kept by its data-key
    } else if (!this.game.hidden) {
      this.skipTo();
    }
  }

  redraw() {
    const model = this.model;
    if (!model) return;
    const focused = document.activeElement?.getAttribute?.("data-key");
    // A control of the dock or the board that a redraw takes away (a move made, a choice
    // cancelled) hands the focus back to your tiles rather than to the page.
    const inPlay = this.dock.node.contains(document.activeElement) || this.game.contains(document.activeElement);
    // The room appeared, or the match began: the control pressed for it ("Create room", "Start
    // the match") went away under the focus, which fell to the page. It goes to the room.
    const entered = this.drawnPhase !== model.phase;
    this.drawnPhase = model.phase;
    this._drawHead(model);
    this._drawWaiting(model);
    const game = model.game;
    this.game.hidden = !game;
    this.dock.node.hidden = !game;
    this.strip.draw(model, this.clock);
    if (game) {
      this.boneyard.textContent = t("table.boneyard", { count: game.boneyard });
      this.dock.draw(model, this.hintText);
      this._drawBoard();
      this._targetsInSight();
      this._drawWinner(model, game);
    } else {
      this.winner.hidden = true;
    }
    if (model.phase !== "playing") this.confirm.hidden = true;
    this._drawLog();
    fill(this.chatList, model.chat.slice(-50).map((line) => h("li", {}, h("b", {}, line.name), `: ${line.text}`)));
    if (focused) focusInSight(document.querySelector(`[data-key="${CSS.escape(focused)}"]`));
    if (inPlay && (!document.activeElement || document.activeElement === document.body)) this.dock.focusHand();
    else if (entered && focusLost()) this._focusRoom();
    this._scrollPadding();
    // The match just ended: its result comes into view (under the sticky strip, whose height
    // the scroll padding keeps clear), wherever the page was scrolled to.
    const over = Boolean(game?.over);
    if (over && this.shownOver === false) this._winnerInView();
    this.shownOver = over;
  }

  _winnerInView() {
    this.winner.scrollIntoView({ block: "start" });
    const heading = document.getElementById("winner-text");
    if (heading && (focusLost() || this.dock.node.contains(document.activeElement) || this.game.contains(document.activeElement))) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
    }
  }

  _noteChat() {
    const count = length(this.chatInput.value.trim());
    this.chatNote.dataset.kind = count > MAX_CHAT ? "error" : "";
    this.chatNote.textContent = count > MAX_CHAT * 0.8 ? t("table.chat_count", { count, most: MAX_CHAT }) : "";
  }

  _leave() {
    const model = this.model;
    if (model?.phase !== "playing" || model.you === null || model.you === undefined) {
      this.actions.leave();
      return;
    }
    fill(this.confirm,
      h("h2", { id: "leave-question" }, t("leave.question")),
      h("p", {}, t("leave.explain")),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "leave-confirm-button", onclick: () => this.actions.leave() }, t("leave.confirm")),
        h("button", { type: "button", id: "leave-cancel-button", onclick: () => { this.confirm.hidden = true; this.leaveButton.focus(); } }, t("leave.stay"))));
    this.confirm.hidden = false;
    this.confirm.scrollIntoView({ block: "nearest" });
    document.getElementById("leave-cancel-button")?.focus({ preventScroll: true });
  }

  _drawHead(model) {
    this.title.textContent = t("lobby.room", { code: model.code });
    // A private room's link carries its invite (CODE-INVITE, the room as joined).
    const path = `/r/${encodeURIComponent(model.handle ?? model.code)}`;
    // A tournament's table keeps its seats for its entrants: its link is for watching.
    fill(this.link, `${t(model.tournamentTable ? "table.others_watch" : "table.friends_join")} `, h("a", { href: path, id: "invite-link" }, `${location.origin}${path}`),
      model.spectators ? ` · ${plural("table.watching_count", model.spectators)}` : "", model.you === null ? ` · ${t("table.you_watch")}` : "");
    fill(this.seats, model.teams && model.game
      ? model.game.sides.map((side) => h("li", { class: "side" },
        h("span", { class: "score", "data-side": side.index }, String(side.score)), ` ${side.short}: `,
        model.seats.filter((seat) => seat.side === side.index).map((seat, i) => [i ? ", " : "", this._seatLabel(seat)])))
      : model.seats.map((seat) => h("li", { class: seat.turn ? "turn-now" : "" },
        seat.score !== null ? h("span", { class: "score", "data-side": seat.index }, String(seat.score)) : null,
        " ", this._seatLabel(seat))));
    const rules = model.rules;
    // The target is the server's: the game's (resolved), else the rules' own; no default kept here.
    const target = model.game ? model.game.target : rules.target;
    const words = [Number.isSafeInteger(target) ? t("rules.first_to", { target }) : t("rules.usual_target"), plural("lobby.room_players", rules.players)];
    if (model.teams) words.push(t("rules.teams"));
    if (rules.hand_size === "five") words.push(t("rules.hand_five"));
    else if (rules.hand_size !== "standard") words.push(t("rules.hand_seven_five"));
    if (rules.end_scoring === "penalty") words.push(t("rules.penalty"));
    if (rules.reserve) words.push(t("rules.reserve", { count: rules.reserve }));
    words.push(rules.turn_seconds ? t("rules.turn_seconds", { seconds: rules.turn_seconds }) : t("rules.no_clock"));
    words.push(t(model.rated ? "table.rated" : "table.unrated"));
    this.target.textContent = words.join(" · ");
  }

  _seatLabel(seat) {
    if (seat.free) return h("span", { class: "muted" }, t("seat.free_seat", { seat: seatNumber(seat.index) }));
    const notes = seatNotes(seat);
    return h("span", { class: `seat${seat.turn ? " turn-now" : ""}${seat.standIn ? " stand-in" : ""}`, "data-seat": seat.index },
      seat.turn ? "▶ " : "", h("b", {}, seat.name), notes.length ? ` (${notes.join(", ")})` : "");
  }

  _drawWaiting(model) {
    this.waiting.hidden = model.phase !== "waiting";
    if (this.waiting.hidden) return;
    if (!changed(this.drawn, "waiting", [model.seats, model.isHost, model.freeSeats])) return;
    const rows = model.seats.map((seat) => {
      const controls = [];
      if (model.isHost && seat.free) {
        const level = h("select", { "aria-label": t("waiting.level_label", { seat: seatNumber(seat.index) }), "data-key": `level-${seat.index}` },
          LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, botWord(l))));
        controls.push(level, h("button", { type: "button", "data-key": `add-${seat.index}`, onclick: () => this.actions.addBot(seat.index, level.value) }, t("waiting.add_bot")));
      }
      if (model.isHost && seat.bot) {
        controls.push(h("button", { type: "button", "data-key": `remove-${seat.index}`, onclick: () => this.actions.removeBot(seat.index) }, t("waiting.remove_bot")));
      }
      return h("li", {}, `${t("lobby.seat_n", { seat: seatNumber(seat.index) })}: `, seat.free ? h("span", { class: "muted" }, t("lobby.free")) : h("b", { class: "name" }, seat.name), " ", ...controls);
    });
    const start = model.isHost
      ? h("button", { type: "button", class: "primary", id: "start-button", "data-key": "start", disabled: model.freeSeats.length > 0, onclick: () => this.actions.start() },
        model.freeSeats.length ? plural("waiting.start_free", model.freeSeats.length) : t("waiting.start"))
      : h("p", { class: "muted" }, t("waiting.wait_host"));
    fill(this.waiting, h("h2", { tabindex: "-1", "data-key": "waiting-seats" }, t("waiting.seats")), h("ul", { class: "seat-list" }, rows), start);
  }

  _targets(game) {
    const tile = this.dock.pickedTile(game);
    if (!tile || this.dock.facing) return {};
    return Object.fromEntries(tile.options.filter((o) => o.end).map((o) => [o.end, { total: o.total, scores: o.scores, onPick: () => this.dock._play(tile.tile, o.end) }]));
  }

  /** The height the board may take: the screen less the strip and, when pinned, the dock. */
  _boardHeight() {
    const strip = this.strip.node.getBoundingClientRect().height;
    const dock = this.dock.node.classList.contains("pinned") ? this.dock.node.getBoundingClientRect().height : 0;
    const header = document.querySelector("header.bar")?.getBoundingClientRect().height ?? 0;
    return Math.max(BOARD_MIN_PX, window.innerHeight - strip - dock - header - 24);
  }

  _drawBoard() {
    const game = this.model?.game;
    if (!game) return;
    const width = this.boardWrap.clientWidth || 340;
    const maxHeight = this._boardHeight();
    const board = game.board;
    const targets = board.previous ? {} : this._targets(game);
    const inputs = [board, game.ends, width, maxHeight, this.dock.picked, this.dock.facing, game.history.length];
    if (!changed(this.drawn, "board", inputs)) return;
    this.svg.style.maxHeight = `${maxHeight}px`;
    // The last hand's table stays (dimmed) until the next lead, as the hand ended.
    this.svg.classList.toggle("previous", board.previous !== null);
    this.boardNote.hidden = board.previous === null;
    this.boardNote.textContent = board.previous === null ? "" : t("board.last_hand", { number: board.previous });
    drawLayout(this.svg, { layout: board.layout, leadIndex: board.leadIndex, history: board.history, width, maxHeight, targets, ends: board.previous ? {} : game.ends });
    const sentences = board.previous === null
      ? boardSentences(board.layout, game.ends, game.total, game.gold)
      : [this.boardNote.textContent, ...boardSentences(board.layout, {}, null, false)];
    fill(this.boardText, sentences.map((sentence) => h("p", {}, sentence)));
  }

  /** The board for a new size of the screen or the dock, its end targets kept in sight. */
  _redrawBoard() {
    this._drawBoard();
    this._targetsInSight();
    this._scrollPadding();
  }

  /** A control scrolled to by Tab (or a find) stops clear of the sticky strip and the pinned
   *  dock, never under them (WCAG 2.4.11). */
  _scrollPadding() {
    const root = document.documentElement.style;
    root.scrollPaddingTop = this.strip.node.hidden ? "" : `${Math.ceil(this.strip.node.getBoundingClientRect().height) + 8}px`;
    const pinned = this.dock.node.classList.contains("pinned");
    root.scrollPaddingBottom = pinned ? `${Math.ceil(this.dock.node.getBoundingClientRect().height) + 8}px` : "";
  }

  /** With end targets on the board, scroll it between the sticky strip and the pinned dock,
   *  so that neither covers a target (a tap on one would land on the dock). */
  _targetsInSight() {
    const shown = [...this.svg.querySelectorAll(".end-target")];
    if (!shown.length) return;
    const top = this.strip.node.getBoundingClientRect().bottom;
    const bottom = this.dock.node.classList.contains("pinned") ? this.dock.node.getBoundingClientRect().top : window.innerHeight;
    const boxes = shown.map((target) => target.getBoundingClientRect());
    const high = Math.min(...boxes.map((box) => box.top));
    const low = Math.max(...boxes.map((box) => box.bottom));
    if (high >= top && low <= bottom) return;
    window.scrollBy({ top: high < top ? high - top - 4 : Math.min(low - bottom + 4, high - top - 4), behavior: "instant" });
  }

  _drawWinner(model, game) {
    this.winner.hidden = !game.over;
    if (!game.over) return;
    if (!changed(this.drawn, "winner", [game.winnerText, game.sides, model.isHost, game.summary, this.hands, game.ratingText, game.ratingNote])) return;
    fill(this.winner,
      h("h2", { id: "winner-text" }, game.winnerText),
      h("p", { id: "final-scores" }, t("winner.final_scores", { scores: game.sides.map((side) => `${side.short} ${side.score}`).join(", ") })),
      game.ratingText ? h("p", { id: "rating-change", class: "rating-change" }, game.ratingText) : null,
      game.ratingText && game.ratingNote ? h("p", { id: "rating-note", class: "muted" }, game.ratingNote) : null,
      game.summary ? h("section", { class: "summary final-hand", id: "final-hand", "aria-labelledby": "final-hand-title" }, handCard(game.summary, { id: "final-hand-title" })) : null,
      scoreboard(this.hands, game.sides),
      h("div", { class: "buttons" },
        model.isHost
          ? h("button", { type: "button", class: "primary", id: "rematch-button", "data-key": "rematch", onclick: () => this.actions.rematch() }, t("winner.rematch"))
          : h("span", { class: "muted" }, t("winner.host_may_rematch")),
        h("a", { href: "#/replay", id: "replay-link", class: "button-link", "data-key": "replay" }, t("winner.replay")),
        h("button", { type: "button", id: "record-button", "data-key": "record", onclick: () => this.actions.record() }, t("winner.record"))));
  }

  _drawLog() {
    const lines = this.logLines ?? [];
    fill(this.log, lines.slice(-LOG_SHOWN).map((line) => h("li", { class: `log-${line.kind}` }, line.text)));
    this.log.scrollTop = this.log.scrollHeight;
  }
}
