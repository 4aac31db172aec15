// The ladder page: every format's ladder (GET /api/ladder), best first, the bot levels among
// the players; each name leads to the player's page.

import { h, fill } from "./text.js";
import { apiGet, apiProblem, paths } from "./api.js";
import { t, decimal } from "./i18n.js";

/** A ladder's name ("2p", "3p", "teams") in the player's words. */
export function ladderName(ladder) {
  return ["2p", "3p", "teams"].includes(ladder) ? t(`ladder.name.${ladder}`) : String(ladder);
}

/** A player's name as a link to their page. */
export function playerLink(name) {
  return h("a", { href: `#/player/${encodeURIComponent(name)}`, class: "player-link" }, botName(name));
}

/** "bot:hard" as people read it: "hard bot". */
export function botName(name) {
  const match = /^bot:(easy|normal|hard)$/.exec(String(name));
  return match ? t(`bot.${match[1]}`) : String(name);
}

export function rating(value, provisional = false) {
  // A provisional rating is marked "?", as chess servers do (explained under the ladder).
  return Number.isFinite(value) ? `${decimal(value)}${provisional ? "?" : ""}` : "?";
}

export async function showLadder(root) {
  fill(root, h("section", { class: "card", id: "ladder" }, h("h2", {}, t("ladder.title")), h("p", { class: "muted" }, t("app.loading"))));
  const answer = await apiGet(paths.ladder());
  if (!answer.ok || !Array.isArray(answer.body?.ladders)) {
    fill(root, h("section", { class: "card", id: "ladder" }, h("h2", {}, t("ladder.title")), h("p", { role: "alert" }, apiProblem(answer, "ladder"))));
    return;
  }
  const tables = answer.body.ladders.map((ladder) => h("section", { class: "ladder", "data-ladder": ladder.ladder },
    h("h3", {}, ladderName(ladder.ladder)),
    (ladder.entries ?? []).length
      ? h("table", { class: "scoreboard" },
        h("thead", {}, h("tr", {}, ["#", t("ladder.player"), t("ladder.rating"), t("ladder.games"), t("ladder.wins")].map((head) => h("th", { scope: "col" }, head)))),
        h("tbody", {}, (ladder.entries ?? []).map((entry, index) => h("tr", { class: entry.bot ? "bot-row" : "", "data-name": entry.name },
          h("td", {}, String(index + 1)), h("td", {}, playerLink(entry.name)), h("td", {}, rating(entry.rating?.rating, entry.provisional === true)),
          h("td", {}, String(entry.games ?? 0)), h("td", {}, String(entry.wins ?? 0))))))
      : h("p", { class: "muted" }, t("ladder.nobody")),
    ladder.total > (ladder.entries ?? []).length ? h("p", { class: "muted" }, t("ladder.total", { count: ladder.total })) : null));
  fill(root, h("section", { class: "card", id: "ladder" },
    h("h2", {}, t("ladder.title")),
    h("p", { class: "muted" }, t("ladder.about")),
    tables,
    h("p", { class: "muted", id: "ladder-provisional" }, t("ladder.provisional"))));
}
