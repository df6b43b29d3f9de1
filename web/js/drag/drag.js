// Pointer drags (mouse, touch, pen) through Pointer Events: lift after a small move (mouse, pen)
// or a long press (touch), a ghost under the pointer with a count badge, the gap opening where
// the room's proposal says it would land, auto-scroll near edges, Escape to cancel (the ghost
// flies home), drop and settle. Shift/Ctrl/⌘-click selects; on touch, tapping other cards with
// another finger while dragging adds them to the drag.
//
// Dropping into a card (R7) is deliberate (into-zone.js): over a card's middle a "Drop into" label
// shows on the card, and only holding the pointer on that label groups; a pause alone drops beside.
// Near an edge the page scrolls at a bounded, time-based speed (auto-scroll.js). The
// Trash (`trash` {contains(x, y), hover(over), take(drag)}) takes the drag's cards when dropped on.
//
// It sees the page through narrow facets: `page` {root, view, board, announce, toast}, `drags`
// (the drag controller), `selection`, `trash`, and `cursor` {ready(), send(x, y)} for this
// member's pointer.
import { itemLabel } from "../model/card-content.js";
import { DRAG_SHIELD, el, elementAt, on } from "../ui/dom.js";
import { AutoScroller } from "./auto-scroll.js";
import { IntoZone } from "./into-zone.js";
import { Press } from "./press.js";

const MOUSE_SLOP = 5;
const TOUCH_SLOP = 8;
const LONG_PRESS_MS = 220;
const INTO_DWELL_MS = 400;

