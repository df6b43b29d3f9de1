// The card view's "Checklists" (issue 41): the card's named checklists, each with its progress
// ("1/3"), its items as checkboxes named by their text, and a textbox and button "Add checklist
// item". "Add checklist" asks for a name and adds one. Each checklist and item has "Rename" and
// "Delete" (an item's text or a checklist's name is edited in place: Enter saves, Escape cancels).
//
// Items are reordered by keyboard (Alt+ArrowUp/Alt+ArrowDown on an item's checkbox, or its "Move
// up"/"Move down") and by dragging its handle with a pointer: the item lifts, follows the pointer,
// and the gap opens where it would land. Peers who have the card open see it too, live: the drag
// goes with this member's `cursor` (`checklist`: the item and where it would land; docs/PROTOCOL.md
// "Live checklist proposals"), and their view shows the item lifted with its mover's name and the
// gap open at that place. Every change is one `checklist` operation (by id, so
// concurrent changes converge) through BoardEdits: applied at once, sequenced by the room, live for
// everyone who has the card open and undoable with Undo. Limits are checked before anything is
// sent (20 checklists and 500 items a card, 512 characters a name or item). Viewers see the
// checklists and change nothing.
import { el, on } from "../ui/dom.js";
import { characterCount, detailsOf } from "../model/card-details.js";
import { CHECKLIST_LIMITS, checklistProgress } from "../model/checklists.js";

