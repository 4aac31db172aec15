// The replay viewer: a finished match stepped move by move (buttons, ← and →, Home and End),
// the table drawn as it was (the table's own drawing, render.js), every seat's tiles, the
// scores at each step, the record to download, and the hard bot's review beside each move.

import { h, fill, s } from "./text.js";
import { drawLayout, handTile } from "./render.js";
import { describeLayout } from "./model.js";
import { sideName } from "./describe.js";
import { download } from "./report.js";
import { replaySteps, handStep } from "./replay_model.js";
import { lineWords, playerWords } from "./review_words.js";

const BOARD_MIN_PX = 160;

/** A step in words: "Hand 2 · Ann played 5-3 east: total 15, scores 15". */
export function stepWords(step, names, teams) {
  const who = step.seat !== null && step.seat !== undefined ? names[step.seat] ?? `seat ${step.seat}` : "";
  const drew = step.drew ? `${who} drew ${step.drew} tile${step.drew === 1 ? "" : "s"}, then ` : "";
  switch (step.kind) {
    case "deal":
      return `Hand ${step.hand}: the deal; ${who} leads`;
    case "passed":
      return `${drew}${drew ? "passed" : `${who} passed`}`;
    case "played": {
      const action = step.leadIndex !== null && step.layout.line.length === 1 && step.end === null
        ? `led ${step.tile}` : `played ${step.tile} ${step.end}`;
      const scored = step.points ? `, scores ${step.points}` : "";
      return `${drew}${drew ? action : `${who} ${action}`}: total ${step.total}${scored}`;
    }
    case "hand_ended": {
      const gains = (step.result?.points ?? [])
        .map((points, side) => (points ? `${sideName(side, names, teams)} ${points > 0 ? "scores" : "loses"} ${Math.abs(points)}` : null))
        .filter(Boolean);
      const how = { domino: "went out", blocked: "blocked", won: "reached the target" }[step.result?.kind] ?? "ended";
      return `Hand ${step.hand} over (${how})${gains.length ? `: ${gains.join(", ")}` : ": nobody scores"}`;
    }
    default:
      return "";
  }
}

