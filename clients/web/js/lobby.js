// The lobby: your name, a new room with every rule variant and bots in chosen seats, the public
// rooms, joining by code, watching. Built once; `update` refreshes the rooms list.

import { h, fill } from "./text.js";
import { checkName, length, MAX_NAME } from "./limits.js";
import { t, plural } from "./i18n.js";
import { pageChecks } from "./validity.js";
import { listedSeatName, seatNumber } from "./describe.js";

export const LEVELS = ["easy", "normal", "hard"];
/** The host's last choice for the other seats (bot_N -> "" for open, or a level). */
const SEATS_CHOSEN_KEY = "allfives.other_seats";

/** The choices the host made last time, or {} (a first room seats normal bots). */
function lastChoices() {
  try {
    const kept = JSON.parse(localStorage.getItem(SEATS_CHOSEN_KEY) ?? "{}");
    if (!kept || typeof kept !== "object") return {};
    return Object.fromEntries(Object.entries(kept).filter(([name, value]) => /^bot_[0-3]$/.test(name) && (value === "" || LEVELS.includes(value))));
  } catch {
    return {};
  }
}

function keepChoices(values) {
  const chosen = Object.fromEntries(Object.entries(values).filter(([name]) => /^bot_[0-3]$/.test(name)));
  try {
    localStorage.setItem(SEATS_CHOSEN_KEY, JSON.stringify({ ...lastChoices(), ...chosen }));
  } catch {
    // storage off: the next room starts from bots again
  }
}

/**
 * The `rules` object and seating a create form asks for. `form` holds strings as an HTML form
 * gives them: players, teams ("on" or absent), hand_size, target ("" for default), end_scoring,
 * reserve, turn_seconds ("" for none), public, rated, seat, and bot_N ("" for an open seat, or a
 * level).
 */
export function createRequest(form) {
  const players = Number(form.players);
  const rules = {
    players,
    teams: players === 4 ? form.teams === "on" : true,
    hand_size: form.hand_size || "standard",
    target: form.target ? Number(form.target) : null,
    end_scoring: form.end_scoring || "opponents",
    reserve: Number(form.reserve || 0),
    turn_seconds: form.turn_seconds ? Number(form.turn_seconds) : null,
    public: form.public === "on",
    rated: form.rated === "on",
  };
  const seat = Math.min(Number(form.seat || 0), players - 1);
  const bots = [];
  for (let index = 0; index < players; index += 1) {
    const level = form[`bot_${index}`];
    if (index !== seat && LEVELS.includes(level)) bots.push({ seat: index, level });
  }
  return { rules, seat, bots };
}

/** A room code as typed, or from a /r/CODE link: upper case letters and digits, or null. */
export function roomCode(text) {
  const match = /(?:\/r\/)?([A-Za-z0-9-]{1,24})\/?\s*$/.exec(String(text ?? "").trim());
  return match ? match[1].toUpperCase() : null;
}

function field(label, control, hint) {
  return h("label", { class: "field" }, h("span", {}, label), control, hint ? h("small", {}, hint) : null);
}