/** A fresh id for a new checklist or item: short, random, unique within a card in practice (the room refuses a repeat). */
function newChecklistID(prefix) {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `${prefix}${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** How far (px) a pointer moves on a handle before the item lifts. */
const LIFT_PX = 4;
/** The least time between two shares of a drag with peers (the room sends one per tick anyway). */
const SHARE_MS = 40;

export class ChecklistEditor {
  /**
   * @param {object} deps
   *   session  BoardSession (board, canEdit)
   *   edits    BoardEdits (checklist)
   *   notice(text), announce(text)
   *   share(clientX, clientY, drag | null)  sends this member's drag to peers with its pointer
   */
  constructor({ session, edits, notice, announce, share = () => {} }) {
    Object.assign(this, { session, edits, notice, announce, share });
    this.peers = new Map(); // member id → {name, color, drag}: peers' checklist drags on the open card
    this.itemId = null;
    this.key = "";
    this.drag = null; // {li, list, entry, checklist, startY, top, gap, lifted}
    this.lists = el("div", "checklists");
    this.addButton = el("button", { className: "bar-button", text: "Add checklist", props: { type: "button" } });
    this.nameBox = el("input", { className: "checklist-name-input", attrs: { type: "text", "aria-label": "Checklist name", maxlength: String(CHECKLIST_LIMITS.textCharacters * 2) } });
    this.nameForm = el("form", { className: "checklist-new", props: { hidden: true } }, this.nameBox,
      el("button", { className: "primary", text: "Save checklist", props: { type: "submit" } }),
      el("button", { className: "bar-button", text: "Cancel", attrs: { "data-action": "cancel-new" }, props: { type: "button" } }));
    this.element = el("section", { className: "card-view-section card-view-checklists", attrs: { "aria-labelledby": "card-view-checklists" } },
      el("h3", { className: "card-view-heading", text: "Checklists", attrs: { id: "card-view-checklists" } }),
      this.lists, this.nameForm, this.addButton);
    on(this.addButton, "click", () => {
      this.nameForm.hidden = false;
      this.addButton.hidden = true;
      this.nameBox.value = "Checklist";
      this.nameBox.focus();
      this.nameBox.select();
    });
    on(this.nameForm, "submit", (event) => {
      event.preventDefault();
      this.#addChecklist();
    });
    on(this.nameForm, "click", (event) => {
      if (event.target.dataset.action === "cancel-new") this.#closeNameForm();
    });
    on(this.nameBox, "keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      this.#closeNameForm();
    });
    on(this.lists, "click", (event) => {
      const button = event.target.closest("button[data-action]");
      if (button) this.#act(button);
    });
    on(this.lists, "change", (event) => {
      const box = event.target;
      if (box.type !== "checkbox" || !box.dataset.entry) return;
      this.#send({ action: "check", checklist: box.dataset.checklist, entry: box.dataset.entry, done: box.checked },
        `${box.checked ? "Checked" : "Unchecked"} ${box._text}.`);
    });
    on(this.lists, "submit", (event) => {
      event.preventDefault();
      const input = event.target.querySelector("input");
      if (event.target.classList.contains("checklist-add-item")) this.#addItem(event.target.dataset.checklist, input);
      else this.#saveRename(input);
    });
    on(this.lists, "keydown", (event) => this.#keydown(event));
    on(this.lists, "pointerdown", (event) => this.#pointerDown(event));
  }

  /** Shows the open card's checklists (what someone is typing in, or dragging, is left alone). */
  show(item, canEdit) {
    this.itemId = item.id;
    this.addButton.hidden = !canEdit || !this.nameForm.hidden;
    if (!canEdit) this.nameForm.hidden = true;
    const lists = detailsOf(item).checklists;
    const key = JSON.stringify([item.id, lists, canEdit, [...this.peers.values()]]);
    if (key === this.key || this.drag || this.lists.querySelector(".checklist-rename input") === document.activeElement) return;
    this.key = key;
    const focused = this.lists.contains(document.activeElement) ? document.activeElement : null;
    const focus = focused && { role: focused.dataset.role, entry: focused.dataset.entry, checklist: focused.dataset.checklist };
    this.lists.replaceChildren(...lists.map((list) => this.#checklist(list, canEdit)));
    if (focus) {
      const same = [...this.lists.querySelectorAll("[data-role]")].find((n) => n.dataset.role === focus.role && n.dataset.entry === focus.entry && n.dataset.checklist === focus.checklist);
      (same || this.lists.querySelector(`[data-checklist="${CSS.escape(focus.checklist || "")}"] input`))?.focus();
    }
  }

  /** A peer's checklist drag (null: none): shown when it is on the open card. */
  peerDrag(member, drag) {
    const had = this.peers.has(member.id);
    if (drag && drag.item === this.itemId) this.peers.set(member.id, { name: member.name || "Someone", color: member.color || "", drag });
    else if (had) this.peers.delete(member.id);
    else return;
    const item = this.itemId !== null && this.session.board?.item(this.itemId);
    if (item) this.show(item, this.session.canEdit);
  }

  /** Forgets what was shown (another card opens). */
  reset() {
    this.key = "";
    this.peers.clear();
    this.#endDrag(false);
    this.#closeNameForm();
  }

  #checklist(list, canEdit) {
    const items = list.items || [];
    const { done, total } = checklistProgress({ checklists: [list] });
    const id = `checklist-${list.id}`;
    const data = { checklist: list.id };
    const header = el("div", "checklist-header",
      el("h4", { className: "checklist-name", text: list.name, attrs: { id } }),
      el("span", { className: `checklist-progress${total && done === total ? " complete" : ""}`, text: `${done}/${total}`, attrs: { "aria-label": `${done} of ${total} done` } }));
    if (canEdit) {
      header.append(el("span", "checklist-actions",
        this.#button("rename-list", "Rename", `Rename checklist ${list.name}`, data),
        this.#button("delete-list", "Delete", `Delete checklist ${list.name}`, data)));
    }
    const rows = el("ul", { className: "checklist-items", attrs: { "aria-labelledby": id }, data });
    items.forEach((entry, index) => rows.append(this.#row(list, entry, index, items.length, canEdit)));
    this.#showPeers(list, rows);
    const section = el("section", { className: "checklist", attrs: { "aria-labelledby": id }, data }, header, rows);
    if (canEdit) {
      const input = el("input", { attrs: { type: "text", "aria-label": "Add checklist item", placeholder: "Add an item", maxlength: String(CHECKLIST_LIMITS.textCharacters * 2) }, data: { role: "new-item", checklist: list.id } });
      section.append(el("form", { className: "checklist-add-item", data }, input,
        el("button", { className: "bar-button", text: "Add", attrs: { "aria-label": "Add checklist item" }, props: { type: "submit" } })));
    }
    return section;
  }

  #row(list, entry, index, count, canEdit) {
    const data = { checklist: list.id, entry: entry.id };
    const box = el("input", { attrs: { type: "checkbox", id: `checklist-entry-${entry.id}`, "aria-keyshortcuts": canEdit ? "Alt+ArrowUp Alt+ArrowDown" : null },
      props: { checked: !!entry.done, disabled: !canEdit }, data: { ...data, role: "check" } });
    box._text = entry.text;
    const row = el("li", { className: `checklist-item${entry.done ? " done" : ""}`, data }, box,
      el("label", { className: "checklist-text", text: entry.text, attrs: { for: box.id } }));
    if (canEdit) {
      row.prepend(el("span", { className: "checklist-handle", attrs: { "aria-hidden": "true", title: "Drag to reorder" } }));
      const actions = el("span", "checklist-actions");
      if (index > 0) actions.append(this.#button("up", "↑", `Move ${entry.text} up`, data));
      if (index < count - 1) actions.append(this.#button("down", "↓", `Move ${entry.text} down`, data));
      actions.append(this.#button("rename", "Rename", `Rename ${entry.text}`, data), this.#button("delete", "Delete", `Delete ${entry.text}`, data));
      row.append(actions);
    }
    return row;
  }

  /** Peers' drags in this checklist: the item lifted with the mover's name, the gap where it would land. */
  #showPeers(list, rows) {
    for (const { name, color, drag } of this.peers.values()) {
      const row = drag.checklist === list.id && [...rows.children].find((r) => r.dataset.entry === drag.entry);
      if (!row) continue;
      row.classList.add("remote-lifted");
      row.dataset.peer = name;
      row.style.setProperty("--peer", color);
      row.append(el("span", "sr-only", ` (${name} is moving it)`));
      if (drag.index === undefined || drag.index === null) continue;
      const others = [...rows.children].filter((r) => r !== row && !r.classList.contains("checklist-gap"));
      const gap = el("li", { className: "checklist-gap remote-gap", text: name, attrs: { "aria-hidden": "true" }, style: { "--peer": color } });
      if (drag.index < others.length) others[drag.index].before(gap);
      else rows.append(gap);
    }
  }

  #button(action, text, label, data) {
    return el("button", { className: "bar-button small", text, attrs: { "aria-label": label, "data-action": action }, props: { type: "button" }, data: { ...data, role: action } });
  }

  // MARK: Changes

  #send(parts, sentence) {
    if (this.itemId === null || !this.session.canEdit || !this.session.board?.item(this.itemId)) return;
    this.notice("");
    this.edits.checklist(this.itemId, parts);
    if (sentence) this.announce(sentence);
  }

  #lists() {
    return detailsOf(this.session.board?.item(this.itemId)).checklists;
  }

  #textProblem(text, what) {
    if (!text.trim()) return `A ${what} cannot be blank.`;
    if (characterCount(text) > CHECKLIST_LIMITS.textCharacters) return `A ${what} has at most ${CHECKLIST_LIMITS.textCharacters} characters; shorten it.`;
    return null;
  }

  #closeNameForm() {
    this.nameForm.hidden = true;
    this.addButton.hidden = !this.session.canEdit;
    if (this.nameForm.contains(document.activeElement)) this.addButton.focus();
  }

  #addChecklist() {
    const name = this.nameBox.value.trim();
    const problem = this.#textProblem(name, "checklist's name");
    if (problem) return this.notice(problem);
    if (this.#lists().length >= CHECKLIST_LIMITS.checklists) return this.notice(`A card holds at most ${CHECKLIST_LIMITS.checklists} checklists; delete one first.`);
    const checklist = newChecklistID("k-");
    this.#send({ action: "add", checklist, name }, `Added the checklist ${name}.`);
    this.#closeNameForm();
    this.lists.querySelector(`input[data-role="new-item"][data-checklist="${CSS.escape(checklist)}"]`)?.focus();
  }

  #addItem(checklist, input) {
    const text = input.value.trim();
    const problem = this.#textProblem(text, "checklist item");
    if (problem) return this.notice(problem);
    const total = this.#lists().reduce((n, l) => n + (l.items?.length || 0), 0);
    if (total >= CHECKLIST_LIMITS.items) return this.notice(`A card holds at most ${CHECKLIST_LIMITS.items} checklist items; delete some first.`);
    input.value = "";
    this.#send({ action: "addItem", checklist, entry: newChecklistID("e-"), text }, `Added ${text}.`);
    this.lists.querySelector(`input[data-role="new-item"][data-checklist="${CSS.escape(checklist)}"]`)?.focus();
  }

  #act(button) {
    const { action, checklist, entry } = button.dataset;
    const list = this.#lists().find((l) => l.id === checklist);
    if (!list) return;
    const items = list.items || [];
    const index = items.findIndex((e) => e.id === entry);
    if (action === "delete-list") this.#send({ action: "delete", checklist }, `Deleted the checklist ${list.name}.`);
    else if (action === "rename-list") this.#startRename(button.closest(".checklist").querySelector(".checklist-name"), list.name, { checklist });
    else if (index < 0) return;
    else if (action === "delete") this.#send({ action: "deleteItem", checklist, entry }, `Deleted ${items[index].text}.`);
    else if (action === "rename") this.#startRename(button.closest("li").querySelector(".checklist-text"), items[index].text, { checklist, entry });
    else if (action === "up" || action === "down") this.#move(checklist, entry, index, index + (action === "up" ? -1 : 1), items);
  }

  #move(checklist, entry, from, to, items) {
    if (to < 0 || to >= items.length || to === from) return;
    this.#send({ action: "moveItem", checklist, entry, index: to }, `Moved ${items[from].text} to place ${to + 1} of ${items.length}.`);
    // The focus stays on the moved item (show() finds it by id after the render).
    this.lists.querySelector(`input[data-role="check"][data-entry="${CSS.escape(entry)}"]`)?.focus();
  }

  /** Edits a checklist's name or an item's text in place: Enter saves, Escape or leaving cancels. */
  #startRename(node, text, ids) {
    const what = ids.entry ? "Item text" : "Checklist name";
    const input = el("input", { attrs: { type: "text", "aria-label": what }, props: { value: text }, data: { ...ids, from: text } });
    const form = el("form", "checklist-rename", input);
    node.replaceWith(form);
    input.focus();
    input.select();
    on(input, "keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      this.key = "";
      form.replaceWith(node);
      this.show(this.session.board.item(this.itemId), this.session.canEdit);
    });
    on(input, "blur", () => setTimeout(() => {
      if (!form.isConnected) return;
      this.key = "";
      this.show(this.session.board.item(this.itemId), this.session.canEdit);
    }));
  }

  #saveRename(input) {
    const { checklist, entry, from } = input.dataset;
    const text = input.value.trim();
    const problem = this.#textProblem(text, entry ? "checklist item" : "checklist's name");
    if (problem) return this.notice(problem);
    input.blur();
    if (text === from) return;
    if (entry) this.#send({ action: "renameItem", checklist, entry, text, from }, `Renamed ${from} to ${text}.`);
    else this.#send({ action: "rename", checklist, name: text, from }, `Renamed the checklist to ${text}.`);
  }

  // MARK: Reordering

  #keydown(event) {
    const box = event.target;
    if (!event.altKey || box.dataset?.role !== "check" || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    event.preventDefault();
    const items = this.#lists().find((l) => l.id === box.dataset.checklist)?.items || [];
    const from = items.findIndex((e) => e.id === box.dataset.entry);
    if (from >= 0) this.#move(box.dataset.checklist, box.dataset.entry, from, from + (event.key === "ArrowUp" ? -1 : 1), items);
  }

  #pointerDown(event) {
    const handle = event.target.closest(".checklist-handle");
    if (!handle || event.button !== 0 || !this.session.canEdit) return;
    event.preventDefault();
    const li = handle.closest("li");
    const list = li.parentElement;
    this.drag = { li, list, entry: li.dataset.entry, checklist: li.dataset.checklist, startY: event.clientY, lifted: false, index: null };
    const stop = [];
    const end = (drop) => {
      stop.forEach((off) => off());
      this.#endDrag(drop);
    };
    stop.push(on(window, "pointermove", (e) => this.#pointerMove(e)), on(window, "pointerup", () => end(true)),
      on(window, "pointercancel", () => end(false)),
      on(window, "keydown", (e) => {
        if (e.key === "Escape") end(false);
      }, true));
  }

  #pointerMove(event) {
    const drag = this.drag;
    if (!drag) return;
    const dy = event.clientY - drag.startY;
    if (!drag.lifted) {
      if (Math.abs(dy) < LIFT_PX) return;
      // Lift: the item leaves the flow and follows the pointer; a gap holds its place.
      const rect = drag.li.getBoundingClientRect();
      drag.top = drag.li.offsetTop;
      drag.gap = el("li", { className: "checklist-gap", attrs: { "aria-hidden": "true" }, style: { height: `${rect.height}px` } });
      drag.list.classList.add("sorting");
      drag.li.classList.add("lifted");
      drag.li.style.width = `${rect.width}px`;
      drag.li.after(drag.gap);
      drag.lifted = true;
    }
    drag.li.style.top = `${drag.top + dy}px`;
    // The index it would land at, counted without it: the rows whose middle is above the pointer.
    const rows = [...drag.list.children].filter((n) => n !== drag.li && n !== drag.gap);
    const index = rows.filter((n) => {
      const r = n.getBoundingClientRect();
      return r.top + r.height / 2 < event.clientY;
    }).length;
    if (index !== drag.index) {
      drag.index = index;
      if (index < rows.length) rows[index].before(drag.gap);
      else drag.list.append(drag.gap);
    }
    this.#shareDrag(event.clientX, event.clientY);
  }

  /** Tells peers where the lifted item would land (at most every SHARE_MS; the last one always goes). */
  #shareDrag(clientX, clientY) {
    const drag = this.drag;
    drag.pointer = [clientX, clientY];
    if (drag.shareTimer) return;
    const send = () => {
      drag.shareTimer = null;
      if (this.drag !== drag) return;
      this.share(...drag.pointer, { item: this.itemId, checklist: drag.checklist, entry: drag.entry, index: drag.index });
      drag.shared = true;
    };
    if (!drag.sentAt || performance.now() - drag.sentAt >= SHARE_MS) {
      drag.sentAt = performance.now();
      send();
    } else {
      drag.shareTimer = setTimeout(() => {
        drag.sentAt = performance.now();
        send();
      }, SHARE_MS);
    }
  }

  #endDrag(drop) {
    const drag = this.drag;
    if (!drag) return;
    this.drag = null;
    clearTimeout(drag.shareTimer);
    if (drag.shared) this.share(...drag.pointer, null);
    drag.gap?.remove();
    drag.list.classList.remove("sorting");
    drag.li.classList.remove("lifted");
    drag.li.style.top = "";
    drag.li.style.width = "";
    if (!drop || !drag.lifted || drag.index === null) return;
    const items = this.#lists().find((l) => l.id === drag.checklist)?.items || [];
    const from = items.findIndex((e) => e.id === drag.entry);
    this.key = "";
    if (from >= 0) this.#move(drag.checklist, drag.entry, from, drag.index, items);
    this.show(this.session.board.item(this.itemId), this.session.canEdit);
  }
}
