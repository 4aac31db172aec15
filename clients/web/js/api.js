// The server's read-only HTTP API (protocol/README.md, "HTTP API"), asked with this device's
// key. Answers are untrusted: only ever shown as text.

import { playerKey } from "./key.js";

/** GET a path of the API: `{ok, status, body, retry}` (`body` the JSON, or null). */
export async function apiGet(path) {
  let response;
  try {
    response = await fetch(path, { headers: { Authorization: `Key ${playerKey()}`, Accept: "application/json" }, cache: "no-store" });
  } catch {
    return { ok: false, status: 0, body: null, retry: null };
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const retry = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
  return { ok: response.ok, status: response.status, body, retry: Number.isSafeInteger(retry) ? retry : null };
}

/** A refused answer in words. */
export function apiProblem(answer, what) {
  if (answer.status === 0) return `The server did not answer: ${what} could not be fetched.`;
  if (answer.status === 404) return `No such ${what}.`;
  if (answer.status === 429) return `Too many requests: wait ${answer.retry ?? "a few"} seconds and try again.`;
  if (answer.status === 503) return `The server is busy: try again in ${answer.retry ?? "a few"} seconds.`;
  const code = typeof answer.body?.error === "string" ? answer.body.error : String(answer.status);
  return `The server refused (${code}).`;
}

export const paths = {
  ladder: () => "/api/ladder",
  player: (name) => `/api/players/${encodeURIComponent(name)}`,
  games: (name, offset, limit) => `/api/players/${encodeURIComponent(name)}/games?offset=${offset}&limit=${limit}`,
  game: (id) => `/api/games/${encodeURIComponent(id)}`,
  review: (id) => `/api/games/${encodeURIComponent(id)}/review`,
};
