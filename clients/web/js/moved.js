// A `moved` frame is a patch told by its events (protocol version 3): the RFC 6902 operations
// it stands for on the document the page holds, the same, in the same order, as Python's
// protocol.patch.moved_ops gives. The page applies them as it applies a `patch` frame's ops.

/** Where each end's tiles go in the layout: the west end's at the line's start, tile turned. */
const END_PATHS = {
  west: "/game/layout/line/0",
  east: "/game/layout/line/-",
  north: "/game/layout/north/-",
  south: "/game/layout/south/-",
};

/** A `moved` frame that does not fit the document held: the page asks for a resync. */
export class MovedError extends Error {
  name = "MovedError"; // i18n: not shown (a class name)
}

function fail(text) {
  throw new MovedError(text);
}

/** `index`, where `list` holds a number at it (a seat's count, a side's score). */
function at(list, index, what) {
  if (!Array.isArray(list) || !Number.isInteger(index) || index < 0 || index >= list.length) fail(`no ${what} ${index}`); // i18n: not shown
  if (typeof list[index] !== "number") fail(`${what} ${index} is not a number`); // i18n: not shown
  return index;
}

/** `value`, where it is a whole number from `least` up (a total, points, a count). */
function whole(value, what, least = 0) {
  if (!Number.isSafeInteger(value) || value < least) fail(`${what} is not a count: ${value}`); // i18n: not shown
  return value;
}

/** The two halves of a tile such as "5-3". */
function halves(tile) {
  const found = typeof tile === "string" ? /^([0-6])-([0-6])$/.exec(tile) : null;
  if (!found) fail(`not a tile: ${tile}`); // i18n: not shown
  return [Number(found[1]), Number(found[2])];
}

/**
 * The RFC 6902 operations a `moved` frame stands for, on the document it follows.
 *
 * Each event in order: a play takes a tile from its seat's count (and from the hand, where the
 * document is that seat's), puts it at its end with the half that matches the end inside (at the
 * west end, before a spinner: the spinner's index grows by one), opens the end at its other
 * half, sets the total and adds its points to the seat's side; a draw adds to the seat's count
 * and takes from the boneyard; every event is a history line. Then the turn, the deadline, and
 * the seat's own `hand` and `legal` where the frame has them. Throws a
 * MovedError where the frame does not fit the document.
 */
export function movedOps(doc, message) {
  const game = doc?.game;
  if (!game || typeof game !== "object" || Array.isArray(game)) fail("a move's frame came with no game"); // i18n: not shown
  if (!Array.isArray(message?.events)) fail("a move's frame with no events"); // i18n: not shown
  const counts = [...game.hand_counts];
  const ends = { ...game.ends };
  const scores = [...game.scores];
  const sides = Array.isArray(doc.sides) && doc.sides.length ? doc.sides : scores.map((_, index) => index);
  const you = doc.you ?? null;
  const held = you !== null && Array.isArray(game.hand) ? [...game.hand] : null;
  let boneyard = game.boneyard;
  let spinner = game.layout?.spinner ?? null;
  const ops = [];
  for (const event of message.events) {
    const seat = at(counts, event?.seat, "hand count of seat"); // i18n: not shown
    if (event.type === "played") {
      if (counts[seat] < 1) fail(`seat ${seat} has no tile to play`); // i18n: not shown
      whole(event.total, "a total"); // i18n: not shown
      whole(event.points ?? 0, "points"); // i18n: not shown
      counts[seat] -= 1;
      ops.push({ op: "replace", path: `/game/hand_counts/${seat}`, value: counts[seat] });
      if (held !== null && seat === you) {
        const index = held.indexOf(event.tile);
        if (index < 0) fail(`${event.tile} is not in this seat's hand`); // i18n: not shown
        ops.push({ op: "remove", path: `/game/hand/${index}` });
        held.splice(index, 1);
      }
      const end = event.end ?? null;
      const openAt = end !== null && Object.hasOwn(END_PATHS, end) ? ends[end] ?? null : null;
      if (openAt === null) fail(`${event.tile} went to an end that is not open: ${end}`); // i18n: not shown
      const [high, low] = halves(event.tile);
      if (openAt !== high && openAt !== low) fail(`${event.tile} does not match the ${end} end's ${openAt}`); // i18n: not shown
      const [inner, outer] = high === openAt ? [high, low] : [low, high];
      ops.push({ op: "add", path: END_PATHS[end], value: end === "west" ? [outer, inner] : [inner, outer] });
      if (end === "west" && spinner !== null) {
        // The line grew before the spinner: its index grows by one.
        spinner += 1;
        ops.push({ op: "replace", path: "/game/layout/spinner", value: spinner });
      }
      ends[end] = outer;
      ops.push({ op: "replace", path: `/game/ends/${end}`, value: outer });
      ops.push({ op: "replace", path: "/game/total", value: event.total });
      if (event.points) {
        const side = at(scores, sides[seat], "score of side"); // i18n: not shown
        scores[side] += event.points;
        ops.push({ op: "replace", path: `/game/scores/${side}`, value: scores[side] });
      }
    } else if (event.type === "drew") {
      if (whole(event.count, "a draw", 1) > boneyard) fail(`${event.count} tiles drawn from a boneyard of ${boneyard}`); // i18n: not shown
      counts[seat] += event.count;
      boneyard -= event.count;
      ops.push({ op: "replace", path: `/game/hand_counts/${seat}`, value: counts[seat] });
      ops.push({ op: "replace", path: "/game/boneyard", value: boneyard });
    } else if (event.type !== "passed") {
      fail(`a move's frame cannot tell ${event.type}`); // i18n: not shown
    }
    ops.push({ op: "add", path: "/game/history/-", value: event });
  }
  ops.push({ op: "replace", path: "/game/turn", value: message.turn ?? null });
  ops.push({ op: "replace", path: "/deadline", value: message.deadline ?? null });
  if (message.hand !== undefined && message.hand !== null) ops.push({ op: "replace", path: "/game/hand", value: message.hand });
  if (message.legal !== undefined && message.legal !== null) ops.push({ op: "replace", path: "/game/legal", value: message.legal });
  return ops;
}
