// A tournament's page (#/tournament/CODE, or CODE-INVITE for a private one): what it is, its
// entrants, joining and leaving before the start, the host's start, each round's tables (names,
// the room to watch, the scores once finished and a link to the archived game's review) and
// byes, and the standings with their tie-break columns and the champion, drawn again from every
// `tournament` message. Server data is only ever put in as text.

import { h, fill } from "./text.js";
import { t, plural } from "./i18n.js";
import { MAX_NAME } from "./limits.js";
import { LEVELS, entrantName, formatName, phaseLine, tablesLine, tournamentHandle, unitName, unitOfEntrant, unitsOf } from "./tourney_words.js";

/** The tournament's link to share: this page's origin and the handle. */
export function shareLink(handle) {
  return `${location.origin}/#/tournament/${handle}`;
}

export class TournamentPage {
  /** `actions`: join(name), leave(entrant or null), start(), addBot(level), watch(room),
   *  me() (this device's player name, or null), name() (the
   *  name last used). */
  constructor(root, handle, actions) {
    this.root = root;
    this.handle = handle;
    this.actions = actions;
    this.message = null;
    this.note = h("p", { id: "tournament-note", role: "alert" });
    // Said to a screen reader as it changes: your table is ready, your match is over.
    this.ready = h("p", { id: "tournament-ready", role: "status", "aria-live": "polite" });
    this.body = h("div", { id: "tournament-body" });
    // Kept across updates, so that the keyboard's focus on it stays.
    this.heading = h("h2", { id: "tournament-name", tabindex: "-1" }, t("tourney.page_title", { code: handle.split("-", 1)[0] }));
    this.info = h("div", { id: "tournament-info" }, h("p", { class: "muted", id: "tournament-loading" }, t("app.loading")));
    this.controlsBox = h("div", { id: "tournament-controls" });
    fill(root, h("section", { class: "card", id: "tournament", "aria-labelledby": "tournament-name" },
      this.heading, this.info, this.ready, this.controlsBox, this.note),
    this.body);
  }

  /** No such tournament (or a private one without its invite). */
  missing(text) {
    fill(this.root, h("section", { class: "card", id: "tournament" },
      h("h2", { id: "tournament-name" }, t("tourney.page_title", { code: this.handle.split("-", 1)[0] })),
      h("p", { role: "alert", id: "tournament-missing" }, text)));
  }

  /** Put the keyboard's focus on the tournament's name (back from a table, the page starts
   *  there, not wherever the table had it). */
  focusTop() {
    this.heading.focus();
  }

  /** A refused request, in words (cleared by the next change). */
  refused(text) {
    this.note.textContent = text;
  }

  /** What the live region says (your table, your match over), or "" to clear it. */
  say(text, button = null) {
    fill(this.ready, text, button ? " " : "", button);
  }

  /** Draw the tournament as the `tournament` message `message` tells it. */
  update(message) {
    this.message = message;
    const state = message.state;
    const you = Number.isInteger(message.you) ? message.you : null;
    const host = this.actions.me() !== null && state.host === this.actions.me();
    if (!this.heading.isConnected) return;
    // Drawn again below: the control that had the focus gets it back (or the name, when it went).
    const active = this.root.ownerDocument.activeElement;
    const focused = active && active !== this.heading && this.root.contains(active) ? active.id || "-" : null;
    const shared = shareLink(tournamentHandle(message.tournament) ?? this.handle);
    this.note.textContent = "";
    fill(this.heading, String(state.name));
    fill(this.info,
      h("p", { id: "tournament-about" }, `${formatName(state.format)} · ${tablesLine(state)}`),
      h("p", { id: "tournament-phase" }, [phaseLine(state), t("tourney.hosted_by", { host: state.host }), state.public ? null : t("tourney.private_short")].filter(Boolean).join(" · ")),
      h("p", { class: "share" }, `${t("tourney.share")} `, h("a", { href: shared, id: "tournament-link" }, shared)));
    fill(this.controlsBox, this.controls(state, you, host));
    fill(this.body,
      state.phase === "open" ? null : this.standings(state, you),
      this.rounds(state, you),
      this.entrants(state, you, host));
    if (focused) (this.root.ownerDocument.getElementById(focused) ?? this.heading).focus();
  }

