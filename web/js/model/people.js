// A board's people (issue 45): the persons who joined through a personal invite, the invites an
// admin made, and the "Anyone with the link" row, as plain values for the Members panel. Names as
// people read them ("Bea (Beatrice)" when the name typed differs from the invite's), who is on the
// board now and when the others were last seen, what each invite can still do, and every sentence
// about an invite or a removal. Pure: times come in as arguments (milliseconds since 1970).
import { relativeTime } from "./activity-feed.js";
import { civilDay } from "./civil-date.js";
import { ROLE_NAMES } from "./roles.js";

/** The wire's times (createdAt, expiresAt, lastSeen, joinedAt) are whole seconds since 1970. */
export const WIRE_SECONDS = 1000;

/** The role names as people read them, for the Role selects and the Invite form. */
export const ROLE_LABELS = Object.freeze({ admin: "Admin", editor: "Editor", commenter: "Commenter", viewer: "Viewer" });

/** The days an invite may last, as the Invite form offers them ("never" is 0). */
export const EXPIRY_DAYS = Object.freeze([1, 7, 30, 0]);

/** A name as shown: "Bea (Beatrice)" when `alias` (the name typed) differs from `name` (the invite's). */
export function personLabel(name, alias) {
  const typed = (alias || "").trim();
  if (!typed || typed.toLowerCase() === (name || "").trim().toLowerCase()) return name || "";
  return `${name} (${typed})`;
}

/** A member's name as shown: its person's name with the name it typed when they differ. */
export function memberLabel(member) {
  return personLabel(member?.name, member?.alias);
}

/** Whether the same name, ignoring case and the spaces around it. */
const sameName = (a, b) => (a || "").trim().toLowerCase() === (b || "").trim().toLowerCase();

/**
 * The Members panel's rows: one per person (with an invite's name and role, online and last seen)
 * and one per member on the board now who is not a person (joined with a link), this member
 * marked. `people` is the admin's `people` list (null for everyone else); `members` the members on
 * the board now. People on the board come first, then the others by name; removed people last.
 */
