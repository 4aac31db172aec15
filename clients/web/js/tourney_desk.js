// The page's side of a tournament: it follows the one shown (or the one this device plays in,
// again after every reconnect), sends its messages, keeps the latest `tournament` message, and
// moves the player: when their `table` appears it takes them to it (the ordinary join with that
// room), and once that table's match is over, back to the tournament's page (after the finished
// table has stayed in sight a while: `tourney_linger.js`).

import { TournamentPage } from "./tourney_page.js";
import { Linger, LINGER_SECONDS } from "./tourney_linger.js";
import { codeOf, tournamentHandle } from "./tourney_words.js";
import { errorWords, commandWords } from "./describe.js";
import { h } from "./text.js";
import { t } from "./i18n.js";

/** Seconds the page waits, saying so, before it takes the player to a table. */
export const READY_SECONDS = 5;
/** The tournament this device plays in, to follow again after a reload. */
const KEPT_KEY = "allfives.tournament";
export const TOURNAMENT_COMMANDS = ["create_tournament", "join_tournament", "leave_tournament", "start_tournament", "follow_tournament"];

function kept() {
  try {
    return tournamentHandle(localStorage.getItem(KEPT_KEY));
  } catch {
    return null;
  }
}

function keep(handle) {
  try {
    if (handle) localStorage.setItem(KEPT_KEY, handle);
    else localStorage.removeItem(KEPT_KEY);
  } catch {
    // storage off: a reload forgets the tournament, its page's link finds it again
  }
}

/** The table that plays in `room` in the latest round, or null. */
function tableIn(state, room) {
  const round = (state.rounds ?? []).at(-1);
  return (round?.tables ?? []).find((table) => table.room === room) ?? null;
}

export class TournamentDesk {
  /** `app`: send(message) (its id), name() (the name last used), claimName(text) ({name} or
   *  {problem}: checked, kept, said in a fresh hello when new), player() (this device's player
   *  name, or null), room() (the room the page has a seat in, or null), toTable(room) (join it and show
   *  it), backFrom(room, hash) (leave that room and show the hash's page), stayRoot() (where a
   *  finished table's bar back goes), watch(room), show(hash). */
  constructor(app) {
    this.app = app;
    this.handle = kept();
    this.last = null;
    this.page = null;
    this.seated = null;
    this.done = new Set();
    this.pending = new Map();
    this.timer = null;
    this.going = null;
    /** What the page says of the match just over, until the next table. */
    this.over = "";
    /** How long a finished table stays in sight (0: back at once), and its bar while it does. */
    this.lingerSeconds = LINGER_SECONDS;
    this.lingering = null;
  }

  /** Draw the tournament `handle` names into `root`, and follow it. */
  show(root, handle) {
    // Only the very handle last answered is drawn at once: the letters alone, or another
    // invite, are the server's to answer (a private one is not shown by a link without it).
    const same = this.last && tournamentHandle(this.last.tournament) === tournamentHandle(handle);
    this.page = new TournamentPage(root, same ? this.last.tournament : handle, {
      join: (name) => this.join(name),
      leave: (entrant) => this.send({ type: "leave_tournament", tournament: this.handle, ...(entrant === null ? {} : { entrant }) }),
      start: () => this.send({ type: "start_tournament", tournament: this.handle }),
      addBot: (level) => this.send({ type: "join_tournament", tournament: this.handle, bot: level }),
      watch: (room) => this.app.watch(room),
      me: () => this.app.player(),
      name: () => this.app.name(),
    });
    this.handle = same ? this.last.tournament : handle;
    if (same) {
      this.page.update(this.last);
      this.sayNews();
    }
    this.send({ type: "follow_tournament", tournament: this.handle });
  }

  /** The page is left: the tournament this device plays in is followed again, if another was
   *  shown (a connection follows one at a time). */
  close() {
    this.page = null;
    const mine = kept();
    if (mine && codeOf(mine) !== codeOf(this.handle)) {
      this.handle = mine;
      this.send({ type: "follow_tournament", tournament: mine });
    }
  }

  /** A new connection: follow the tournament again (its followers are a connection's). */
  opened() {
    if (this.handle) this.app.send({ type: "follow_tournament", tournament: this.handle });
  }

  send(message) {
    const id = this.app.send(message);
    this.pending.set(id, message.type);
    return id;
  }

  /** Make a tournament (`message`, a create_tournament); with `play`, enter it too. */
  create(message, play) {
    const id = this.send(message);
    this.pending.set(id, play ? "create_and_play" : "create");
  }

  join(raw) {
    const { name, problem } = this.app.claimName(raw);
    if (problem) {
      this.page?.refused(problem);
      return;
    }
    this.send({ type: "join_tournament", tournament: this.handle, name });
  }

  /** A `tournament` message. */
  receive(message) {
    const state = message.state;
    const handle = tournamentHandle(message.tournament);
    if (!state || typeof state !== "object" || !handle) return;
    const asked = this.pending.get(message.id);
    this.pending.delete(message.id);
    const same = this.last && codeOf(this.last.tournament) === codeOf(handle);
    // A follower keeps the highest version it was sent.
    if (same && Number(state.version) < Number(this.last.state.version)) return;
    this.last = message;
    this.handle = handle;
    if (Number.isInteger(message.you) && state.phase !== "finished") keep(handle);
    else if (kept() && codeOf(kept()) === codeOf(handle)) keep(null);
    if (asked === "create" || asked === "create_and_play") {
      if (asked === "create_and_play") this.join(this.app.name());
      this.app.show(`#/tournament/${handle}`);
      return;
    }
    // The page draws only the tournament its link names, as the server answered it.
    if (this.page && tournamentHandle(this.page.handle) === handle) this.page.update(message);
    this.follow(message);
  }

