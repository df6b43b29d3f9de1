// The wire messages of a board's people (issue 45, docs/PROTOCOL.md "People and invites"), for
// protocol.js: the admin's requests (listPeople, createInvite, updateInvite, setRole, removePerson,
// setLinks, rotateLinks), the room's `people` and `roleChanged`, the error codes about invites and
// people, and hello's `invite` and `device`. protocol.js hands in its checks (so that every message
// is still checked and written in one place) and spreads what this returns into its tables.

export const PEOPLE_CLIENT_TYPES = Object.freeze(["listPeople", "createInvite", "updateInvite", "setRole", "removePerson", "setLinks", "rotateLinks"]);
export const PEOPLE_SERVER_TYPES = Object.freeze(["people", "roleChanged"]);
export const PEOPLE_ERROR_CODES = Object.freeze([
  "invite-unknown", "invite-expired", "invite-used", "invite-revoked", "removed", "links-off",
  "forbidden", "unknown-person", "unknown-invite", "last-admin",
]);

/**
 * The fields of the people messages, made of protocol.js's checks: `{hello, client, server,
 * builders(compose)}`. `checks` holds object, opt, string, boolean, count, number, oneOf, arrayOf,
 * token, name, roles and ref (a client's optional ref).
 */
export function peopleMessages(checks) {
  const { object, opt, string, boolean, count, number, oneOf, arrayOf, token, name, roles, ref } = checks;
  const role = oneOf(roles);
  const personInfo = object({
    id: string, name: string, role, online: opt(boolean), lastSeen: opt(number), removed: opt(boolean), alias: opt(string),
  });
  const inviteInfo = object({
    id: string, name: string, role, token: string, createdAt: opt(number), expiresAt: opt(number), maxUses: opt(count),
    uses: opt(count), disabled: opt(boolean),
  });
  const keys = object({ view: string, edit: opt(string), comment: opt(string), admin: opt(string) });
  return {
    hello: { invite: opt(token), device: opt(token) },
    client: {
      listPeople: { ref },
      createInvite: { ref, name, role, expiresAt: opt(number), oneUse: opt(boolean) },
      updateInvite: { ref, invite: token, disabled: boolean },
      setRole: { ref, person: token, role },
      removePerson: { ref, person: token },
      setLinks: { ref, enabled: boolean },
      rotateLinks: { ref },
    },
    server: {
      people: {
        ref: opt(string), people: arrayOf(personInfo), invites: arrayOf(inviteInfo), linksEnabled: boolean,
        keys: opt(keys), created: opt(inviteInfo),
      },
      roleChanged: { role, keys: opt(keys) },
    },
    /** The builders, each a checked message; `compose(type, fields)` leaves out undefined, null and false. */
    builders: (compose) => ({
      /** Asks for the board's people, invites and links row (admins). */
      listPeople: ({ ref }) => compose("listPeople", { ref }),
      /** A personal invite for a named person with a role; one use and an expiry (seconds since 1970) optional. */
      createInvite: ({ ref, name: who, role: as, expiresAt, oneUse }) => compose("createInvite", { ref, name: who, role: as, expiresAt, oneUse }),
      /** Disables (or enables again) an invite; `disabled: false` is kept. */
      updateInvite: ({ ref, invite, disabled }) => {
        const message = compose("updateInvite", { ref, invite, disabled: true });
        message.disabled = !!disabled;
        return message;
      },
      /** Gives a person another role, on their open connections at once. */
      setRole: ({ ref, person, role: as }) => compose("setRole", { ref, person, role: as }),
      /** Removes a person: their sockets close, their device opens nothing. */
      removePerson: ({ ref, person }) => compose("removePerson", { ref, person }),
      /** Turns the "Anyone with the link" row (the edit, comment and view keys) on or off. */
      setLinks: ({ ref, enabled }) => {
        const message = compose("setLinks", { ref, enabled: true });
        message.enabled = !!enabled;
        return message;
      },
      /** New edit, comment and view keys; members with the old ones are closed. */
      rotateLinks: ({ ref }) => compose("rotateLinks", { ref }),
    }),
  };
}
