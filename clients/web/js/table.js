// The room screen: seats and scores, the board with the corner total, your hand, the ends to
// choose from, the log, chat, the end-of-hand summary, the winner, and the waiting room.
// Built once per room; `update(model, ...)` redraws the parts that change.

import { h, fill, s } from "./text.js";
import { drawLayout, handTile } from "./render.js";
import { LEVELS } from "./lobby.js";
import { describeLayout } from "./model.js";

const LOG_SHOWN = 60;

/** Whether `part` must be redrawn: its inputs changed since the last time (a redraw of a
 *  button under the pointer would swallow the click). */
function changed(cache, part, inputs) {
  const key = JSON.stringify(inputs);
  if (cache[part] === key) return false;
  cache[part] = key;
  return true;
}

export class Table {
  /** `actions`: play(tile, end), pass(), hint(), chat(text), start(), rematch(), leave(),
   *  addBot(seat, level), removeBot(seat). */
  constructor(root, actions) {
    this.actions = actions;
    this.picked = null;
    this.dismissed = null;
    this.drawn = {};
    this.model = null;
    this.turnKey = null;
    this.turnSince = 0;
    const part = (tag, id, attrs = {}) => h(tag, { id, ...attrs });
    this.title = part("h2", "room-title");
    this.link = part("p", "room-link", { class: "muted" });
    this.seats = part("ol", "seats", { class: "seats", "aria-label": "Players and scores" });
    this.target = part("p", "target", { class: "muted" });
    this.turn = part("p", "turn", { class: "turn", "aria-live": "polite" });
    this.total = part("div", "total", { class: "total", role: "status", "aria-label": "Ends total" });
    this.boneyard = part("p", "boneyard", { class: "muted" });
    this.svg = s("svg", { id: "board", class: "board", role: "img", "aria-label": "The table" });
    this.endChoice = part("div", "end-choice", { class: "end-choice", "aria-live": "polite" });
    this.hand = part("div", "hand", { class: "hand", role: "group", "aria-label": "Your hand" });
    this.buttons = part("div", "moves", { class: "buttons" });
    this.summary = part("section", "summary", { class: "summary card", hidden: true, "aria-live": "polite" });
    this.winner = part("section", "winner", { class: "winner card", hidden: true, "aria-live": "polite" });
    this.waiting = part("section", "waiting", { class: "waiting card", hidden: true });
    this.log = part("ol", "log", { class: "log", role: "log", "aria-label": "What happened" });
    this.chatList = part("ol", "chat", { class: "chat", "aria-label": "Chat" });
    this.chatInput = h("input", { id: "chat-input", maxlength: 200, autocomplete: "off", "aria-label": "Chat message", placeholder: "Say something" });
    const chatForm = h("form", { class: "chat-form", onsubmit: (event) => {
      event.preventDefault();
      const text = this.chatInput.value.trim();
      if (text) actions.chat(text);
      this.chatInput.value = "";
    } }, this.chatInput, h("button", { type: "submit" }, "Send"));
    this.boardWrap = h("div", { class: "board-wrap" }, this.total, this.svg);
    this.game = h("section", { class: "game", id: "game" },
      h("div", { class: "status-row" }, this.turn, this.boneyard),
      this.boardWrap, this.endChoice, this.hand, this.buttons);
    fill(root, h("div", { class: "room" },
      h("section", { class: "players card" },
        h("div", { class: "room-head" }, this.title,
          h("button", { type: "button", id: "leave-button", onclick: () => actions.leave() }, "Leave")),
        this.link, this.seats, this.target),
      this.waiting, this.summary, this.winner, this.game,
      h("section", { class: "side card" },
        h("h2", {}, "Log"), this.log,
        h("h2", {}, "Chat"), this.chatList, chatForm)));
    this.onKey = (event) => {
      if (event.key === "Escape" && this.picked) {
        this.picked = null;
        this.redraw();
      }
    };
    document.addEventListener("keydown", this.onKey);
    this.clock = setInterval(() => this._drawTurn(), 1000);
    this.resize = new ResizeObserver(() => this._drawBoard());
    this.resize.observe(this.boardWrap);
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    clearInterval(this.clock);
    this.resize.disconnect();
  }

