// A popup menu (the WAI-ARIA menu button pattern): opened from a button, the first item focused,
// arrow keys, Home and End move, Enter or Space chooses, Escape or Tab closes and focus goes back.
// One menu is open at a time; a press outside closes it. Items are big enough for a finger.
import { el, on } from "./dom.js";

let current = null;

/** Closes the open menu, if any. */
export function closeMenu({ restoreFocus = false } = {}) {
  const menu = current;
  if (!menu) return;
  current = null;
  menu.cleanup.forEach((off) => off());
  menu.node.remove();
  menu.anchor?.setAttribute("aria-expanded", "false");
  if (restoreFocus) (menu.returnFocus || menu.anchor)?.focus({ preventScroll: true });
}

/**
 * Opens a menu under `anchor` with `items` [{label, action, danger?, disabled?}] (falsy entries are
 * skipped). `label` names the menu; `returnFocus` gets focus back (default: the anchor).
 */
export function openMenu(anchor, items, { label, returnFocus } = {}) {
  closeMenu();
  const buttons = [];
  const node = el("div", { className: "menu", attrs: { role: "menu", "aria-label": label || "Actions" } });
  for (const item of items.filter(Boolean)) {
    const button = el("button", {
      className: `menu-item${item.danger ? " danger" : ""}`,
      text: item.label,
      attrs: { role: "menuitem", type: "button", tabindex: "-1", "aria-disabled": item.disabled ? "true" : null },
    });
    on(button, "click", (event) => {
      event.stopPropagation();
      if (item.disabled) return;
      closeMenu({ restoreFocus: true });
      item.action();
    });
    buttons.push(button);
    node.append(button);
  }
  document.body.append(node);
  place(node, anchor);
  anchor.setAttribute("aria-expanded", "true");
  const focusAt = (n) => buttons[(n + buttons.length) % buttons.length]?.focus();
  const cleanup = [
    on(node, "keydown", (event) => {
      const at = buttons.indexOf(document.activeElement);
      if (event.key === "ArrowDown") focusAt(at + 1);
      else if (event.key === "ArrowUp") focusAt(at - 1);
      else if (event.key === "Home") focusAt(0);
      else if (event.key === "End") focusAt(buttons.length - 1);
      else if (event.key === "Escape") closeMenu({ restoreFocus: true });
      else if (event.key === "Tab") closeMenu({ restoreFocus: true });
      else return;
      event.preventDefault();
      event.stopPropagation();
    }),
    on(document, "pointerdown", (event) => {
      if (!node.contains(event.target) && event.target !== anchor && !anchor.contains(event.target)) closeMenu();
    }, true),
    on(window, "resize", () => closeMenu()),
  ];
  current = { node, anchor, returnFocus, cleanup };
  focusAt(Math.max(0, buttons.findIndex((b) => b.getAttribute("aria-disabled") !== "true")));
  return node;
}

/** Whether a menu is open (for key handlers that should leave it alone). */
export function menuOpen() {
  return !!current;
}

/** Below the anchor, right edges aligned, kept inside the viewport. */
function place(node, anchor) {
  const r = anchor.getBoundingClientRect();
  const w = node.offsetWidth;
  const h = node.offsetHeight;
  let left = Math.min(r.right - w, innerWidth - w - 8);
  left = Math.max(8, left);
  let top = r.bottom + 4;
  if (top + h > innerHeight - 8) top = Math.max(8, r.top - h - 4);
  node.style.left = `${Math.round(left)}px`;
  node.style.top = `${Math.round(top)}px`;
}
