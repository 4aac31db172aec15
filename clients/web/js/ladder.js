// The ladder page: every format's ladder (GET /api/ladder), best first, the bot levels among
// the players; each name leads to the player's page.

import { h, fill } from "./text.js";
import { apiGet, apiProblem, paths } from "./api.js";

export const LADDER_NAMES = { "2p": "Two players", "3p": "Three players", teams: "Partnerships (four players)" };

/** A player's name as a link to their page. */
export function playerLink(name) {
  return h("a", { href: `#/player/${encodeURIComponent(name)}`, class: "player-link" }, botName(name));
}

/** "bot:hard" as people read it: "hard bot". */
export function botName(name) {
  const match = /^bot:(easy|normal|hard)$/.exec(String(name));
  return match ? `${match[1]} bot` : String(name);
}

export function rating(value) {
  return Number.isFinite(value) ? value.toFixed(1) : "?";
}

export async function showLadder(root) {
  fill(root, h("section", { class: "card", id: "ladder" }, h("h2", {}, "Ladder"), h("p", { class: "muted" }, "Loading…")));
  const answer = await apiGet(paths.ladder());
  if (!answer.ok || !Array.isArray(answer.body?.ladders)) {
    fill(root, h("section", { class: "card", id: "ladder" }, h("h2", {}, "Ladder"), h("p", { role: "alert" }, apiProblem(answer, "ladder"))));
    return;
  }
  const tables = answer.body.ladders.map((ladder) => h("section", { class: "ladder", "data-ladder": ladder.ladder },
    h("h3", {}, LADDER_NAMES[ladder.ladder] ?? String(ladder.ladder)),
    (ladder.entries ?? []).length
      ? h("table", { class: "scoreboard" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "Games", "Wins"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, (ladder.entries ?? []).map((entry, index) => h("tr", { class: entry.bot ? "bot-row" : "", "data-name": entry.name },
          h("td", {}, String(index + 1)), h("td", {}, playerLink(entry.name)), h("td", {}, rating(entry.rating?.rating)),
          h("td", {}, String(entry.games ?? 0)), h("td", {}, String(entry.wins ?? 0))))))
      : h("p", { class: "muted" }, "Nobody rated yet."),
    ladder.total > (ladder.entries ?? []).length ? h("p", { class: "muted" }, `${ladder.total} rated players in all.`) : null));
  fill(root, h("section", { class: "card", id: "ladder" },
    h("h2", {}, "Ladder"),
    h("p", { class: "muted" }, "Ratings move after every finished match (the figure is a cautious estimate: it rises as the server grows sure of you). Each bot level is rated too."),
    tables));
}
