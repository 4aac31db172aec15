// The page's other pure parts: connection.js (the socket's URL), lobby.js (the create form,
// room codes), key.js (keys and link codes), pages.js (routes), geometry.js with render.js's
// tile size (where each tile is drawn), results.js (a hand's result explained) and
// tourney_words.js (a tournament's handle, the create_tournament a form asks for, its words).

import { test } from "node:test";
import assert from "node:assert/strict";
import { module } from "./support.mjs";

const i18n = await module("i18n.js");
const { socketUrl } = await module("connection.js");
const { createRequest, roomCode } = await module("lobby.js");
const { linkCode, newKey, recoveryCode, showCode } = await module("key.js");
const { parseRoute } = await module("pages.js");
const { placeLayout } = await module("geometry.js");
const { halfWidthFor } = await module("render.js");
const { explainHand } = await module("results.js");
const { tournamentHandle, tournamentRequest, tablesLine, entrantName } = await module("tourney_words.js");
const { displayNames } = await module("describe.js");
await i18n.load("en");

test("the socket's URL follows the page", () => {
  assert.equal(socketUrl({ protocol: "http:", host: "h:8765" }), "ws://h:8765/");
  assert.equal(socketUrl({ protocol: "https:", host: "games.example" }), "wss://games.example/");
});

test("the create form asks for every rule variant", () => {
  const form = {
    players: "4", teams: "on", hand_size: "seven-five", target: "150", end_scoring: "penalty",
    reserve: "3", turn_seconds: "30", public: "on", rated: "on", seat: "2",
    bot_0: "hard", bot_1: "", bot_2: "easy", bot_3: "easy",
  };
  assert.deepEqual(createRequest(form), {
    rules: {
      players: 4, teams: true, hand_size: "seven-five", target: 150, end_scoring: "penalty",
      reserve: 3, turn_seconds: 30, public: true, rated: true,
    },
    seat: 2,
    // The host's own seat takes no bot, whatever the form says for it.
    bots: [{ seat: 0, level: "hard" }, { seat: 3, level: "easy" }],
  });
  const plain = createRequest({ players: "2", target: "", turn_seconds: "", reserve: "0" });
  assert.deepEqual(plain.rules, {
    players: 2, teams: true, hand_size: "standard", target: null, end_scoring: "opponents",
    reserve: 0, turn_seconds: null, public: false, rated: false,
  });
  assert.deepEqual(plain.bots, []);
});

test("room codes come from a code or a link", () => {
  const got = ["kxqp", " KXQP ", "http://h:1/r/abcd", "/r/ZZ/", "", "a b!", "/r/kxqp-bcdfghjkmn"].map(roomCode);
  // A private room's link carries its invite: CODE-INVITE.
  assert.deepEqual(got, ["KXQP", "KXQP", "ABCD", "ZZ", null, null, "KXQP-BCDFGHJKMN"]);
});

test("routes and link codes are read strictly", () => {
  assert.deepEqual(parseRoute("#/ladder"), { page: "ladder" });
  assert.deepEqual(parseRoute("#/player/Ann%20B"), { page: "player", name: "Ann B" });
  assert.deepEqual(parseRoute("#/game/abc_DEF-1"), { page: "game", id: "abc_DEF-1" });
  assert.equal(parseRoute("#/game/a.b"), null);
  assert.equal(parseRoute("#/player/%E0%A4%A"), null);
  assert.equal(parseRoute(""), null);
  assert.equal(linkCode("abcd-efgh"), "ABCDEFGH");
  assert.equal(linkCode(" abcd efgh "), "ABCDEFGH");
  assert.equal(linkCode("abc"), null);
  assert.equal(recoveryCode("abcd-efgh-ijkl-mnop-qrst"), "ABCDEFGHIJKLMNOPQRST");
  assert.equal(recoveryCode("abcd-efgh"), null);
  assert.equal(showCode("ABCDEFGH"), "ABCD-EFGH");
});

