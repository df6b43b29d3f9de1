// A server that answers 429 or 503 with Retry-After is busy for now: the start page says so with a
// countdown and tries again by itself when the wait is over (issue 44).
import { busyInWords } from "../model/join-words.js";

/** The longest wait counted down here; a longer Retry-After is still waited, shown as this. */
const MOST_SECONDS = 3600;

/**
 * When `response` says the server is busy (429 or 503), counts down the wait in `note` and calls
 * `retry()` at its end; returns whether it did. `note` is a live region (role status).
 */
export function retryWhenBusy(response, note, retry) {
  if (response.status !== 429 && response.status !== 503) return false;
  const asked = Number.parseInt(response.headers.get("Retry-After") || "", 10);
  const seconds = Math.min(MOST_SECONDS, Number.isFinite(asked) && asked > 0 ? asked : 5);
  const until = Date.now() + seconds * 1000;
  clearInterval(note._busyTimer);
  const tick = () => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    note.textContent = busyInWords(left);
    if (left > 0) return;
    clearInterval(note._busyTimer);
    retry();
  };
  tick();
  note._busyTimer = setInterval(tick, 1000);
  return true;
}
