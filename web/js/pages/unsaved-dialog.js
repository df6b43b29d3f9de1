// "Changes not saved": the changes the room refused for good, as text a person can read, select
// and copy (a read-only textarea and a Copy button), with the sentence saying what to do.
import { showDialog } from "../ui/dialog.js";
import { el, on } from "../ui/dom.js";

/** Shows the dialog; resolves when it is closed. */
export function showUnsaved({ sentence, text }) {
  const area = el("textarea", {
    className: "unsaved-text",
    attrs: { "aria-label": "The changes that were not saved", readonly: "", rows: "8" },
    props: { value: text },
  });
  const copied = el("span", { className: "unsaved-copied", attrs: { role: "status" } });
  const copy = el("button", { className: "unsaved-copy", text: "Copy", props: { type: "button" } });
  on(copy, "click", async () => {
    area.select();
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // No clipboard permission: the text stays selected for Ctrl/⌘+C.
      document.execCommand?.("copy");
    }
    copied.textContent = "Copied.";
  });
  return showDialog({ title: "Changes not saved", body: [el("p", "", sentence), area, el("div", "", copy, copied)], confirm: "Close", cancel: null });
}