test("a new key is 32 random bytes, URL-safe", () => {
  const made = newKey();
  assert.match(made, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(newKey(), made);
});

test("each tile is drawn with its matching half toward the middle", () => {
  const layout = { line: [[0, 5], [5, 5], [5, 3]], spinner: 1, north: [[5, 1]], south: [] };
  const drawn = Object.fromEntries(
    placeLayout(layout, 8, null).tiles.map((t) => [`${t.arm} ${t.pos}`, [t.x, t.y, t.w, t.h, t.a, t.b]]),
  );
  assert.deepEqual(drawn, {
    "center 0": [-0.5, -1, 1, 2, 5, 5], // the spinner across the line
    "west 0": [-2.5, -0.5, 2, 1, 0, 5], // 0 outward (left), 5 against the spinner
    "east 0": [0.5, -0.5, 2, 1, 5, 3],
    "north 0": [-0.5, -3, 1, 2, 1, 5], // up the arm: 1 on top, 5 against the spinner
  });
  // A long east arm turns down at the edge: the turned tiles stand upright, inner half on top.
  const line = [[6, 6], [6, 1], [1, 2], [2, 3], [3, 4], [4, 4], [4, 0]];
  const placed = placeLayout({ ...layout, line, spinner: 0, north: [] }, 4, 0);
  const east = placed.tiles.filter((t) => t.arm === "east");
  assert.deepEqual([east[0].x, east[0].w, east[0].h], [0.5, 2, 1]); // 2.5 from the middle
  const turned = east.slice(1); // the next would end 4.5 from the middle: past 4
  assert.ok(turned.every((t) => t.y >= 0.5 && t.x + t.w <= 4));
  assert.deepEqual(turned.map((t) => [t.w, t.h]), [[1, 2], [1, 2], [1, 2], [2, 1], [1, 2]]);
  assert.deepEqual(turned.map((t) => [t.a, t.b]), [[1, 2], [2, 3], [3, 4], [4, 4], [4, 0]]);
  assert.deepEqual(placed.ends.east.dir, { dx: 0, dy: 1 });
});

/** Whether two placed boxes overlap (touching edges do not). */
const overlap = (p, q) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;

test("a long line's tiles and its ends' ghost tiles never overlap, on a phone or a desk", () => {
  // Every double and a long line both ways from the 6-6 spinner (19 tiles), both arms played.
  const line = [[4, 0], [0, 0], [0, 2], [2, 2], [2, 6], [6, 6], [6, 1], [1, 1], [1, 3], [3, 3], [3, 5], [5, 5], [5, 4], [4, 4]];
  const layout = { line, spinner: 5, north: [[6, 3], [3, 2]], south: [[6, 5], [5, 2], [2, 1]] };
  assert.equal(new Set([...line, ...layout.north, ...layout.south].map(([a, b]) => `${Math.max(a, b)}-${Math.min(a, b)}`)).size, 19);
  for (const width of [340, 1000]) {
    const placed = placeLayout(layout, halfWidthFor(width), null);
    const count = layout.line.length + layout.north.length + layout.south.length;
    assert.equal(placed.tiles.length, count);
    const boxes = [...placed.tiles, ...Object.values(placed.ends).map((end) => end.ghost)];
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) assert.ok(!overlap(boxes[i], boxes[j]), `${width}: ${i} and ${j}`);
    }
  }
});

/** A hand's result explained, as the page shows it under the table. */
function explain(result, names, rules = {}) {
  const teams = Boolean(rules.teams) && names.length === 4;
  // Each seat's side as the server sends it (the room's `sides`): partners 0+2 and 1+3.
  const sides = names.map((_, seat) => (teams ? seat % 2 : seat));
  return explainHand(result, { rules: { players: names.length, end_scoring: "opponents", ...rules }, names, teams, sides });
}

// Hands' results as the server sends them (the engine's counts, docs/rules.md's examples).
const domino = (by, points, pips, counts) => ({ type: "hand_ended", kind: "domino", by, points, pips, counts });
const blocked = (points, pips, counts) => ({ type: "hand_ended", kind: "blocked", by: null, points, pips, counts });

