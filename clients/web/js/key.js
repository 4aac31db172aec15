// The player's key: a secret made on first use and kept in localStorage, sent with hello and
// with API requests (Authorization: Key ...), never shown. A link code or a recovery code typed
// on this device waits until the next hello carries it.

const KEY = "allfives.key";
const KEY_PATTERN = /^[A-Za-z0-9_-]{32,64}$/;
let kept = null;

/** 32 random bytes as URL-safe base64 without padding (43 characters). */
export function newKey() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** This device's key: the kept one, or a new one (kept from now on). */
export function playerKey() {
  if (kept) return kept;
  let key = null;
  try {
    key = localStorage.getItem(KEY);
  } catch {
    key = null;
  }
  if (!key || !KEY_PATTERN.test(key)) {
    key = newKey();
    try {
      localStorage.setItem(KEY, key);
    } catch {
      // storage off: the key lasts as long as this page
    }
  }
  kept = key;
  return key;
}

/** A link code as typed ("abcd-efgh", spaces and dashes left out), or null if it is not one. */
export function linkCode(text) {
  const code = String(text ?? "").replace(/[\s-]/g, "");
  return /^[0-9A-Za-z]{8}$/.test(code) ? code.toUpperCase() : null;
}

/** A recovery code as typed (20 letters and digits, spaces and dashes left out), or null. */
export function recoveryCode(text) {
  const code = String(text ?? "").replace(/[\s-]/g, "");
  return /^[0-9A-Za-z]{20}$/.test(code) ? code.toUpperCase() : null;
}

/** A code shown as people copy it: ABCD-EFGH. */
export function showCode(code) {
  const text = String(code ?? "");
  return text.length === 8 ? `${text.slice(0, 4)}-${text.slice(4)}` : text;
}
