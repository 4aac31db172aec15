// clients/web/js/state.js: the room as the page holds it (snapshot, patches and moves' frames,
// gaps and resyncs, a document kept over a reload, the log in words, the hands kept, the turn clock).

import { test } from "node:test";
import assert from "node:assert/strict";
import { module, readmeFrames, readmeDocument, words } from "./support.mjs";

const i18n = await module("i18n.js");
const { RoomState, eventsOf, lineKind, seatChanges, standInMoves } = await module("state.js");
await i18n.load("en");

/** The page's log of the README's example session. */
const SESSION_LOG = [
  "Hand 1: Ann leads",
  "Ann led 1-3: total 4",
  "Bot 2 played 4-3 east: total 5, scores 5",
  "Ann played 6-1 west: total 10, scores 10",
  "Ann is away",
  "Bot 2 played 6-5 west: total 9",
  "Ann is back",
];

const frames = readmeFrames();
const snapshot = frames.find((f) => f.type === "snapshot");
/** The frames that change the document: patches, and moves told by their events. */
const CHANGES = ["patch", "moved"];
const patches = frames.filter((f) => CHANGES.includes(f.type));

/** A fresh RoomState fed `messages`: what it sent back after each, and the state. */
function feed(messages, room = new RoomState()) {
  const sent = messages.map((message) => room.receive(structuredClone(message)));
  return { room, sent };
}

const texts = (room) => room.log.map((line) => line.text);

test("the README session builds the documented view, and its log in words", () => {
  const { room, sent } = feed(frames.filter((f) => ["joined", "snapshot", ...CHANGES].includes(f.type)));
  assert.equal(room.seq, 9);
  assert.deepEqual(room.doc, readmeDocument());
  assert.equal(room.doc.game.total, 9);
  assert.ok(sent.every((reply) => reply.length === 0));
  assert.deepEqual(texts(room), SESSION_LOG);
  assert.equal(room.room, "KXQP");
  assert.equal(room.seat, 0);
  assert.equal(room.token, "TOKEN");
});

test("a gap asks for one resync, and patches wait for the snapshot", () => {
  // seq 1, then seq 3 (2 is missing): one resync, then patches are ignored until a snapshot.
  const { room, sent } = feed([snapshot, patches[1], patches[2], snapshot]);
  assert.deepEqual(sent, [[], [{ type: "resync" }], [], []]);
  assert.equal(room.seq, 1);
  assert.equal(room.mending, false);
  assert.equal(room.snapshots, 2);
});

test("a refused resync is asked again at the next gap", () => {
  const { room, sent } = feed([snapshot, patches[1], patches[2]]);
  assert.deepEqual(sent, [[], [{ type: "resync" }], []]);
  room.resyncRefused();
  assert.deepEqual(room.receive(structuredClone(patches[3])), [{ type: "resync" }]);
});

test("a connection that comes back while a resync is awaited asks for a snapshot", () => {
  const { room } = feed([snapshot, patches[0]]);
  assert.equal(room.resumeSeq(), 2);
  room.receive(structuredClone(patches[2])); // seq 4 after 2: a gap
  assert.equal(room.resumeSeq(), null);
  room.receive(structuredClone(snapshot));
  assert.equal(room.resumeSeq(), snapshot.seq);
});

test("an old patch is ignored, and one that does not apply is a gap too", () => {
  const broken = { type: "patch", seq: 3, ops: [{ op: "remove", path: "/game/hand/7" }] };
  const { room, sent } = feed([snapshot, patches[0], patches[0], broken]);
  assert.deepEqual(sent, [[], [], [], [{ type: "resync" }]]);
  assert.equal(room.seq, 2);
  assert.equal(room.mending, true);
  // The document is the one before the patch that did not apply.
  assert.equal(room.doc.seats[1].name, "bot:normal");
});

test("a patch before any snapshot asks for one", () => {
  const { room, sent } = feed([patches[0], patches[1]]);
  assert.deepEqual(sent, [[{ type: "resync" }], []]);
  assert.equal(room.doc, null);
});

