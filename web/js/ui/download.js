// Saving text the page made as a file: a Blob behind an <a download>, clicked once. Nothing here
// knows about boards.
import { el } from "./dom.js";

/** How long the Blob's address stays valid after the click (the browser reads it asynchronously). */
const REVOKE_AFTER_MS = 60000;

/** Offers `text` as a download named `filename` with MIME `type` (strings are written as UTF-8). */
export function downloadText(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { props: { href: url, download: filename, hidden: true } });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
