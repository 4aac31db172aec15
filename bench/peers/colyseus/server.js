// A Colyseus 0.16 server for bench/peer_colyseus.py: rooms of 4 playing a small All Fives.
//
// The room has the shape of an allfives room at full speed: a move changes a little of a schema
// state (the mover's hand loses a tile, the line, its ends, the total, the scores, whose turn
// and its legal moves, the hand's history), and the change is patched to the room's 4 clients
// at once with `broadcastPatch()` (no patch timer). Each seat's hand and legal moves are `view`
// fields, which `StateView` sends to their owner alone, as allfives keeps a hand hidden.
//
// The rules are All Fives' on a line without the spinner: 28 tiles dealt 7 to each of 4 seats,
// a tile goes on an end showing one of its numbers (a double counts both halves while it is an
// end), a play whose ends total a multiple of 5 scores it for the mover's team, a seat that
// cannot play passes. A hand ends when a seat is out of tiles or all four pass, and the next is
// dealt in the same move; a match ends at 150 and the next starts from 0.
//
// `node server.js lean` runs a leaner room: each legal move a string ("5-3/east", "/" to pass)
// rather than a schema of its own with its total and points, and no history.
//
// Usage: node server.js [full|lean]   (prints "colyseus on ws://127.0.0.1:PORT" once it listens)

"use strict";

const { Server, Room } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");
const { schema, StateView } = require("@colyseus/schema");

const TARGET = 150;
const LEAN = process.argv[2] === "lean";

// -- the state patched to the clients ----------------------------------------------------------

// A legal move of the seat to play: a tile and its end ("" to lead), or a pass (tile "").
const Move = schema({ tile: "string", end: "string", total: "uint8", points: "uint8" });

// One thing that happened in the hand (a play or a pass), as allfives' history holds them.
const Event = schema({ seat: "uint8", tile: "string", end: "string", total: "uint8", points: "uint8" });

// A seat: how many tiles it holds (public), and the tiles and the legal moves (its owner's only).
const Seat = schema({
  count: "uint8",
  hand: { array: "string", view: true },
  legal: { array: LEAN ? "string" : Move, view: true },
});

const State = schema({
  handNumber: "uint16",
  turn: "int8", // -1 until the first deal
  moves: "uint32", // every move made: what a client waits on to know it has seen a move
  seats: [Seat],
  line: ["string"], // the tiles on the table, west to east, as "a-b" with a on the west
  west: "int8",
  east: "int8",
  total: "uint8",
  scores: ["int16"], // per team: seats 0 and 2, seats 1 and 3
  history: [Event],
});

// -- the rules -----------------------------------------------------------------------------------

const TILES = [];
for (let high = 0; high <= 6; high++) for (let low = 0; low <= high; low++) TILES.push(`${high}-${low}`);

const pips = (tile) => tile.split("-").map(Number);

