// Modal questions on the native <dialog>: focus moves in and comes back, Escape cancels. Used to
// ask before a change that removes cards, and for choices too large for a menu.
import { el, on } from "./dom.js";

/**
 * Shows a modal dialog titled `title` with `body` (nodes) and two buttons (one when `cancel` is
 * null); resolves with `collect()` (or true) when confirmed, null when cancelled. With `submit`
 * (async form → a sentence or null) the dialog stays open while it works and shows the sentence it
 * returns (a refusal) instead of closing; `returnFocus()` names where focus goes after.
 */
export function showDialog({ title, body = [], confirm = "OK", cancel = "Cancel", danger = false, collect, submit, returnFocus: focusAfter }) {
  return new Promise((resolve) => {
    const returnFocus = document.activeElement;
    const heading = el("h2", { className: "dialog-title", text: title, attrs: { id: `dialog-${Date.now()}` } });
    const ok = el("button", { className: danger ? "danger" : "primary", text: confirm, props: { type: "submit", value: "ok" } });
    const no = cancel ? el("button", { text: cancel, props: { type: "button" } }) : null;
    const problem = el("p", { className: "dialog-problem", attrs: { role: "alert" }, props: { hidden: true } });
    const form = el("form", { className: "dialog-form", props: { method: "dialog" } }, heading, ...body, problem, el("div", "dialog-actions", ok, no));
    const dialog = el("dialog", { className: "dialog", attrs: { "aria-labelledby": heading.id } }, form);
    document.body.append(dialog);
    let answer = null;
    if (no) on(no, "click", () => dialog.close());
    on(form, "submit", async (event) => {
      event.preventDefault();
      if (form.getAttribute("aria-busy") === "true") return;
      if (submit) {
        // Busy, not disabled: a disabled button would drop the focus it holds.
        form.setAttribute("aria-busy", "true");
        ok.setAttribute("aria-disabled", "true");
        let refusal;
        try {
          refusal = await submit(form);
        } catch (error) {
          refusal = `That did not work (${error.message}); try again.`;
        }
        form.removeAttribute("aria-busy");
        ok.removeAttribute("aria-disabled");
        if (refusal) {
          problem.textContent = refusal;
          problem.hidden = false;
          return;
        }
      }
      answer = collect ? collect(form) : true;
      dialog.close();
    });
    on(dialog, "close", () => {
      dialog.remove();
      const after = focusAfter?.() || returnFocus;
      if (after?.isConnected) after.focus({ preventScroll: true });
      resolve(answer);
    });
    dialog.showModal();
    // A question that removes things starts on Cancel; a form on its first field.
    const firstInput = body.map((n) => (n.matches?.("input, select") ? n : n.querySelector?.("input, select"))).find(Boolean);
    ((danger && no) || firstInput || ok).focus();
  });
}

/** Asks before a change that cannot be taken back; resolves true when confirmed. */
export async function confirmDialog({ title, message, confirm }) {
  return !!(await showDialog({ title, body: [el("p", "dialog-message", message)], confirm, danger: true }));
}