export function installPointerDrag({ page, drags, selection, trash, cursor }) {
  const board = page.root;
  const pending = new Press({ mouseSlop: MOUSE_SLOP, touchSlop: TOUCH_SLOP, longPressMs: LONG_PRESS_MS, lift });
  let active = null; // {drag, pointerId, ghost, offsetX, offsetY, x, y, raf, scroller, into}
  let suppressClick = false;
  let lastCursor = 0;

  on(board, "pointerdown", (event) => {
    const card = event.target.closest(".card");
    if (!card || !board.contains(card)) return;
    if (event.target.closest("a, .drag-out, button, input, textarea, select, form")) return;
    if (active) {
      // Another finger taps a card while dragging: add it to the drag (itemsForAddingTo).
      if (event.pointerId !== active.pointerId && card.dataset.item) {
        event.preventDefault();
        drags.add(active.drag, [card.dataset.item]);
      }
      return;
    }
    if (event.pointerType === "mouse" && event.button !== 0) return;
    if (drags.state) return; // a keyboard or external drag is in progress
    pending.start(event, { card, event });
  });

  on(document, "pointermove", (event) => {
    if (!active && Date.now() - lastCursor > 50 && cursor.ready()) {
      lastCursor = Date.now();
      if (board.contains(event.target)) cursor.send(event.clientX, event.clientY);
    }
    if (pending.move(event)) return;
    if (active && event.pointerId === active.pointerId) {
      active.x = event.clientX;
      active.y = event.clientY;
      active.copy = event.altKey;
      moveGhost();
      if (Date.now() - lastCursor > 50) {
        lastCursor = Date.now();
        cursor.send(event.clientX, event.clientY);
      }
      retarget();
    }
  });

  on(document, "pointerup", (event) => {
    pending.end(event);
    if (active && event.pointerId === active.pointerId) finish(event);
  });

  on(document, "pointercancel", (event) => {
    pending.end(event);
    if (active && event.pointerId === active.pointerId) cancel("The drag was interrupted.");
  });

  // No text is selected while a card is carried over it.
  on(document, "selectstart", (event) => {
    if (active) event.preventDefault();
  });

  // While a touch drag is live the page must not scroll under the finger.
  on(document, "touchmove", (event) => {
    if (active || pending.current?.lifted) event.preventDefault();
  }, { passive: false });
  on(board, "contextmenu", (event) => {
    if (active || pending.current) event.preventDefault();
  });

  on(document, "keydown", (event) => {
    if (!active) return;
    if (event.key === "Escape") {
      event.preventDefault();
      cancel();
    } else if (event.key === "Alt") {
      active.copy = true;
      retarget();
    }
  });
  on(document, "keyup", (event) => {
    if (active && event.key === "Alt") {
      active.copy = false;
      retarget();
    }
  });

  on(board, "click", (event) => {
    if (suppressClick) {
      suppressClick = false;
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    const card = event.target.closest(".card");
    if (!card) {
      if (!event.target.closest(".collection-header")) selection.clear();
      return;
    }
    if (event.target.closest("a")) return;
    if (event.shiftKey || event.ctrlKey || event.metaKey) {
      event.preventDefault();
      selection.toggle(card.dataset.item);
    } else if (!selection.has(card.dataset.item)) {
      selection.clear();
    }
  }, true);

  function lift(press, x, y) {
    const card = press.card;
    const id = card.dataset.item;
    const drag = drags.begin(selection.itemsFor(id));
    if (!drag) return;
    const rect = card.getBoundingClientRect();
    drag.gapSize = { width: rect.width, height: rect.height };
    drag.onRefused = () => {
      if (active?.drag === drag) flyHome(active);
    };
    const ghost = makeGhost(card, drag, rect);
    const into = new IntoZone({ cardElement: (item) => page.view.cardElement(item), dwellMs: INTO_DWELL_MS });
    active = { drag, pointerId: press.pointerId, ghost, offsetX: press.x - rect.left, offsetY: press.y - rect.top, x, y, copy: false, home: rect, into, scroller: new AutoScroller(board) };
    try {
      card.setPointerCapture?.(press.pointerId);
    } catch {
      // The pointer may already be gone; the document listeners still see it.
    }
    if (press.type === "mouse") active.shield = makeShield();
    moveGhost();
    retarget();
    page.announce(`Lifted ${drag.items.length > 1 ? `${drag.items.length} cards` : itemLabel(page.board.item(id))}.`);
    active.raf = requestAnimationFrame(autoScroll);
  }

  /**
   * A mouse drag's cursor (grabbing, not-allowed, copy) is shown by a pane over the page rather
   * than by a rule for every element: restyling every card of a big board at a lift, and at each
   * change of what a drop would do, froze the page. Hit tests look through it (ui/dom.js
   * elementAt); the wheel still scrolls what is under the pointer.
   */
  function makeShield() {
    const shield = el("div", { className: DRAG_SHIELD, attrs: { "aria-hidden": "true" } });
    on(shield, "wheel", (event) => {
      const under = elementAt(event.clientX, event.clientY);
      const scroller = under?.closest(".collection") || (board.contains(under) ? board : null);
      scroller?.scrollBy({ left: event.deltaX, top: event.deltaY });
    }, { passive: true });
    document.body.append(shield);
    return shield;
  }

  function makeGhost(card, drag, rect) {
    const face = card.cloneNode(true);
    face.removeAttribute("tabindex");
    face.removeAttribute("id");
    face.classList.remove("selected", "lifted", "remote-lifted", "into-target");
    face.hidden = false;
    const badge = el("span", "count-badge");
    const op = el("span", "op-badge");
    const ghost = el("div", { className: "ghost", attrs: { "aria-hidden": "true" }, style: { width: `${rect.width}px`, height: `${rect.height}px` } }, face, badge, op);
    document.body.append(ghost);
    drag.onRender = (state) => {
      const operation = state?.proposal?.operation;
      ghost.classList.toggle("copy", operation === "copy");
      const refused = !drag.overTrash && (!state?.target || operation === "forbidden" || operation === "cancel");
      ghost.classList.toggle("forbidden", refused);
      ghost.classList.toggle("trashing", !!drag.overTrash);
      ghost.classList.toggle("stack", drag.items.length > 1);
      badge.textContent = drag.items.length > 1 ? String(drag.items.length) : "";
      op.textContent = drag.overTrash ? "×" : operation === "copy" ? "+" : refused ? "⊘" : "";
    };
    return ghost;
  }

  function moveGhost() {
    const a = active;
    a.ghost.style.transform = `translate(${a.x - a.offsetX}px, ${a.y - a.offsetY}px) rotate(1.5deg)`;
  }

  /** Finds the target under the pointer (the Trash, or a place with the drop-into dwell) and tells the drag controller. */
  function retarget() {
    const a = active;
    if (!a) return;
    const overTrash = !!trash?.contains(a.x, a.y) && a.drag.items.length > 0;
    if (overTrash !== !!a.drag.overTrash) {
      a.drag.overTrash = overTrash;
      trash?.hover(overTrash);
      if (overTrash) page.announce(`Over the Trash: release to delete ${a.drag.items.length > 1 ? `${a.drag.items.length} cards` : `“${a.drag.label}”`}.`);
    }
    if (overTrash) {
      a.into.clear();
      drags.hover(a.drag, null, a.copy);
      return;
    }
    const found = page.view.targetAt(a.x, a.y, a.drag.items, page.board);
    let target = found;
    const into = a.into.update(a.x, a.y, performance.now(), found?.intoCandidate ?? null);
    // On a card's middle band (and its label) the gap keeps its place, so the card stays under the pointer.
    const keep = !!found && a.reorder?.section === found.section && !!(into || found.intoCandidate);
    const at = keep ? a.reorder : found;
    if (into?.into && at) {
      const ids = page.board.itemIDs(at.section) || [];
      target = { ...at, intent: "insertIntoDestinationIndexPath", targetItem: into.into, fullIndex: ids.indexOf(into.into) };
    } else if (into?.hold && at) {
      target = at;
    }
    if (target?.intent !== "insertIntoDestinationIndexPath") a.reorder = target;
    const before = JSON.stringify(a.drag.target);
    drags.hover(a.drag, target, a.copy);
    if (JSON.stringify(a.drag.target) !== before && target) page.announce(drags.describe(a.drag));
  }

  /** Each frame: scrolls what the pointer is near the edge of, and retargets (the label's dwell runs on time too). */
  function autoScroll(now) {
    const a = active;
    if (!a) return;
    if (a.scroller.frame(now, a.x, a.y) || a.into.item) retarget();
    a.raf = requestAnimationFrame(autoScroll);
  }

  function stop(a) {
    cancelAnimationFrame(a.raf);
    a.shield?.remove();
    a.scroller.stop();
    active = null;
    suppressClick = true;
    setTimeout(() => (suppressClick = false), 0);
  }

  function finish() {
    const a = active;
    stop(a);
    retargetFinal(a);
    a.into.clear();
    if (a.drag.overTrash) {
      trash.take(a.drag);
      a.ghost.classList.add("trashed");
      setTimeout(() => a.ghost.remove(), 250);
      return;
    }
    const result = drags.drop(a.drag);
    if (!result.ok) {
      page.toast(result.reason, "error");
      page.announce(`Not dropped: ${result.reason}`);
      flyTo(a, a.drag.items[0]);
      return;
    }
    page.announce(`Dropped ${result.items.length > 1 ? `${result.items.length} cards` : `“${a.drag.label}”`}. ${describeLanding(result.items[0])}`);
    flyTo(a, result.items[0], result.items);
  }

  function retargetFinal(a) {
    // The last pointer position decides, even if no frame ran since the last move.
    active = a;
    retarget();
    active = null;
  }

  function describeLanding(id) {
    const p = page.board.position(id);
    if (!p) return "";
    const section = page.board.sections.get(p.section);
    return `Position ${p.index + 1} of ${section?.section.items.length ?? "?"} in ${section?.section.title || section?.collection.title || "the collection"}.`;
  }

  function cancel(message) {
    const a = active;
    if (!a) return;
    stop(a);
    trash?.hover(false);
    drags.cancel(a.drag, message, "info");
    page.announce(`Cancelled. “${a.drag.label}” is back in its place.`);
    flyTo(a, a.drag.items[0]);
  }

  function flyHome(a) {
    stop(a);
    flyTo(a, a.drag.items[0]);
  }

  /** Animates the ghost onto the card `id` (its new or old place), then removes it. */
  function flyTo(a, id, settling = [id]) {
    const ghost = a.ghost;
    const nodes = settling.map((i) => page.view.cardElement(i)).filter(Boolean);
    const card = page.view.cardElement(id);
    if (!card || !card.isConnected || matchMedia("(prefers-reduced-motion: reduce)").matches) {
      ghost.remove();
      return;
    }
    nodes.forEach((n) => n.classList.add("settling"));
    const r = card.getBoundingClientRect();
    ghost.classList.add("flying");
    ghost.style.transform = `translate(${r.left}px, ${r.top}px)`;
    ghost.style.width = `${r.width}px`;
    ghost.style.height = `${r.height}px`;
    const done = () => {
      ghost.remove();
      nodes.forEach((n) => n.classList.remove("settling"));
    };
    ghost.addEventListener("transitionend", done, { once: true });
    setTimeout(done, 400);
  }
}
