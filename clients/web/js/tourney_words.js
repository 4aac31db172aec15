// A tournament in words (protocol/README.md, "Tournaments"): its format, its entrants and units
// by name, a line that sums it up, and the create_tournament message a form asks for. Pure: no
// DOM. Everything here comes from the server and is shown only as text.

import { t, plural } from "./i18n.js";

export const FORMATS = ["round_robin", "swiss", "elimination"];
export const LEVELS = ["easy", "normal", "hard"];
/** The most bots of one level the form adds (the server takes 64 entrants in all). */
export const MOST_BOTS = 16;

/** A tournament's handle (`CODE` or `CODE-INVITE`) as typed or linked, upper case, or null. */
export function tournamentHandle(text) {
  const match = /^([A-Za-z]{5})(?:-([A-Za-z0-9]{1,18}))?$/.exec(String(text ?? "").trim());
  if (!match) return null;
  return match[2] ? `${match[1]}-${match[2]}`.toUpperCase() : match[1].toUpperCase();
}

/** Its code alone: the letters before any invite. */
export function codeOf(handle) {
  return String(handle ?? "").split("-", 1)[0].toUpperCase();
}

/** The format in words ("Round robin"). */
export function formatName(format) {
  return FORMATS.includes(format) ? t(`tourney.format.${format}`) : String(format);
}

/** An entrant's name, as the server sent it: a bot entrant's too ("bot:normal 2"), the one name
 *  its table's seat and its games' records carry (docs/tournaments.md). */
export function entrantName(entrant) {
  if (!entrant) return "?";
  return String(entrant.name);
}

/** The units of a tournament: set at the start (before it, fixed partners' teams as they
 *  stand); with none, each entrant is one. */
export function unitsOf(state) {
  const units = Array.isArray(state?.units) ? state.units : [];
  if (units.length) return units;
  return (state?.entrants ?? []).map((entrant, index) => [index]);
}

/** A unit by its entrants' names ("Ann & Bea" for fixed partners). */
export function unitName(state, unit) {
  const members = unitsOf(state)[unit];
  if (!Array.isArray(members)) return "?";
  return members.map((entrant) => entrantName(state.entrants?.[entrant])).join(" & ");
}

/** The unit an entrant plays in, or null. */
export function unitOfEntrant(state, entrant) {
  const found = unitsOf(state).findIndex((members) => members.includes(entrant));
  return found < 0 ? null : found;
}

/** The rules of its tables in a few words: "tables of 4 in teams · fixed partners · to 150"
 *  (a rules object leaves out its defaults: teams are the default at four). */
export function tablesLine(state) {
  const rules = state?.rules ?? {};
  const parts = [plural(rules.players === 4 && rules.teams !== false ? "tourney.tables_teams" : "tourney.tables_of", rules.players ?? 2)];
  if (state?.partners === "fixed" || state?.partners === "rotating") parts.push(t(`tourney.partners.${state.partners}`));
  if (Number.isSafeInteger(rules.target)) parts.push(t("tourney.to_target", { target: rules.target }));
  if (Number.isSafeInteger(state?.turn_seconds)) parts.push(plural("tourney.clock", state.turn_seconds));
  return parts.join(" · ");
}

/** Where it stands: open, playing (round N of M), finished. */
export function phaseLine(state) {
  if (state?.phase === "open") return t("tourney.phase.open");
  if (state?.phase === "finished") return t("tourney.phase.finished");
  const begun = Array.isArray(state?.rounds) ? state.rounds.length : Number(state?.rounds_begun) || 0;
  const planned = Number(state?.rounds_planned) || 0;
  return planned ? t("tourney.phase.round_of", { round: begun, rounds: planned }) : t("tourney.phase.playing");
}

/** One line of the lobby's list: name aside, what it is and where it stands. */
export function listedLine(listed) {
  return [
    formatName(listed.format),
    tablesLine(listed),
    plural("tourney.entrants_count", Number(listed.entrants) || 0),
    t("tourney.hosted_by", { host: listed.host }),
    phaseLine(listed),
  ].join(" · ");
}

/**
 * The create_tournament message a form asks for. `form` holds strings as an HTML form gives
 * them: name, format, players, in_teams ("on" or absent), partners, rounds, target ("" for the
 * default), turn_seconds ("" for none), private ("on" or absent), bots_easy, bots_normal,
 * bots_hard (how many of each level).
 */
export function tournamentRequest(form) {
  const players = Number(form.players) || 2;
  const teams = players === 4 && form.in_teams === "on";
  const rules = {
    players,
    teams: players === 4 ? teams : true,
    target: form.target ? Number(form.target) : null,
    turn_seconds: form.turn_seconds ? Number(form.turn_seconds) : null,
    public: form.private !== "on",
  };
  const format = FORMATS.includes(form.format) ? form.format : "round_robin";
  const message = { type: "create_tournament", name: String(form.name ?? "").trim(), format, rules };
  if (teams) message.partners = form.partners === "rotating" ? "rotating" : "fixed";
  if (format === "swiss") message.rounds = Number(form.rounds) || 3;
  const bots = [];
  for (const level of LEVELS) {
    const count = Math.max(0, Math.min(MOST_BOTS, Math.trunc(Number(form[`bots_${level}`]) || 0)));
    for (let index = 0; index < count; index += 1) bots.push(level);
  }
  message.bots = bots;
  return message;
}
