// The activity feed's entries as the page keeps them (issue 43): pages and live entries merged
// newest first by seq, each once, and the relative times they show ("2 min ago"). Pure: no DOM.

/** "just now", "1 min ago", "5 h ago", "yesterday", "3 days ago", "2 months ago" (times in ms since 1970). */
export function relativeTime(at, now) {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 30) return `${days} days ago`;
  const months = Math.round(days / 30);
  if (months < 12) return months === 1 ? "a month ago" : `${months} months ago`;
  const years = Math.round(days / 365);
  return years <= 1 ? "a year ago" : `${years} years ago`;
}

/** The entries one view shows: newest first, each seq once, optionally only one card's. */
export class ActivityEntries {
  /** @param {string|null} item only entries about this card (a card's view), or all */
  constructor(item = null) {
    this.item = item;
    this.entries = []; // newest first
    this.more = false; // whether older entries are still to be asked for
  }

  /** The seq to ask for older entries before, or undefined for the newest. */
  get oldestSeq() {
    return this.entries.length ? this.entries[this.entries.length - 1].seq : undefined;
  }

  /** Takes a page (older entries than those held, newest first); returns whether anything changed. */
  addPage(page) {
    this.more = !!page.more;
    return this.#merge(page.entries);
  }

  /** Takes a live entry; ignored when it is about another card. Returns whether it was new. */
  addLive(entry) {
    if (this.item && !entry.items.includes(this.item)) return false;
    return this.#merge([entry]);
  }

  #merge(entries) {
    const known = new Set(this.entries.map((e) => e.seq));
    const fresh = entries.filter((e) => !known.has(e.seq) && (!this.item || e.items.includes(this.item)));
    if (!fresh.length) return false;
    this.entries = [...this.entries, ...fresh].sort((a, b) => b.seq - a.seq);
    return true;
  }
}
