// The lobby: your name, a new room with every rule variant and bots in chosen seats, the public
// rooms, joining by code, watching. Built once; `update` refreshes the rooms list.

import { h, fill } from "./text.js";
import { checkName, length, MAX_NAME } from "./limits.js";

export const LEVELS = ["easy", "normal", "hard"];

/**
 * The `rules` object and seating a create form asks for. `form` holds strings as an HTML form
 * gives them: players, teams ("on" or absent), hand_size, target ("" for default), end_scoring,
 * reserve, turn_seconds ("" for none), public, seat, and bot_N ("" for an open seat, or a level).
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
  /** `actions`: create(request), join(code, seat), watch(code), listRooms(), rename(name). */
  constructor(root, actions, { name, code }) {
    this.actions = actions;
    this.root = root;
    // No maxlength: a pasted long name is not cut without a word; the note says what is wrong.
    this.nameInput = h("input", { name: "name", id: "name", required: true, autocomplete: "nickname", value: name, "aria-describedby": "name-note" });
    this.nameNote = h("small", { id: "name-note", class: "field-note", "aria-live": "polite" });
    this.nameInput.addEventListener("input", () => this._noteName());
    this.nameInput.addEventListener("change", () => {
      if (!checkName(this.nameInput.value).problem) actions.rename(this.nameInput.value.trim());
    });
    this.rooms = h("ul", { class: "rooms", id: "rooms", "aria-live": "polite" });
    this.codeInput = h("input", { name: "code", id: "join-code", maxlength: 40, autocapitalize: "characters", placeholder: "KXQP", value: code ?? "" });
    this.seatSelect = select("join_seat", [["", "first free"], ["0", "0"], ["1", "1"], ["2", "2"], ["3", "3"]], "");
    this.createForm = this._createForm();
    const joinForm = h("form", { class: "card", id: "join-form", onsubmit: (event) => {
      event.preventDefault();
      const room = roomCode(this.codeInput.value);
      if (room) actions.join(room, this.seatSelect.value === "" ? null : Number(this.seatSelect.value));
    } },
    h("h2", {}, code ? `Room ${code}` : "Join a room"),
    field("Room code or link", this.codeInput),
    field("Seat", this.seatSelect),
    h("div", { class: "buttons" },
      h("button", { type: "submit", id: "join-button", class: "primary" }, "Sit down"),
      h("button", { type: "button", id: "watch-button", onclick: () => {
        const room = roomCode(this.codeInput.value);
        if (room) actions.watch(room);
      } }, "Watch")));
    const listCard = h("section", { class: "card" },
      h("h2", {}, "Public rooms"),
      this.rooms,
      h("button", { type: "button", id: "refresh-rooms", onclick: () => actions.listRooms() }, "Refresh"));
    const nameCard = h("section", { class: "card" }, field("Your name", this.nameInput, `1 to ${MAX_NAME} characters`), this.nameNote);
    fill(root, h("div", { class: "lobby" }, nameCard, ...(code ? [joinForm, this.createForm] : [this.createForm, joinForm]), listCard));
    this.update([]);
    this._noteName();
  }

  _noteName() {
    const value = this.nameInput.value;
    const { problem } = checkName(value);
    const shown = value.trim() ? problem : null;
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
    listed.addEventListener("change", () => { listedByHand = true; });
    let teamsWanted = true;
    teams.addEventListener("change", () => { teamsWanted = teams.checked; });
    const seat = select("seat", [["0", "0"], ["1", "1"], ["2", "2"], ["3", "3"]], "0");
    const bots = h("fieldset", { class: "bots" }, h("legend", {}, "Other seats"));
    const form = h("form", { class: "card", id: "create-form", onsubmit: (event) => {
      event.preventDefault();
      this.actions.create(createRequest(formValues(form)));
    } });
    const drawBots = () => {
      const count = Number(players.value);
      const keep = Object.fromEntries([...bots.querySelectorAll("select")].map((el) => [el.name, el.value]));
      bots.replaceChildren(h("legend", {}, "Other seats"));
      for (let index = 0; index < count; index += 1) {
        if (String(index) === seat.value) continue;
        const name = `bot_${index}`;
        const choice = select(name, [["", "open for a friend"], ["easy", "easy bot"], ["normal", "normal bot"], ["hard", "hard bot"]], keep[name] ?? "normal");
        choice.addEventListener("change", drawListed);
        bots.append(field(`Seat ${index}`, choice));
      }
      // Teams need four players: with fewer the box is off as well as greyed.
      teams.disabled = count !== 4;
      teams.checked = count === 4 && teamsWanted;
      drawListed();
      [...seat.options].forEach((option) => { option.disabled = Number(option.value) >= count; });
      if (Number(seat.value) >= count) seat.value = "0";
    };
    const drawListed = () => {
      if (listedByHand) return;
      listed.checked = [...bots.querySelectorAll("select")].some((el) => el.value === "");
    };
    players.addEventListener("change", drawBots);
    seat.addEventListener("change", drawBots);
    form.append(
      h("h2", {}, "New room"),
      h("div", { class: "grid" },
        field("Players", players),
        field("Your seat", seat),
        h("label", { class: "field check" }, teams, h("span", {}, "Teams (4 players only: 0+2 against 1+3)")),
        field("Hand size", select("hand_size", [["standard", "standard"], ["five", "five"], ["seven-five", "seven-five"]], "standard"), "tiles each: 9/7/5, 5, or 7/5/5 for 2/3/4 players"),
        field("Target", h("input", { type: "number", name: "target", min: 5, step: 5, placeholder: "250 / 200" }), "a multiple of 5; empty for the default"),
        field("End of hand", select("end_scoring", [["opponents", "opponents"], ["penalty", "penalty"]], "opponents"), "winner counts the others' pips, or each loses their own"),
        field("Boneyard reserve", h("input", { type: "number", name: "reserve", min: 0, max: 7, value: 0 }), "tiles never drawn (0–7)"),
        field("Turn clock (s)", h("input", { type: "number", name: "turn_seconds", min: 5, max: 3600, placeholder: "none" })),
        h("label", { class: "field check" }, listed, h("span", {}, "Listed in public rooms (on when a seat is open for a friend)"))),
      bots,
      h("button", { type: "submit", class: "primary", id: "create-button" }, "Create room"));
    drawBots();
    return form;
  }

  /** Show the public rooms (a `rooms` reply: a page of them from `offset`, of `total`). */
  update(rooms, offset = 0, total = rooms.length) {
    if (!rooms.length && !offset) {
      fill(this.rooms, h("li", { class: "muted" }, "No public room is waiting for players."));
      return;
    }
    const items = rooms.map((room) => h("li", {},
      h("span", { class: "code" }, room.code),
      h("span", {}, ` ${room.rules.players} players · ${room.seats.map((n) => n ?? "free").join(", ")} `),
      h("button", { type: "button", onclick: () => this.actions.join(room.code, null) }, "Join"),
      h("button", { type: "button", onclick: () => this.actions.watch(room.code) }, "Watch")));
    const shown = offset + rooms.length;
    if (offset > 0 || shown < total) {
      items.push(h("li", { class: "muted", id: "rooms-page" },
        `Rooms ${offset + 1}–${shown} of ${total} `,
        offset > 0 ? h("button", { type: "button", onclick: () => this.actions.listRooms(0) }, "First") : "",
        shown < total ? h("button", { type: "button", id: "more-rooms", onclick: () => this.actions.listRooms(shown) }, "More") : ""));
    }
    fill(this.rooms, items);
  }

  name() {
    return this.nameInput.value.trim();
  }
}
