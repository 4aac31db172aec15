// The lobby's tournaments: the public ones page by page (GET /api/tournaments), each a link to
// its page, and a form that makes one (create_tournament), folded until opened.

import { h, fill } from "./text.js";
import { apiGet, apiProblem, paths } from "./api.js";
import { t } from "./i18n.js";
import { pageChecks } from "./validity.js";
import { FORMATS, LEVELS, MOST_BOTS, formatName, listedLine, tournamentRequest } from "./tourney_words.js";

export const PAGE_SIZE = 10;

function field(label, control, hint) {
  return h("label", { class: "field" }, h("span", {}, label), control, hint ? h("small", {}, hint) : null);
}

function check(name, label, checked = false) {
  return h("label", { class: "field check" }, h("input", { type: "checkbox", name, checked }), h("span", {}, label));
}

export class TournamentsCard {
  /** `actions`: create(message, play) makes a tournament (`play`: the host enters it too). */
  constructor(actions) {
    this.actions = actions;
    this.offset = 0;
    this.list = h("div", { id: "tournaments-list", "aria-live": "polite" });
    this.node = h("section", { class: "card", id: "tournaments", "aria-labelledby": "tournaments-title" },
      h("h2", { id: "tournaments-title" }, t("tourney.title")),
      this.list,
      h("button", { type: "button", id: "refresh-tournaments", onclick: () => this.load(this.offset) }, t("lobby.refresh")),
      this.createForm());
    this.loaded = false;
  }

  /** The lobby is shown: fetch the list the first time. */
  shown() {
    if (!this.loaded) this.load(0);
  }

  async load(offset) {
    this.loaded = true;
    this.offset = Math.max(0, offset);
    const answer = await apiGet(paths.tournaments(this.offset, PAGE_SIZE), { asker: false });
    if (!answer.ok || !Array.isArray(answer.body?.tournaments)) {
      fill(this.list, h("p", { role: "alert" }, apiProblem(answer, "tournaments")));
      return;
    }
    const page = answer.body;
    const total = Number(page.total) || 0;
    const shown = page.tournaments.length;
    if (!shown) {
      fill(this.list, h("p", { class: "muted" }, this.offset ? t("tourney.no_more") : t("tourney.none")));
      return;
    }
    const items = page.tournaments.map((listed) => h("li", { "data-tournament": listed.code },
      h("a", { href: `#/tournament/${encodeURIComponent(listed.code)}`, class: "tournament-link" }, String(listed.name)),
      h("span", { class: "muted" }, ` · ${listedLine(listed)}`)));
    fill(this.list,
      h("ul", { class: "rooms tournaments" }, items),
      this.offset > 0 || this.offset + shown < total
        ? h("p", { class: "muted", id: "tournaments-page" },
          `${t("tourney.page_range", { first: this.offset + 1, last: this.offset + shown, total })} `,
          this.offset > 0 ? h("button", { type: "button", onclick: () => this.load(this.offset - PAGE_SIZE) }, t("tourney.previous")) : "",
          this.offset + shown < total ? h("button", { type: "button", id: "more-tournaments", onclick: () => this.load(this.offset + PAGE_SIZE) }, t("lobby.more")) : "")
        : null);
  }

  createForm() {
    const players = h("select", { name: "players" }, ["2", "3", "4"].map((n) => h("option", { value: n }, n)));
    const teams = h("input", { type: "checkbox", name: "in_teams", checked: true });
    const partners = h("select", { name: "partners" },
      h("option", { value: "fixed" }, t("tourney.partners.fixed")), h("option", { value: "rotating" }, t("tourney.partners.rotating")));
    const format = h("select", { name: "format" }, FORMATS.map((f) => h("option", { value: f }, formatName(f))));
    const rounds = h("input", { type: "number", name: "rounds", min: 1, max: 20, value: 3 });
    const partnersField = field(t("tourney.partners_label"), partners, t("tourney.partners_hint"));
    const roundsField = field(t("tourney.rounds_label"), rounds);
    const teamsField = h("label", { class: "field check" }, teams, h("span", {}, t("lobby.teams")));
    const draw = () => {
      const four = players.value === "4";
      teams.disabled = !four;
      teamsField.hidden = !four;
      partnersField.hidden = !(four && teams.checked);
      roundsField.hidden = format.value !== "swiss";
    };
    players.addEventListener("change", draw);
    teams.addEventListener("change", draw);
    format.addEventListener("change", draw);
    const form = pageChecks(h("form", { id: "tournament-form", onsubmit: (event) => {
      event.preventDefault();
      const values = {};
      for (const [key, value] of new FormData(form).entries()) values[key] = String(value);
      this.actions.create(tournamentRequest(values), values.play === "on");
    } }));
    form.append(
      h("div", { class: "grid" },
        field(t("tourney.name_label"), h("input", { name: "name", id: "new-tournament-name", required: true, maxlength: 48, autocomplete: "off" })),
        field(t("tourney.format_label"), format),
        roundsField,
        field(t("tourney.table_size"), players),
        teamsField,
        partnersField,
        field(t("lobby.target"), h("input", { type: "number", name: "target", min: 5, step: 5, placeholder: "250 / 200" }), t("lobby.target_hint")),
        field(t("lobby.turn_clock"), h("input", { type: "number", name: "turn_seconds", min: 5, max: 3600, placeholder: t("lobby.turn_clock_none") })),
        check("private", t("tourney.private")),
        check("play", t("tourney.i_play"), true)),
      h("fieldset", { class: "entrant-bots" },
        h("legend", {}, t("tourney.bots")),
        LEVELS.map((level) => field(t(`bot.${level}`), h("input", { type: "number", name: `bots_${level}`, min: 0, max: MOST_BOTS, value: 0 })))),
      h("button", { type: "submit", class: "primary", id: "create-tournament" }, t("tourney.create")));
    draw();
    return h("details", { class: "tournament-create" }, h("summary", { id: "new-tournament" }, t("tourney.new")), form);
  }
}
