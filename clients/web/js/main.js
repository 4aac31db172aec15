// The page: where it is (/ or /r/CODE), the saved seats, one connection, the lobby or the room.
// What the server's welcome, joined and error replies do to the page is replies.js.

import { Connection, socketUrl } from "./connection.js";
import { RoomState, frameEvents } from "./state.js";
import { tableModel } from "./model.js";
import { Lobby, roomCode } from "./lobby.js";
import { Table } from "./table.js";
import { h, fill } from "./text.js";
import { TurnCue } from "./cue.js";
import { download } from "./report.js";
import { checkName } from "./limits.js";
import { playerKey } from "./key.js";
import { savedSeats, saveSeat, linkedRoom } from "./seats.js";
import { onWelcome, onJoined, onError } from "./replies.js";
import { Pages, parseRoute } from "./pages.js";
import { TournamentDesk } from "./tourney_desk.js";
import { TournamentsCard } from "./tourney_list.js";
import { t, load, pickLanguage, storedLanguage } from "./i18n.js";
import { dressPage } from "./dress.js";

const NAME_KEY = "allfives.name";

class App {
  constructor() {
    this.main = document.getElementById("app");
    this.statusLine = document.getElementById("status");
    this.notice = document.getElementById("notice");
    this.state = new RoomState();
    this.lobby = null;
    this.tournaments = null;
    this.table = null;
    this.watching = null;
    this.pendingBots = [];
    this.name = localStorage.getItem(NAME_KEY) || "";
    this.online = false;
    this.autoStart = false;
    this.cue = new TurnCue();
    this.banner = document.getElementById("banner");
    this.pagesRoot = document.getElementById("pages");
    this.meLink = document.getElementById("me-link");
    this.player = null;
    this.pendingLink = null;
    this.pendingRecovery = null;
    this.nameRefused = false;
    /** A player owns the page's default name: until this device's player chooses a name, it
     *  says hello without one (a guest who watches), so a game's link still opens. */
    this.nameless = false;
    this.recordForReplay = false;
    this.pages = new Pages(this.pagesRoot, {
      player: () => this.player,
      inRoom: () => Boolean(this.table),
      linkCode: () => this.send({ type: "link_code" }),
      link: (code) => this.link(code),
      recoveryCode: () => this.send({ type: "recovery_code" }),
      recover: (code) => this.recover(code),
      askRecord: () => this.askRecord(),
      askGame: (id) => this.send({ type: "record", game: id }),
      askReview: (id) => this.send({ type: "review", game: id }),
      queued: (ask) => this.connection.isQueued(ask),
      tournament: (root, handle) => this.tourney.show(root, handle),
      closeTournament: () => this.tourney.close(),
    });
    this.tourney = new TournamentDesk({
      send: (message) => this.send(message),
      name: () => this.name,
      claimName: (text) => this.claimName(text),
      player: () => this.player,
      room: () => (this.state.doc && this.state.doc.you !== null ? this.state.room : null),
      toTable: (room) => this.toTable(room),
      backFrom: (room, hash) => this.leave(hash),
      stayRoot: () => document.getElementById("main"),
      watch: (room) => this.toTable(room, true),
      show: (hash) => { location.hash = hash; },
    });
    window.addEventListener("hashchange", () => this.route());
    const linked = linkedRoom();
    const saved = linked ? savedSeats()[linked] : null;
    this.resume = saved?.token ? { room: linked, token: saved.token } : null;
    if (this.resume && saved.doc && Number.isInteger(saved.seq)) this.state.restore(linked, saved);
    this.connection = new Connection(socketUrl(location), {
      hello: () => this.helloFields(),
      onMessage: (message) => this.onMessage(message),
      onStatus: (status, text) => this.onStatus(status, text),
      onOpen: (again) => this.onOpen(again),
    });
    if (!this.resume) this.showLobby(linked);
    else if (this.state.doc) this.drawTable();
    else fill(this.main, h("p", { class: "card" }, t("app.resuming", { code: linked })));
    this.connection.start();
    this.route();
  }