  /** Redraw from a table model, the log lines and the latest word for the player. */
  update(model, log, hintText) {
    this.model = model;
    this.logLines = log;
    this.hintText = hintText;
    if (this.picked && !model.game?.hand.some((t) => t.tile === this.picked && t.playable)) this.picked = null;
    this.redraw();
  }

  redraw() {
    const model = this.model;
    if (!model) return;
    const focused = document.activeElement?.getAttribute?.("data-key");
    this._drawHead(model);
    this._drawWaiting(model);
    const game = model.game;
    this.game.hidden = !game;
    if (game) {
      const key = `${game.handNumber}:${game.turn}:${game.history.length}`;
      if (key !== this.turnKey) {
        this.turnKey = key;
        this.turnSince = Date.now();
      }
      this._drawTurn();
      this.boneyard.textContent = `Boneyard: ${game.boneyard}`;
      this._drawTotal(game);
      this._drawBoard();
      this._drawEnds(game);
      this._drawHand(game);
      this._drawButtons(game);
      this._drawSummary(model, game);
      this._drawWinner(model, game);
    } else {
      this.summary.hidden = true;
      this.winner.hidden = true;
    }
    this._drawLog();
    fill(this.chatList, model.chat.slice(-50).map((line) => h("li", {}, h("b", {}, line.name), `: ${line.text}`)));
    if (focused) document.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  _drawHead(model) {
    this.title.textContent = `Room ${model.code}`;
    // A private room's link carries its invite (CODE-INVITE, the room as joined).
    const path = `/r/${encodeURIComponent(model.handle ?? model.code)}`;
    fill(this.link, "Friends join at ", h("a", { href: path, id: "invite-link" }, `${location.origin}${path}`),
      model.spectators ? ` · ${model.spectators} watching` : "", model.you === null ? " · you are watching" : "");
    fill(this.seats, model.teams && model.game
      ? model.game.sides.map((side) => h("li", { class: "side" },
        h("span", { class: "score", "data-side": side.index }, String(side.score)), ` ${side.short}: `,
        model.seats.filter((seat) => seat.index % 2 === side.index).map((seat, i) => [i ? ", " : "", this._seatLabel(seat)])))
      : model.seats.map((seat) => h("li", { class: seat.turn ? "turn-now" : "" },
        seat.score !== null ? h("span", { class: "score", "data-side": seat.index }, String(seat.score)) : null,
        " ", this._seatLabel(seat))));
    const rules = model.rules;
    const target = model.game ? model.game.target : rules.target ?? (rules.players === 2 ? 250 : 200);
    const words = [`first to ${target}`, `${rules.players} players`];
    if (model.teams) words.push("teams");
    if (rules.hand_size !== "standard") words.push(`hand ${rules.hand_size}`);
    if (rules.end_scoring === "penalty") words.push("penalty scoring");
    if (rules.reserve) words.push(`reserve ${rules.reserve}`);
    if (rules.turn_seconds) words.push(`${rules.turn_seconds} s a turn`);
    this.target.textContent = words.join(" · ");
  }

  _seatLabel(seat) {
    if (seat.free) return h("span", { class: "muted" }, `seat ${seat.index}: free`);
    const notes = [];
    if (seat.tiles !== null) notes.push(`${seat.tiles} tile${seat.tiles === 1 ? "" : "s"}`);
    if (seat.you) notes.push("you");
    if (seat.host) notes.push("host");
    if (seat.bot) notes.push(`${seat.level} bot`);
    if (!seat.connected && !seat.bot) notes.push("away");
    return h("span", { class: `seat${seat.turn ? " turn-now" : ""}`, "data-seat": seat.index },
      seat.turn ? "▶ " : "", h("b", {}, seat.name), ` (${notes.join(", ")})`);
  }

  _drawWaiting(model) {
    this.waiting.hidden = model.phase !== "waiting";
    if (this.waiting.hidden) return;
    if (!changed(this.drawn, "waiting", [model.seats, model.isHost, model.freeSeats])) return;
    const rows = model.seats.map((seat) => {
      const controls = [];
      if (model.isHost && seat.free) {
        const level = h("select", { "aria-label": `Bot level for seat ${seat.index}`, "data-key": `level-${seat.index}` },
          LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, `${l} bot`)));
        controls.push(level, h("button", { type: "button", "data-key": `add-${seat.index}`, onclick: () => this.actions.addBot(seat.index, level.value) }, "Seat a bot"));
      }
      if (model.isHost && seat.bot) {
        controls.push(h("button", { type: "button", "data-key": `remove-${seat.index}`, onclick: () => this.actions.removeBot(seat.index) }, "Remove bot"));
      }
      return h("li", {}, `Seat ${seat.index}: `, seat.free ? h("span", { class: "muted" }, "free") : h("b", {}, seat.name), " ", ...controls);
    });
    const start = model.isHost
      ? h("button", { type: "button", class: "primary", id: "start-button", "data-key": "start", disabled: model.freeSeats.length > 0, onclick: () => this.actions.start() },
        model.freeSeats.length ? `Start (${model.freeSeats.length} seat${model.freeSeats.length > 1 ? "s" : ""} free)` : "Start the match")
      : h("p", { class: "muted" }, "Waiting for the host to start.");
    fill(this.waiting, h("h2", {}, "Seats"), h("ul", { class: "seat-list" }, rows), start);
  }

  _drawTurn() {
    const game = this.model?.game;
    if (!game) return;
    if (game.over || game.turn === null || game.turn === undefined) {
      this.turn.textContent = game.over ? "The match is over" : "Between hands";
      return;
    }
    const who = game.myTurn ? "Your turn" : `${game.turnName}'s turn`;
    const limit = this.model.rules.turn_seconds;
    const waited = Math.floor((Date.now() - this.turnSince) / 1000);
    const clock = limit ? ` · ${Math.max(0, limit - waited)} s left` : ` · ${waited} s`;
    this.turn.textContent = `Hand ${game.handNumber} · ${who}${clock}`;
    this.turn.classList.toggle("mine", game.myTurn);
  }

  _drawTotal(game) {
    this.total.textContent = String(game.total);
    this.total.dataset.total = String(game.total);
    this.total.classList.toggle("gold", game.gold);
    this.total.setAttribute("aria-label", `Ends total ${game.total}${game.gold ? ", a multiple of five" : ""}`);
  }

  _targets(game) {
    const tile = game.hand.find((t) => t.tile === this.picked);
    if (!tile) return {};
    return Object.fromEntries(tile.options.filter((o) => o.end).map((o) => [o.end, { total: o.total, onPick: () => this._play(tile.tile, o.end) }]));
  }

  _drawBoard() {
    const game = this.model?.game;
    if (!game) return;
    const width = this.boardWrap.clientWidth || 340;
    const targets = this._targets(game);
    const inputs = [game.layout, game.leadIndex, game.ends, width, this.picked, game.history.length];
    if (!changed(this.drawn, "board", inputs)) return;
    drawLayout(this.svg, { layout: game.layout, leadIndex: game.leadIndex, history: game.history, width, targets, ends: game.ends });
    this.svg.setAttribute("aria-label", describeLayout(game.layout, game.ends));
  }

  _drawEnds(game) {
    const tile = game.hand.find((t) => t.tile === this.picked);
    if (!changed(this.drawn, "ends", [tile ?? null])) return;
    if (!tile) {
      this.endChoice.replaceChildren();
      return;
    }
    fill(this.endChoice, h("span", {}, `Play ${tile.tile} on: `),
      tile.options.map((o) => h("button", {
        type: "button", class: `end-button${o.total > 0 && o.total % 5 === 0 ? " gold" : ""}`, "data-end": o.end, "data-key": `end-${o.end}`,
        onclick: () => this._play(tile.tile, o.end),
      }, `${o.end} → ${o.total}`)),
      h("button", { type: "button", "data-key": "end-cancel", onclick: () => { this.picked = null; this.redraw(); } }, "Cancel"));
  }

  _drawHand(game) {
    if (!changed(this.drawn, "hand", [game.spectator, game.hand, this.picked])) return;
    if (game.spectator) {
      fill(this.hand, h("p", { class: "muted" }, "You are watching: hands are hidden."));
      return;
    }
    fill(this.hand, game.hand.map((t) => {
      const label = `${t.tile}${t.playable ? (t.options.length > 1 ? `, fits ${t.options.length} ends` : `, makes ${t.options[0].total}`) : ""}`;
      return h("button", {
        type: "button",
        class: ["hand-tile", t.playable ? "playable" : "", t.tile === this.picked ? "picked" : "", t.hinted ? "hinted" : ""].join(" "),
        "data-tile": t.tile, "data-key": `tile-${t.tile}`, "aria-label": label,
        "aria-pressed": t.tile === this.picked ? "true" : "false",
        disabled: !t.playable,
        onclick: () => this._pick(t),
      }, handTile(t.tile));
    }));
  }

  _pick(tile) {
    if (!tile.playable) return;
    if (tile.options.length <= 1) {
      this._play(tile.tile, tile.options[0]?.end ?? null);
      return;
    }
    this.picked = this.picked === tile.tile ? null : tile.tile;
    this.redraw();
    if (this.picked) this.endChoice.querySelector("button")?.focus();
  }

  _play(tile, end) {
    this.picked = null;
    this.actions.play(tile, end);
  }

  _drawButtons(game) {
    if (!changed(this.drawn, "buttons", [game.myTurn, game.canPass, this.hintText])) return;
    const buttons = [];
    if (game.myTurn) buttons.push(h("button", { type: "button", id: "hint-button", "data-key": "hint", onclick: () => this.actions.hint() }, "Hint"));
    if (game.canPass) buttons.push(h("button", { type: "button", id: "pass-button", "data-key": "pass", onclick: () => this.actions.pass() }, "Pass"));
    if (this.hintText) buttons.push(h("span", { class: "hint", id: "hint" }, this.hintText));
    fill(this.buttons, buttons);
  }

  _drawSummary(model, game) {
    const summary = game.summary;
    this.summary.hidden = !summary || this.dismissed === summary.hand || game.over;
    if (this.summary.hidden) return;
    if (!changed(this.drawn, "summary", [summary, model.names])) return;
    const sides = model.teams ? ["Team A", "Team B"] : model.names;
    fill(this.summary,
      h("h2", {}, `Hand ${summary.hand} is over`),
      h("p", {}, summary.text),
      h("div", { class: "summary-row" },
        h("table", {},
          h("thead", {}, h("tr", {}, h("td", {}, ""), summary.points.map((_, index) => h("th", { scope: "col" }, sides[index] ?? `side ${index}`)))),
          h("tbody", {}, h("tr", {}, h("th", { scope: "row" }, "points"), summary.points.map((points) => h("td", {}, String(points)))))),
        h("button", { type: "button", "data-key": "summary-ok", onclick: () => { this.dismissed = summary.hand; this.redraw(); } }, "OK")));
  }

  _drawWinner(model, game) {
    this.winner.hidden = !game.over;
    if (!game.over) return;
    if (!changed(this.drawn, "winner", [game.winnerText, game.sides, model.isHost])) return;
    fill(this.winner,
      h("h2", { id: "winner-text" }, game.winnerText),
      h("p", {}, `Final scores: ${game.sides.map((side) => `${side.short} ${side.score}`).join(", ")}`),
      model.isHost
        ? h("button", { type: "button", class: "primary", id: "rematch-button", "data-key": "rematch", onclick: () => this.actions.rematch() }, "Rematch")
        : h("p", { class: "muted" }, "The host may start a rematch."));
  }

  _drawLog() {
    const lines = this.logLines ?? [];
    fill(this.log, lines.slice(-LOG_SHOWN).map((line) => h("li", { class: `log-${line.kind}` }, line.text)));
    this.log.scrollTop = this.log.scrollHeight;
  }
}
