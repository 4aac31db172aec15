// The room as this page holds it: the document from snapshot and patches (seq, gaps, resync),
// a log in words, and the last hand's final table. No DOM and no socket: `receive(message)`
// returns what must be sent back (a resync after a gap).

import { applyPatch } from "../vendor/fast-json-patch/core.mjs";
import { describe, displayNames, partnership, describeMove } from "./describe.js";
import { finalLayout } from "./model.js";

export const LOG_LENGTH = 200;

/** The kind of log line an event makes (for its colour). */
export function lineKind(event) {
  if (event.type === "played" && event.points > 0) return "score";
  if (event.type === "hand_ended") return "hand";
  if (event.type === "match_ended") return "match";
  if (event.type === "chat") return "chat";
  return "play";
}

/** Sentences for the seats that changed between two documents. */
export function seatChanges(before, after) {
  const lines = [];
  const oldNames = displayNames(before);
  const newNames = displayNames(after);
  after.seats.forEach((now, index) => {
    const old = before.seats[index] ?? null;
    if (JSON.stringify(old) === JSON.stringify(now)) return;
    if (old === null && now !== null && now.kind === "bot" && after.you !== null && after.you === after.host) {
      return; // the host seated it and sees it in the seat list
    }
    if (old === null && now !== null) {
      const what = now.kind === "bot" ? `${/^e/.test(now.level ?? "") ? "an" : "a"} ${now.level} bot` : newNames[index];
      lines.push(`${what} took seat ${index}`);
    } else if (old !== null && now === null) {
      lines.push(`${oldNames[index]} left seat ${index}`);
    } else if (old !== null && now !== null && old.connected !== now.connected) {
      lines.push(`${newNames[index]} ${now.connected ? "is back" : "is away"}`);
    }
  });
  return lines;
}

export class RoomState {
  constructor() {
    this.doc = null;
    this.seq = null;
    /** A resync was asked for: patches are ignored until its snapshot. */
    this.mending = false;
    /** How many snapshots came (a resume that got patches only leaves this at 0). */
    this.snapshots = 0;
    this.log = [];
    this.finalLayout = null;
    this.hint = null;
    this.room = null;
    this.seat = null;
    this.token = null;
    this._hand = null;
    this._handEvents = 0;
  }

  /** Take up a room's document kept from before a reload (its seq is then sent as last_seq:
   *  the server answers with the patches missed, or a snapshot). */
  restore(room, saved) {
    this.room = room;
    this.seat = saved.seat ?? null;
    this.token = saved.token ?? null;
    this.doc = saved.doc;
    this.seq = saved.seq;
    this._logMissed();
  }

  /** Forget the room (after leaving it). */
  clear() {
    Object.assign(this, new RoomState());
  }

  note(text, kind = "info") {
    this.log.push({ text, kind });
    if (this.log.length > LOG_LENGTH) this.log.splice(0, this.log.length - LOG_LENGTH);
  }

  /** Take one server message; returns the messages to send because of it. */
  receive(message) {
    switch (message.type) {
      case "joined":
        if (message.room !== this.room) {
          this.doc = null;
          this.seq = null;
          this.finalLayout = null;
          this._hand = null;
          this._handEvents = 0;
        }
        this.room = message.room;
        this.seat = message.seat;
        this.token = message.seat_token ?? null;
        return [];
      case "snapshot":
        this.snapshots += 1;
        this.doc = message.state;
        this.seq = message.seq;
        this.mending = false;
        this._logMissed();
        return [];
      case "patch":
        return this._patch(message);
      case "hint":
        this.hint = message.move;
        return [];
      default:
        return [];
    }
  }

  _patch(message) {
    if (this.doc === null || this.seq === null) return this._gap();
    if (message.seq <= this.seq) return [];
    if (message.seq !== this.seq + 1) return this._gap();
    if (this.mending) return [];
    let doc;
    try {
      doc = applyPatch(this.doc, message.ops, true, false).newDocument;
    } catch {
      return this._gap();
    }
    const before = this.doc;
    this.doc = doc;
    this.seq = message.seq;
    for (const line of seatChanges(before, doc)) this.note(line, "info");
    const events = message.events ?? eventsOf(message.ops);
    this._keepFinalLayout(before, events);
    this._logEvents(events);
    return [];
  }

  _gap() {
    if (this.mending) return [];
    this.mending = true;
    return [{ type: "resync" }];
  }

  /** When a hand ends and the next is dealt, keep the ended hand's table until the next lead. */
  _keepFinalLayout(before, events) {
    if (events.some((e) => e.type === "hand_started")) {
      this.finalLayout = null;
      const game = before?.game;
      if (game && events.some((e) => e.type === "hand_ended")) {
        this.finalLayout = finalLayout(game.layout, events);
      }
    }
  }

  /** After a snapshot: log what this hand's history holds that the log does not yet. */
  _logMissed() {
    const game = this.doc?.game;
    if (!game) {
      this._hand = null;
      this._handEvents = 0;
      return;
    }
    if (game.hand_number === this._hand) {
      this._logEvents(game.history.slice(this._handEvents));
      return;
    }
    const last = game.last_hand;
    if (this._hand !== null && last && game.hand_number === this._hand + 1) {
      this._logEvents([{ type: "hand_ended", ...last }]);
    }
    this._logEvents(game.history);
  }

  _logEvents(events) {
    const names = displayNames(this.doc);
    const teams = partnership(this.doc?.rules);
    for (const event of events) {
      if (event.type === "hand_started") {
        this._hand = event.number;
        this._handEvents = 0;
      }
      if (event.type !== "chat") this._handEvents += 1;
      if (["played", "hand_ended", "match_ended"].includes(event.type)) this.hint = null;
      if (event.type === "chat") continue; // chat lines have their own panel
      this.note(describe(event, names, teams), lineKind(event));
    }
  }

  /** The hint in words, if one is held. */
  hintText() {
    return this.hint ? `Hint: the hard bot would ${describeMove(this.hint)}` : null;
  }
}

/** A patch's events: the values it appends to the match's history and to the chat. */
export function eventsOf(ops) {
  return ops
    .filter((op) => op.op === "add" && (op.path === "/game/history/-" || op.path === "/chat/-"))
    .map((op) => op.value);
}