  /** Show the page the hash names (#/ladder, #/player/NAME, ...), or the lobby or table. */
  route() {
    const route = parseRoute(location.hash);
    this.pagesRoot.hidden = !route;
    this.main.hidden = Boolean(route);
    if (this.statusLine?.dataset.status) this.showBanner(this.statusLine.dataset.status, this.statusLine.textContent);
    if (route) {
      this.pages.show(route);
      window.scrollTo(0, 0);
    } else {
      this.pages.close();
      document.title = t("app.title");
      if (this.lobby) this.tournaments?.shown();
      this.drawTable();
    }
  }

  /** The room's last finished match, to replay: false when there is none to ask for. */
  askRecord() {
    const doc = this.state.doc;
    if (!doc || !doc.game?.over) return false;
    this.recordForReplay = true;
    this.send({ type: "record" });
    return true;
  }

  /** Join this device to the player who made `code`: a fresh hello carries it. */
  link(code) {
    this.pendingLink = code;
    this.connection.restart();
  }

  /** Give this device's key the name of the player whose recovery code `code` is. */
  recover(code) {
    this.pendingRecovery = code;
    this.connection.restart();
  }

  helloFields() {
    const named = Boolean(this.name) && !checkName(this.name).problem;
    const keyed = named || Boolean(this.pendingLink || this.pendingRecovery);
    // A guest by default: under the page's default name, or none once a player owns it.
    this.defaultGuest = !keyed;
    const fields = keyed || !this.nameless ? { name: named ? this.name : t("app.default_name") } : {};
    // The key claims the hello's name: it goes once the player has chosen one (or links this
    // device, which takes the other device's name); until then the page is a guest.
    if (keyed) fields.key = playerKey();
    if (this.pendingLink) fields.link = this.pendingLink;
    else if (this.pendingRecovery) fields.recover = this.pendingRecovery;
    this.helloName = fields.name ?? null;
    if (this.resume) {
      fields.token = this.resume.token;
      fields.room = this.resume.room;
      const seq = this.state.room === this.resume.room ? this.state.resumeSeq() : null;
      if (seq !== null) fields.last_seq = seq;
    }
    return fields;
  }

  onOpen(again) {
    this.tourney.opened();
    if (again) this.pages.reconnected();
    if (this.resume) return;
    if (this.watching) {
      this.state.clear();
      this.connection.send({ type: "spectate", room: this.watching });
    } else if (!this.table) {
      this.connection.send({ type: "list_rooms" });
    }
    if (again) this.say("");
  }

  onStatus(status, text) {
    this.statusLine.textContent = text;
    this.statusLine.dataset.status = status;
    const wasOnline = this.online;
    this.online = status === "online";
    document.body.classList.toggle("offline", !this.online);
    clearTimeout(this.statusTimer);
    if (status === "online" && text !== t("status.connected")) {
      this.statusTimer = setTimeout(() => { this.statusLine.textContent = t("status.connected"); }, 5000);
    }
    this.showBanner(status, text);
    if (wasOnline !== this.online) this.drawTable();
  }

  /** Across the top while the connection is down: what is happening, and a way to try now. */
  showBanner(status, text) {
    // A refused name is said in the header and the lobby too; over a page (the link page,
    // where a recovery code brings the name back) the banner would cover what fixes it.
    // In the lobby it is said at the name's field, which the banner would cover.
    const refused = status === "refused" && this.pagesRoot.hidden && !this.lobby;
    const down = status === "offline" || status === "closed" || refused
      || (status === "connecting" && text !== t("status.connecting"));
    this.banner.hidden = !down;
    if (!down) return;
    const retry = status === "offline"
      ? h("button", { type: "button", id: "retry-button", onclick: () => this.connection.restart() }, t("banner.try_now"))
      : this.outdated
        ? h("button", { type: "button", id: "reload-button", onclick: () => location.reload() }, t("banner.reload"))
        : null;
    const note = this.table && status !== "refused" ? ` ${t("banner.tiles_wait")}` : "";
    fill(this.banner, h("span", {}, `${text}${note}`), retry);
  }

  say(text, kind = "info") {
    this.notice.textContent = text;
    this.notice.dataset.kind = kind;
  }

  /** Send a message; returns its id. */
  send(message) {
    return this.connection.send(message);
  }