test("a domino shows the pips counted and their rounding", () => {
  const shown = explain(domino(0, [10, 0], [0, 12], [{ side: 0, seats: [1], pips: 12, points: 10 }]), ["Ann", "Bot 1"]);
  assert.equal(shown.title, "Ann went out");
  assert.ok(shown.agrees);
  assert.deepEqual(shown.steps, ["Left in the opponent's hand: 12 (Bot 1) pips.", "12 rounds to 10: Ann scores 10."]);
  // Points the counts do not add up to are flagged, not explained away.
  const wrong = explain(domino(0, [15, 0], [0, 12], [{ side: 0, seats: [1], pips: 12, points: 10 }]), ["A", "B"]);
  assert.equal(wrong.agrees, false);
});

/** Each language's word for an opponent, as its partnership line ("the opponents' hands") has it. */
const OPPONENT = { en: "opponent", cs: "soupeř", "sr-Latn": "protivnik", et: "vastas" };

for (const language of i18n.LANGUAGES) {
  test(`a two-player domino says whose tiles were counted, in ${language}`, async () => {
    // "U drugoj ruci" read as "in the second hand" (deal), where a deal is a "runda".
    assert.equal(await i18n.load(language), language);
    try {
      const shown = explain(domino(0, [10, 0], [0, 12], [{ side: 0, seats: [1], pips: 12, points: 10 }]), ["Ann", "Bot 1"]);
      const step = shown.steps[0].toLowerCase();
      assert.ok(step.includes(OPPONENT[language]), step);
      assert.ok(step.includes("12 (bot 1)"), step);
      const teams = explain(domino(0, [15, 0], [0, 4, 0, 9], [{ side: 0, seats: [1, 3], pips: 13, points: 15 }]), ["A", "B", "C", "D"], { teams: true });
      assert.ok(teams.steps[0].toLowerCase().includes(OPPONENT[language]), teams.steps[0]);
    } finally {
      await i18n.load("en");
    }
  });
}

test("a team domino says 53 was counted, and a seat's pips come before its name", () => {
  const result = domino(2, [55, 0], [30, 4, 0, 49], [{ side: 0, seats: [1, 3], pips: 53, points: 55 }]);
  const shown = explain(result, ["Tester", "Bot 1", "Bot 2", "Bot 3"], { teams: true });
  assert.ok(shown.agrees, shown);
  assert.ok(shown.steps[0].includes("4 (Bot 1) + 49 (Bot 3) = 53 pips"), shown.steps[0]);
  assert.ok(shown.steps.includes("53 rounds to 55: Team A scores 55."));
  assert.ok(shown.steps.some((step) => step.includes("Tester's 30 count for nobody")));
  // "Bořek Ž. 5 + Bot 3 2 = 7 pips" would read as "Bot 32": the count comes first.
  const named = explain(domino(0, [5, 0], [0, 5, 4, 2], [{ side: 0, seats: [1, 3], pips: 7, points: 5 }]), ["Ann", "Bořek Ž.", "Cid", "Bot 3"], { teams: true });
  assert.ok(named.steps[0].includes("5 (Bořek Ž.) + 2 (Bot 3) = 7 pips"), named.steps[0]);
  assert.ok(!named.steps.some((step) => step.includes("Bot 3 2")));
});

