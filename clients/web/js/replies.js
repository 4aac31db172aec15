// What the page does with the server's replies that are not the room's document: the welcome
// (who this device's key plays as), joined (the seat token kept, the room's link shown) and a
// refused command (said where it is fixed: the name's field, the link page, the notice).

import { t } from "./i18n.js";
import { errorWords, commandWords } from "./describe.js";
import { saveSeat, linkedRoom } from "./seats.js";
import { TOURNAMENT_COMMANDS } from "./tourney_desk.js";

/** The server's welcome: the player this device's key is (or none), in the header and pages. */
export function onWelcome(app, message) {
  const player = typeof message.player === "string" && message.player ? message.player : null;
  app.player = player;
  if (app.meLink) {
    app.meLink.textContent = player ? t("app.my_page") : t("app.link");
    app.meLink.setAttribute("href", player ? `#/player/${encodeURIComponent(player)}` : "#/link");
  }
  if (app.pendingLink || app.pendingRecovery) {
    app.pendingLink = null;
    app.pendingRecovery = null;
    if (player) app.pages.linked(player);
  }
  if (player) app.pages.known(player);
  if (player && player !== app.name) app.rename(player); // a known key plays under its name
}

/** In a room: its seat token kept to come back by its link (or watching it), its link shown. */
export function onJoined(app, message) {
  if (message.seat_token) {
    app.resume = { room: message.room, token: message.seat_token };
    saveSeat(message.room, { token: message.seat_token, seat: message.seat });
    app.watching = null;
  } else {
    app.resume = null;
    app.watching = message.room;
  }
  const code = /^[A-Za-z0-9-]{1,24}$/.test(String(message.room)) ? String(message.room) : null;
  // The room's link, keeping a page shown beside the table (#/ladder, ...).
  if (code && location.pathname !== `/r/${code}`) history.replaceState(null, "", `/r/${code}${location.hash}`);
  app.say("");
}

/** A command refused: said where it is fixed, and what it left behind undone. */
export function onError(app, message) {
  if (message.command === "resync") {
    app.state.resyncRefused(); // the next gap asks again
    if (!app.state.doc) return; // a room left: nothing to mend
  }
  if (message.command === "hello" && message.code === "bad_link") {
    const recovering = Boolean(app.pendingRecovery);
    app.pendingLink = null;
    app.pendingRecovery = null;
    app.pages.linkRefused(recovering ? t("recover.refused") : t("link.refused"));
    app.connection.restart();
    return;
  }
  if (message.command === "link_code") {
    app.pages.linkRefused(t("link.no_code", { reason: errorWords(message) }));
    return;
  }
  if (message.command === "recovery_code") {
    app.pages.recoveryRefused(t("player.no_recovery", { reason: errorWords(message) }));
    return;
  }
  if (TOURNAMENT_COMMANDS.includes(message.command)) {
    app.tourney.refused(message, (text) => app.say(text, "error"));
    return;
  }
  if (message.command === "record" && app.pages.gameRefused(message)) return;
  if (message.command === "review" && app.pages.reviewRefused(message)) return;
  if (message.command === "record" && app.recordForReplay) {
    app.recordForReplay = false;
  }
  if (message.command === "hello" && message.code === "bad_version") {
    // The server was updated while this page was open: it will take no hello of this page.
    // Say so once and stop trying; a reload brings the page that speaks the server's version.
    app.connection.stop();
    app.outdated = true; // the banner offers to reload
    app.onStatus("closed", t("error.bad_version"));
    return;
  }
  if (message.command === "hello" && message.code === "name_taken" && app.defaultGuest && !app.nameless) {
    // A player owns the page's default name, which this visitor never chose: say hello
    // again without a name (what was asked waits in the queue for that welcome).
    app.nameless = true;
    app.connection.restart();
    return;
  }
  if (message.command === "hello" && !["bad_token", "no_such_room"].includes(message.code)) {
    const reason = errorWords(message);
    // In the header and the banner in short; why, and what to do next, in the notice.
    app.helloName = null;
    app.nameRefused = true;
    // What was asked under that name ("Create room") waits for the player to ask again.
    app.connection.dropQueued();
    app.pendingBots = [];
    app.onStatus("refused", t("error.name_refused"));
    // A game's page waiting for its game says why none comes (the request went with the name).
    app.pages.helloRefused(t("error.change_name", { reason }));
    // At the name's field, where it is changed (a tournament's page, or the lobby); elsewhere
    // in the notice.
    if (app.tourney.nameRefused(t("error.change_name", { reason }))) return;
    if (app.lobby) app.lobby.refuseName(t("error.change_name", { reason }));
    else app.say(t("error.change_name", { reason }), "error");
    return;
  }
  if (message.code === "bad_token" || (message.command === "hello" && message.code === "no_such_room")) {
    const room = app.resume?.room ?? linkedRoom();
    if (room) saveSeat(room, null);
    app.resume = null;
    app.state.clear();
    app.showLobby(room);
    app.say(message.code === "bad_token" ? t("error.seat_gone", { code: room }) : t("error.room_closed", { code: room }), "error");
    app.send({ type: "list_rooms" });
    return;
  }
  const reason = errorWords(message);
  app.say(message.command
    ? t("error.refused_command", { command: commandWords(message.command), reason })
    : t("error.refused", { reason }), "error");
}
