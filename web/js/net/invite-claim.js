// Claiming a personal invite in this browser (issue 45). The page opened as `/?board=ID&invite=t-…`
// makes this browser's device key once (`d-` and 32 hex digits, kept in localStorage under one name
// for the whole origin) and sends `hello` with `invite` and `device`; the room creates the person (or
// finds the one this device already claimed the invite as) and its welcome names the person. From
// then on the page joins with `device` alone: the invite leaves the address (history.replaceState)
// and the browser remembers, per board, that it is a person there, so a reload, a bookmark or the
// start page's list opens the board as that person. A removal forgets it.
import { DEVICE_SHAPE, addressWithoutInvite, deviceKeyOf, helloIdentity } from "../model/invite-link.js";

/** The one device key of this browser, for every board of the origin. */
export const DEVICE_NAME = "corkboard.device";
/** Per board: the person this browser is there (`corkboard.person:BOARD` → person id). */
export const PERSON_PREFIX = "corkboard.person:";

function localStore() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled: the invite is claimed for this page only
  }
}

/** This browser's device key, made (16 random bytes) and kept the first time it is needed. */
export function deviceKey(storage = localStore(), random = (bytes) => crypto.getRandomValues(bytes)) {
  const kept = storage?.getItem(DEVICE_NAME);
  if (kept && DEVICE_SHAPE.test(kept)) return kept;
  const made = deviceKeyOf(random(new Uint8Array(16)));
  try {
    storage?.setItem(DEVICE_NAME, made);
  } catch {
    // Storage full: the key lives as long as this page.
  }
  return made;
}

export class InviteClaim {
  /**
   * @param {object} options
   *   board    the board's id
   *   key      the key in the address (a role link), or null
   *   invite   the invite token in the address, or null
   *   storage  localStorage (tests pass a Map-like {getItem, setItem, removeItem})
   *   address  {get(): href, replace(href)}: the page's address (history.replaceState)
   */
  constructor({ board, key = null, invite = null, storage = localStore(), address = null, random } = {}) {
    Object.assign(this, { board, key: key || null, invite: invite || null, storage, address });
    this.device = key ? null : deviceKey(storage, random);
    this.person = null; // the person id from the last welcome
  }

  /** Whether this browser is a person on this board (it claimed an invite here before). */
  get isPerson() {
    return !!this.person || !!this.storage?.getItem(PERSON_PREFIX + this.board);
  }

  /** The identity fields of the next hello (see helloIdentity). */
  helloFields() {
    return helloIdentity({ key: this.key, invite: this.invite, device: this.device, isPerson: this.isPerson });
  }

  /**
   * A welcome: with `person` (PersonInfo), the invite is claimed. The next hellos carry the device
   * alone and the address loses the invite. Without one, this browser is nobody here (again).
   */
  welcomed(welcome) {
    const person = welcome.person?.id || welcome.member?.person || null;
    this.person = person;
    if (!person) {
      if (!this.key && !this.invite) this.forget();
      return;
    }
    try {
      this.storage?.setItem(PERSON_PREFIX + this.board, person);
    } catch {
      // Storage full: this page still joins as the person until it is closed.
    }
    if (this.invite) {
      this.invite = null;
      const href = this.address?.get();
      if (href) this.address.replace(addressWithoutInvite(href));
    }
  }

  /** This browser is nobody on the board any more (removed): the next visit is a stranger's. */
  forget() {
    try {
      this.storage?.removeItem(PERSON_PREFIX + this.board);
    } catch {
      // Nothing kept.
    }
  }
}