export class Replay {
  /** `record`: an allfives-record/1 document; `options`: `title`, `name` (for the download),
   *  `review` (null, "loading", {busy, retry}, {error}, or the review), `retry()` to ask again. */
  constructor(root, record, options = {}) {
    this.root = root;
    this.record = record;
    this.options = options;
    this.replay = replaySteps(record);
    this.at = 0;
    this.review = options.review ?? null;
    this.svg = s("svg", { id: "replay-board", class: "board", role: "img", "aria-label": "The table" });
    this.boardWrap = h("div", { class: "board-wrap" }, this.svg);
    this.where = h("p", { id: "replay-step", class: "replay-step", "aria-live": "polite" });
    this.scores = h("ol", { id: "replay-scores", class: "seats", "aria-label": "Scores at this step" });
    this.hands = h("div", { id: "replay-hands", class: "replay-hands" });
    this.said = h("p", { id: "review-move", class: "review-move" });
    this.reviewBox = h("section", { id: "review", class: "review card", "aria-label": "The hard bot's review" });
    const button = (id, label, text, go) => h("button", { type: "button", id, "aria-label": label, onclick: () => this.go(go()) }, text);
    this.buttons = h("div", { class: "buttons replay-buttons" },
      button("replay-first", "First step", "First", () => 0),
      button("replay-prev-hand", "Previous hand", "« Hand", () => handStep(this.replay.steps, this.at, -1)),
      button("replay-prev", "Previous move (←)", "◀", () => this.at - 1),
      button("replay-next", "Next move (→)", "▶", () => this.at + 1),
      button("replay-next-hand", "Next hand", "Hand »", () => handStep(this.replay.steps, this.at, 1)),
      button("replay-last", "Last step", "Last", () => this.replay.steps.length - 1));
    this.node = h("div", { id: "replay", class: "replay" },
      h("section", { class: "card replay-head" },
        h("h2", { id: "replay-title" }, options.title ?? "Replay"),
        h("p", { class: "muted" }, this._players()),
        h("div", { class: "buttons" },
          h("button", { type: "button", id: "replay-download", onclick: () => download(record, options.name ?? "game") }, "Download the record"))),
      h("section", { class: "card replay-table" }, this.where, this.scores, this.buttons, this.boardWrap, this.hands),
      this.reviewBox);
    fill(root, this.node);
    this.onKey = (event) => {
      if (event.target?.closest?.("input, textarea, select")) return;
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
    const scores = Array.isArray(final) ? ` · final scores ${final.join(" – ")}` : "";
    return `${names.join(", ")} · ${this.replay.hands} hand${this.replay.hands === 1 ? "" : "s"}${scores}`;
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
      fill(this.where, "This record holds no moves.");
      return;
    }
    const { names, teams, sides } = this.replay;
    this.node.dataset.hand = String(step.hand);
    this.node.dataset.move = String(step.move);
    this.node.dataset.kind = step.kind;
    fill(this.where, h("b", {}, `Hand ${step.hand} of ${this.replay.hands} · step ${this.at + 1} of ${steps.length}`), " ",
      h("span", { id: "replay-said" }, stepWords(step, names, teams)));
    fill(this.scores, Array.from({ length: sides }, (_, side) => h("li", {},
      h("span", { class: "score", "data-side": side }, String(step.scores[side])), " ", sideName(side, names, teams))));
    fill(this.hands, step.tiles.map((tiles, seat) => h("div", { class: `replay-hand${step.seat === seat && step.kind !== "hand_ended" ? " turn-now" : ""}`, "data-seat": seat },
      h("b", {}, names[seat]), ` (${tiles.length} tile${tiles.length === 1 ? "" : "s"})`,
      h("div", { class: "replay-tiles" }, tiles.map((tile) => h("span", { class: "replay-tile", "data-tile": tile, title: tile }, handTile(tile)))))),
    h("p", { class: "muted", id: "replay-boneyard" }, `Boneyard: ${step.boneyard}`));
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
      fill(this.reviewBox, h("h2", {}, "The hard bot's review"), h("p", { class: "muted", id: "review-status" }, "The hard bot is reviewing the match…"));
      return;
    }
    if (review.busy || review.error) {
      const text = review.busy
        ? `The server is busy with other reviews: try again in ${review.retry ?? "a few"} seconds.`
        : `No review: ${review.error}`;
      fill(this.reviewBox, h("h2", {}, "The hard bot's review"), h("p", { id: "review-status", class: "muted" }, text),
        this.options.retry ? h("button", { type: "button", id: "review-retry", onclick: () => this.options.retry() }, "Try again") : null);
      return;
    }
    const step = this.replay.steps[this.at];
    const line = (review.moves ?? []).find((m) => m.hand === step.hand && m.move === step.move);
    const moveText = step.kind === "played" || step.kind === "passed"
      ? (line ? `${names[line.seat] ?? ""}: ${lineWords(line, names)}` : "No choice here (one legal move), or a seat not reviewed.")
      : "Step to a move to read what the hard bot thinks of it.";
    fill(this.said, moveText);
    this.said.dataset.lost = line ? String(line.lost) : "";
    this.said.classList.toggle("costly", Boolean(line?.costly));
    const players = (review.players ?? []).map((player) => h("li", { "data-seat": player.seat },
      h("b", {}, names[player.seat] ?? player.name), `: ${playerWords(player)}`,
      player.costliest?.length
        ? h("ul", { class: "costliest" }, player.costliest.map((m) => h("li", {},
          h("button", { type: "button", class: "link", onclick: () => this._goTo(m.hand, m.move) }, `hand ${m.hand} move ${m.move}`),
          `: ${lineWords(m, names)}`)))
        : null));
    fill(this.reviewBox,
      h("h2", {}, "The hard bot's review"),
      h("p", { class: "muted" }, "For each move with a choice: the expected points lost against the hard bot's best move, from what the player could see."),
      this.said,
      h("h3", {}, "Each player"),
      h("ol", { id: "review-summary", class: "review-summary" }, players));
  }

  _goTo(hand, move) {
    const index = this.replay.steps.findIndex((step) => step.hand === hand && step.move === move);
    if (index >= 0) this.go(index);
  }
}
