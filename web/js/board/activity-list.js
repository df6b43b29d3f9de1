// What the board did, for people (issue 43): a list of activity entries newest first, each the
// actor's name after a dot in their colour, what they did ("moved “Old Mill Wheel” from To find
// to Found") and how long ago, with "Show older" while the room has older entries. The board's
// "Activity" dialog shows every entry; the open card's "Activity" section that card's own. New
// entries arrive live while a list is open. Entries are text only: nothing from them is HTML.
import { el, on } from "../ui/dom.js";
import { ActivityEntries, relativeTime } from "../model/activity-feed.js";

const PAGE = 30;

export class ActivityList {
  /**
   * @param {object} deps
   *   session  BoardSession (activityPage, watchActivity, members)
   *   item     a card id: only its entries; null: the whole board's
   *   label    the list's accessible name
   */
  constructor({ session, item = null, label = "Activity" }) {
    this.session = session;
    this.feed = new ActivityEntries(item);
    this.list = el("ol", { className: "activity-list", attrs: { "aria-label": label } });
    this.empty = el("p", "activity-hint", "Nothing has happened here yet.");
    this.status = el("p", { className: "activity-hint", attrs: { role: "status" } });
    this.older = el("button", { className: "link-button activity-older", text: "Show older", props: { type: "button", hidden: true } });
    on(this.older, "click", () => this.#load(this.feed.oldestSeq));
    this.element = el("div", "activity", this.list, this.empty, this.older, this.status);
    this.unwatch = null;
    this.timer = null;
  }

  /** Loads the newest page and starts hearing new entries. */
  start() {
    if (this.unwatch) return;
    this.unwatch = this.session.watchActivity((entry) => {
      if (this.feed.addLive(entry)) this.render();
    });
    this.#load(undefined);
    // "2 min ago" moves on while the list is open.
    this.timer = setInterval(() => this.render(), 30000);
  }

  /** Stops hearing new entries (the view closed). */
  stop() {
    this.unwatch?.();
    this.unwatch = null;
    clearInterval(this.timer);
    this.timer = null;
  }

  #load(before) {
    this.status.textContent = "Loading…";
    this.older.setAttribute("aria-disabled", "true");
    this.session.activityPage({ before, item: this.feed.item || undefined, limit: PAGE }, (page) => {
      this.older.removeAttribute("aria-disabled");
      if (page.error) {
        this.status.textContent = `The activity could not be loaded: ${page.error.message}`;
        return;
      }
      this.status.textContent = "";
      this.feed.addPage(page);
      this.render();
    });
  }

  /** Draws the entries held. */
  render() {
    const now = Date.now();
    const rows = this.feed.entries.map((entry) => {
      const color = this.session.members.colorOfClient(entry.clientId) || entry.color;
      const when = el("time", { className: "activity-time", text: relativeTime(entry.at, now), props: { dateTime: new Date(entry.at).toISOString(), title: new Date(entry.at).toLocaleString() } });
      return el(
        "li",
        "activity-entry",
        el("span", { className: "activity-dot", attrs: { "aria-hidden": "true" }, style: { "--actor-color": color } }),
        el("span", { className: "activity-actor", text: entry.actor }),
        ` ${entry.text} · `,
        when,
      );
    });
    this.list.replaceChildren(...rows);
    this.empty.hidden = rows.length > 0;
    this.older.hidden = !this.feed.more;
  }
}