test("a document kept over a reload takes up the patches missed", () => {
  let doc = null;
  const later = [];
  const early = new RoomState();
  for (const frame of frames) {
    if (frame.type === "snapshot" || (CHANGES.includes(frame.type) && frame.seq <= 6)) {
      early.receive(structuredClone(frame));
      doc = early.doc;
    } else if (CHANGES.includes(frame.type)) {
      later.push(frame);
    }
  }
  assert.equal(early.seq, 6);
  const room = new RoomState();
  room.restore("KXQP", { token: "TOKEN", seat: 0, seq: 6, doc: structuredClone(doc) });
  const joined = { type: "joined", room: "KXQP", seat: 0, seat_token: "TOKEN", id: 1 };
  const { sent } = feed([joined, ...later], room);
  assert.equal(room.seq, 9);
  assert.equal(room.snapshots, 0);
  assert.deepEqual(room.doc, readmeDocument());
  assert.ok(sent.every((reply) => reply.length === 0));
  assert.deepEqual(texts(room), SESSION_LOG);
});

test("joining another room forgets the old one's document", () => {
  const { room } = feed([snapshot, patches[0]]);
  room.receive({ type: "joined", room: "ZZZZ", seat: 1, seat_token: "T2", id: 7 });
  assert.equal(room.doc, null);
  assert.equal(room.seq, null);
  assert.equal(room.room, "ZZZZ");
  // The same room again (a resume) keeps it.
  const joined = frames.find((f) => f.type === "joined");
  const again = feed([joined, snapshot]).room;
  again.receive({ ...joined, id: 8 });
  assert.equal(again.seq, 1);
});

test("after leaving, the room's last frames are not taken", () => {
  const { room } = feed([snapshot]);
  room.leave();
  assert.deepEqual(room.receive(structuredClone(patches[0])), []);
  room.receive(structuredClone(snapshot));
  assert.equal(room.doc, null);
  room.receive({ type: "joined", room: "KXQP", seat: 0, id: 9 });
  room.receive(structuredClone(snapshot));
  assert.equal(room.seq, 1);
});

test("the log keeps its last lines only", () => {
  const room = new RoomState();
  for (let n = 0; n < 250; n += 1) room.note(`line ${n}`);
  assert.equal(room.log.length, 200);
  assert.equal(room.log[0].text, "line 50");
});

test("log lines are kinds the page colours", () => {
  assert.equal(lineKind({ type: "played", points: 10 }), "score");
  assert.equal(lineKind({ type: "played", points: 0 }), "play");
  assert.equal(lineKind({ type: "hand_ended" }), "hand");
  assert.equal(lineKind({ type: "match_ended" }), "match");
  assert.equal(lineKind({ type: "chat" }), "chat");
  assert.equal(lineKind({ type: "drew" }), "play");
});

test("a patch's events are what it appends to the history and the chat", () => {
  const ops = [
    { op: "replace", path: "/game/total", value: 5 },
    { op: "add", path: "/game/history/-", value: { type: "passed", seat: 1 } },
    { op: "add", path: "/chat/-", value: { type: "chat", seat: 0, name: "Ann", text: "hi" } },
    { op: "add", path: "/game/hand/0", value: "1-1" },
  ];
  assert.deepEqual(eventsOf(ops), [{ type: "passed", seat: 1 }, { type: "chat", seat: 0, name: "Ann", text: "hi" }]);
});

const human = (seat, name, more = {}) => ({ seat, name, kind: "human", level: null, connected: true, stand_in: false, stand_in_moves: 0, ...more });
const bot = (seat, level) => ({ seat, name: `bot:${level}`, kind: "bot", level, connected: true, stand_in: false, stand_in_moves: 0 });
const room = (seats, more = {}) => ({ code: "KXQP", rules: { players: seats.length, teams: false }, seats, you: 1, host: 0, phase: "waiting", game: null, ...more });