  /** Take the player to their table once it is ready, and back once its match is over. */
  follow(message) {
    const state = message.state;
    const table = typeof message.table === "string" ? message.table : null;
    if (this.seated && (table !== this.seated || tableIn(state, this.seated)?.scores)) {
      const room = this.seated;
      this.seated = null;
      this.done.add(room);
      if (this.app.room() === room) {
        this.over = state.phase === "finished" ? t("tourney.over_all") : t("tourney.match_over");
        if (this.lingerSeconds > 0) {
          this.lingering = new Linger(this.app.stayRoot(), this.lingerSeconds, () => this.back(room));
        } else {
          this.back(room);
        }
      }
    }
    if (!table || this.done.has(table) || state.phase !== "playing") {
      this.cancel();
      this.sayNews();
      return;
    }
    if (this.app.room() === table) {
      this.cancel();
      this.seated = table;
      return;
    }
    if (this.going?.table === table) return;
    this.cancel();
    const round = (state.rounds ?? []).length;
    // A player at another room's match is not taken from it: the page offers the table. At
    // their finished table, the countdown back to the tournament's page comes first.
    const busy = this.app.room() !== null;
    this.going = { table, round, at: busy ? null : Date.now() + READY_SECONDS * 1000 };
    if (!busy) this.timer = setInterval(() => this.tick(), 1000);
    this.sayNews();
  }

  /** From the finished table `room` to the tournament's page (unless the player has left it
   *  already); a table ready meanwhile is counted down to there, as any. */
  back(room) {
    this.lingering?.close();
    this.lingering = null;
    if (this.app.room() !== room) return;
    if (this.going && this.going.at === null) {
      this.going.at = Date.now() + READY_SECONDS * 1000;
      this.timer = setInterval(() => this.tick(), 1000);
    }
    this.app.backFrom(room, `#/tournament/${this.handle}`);
    this.page?.focusTop();
  }

  /** Whether `room` plays a table of the tournament last followed (its seats are kept for its
   *  entrants: nobody else joins it, anyone may watch). */
  playsTable(room) {
    const rounds = this.last?.state?.rounds ?? [];
    return Boolean(room) && rounds.some((round) => (round.tables ?? []).some(
      (table) => typeof table.room === "string" && codeOf(table.room) === codeOf(room)));
  }

  /** The player left the room: a finished table's bar back goes with it. */
  leftTable() {
    this.lingering?.close();
    this.lingering = null;
  }

  tick() {
    if (!this.going || this.going.at === null) return;
    if (Date.now() >= this.going.at) this.go();
    else if (this.countdown) this.countdown.textContent = this.secondsLeft();
  }

  secondsLeft() {
    return String(Math.max(1, Math.ceil((this.going.at - Date.now()) / 1000)));
  }

  /** To the table now. */
  go() {
    const going = this.going;
    this.cancel();
    if (!going) return;
    this.seated = going.table;
    this.over = "";
    this.page?.say("");
    this.app.toTable(going.table);
  }

  cancel() {
    clearInterval(this.timer);
    this.timer = null;
    this.going = null;
  }

  /** What the page's live region says: the match just over, and the table ready (said once;
   *  the seconds left are counted beside it, hidden from screen readers, which would say each). */
  sayNews() {
    if (!this.page) return;
    if (!this.going) {
      this.page.say(this.over);
      return;
    }
    const waits = this.going.at === null;
    const ready = waits ? t("tourney.table_waits", { round: this.going.round })
      : t("tourney.table_ready", { round: this.going.round, seconds: READY_SECONDS });
    this.countdown = waits ? null : h("span", { class: "countdown", "aria-hidden": "true" }, this.secondsLeft());
    this.page.say([this.over, ready].filter(Boolean).join(" "),
      h("button", { type: "button", id: "tournament-go", class: "primary", onclick: () => this.go() }, t("tourney.go_now"), this.countdown ? " " : "", this.countdown));
  }

  /** The server refused the hello's name (`text`: why, and what to do): said on the
   *  tournament's page where the name was typed, when it is shown; whether it was. */
  nameRefused(text) {
    if (!this.page) return false;
    this.page.refused(text);
    return true;
  }

  /** An error that answers a tournament message: said on its page (or by `say`). */
  refused(message, say) {
    const asked = this.pending.get(message.id) ?? message.command;
    this.pending.delete(message.id);
    const reason = errorWords(message);
    if (asked === "follow_tournament" && message.code === "no_such_room") {
      if (this.handle && kept() && codeOf(kept()) === codeOf(this.handle)) keep(null);
      this.page?.missing(t("tourney.no_such"));
      return;
    }
    const text = t("error.refused_command", { command: commandWords(message.command), reason });
    if (this.page) this.page.refused(text);
    else say(text);
  }
}