test("blocked hands and penalties follow the worked examples", () => {
  const halved = [
    { side: 0, seats: [2], pips: 6.5, points: 5, halved: true },
    { side: 1, seats: [2], pips: 6.5, points: 5, halved: true },
  ];
  const three = explain(blocked([5, 5, 0], [3, 3, 13], halved), ["A", "B", "C"]);
  assert.ok(three.agrees && three.steps.includes("6.5 rounds to 5: each scores 5."), three.steps);
  const held = explain(blocked([5, 5, 0], [3, 3, 13], halved), ["A", "Bot 1", "Bot 2"]);
  assert.ok(held.steps.includes("Pips held: 3 (A), 3 (Bot 1), 13 (Bot 2)."), held.steps);
  const teamsBlocked = { ...blocked([20, 0], [4, 9, 7, 9], [{ side: 0, seats: [1, 3], pips: 18, points: 20 }]), side_pips: [11, 18] };
  const teams = explain(teamsBlocked, ["A", "B", "C", "D"], { teams: true });
  assert.ok(teams.agrees && teams.steps.includes("Team A holds 4 (A) + 7 (C) = 11; team B holds 9 (B) + 9 (D) = 18."), teams.steps);
  const counts = [{ side: 0, seats: [0], pips: 0, points: 0 }, { side: 1, seats: [1], pips: 8, points: -10 }];
  const penalty = explain(domino(0, [0, -10], [0, 8], counts), ["A", "B"], { end_scoring: "penalty" });
  assert.ok(penalty.agrees && penalty.steps.includes("B: 8 rounds to 10, loses 10."), penalty.steps);
});

test("a tournament's handle is its five letters, and an invite when private", () => {
  assert.equal(tournamentHandle(" qwrtz "), "QWRTZ");
  assert.equal(tournamentHandle("qwrtz-bcdfghjkmn"), "QWRTZ-BCDFGHJKMN");
  for (const wrong of ["", "QWRT", "QWRTZX", "QW RTZ", "QWRTZ-", "QWRTZ-B<C", "../x", null]) {
    assert.equal(tournamentHandle(wrong), null, String(wrong));
  }
});

test("the tournament form asks for partners only at four in teams, rounds only for Swiss", () => {
  const form = {
    name: "  Pairs ", format: "swiss", players: "4", in_teams: "on", partners: "rotating",
    rounds: "5", target: "150", turn_seconds: "30", private: "on",
    bots_easy: "1", bots_normal: "0", bots_hard: "2",
  };
  assert.deepEqual(tournamentRequest(form), {
    type: "create_tournament", name: "Pairs", format: "swiss",
    rules: { players: 4, teams: true, target: 150, turn_seconds: 30, public: false },
    partners: "rotating", rounds: 5, bots: ["easy", "hard", "hard"],
  });
  const plain = tournamentRequest({ name: "Cup", format: "elimination", players: "4", partners: "fixed", rounds: "5", bots_normal: "99" });
  assert.deepEqual(plain, {
    type: "create_tournament", name: "Cup", format: "elimination",
    rules: { players: 4, teams: false, target: null, turn_seconds: null, public: true },
    // Each level is bounded: the server takes 64 entrants.
    bots: Array(16).fill("normal"),
  });
  assert.equal(tournamentRequest({ name: "x", format: "knockout", players: "3" }).format, "round_robin");
});

test("a tournament's tables and bots in words (a rules object leaves out its defaults)", () => {
  assert.equal(tablesLine({ rules: { players: 4 }, partners: "fixed" }), "tables of 4 in teams · fixed partners");
  assert.equal(tablesLine({ rules: { players: 4, teams: false, target: 50 }, turn_seconds: 1 }), "tables of 4 · to 50 · 1 second a turn");
  // A bot entrant's name is the server's, the one its table's seat and its games carry.
  assert.equal(entrantName({ name: "bot:hard 3", bot: "hard" }), "bot:hard 3");
  assert.equal(entrantName({ name: "bot:hard 1", bot: "hard" }), "bot:hard 1");
});

test("a tournament's bot sits at its table by its entrant's name; an ordinary room's by its seat", () => {
  const bot = (name, level) => ({ name, kind: "bot", level });
  const seats = [{ name: "Ann", kind: "human" }, bot("bot:hard 1", "hard"), bot("bot:hard", "hard"), null];
  assert.deepEqual(displayNames({ seats }), ["Ann", "bot:hard 1", "Bot 3", "(free)"]);
});