test("seat changes are told: who sat, who left, who went away and came back", () => {
  const before = room([human(0, "Ann"), null, null]);
  const after = room([human(0, "Ann", { connected: false }), human(1, "Bo"), bot(2, "hard")]);
  assert.deepEqual(seatChanges(before, after), [
    words("en", "seats.away", { who: "Ann" }),
    // Seats are numbered from 1 on screen: Bo sits in the second seat, the bot in the third.
    words("en", "seats.took", { who: "Bo", seat: 2 }),
    words("en", "seats.bot_took_hard", { seat: 3 }),
  ]);
  assert.deepEqual(seatChanges(after, before), [
    words("en", "seats.back", { who: "Ann" }),
    words("en", "seats.left", { who: "Bo", seat: 2 }),
    words("en", "seats.left", { who: "Bot 3", seat: 3 }),
  ]);
  // The host seated the bot and sees it in the seat list: no line for it.
  const hosts = { ...after, you: 0 };
  assert.deepEqual(seatChanges({ ...before, you: 0 }, hosts).length, 2);
});

test("a stand-in's moves are the seats whose stand_in_moves went up", () => {
  const before = room([human(0, "Ann", { stand_in_moves: 1 }), human(1, "Bo")]);
  const after = room([human(0, "Ann", { stand_in_moves: 2 }), human(1, "Bo")]);
  assert.deepEqual([...standInMoves(before, after)], [0]);
  assert.deepEqual([...standInMoves(after, after)], []);
});

test("a stand-in's move for you is told to you as yours, and to the others by your name", () => {
  const told = (you) => {
    const state = new RoomState();
    const seats = [human(0, "Ann"), human(1, "Bo")];
    state.receive({ type: "snapshot", seq: 1, state: room(seats, { you, phase: "playing", game: readmeDocument().game }) });
    const played = { type: "played", seat: 0, tile: "6-4", end: "east", total: 10, points: 10 };
    state.receive({ type: "patch", seq: 2, ops: [{ op: "replace", path: "/seats/0/stand_in_moves", value: 1 }], events: [played] });
    return texts(state).at(-1);
  };
  const line = (who) => words("en", "log.played", { who, tile: "6-4", end: words("en", "end.east"), total: 10 })
    + words("en", "log.scores", { points: 10 });
  assert.equal(told(0), line(words("en", "log.stand_in_you")));
  assert.equal(told(0), "Your stand-in played 6-4 east: total 10, scores 10");
  assert.equal(told(1), line(words("en", "log.stand_in", { who: "Ann" })));
});

test("the seconds left on a turn follow the server's clock", () => {
  const state = new RoomState();
  const first = { ...snapshot, state: structuredClone(snapshot.state) };
  first.state.rules.turn_seconds = 30;
  state.receive(first);
  const now = Date.now() / 1000;
  // The server sets the deadline 30 s from its own now, which is 100 s ahead of this page's.
  const deadline = now + 100 + 30;
  state.receive({
    type: "patch",
    seq: 2,
    ops: [
      { op: "replace", path: "/deadline", value: deadline },
      { op: "replace", path: "/game", value: { ...readmeDocument().game, turn: 0 } },
    ],
  });
  const left = state.secondsLeft(now + 10);
  assert.ok(Math.abs(left - 20) < 0.5, `left ${left}`);
  assert.equal(state.secondsLeft(now + 1000), 0);
  assert.equal(new RoomState().secondsLeft(), null);
});

