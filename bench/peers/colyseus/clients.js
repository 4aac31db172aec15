// The players for bench/peer_colyseus.py: ROOMS rooms of 4 colyseus.js clients at full speed.
//
// Each room moves as soon as all four of its clients have seen the last move (the state's
// `moves` counter in their decoded state): the seat to play picks one of its legal moves (its
// own, sent to it alone by the server's StateView) at random and sends it. A move's delay runs
// from that send to the last of the four seeing it, as bench/load.py measures allfives.
//
// Usage: node clients.js URL ROOMS SECONDS
// Prints "ready" once every room is dealt, plays for SECONDS after a line on standard input,
// then prints one JSON line: moves, patches and their bytes, this process's CPU seconds, delays.

"use strict";

const { Client } = require("colyseus.js");

const [url, rooms, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const stats = { moves: 0, patches: 0, patch_bytes: 0, delays: [] };

// A room's four players and the move they wait on.
class Table {
  constructor() {
    this.players = []; // colyseus.js rooms, seat by seat
    this.seen = [0, 0, 0, 0]; // the `moves` each player's state holds
    this.wanted = -1; // the `moves` waited for, and the wait's resolve
    this.resolve = null;
  }

  async open(client) {
    for (let seat = 0; seat < 4; seat++) {
      // Seats are taken in join order: the first creates the room, the others join it by id.
      const room = seat === 0 ? await client.create("fives") : await client.joinById(this.players[0].roomId);
      this.players.push(room);
      this.count(room); // patch bytes, read off the connection before colyseus.js decodes them
      room.onStateChange((state) => this.saw(seat, state.moves));
    }
    this.players[0].send("start");
    await this.until(() => this.players.every((room) => room.state.turn >= 0));
  }

  count(room) {
    const socket = room.connection.transport.ws; // the `ws` WebSocket colyseus.js reads from
    const decode = socket.onmessage;
    socket.onmessage = (event) => {
      stats.patches += 1;
      stats.patch_bytes += event.data.byteLength;
      decode(event);
    };
  }

  saw(seat, moves) {
    this.seen[seat] = moves;
    if (this.resolve && this.seen.every((seen) => seen >= this.wanted)) this.resolve();
  }

  until(done) {
    // Set-up only: poll until every player's state is dealt.
    return new Promise((resolve) => {
      const check = () => (done() ? resolve() : setTimeout(check, 5));
      check();
    });
  }

  // One move by the seat to play; resolves once all four have seen it.
  move() {
    const state = this.players[0].state;
    const mover = this.players[state.turn];
    const legal = mover.state.seats[state.turn].legal;
    const choice = legal[Math.floor(Math.random() * legal.length)];
    this.wanted = state.moves + 1;
    const started = performance.now();
    const seen = new Promise((resolve) => (this.resolve = resolve));
    // A lean room's legal move is "tile/end" (server.js): the same message goes back.
    const [tile, end] = typeof choice === "string" ? choice.split("/") : [choice.tile, choice.end];
    mover.send("play", { tile, end });
    return seen.then(() => {
      this.resolve = null;
      stats.delays.push((performance.now() - started) / 1000);
      stats.moves += 1;
    });
  }
}

async function main() {
  const client = new Client(url);
  const tables = [];
  for (let first = 0; first < rooms; first += 10) {
    // Ten rooms at a time, as bench/load_clients.py opens its rooms in batches.
    const batch = Array.from({ length: Math.min(10, rooms - first) }, () => new Table());
    await Promise.all(batch.map((table) => table.open(client)));
    tables.push(...batch);
  }
  stats.patches = stats.patch_bytes = 0;
  console.log("ready");
  await new Promise((resolve) => process.stdin.once("data", resolve));

  const cpu = process.cpuUsage();
  const stop = performance.now() + 1000 * seconds;
  await Promise.all(
    tables.map(async (table) => {
      while (performance.now() < stop) await table.move();
    }),
  );
  const used = process.cpuUsage(cpu);
  const result = JSON.stringify({ ...stats, cpu: (used.user + used.system) / 1e6 });
  process.stdout.write(`${result}\n`, () => process.exit(0)); // a pipe is written asynchronously
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
