// What a person can do to a card besides dragging it: its ⋯ menu (Open card, Edit card, Delete
// card) and the keys on a focused card — F2 edits it in place (Enter opens it: card/card-view.js),
// Delete (or Backspace) deletes it or the selection it is in, N adds a card to its section, the
// context-menu key or Shift+F10 opens the menu — and a double-click edits. Viewers get none of it.
//
// It sees the page through narrow facets: `page` {root, view, board, announce}, `editor`
// (CardEditor), `edits` (BoardEdits), `selection`, `canEdit()`, `openCard(id)` and `moveTo(id)`
// ("Move to…" for the card or its selection: move-to.js, which also answers the key M).
import { el, on } from "../ui/dom.js";
import { openMenu, menuOpen } from "../ui/menu.js";
import { itemsLabel } from "./board-edits.js";
import { readContent } from "../model/card-content.js";
import { named } from "../model/words.js";

export function installCardActions({ page, editor, edits, selection, canEdit, openCard, moveTo }) {
  const board = page.root;

  /** The cards a delete from `id` takes: the selection when `id` is in it, else `id`. */
  const targetsOf = (id) => (selection.has(id) && selection.items.length > 1 ? [...selection.items] : [id]);

  function remove(id, { focusNext = true } = {}) {
    const b = page.board;
    const ids = targetsOf(id).filter((x) => b.item(x) && !b.item(x).placeholder);
    if (!ids.length) return;
    const label = itemsLabel(b, ids);
    // Where focus goes next: the card after the deleted ones in the section, else the one before.
    const position = b.position(id);
    const siblings = position && !position.group ? b.itemIDs(position.section).filter((x) => !ids.includes(x)) : [];
    const next = siblings[Math.min(position?.index ?? 0, siblings.length - 1)];
    edits.delete(ids);
    selection.clear();
    page.announce(`Deleted ${named(label)}.`);
    page.renderNow();
    if (focusNext) (page.view.cardElement(next) || page.view.sectionEntry(position?.section)?.footer.querySelector("button"))?.focus();
  }

  function menuFor(card, anchor) {
    const id = card.dataset.item;
    const item = page.board.item(id);
    if (!item || item.placeholder || !canEdit()) return;
    const count = targetsOf(id).length;
    // R12: while someone else edits it, the menu says who instead of offering Edit card.
    const holder = editor.session.members.editorOf(id);
    openMenu(anchor, [
      !card.classList.contains("child-card") && { label: "Open card", action: () => openCard(id) },
      readContent(item).editable && !card.classList.contains("child-card") &&
        (holder ? { label: `${holder.name} is editing`, disabled: true, action: () => {} } : { label: "Edit card", action: () => editor.edit(id) }),
      moveTo && { label: count > 1 ? `Move to… (${count} cards)` : "Move to…", action: () => moveTo(id) },
      { label: count > 1 ? `Delete ${count} cards` : "Delete card", danger: true, action: () => remove(id) },
    ], { label: `Actions for ${named(itemsLabel(page.board, [id]))}`, returnFocus: card });
  }

  /** The ⋯ button of a card, for editors (kept by the view's card decorator). */
  function decorate(node, item) {
    let button = node.querySelector(":scope > .card-menu-button");
    const wanted = canEdit() && !item.placeholder;
    if (wanted && !button) {
      button = el("button", { className: "card-menu-button", text: "⋯", attrs: { "aria-label": "Card actions", "aria-haspopup": "menu", "aria-expanded": "false", tabindex: "-1" }, props: { type: "button", title: "Card actions" } });
      node.append(button);
    } else if (!wanted && button) {
      button.remove();
    }
    // Written only when it changes: this runs for every card at every render of the board.
    const shortcuts = wanted ? "Enter F2 Delete N M Shift+F10" : null;
    if (node.getAttribute("aria-keyshortcuts") === shortcuts) return;
    if (shortcuts) node.setAttribute("aria-keyshortcuts", shortcuts);
    else node.removeAttribute("aria-keyshortcuts");
  }

  on(board, "click", (event) => {
    const button = event.target.closest(".card-menu-button");
    if (!button) return;
    event.stopPropagation();
    menuFor(button.closest(".card"), button);
  });

  on(board, "dblclick", (event) => {
    const card = event.target.closest(".card");
    if (!card || card.classList.contains("child-card") || event.target.closest("a, button, .card-editor") || !canEdit()) return;
    event.preventDefault();
    editor.edit(card.dataset.item);
  });

  on(board, "keydown", (event) => {
    if (!canEdit() || menuOpen() || event.defaultPrevented) return;
    if (event.target.closest?.("input, textarea, select, .card-editor")) return;
    const plain = !event.ctrlKey && !event.metaKey && !event.altKey;
    const card = event.target.closest?.(".card");
    if (card && event.target === card) {
      const id = card.dataset.item;
      if (event.key === "F2" && plain && !event.shiftKey) {
        if (!card.classList.contains("child-card") && editor.edit(id)) event.preventDefault();
        return;
      }
      if ((event.key === "Delete" || event.key === "Backspace") && plain) {
        event.preventDefault();
        remove(id);
        return;
      }
      if (event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey)) {
        event.preventDefault();
        menuFor(card, card.querySelector(".card-menu-button") || card);
        return;
      }
    }
    // N: a new card in the section that has focus (a card in it, its header or its footer).
    if ((event.key === "n" || event.key === "N") && plain && !event.shiftKey) {
      const section = event.target.closest?.(".section");
      const id = card && card.classList.contains("child-card") ? null : section?.dataset.section;
      if (id && editor.openComposer(id)) event.preventDefault();
    }
  });

  return { decorate, remove };
}