function shuffled(items) {
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

// What an end counts toward the total: a double counts both halves.
const endValue = (pip, double) => (double ? 2 * pip : pip);

class FivesRoom extends Room {
  maxClients = 4;

  onCreate() {
    this.state = new State({ handNumber: 0, turn: -1, moves: 0, west: -1, east: -1, total: 0 });
    this.state.scores.push(0, 0);
    for (let seat = 0; seat < 4; seat++) this.state.seats.push(new Seat({ count: 0 }));
    this.patchRate = null; // no patch timer: each move sends its patch itself
    this.doubles = { west: false, east: false }; // whether each end is a double (not patched)
    this.passes = 0; // passes in a row
    this.legal = []; // the legal moves of the seat to play, as Move schemas (not patched as such)
    this.onMessage("start", () => this.state.turn < 0 && this.clients.length === 4 && this.deal(0));
    this.onMessage("play", (client, move) => this.play(client.userData.seat, move));
  }

  onJoin(client) {
    const seat = this.clients.length - 1; // clients join one after another: seats 0 to 3
    client.userData = { seat };
    client.view = new StateView();
    client.view.add(this.state.seats[seat]);
  }

  deal(leader) {
    const state = this.state;
    const tiles = shuffled(TILES);
    state.seats.forEach((seat, index) => {
      seat.hand.clear(); // changed in place: the arrays stay the ones each seat's view holds
      seat.hand.push(...tiles.slice(7 * index, 7 * index + 7));
      seat.count = 7;
      seat.legal.clear();
    });
    state.handNumber += 1;
    state.line.clear();
    state.history.clear();
    state.west = state.east = -1;
    state.total = 0;
    this.passes = 0;
    this.setTurn(leader);
    this.broadcastPatch();
  }

  // Hand the turn to `seat` with its legal moves.
  setTurn(seat) {
    const state = this.state;
    if (state.turn >= 0) state.seats[state.turn].legal.clear();
    state.turn = seat;
    const moves = (this.legal = this.legalMoves(state.seats[seat].hand));
    if (LEAN) return state.seats[seat].legal.push(...moves.map((move) => `${move.tile}/${move.end}`));
    state.seats[seat].legal.push(...moves);
    // A schema pushed into a view field is seen only by the views it is added to: the owner's.
    const view = this.clients.find((client) => client.userData.seat === seat).view;
    for (const move of moves) view.add(move);
  }

  legalMoves(hand) {
    const { west, east, line } = this.state;
    if (line.length === 0) return hand.map((tile) => this.placed(tile, ""));
    const moves = [];
    for (const tile of hand) {
      const [a, b] = pips(tile);
      if (a === west || b === west) moves.push(this.placed(tile, "west"));
      if ((a === east || b === east) && west !== east) moves.push(this.placed(tile, "east"));
    }
    return moves.length ? moves : [new Move({ tile: "", end: "", total: this.state.total, points: 0 })];
  }

  // The move that puts `tile` on `end`, with the total it makes and what it scores.
  placed(tile, end) {
    const [west, westDouble, east, eastDouble] = this.ends(tile, end);
    const [a, b] = pips(tile);
    const total = end === "" ? a + b : endValue(west, westDouble) + endValue(east, eastDouble);
    return new Move({ tile, end, total, points: total % 5 === 0 ? total : 0 });
  }

  // The ends after `tile` goes on `end`: [west, west is a double, east, east is a double].
  ends(tile, end) {
    const [a, b] = pips(tile);
    const { west, east } = this.state;
    if (end === "") return [a, a === b, b, a === b]; // a double led is an end both ways
    const open = end === "west" ? west : east;
    const other = a === open ? b : a;
    return end === "west" ? [other, a === b, east, this.doubles.east] : [west, this.doubles.west, other, a === b];
  }

  play(seat, move) {
    const state = this.state;
    if (seat !== state.turn) return; // not this seat's turn: nothing changes
    const mover = state.seats[seat];
    const chosen = this.legal.find((m) => m.tile === (move.tile || "") && m.end === (move.end || ""));
    if (!chosen) return; // not a legal move: nothing changes
    state.moves += 1;
    if (!LEAN) state.history.push(new Event({ seat, tile: chosen.tile, end: chosen.end, total: chosen.total, points: chosen.points }));
    if (chosen.tile === "") {
      this.passes += 1;
    } else {
      this.passes = 0;
      const [west, westDouble, east, eastDouble] = this.ends(chosen.tile, chosen.end);
      const [a, b] = pips(chosen.tile);
      if (chosen.end === "east") state.line.push(a === state.east ? chosen.tile : `${b}-${a}`);
      else if (chosen.end === "west") state.line.unshift(b === state.west ? chosen.tile : `${b}-${a}`);
      else state.line.push(chosen.tile);
      Object.assign(state, { west, east, total: chosen.total });
      this.doubles = { west: westDouble, east: eastDouble };
      mover.hand.splice(mover.hand.indexOf(chosen.tile), 1);
      mover.count = mover.hand.length;
      state.scores[seat % 2] += chosen.points;
    }
    if (mover.hand.length === 0 || this.passes === 4) {
      if (mover.hand.length === 0) state.scores[seat % 2] += this.handPoints(seat);
      if (state.scores[0] >= TARGET || state.scores[1] >= TARGET) state.scores[0] = state.scores[1] = 0;
      this.deal(state.handNumber % 4); // the next hand (or match), in the same patch
      return;
    }
    this.setTurn((seat + 1) % 4);
    this.broadcastPatch();
  }

  // A domino: the other team's pips, rounded to the nearest 5.
  handPoints(seat) {
    let sum = 0;
    this.state.seats.forEach((other, index) => {
      if (index % 2 !== seat % 2) for (const tile of other.hand) sum += pips(tile)[0] + pips(tile)[1];
    });
    return 5 * Math.round(sum / 5);
  }
}

// -- the server ----------------------------------------------------------------------------------

async function main() {
  const transport = new WebSocketTransport(); // Colyseus' defaults: no compression, pings each 3 s
  const server = new Server({ transport, greet: false });
  server.define("fives", FivesRoom);
  await server.listen(0, "127.0.0.1");
  console.log(`colyseus on ws://127.0.0.1:${transport.server.address().port}`);
  process.on("SIGTERM", () => process.exit(0));
}

main();
