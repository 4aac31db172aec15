// The replay viewer: a finished match stepped move by move (buttons, ← and →, Home and End),
// the table drawn as it was (the table's own drawing, render.js), every seat's tiles, the
// scores at each step, the record to download, and the hard bot's review beside each move.

import { h, fill, s } from "./text.js";
import { drawLayout, handTile } from "./render.js";
import { describeLayout } from "./model.js";
import { sideName, endWord, seatNumber } from "./describe.js";
import { t, plural } from "./i18n.js";
import { download } from "./report.js";
import { replaySteps, handStep } from "./replay_model.js";
import { handWords, lineWords, playerWords } from "./review_words.js";

const BOARD_MIN_PX = 160;

/** A step in words: "Hand 2 · Ann played 5-3 east: total 15, scores 15". */
export function stepWords(step, names, teams) {
  const who = step.seat !== null && step.seat !== undefined ? names[step.seat] ?? t("review.seat", { seat: seatNumber(step.seat) }) : "";
  const drew = step.drew ? plural("replay.drew", step.drew, { who }) : "";
  switch (step.kind) {
    case "deal":
      return t("replay.deal", { hand: step.hand, who });
    case "passed":
      return drew ? t("replay.drew_passed", { drew }) : t("replay.passed", { who });
    case "played": {
      const led = step.leadIndex !== null && step.layout.line.length === 1 && step.end === null;
      const params = { who, drew, tile: step.tile, end: endWord(step.end), total: step.total, points: step.points };
      const key = `replay.${led ? "led" : "played"}${drew ? "_after_drawing" : ""}${step.points ? "_scoring" : ""}`;
      return t(key, params);
    }
    case "hand_ended": {
      const gains = (step.result?.points ?? [])
        .map((points, side) => (points ? t(points > 0 ? "replay.side_scores" : "replay.side_loses", { side: sideName(side, names, teams), points: Math.abs(points) }) : null))
        .filter(Boolean);
      const how = ["domino", "blocked", "won"].includes(step.result?.kind) ? t(`replay.how.${step.result.kind}`) : t("replay.how.ended");
      return gains.length
        ? t("replay.hand_over", { hand: step.hand, how, gains: gains.join(", ") })
        : t("replay.hand_over_nobody", { hand: step.hand, how });
    }
    default:
      return "";
  }
}

export class Replay {
  /** `record`: an allfives-record/1 document; `positions`: the server's table after each of its
   *  steps (protocol/README.md, "Positions"); `options`: `title`, `name` (for the download),
   *  `review` (null, "loading", {busy, retry}, {error}, or the review), `retry()` to ask again. */
  constructor(root, record, positions, options = {}) {
    this.root = root;
    this.record = record;
    this.options = options;
    this.replay = replaySteps(record, positions);
    this.at = 0;
    this.review = options.review ?? null;
    this.svg = s("svg", { id: "replay-board", class: "board", role: "img", "aria-label": t("replay.board") });
    this.boardWrap = h("div", { class: "board-wrap" }, this.svg);
    this.where = h("p", { id: "replay-step", class: "replay-step", "aria-live": "polite" });
    this.scores = h("ol", { id: "replay-scores", class: "seats", "aria-label": t("replay.scores") });
    this.hands = h("div", { id: "replay-hands", class: "replay-hands" });
    this.said = h("p", { id: "review-move", class: "review-move" });
    this.reviewBox = h("section", { id: "review", class: "review card", "aria-label": t("review.title") });
    const button = (id, label, text, go) => h("button", { type: "button", id, "aria-label": label, onclick: () => this.go(go()) }, text);
    this.buttons = h("div", { class: "buttons replay-buttons" },
      button("replay-first", t("replay.first_label"), t("replay.first"), () => 0),
      button("replay-prev-hand", t("replay.prev_hand_label"), t("replay.prev_hand"), () => handStep(this.replay.steps, this.at, -1)),
      button("replay-prev", t("replay.prev_label"), "◀", () => this.at - 1),
      button("replay-next", t("replay.next_label"), "▶", () => this.at + 1),
      button("replay-next-hand", t("replay.next_hand_label"), t("replay.next_hand"), () => handStep(this.replay.steps, this.at, 1)),
      button("replay-last", t("replay.last_label"), t("replay.last"), () => this.replay.steps.length - 1));
    this.node = h("div", { id: "replay", class: "replay" },
      h("section", { class: "card replay-head" },
        h("h2", { id: "replay-title" }, options.title ?? t("replay.title")),
        h("p", { class: "muted" }, this._players()),
        h("div", { class: "buttons" },
          h("button", { type: "button", id: "replay-download", onclick: () => download(record, options.name ?? "game") }, t("replay.download")))),
      h("section", { class: "card replay-table" }, this.where, this.scores, this.buttons, this.boardWrap, this.hands),
      this.reviewBox);
    fill(root, this.node);
    this.onKey = (event) => {
      if (event.target?.closest?.("input, textarea, select")) return; // i18n: not shown
      const moves = { ArrowRight: this.at + 1, ArrowLeft: this.at - 1, Home: 0, End: this.replay.steps.length - 1 };
      if (event.key in moves) {
        event.preventDefault();
        this.go(moves[event.key]);
      }
    };
    document.addEventListener("keydown", this.onKey);
    this.onResize = () => this._drawBoard(true);
    window.addEventListener("resize", this.onResize);
    this.draw();
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
  }

  _players() {
    const { names } = this.replay;
    const final = this.record.scores;
    const scores = Array.isArray(final) ? ` · ${t("replay.final_scores", { scores: final.join(" – ") })}` : "";
    return `${names.join(", ")} · ${plural("replay.hands", this.replay.hands)}${scores}`;
  }

