// The page's words and what it lets through: clients/web/js/i18n.js (catalogs, plural forms,
// the language chosen, numbers), text.js (server text made visible) and limits.js (names and
// chat lines checked before sending).

import { test } from "node:test";
import assert from "node:assert/strict";
import { module } from "./support.mjs";

const i18n = await module("i18n.js");
const { visible } = await module("text.js");
const { checkName, checkChat, length } = await module("limits.js");
await i18n.load("en");

const COUNTS = [0, 1, 2, 5, 21];
/** "{count} tile(s)" and "{count} player(s)" at 0, 1, 2, 5 and 21, as a player must read them. */
const TILES = {
  en: ["0 tiles", "1 tile", "2 tiles", "5 tiles", "21 tiles"],
  cs: ["0 kamenů", "1 kámen", "2 kameny", "5 kamenů", "21 kamenů"],
  "sr-Latn": ["0 pločica", "1 pločica", "2 pločice", "5 pločica", "21 pločica"],
  et: ["0 kivi", "1 kivi", "2 kivi", "5 kivi", "21 kivi"],
};
const PLAYERS = {
  en: ["0 players", "1 player", "2 players", "5 players", "21 players"],
  cs: ["0 hráčů", "1 hráč", "2 hráči", "5 hráčů", "21 hráčů"],
  "sr-Latn": ["0 igrača", "1 igrač", "2 igrača", "5 igrača", "21 igrač"],
  et: ["0 mängijat", "1 mängija", "2 mängijat", "5 mängijat", "21 mängijat"],
};

/** `run()` with `language`'s catalog loaded, English again after. */
async function inLanguage(language, run) {
  assert.equal(await i18n.load(language), language);
  try {
    return run();
  } finally {
    await i18n.load("en");
  }
}

for (const language of i18n.LANGUAGES) {
  test(`plural forms at 0, 1, 2, 5 and 21 in ${language}`, async () => {
    await inLanguage(language, () => {
      assert.equal(i18n.currentLanguage(), language);
      assert.deepEqual(COUNTS.map((n) => i18n.plural("seat.tiles", n)), TILES[language]);
      assert.deepEqual(COUNTS.map((n) => i18n.plural("lobby.room_players", n)), PLAYERS[language]);
    });
  });
}

test("a language with no catalog reads English", async () => {
  assert.equal(await i18n.load("xx"), "en");
  assert.equal(i18n.plural("seat.tiles", 2), "2 tiles");
});

test("the page takes the stored choice, then the browser's languages", () => {
  assert.equal(i18n.pickLanguage(["de-DE", "cs-CZ", "en"], null), "cs");
  assert.equal(i18n.pickLanguage(["sr-Latn-RS"], null), "sr-Latn");
  assert.equal(i18n.pickLanguage(["sr"], null), "sr-Latn");
  assert.equal(i18n.pickLanguage(["et-EE"], "cs"), "cs"); // the choice made in the page wins
  assert.equal(i18n.pickLanguage(["et-EE"], "xx"), "et"); // a stored value that is no language
  assert.equal(i18n.pickLanguage(["de", "fr"], null), "en");
  assert.equal(i18n.catalogFor("sr_RS"), "sr-Latn");
  assert.equal(i18n.catalogFor(""), null);
});

test("numbers take the language's decimal mark and one minus sign", async () => {
  assert.equal(i18n.signedDecimal(-1.8), "\u22121.8");
  assert.equal(i18n.signedDecimal(0.3), "+0.3");
  assert.equal(i18n.signedDecimal(-0.04), "0.0"); // rounds to nothing: no sign
  assert.equal(i18n.decimal(-1.6), "\u22121.6");
  await inLanguage("et", () => assert.equal(i18n.signedDecimal(3.44), "+3,4"));
  await inLanguage("cs", () => {
    assert.equal(i18n.decimal(-1.6), "\u22121,6");
    assert.ok(!i18n.signedDecimal(-1.8).includes("-"));
  });
});

test("a placeholder's value from the server is shown, never obeyed", () => {
  const said = i18n.t("api.refused", { code: "x\u0007\u202ey\n" });
  assert.ok(said.includes("x\u2407\ufffdy\u240a"), said);
  assert.equal(i18n.t("no.such.key"), "no.such.key");
  const [before, after] = i18n.around("api.refused", "code");
  assert.ok(before.length + after.length > 0 && !before.includes("{code}"));
});

test("server text shows its control characters, and what prints as nothing", () => {
  assert.equal(visible("a\u001b[31mb\u202ec\u0000<b>"), "a\u241b[31mb\ufffdc\u2400<b>");
  assert.equal(visible("\u007f"), "\u2421");
  assert.equal(visible(null), "");
  // What a name may not hold (protocol/names.py, `invisible` and `loose_mark`; the same
  // look-alikes as tests/protocol_helpers.py) shows: a look-alike never reads as the owner.
  for (const name of INVISIBLE_LOOK_ALIKES) assert.ok(visible(name).includes("\ufffd"), escape(name));
  assert.deepEqual(
    ["\u0301Ann", "a \u0301", "z\u0301\u0301\u0301", "Nguye\u0302\u0303n"].map(visible),
    ["\ufffdAnn", "a \ufffd", "z\u0301\u0301\ufffd", "Nguye\u0302\u0303n"],
  );
});

const escape = (text) => [...text].map((c) => `U+${c.codePointAt(0).toString(16)}`).join(" ");