  onMessage(message) {
    const replies = this.state.receive(message);
    for (const reply of replies) this.send(reply);
    switch (message.type) {
      case "welcome":
        onWelcome(this, message);
        break;
      case "link_code":
        if (typeof message.code === "string") this.pages.showLinkCode(message.code, message.expires_in);
        break;
      case "recovery_code":
        if (typeof message.code === "string") this.pages.showRecoveryCode(message.code);
        break;
      case "joined":
        onJoined(this, message);
        break;
      case "rooms":
        this.lobby?.update(
          Array.isArray(message.rooms) ? message.rooms : [],
          Number.isSafeInteger(message.offset) ? message.offset : 0,
          Number.isSafeInteger(message.total) ? message.total : 0);
        break;
      case "tournament":
        this.tourney.receive(message);
        break;
      case "error":
        onError(this, message);
        break;
      case "snapshot":
      case "patch":
      case "moved":
        // What the table's announcer says: the events this patch or move brought (a
        // snapshot's are history, in the log).
        this.heard = frameEvents(message);
        if (this.notice.dataset.kind === "error" && this.heard.some((event) => event?.type === "played")) this.say("");
        this.onDocument();
        this.heard = [];
        break;
      case "hint":
        this.drawTable();
        break;
      case "review":
        this.pages.gameReview(message);
        break;
      case "record":
        if (typeof message.game === "string") {
          this.pages.gameRecord(message);
        } else if (message.record && this.recordForReplay) {
          this.recordForReplay = false;
          const id = typeof this.state.doc?.game_id === "string" ? this.state.doc.game_id : null;
          this.pages.showRecord(message.record, message.positions ?? [], id);
        } else if (message.record) {
          download(message.record, this.state.doc?.code ?? "room");
        }
        break;
      default:
        break;
    }
  }

  onDocument() {
    if (!this.state.doc) return;
    if (this.state.doc.you !== null && this.resume) {
      // Keyed by the room as joined: a private room's CODE-INVITE, the room's link.
      saveSeat(this.resume.room, {
        token: this.resume.token, seat: this.state.doc.you, seq: this.state.seq, doc: this.state.doc, hands: this.state.hands,
        finalLayout: this.state.finalLayout, finalHistory: this.state.finalHistory, finalHand: this.state.finalHand,
      });
    }
    const doc = this.state.doc;
    if (this.autoStart && doc.phase === "waiting" && doc.you === doc.host && doc.seats.every((seat) => seat !== null)) {
      this.autoStart = false;
      this.send({ type: "start" });
    }
    if (this.pendingBots.length && this.state.doc.phase === "waiting") {
      for (const bot of this.pendingBots.splice(0)) this.send({ type: "add_bot", seat: bot.seat, level: bot.level });
    }
    this.drawTable();
  }

  drawTable() {
    if (!this.state.doc || !this.pagesRoot.hidden) return;
    if (!this.table) {
      this.lobby = null;
      this.table = new Table(this.main, {
        play: (tile, end) => this.send(end ? { type: "play", tile, end } : { type: "play", tile }),
        pass: () => this.send({ type: "pass" }),
        hint: () => this.send({ type: "hint" }),
        back: () => this.send({ type: "back" }),
        chat: (text) => this.send({ type: "chat", text }),
        start: () => this.send({ type: "start" }),
        rematch: () => {
          this.autoStart = true; // the same seats play again at once
          this.send({ type: "rematch" });
        },
        record: () => this.send({ type: "record" }),
        sound: (on) => this.cue.setSound(on),
        leave: () => this.leave(),
        addBot: (seat, level) => this.send({ type: "add_bot", seat, level }),
        removeBot: (seat) => this.send({ type: "remove_bot", seat }),
      }, {
        clock: () => ({ left: this.state.secondsLeft(), online: this.online }),
        sound: this.cue.sound,
      });
    }
    const model = tableModel(this.state.doc, {
      finalLayout: this.state.finalLayout, finalHistory: this.state.finalHistory, finalHand: this.state.finalHand, hint: this.state.hint, online: this.online });
    model.handle = this.state.room ?? this.state.doc.code;
    // The room's document says it plays a tournament's table; the tournament followed says so
    // too (a server older than the document's field).
    model.tournamentTable = this.state.doc.tournament_table === true || this.tourney.playsTable(model.handle);
    this.table.update(model, this.state.log, this.state.hintText(), this.state.hands, this.heard ?? []);
    const game = this.state.doc.game;
    this.cue.update(t("app.room_title", { code: this.state.doc.code }), Boolean(model.game?.myTurn),
      game ? `${game.hand_number}:${game.history?.length}` : null);
  }

