// The activity feed (issue 43) as a session asks for it: pages of older entries, each answered
// once (by an `activityPage`, or an `error` naming its ref), and new entries heard live while
// anyone watches. A new connection hears new entries again only when asked: `rejoined` asks.

import { build } from "./protocol.js";

export class ActivityRequests {
  /**
   * @param {(message: object) => boolean} send sends a message; false when it could not go
   * @param {() => string} nextRef a ref no other request of the session uses
   */
  constructor(send, nextRef) {
    this.send = send;
    this.nextRef = nextRef;
    this.pages = new Map(); // ref → callback(page | error) of requests not answered yet
    this.watchers = new Set(); // callbacks(entry) of open views that show new activity live
  }

  /** Asks for a page of the feed (newest first); `answer(page)` gets the `activityPage`, or `{error}`. */
  page({ before, item, limit }, answer) {
    const ref = this.nextRef();
    this.pages.set(ref, answer);
    if (!this.send(build.activity({ ref, before, item, limit }))) this.pages.delete(ref);
  }

  /** Hears each new entry as it happens, until the returned function is called. */
  watch(listener) {
    this.watchers.add(listener);
    if (this.watchers.size === 1) this.send(build.activity({ limit: 1, live: true }));
    return () => {
      if (!this.watchers.delete(listener) || this.watchers.size > 0) return;
      this.send(build.activity({ limit: 1, live: false }));
    };
  }

  /** After a welcome: the new connection hears new entries if anyone still watches. */
  rejoined() {
    if (this.watchers.size > 0) this.send(build.activity({ limit: 1, live: true }));
  }

  /** Takes an `activityPage` or `activity` message; whether it was one. */
  receive(message) {
    if (message.type === "activityPage") {
      this.#answer(message.ref, message);
      return true;
    }
    if (message.type === "activity") {
      for (const listener of this.watchers) listener(message.entry);
      return true;
    }
    return false;
  }

  /** Takes an `error` that answers a page request; whether it was one. */
  refused(error) {
    if (!error.ref || !this.pages.has(error.ref)) return false;
    this.#answer(error.ref, { error });
    return true;
  }

  #answer(ref, page) {
    const answer = this.pages.get(ref);
    this.pages.delete(ref);
    answer?.(page);
  }
}