/** Names protocol.names refuses as printing as nothing or with loose marks. */
const INVISIBLE_LOOK_ALIKES = [
  "Zedjbz\u034f", "Zedjbz\ufe0f", "Zedjbz\ufe00", "Zedjbz\u{e0100}", "Zedjbz\u180b", "Zedjbz\u180f",
  "Zedjbz\u3164", "Zedjbz\u115f", "Zedjbz\u1160", "Zedjbz\uffa0", "\u3164Zedjbz", "Zedjbz\u2800",
  "Zedjbz\u17b4", "Zedjbz\u17b5", "Zedjbz\u0301\u0301\u0301", "Zedjbz\u200b", "Zed\u200djbz",
  "Zedjbz\u2060", "Zedjbz\u00ad", "Zedjbz\u061c", "Zedjbz\u{e0041}", "Zedjbz\u{1bca0}",
];
/** Names protocol.names refuses as a bot's to the eye. */
const BOT_LOOK_ALIKES = [
  "bot\u034f:hard", "bot\u05c3easy", "\u3164bot:easy", "b\u200bot:hard", "bot\ufe0f:easy", "bot\u0589hard",
  "bot\u02d0hard", "bot\ua789easy", "bot\u2236hard", "bot\uff1aeasy", "bot\u0903easy", "bot :\u2800hard",
];

test("names and chat lines are checked before sending", () => {
  assert.equal(checkName("x".repeat(500)).problem, "A name has at most 24 characters: this one has 500.");
  assert.notEqual(checkName("\u202e evil").problem, null);
  assert.equal(checkName("W".repeat(24)).problem, null);
  assert.notEqual(checkName("   ").problem, null);
  assert.equal(checkName("  Ann  ").text, "Ann");
  // A name the server refuses as invisible or as a bot's is refused before sending.
  for (const name of [...INVISIBLE_LOOK_ALIKES, ...BOT_LOOK_ALIKES, "bot:hard", "BOT.easy"]) {
    assert.notEqual(checkName(name).problem, null, escape(name));
  }
  for (const name of ["Bořek", "Bottle", "Zoë", "Zedjbz\u0301", "Ze\u0301djbz"]) assert.equal(checkName(name).problem, null, name);
  assert.ok(checkChat("y".repeat(2000)).problem.includes("at most 200"));
  assert.equal(checkChat("").problem, null);
  assert.notEqual(checkChat("a\u0000b").problem, null);
  assert.equal(checkChat("hi \u{1f600}").problem, null);
  assert.equal(length("\u{1f600}ab"), 3); // code points, as the server counts
});

test("the review's figures take the language's decimal mark, as ratings do", async () => {
  const review = await module("review_words.js");
  const player = { decisions: 16, accuracy: 81.3, lost_per_move: 1.4, inaccuracies: 1, mistakes: 0, blunders: 0 };
  const hand = { hand: 2, decisions: 5, accuracy: 91.3, lost_per_move: 0.9 };
  const line = { played: { tile: "5-0" }, best: { tile: "1-1" }, lost: 13, grade: "blunder", reasons: [] };
  const said = () => [review.playerWords(player), review.handWords(hand), review.lineWords(line, ["Ann", "Bob"])].join("\n");
  assert.ok(said().includes("81.3") && said().includes("13.0"), said());
  for (const language of ["cs", "sr-Latn", "et"]) {
    await inLanguage(language, () => {
      const shown = said();
      for (const figure of ["81,3", "1,4", "91,3", "0,9", "13,0"]) assert.ok(shown.includes(figure), `${language}: ${shown}`);
      assert.ok(!/\d\.\d/.test(shown), `${language}: ${shown}`);
    });
  }
});

/** A finished match's rating change for seat 0 that moved nothing (`counted` 0). */
function unmoved(extra) {
  const rating = { mu: 25.0, sigma: 25.0 / 3, rating: 0.0 };
  return [{ seat: 0, name: "Ann", ladder: "2p", before: rating, after: rating, counted: 0.0, ...extra }];
}

test("a provisional player's finished match says one thing: what counts and what is to go", async () => {
  // "Your rating on the two-player ladder: 0.0 (0.0)" above "No rating moved: ..." read as
  // "my rating is zero" (issue 45, item 5).
  const { ratingText, ratingNote } = await module("model.js");
  const first = unmoved({ provisional: true, matches_to_go: 4, opponents_to_go: 2 });
  const said = ratingText(first, 0);
  assert.equal(ratingNote(first, 0), null);
  assert.equal(
    said,
    "No rating moved: your rating is provisional until you have played 5 whole matches (to 150 " +
      "points; shorter ones count in part) against 3 different opponents. Still to go: 4 more " +
      "matches and 2 more opponents.",
  );
  assert.ok(!/0[.,]0/.test(said), said);
  const last = ratingText(unmoved({ provisional: true, matches_to_go: 1, opponents_to_go: 0 }), 0);
  assert.ok(last.endsWith("Still to go: 1 more match."), last);
  // Not provisional yourself: another player at the table was.
  const other = ratingText(unmoved({ provisional: false }), 0);
  assert.equal(other, i18n.t("rating.provisional"));
  const expected = {
    cs: "Ještě zbývá: 2 zápasy a 1 soupeř.",
    "sr-Latn": "Preostalo je još: 2 meča i 1 protivnik.",
    et: "Jäänud on veel: 2 mängu ja 1 vastane.",
  };
  for (const [language, ending] of Object.entries(expected)) {
    const text = await inLanguage(language, () =>
      ratingText(unmoved({ provisional: true, matches_to_go: 2, opponents_to_go: 1 }), 0),
    );
    assert.ok(text.endsWith(ending), `${language}: ${text}`);
    assert.ok(!/0[.,]0/.test(text), text);
  }
});
