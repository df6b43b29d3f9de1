// Who this person is on a board, across visits (issue 44): the colour the room gave them on this
// board, remembered in localStorage and asked for again in every hello (the room gives it when no
// one here has it now), and the "Your name" control of the board page, which changes the name
// peers see at once (the page joins again under the new name, resuming the same client: R10) and
// remembers it for next visits, as the start page's "Your name" does.
import { el, on } from "../ui/dom.js";
import { showDialog } from "../ui/dialog.js";
import { LIMITS } from "../net/protocol.js";
import { saveDisplayName, storage } from "./start.js";

const COLOR_PREFIX = "corkboard.color:";

/** The colour this person had on `board` before, or undefined. */
export function rememberedColor(board) {
  const color = storage()?.getItem(COLOR_PREFIX + board);
  return color && /^#[0-9a-f]{6}$/.test(color) ? color : undefined;
}

/** Remembers the colour the room gave this person on `board` (from a welcome). */
export function rememberColor(board, color) {
  if (color && /^#[0-9a-f]{6}$/.test(color)) storage()?.setItem(COLOR_PREFIX + board, color);
}

/**
 * The "Your name" button of the board page's top bar: shows the name, and opens a dialog that
 * changes it. `rename(name)` joins again under the new name.
 */
export function nameControl({ name, rename }) {
  const button = el("button", { className: "your-name", props: { type: "button" }, attrs: { "aria-haspopup": "dialog" } });
  const show = (current) => {
    button.textContent = current;
    button.setAttribute("aria-label", `Your name: ${current}. Change it`);
    button.title = "Your name, as the others see it: click to change it";
  };
  show(name());
  on(button, "click", async () => {
    const input = el("input", { props: { type: "text", value: name(), maxLength: LIMITS.maxNameCharacters, required: true, autocomplete: "nickname" }, attrs: { id: "your-name-input" } });
    const label = el("label", { text: "Your name", props: { htmlFor: "your-name-input" } });
    const hint = el("p", "hint", "Shown to everyone on the board next to your cursor and drags, and remembered in this browser.");
    const chosen = await showDialog({
      title: "Your name",
      body: [label, input, hint],
      confirm: "Save",
      collect: () => input.value.trim(),
      submit: async () => (input.value.trim() ? null : "Type a name of 1 to 64 characters."),
      returnFocus: () => button,
    });
    if (!chosen || chosen === name()) return;
    saveDisplayName(chosen);
    show(chosen);
    rename(chosen);
  });
  return { element: button, show };
}
