// Everyone else, live: peers' drags (lifted cards are dimmed and named by the board view; here
// their proposed gap or drop-into target is drawn in their color) and their cursors.
import { el } from "./dom.js";

export class RemoteLayer {
  constructor(view) {
    this.view = view;
    this.markers = new Map(); // session key → element
    this.cursors = new Map(); // member id → element
    this.targets = new Set();
  }

  /**
   * Draws each remote drag's hover: a bar in the peer's color where its items would land, or an
   * outline around the card it would drop into; forbidden hovers are drawn dashed and crossed.
   */
  draw(board, drags, memberOf) {
    const live = new Set();
    for (const node of this.targets) {
      node.classList.remove("remote-target", "remote-target-forbidden");
      node.style.removeProperty("--target-color");
    }
    this.targets.clear();
    for (const [key, drag] of drags) {
      const member = memberOf(drag.member);
      if (!drag.target || !member) continue;
      const list = this.view.sectionList(drag.target.section);
      if (!list) continue;
      const forbidden = drag.proposal && (drag.proposal.operation === "forbidden" || drag.proposal.operation === "cancel");
      const intent = drag.proposal?.intent || drag.target.intent;
      if (intent === "insertIntoDestinationIndexPath") {
        const ids = board.itemIDs(drag.target.section) || [];
        const card = this.view.cardElement(ids[drag.target.index]);
        if (card) {
          card.classList.add("remote-target");
          card.classList.toggle("remote-target-forbidden", !!forbidden);
          card.style.setProperty("--target-color", member.color);
          this.targets.add(card);
        }
        continue;
      }
      live.add(key);
      let marker = this.markers.get(key);
      if (!marker) {
        marker = el("div", "remote-gap");
        marker.append(el("span", "remote-gap-name"));
        marker.setAttribute("aria-hidden", "true");
        this.markers.set(key, marker);
      }
      marker.dataset.session = key;
      marker.dataset.member = drag.member;
      marker.style.setProperty("--peer-color", member.color);
      marker.classList.toggle("forbidden", !!forbidden);
      marker.classList.toggle("copy", drag.proposal?.operation === "copy");
      marker.firstChild.textContent = `${member.name}${forbidden ? " ⊘" : drag.proposal?.operation === "copy" ? " +" : ""}`;
      // Measure before (re)parenting: a marker still placed for another list could overflow this
      // one and change its layout (a scrollbar) while measuring.
      const place = this.#measure(list, board, drag);
      if (marker.parentElement !== list) {
        marker.classList.add("jump");
        list.append(marker);
      }
      marker.classList.toggle("vertical", place.vertical);
      marker.style.transform = `translate(${place.x}px, ${place.y}px)`;
      marker.style.width = `${place.w}px`;
      marker.style.height = `${place.h}px`;
      if (marker.classList.contains("jump")) requestAnimationFrame(() => marker.classList.remove("jump"));
    }
    for (const [key, marker] of this.markers) {
      if (!live.has(key)) {
        marker.remove();
        this.markers.delete(key);
      }
    }
  }

  #measure(list, board, drag) {
    // Layout offsets (not client rects) so running FLIP animations do not skew the marker.
    const moving = new Set(drag.items);
    const ids = (board.itemIDs(drag.target.section) || []).filter((id) => !moving.has(id));
    const cards = ids.map((id) => this.view.cardElement(id)).filter((n) => n && !n.hidden && n.isConnected && n.offsetParent === list);
    const grid = list.dataset.layout === "grid";
    let x, y, w, h;
    const index = Math.min(drag.target.index, cards.length);
    if (cards.length === 0) {
      x = 8; y = 8; w = list.clientWidth - 16; h = 4;
    } else {
      const ref = cards[Math.min(index, cards.length - 1)];
      const at = index < cards.length;
      if (grid) {
        x = at ? ref.offsetLeft - 5 : ref.offsetLeft + ref.offsetWidth + 1;
        y = ref.offsetTop; w = 4; h = ref.offsetHeight;
      } else {
        x = ref.offsetLeft; w = ref.offsetWidth; h = 4;
        y = at ? ref.offsetTop - 5 : ref.offsetTop + ref.offsetHeight + 1;
      }
    }
    return { x: Math.round(x), y: Math.round(y), w: Math.max(4, Math.round(w)), h: Math.max(4, Math.round(h)), vertical: grid && cards.length > 0 };
  }

  /** Shows a peer's pointer, in board content coordinates. */
  cursor(layer, member, x, y) {
    let node = this.cursors.get(member.id);
    if (!node) {
      node = el("div", "remote-cursor");
      node.append(el("span", "remote-cursor-name"));
      node.setAttribute("aria-hidden", "true");
      layer.append(node);
      this.cursors.set(member.id, node);
    }
    node.style.setProperty("--peer-color", member.color);
    node.firstChild.textContent = member.name;
    node.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
    node.hidden = false;
    clearTimeout(node._fade);
    node._fade = setTimeout(() => (node.hidden = true), 8000);
  }

  forget(memberId) {
    this.cursors.get(memberId)?.remove();
    this.cursors.delete(memberId);
  }
}
