// Collections move by dragging their header (a small move with a mouse or pen, a long press on
// touch): the collection follows the pointer, a bar shows where it would go, and the drop is one
// moveCollection. Escape cancels. From the keyboard, the collection's menu has Move left and right.
//
// Peers do not see a collection drag live yet (the protocol's drags carry items); they see the move
// when it is dropped.
//
// It sees the page through narrow facets: `page` {root, board, announce}, `edits` (BoardEdits) and
// `canEdit()`.
import { el, on } from "../ui/dom.js";
import { named } from "../model/words.js";
import { AutoScroller } from "./auto-scroll.js";
import { Press } from "./press.js";

const MOUSE_SLOP = 6;
const TOUCH_SLOP = 8;
const LONG_PRESS_MS = 300;

export function installCollectionDrag({ page, edits, canEdit }) {
  const board = page.root;
  const pending = new Press({ mouseSlop: MOUSE_SLOP, touchSlop: TOUCH_SLOP, longPressMs: LONG_PRESS_MS, lift });
  let active = null;

  on(board, "pointerdown", (event) => {
    const header = event.target.closest(".collection-header");
    if (!header || !canEdit() || active || document.body.classList.contains("dragging")) return;
    if (event.target.closest("button, input, a, form, textarea, select")) return;
    if (event.pointerType === "mouse" && event.button !== 0) return;
    pending.start(event, { node: header.closest(".collection") });
  });

  on(document, "pointermove", (event) => {
    if (pending.move(event)) return;
    if (active && event.pointerId === active.pointerId) {
      active.x = event.clientX;
      active.y = event.clientY;
      follow();
    }
  });

  on(document, "pointerup", (event) => {
    pending.end(event);
    if (active && event.pointerId === active.pointerId) finish(true);
  });
  on(document, "pointercancel", (event) => {
    pending.end(event);
    if (active && event.pointerId === active.pointerId) finish(false);
  });
  on(document, "keydown", (event) => {
    if (active && event.key === "Escape") {
      event.preventDefault();
      finish(false);
    }
  });
  on(document, "touchmove", (event) => {
    if (active) event.preventDefault();
  }, { passive: false });

  function lift(press, x, y) {
    const id = press.node.dataset.collection;
    const collection = page.board?.collectionById.get(id);
    if (!collection) return;
    const marker = el("div", { className: "collection-marker", attrs: { "aria-hidden": "true" } });
    board.append(marker);
    active = { id, node: press.node, pointerId: press.pointerId, startX: press.x, startY: press.y, x, y, marker, index: null, raf: 0, scroller: new AutoScroller(board, { cards: false }) };
    try {
      press.node.setPointerCapture?.(press.pointerId);
    } catch {
      // The pointer may be gone already; the document listeners still see it.
    }
    press.node.classList.add("collection-lifted");
    document.body.classList.add("moving-collection");
    page.announce(`Lifted the collection ${named(collection.title || "Untitled")}. Release where it should go; Escape cancels.`);
    follow();
    active.raf = requestAnimationFrame(autoScroll);
  }

  /** The index among the other collections where the pointer would put the lifted one. */
  function follow() {
    const a = active;
    a.node.style.transform = `translate(${a.x - a.startX}px, ${a.y - a.startY}px) rotate(1deg)`;
    const others = [...board.querySelectorAll(":scope > .collection")].filter((n) => n !== a.node);
    let index = others.length;
    for (let k = 0; k < others.length; k++) {
      const r = others[k].getBoundingClientRect();
      if (a.x < r.left + r.width / 2) {
        index = k;
        break;
      }
    }
    a.index = index;
    const gap = 8;
    const ref = others[Math.min(index, others.length - 1)];
    if (!ref) {
      a.marker.hidden = true;
      return;
    }
    a.marker.hidden = false;
    const left = index < others.length ? ref.offsetLeft - gap : ref.offsetLeft + ref.offsetWidth + gap / 2;
    a.marker.style.transform = `translate(${left}px, ${ref.offsetTop}px)`;
    a.marker.style.height = `${Math.max(...others.map((n) => n.offsetHeight))}px`;
  }

  /** Each frame: the board scrolls near its edges (auto-scroll.js: one collection per dwell on a phone). */
  function autoScroll(now) {
    const a = active;
    if (!a) return;
    if (a.scroller.frame(now, a.x, a.y)) follow();
    a.raf = requestAnimationFrame(autoScroll);
  }

  function finish(drop) {
    const a = active;
    active = null;
    cancelAnimationFrame(a.raf);
    a.scroller.stop();
    a.marker.remove();
    a.node.classList.remove("collection-lifted");
    a.node.style.transform = "";
    document.body.classList.remove("moving-collection");
    const collections = page.board.collections;
    const from = collections.findIndex((c) => c.id === a.id);
    const title = named(collections[from]?.title || "Untitled");
    if (!drop || from < 0 || a.index === null || a.index === from) {
      page.announce(`The collection ${title} stays where it was.`);
      return;
    }
    edits.moveCollection(a.id, a.index);
    page.renderNow();
    page.announce(`Moved ${title} to position ${a.index + 1} of ${collections.length}.`);
  }
}
