// Personal invites in addresses (issue 45), as plain values: an invite's link (`/?board=ID&invite=t-…`),
// reading one from the page's address and the address without it once claimed, the shapes of an
// invite token and of this browser's device key, and which identity a hello carries. Pure: the
// random bytes and the storage are the caller's (net/invite-claim.js).

/** An invite token: "t-" and 32 hex digits (128 random bits). */
export const INVITE_SHAPE = /^t-[0-9a-f]{32}$/;
/** A device key: "d-" and 32 hex digits, made once per browser (per origin). */
export const DEVICE_SHAPE = /^d-[0-9a-f]{32}$/;

/** The link that opens `boardId` with an invite's `token`, on the server the page was loaded from. */
export function inviteLink(address, boardId, token) {
  const base = new URL(address);
  const url = new URL(base.pathname, base.origin);
  url.searchParams.set("board", boardId);
  url.searchParams.set("invite", token);
  return url.href;
}

/** What a board page's address asks for: {board, key, invite, name} (each null when absent). */
export function readAddress(address) {
  const params = new URL(address).searchParams;
  return { board: params.get("board"), key: params.get("key"), invite: params.get("invite"), name: params.get("name") };
}

/** The address without its invite (claimed: a reload or a bookmark opens the board as the person). */
export function addressWithoutInvite(address) {
  const url = new URL(address);
  url.searchParams.delete("invite");
  return url.href;
}

/** A device key made of 16 random bytes (a Uint8Array or an array of numbers 0–255). */
export function deviceKeyOf(bytes) {
  if (bytes.length !== 16) throw new RangeError("a device key takes 16 random bytes");
  return `d-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * The identity fields of a hello: `invite` and `device` while an invite is being claimed, `device`
 * alone for a person this browser already is on the board (`isPerson`), nothing for a link with a
 * key (the key says the role; key and invite are exclusive) or a browser that is nobody there.
 */
export function helloIdentity({ key = null, invite = null, device = null, isPerson = false }) {
  if (!device || key) return {};
  if (invite) return { invite, device };
  return isPerson ? { device } : {};
}

/** Why an invite in an address cannot be claimed before asking the server, in words, or null. */
export function inviteShapeProblem(invite) {
  if (!invite) return null;
  if (INVITE_SHAPE.test(invite)) return null;
  return "The invite in this link looks cut short or mistyped (an invite is “t-” and 32 letters and digits). Copy the whole link again from the person who sent it.";
}