function select(name, options, value) {
  return h("select", { name }, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
}

function formValues(form) {
  const values = {};
  for (const [key, value] of new FormData(form).entries()) values[key] = String(value);
  return values;
}

export class Lobby {
  /** `actions`: create(request), join(code, seat), watch(code), listRooms(), rename(name);
   *  `extra`: more cards, after the rooms (the tournaments). */
  constructor(root, actions, { name, code, extra = [] }) {
    this.actions = actions;
    this.root = root;
    this.refusal = null;
    // No maxlength: a pasted long name is not cut without a word; the note says what is wrong.
    this.nameInput = h("input", { name: "name", id: "name", required: true, autocomplete: "nickname", value: name, "aria-describedby": "name-note" });
    this.nameNote = h("small", { id: "name-note", class: "field-note", "aria-live": "polite" });
    this.nameInput.addEventListener("input", () => {
      this.refusal = null; // a new name: the server's refusal was of the old one
      this._noteName();
    });
    this.nameInput.addEventListener("change", () => {
      if (!checkName(this.nameInput.value).problem) actions.rename(this.nameInput.value.trim());
    });
    this.rooms = h("ul", { class: "rooms", id: "rooms", "aria-live": "polite" });
    this.codeInput = h("input", { name: "code", id: "join-code", maxlength: 40, autocapitalize: "characters", placeholder: "KXQP", value: code ?? "" });
    this.seatSelect = select("join_seat", [["", t("lobby.first_free")], ...[0, 1, 2, 3].map((index) => [String(index), String(seatNumber(index))])], "");
    this.createForm = this._createForm();
    const joinForm = h("form", { class: "card", id: "join-form", onsubmit: (event) => {
      event.preventDefault();
      const room = roomCode(this.codeInput.value);
      if (room) actions.join(room, this.seatSelect.value === "" ? null : Number(this.seatSelect.value));
    } },
    h("h2", {}, code ? t("lobby.room", { code }) : t("lobby.join_title")),
    field(t("lobby.code_label"), this.codeInput),
    field(t("lobby.seat_label"), this.seatSelect),
    h("div", { class: "buttons" },
      h("button", { type: "submit", id: "join-button", class: "primary" }, t("lobby.sit_down")),
      h("button", { type: "button", id: "watch-button", onclick: () => {
        const room = roomCode(this.codeInput.value);
        if (room) actions.watch(room);
      } }, t("lobby.watch"))));
    const listCard = h("section", { class: "card" },
      h("h2", {}, t("lobby.public_rooms")),
      this.rooms,
      h("button", { type: "button", id: "refresh-rooms", onclick: () => actions.listRooms() }, t("lobby.refresh")));
    const nameCard = h("section", { class: "card" }, field(t("lobby.your_name"), this.nameInput, t("lobby.name_hint", { most: MAX_NAME })), this.nameNote);
    fill(root, h("div", { class: "lobby" }, nameCard, ...(code ? [joinForm, this.createForm] : [this.createForm, joinForm]), listCard, ...extra));
    this.update([]);
    this._noteName();
  }

  /** The server refused the name (`text`: why, and what to do): said at the field, until the
   *  name is changed. */
  refuseName(text) {
    this.refusal = text;
    this._noteName();
    this.nameInput.scrollIntoView({ block: "nearest" });
    this.nameInput.focus({ preventScroll: true });
  }

  _noteName() {
    const value = this.nameInput.value;
    const { problem } = checkName(value);
    const shown = (value.trim() ? problem : null) ?? this.refusal ?? null;
    this.nameNote.textContent = shown ?? "";
    this.nameNote.dataset.kind = shown ? "error" : "";
    this.nameInput.setAttribute("aria-invalid", shown ? "true" : "false");
    return length(value.trim());
  }

  _createForm() {
    const players = select("players", [["2", "2"], ["3", "3"], ["4", "4"]], "2");
    const teams = h("input", { type: "checkbox", name: "teams", checked: true });
    const listed = h("input", { type: "checkbox", name: "public", checked: true });
    // Listed by default only while a seat is open for a friend (a room of bots has no one to
    // wait for); once the player ticks or unticks it, their choice stands.
    let listedByHand = false;
    listed.addEventListener("change", () => { listedByHand = true; drawRated(); });
    // Rated by default when the room is listed, or when no seat is open (you and bots: nobody
    // else's games to keep private); a private room for friends is unrated unless ticked, and a
    // rated room that is not listed says that its results show on the public ladder.
    const rated = h("input", { type: "checkbox", name: "rated", id: "rated", checked: true, "aria-describedby": "rated-note" });
    const ratedNote = h("small", { id: "rated-note", class: "field-note", "aria-live": "polite" });
    let ratedByHand = false;
    rated.addEventListener("change", () => { ratedByHand = true; drawRated(); });
    let teamsWanted = true;
    teams.addEventListener("change", () => { teamsWanted = teams.checked; });
    const seat = select("seat", [0, 1, 2, 3].map((index) => [String(index), String(seatNumber(index))]), "0");
    // Seats other than the host's: a first room seats normal bots (a match at once, as the
    // computer players of the game people know); the form says what an open seat is for, and
    // the next room starts from the host's own last choice (a host who shares the link with
    // friends sets "open" once).
    const bots = h("fieldset", { class: "bots", "aria-describedby": "other-seats-note" });
    const botsNote = h("small", { id: "other-seats-note", class: "field-note" }, t("lobby.other_seats_note"));
    const remembered = lastChoices();
    const form = pageChecks(h("form", { class: "card", id: "create-form", onsubmit: (event) => {
      event.preventDefault();
      const values = formValues(form);
      keepChoices(values);
      this.actions.create(createRequest(values));
    } }));
    const drawBots = () => {
      const count = Number(players.value);
      const keep = { ...remembered, ...Object.fromEntries([...bots.querySelectorAll("select")].map((el) => [el.name, el.value])) };
      bots.replaceChildren(h("legend", {}, t("lobby.other_seats")), botsNote);
      for (let index = 0; index < count; index += 1) {
        if (String(index) === seat.value) continue;
        const name = `bot_${index}`;
        const choice = select(name, [["", t("lobby.open_seat")], ["easy", t("bot.easy")], ["normal", t("bot.normal")], ["hard", t("bot.hard")]], keep[name] ?? "normal");
        choice.addEventListener("change", drawListed);
        bots.append(field(t("lobby.seat_n", { seat: seatNumber(index) }), choice));
      }
      // Teams need four players: with fewer the box is off as well as greyed.
      teams.disabled = count !== 4;
      teams.checked = count === 4 && teamsWanted;
      drawListed();
      [...seat.options].forEach((option) => { option.disabled = Number(option.value) >= count; });
      if (Number(seat.value) >= count) seat.value = "0";
    };
    const drawListed = () => {
      if (!listedByHand) listed.checked = [...bots.querySelectorAll("select")].some((el) => el.value === "");
      drawRated();
    };
    const drawRated = () => {
      const open = [...bots.querySelectorAll("select")].some((el) => el.value === "");
      if (!ratedByHand) rated.checked = listed.checked || !open;
      ratedNote.textContent = rated.checked && !listed.checked ? t("lobby.rated_private") : "";
    };
    players.addEventListener("change", drawBots);
    seat.addEventListener("change", drawBots);
    form.append(
      h("h2", {}, t("lobby.new_room")),
      h("div", { class: "grid" },
        field(t("lobby.players"), players),
        field(t("lobby.your_seat"), seat),
        h("label", { class: "field check" }, teams, h("span", {}, t("lobby.teams"))),
        field(t("lobby.hand_size"), select("hand_size", [["standard", t("lobby.hand_standard")], ["five", t("lobby.hand_five")], ["seven-five", t("lobby.hand_seven_five")]], "standard"), t("lobby.hand_size_hint")),
        field(t("lobby.target"), h("input", { type: "number", name: "target", min: 5, step: 5, placeholder: "250 / 200" }), t("lobby.target_hint")),
        field(t("lobby.end_of_hand"), select("end_scoring", [["opponents", t("lobby.end_opponents")], ["penalty", t("lobby.end_penalty")]], "opponents"), t("lobby.end_hint")),
        field(t("lobby.reserve"), h("input", { type: "number", name: "reserve", min: 0, max: 7, value: 0 }), t("lobby.reserve_hint")),
        field(t("lobby.turn_clock"), h("input", { type: "number", name: "turn_seconds", min: 5, max: 3600, placeholder: t("lobby.turn_clock_none") })),
        h("label", { class: "field check" }, listed, h("span", {}, t("lobby.listed"))),
        h("label", { class: "field check" }, rated, h("span", {}, t("lobby.rated")))),
      ratedNote,
      bots,
      h("button", { type: "submit", class: "primary", id: "create-button" }, t("lobby.create")));
    drawBots();
    return form;
  }

  /** Show the public rooms (a `rooms` reply: a page of them from `offset`, of `total`). */
  update(rooms, offset = 0, total = rooms.length) {
    if (!rooms.length && !offset) {
      fill(this.rooms, h("li", { class: "muted" }, t("lobby.no_rooms")));
      return;
    }
    const items = rooms.map((room) => h("li", {},
      h("span", { class: "code" }, room.code),
      h("span", {}, ` ${[plural("lobby.room_players", room.rules.players), ...(room.rules.rated === false ? [t("table.unrated")] : []), room.seats.map((n, index) => listedSeatName(n, index) ?? t("lobby.free")).join(", ")].join(" · ")} `),
      h("button", { type: "button", onclick: () => this.actions.join(room.code, null) }, t("lobby.join")),
      h("button", { type: "button", onclick: () => this.actions.watch(room.code) }, t("lobby.watch"))));
    const shown = offset + rooms.length;
    if (offset > 0 || shown < total) {
      items.push(h("li", { class: "muted", id: "rooms-page" },
        `${t("lobby.rooms_page", { first: offset + 1, last: shown, total })} `,
        offset > 0 ? h("button", { type: "button", onclick: () => this.actions.listRooms(0) }, t("lobby.first_page")) : "",
        shown < total ? h("button", { type: "button", id: "more-rooms", onclick: () => this.actions.listRooms(shown) }, t("lobby.more")) : ""));
    }
    fill(this.rooms, items);
  }

  name() {
    return this.nameInput.value.trim();
  }
}