test("a hand that ends is kept for the scoreboard, and its table until the next lead", () => {
  const state = feed(frames.filter((f) => ["snapshot", ...CHANGES].includes(f.type))).room;
  const game = state.doc.game;
  // The server sends the table the hand ended on (its layout) with the result.
  const ended = { type: "hand_ended", kind: "domino", by: 0, points: [15, 0], pips: [0, 12], layout: game.layout };
  const started = { type: "hand_started", number: 2, leader: 1 };
  state.receive({
    type: "patch",
    seq: 10,
    ops: [
      { op: "add", path: "/game/history/-", value: ended },
      { op: "replace", path: "/game/hand_number", value: 2 },
      { op: "replace", path: "/game/scores", value: [game.scores[0] + 15, game.scores[1]] },
      { op: "replace", path: "/game/history", value: [] },
      { op: "add", path: "/game/history/-", value: started },
    ],
    events: [ended, started],
  });
  assert.equal(state.hands.length, 1);
  const [row] = state.hands;
  assert.equal(row.hand, 1);
  assert.equal(row.kind, "domino");
  assert.deepEqual(row.scores, [game.scores[0] + 15, game.scores[1]]);
  // What each side scored by its plays in the hand: Ann 10, the bot 5.
  assert.deepEqual(row.plays, [10, 5]);
  assert.equal(state.finalHand, 2);
  assert.equal(state.finalHistory.length, 4);
  assert.ok(state.finalLayout && state.finalLayout.line.length > 0);
  assert.deepEqual(state.finalLayout, game.layout);
  assert.equal(texts(state).at(-1), "Hand 2: Bot 2 leads");
});

test("a hint is held until the next move, and said in words", () => {
  const state = feed([snapshot]).room;
  assert.equal(state.hintText(), null);
  state.receive({ type: "hint", move: { tile: "5-5", end: null } });
  assert.ok(state.hintText().includes("5-5"), state.hintText());
  feed(patches.slice(0, 3), state);
  assert.equal(state.hint, null);
});

test("a moved frame plays, draws and scores as its events say, and reads as a patch would", () => {
  // Ann (seat 0) holds the README's end position: west 5, east 4, scores 10 to 5, her turn.
  const state = new RoomState();
  state.receive({ type: "snapshot", seq: 9, state: readmeDocument() });
  const moved = {
    type: "moved",
    seq: 10,
    events: [
      { type: "played", seat: 0, tile: "6-4", end: "east", total: 11, points: 0 },
      { type: "played", seat: 1, tile: "6-0", end: "east", total: 5, points: 5 },
      { type: "drew", seat: 0, count: 1 },
    ],
    turn: 0,
    deadline: null,
    hand: ["3-3", "4-4", "5-2", "5-3", "5-5", "6-2", "1-0"],
    legal: [{ tile: "5-3", total: 3 }],
  };
  assert.deepEqual(state.receive(structuredClone(moved)), []);
  const game = state.doc.game;
  // Each tile turned with the half that matched its end inside; the east end now 0.
  assert.deepEqual(game.layout.line, [[5, 6], [6, 1], [1, 3], [3, 4], [4, 6], [6, 0]]);
  assert.deepEqual(game.ends, { west: 5, east: 0, north: null, south: null });
  assert.equal(game.total, 5);
  assert.deepEqual(game.scores, [10, 10]);
  assert.deepEqual(game.hand_counts, [7, 6]);
  assert.equal(game.boneyard, 9);
  assert.deepEqual(game.hand, moved.hand);
  assert.deepEqual(game.legal, moved.legal);
  assert.deepEqual(game.history.slice(-3), moved.events);
  assert.equal(state.seq, 10);
  assert.deepEqual(texts(state).slice(-3), [
    "Ann played 6-4 east: total 11",
    "Bot 2 played 6-0 east: total 5, scores 5",
    "Ann drew 1 tile",
  ]);
  // A play at an end that is not open does not fit: a resync, and the document stays.
  const held = structuredClone(state.doc);
  const wrong = { type: "moved", seq: 11, events: [{ type: "played", seat: 1, tile: "0-1", end: "north", total: 6, points: 0 }], turn: 0, deadline: null };
  assert.deepEqual(state.receive(wrong), [{ type: "resync" }]);
  assert.deepEqual(state.doc, held);
  assert.equal(state.seq, 10);
});
