// The page's words in the player's language (docs/i18n.md): one JSON catalog per language in
// /web/i18n/, served with the page. `t(key, params)` gives a message with its {placeholders}
// filled; a message that counts something holds one form per plural category of the language
// (Intl.PluralRules: "one", "few", "other"...) and is chosen by `params.count`.
// The language: the one chosen in the page (kept in localStorage), else the first of
// navigator.languages there is a catalog for, else English.

import { visible } from "./text.js";

export const LANGUAGES = ["en", "cs", "sr-Latn", "et"];
/** Each language by its own name, for the choice in the page (the same in every language). */
export const LANGUAGE_NAMES = { en: "English", cs: "Čeština", "sr-Latn": "Srpski", et: "Eesti" }; // i18n: not shown
const STORE_KEY = "allfives.lang";

let language = "en";
let catalog = {};
let english = {};
let rules = new Intl.PluralRules("en");

/** The catalog's language for a BCP 47 tag ("cs-CZ" -> "cs", "sr-Latn-RS" and "sr" -> "sr-Latn",
 *  "et-EE" -> "et"), or null when there is none (Serbian in Cyrillic has none: Latin is read
 *  by every Serbian reader, so it stands in). */
export function catalogFor(tag) {
  const parts = String(tag ?? "").trim().replaceAll("_", "-").toLowerCase().split("-");
  const first = parts[0];
  if (first === "sr") return "sr-Latn";
  return LANGUAGES.find((known) => known.toLowerCase() === first) ?? null;
}

/** The language to use: the stored choice, else the first of `wanted` with a catalog, else "en". */
export function pickLanguage(wanted, stored) {
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of wanted ?? []) {
    const found = catalogFor(tag);
    if (found) return found;
  }
  return "en";
}

/** The choice kept in this browser, if any. */
export function storedLanguage() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/** Keep the player's choice (it wins over the browser's languages from now on). */
export function storeLanguage(chosen) {
  try {
    localStorage.setItem(STORE_KEY, chosen);
  } catch {
    // storage off: the choice lasts as long as this page
  }
}

async function fetchCatalog(name, base) {
  const response = await fetch(`${base}/web/i18n/${name}.json`);
  if (!response.ok) throw new Error(`${name}.json: ${response.status}`); // i18n: not shown
  return response.json();
}

/** Load `chosen`'s catalog (and English, for a message it lacks) and use it; `<html lang>`
 *  follows. `base` is the origin the catalogs are served from ("" for this page's own). */
export async function load(chosen, base = "") {
  const name = LANGUAGES.includes(chosen) ? chosen : "en";
  english = await fetchCatalog("en", base);
  catalog = name === "en" ? english : await fetchCatalog(name, base).catch(() => english);
  language = catalog === english ? "en" : name;
  rules = new Intl.PluralRules(language);
  if (typeof document !== "undefined") document.documentElement.lang = language;
  return language;
}

/** The language in use. */
export function currentLanguage() {
  return language;
}

/** The plural category of `count` in the language in use ("one", "few", "other"...). */
export function pluralCategory(count) {
  return rules.select(Number(count));
}

/** The message `key` with its {placeholders} from `params`; a counted message takes the form
 *  for `params.count`. An unknown key is shown as itself (a test keeps that from happening).
 *  Every placeholder's value is made `visible`: names, codes and numbers come from the server. */
export function t(key, params = {}) {
  let entry = catalog[key] ?? english[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = entry[pluralCategory(params.count ?? 0)] ?? entry.other;
  return String(entry).replace(/\{(\w+)\}/g, (whole, name) => (name in params ? visible(params[name]) : whole));
}

/** A message cut where its placeholder `name` stands: [before, after], the other placeholders
 * filled in, so a caller can put an element (a link) between the two. */
export function around(key, name, params = {}) {
  let entry = catalog[key] ?? english[key] ?? key;
  if (typeof entry === "object") entry = entry.other;
  const fill = (text) => text.replace(/\{(\w+)\}/g, (whole, other) => (other in params ? visible(params[other]) : whole));
  const [before, ...rest] = String(entry).split(`{${name}}`);
  return [fill(before), fill(rest.join(`{${name}}`))];
}

/** A counted message: `plural("tiles", 3)` is t("tiles", { count: 3 }). */
export function plural(key, count, params = {}) {
  return t(key, { ...params, count });
}

/** "a, b or c" and "a, b and c" in the language in use. */
export function either(items) {
  if (items.length < 2) return items.join("");
  return t("list.or", { first: items.slice(0, -1).join(", "), last: items[items.length - 1] });
}

export function both(items) {
  if (items.length < 2) return items.join("");
  return t("list.and", { first: items.slice(0, -1).join(", "), last: items[items.length - 1] });
}

const MINUS = "\u2212";
const numberFormats = new Map();

function numberFormat(digits) {
  const key = `${language}/${digits}`;
  if (!numberFormats.has(key)) {
    numberFormats.set(key, new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  }
  return numberFormats.get(key);
}

/** `value` with `digits` decimals as the language in use writes it ("3,4" in Czech), with a
 *  minus sign (−, never a hyphen) when it is below zero once rounded. */
export function decimal(value, digits = 1) {
  const shown = numberFormat(digits).format(Math.abs(value));
  return Number(Math.abs(value).toFixed(digits)) > 0 && value < 0 ? `${MINUS}${shown}` : shown;
}

/** A change: "+0.3", "−1.8", "0.0" (in the language's digits and decimal mark). */
export function signedDecimal(value, digits = 1) {
  const shown = decimal(value, digits);
  return Number(Math.abs(value).toFixed(digits)) > 0 && value > 0 ? `+${shown}` : shown;
}

/** A moment (seconds since 1970) as the language writes a date and time. */
export function dateTime(seconds) {
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(seconds * 1000));
}

/** A moment's day as the language writes it. */
export function dayOf(seconds) {
  return new Intl.DateTimeFormat(language, { dateStyle: "medium" }).format(new Date(seconds * 1000));
}

/** A moment's time of day as the language writes it. */
export function timeOf(seconds) {
  return new Intl.DateTimeFormat(language, { timeStyle: "short" }).format(new Date(seconds * 1000));
}
