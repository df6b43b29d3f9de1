// Dates as people read and type them, in the browser's own time zone. The wire carries a date as
// whole milliseconds since 1970 UTC (Date.getTime()); a datetime-local input shows and takes
// "YYYY-MM-DDTHH:MM" in local time. Nothing here knows about boards.

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const two = (n) => String(n).padStart(2, "0");

/** A datetime-local input's value for `ms` in local time ("" for no date). */
export function toLocalInput(ms) {
  if (ms === null || ms === undefined) return "";
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  return `${String(d.getFullYear()).padStart(4, "0")}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/**
 * The milliseconds of a datetime-local value read in local time; null for "" (no date), NaN for
 * a value that is no date.
 */
export function fromLocalInput(value) {
  if (!value) return null;
  const match = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(value);
  if (!match) return NaN;
  const [, y, mo, d, h, mi, s = "0", frac = "0"] = match;
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, "0")));
  return date.getTime();
}

/** "7 Dec" (with the year when it is not this year's), as a card's badge says it. */
export function shortDate(ms, now = Date.now()) {
  const d = new Date(ms);
  const year = d.getFullYear() !== new Date(now).getFullYear() ? ` ${d.getFullYear()}` : "";
  return `${d.getDate()} ${MONTHS[d.getMonth()]}${year}`;
}

/** "7 December 2026, 14:30", for screen readers and tooltips. */
export function longDate(ms) {
  const d = new Date(ms);
  return `${d.getDate()} ${MONTH_NAMES[d.getMonth()]} ${d.getFullYear()}, ${two(d.getHours())}:${two(d.getMinutes())}`;
}
