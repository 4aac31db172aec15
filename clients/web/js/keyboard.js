// The table by keyboard alone (listed on the rules page): the arrows (and Home, End) move
// between your tiles, Enter or Space plays the focused one, N, E, S and W play it (or the tile
// picked) at that end, 1 to 4 press the end buttons in order, T turns a lead, Escape cancels.
// The keys work while the focus is on the board or in the dock only (WCAG 2.1.4), never while
// typing in a field.

import { END_KEYS } from "./render.js";

const ENDS_BY_KEY = Object.fromEntries(Object.entries(END_KEYS).map(([end, key]) => [key, end]));
const NEXT = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }; // i18n: not shown (keys)

/** Give `tile` the hand's Tab stop (the others get tabindex -1). */
export function roving(dock, tile) {
  dock.current = tile;
  for (const button of dock.hand.querySelectorAll(".hand-tile")) {
    button.tabIndex = button.dataset.tile === tile ? 0 : -1;
  }
}

function moveFocus(dock, from, key) {
  const tiles = [...dock.hand.querySelectorAll(".hand-tile")];
  if (!tiles.length) return;
  const at = tiles.indexOf(from);
  let next;
  if (key === "Home") next = 0; // i18n: not shown (a key's name)
  else if (key === "End") next = tiles.length - 1; // i18n: not shown (a key's name)
  else next = (at + NEXT[key] + tiles.length) % tiles.length;
  tiles[next].focus();
}

/** A key pressed on the board or in the dock; `dock` is the table's Dock. */
export function handKey(event, dock) {
  if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey) return;
  if (event.target.closest?.("input, select, textarea")) return; // i18n: not shown (a selector)
  const game = dock.game;
  if (!game) return;
  const onTile = event.target.closest?.(".hand-tile");
  if (onTile && (event.key in NEXT || event.key === "Home" || event.key === "End")) { // i18n: not shown
    event.preventDefault();
    moveFocus(dock, onTile, event.key);
    return;
  }
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key in ENDS_BY_KEY) {
    const tile = dock.pickedTile(game) ?? game.hand.find((held) => held.tile === onTile?.dataset.tile && held.playable);
    const end = ENDS_BY_KEY[key];
    if (tile && !dock.facing && tile.options.some((option) => option.end === end)) {
      event.preventDefault();
      dock._play(tile.tile, end);
    }
    return;
  }
  if (/^[1-4]$/.test(key)) {
    const button = dock.endChoice.querySelectorAll(".end-button")[Number(key) - 1];
    if (button) {
      event.preventDefault();
      button.click();
    }
    return;
  }
  if (key === "t" && dock.facing) {
    event.preventDefault();
    dock._turn("#lead-button"); // Enter next leads it as turned
  }
}
