// What the page's modules need in Node: their catalogs, as the server serves them, read from
// clients/web/i18n/ (i18n.load fetches `/web/i18n/LANG.json`), and the frames and the document
// of protocol/README.md's example session (the spec the page is written from).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const WEB = `${ROOT}clients/web/`;

/** The page's module `name` (under clients/web/js/). */
export function module(name) {
  return import(new URL(`../../../../clients/web/js/${name}`, import.meta.url).href);
}

// i18n.load asks for `${base}/web/i18n/LANG.json`: answered from the repository's files, and
// anything else is refused, as a server would refuse an unknown path.
globalThis.fetch = async (url) => {
  const found = /\/web\/i18n\/([A-Za-z-]+)\.json$/.exec(String(url));
  let text = null;
  try {
    text = found ? readFileSync(`${WEB}i18n/${found[1]}.json`, "utf8") : null;
  } catch {
    text = null;
  }
  return {
    ok: text !== null,
    status: text !== null ? 200 : 404,
    json: async () => JSON.parse(text),
  };
};

/** A catalog's message, with its {placeholders} filled as given (no plural forms). */
export function words(language, key, params = {}) {
  const catalog = JSON.parse(readFileSync(`${WEB}i18n/${language}.json`, "utf8"));
  return String(catalog[key]).replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

const README = readFileSync(`${ROOT}protocol/README.md`, "utf8");

function between(start, stop) {
  return README.slice(README.indexOf(start), README.indexOf(stop));
}

/** The server's frames of the README's example session, in order. */
export function readmeFrames() {
  return between("<!-- session:start -->", "<!-- session:stop -->")
    .split("\n")
    .filter((line) => line.startsWith("S: "))
    .map((line) => JSON.parse(line.slice(3)));
}

/** Ann's document at the end of that session, as the README shows it. */
export function readmeDocument() {
  const block = between("<!-- document:start -->", "<!-- document:stop -->");
  return JSON.parse(block.split("```json\n")[1].split("```")[0]);
}
