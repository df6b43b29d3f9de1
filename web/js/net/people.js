// A board's people as the room tells them (issue 45): the `people` message (persons, invites,
// the "Anyone with the link" row and its keys), asked for with `listPeople` (anyone: a member who is
// not an admin gets the people with access, no invites) and pushed to admins again whenever
// anything changes, and the admin's requests — createInvite, updateInvite, setRole,
// removePerson, setLinks, rotateLinks — each answered by `people` (with our ref) or by an `error`
// (forbidden, unknown-person, unknown-invite, last-admin, invalid-field). State only: the owner is
// told through `changed(list)` and draws it (pages/members-panel.js).
import { build } from "./protocol.js";

export class People {
  /**
   * @param {object} deps
   *   send(message)  sends now; false when the connection is not open
   *   changed(list)  the list changed ({people, invites, linksEnabled, keys?})
   */
  constructor({ send, changed = () => {} }) {
    this.send = send;
    this.changed = changed;
    this.list = null; // the last `people` heard (an admin's has the invites)
    this.pending = new Map(); // ref → resolve({list, created} | {error})
    this.counter = 0;
  }

  /** Takes a `people` message; returns false for any other. */
  receive(message) {
    if (message.type !== "people") return false;
    const { people, invites, linksEnabled, keys } = message;
    this.list = { people, invites, linksEnabled, keys: keys ?? this.list?.keys };
    const answer = message.ref && this.pending.get(message.ref);
    if (answer) {
      this.pending.delete(message.ref);
      answer({ list: this.list, created: message.created });
    }
    this.changed(this.list);
    return true;
  }

  /** Takes an `error` answering one of our requests; returns false for any other. */
  refused(message) {
    const answer = message.ref && this.pending.get(message.ref);
    if (!answer) return false;
    this.pending.delete(message.ref);
    answer({ error: message });
    return true;
  }

  /** The connection dropped: what was not answered will not be (the panel says so; nothing is resent). */
  disconnected() {
    for (const answer of this.pending.values()) answer({ error: { code: "offline", message: "The connection dropped before the server answered; check the list and try again." } });
    this.pending.clear();
  }

  /** This member is no admin (any more): the list goes. */
  clear() {
    this.list = null;
    this.changed(null);
  }

  #request(type, fields) {
    const ref = `people-${++this.counter}`;
    return new Promise((resolve) => {
      this.pending.set(ref, resolve);
      if (!this.send(build[type]({ ref, ...fields }))) {
        this.pending.delete(ref);
        resolve({ error: { code: "offline", message: "Not connected to the board right now; try again when it says Live." } });
      }
    });
  }

  /** Asks for the list (answered `people`). */
  refresh() {
    return this.#request("listPeople", {});
  }

  /** A personal invite: {name, role, oneUse, expiresAt?}; answered with `created` (its token). */
  createInvite(invite) {
    return this.#request("createInvite", invite);
  }

  /** Disables an invite (or enables it again). */
  setInviteDisabled(invite, disabled) {
    return this.#request("updateInvite", { invite, disabled });
  }

  setRole(person, role) {
    return this.#request("setRole", { person, role });
  }

  removePerson(person) {
    return this.#request("removePerson", { person });
  }

  /** Turns the "Anyone with the link" row on or off. */
  setLinks(enabled) {
    return this.#request("setLinks", { enabled });
  }

  /** New edit, comment and view links. */
  rotateLinks() {
    return this.#request("rotateLinks", {});
  }
}
