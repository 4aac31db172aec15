// The server's read-only HTTP API (protocol/README.md, "HTTP API"), asked with this device's
// key. Answers are untrusted: only ever shown as text.

import { playerKey } from "./key.js";
import { t, plural } from "./i18n.js";

/** GET a path of the API: `{ok, status, body, retry}` (`body` the JSON, or null). With
 *  `asker` false the request goes without this device's key (a list anyone sees alike: a
 *  guest's page makes no key for it). */
export async function apiGet(path, { asker = true } = {}) {
  let response;
  const headers = asker ? { Authorization: `Key ${playerKey()}`, Accept: "application/json" } : { Accept: "application/json" }; // i18n: not shown
  try {
    response = await fetch(path, { headers, cache: "no-store" });
  } catch {
    return { ok: false, status: 0, body: null, retry: null };
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const retry = Number.parseInt(response.headers.get("Retry-After") ?? "", 10); // i18n: not shown
  return { ok: response.ok, status: response.status, body, retry: Number.isSafeInteger(retry) ? retry : null };
}

/** A refused answer in words; `what`: "ladder", "player", "games" or "tournaments". */
export function apiProblem(answer, what) {
  if (answer.status === 0) return t(`api.no_answer.${what}`);
  if (answer.status === 404) return t(`api.not_found.${what}`);
  if (answer.status === 429) return answer.retry ? plural("api.too_many", answer.retry) : t("api.too_many_soon");
  if (answer.status === 503) return answer.retry ? plural("api.busy", answer.retry) : t("api.busy_soon");
  const code = typeof answer.body?.error === "string" ? answer.body.error : String(answer.status);
  return t("api.refused", { code });
}

export const paths = {
  ladder: () => "/api/ladder",
  player: (name) => `/api/players/${encodeURIComponent(name)}`,
  games: (name, offset, limit) => `/api/players/${encodeURIComponent(name)}/games?offset=${offset}&limit=${limit}`,
  tournaments: (offset, limit) => `/api/tournaments?offset=${offset}&limit=${limit}`,
};
