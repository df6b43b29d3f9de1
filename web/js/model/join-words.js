// Why a board does not open, or closed, in words for people: what happened and what to do
// (issue 44). The server answers a board that does not exist exactly as a wrong key (`bad-key`,
// close 4003) so that nobody learns which boards exist; the page tells the cases apart with what
// it knows itself: whether the link has a key, whether that key has the shape of a share key, and
// whether this browser opened the board with it before (then the links were rotated or the board
// deleted). Used by the board page's banner and the start page.

/** A share key as `corkboard boards` makes them: "e-" (edit) or "v-" (view) and 32 hex digits. */
const KEY_SHAPE = /^[ev]-[0-9a-f]{32}$/;

/** The reason the room closes members whose links were replaced (Room.keysRotatedReason). */
const ROTATED = /share links were replaced/;

/** A close or refusal that says how long to wait ("…; try again in 42 s"). */
const WAIT = /try again in (\d+) s/;

/**
 * Why the board will not open (a close after which reconnecting cannot help), or null when the
 * close is not one of those. `key`: the key in the link ("" when none); `knownBefore`: this browser
 * opened the board with this key before.
 */
export function refusalInWords({ code, reason = "", key = "", knownBefore = false }) {
  if (code === 1008 && ROTATED.test(reason)) {
    return "The board's links were changed (rotated), so this link no longer opens it. Ask the board's owner or an admin for the new link.";
  }
  if (code === 4000) return "This board was opened again with the same identity in another tab; this tab stopped. Use the other tab, or reload this one.";
  if (code === 4002) return "This server speaks another protocol version; reload the page.";
  if (code !== 4003 && code !== 4004) return null;
  if (!key) {
    return "This link has no key, and this board opens only with one. Ask the person who shared it for the full link (it ends in “&key=…”).";
  }
  if (knownBefore) {
    return "This link no longer works: it opened this board here before, but the board's links were changed (rotated), or the board was deleted. Ask the board's owner or an admin for the new link.";
  }
  if (!KEY_SHAPE.test(key)) {
    return "The key in this link is wrong: it looks cut short or mistyped (a key is “e-” or “v-” and 32 letters and digits). Copy the whole link again from the person who shared it.";
  }
  return "This board does not exist (or was deleted), or the key in this link is not its key. Check the link with the person who shared it, or create a new board.";
}

/** The seconds a refusal asks to wait ("…; try again in 42 s"), or null. */
export function waitOf(reason = "") {
  const asked = WAIT.exec(reason);
  return asked ? Number(asked[1]) : null;
}

/** The server refused for now and said how long to wait: busy, with a countdown to the retry. */
export function busyInWords(seconds) {
  return seconds > 0 ? `The server is busy; trying again in ${seconds} s.` : "The server is busy; trying again now…";
}
