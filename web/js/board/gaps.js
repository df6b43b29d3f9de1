// The gaps a board opens among its cards: the local drag's (where its cards would land, labelled
// for the keyboard) and each peer drag's, the size of the cards it carries and in the peer's
// colour with the peer's name, so everyone sees the same gap. Each opens at an index counted
// without the cards its drag moves, as a drop target counts.

import { el } from "../ui/dom.js";
import { removeUnkept, setText } from "./dom-sync.js";

export class Gaps {
  constructor() {
    /** The local drag's gap (focused during a keyboard drag). */
    this.local = el("li", "gap");
    this.local.setAttribute("aria-hidden", "true");
    this.local.tabIndex = -1;
    this.remote = new Map(); // peer drag key → its gap element
  }

  /** The local drag's gap in this section, as a gap to place (or none). */
  localIn(section, drag) {
    const gap = this.local;
    const target = drag?.target;
    gap.classList.toggle("keyboard", !!drag?.keyboard);
    if (!target || target.section !== section.id || !drag.showGap) return [];
    // Dropping into a card keeps the gap's room (unseen), so the cards stay where they are.
    gap.classList.toggle("into", target.intent === "insertIntoDestinationIndexPath");
    const op = drag.proposal?.operation;
    gap.classList.toggle("forbidden", op === "forbidden" || op === "cancel");
    gap.classList.toggle("copy", op === "copy");
    gap.style.setProperty("--gap-width", `${drag.gapSize?.width || 0}px`);
    gap.style.setProperty("--gap-height", `${drag.gapSize?.height || 0}px`);
    setText(gap, drag.gapLabel || "");
    return [{ node: gap, index: target.index, moving: new Set(drag.items), local: true }];
  }

  /** A peer's gap (`g`: {key, member, color, name, operation, index, items}), `size` px high, as a gap to place. */
  remoteIn(g, size) {
    return { node: this.#remoteNode(g, size), index: g.index, moving: new Set(g.items), local: false, key: g.key };
  }

  /** Removes the peers' gaps whose keys are not in `used`. */
  keepOnly(used) {
    removeUnkept(this.remote, used);
  }

  #remoteNode(g, size) {
    let node = this.remote.get(g.key);
    if (!node) {
      node = el("li", { className: "remote-gap", attrs: { "aria-hidden": "true" } }, el("span", "remote-gap-name"));
      this.remote.set(g.key, node);
    }
    const forbidden = g.operation === "forbidden" || g.operation === "cancel";
    node.dataset.session = g.key;
    node.dataset.member = g.member;
    node.style.setProperty("--peer-color", g.color);
    node.style.setProperty("--gap-height", `${size}px`);
    node.classList.toggle("forbidden", forbidden);
    node.classList.toggle("copy", g.operation === "copy");
    setText(node.firstChild, `${g.name}${forbidden ? " ⊘" : g.operation === "copy" ? " +" : ""}`);
    return node;
  }
}

/**
 * Puts gaps among a section's cards: each at its `index` counted without the cards its drag moves
 * (as a drag target counts). The local gap comes first where several open at one place.
 */
export function placeGaps(children, gaps) {
  const placed = gaps.map((gap) => {
    let seen = 0;
    let at = children.length;
    for (let k = 0; k < children.length; k++) {
      if (gap.moving.has(children[k].dataset.item)) continue;
      if (seen === gap.index) {
        at = k;
        break;
      }
      seen++;
    }
    return { ...gap, at };
  });
  placed.sort((a, b) => b.at - a.at || (a.local ? 1 : 0) - (b.local ? 1 : 0));
  for (const gap of placed) children.splice(gap.at, 0, gap.node);
}
