// A player's page (GET /api/players/NAME): ratings, a rating graph over time drawn in SVG, their
// games page by page (GET /api/players/NAME/games), and on your own page "link another device".

import { h, fill, s } from "./text.js";
import { apiGet, apiProblem, paths } from "./api.js";
import { ladderName, botName, rating } from "./ladder.js";
import { t, plural, decimal, signedDecimal, dateTime, dayOf, timeOf } from "./i18n.js";
import { botSeatName, levelOnly } from "./describe.js";
import { showCode } from "./key.js";

export const PAGE_SIZE = 10;
const COLORS = { "2p": "graph-2p", "3p": "graph-3p", teams: "graph-teams" };

/** The rating history as an SVG graph: one line per ladder, time across, rating up. */
export function ratingGraph(history, width = 600, height = 220) {
  const points = (history ?? []).filter((p) => Number.isFinite(p.at) && Number.isFinite(p.rating));
  const svg = s("svg", { id: "rating-graph", class: "rating-graph", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": points.length ? plural("player.graph", points.length) : t("player.graph_empty") });
  if (!points.length) {
    svg.append(s("text", { x: width / 2, y: height / 2, "text-anchor": "middle", class: "empty" }, t("player.graph_empty")));
    return svg;
  }
  const pad = { left: 44, right: 12, top: 12, bottom: 28 };
  const times = points.map((p) => p.at);
  const ratings = points.map((p) => p.rating);
  let [t0, t1] = [Math.min(...times), Math.max(...times)];
  let [r0, r1] = [Math.min(...ratings), Math.max(...ratings)];
  if (t1 === t0) { t0 -= 1; t1 += 1; }
  if (r1 - r0 < 2) { r0 -= 1; r1 += 1; }
  const x = (t) => pad.left + ((t - t0) / (t1 - t0)) * (width - pad.left - pad.right);
  const y = (r) => height - pad.bottom - ((r - r0) / (r1 - r0)) * (height - pad.top - pad.bottom);
  svg.append(s("line", { class: "axis", x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom }));
  svg.append(s("line", { class: "axis", x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom }));
  for (const r of [r0, (r0 + r1) / 2, r1]) {
    svg.append(s("text", { class: "tick", x: pad.left - 6, y: y(r), "text-anchor": "end", "dominant-baseline": "central" }, decimal(r)));
  }
  // The ticks at both ends: their days, or their times when both fall on one day.
  const sameDay = dayOf(t0) === dayOf(t1);
  const tick = (t) => (sameDay ? timeOf(t) : dayOf(t));
  const day = (t) => dateTime(t);
  svg.append(s("text", { class: "tick", x: pad.left, y: height - 8, "text-anchor": "start" }, tick(t0)));
  svg.append(s("text", { class: "tick", x: width - pad.right, y: height - 8, "text-anchor": "end" }, tick(t1)));
  for (const ladder of ["2p", "3p", "teams"]) {
    const mine = points.filter((p) => p.ladder === ladder);
    if (!mine.length) continue;
    const cls = COLORS[ladder];
    svg.append(s("polyline", { class: `graph-line ${cls}`, "data-ladder": ladder, points: mine.map((p) => `${x(p.at).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ") }));
    for (const p of mine) {
      svg.append(s("circle", { class: `graph-point ${cls}`, cx: x(p.at), cy: y(p.rating), r: 3.5 },
        s("title", {}, t("player.graph_point", { ladder: ladderName(ladder), rating: decimal(p.rating), day: day(p.at) }))));
    }
  }
  return svg;
}

/** Which colour is which ladder, for the ladders the graph draws (none for an empty graph). */
export function graphLegend(history) {
  const drawn = ["2p", "3p", "teams"].filter((ladder) => (history ?? []).some((p) => p.ladder === ladder && Number.isFinite(p.at) && Number.isFinite(p.rating)));
  if (!drawn.length) return null;
  return h("ul", { class: "graph-legend", id: "graph-legend", "aria-label": t("player.graph_legend") },
    drawn.map((ladder) => h("li", { "data-ladder": ladder },
      s("svg", { class: "swatch", viewBox: "0 0 20 10", "aria-hidden": "true" }, s("line", { class: `graph-line ${COLORS[ladder]}`, x1: 0, y1: 5, x2: 20, y2: 5 })),
      ladderName(ladder))));
}

function resultFor(game, name) {
  const player = (game.players ?? []).find((p) => p.name === name);
  if (player === undefined) return "";
  const seat = player.seat;
  const side = player.side ?? seat; // the server's word on the seat's team (a server before `side`: its own)
  if (Array.isArray(game.winner)) return game.winner.includes(seat) ? t("player.result_shared") : t("player.result_lost");
  if (game.winner === null || game.winner === undefined) return t("player.result_none");
  return game.winner === side ? t("player.result_won") : t("player.result_lost");
}

function changeFor(game, name) {
  const change = (game.changes ?? []).find((c) => c.name === name);
  if (!change) return null;
  const delta = change.after.rating - change.before.rating;
  return `${rating(change.after.rating)} (${signedDecimal(delta)})`;
}

/** One game of a list: when, who, the scores, how it went for `name`, a link to its replay. */
export function gameRow(game, name) {
  const when = Number.isFinite(game.finished_at) ? dateTime(game.finished_at) : "";
  // An ordinary room's bot by its seat, its level beside it ("Bot 2 (hard)"); the ladder names
  // levels only. A tournament's bot entrant by its name ("bot:hard 1"), as in the standings.
  const who = (game.players ?? []).map((p) => (p.kind === "bot" && (levelOnly(p.name) || !p.name) ? botSeatName(p.seat, p.level ?? "normal") : p.name)).join(", ");
  const change = changeFor(game, name);
  return h("li", { class: "game-row", "data-game": game.id },
    h("a", { href: `#/game/${encodeURIComponent(game.id)}`, class: "game-link" }, `${when}`),
    ` · ${who} · ${(game.scores ?? []).join(" – ")} · ${resultFor(game, name)}`,
    change ? ` · ${t("player.game_rating", { change })}` : "", game.private ? ` · ${t("player.game_private")}` : "");
}

export class PlayerPage {
  /** `actions`: linkCode() asks the server for a code (the answer comes to `showLinkCode`),
   *  recoveryCode() for a recovery code (to `showRecoveryCode`). */
  constructor(root, name, actions) {
    this.root = root;
    this.name = name;
    this.actions = actions;
    this.offset = 0;
    this.games = h("section", { class: "card", id: "games" });
    this.linkBox = h("div", { id: "link-box" });
    this.recoveryBox = h("div", { id: "recovery-box" });
    fill(root, h("section", { class: "card", id: "player" }, h("h2", {}, botName(name)), h("p", { class: "muted" }, t("app.loading"))));
    this.load();
  }

  async load() {
    const answer = await apiGet(paths.player(this.name));
    if (!answer.ok || !answer.body) {
      fill(this.root, h("section", { class: "card", id: "player" }, h("h2", {}, botName(this.name)), h("p", { role: "alert" }, apiProblem(answer, "player"))));
      return;
    }
    const player = answer.body;
    const ratings = (player.ratings ?? []).map((r) => h("li", { "data-ladder": r.ladder },
      h("b", {}, ladderName(r.ladder)), `: ${rating(r.rating?.rating, r.provisional === true)} · ${plural("player.games_won", r.games, { wins: r.wins })}`));
    const link = player.you
      ? h("section", { class: "link-device" },
        h("h3", {}, t("player.link_title")),
        h("p", { class: "muted" }, t("player.link_about")),
        h("button", { type: "button", id: "link-code-button", onclick: () => this.actions.linkCode() }, t("player.link_button")),
        this.linkBox)
      : null;
    const recovery = player.you
      ? h("section", { class: "link-device", id: "recovery" },
        h("h3", {}, t("player.recover_title")),
        h("p", { class: "muted" }, t("player.recover_about")),
        h("button", { type: "button", id: "recovery-code-button", onclick: () => this.actions.recoveryCode() }, t("player.recover_button")),
        this.recoveryBox)
      : null;
    fill(this.root,
      h("section", { class: "card", id: "player", "data-you": player.you ? "1" : "" },
        h("h2", { id: "player-name" }, botName(player.name)),
        h("p", {}, plural("player.games_won", player.games, { wins: player.wins })),
        ratings.length ? h("ul", { id: "player-ratings" }, ratings) : h("p", { class: "muted" }, t("player.not_rated")),
        (player.ratings ?? []).some((r) => r.provisional === true) ? h("p", { class: "muted", id: "player-provisional" }, t("ladder.provisional")) : null,
        h("div", { class: "graph-wrap" }, ratingGraph(player.history), graphLegend(player.history)),
        link,
        recovery),
      this.games);
    this.loadGames(0);
  }

  async loadGames(offset) {
    this.offset = Math.max(0, offset);
    const answer = await apiGet(paths.games(this.name, this.offset, PAGE_SIZE));
    if (!answer.ok || !Array.isArray(answer.body?.games)) {
      fill(this.games, h("h2", {}, t("player.games")), h("p", { role: "alert" }, apiProblem(answer, "games")));
      return;
    }
    const page = answer.body;
    const total = Number(page.total) || 0;
    const shown = page.games.length;
    fill(this.games,
      h("h2", {}, t("player.games")),
      shown ? h("ol", { id: "games-list", class: "games-list", start: this.offset + 1 }, page.games.map((game) => gameRow(game, page.name ?? this.name)))
        : h("p", { class: "muted" }, t("player.no_games")),
      h("p", { class: "muted", id: "games-range" }, shown ? t("player.range", { first: this.offset + 1, last: this.offset + shown, total }) : ""),
      h("div", { class: "buttons" },
        h("button", { type: "button", id: "games-newer", disabled: this.offset === 0, onclick: () => this.loadGames(this.offset - PAGE_SIZE) }, t("player.newer")),
        h("button", { type: "button", id: "games-older", disabled: this.offset + shown >= total, onclick: () => this.loadGames(this.offset + PAGE_SIZE) }, t("player.older"))));
  }

  showLinkCode(code, seconds) {
    const minutes = Math.round((Number(seconds) || 600) / 60);
    fill(this.linkBox, h("p", {}, t("player.your_code"), " ", h("b", { id: "link-code" }, showCode(code)), " ", plural("player.code_works", minutes)));
  }

  showLinkProblem(text) {
    fill(this.linkBox, h("p", { role: "alert" }, text));
  }

  /** The recovery code, shown this once (the server keeps only its hash). */
  showRecoveryCode(code) {
    fill(this.recoveryBox, h("p", {}, t("player.your_recovery"), " ", h("b", { id: "recovery-code", class: "code" }, code)));
  }

  showRecoveryProblem(text) {
    fill(this.recoveryBox, h("p", { role: "alert" }, text));
  }
}
