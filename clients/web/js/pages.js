// The pages beside the table, reached by hash routes inside the one page: #/ladder,
// #/player/NAME, #/game/ID (a replay of an archived game with its review: the game asked for on
// the connection, `record` with `game`), #/replay (the room's last finished match, from the
// `record` message), #/link (this device joins a player) and #/tournament/CODE (a tournament,
// CODE-INVITE for a private one).

import { h, fill } from "./text.js";
import { apiGet, paths } from "./api.js";
import { showLadder } from "./ladder.js";
import { PlayerPage } from "./player.js";
import { Replay } from "./replay.js";
import { linkCode, recoveryCode } from "./key.js";
import { errorWords } from "./describe.js";
import { around, t } from "./i18n.js";

/** The page a hash names, or null for the table or the lobby. */
export function parseRoute(hash) {
  const text = String(hash ?? "").replace(/^#/, "");
  let match;
  if (text === "/ladder") return { page: "ladder" };
  if (text === "/replay") return { page: "replay" };
  if (text === "/link") return { page: "link" };
  if ((match = /^\/player\/(.{1,200})$/.exec(text))) {
    try {
      return { page: "player", name: decodeURIComponent(match[1]) };
    } catch {
      return null;
    }
  }
  if ((match = /^\/game\/([A-Za-z0-9_-]{1,40})$/.exec(text))) return { page: "game", id: match[1] };
  if ((match = /^\/tournament\/([A-Za-z]{5}(?:-[A-Za-z0-9]{1,18})?)$/.exec(text))) return { page: "tournament", handle: match[1].toUpperCase() };
  return null;
}

export class Pages {
  /** `app`: player() (this device's player name, or null), inRoom(), linkCode(), link(code),
   *  recoveryCode(), recover(code),
   *  askRecord() (the room's last record, answered through `showRecord`),
   *  askGame(id) (an archived game's record, answered through `gameRecord` or `gameRefused`),
   *  askReview(id) (its review, answered through `gameReview` or `reviewRefused`): each
   *  returns the id of the message that asks, which its answer carries,
   *  queued(ask) (whether the message `ask` waits to be sent once the connection is back),
   *  tournament(root, handle) (draw a tournament's page in `root`), closeTournament(). */
  constructor(root, app) {
    this.root = root;
    this.app = app;
    this.replay = null;
    this.player = null;
    this.route = null;
    this.body = h("div", { id: "page-body" });
    /** The archived game asked for and not answered yet: `{ game, ask }` (its id and the id
     *  of the message that asked), or null. */
    this.awaited = null;
    /** The game whose review was asked for and not answered yet (`{ game, ask }`), or null. */
    this.reviewAwaited = null;
    /** The ids of the asks this page made and no answer came for yet: an answer to one no
     *  longer awaited (another game shown since) is dropped, never taken for the new one's. */
    this.asks = new Set();
  }

  nav() {
    const me = this.app.player();
    return h("nav", { class: "page-nav", "aria-label": t("pages.nav") },
      h("a", { href: "#", id: "nav-back" }, this.app.inRoom() ? t("pages.back_table") : t("pages.back_lobby")),
      h("a", { href: "#/ladder", id: "nav-ladder" }, t("app.ladder")),
      me ? h("a", { href: `#/player/${encodeURIComponent(me)}`, id: "nav-me" }, t("app.my_page")) : h("a", { href: "#/link", id: "nav-link" }, t("app.link")));
  }

  close() {
    if (this.route?.page === "tournament") this.app.closeTournament();
    this.replay?.destroy();
    this.replay = null;
    this.player = null;
    this.route = null;
    this.awaited = null;
    this.reviewAwaited = null;
  }

  show(route) {
    this.close();
    this.route = route;
    this.body = h("div", { id: "page-body" });
    fill(this.root, this.nav(), this.body);
    switch (route.page) {
      case "ladder":
        document.title = t("pages.title_ladder");
        showLadder(this.body);
        break;
      case "player":
        document.title = t("pages.title_player", { name: route.name });
        this.player = new PlayerPage(this.body, route.name, { linkCode: () => this.app.linkCode(), recoveryCode: () => this.app.recoveryCode() });
        break;
      case "game":
        document.title = t("pages.title_replay");
        this.showGame(route.id);
        break;
      case "replay":
        document.title = t("pages.title_replay");
        fill(this.body, h("p", { class: "card", id: "replay-loading" }, t("pages.fetching_record")));
        if (!this.app.askRecord()) fill(this.body, h("p", { class: "card", role: "alert" }, t("pages.no_record")));
        break;
      case "tournament":
        document.title = t("pages.title_tournament", { code: route.handle.split("-", 1)[0] });
        this.app.tournament(this.body, route.handle);
        break;
      case "link":
        document.title = t("pages.title_link");
        this.showLink();
        break;
      default:
        break;
    }
  }

  /** An archived game: its record and the table at each of its steps (the server's positions:
   *  nothing is placed here), asked for once on the connection; a game this page may not see
   *  is the server's `error`, said once, and no refused HTTP request in the console. */
  showGame(id) {
    fill(this.body, h("p", { class: "card", id: "replay-loading" }, t("pages.fetching_game")));
    this.awaited = this.ask(id, (game) => this.app.askGame(game));
  }

  /** Ask for `game` with `send` (which returns the id of the message that asks): what is
   *  awaited. */
  ask(game, send) {
    const ask = send(game);
    this.asks.add(ask);
    return { game, ask };
  }

  /** Whether `message` answers an ask of this page's (then forgotten: one answer each), and
   *  the one `awaited` (else it is dropped). */
  answers(message, awaited) {
    if (!this.asks.delete(message.id)) return false;
    return Boolean(awaited) && message.id === awaited.ask;
  }

  /** The connection is back: the game (or its review) asked for before it dropped is asked
   *  for again, unless its ask is still queued (sent now that the connection is back). */
  reconnected() {
    const again = (awaited, send) => (this.app.queued(awaited.ask) ? awaited : this.ask(awaited.game, send));
    if (this.awaited && this.route?.page === "game" && this.route.id === this.awaited.game) {
      this.awaited = again(this.awaited, (game) => this.app.askGame(game));
    }
    if (this.reviewAwaited && this.replay) this.reviewAwaited = again(this.reviewAwaited, (game) => this.app.askReview(game));
  }

  /** The server's `record` of an archived game (`game` its id): shown if it answers the ask
   *  awaited. */
  gameRecord(message) {
    if (!this.answers(message, this.awaited) || this.route?.id !== this.awaited.game) return;
    this.awaited = null;
    if (!message.record || !Array.isArray(message.positions)) {
      this.sayRefused(t("api.no_answer.game"));
      return;
    }
    this.showRecord(message.record, message.positions, message.game);
  }

  /** The server refused `record`: said here when it was the awaited game's; dropped when it
   *  answers an ask of this page's no longer awaited (true either way), else not this page's
   *  to say (false). */
  gameRefused(message) {
    if (!this.asks.has(message.id)) return false;
    if (!this.answers(message, this.awaited) || this.route?.page !== "game") return true;
    this.awaited = null;
    if (message.code === "no_such_game") this.sayRefused(t("api.not_found.game"));
    else if (message.code === "rate_limited") this.sayRefused(t("api.too_many_soon"));
    else this.sayRefused(errorWords(message));
    return true;
  }

  /** The server refused this page's hello (`text` says why): a game awaited is not coming. */
  helloRefused(text) {
    if (!this.awaited || this.route?.page !== "game") return;
    this.awaited = null;
    this.sayRefused(text);
  }

  sayRefused(text) {
    fill(this.body, h("p", { class: "card", role: "alert" }, text));
  }

  /** A record to replay (the room's, or an archived game's) with the server's positions of it;
   *  its review when `id` is known. */
  showRecord(record, positions, id = null) {
    if (!this.route || (this.route.page !== "replay" && this.route.page !== "game")) return;
    this.replay?.destroy();
    this.replay = new Replay(this.body, record, positions, {
      title: t("replay.title"),
      name: id ?? "room",
      review: id ? "loading" : null,
      retry: id ? () => this.loadReview(id) : null,
    });
    if (id) this.loadReview(id);
    else this.findArchived(record);
  }

  /** The room's record has no id: find the archived game among this player's latest (the same
   *  players, hands and scores), for its review and a link that lasts. */
  async findArchived(record) {
    const me = this.app.player();
    const replay = this.replay;
    if (!me || !replay) return;
    const same = (game) => JSON.stringify(game.scores) === JSON.stringify(record.scores)
      && game.hands === (record.hands ?? []).length
      && JSON.stringify((game.players ?? []).map((p) => p.name)) === JSON.stringify(record.names ?? []);
    for (let attempt = 0; attempt < 5 && this.replay === replay; attempt += 1) {
      const answer = await apiGet(paths.games(me, 0, 5));
      const found = (answer.body?.games ?? []).find(same);
      if (found && this.replay === replay) {
        replay.options.retry = () => this.loadReview(found.id);
        replay.options.name = found.id;
        this.loadReview(found.id);
        return;
      }
      await new Promise((done) => { setTimeout(done, 1000); }); // the archive may lag a moment
    }
  }

  /** The hard bot's review of the game `id`, asked for on the connection (`review`). */
  loadReview(id) {
    if (!this.replay) return;
    this.replay.setReview("loading");
    this.reviewAwaited = this.ask(id, (game) => this.app.askReview(game));
  }

  /** The server's `review` of the game `message.game`: shown if it answers the ask awaited. */
  gameReview(message) {
    if (!this.answers(message, this.reviewAwaited) || !this.replay || message.game !== this.reviewAwaited.game) return;
    this.reviewAwaited = null;
    const review = message.review && typeof message.review === "object" ? message.review : null;
    this.replay.setReview(review ?? { error: t("api.no_answer.review") });
  }

  /** The server refused `review`: said in the replay's review when it was the awaited one's;
   *  dropped when it answers an ask of this page's no longer awaited (true either way), else
   *  not this page's to say (false). */
  reviewRefused(message) {
    if (!this.asks.has(message.id)) return false;
    if (!this.answers(message, this.reviewAwaited) || !this.replay) return true;
    this.reviewAwaited = null;
    const wait = Number.isSafeInteger(message.retry_after) && message.retry_after > 0 ? message.retry_after : null;
    if (message.code === "busy") this.replay.setReview({ busy: true, retry: wait });
    else if (message.code === "no_such_game") this.replay.setReview({ error: t("api.not_found.review") });
    else if (message.code === "rate_limited") this.replay.setReview({ error: t("api.too_many_soon") });
    else this.replay.setReview({ error: errorWords(message) });
    return true;
  }

  showLink() {
    const input = h("input", { id: "link-input", autocomplete: "off", "aria-label": t("link.code"), placeholder: "ABCD-EFGH", maxlength: 40 });
    this.linkNote = h("p", { id: "link-note", role: "status" });
    fill(this.body, h("section", { class: "card", id: "link" },
      h("h2", {}, t("link.title")),
      h("p", { class: "muted" }, t("link.about")),
      h("form", { class: "chat-form", onsubmit: (event) => {
        event.preventDefault();
        const code = linkCode(input.value);
        const recovery = code ? null : recoveryCode(input.value);
        if (!code && !recovery) {
          this.linkNote.textContent = t("link.bad_code");
          return;
        }
        this.linkNote.textContent = t("link.linking");
        if (code) this.app.link(code);
        else this.app.recover(recovery);
      } }, input, h("button", { type: "submit", id: "link-submit" }, t("link.submit"))),
      this.linkNote));
  }

  linked(name) {
    if (this.route?.page === "link" && this.linkNote) {
      const [before, after] = around("link.linked", "name");
      fill(this.linkNote, before, h("a", { href: `#/player/${encodeURIComponent(name)}` }, name), after);
      // The code did its work: a recovery code is a secret, not to stay in plain view.
      const input = this.body.ownerDocument.getElementById("link-input");
      if (input) input.value = "";
    }
    this.known(name);
  }

  /** The server said who this device is: the navigation, drawn before the welcome came,
   *  offers the player's page instead of linking. */
  known(name) {
    const offer = this.root.ownerDocument.getElementById("nav-link");
    offer?.replaceWith(h("a", { href: `#/player/${encodeURIComponent(name)}`, id: "nav-me" }, t("app.my_page")));
  }

  linkRefused(text) {
    if (this.route?.page === "link" && this.linkNote) this.linkNote.textContent = text;
    this.player?.showLinkProblem(text);
  }

  showLinkCode(code, seconds) {
    this.player?.showLinkCode(code, seconds);
  }

  showRecoveryCode(code) {
    this.player?.showRecoveryCode(code);
  }

  recoveryRefused(text) {
    this.player?.showRecoveryProblem(text);
  }
}