  /** Leave the room, to the lobby or to the page `hash` names (a tournament's, after its table). */
  leave(hash = "") {
    const room = this.state.room;
    this.tourney.leftTable();
    this.send({ type: "leave" });
    // Mid-match the seat stays yours (a bot plays it): keep its token to come back by the link.
    if (room && this.state.doc?.phase !== "playing") saveSeat(room, null);
    this.resume = null;
    this.watching = null;
    this.autoStart = false;
    this.state.leave();
    history.pushState(null, "", `/${hash}`);
    this.showLobby(null);
    this.send({ type: "list_rooms" });
    if (hash) this.route();
  }

  /** A tournament's table: sit at it (the seat kept for this player), or with `watching`
   *  watch it, leaving the room the page is in. */
  toTable(room, watching = false) {
    if (this.state.doc) {
      if (this.state.room === room) return;
      this.leave();
    }
    history.pushState(null, "", "/");
    this.route();
    if (watching) this.watch(room);
    else this.send({ type: "join", room: roomCode(room), name: this.name });
  }

  showLobby(code) {
    this.table?.destroy();
    this.table = null;
    document.title = t("app.title");
    const tournaments = new TournamentsCard({ create: (message, play) => this.createTournament(message, play) });
    this.tournaments = tournaments;
    this.lobby = new Lobby(this.main, {
      create: (request) => this.create(request),
      join: (room, seat) => this.join(room, seat),
      watch: (room) => this.watch(room),
      listRooms: (offset = 0) => this.send({ type: "list_rooms", offset }),
      rename: (name) => this.rename(name),
    }, { name: this.name, code, extra: [tournaments.node] });
    // The list is fetched once the lobby is seen (a page's link asks the API for its page only).
    if (!parseRoute(location.hash)) tournaments.shown();
  }

  rename(name) {
    const changed = name !== this.name;
    this.name = name;
    try {
      localStorage.setItem(NAME_KEY, name);
    } catch {
      // not kept
    }
    // The server refused the old name: say hello again with the new one.
    if (changed && this.nameRefused) {
      this.nameRefused = false;
      this.say("");
      this.helloName = name; // the hello on its way (a create or join waits for its welcome)
      this.connection.restart();
    }
  }

  checkName() {
    const { text: name, problem } = checkName(this.lobby?.name() ?? this.name);
    if (problem) {
      this.say(problem, "error");
      document.getElementById("name")?.focus();
      return null;
    }
    this.rename(name);
    return name;
  }

  /** A name given on a tournament's page: checked, kept, and said in a fresh hello when new. */
  claimName(text) {
    const { text: name, problem } = checkName(text);
    if (problem) return { problem };
    this.rename(name);
    this.renameIfNeeded(name);
    return { name };
  }

  createTournament(message, play) {
    const name = this.checkName();
    if (!name) return;
    this.renameIfNeeded(name);
    this.tourney.create(message, play);
  }

  create(request) {
    const name = this.checkName();
    if (!name) return;
    this.pendingBots = request.bots;
    this.renameIfNeeded(name);
    this.send({ type: "create_room", rules: request.rules, seat: request.seat });
  }

  join(room, seat) {
    const name = this.checkName();
    if (!name) return;
    this.renameIfNeeded(name); // chat lines carry the hello name
    const message = { type: "join", room: roomCode(room), name };
    if (seat !== null && seat !== undefined) message.seat = seat;
    this.send(message);
  }

  watch(room) {
    this.send({ type: "spectate", room: roomCode(room) });
  }

  /** A new room seats its creator (and chat names everyone) by the hello name: when the player typed another name
   *  since, say hello again on a fresh connection (the create waits for its welcome). */
  renameIfNeeded(name) {
    if (this.helloName !== name) this.connection.restart();
  }
}

await load(pickLanguage(navigator.languages ?? [navigator.language], storedLanguage()));
dressPage();
window.allfives = new App();
