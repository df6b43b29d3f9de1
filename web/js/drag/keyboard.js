// Keyboard drag and drop: cards are focusable; Space lifts the focused card (or the selection it
// belongs to); Up/Down move the gap through the collection's sections, Left/Right to the
// neighbouring collection; I turns the drop into a drop into the card next to the gap (making a
// stack, R7; I again turns it back); Space/Enter drops; Delete drops in the Trash; Escape cancels.
// Shift+Space toggles the focused card in the selection. Without a drag, arrow keys move focus
// between cards (Enter edits a card: card-menu.js). Each step is spoken through the live region.
//
// It sees the page through narrow facets: `page` {root, view, board, announce, toast, renderNow},
// `drags` (the drag controller), `selection` and `trash` {take(drag)}.
import { itemLabel } from "../model/card-content.js";
import { FILTERED_OUT, isShown } from "../board/search.js";
import { on } from "../ui/dom.js";

const INTO = "insertIntoDestinationIndexPath";

/** The cards focus moves between: neither lifted away nor hidden by the filter. */
const IN_VIEW = `.card:not([hidden]):not(.${FILTERED_OUT})`;

export function installKeyboard({ page, drags, selection, trash }) {
  const board = page.root;
  let kd = null; // the keyboard drag in progress

  on(board, "keydown", (event) => {
    if (kd || drags.state) return;
    const card = event.target.closest?.(".card");
    if (!card || event.target !== card) return;
    const id = card.dataset.item;
    if (event.key === " " && event.shiftKey) {
      event.preventDefault();
      selection.toggle(id);
    } else if (event.key === " ") {
      event.preventDefault();
      lift(id);
    } else if (event.key === "Escape" && selection.items.length) {
      event.preventDefault();
      selection.clear();
      page.announce("Selection cleared.");
    } else if (event.key.startsWith("Arrow")) {
      event.preventDefault();
      moveFocus(card, event.key);
    }
  });

  // While a keyboard drag is live, keys go to it wherever focus is.
  on(document, "keydown", (event) => {
    if (!kd) return;
    if (drags.state !== kd.drag) {
      kd = null;
      return;
    }
    const key = event.key;
    if (key === " " || key === "Enter") {
      event.preventDefault();
      drop();
    } else if (key === "Escape") {
      event.preventDefault();
      cancel();
    } else if (key === "Delete" && trash) {
      event.preventDefault();
      const drag = kd.drag;
      kd = null;
      const next = nextFocus(drag.items);
      trash.take(drag);
      page.renderNow();
      next?.focus();
    } else if (key === "ArrowDown" || key === "ArrowUp") {
      event.preventDefault();
      step(key === "ArrowDown" ? 1 : -1);
    } else if (key === "ArrowRight" || key === "ArrowLeft") {
      event.preventDefault();
      jump(key === "ArrowRight" ? 1 : -1);
    } else if (key === "Home" || key === "End") {
      event.preventDefault();
      const t = kd.drag.target;
      setTarget(t.collection, t.section, key === "Home" ? 0 : Infinity);
    } else if (key === "i" || key === "I") {
      event.preventDefault();
      toggleInto();
    } else if (key === "Tab") {
      event.preventDefault(); // keep focus in the drag until it drops or cancels
    } else if (key === "Alt") {
      kd.copy = !kd.copy;
      setTarget(kd.drag.target.collection, kd.drag.target.section, kd.drag.target.index);
    }
  }, true);

  function lift(id) {
    const items = selection.itemsFor(id);
    const drag = drags.begin(items, { keyboard: true });
    if (!drag) {
      page.announce(drags.canLift() ? `${itemLabel(page.board.item(id))} cannot be lifted.` : drags.liftRefusal());
      return;
    }
    const node = page.view.cardElement(id);
    const rect = node?.getBoundingClientRect();
    drag.gapSize = rect ? { width: rect.width, height: rect.height } : null;
    drag.label = items.length > 1 ? `${items.length} cards` : itemLabel(page.board.item(id));
    kd = { drag, copy: false, home: id };
    drag.onRefused = () => {
      kd = null;
      page.view.cardElement(id)?.focus();
    };
    drag.onProposal = () => {
      // The room's answer may differ from the local guess (e.g. a lease elsewhere): say so.
      const text = drags.describe(drag);
      if (text !== kd?.spoken) speak(text);
    };
    const p = page.board.position(id);
    if (p.group) {
      // A card inside a group: start at its group's place.
      const group = page.board.position(p.group);
      setTarget(group.collection, group.section, indexAfter(group.section, group.index), true);
    } else {
      setTarget(p.collection, p.section, indexAfter(p.section, p.index), true);
    }
    kd.spoken = drags.describe(drag);
    page.announce(`Lifted “${drag.label}”. ${kd.spoken} Use the arrow keys to move, I to drop into a card, Space to drop, Escape to cancel.`);
  }

  /** The index in the section without the dragged items where position `fullIndex` falls. */
  function indexAfter(sectionId, fullIndex) {
    const moving = new Set(kd.drag.items);
    const ids = page.board.itemIDs(sectionId) || [];
    return ids.slice(0, fullIndex).filter((x) => !moving.has(x)).length;
  }

  function remainingIds(sectionId) {
    const moving = new Set(kd.drag.items);
    return (page.board.itemIDs(sectionId) || []).filter((x) => !moving.has(x));
  }

  function setTarget(collection, section, index, quiet) {
    const remaining = remainingIds(section);
    const at = Math.max(0, Math.min(index, remaining.length));
    const target = {
      collection,
      section,
      index: at,
      intent: "insertAtDestinationIndexPath",
      after: at > 0 ? remaining[at - 1] : undefined,
      before: at < remaining.length ? remaining[at] : undefined,
    };
    drags.hover(kd.drag, target, kd.copy);
    page.renderNow();
    const gap = page.view.gap;
    if (gap.isConnected) {
      gap.setAttribute("aria-label", `Drop position for ${kd.drag.label}`);
      gap.focus({ preventScroll: true });
      gap.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    if (!quiet) speak(drags.describe(kd.drag));
  }

  function speak(text) {
    kd.spoken = text;
    page.announce(text);
  }

  /** The sections of the board in order, as [collection, section] pairs, for one collection. */
  function sectionsOf(collectionId) {
    const c = page.board.collectionById.get(collectionId);
    return c ? c.sections.map((s) => s.id) : [];
  }

  /**
   * The places a drop can be seen to go in a section, as indices in it without the dragged items:
   * before each card in view, and the end. With a filter on, the cards it hides between two in view
   * are one place (the gap shows the same there), taken as just before the next card in view, as
   * the pointer's target does (board/drop-target.js).
   */
  function places(sectionId) {
    const remaining = remainingIds(sectionId);
    const shown = remaining.flatMap((id, k) => (isShown(page.view.cardElement(id)) ? [k] : []));
    return [...shown, remaining.length];
  }

  function step(delta) {
    const t = kd.drag.target;
    const sections = sectionsOf(t.collection);
    let s = sections.indexOf(t.section);
    const here = places(t.section);
    // The place the gap is seen at, then the one before or after it.
    let index = here[here.findIndex((k) => k >= t.index) + delta];
    if (index === undefined && delta > 0 && s < sections.length - 1) {
      s += 1;
      index = places(sections[s])[0];
    } else if (index === undefined && delta < 0 && s > 0) {
      s -= 1;
      index = remainingIds(sections[s]).length;
    }
    if (index === undefined) {
      speak(`${drags.describe(kd.drag)} ${delta < 0 ? "Already at the start." : "Already at the end."}`);
      return;
    }
    setTarget(t.collection, sections[s], index);
  }

  /**
   * Drop into: the card just after the gap (or before it, at a section's end) becomes the target,
   * as holding on a card's "Drop into" label does with the pointer (into-zone.js); again, back.
   */
  function toggleInto() {
    const t = kd.drag.target;
    if (!t) return;
    if (t.intent === INTO) {
      setTarget(t.collection, t.section, t.index);
      return;
    }
    const card = t.before ?? t.after;
    if (!card) {
      speak(`${drags.describe(kd.drag)} No card here to drop into.`);
      return;
    }
    const ids = page.board.itemIDs(t.section) || [];
    drags.hover(kd.drag, { ...t, intent: INTO, targetItem: card, fullIndex: ids.indexOf(card) }, kd.copy);
    page.renderNow();
    speak(drags.describe(kd.drag));
  }

  function jump(delta) {
    const t = kd.drag.target;
    const collections = page.board.collections;
    const at = collections.findIndex((c) => c.id === t.collection);
    const next = collections[at + delta];
    if (!next || next.sections.length === 0) {
      speak(`${drags.describe(kd.drag)} No collection further ${delta > 0 ? "right" : "left"}.`);
      return;
    }
    setTarget(next.id, next.sections[0].id, t.index);
  }

  function drop() {
    const drag = kd.drag;
    kd = null;
    const result = drags.drop(drag);
    if (!result.ok) {
      page.announce(`Not dropped: ${result.reason} “${drag.label}” is back in its place.`);
      page.toast(result.reason, "error");
      page.view.cardElement(drag.items[0])?.focus();
      return;
    }
    const id = result.items[0];
    const p = page.board.position(id);
    const section = p && page.board.sections.get(p.section);
    page.announce(`Dropped “${drag.label}”. ${p ? `Position ${p.index + 1} of ${section.section.items.length} in ${section.section.title || section.collection.title}.` : ""}`);
    page.view.cardElement(id)?.focus();
  }

  function cancel() {
    const drag = kd.drag;
    kd = null;
    drags.cancel(drag);
    const id = drag.items[0];
    const p = page.board.position(id);
    const section = p && page.board.sections.get(p.section);
    page.announce(`Cancelled. “${drag.label}” is back at position ${p ? p.index + 1 : "?"} in ${section ? section.section.title || section.collection.title : "its collection"}.`);
    page.view.cardElement(id)?.focus();
  }

  /** The card to focus once `items` leave: the next one in the first item's section, else the one before. */
  function nextFocus(items) {
    const p = page.board.position(items[0]);
    if (!p || p.group) return null;
    const rest = (page.board.itemIDs(p.section) || []).filter((x) => !items.includes(x));
    return page.view.cardElement(rest[Math.min(p.index, rest.length - 1)]);
  }

  function moveFocus(card, key) {
    const cards = [...board.querySelectorAll(IN_VIEW)];
    const at = cards.indexOf(card);
    if (key === "ArrowLeft" || key === "ArrowRight") {
      // Between collections: the card at the same row in the neighbouring collection.
      const collections = [...board.querySelectorAll(".collection")];
      const c = collections.indexOf(card.closest(".collection"));
      const next = collections[c + (key === "ArrowRight" ? 1 : -1)];
      if (!next) return;
      const own = [...card.closest(".collection").querySelectorAll(IN_VIEW)].indexOf(card);
      const theirs = [...next.querySelectorAll(IN_VIEW)];
      (theirs[Math.min(own, theirs.length - 1)] || null)?.focus();
      return;
    }
    const next = cards[at + (key === "ArrowDown" ? 1 : -1)];
    next?.focus();
  }
}
