// Everyone else, live: peers' drags and their cursors. A peer's lifted cards are dimmed and named
// by the board view, and so is the gap its drag opens where the cards would land (the same gap the
// dragger sees, in the peer's colour: `gaps`); here the card a peer would drop into is outlined in
// its colour (`drawTargets`), and peers' pointers are drawn.
import { el } from "../ui/dom.js";

const INTO = "insertIntoDestinationIndexPath";
const intentOf = (drag) => drag.proposal?.intent || drag.target?.intent;

export class RemoteLayer {
  constructor(view) {
    this.view = view;
    this.cursors = new Map(); // member id → element
    this.targets = new Set();
  }

  /**
   * The gaps peers' drags open on this board, for the board view:
   * [{key, member, section, index, items, color, name, operation}].
   */
  gaps(drags, memberOf) {
    const gaps = [];
    for (const [key, drag] of drags) {
      const member = memberOf(drag.member);
      if (!drag.target || !member || drag.target.board || intentOf(drag) === INTO) continue;
      gaps.push({
        key,
        member: drag.member,
        section: drag.target.section,
        index: drag.target.index,
        items: drag.items,
        color: member.color,
        name: member.name,
        operation: drag.proposal?.operation,
      });
    }
    return gaps;
  }

  /** Outlines, in the peer's colour, each card a peer's drag would drop into (crossed when forbidden). */
  drawTargets(board, drags, memberOf) {
    for (const node of this.targets) {
      node.classList.remove("remote-target", "remote-target-forbidden");
      node.style.removeProperty("--target-color");
    }
    this.targets.clear();
    for (const drag of drags.values()) {
      const member = memberOf(drag.member);
      if (!drag.target || !member || drag.target.board || intentOf(drag) !== INTO) continue;
      const ids = board.itemIDs(drag.target.section) || [];
      const card = this.view.cardElement(ids[drag.target.index]);
      if (!card) continue;
      const forbidden = drag.proposal && (drag.proposal.operation === "forbidden" || drag.proposal.operation === "cancel");
      card.classList.add("remote-target");
      card.classList.toggle("remote-target-forbidden", !!forbidden);
      card.style.setProperty("--target-color", member.color);
      this.targets.add(card);
    }
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
