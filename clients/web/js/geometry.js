// Where each domino of a layout goes, in tile units (a tile is 2 x 1): pure, no DOM.
//
// The spinner (or, before one is down, the lead tile) sits at the origin. The line grows west
// and east from it; the spinner's arms grow north and south. A line arm that would pass
// `halfWidth` units from the middle turns: the east arm down, the west arm up, so a long line
// folds into a shape that fits a narrow screen. A spinner arm that would pass `halfHeight` units
// turns too: north to the east, south to the west. Doubles lie across their run.

const DIRS = {
  west: { dx: -1, dy: 0 },
  east: { dx: 1, dy: 0 },
  north: { dx: 0, dy: -1 },
  south: { dx: 0, dy: 1 },
};

/** The rect of a tile laid from contact point `p` in direction `d`, and the point after it. */
function lay(p, d, double) {
  const along = double ? 1 : 2;
  const across = double ? 2 : 1;
  let rect;
  if (d.dx !== 0) {
    rect = { x: d.dx > 0 ? p.x : p.x - along, y: p.y - across / 2, w: along, h: across };
  } else {
    rect = { x: p.x - across / 2, y: d.dy > 0 ? p.y : p.y - along, w: across, h: along };
  }
  return { rect, next: { x: p.x + d.dx * along, y: p.y + d.dy * along } };
}

/**
 * Lay a run of tiles ([inner, outer] each) from `start` going `dir`; the run turns to `turn`
 * (once) before a tile that would pass `limit` from the middle. Returns the tiles and the open end.
 */
export function chain(tiles, start, dir, limit, turn) {
  let p = { ...start };
  let d = { ...dir };
  let last = null;
  let turned = false;
  const placed = [];
  const step = (double) => {
    const along = double ? 1 : 2;
    if (!turned && turn && last && d.dx !== 0 && Math.abs(p.x + d.dx * along) > limit) {
      const x = p.x - d.dx * 0.5;
      const y = turn.dy > 0 ? last.y + last.h : last.y;
      return { p: { x, y }, d: { ...turn }, turned: true };
    }
    if (!turned && turn && last && d.dy !== 0 && Math.abs(p.y + d.dy * along) > limit) {
      const y = p.y - d.dy * 0.5;
      const x = turn.dx > 0 ? last.x + last.w : last.x;
      return { p: { x, y }, d: { ...turn }, turned: true };
    }
    return { p, d, turned };
  };
  tiles.forEach(([inner, outer], pos) => {
    const double = inner === outer;
    ({ p, d, turned } = step(double));
    const { rect, next } = lay(p, d, double);
    const forward = d.dx > 0 || d.dy > 0;
    placed.push({ ...rect, a: forward ? inner : outer, b: forward ? outer : inner, double, pos });
    p = next;
    last = rect;
  });
  const after = step(false);
  const ghost = lay(after.p, after.d, false).rect;
  return { tiles: placed, end: { x: p.x, y: p.y, dir: d, ghost } };
}

/**
 * Every tile of `layout` with its rect (x, y, w, h), its halves (a: left or top, b: right or
 * bottom), the arm it is on and its place in that arm; the open ends' ghost rects; the box.
 */
export function placeLayout(layout, halfWidth = 8, leadIndex = null, halfHeight = 6) {
  const line = layout?.line ?? [];
  const result = { tiles: [], ends: {}, box: { minX: -1, minY: -1, maxX: 1, maxY: 1 } };
  if (!line.length) return result;
  const spinner = layout.spinner;
  let center = spinner;
  if (center === null || center === undefined) {
    center = leadIndex !== null && leadIndex !== undefined && leadIndex < line.length
      ? leadIndex : Math.floor((line.length - 1) / 2);
  }
  const [ca, cb] = line[center];
  const isSpinner = center === spinner;
  const middle = isSpinner
    ? { x: -0.5, y: -1, w: 1, h: 2 }
    : ca === cb ? { x: -0.5, y: -1, w: 1, h: 2 } : { x: -1, y: -0.5, w: 2, h: 1 };
  result.tiles.push({ ...middle, a: ca, b: cb, double: ca === cb, arm: "center", pos: 0, spinner: isSpinner });
  const limit = Math.max(halfWidth, middle.w / 2 + 2);
  const west = line.slice(0, center).reverse().map(([w, e]) => [e, w]);
  const east = line.slice(center + 1);
  const arms = {
    west: chain(west, { x: middle.x, y: 0 }, DIRS.west, limit, DIRS.north),
    east: chain(east, { x: middle.x + middle.w, y: 0 }, DIRS.east, limit, DIRS.south),
  };
  if (isSpinner) {
    arms.north = chain(layout.north ?? [], { x: 0, y: middle.y }, DIRS.north, halfHeight, DIRS.east);
    arms.south = chain(layout.south ?? [], { x: 0, y: middle.y + middle.h }, DIRS.south, halfHeight, DIRS.west);
  }
  for (const [arm, run] of Object.entries(arms)) {
    for (const tile of run.tiles) result.tiles.push({ ...tile, arm, spinner: false });
    result.ends[arm] = { ...run.end, count: run.tiles.length };
  }
  const rects = [...result.tiles, ...Object.values(result.ends).map((end) => end.ghost)];
  result.box = {
    minX: Math.min(...rects.map((r) => r.x)),
    minY: Math.min(...rects.map((r) => r.y)),
    maxX: Math.max(...rects.map((r) => r.x + r.w)),
    maxY: Math.max(...rects.map((r) => r.y + r.h)),
  };
  return result;
}

/** Which drawn tile a played event put down last: its arm and place (null for none). */
export function lastPlaced(history, placed) {
  const plays = (history ?? []).filter((e) => e.type === "played");
  if (!plays.length) return null;
  const end = plays[plays.length - 1].end;
  if (end === null) return { arm: "center", pos: 0 };
  const run = placed.ends[end];
  if (!run || !run.count) return { arm: "center", pos: 0 };
  return { arm: end, pos: run.count - 1 };
}
