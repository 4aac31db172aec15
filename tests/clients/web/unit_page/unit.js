// The page's modules, put on `window.unit` for tests/clients/web/test_web_state.py and
// tests/clients/web/test_web_model.py to call through selenium.
import * as describe from "/web/js/describe.js";
import * as geometry from "/web/js/geometry.js";
import * as lobby from "/web/js/lobby.js";
import * as model from "/web/js/model.js";
import * as state from "/web/js/state.js";
import * as moved from "/web/js/moved.js";
import * as text from "/web/js/text.js";
import * as results from "/web/js/results.js";
import * as limits from "/web/js/limits.js";
import * as connection from "/web/js/connection.js";
import { halfWidthFor } from "/web/js/render.js";
import * as reviewWords from "/web/js/review_words.js";
import * as replayModel from "/web/js/replay_model.js";
import * as pages from "/web/js/pages.js";
import * as key from "/web/js/key.js";
import * as i18n from "/web/js/i18n.js";
import * as player from "/web/js/player.js";
import * as announce from "/web/js/announce.js";
import * as report from "/web/js/report.js";

// The page's words: English unless a test loads another catalog (unit.i18n.load).
await i18n.load("en");

/** Feed messages to a fresh RoomState; returns what it sent back after each and where it ended. */
function feed(messages) {
  const room = new state.RoomState();
  const finals = [];
  const sent = messages.map((message) => {
    const reply = room.receive(message);
    finals.push(room.finalLayout);
    return reply;
  });
  return { doc: room.doc, seq: room.seq, mending: room.mending, sent, log: room.log, finalLayout: room.finalLayout, finals };
}

window.unit = {
  describe, geometry, lobby, model, state, moved, text, connection, results, limits, feed, i18n, render_half: halfWidthFor,
  reviewWords, replayModel, pages, key, player, announce, report,
};
window.unitReady = true;
