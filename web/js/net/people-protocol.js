// The wire messages of a board's people (issue 45, docs/PROTOCOL.md "People, invites and the
// anyone-with-the-link row"), field by field: hello's `invite` and `device`, the admin's requests
// (listPeople, createInvite, updateInvite, setRole, removePerson, setLinks, rotateLinks) with their
// builders, and the room's `people` and `roleChanged`. client-messages.js and server-messages.js
// spread these into their tables; the type names and error codes are in protocol-limits.js.

import { ROLES } from "./protocol-limits.js";
import { CLEARED, arrayOf, boolean, count, number, object, oneOf, opt, string } from "./field-checks.js";
import { name, token } from "./value-checks.js";

const role = oneOf(ROLES);
const clientRef = opt(token);

/** A person of the board (PersonInfo). */
const personInfo = object({
  id: string, name: string, role, online: opt(boolean), joinedAt: opt(number), lastSeen: opt(number), removed: opt(boolean),
  alias: opt(string), invite: opt(string),
});

/** An invite of the board (InviteInfo); its token only ever goes to admins. */
const inviteInfo = object({
  id: string, name: string, role, token: string, createdAt: opt(number), expiresAt: opt(number), maxUses: opt(count),
  uses: opt(count), disabled: opt(boolean),
});

const shareKeys = object({ view: string, edit: opt(string), comment: opt(string), admin: opt(string) });

/** hello's fields for claiming an invite (`invite` and `device`) or joining as a person (`device`). */
export const PEOPLE_HELLO_FIELDS = Object.freeze({ invite: opt(token), device: opt(token) });

export const PEOPLE_CLIENT_FIELDS = Object.freeze({
  listPeople: { ref: clientRef },
  createInvite: { ref: clientRef, name, role, expiresAt: opt(number), oneUse: opt(boolean) },
  updateInvite: { ref: clientRef, invite: token, disabled: boolean },
  setRole: { ref: clientRef, person: token, role },
  removePerson: { ref: clientRef, person: token },
  setLinks: { ref: clientRef, enabled: boolean },
  rotateLinks: { ref: clientRef },
});

export const PEOPLE_SERVER_FIELDS = Object.freeze({
  people: {
    ref: opt(string), people: arrayOf(personInfo), invites: arrayOf(inviteInfo), linksEnabled: boolean,
    keys: opt(shareKeys), created: opt(inviteInfo),
  },
  roleChanged: { role, keys: opt(shareKeys) },
});

/** The builders of the admin's requests, made with client-messages.js's `composeMessage(type, fields)`. */
export const peopleBuilders = (composeMessage) => ({
  /** Asks for the board's people, invites and links row (admins); answered `people`. */
  listPeople: ({ ref }) => composeMessage("listPeople", { ref }),
  /** A personal invite for a named person with a role; one use and an expiry (seconds since 1970) optional. */
  createInvite: ({ ref, name: who, role: as, expiresAt, oneUse }) => composeMessage("createInvite", { ref, name: who, role: as, expiresAt, oneUse }),
  /** Disables (or enables again) an invite. */
  updateInvite: ({ ref, invite, disabled }) => composeMessage("updateInvite", { ref, invite, disabled: disabled ? true : CLEARED }),
  /** Gives a person another role, on their open connections at once. */
  setRole: ({ ref, person, role: as }) => composeMessage("setRole", { ref, person, role: as }),
  /** Removes a person: their sockets close, their device opens nothing. */
  removePerson: ({ ref, person }) => composeMessage("removePerson", { ref, person }),
  /** Turns the "Anyone with the link" row (the edit, comment and view keys) on or off. */
  setLinks: ({ ref, enabled }) => composeMessage("setLinks", { ref, enabled: enabled ? true : CLEARED }),
  /** New edit, comment and view keys; members with the old ones are closed. */
  rotateLinks: ({ ref }) => composeMessage("rotateLinks", { ref }),
});