export function memberRows({ people = null, members = [], me = null }) {
  const online = new Map();
  for (const m of members) if (m.person) online.set(m.person, [...(online.get(m.person) || []), m]);
  const rows = [];
  for (const p of people || []) {
    const here = online.get(p.id) || [];
    rows.push({
      id: p.id, person: p.id, name: p.name, alias: p.alias ?? here.find((m) => m.alias)?.alias, role: p.role,
      online: !p.removed && (p.online || here.length > 0), lastSeen: p.lastSeen, removed: !!p.removed,
      me: !!me && (me.person === p.id), link: false,
    });
  }
  const listed = new Set(rows.map((r) => r.person));
  const seenPerson = new Set();
  for (const m of members) {
    if (m.person && listed.has(m.person)) continue;
    // Everyone sees the people on the board now: one row per person, however many tabs.
    if (m.person && seenPerson.has(m.person)) continue;
    if (m.person) seenPerson.add(m.person);
    rows.push({
      id: m.person || m.id, person: m.person || null, name: m.name, alias: m.alias, role: m.role, online: true,
      lastSeen: undefined, removed: false, me: !!me && (m.id === me.id || (!!m.person && m.person === me.person)), link: !m.person,
    });
  }
  const rank = (r) => (r.removed ? 2 : r.online ? 0 : 1);
  return rows.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** "On the board now", "Last seen 5 min ago", "Not joined yet" or "Removed". */
export function presenceInWords(row, now) {
  if (row.removed) return "Removed";
  if (row.online) return "On the board now";
  if (row.lastSeen) return `Last seen ${relativeTime(row.lastSeen * WIRE_SECONDS, now)}`;
  return "Not on the board now";
}

/** A row in a sentence for a screen reader: "Bea (Beatrice), commenter, on the board now". */
export function rowInWords(row, now) {
  const who = personLabel(row.name, row.alias) + (row.me ? " (you)" : "");
  const how = row.link ? `${row.role}, with a link` : row.role;
  return `${who}, ${how}, ${presenceInWords(row, now).toLowerCase()}`;
}

/** A date as people read it, in UTC: "8 Dec 2026". */
export function dayInWords(ms) {
  const { year, month, day } = civilDay(ms);
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  return `${day} ${months[month - 1]} ${year}`;
}

/** Whether an invite can still be claimed: not disabled, not expired, not used up. */
export function inviteUsable(invite, now) {
  if (invite.disabled) return false;
  if (invite.expiresAt && invite.expiresAt * WIRE_SECONDS <= now) return false;
  if (invite.maxUses && invite.uses >= invite.maxUses) return false;
  return true;
}

/** What an invite can still do, in words: "Commenter · one use, not used yet · expires 8 Dec 2026". */
export function inviteInWords(invite, now) {
  const parts = [ROLE_LABELS[invite.role] || invite.role];
  if (invite.disabled) parts.push("disabled");
  if (invite.maxUses === 1) parts.push(invite.uses >= 1 ? "one use, used" : "one use, not used yet");
  else if (invite.maxUses) parts.push(`used ${invite.uses} of ${invite.maxUses} times`);
  else parts.push(invite.uses === 1 ? "used once" : invite.uses ? `used ${invite.uses} times` : "not used yet");
  if (invite.expiresAt) {
    const ms = invite.expiresAt * WIRE_SECONDS;
    parts.push(ms <= now ? `expired ${dayInWords(ms)}` : `expires ${dayInWords(ms)}`);
  }
  return parts.join(" · ");
}

/** The invites as the panel lists them: usable ones first, newest first within each. */
export function inviteRows(invites = [], now) {
  return [...invites].sort((a, b) => Number(inviteUsable(b, now)) - Number(inviteUsable(a, now)) || (b.createdAt || 0) - (a.createdAt || 0) || a.id.localeCompare(b.id));
}

/**
 * The Invite form's values checked: {name, role, oneUse, expiresAt?} ready to send, or {problem}
 * (a sentence naming the field). `days` is 0 for an invite that does not expire.
 */
export function inviteRequest({ name, role, oneUse, days }, now) {
  const trimmed = (name || "").trim();
  if (!trimmed) return { problem: "Type the name of the person you invite (1 to 64 characters)." };
  if ([...trimmed].length > 64) return { problem: "The name is too long: at most 64 characters." };
  if (!ROLE_NAMES.includes(role)) return { problem: "Choose the role the invite gives: admin, editor, commenter or viewer." };
  const request = { name: trimmed, role, oneUse: !!oneUse };
  const d = Number(days) || 0;
  if (d < 0 || !Number.isFinite(d)) return { problem: "Choose how long the invite lasts." };
  if (d > 0) request.expiresAt = Math.floor(now / WIRE_SECONDS) + Math.round(d * 86400);
  return request;
}

/** Whether `name` is taken by a person of the board (not removed): an admin is asked before a second Bea. */
export function nameTaken(people = [], name) {
  return people.some((p) => !p.removed && sameName(p.name, name));
}

/**
 * The sentence for each refusal of a hello with an invite or a device (the server's own message,
 * when it has one, says the same and may carry a date), and for each refusal of a member operation.
 */
const REFUSALS = {
  "invite-unknown": "This invite link is not valid; ask the board's admin for a new one.",
  "invite-expired": "This invite expired; ask the board's admin for a new one.",
  "invite-used": "This invite was already used; ask the board's admin for a new one.",
  "invite-revoked": "This invite was disabled by an admin; ask the board's admin for a new one.",
  removed: "You were removed from this board; ask an admin if you should have access again.",
  "links-off": "This board's share links were turned off; ask an admin for an invite.",
  "last-admin": "The board needs an admin: make someone else an admin first.",
  "unknown-person": "That person is no longer on this board's list; the list was refreshed.",
  "unknown-invite": "That invite no longer exists; the list was refreshed.",
  forbidden: "Only the board's admins can do that.",
};

/** The error codes a hello is refused with because of an invite, a device or the links row. */
export const JOIN_REFUSALS = Object.freeze(["invite-unknown", "invite-expired", "invite-used", "invite-revoked", "removed", "links-off"]);

/** A refusal (`error` {code, message}) in words: the server's sentence when it gave one, else ours. */
export function peopleRefusalInWords({ code, message } = {}) {
  if (message && /[.;!]\s*\S|[.!]$/.test(message.trim())) return message.trim();
  return REFUSALS[code] || message || "That did not work; nothing changed.";
}

/** The 1008 reasons the room closes a person or a link's members with (the server's own words). */
const REMOVED = /\bremoved\b/i;
const LINKS_OFF = /share links were turned off|links? (are|were|is) (turned )?off/i;

/**
 * A close that tells this person their access ended, in words, or null: removed by an admin (1008
 * "you were removed from this board by an admin") or the anyone-with-the-link row turned off.
 */
export function accessEndedInWords(code, reason = "") {
  if (code !== 1008) return null;
  if (REMOVED.test(reason)) return "An admin removed you from this board, so it is closed here. Ask an admin if you should have access again.";
  if (LINKS_OFF.test(reason)) return "An admin turned off this board's share links, so this link no longer opens it. Ask an admin for an invite.";
  return null;
}

/**
 * Why a board page's access ended or did not begin, for its banner: `{sentence, forget}`, the
 * sentence null when the close is none of these. Removed or the share links turned off while joined
 * (1008); a hello refused for its invite, device or key (4003 after `joinError`, its own sentence);
 * a device the board does not know (`bad-key` for a browser that thought it was a person there).
 * `forget`: this browser is nobody on the board any more (removed, or unknown).
 */
export function accessInWords({ code, reason = "", joinError = null, key = null, isPerson = false }) {
  const ended = accessEndedInWords(code, reason);
  const removed = (!!ended && REMOVED.test(reason)) || joinError?.code === "removed";
  if (ended) return { sentence: ended, forget: removed };
  if (code !== 4003 || !joinError) return { sentence: null, forget: false };
  if (JOIN_REFUSALS.includes(joinError.code)) return { sentence: peopleRefusalInWords(joinError), forget: removed };
  if (joinError.code === "bad-key" && !key && isPerson) return { sentence: peopleRefusalInWords(joinError), forget: true };
  return { sentence: null, forget: false };
}
