// The room as this page holds it: the document from snapshot, patches and moves' frames (seq,
// gaps, resync), a log in words, and the last hand's final table. No DOM and no socket:
// `receive(message)` returns what must be sent back (a resync after a gap).

import { applyPatch } from "../vendor/fast-json-patch/core.mjs";
import { movedOps } from "./moved.js";
import { describe, displayNames, partnership, seatSides, describeMove, seatNumber } from "./describe.js";
import { t } from "./i18n.js";

export const LOG_LENGTH = 200;
/** The most hands kept for the scoreboard. */
const HANDS_KEPT = 100;

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
      if (now.kind === "bot") {
        const level = ["easy", "normal", "hard"].includes(now.level) ? now.level : "normal";
        lines.push(t(`seats.bot_took_${level}`, { seat: seatNumber(index) }));
      } else {
        lines.push(t("seats.took", { who: newNames[index], seat: seatNumber(index) }));
      }
    } else if (old !== null && now === null) {
      lines.push(t("seats.left", { who: oldNames[index], seat: seatNumber(index) }));
    } else if (old !== null && now !== null && old.connected !== now.connected) {
      lines.push(t(now.connected ? "seats.back" : "seats.away", { who: newNames[index] }));
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
    /** The plays of the hand `finalLayout` ended (its lead's place, its last tile), and the
     *  number of the hand dealt after it (the one whose lead clears it). */
    this.finalHistory = [];
    this.finalHand = null;
    this.hint = null;
    this.room = null;
    this.seat = null;
    this.token = null;
    this._hand = null;
    this._handEvents = 0;
    /** The hands of this match seen ended: {hand, kind, by, points, pips, plays, scores}. */
    this.hands = [];
    /** The server's clock less this page's, in seconds (from the turn clock, when it runs). */
    this.clockOffset = 0;
    /** Out of any room (left it): snapshots and patches are ignored until `joined`. */
    this.outside = false;
  }

  /** Take up a room's document kept from before a reload (its seq is then sent as last_seq:
   *  the server answers with the patches missed, or a snapshot). */
  restore(room, saved) {
    this.room = room;
    this.seat = saved.seat ?? null;
    this.token = saved.token ?? null;
    this.doc = saved.doc;
    this.seq = saved.seq;
    this.hands = Array.isArray(saved.hands) ? saved.hands.slice(-HANDS_KEPT) : [];
    if (saved.finalLayout && Array.isArray(saved.finalLayout.line) && Array.isArray(saved.finalHistory)) {
      this.finalLayout = saved.finalLayout;
      this.finalHistory = saved.finalHistory;
      this.finalHand = saved.finalHand ?? null;
    }
    this._logMissed();
  }

  /** Forget the room. */
  clear() {
    Object.assign(this, new RoomState());
  }

  /** Forget the room after leaving it: its frames still on their way are not ours. */
  leave() {
    this.clear();
    this.outside = true;
  }

  note(text, kind = "info") {
    this.log.push({ text, kind });
    if (this.log.length > LOG_LENGTH) this.log.splice(0, this.log.length - LOG_LENGTH);
  }

  /** Take one server message; returns the messages to send because of it. */
  receive(message) {
    switch (message.type) {
      case "joined":
        this.outside = false;
        if (message.room !== this.room) {
          this.doc = null;
          this.seq = null;
          this.finalLayout = null;
          this.finalHistory = [];
          this.finalHand = null;
          this._hand = null;
          this._handEvents = 0;
        }
        this.room = message.room;
        this.seat = message.seat;
        this.token = message.seat_token ?? null;
        return [];
      case "snapshot":
        if (this.outside) return []; // left the room: its last frames are not ours
        this.snapshots += 1;
        this.doc = message.state;
        this.seq = message.seq;
        this.mending = false;
        this._logMissed();
        return [];
      case "patch":
      case "moved":
        if (this.outside) return [];
        return this._patch(message);
      case "hint":
        this.hint = message.move;
        return [];
      default:
        return [];
    }
  }

  /** A `patch` frame, or a `moved` frame as the operations it stands for. */
  _patch(message) {
    if (this.doc === null || this.seq === null) return this._gap();
    if (message.seq <= this.seq) return [];
    if (message.seq !== this.seq + 1) return this._gap();
    if (this.mending) return [];
    let doc;
    try {
      const ops = message.type === "moved" ? movedOps(this.doc, message) : message.ops;
      doc = applyPatch(this.doc, ops, true, false).newDocument;
    } catch {
      return this._gap();
    }
    const before = this.doc;
    this.doc = doc;
    this.seq = message.seq;
    for (const line of seatChanges(before, doc)) this.note(line, "info");
    const events = frameEvents(message);
    this._keepFinalLayout(before, events);
    this._keepHands(before, events);
    this._setClock(before, doc);
    this._logEvents(events, standInMoves(before, doc));
    return [];
  }

  /** A hand that ended in this patch, for the scoreboard: its result, what each side scored by
   *  its plays (from the hand's history), and the scores after it. */
  _keepHands(before, events) {
    const game = before?.game;
    const at = events.findIndex((e) => e.type === "hand_ended");
    if (!game || at < 0) return;
    const sides = seatSides(this.doc);
    const plays = game.scores.map(() => 0);
    for (const event of [...(game.history ?? []), ...events.slice(0, at)]) {
      if (event.type === "played" && event.points && sides[event.seat] in plays) plays[sides[event.seat]] += event.points;
    }
    const result = events[at];
    const scores = this.doc?.game?.scores ?? game.scores;
    this._addHand({ hand: game.hand_number, kind: result.kind, by: result.by, points: result.points, pips: result.pips, plays, scores: [...scores] });
  }

  _addHand(row) {
    if (this.hands.length && this.hands[this.hands.length - 1].hand >= row.hand) {
      if (row.hand === 1) this.hands = []; // a new match
      else return;
    }
    this.hands.push(row);
    if (this.hands.length > HANDS_KEPT) this.hands.splice(0, this.hands.length - HANDS_KEPT);
  }

  /** A new turn deadline under a turn clock was set `turn_seconds` ago by the server's clock:
   *  that tells how far this page's clock is from the server's. */
  _setClock(before, doc) {
    const limit = doc?.rules?.turn_seconds;
    if (!limit) return;
    const old = before?.deadline ?? null;
    const now = doc?.deadline ?? null;
    if (now !== null && now !== old) this.clockOffset = now - limit - Date.now() / 1000;
  }

  /** Seconds until the seat to play's turn runs out (null with no clock on it). */
  secondsLeft(now = Date.now() / 1000) {
    const turn = this.doc?.game?.turn;
    const deadline = turn !== null && turn !== undefined ? this.doc.deadline : null;
    if (deadline === null || deadline === undefined) return null;
    const limit = this.doc.rules?.turn_seconds ?? Infinity;
    return Math.max(0, Math.min(limit, deadline - (now + this.clockOffset)));
  }

  _gap() {
    if (this.mending) return [];
    this.mending = true;
    return [{ type: "resync" }];
  }

  /** The resync asked for was refused (too many messages): the next gap asks again. */
  resyncRefused() {
    this.mending = false;
  }

  /** The seq a connection coming back asks to be caught up from: null (a snapshot) while a
   *  resync is awaited. The frames after the seq held would be ignored until that snapshot,
   *  which a connection lost before it came never brings: the table stayed where it was. */
  resumeSeq() {
    return this.doc !== null && !this.mending ? this.seq : null;
  }

  /** When a hand ends and the next is dealt, keep the ended hand's table until the next lead. */
  _keepFinalLayout(before, events) {
    if (events.some((e) => e.type === "hand_started")) {
      this.finalLayout = null;
      this.finalHistory = [];
      this.finalHand = null;
      const game = before?.game;
      const end = events.findIndex((e) => e.type === "hand_ended");
      // The table the hand ended on is the server's (hand_ended's layout): nothing is placed here.
      if (game && end >= 0 && events[end].layout) {
        this.finalLayout = events[end].layout;
        this.finalHistory = [...(game.history ?? []), ...events.slice(0, end)].filter((e) => e.type === "played");
        this.finalHand = this.doc?.game?.hand_number ?? null;
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
      this._addHand({ hand: this._hand, ...last, plays: null, scores: [...game.scores] });
    }
    this._logEvents(game.history);
  }

  _logEvents(events, standIns = new Set()) {
    const names = displayNames(this.doc);
    const teams = partnership(this.doc?.rules);
    for (const event of events) {
      if (event.type === "hand_started" && event.number === 1 && this._hand !== null) this.note(t("log.new_match"), "match");
      if (event.type === "hand_started") {
        this._hand = event.number;
        this._handEvents = 0;
      }
      if (event.type !== "chat") this._handEvents += 1;
      if (["played", "hand_ended", "match_ended"].includes(event.type)) this.hint = null;
      if (event.type === "chat") continue; // chat lines have their own panel
      const stood = standIns.has(event.seat) && ["played", "drew"].includes(event.type);
      this.note(describe(event, names, teams, standIns, this.doc?.you ?? null), stood ? "standin" : lineKind(event));
    }
  }

  /** The hint in words, if one is held. */
  hintText() {
    return this.hint ? t("hint.text", { move: describeMove(this.hint) }) : null;
  }
}

/** The seats a stand-in bot moved for in a change: their `stand_in_moves` went up. */
export function standInMoves(before, after) {
  const seats = new Set();
  (after?.seats ?? []).forEach((seat, index) => {
    const old = before?.seats?.[index]?.stand_in_moves ?? 0;
    if (seat && (seat.stand_in_moves ?? 0) > old) seats.add(index);
  });
  return seats;
}

/** The events a `patch` or `moved` frame brought, in order (none for any other message). */
export function frameEvents(message) {
  if (message?.type === "moved") return Array.isArray(message.events) ? message.events : [];
  if (message?.type !== "patch" || !Array.isArray(message.ops)) return [];
  return message.events ?? eventsOf(message.ops);
}

/** A patch's events: the values it appends to the match's history and to the chat. */
export function eventsOf(ops) {
  return ops
    .filter((op) => op.op === "add" && (op.path === "/game/history/-" || op.path === "/chat/-"))
    .map((op) => op.value);
}