  controls(state, you, host) {
    if (state.phase !== "open") {
      return you === null ? h("p", { class: "muted" }, t("tourney.watching")) : h("p", { id: "tournament-you" }, t("tourney.you_are", { name: entrantName(state.entrants[you]) }));
    }
    const parts = [];
    if (you === null) {
      // One field for the page's life: what is typed stays while other entrants come and go.
      this.nameInput ??= h("input", { id: "tournament-entrant", name: "name", required: true, autocomplete: "nickname", value: this.actions.name() });
      const name = this.nameInput;
      parts.push(h("form", { class: "buttons", id: "tournament-join-form", onsubmit: (event) => {
        event.preventDefault();
        this.actions.join(name.value);
      } },
      h("label", { class: "field" }, h("span", {}, t("lobby.your_name")), name, h("small", {}, t("lobby.name_hint", { most: MAX_NAME }))),
      h("button", { type: "submit", class: "primary", id: "tournament-join" }, t("tourney.join"))));
    } else {
      parts.push(h("p", { id: "tournament-you" }, t("tourney.you_are", { name: entrantName(state.entrants[you]) }), " ",
        h("button", { type: "button", id: "tournament-leave", onclick: () => this.actions.leave(null) }, t("tourney.leave"))));
    }
    if (host) {
      const level = h("select", { id: "tournament-bot-level", "aria-label": t("tourney.bot_level") }, LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, t(`bot.${l}`))));
      parts.push(h("div", { class: "buttons" },
        level,
        h("button", { type: "button", id: "tournament-add-bot", onclick: () => this.actions.addBot(level.value) }, t("tourney.add_bot")),
        h("button", { type: "button", class: "primary", id: "tournament-start", onclick: () => this.actions.start() }, t("tourney.start"))));
    } else {
      parts.push(h("p", { class: "muted" }, t("tourney.waiting_host", { host: state.host })));
    }
    return parts;
  }

  entrants(state, you, host) {
    const open = state.phase === "open";
    const entrants = state.entrants ?? [];
    return h("section", { class: "card", id: "tournament-entrants", "aria-labelledby": "entrants-title" },
      h("h3", { id: "entrants-title" }, plural("tourney.entrants", entrants.length)),
      entrants.length
        ? h("ol", { class: "entrants" }, entrants.map((entrant, index) => h("li", { class: index === you ? "yours" : "" },
          h("span", { class: "entrant-name" }, entrantName(entrant), index === you ? ` ${t("tourney.you_mark")}` : ""),
          open && host ? h("button", { type: "button", class: "take-out", id: `take-out-${index}`, onclick: () => this.actions.leave(index),
            "aria-label": t("tourney.take_out_who", { name: entrantName(entrant) }) }, t("tourney.take_out")) : null)))
        : h("p", { class: "muted" }, t("tourney.no_entrants")),
      this.teamsSoFar(state));
  }

  /** Before the start of fixed partners, the teams as they stand (the server's units: the
   *  1st and 2nd to enter, the 3rd and 4th, ...; docs/tournaments.md). */
  teamsSoFar(state) {
    const units = Array.isArray(state.units) ? state.units : [];
    if (state.phase !== "open" || state.partners !== "fixed" || !units.length) return null;
    const teams = units.map((members, unit) => members.length > 1 ? unitName(state, unit)
      : t("tourney.waits_partner", { name: unitName(state, unit) }));
    return h("p", { id: "tournament-teams" }, t("tourney.teams_so_far", { teams: teams.join("; ") }));
  }

  rounds(state, you) {
    const rounds = state.rounds ?? [];
    if (!rounds.length) return null;
    const mine = you === null ? null : unitOfEntrant(state, you);
    return h("section", { class: "card", id: "tournament-rounds", "aria-labelledby": "rounds-title" },
      h("h3", { id: "rounds-title" }, t("tourney.rounds")),
      rounds.map((round, index) => h("section", { class: "round", "data-round": index + 1 },
        h("h4", {}, t("tourney.round_n", { round: index + 1 })),
        h("ol", { class: "tables" }, (round.tables ?? []).map((table, number) => this.table(state, table, number, you, index + 1))),
        (round.byes ?? []).map((unit) => h("p", { class: unit === mine ? "bye yours" : "bye" }, // i18n: not shown
          t(unit === mine ? "tourney.bye_yours" : unitsOf(state)[unit]?.length > 1 ? "tourney.bye_team" : "tourney.bye", { name: unitName(state, unit) }))))).reverse());
  }

  table(state, table, number, you, round) {
    const seats = table.seats ?? [];
    const scores = Array.isArray(table.scores) ? table.scores : null;
    // Fixed partners are a unit (the server's `units`): named together, with their side's score;
    // otherwise each seat by itself. "normal bot 2: 25": a score apart from a name that may end
    // in a number.
    const named = (entrant) => [entrantName(state.entrants?.[entrant]), entrant === you ? t("tourney.you_mark") : null].filter(Boolean).join(" ");
    const sides = [];
    seats.forEach((entrant, seat) => {
      const unit = unitOfEntrant(state, entrant);
      const side = unit === null ? undefined : sides.find((each) => each.unit === unit);
      if (side) side.names.push(named(entrant));
      else sides.push({ unit, names: [named(entrant)], score: scores ? scores[seat] : null });
    });
    const who = sides.map((side) => {
      const name = side.names.join(" & ");
      return scores ? t("tourney.seat_score", { name, score: side.score }) : name;
    }).join(" – ");
    const yours = you !== null && seats.includes(you);
    const room = typeof table.room === "string" ? table.room : null;
    // A finished table's archived game, when the server names it to this viewer: its review page.
    const game = scores && typeof table.game === "string" ? table.game : null;
    return h("li", { class: yours ? "table-line yours" : "table-line", "data-room": room ?? "" }, // i18n: not shown
      `${t("tourney.table_n", { table: number + 1 })}: ${who}`,
      scores ? ` · ${t("tourney.finished")}` : "",
      // The game's link names its round too: in a list of the page's links each reads apart.
      game ? [" · ", h("a", { href: `#/game/${encodeURIComponent(game)}`, class: "game-link" },
        t("tourney.game_link", { round, table: number + 1 }))] : null,
      room && !scores ? [" · ", h("a", { href: `/r/${encodeURIComponent(room)}`, class: "watch-link", onclick: (event) => {
        event.preventDefault();
        this.actions.watch(room);
      } }, t(yours ? "tourney.your_room" : "tourney.watch_room", { room: room.split("-", 1)[0] }))] : null);
  }

  standings(state, you) {
    const lines = state.standings ?? [];
    const mine = you === null ? null : unitOfEntrant(state, you);
    const champion = Number.isInteger(state.champion) ? state.champion : null;
    // A bracket's standings say who is still in and the round each went out, not tie-breaks.
    const bracket = state.format === "elimination";
    // Each column named in full; on a phone the short word shows instead, the full one still read.
    const who = [t("tourney.col.who"), t("tourney.col_short.who")];
    const played = [t("tourney.col.played"), t("tourney.col_short.played")];
    const byes = [t("tourney.col.byes"), t("tourney.col_short.byes")];
    const heads = bracket
      ? [who, [t("tourney.col.status"), t("tourney.col.status")], played, byes]
      : [who, [t("tourney.col.points"), t("tourney.col_short.points")],
        [t("tourney.col.buchholz"), t("tourney.col_short.buchholz")],
        [t("tourney.col.score"), t("tourney.col_short.score")], played, byes];
    const status = (line) => line.unit === champion ? t("tourney.champion_mark")
      : Number.isInteger(line.out_in_round) ? t("tourney.out_in_round", { round: line.out_in_round }) : t("tourney.still_in");
    return h("section", { class: "card", id: "tournament-standings", "aria-labelledby": "standings-title" },
      h("h3", { id: "standings-title" }, state.phase === "finished" ? t("tourney.final_standings") : t("tourney.standings")),
      champion !== null ? h("p", { id: "tournament-champion", class: "champion" }, t("tourney.champion", { name: champion === mine ? `${unitName(state, champion)} ${t("tourney.you_mark")}` : unitName(state, champion) })) : null,
      // Should a narrow screen still be too narrow, the table scrolls within its own region.
      h("div", { class: "scoreboard-wrap", role: "region", tabindex: "0", "aria-labelledby": "standings-title" }, h("table", { class: "scoreboard standings" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), heads.map(([full, short]) => h("th", { scope: "col", title: full },
          h("span", { class: "col-full" }, full), h("span", { class: "col-short", "aria-hidden": "true" }, short))))),
        h("tbody", {}, lines.map((line, index) => h("tr", { class: line.unit === mine ? "yours" : "", "data-unit": line.unit },
          h("th", { scope: "row" }, String(index + 1)),
          h("td", {}, h("span", { class: "standing-name" }, unitName(state, line.unit)), line.unit === mine ? ` ${t("tourney.you_mark")}` : ""),
          (bracket ? [status(line), line.played, line.byes] : [line.match_points, line.buchholz, line.score, line.played, line.byes])
            .map((value) => h("td", {}, String(value)))))))),
      h("p", { class: "muted" }, t(bracket ? "tourney.bracket_order" : "tourney.tie_breaks")));
  }
}