  go(index) {
    const last = this.replay.steps.length - 1;
    this.at = Math.max(0, Math.min(last, index));
    this.draw();
  }

  setReview(review) {
    this.review = review;
    this._drawReview();
  }

  draw() {
    const steps = this.replay.steps;
    const step = steps[this.at];
    if (!step) {
      fill(this.where, t("replay.no_moves"));
      return;
    }
    const { names, teams, sides } = this.replay;
    this.node.dataset.hand = String(step.hand);
    this.node.dataset.move = String(step.move);
    this.node.dataset.kind = step.kind;
    fill(this.where, h("b", {}, t("replay.where", { hand: step.hand, hands: this.replay.hands, step: this.at + 1, steps: steps.length })), " ",
      h("span", { id: "replay-said" }, stepWords(step, names, teams)));
    fill(this.scores, Array.from({ length: sides }, (_, side) => h("li", {},
      h("span", { class: "score", "data-side": side }, String(step.scores[side])), " ", sideName(side, names, teams))));
    fill(this.hands, step.tiles.map((tiles, seat) => h("div", { class: `replay-hand${step.seat === seat && step.kind !== "hand_ended" ? " turn-now" : ""}`, "data-seat": seat },
      h("b", {}, names[seat]), ` (${plural("replay.tiles", tiles.length)})`,
      h("div", { class: "replay-tiles" }, tiles.map((tile) => h("span", { class: "replay-tile", "data-tile": tile, title: tile }, handTile(tile)))))),
    h("p", { class: "muted", id: "replay-boneyard" }, t("table.boneyard", { count: step.boneyard })));
    this.buttons.querySelector("#replay-prev").disabled = this.at === 0;
    this.buttons.querySelector("#replay-first").disabled = this.at === 0;
    this.buttons.querySelector("#replay-next").disabled = this.at === steps.length - 1;
    this.buttons.querySelector("#replay-last").disabled = this.at === steps.length - 1;
    this._drawBoard(true);
    this._drawReview();
  }

  _drawBoard() {
    const step = this.replay.steps[this.at];
    if (!step) return;
    const width = this.boardWrap.clientWidth || 340;
    const maxHeight = Math.max(BOARD_MIN_PX, Math.min(window.innerHeight * 0.6, 520));
    this.svg.style.maxHeight = `${maxHeight}px`;
    const history = step.kind === "played" ? [{ type: "played", seat: step.seat, tile: step.tile, end: step.end }] : [];
    drawLayout(this.svg, { layout: step.layout, leadIndex: step.leadIndex, history, width, maxHeight, ends: step.ends });
    this.svg.setAttribute("aria-label", describeLayout(step.layout, step.ends));
  }

  _drawReview() {
    const review = this.review;
    const { names } = this.replay;
    if (review === null) {
      this.reviewBox.hidden = true;
      return;
    }
    this.reviewBox.hidden = false;
    if (review === "loading") {
      fill(this.reviewBox, h("h2", {}, t("review.title")), h("p", { class: "muted", id: "review-status" }, t("review.loading")));
      return;
    }
    if (review.busy || review.error) {
      const text = review.busy
        ? (review.retry ? plural("review.busy", review.retry) : t("review.busy_soon"))
        : t("review.none", { reason: review.error });
      fill(this.reviewBox, h("h2", {}, t("review.title")), h("p", { id: "review-status", class: "muted" }, text),
        this.options.retry ? h("button", { type: "button", id: "review-retry", onclick: () => this.options.retry() }, t("review.retry")) : null);
      return;
    }
    if (!(Number(review.version) >= 2)) {
      // An older server's review counted the match premium as points: not shown as points.
      fill(this.reviewBox, h("h2", {}, t("review.title")), h("p", { id: "review-status", class: "muted" }, t("review.older")));
      return;
    }
    const step = this.replay.steps[this.at];
    const line = (review.moves ?? []).find((m) => m.hand === step.hand && m.move === step.move);
    const moveText = step.kind === "played" || step.kind === "passed"
      ? (line ? `${names[line.seat] ?? ""}: ${lineWords(line, names)}` : t("review.no_choice"))
      : t("review.step_to_move");
    fill(this.said, moveText);
    this.said.dataset.lost = line ? String(line.lost) : "";
    this.said.classList.toggle("costly", Boolean(line?.costly));
    const players = (review.players ?? []).map((player) => h("li", { "data-seat": player.seat },
      h("b", {}, names[player.seat] ?? player.name), `: ${playerWords(player)}`,
      player.decisions > 0 && player.by_hand?.length
        ? h("ul", { class: "hands" }, player.by_hand.map((hand) => h("li", {}, handWords(hand))))
        : null,
      player.costliest?.length ? h("p", { class: "costliest-title" }, t("review.costliest")) : null,
      player.costliest?.length
        ? h("ul", { class: "costliest" }, player.costliest.map((m) => h("li", {},
          h("button", { type: "button", class: "link", onclick: () => this._goTo(m.hand, m.move) }, t("review.where", { hand: m.hand, move: m.move })),
          `: ${lineWords(m, names)}`)))
        : null));
    fill(this.reviewBox,
      h("h2", {}, t("review.title")),
      h("p", { class: "muted" }, t("review.about")),
      this.said,
      h("h3", {}, t("review.each_player")),
      h("ol", { id: "review-summary", class: "review-summary" }, players));
  }

  _goTo(hand, move) {
    const index = this.replay.steps.findIndex((step) => step.hand === hand && step.move === move);
    if (index >= 0) this.go(index);
  }
}
