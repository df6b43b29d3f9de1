// The board page's search and filters (issue 43): "Search cards" (focused by `/` when no text field
// has focus; Escape empties it), "Label filter" (the board's labels), "Assignee filter" (the
// board's people), "Due filter" (overdue, this week, no date), "Has unchecked items" (cards with a
// checklist item still to do) and "Clear filters". The filter lives in the address (`&q=`,
// `&label=`, `&assignee=`, `&due=`, `&unchecked=1`, beside `key`, `card` and the rest, by
// history.replaceState), so a reload or a shared link shows the same cards. Each change shows the
// board through the filter in the next frame (board/search.js: classes only, nothing rendered).
import { el, on } from "../ui/dom.js";
import { boardPeople } from "../model/card-details.js";
import { normalFilter } from "../model/search-text.js";

/** The address parameters of a filter's parts. */
const PARAMS = ["q", "label", "assignee", "due", "unchecked"];
const DUE_OPTIONS = [["", "Any due date"], ["overdue", "Overdue"], ["week", "Due this week"], ["none", "No due date"]];

/** The filter an address names. */
export function filterFromAddress(href) {
  const params = new URL(href).searchParams;
  return normalFilter(Object.fromEntries(PARAMS.map((k) => [k, params.get(k) ?? ""])));
}

/** The address with the filter in it (empty parts left out), every other parameter kept. */
export function addressWithFilter(href, filter) {
  const url = new URL(href);
  for (const k of PARAMS) {
    if (filter[k]) url.searchParams.set(k, filter[k]);
    else url.searchParams.delete(k);
  }
  return url.href;
}

/** Whether a key press lands in something people type into (there `/` is a character). */
function typing(target) {
  return !!target?.closest?.("input, textarea, select, [contenteditable]:not([contenteditable='false'])");
}

export class SearchBar {
  #frame = 0;

  /**
   * @param {object} deps
   *   filter    the BoardFilter (set(filter), filter, active, counts())
   *   board()   the board shown (its labels and people fill the lists)
   *   busy()    whether a drag is live (`/` then belongs to it)
   */
  constructor({ filter, board, busy = () => false }) {
    Object.assign(this, { filter, board, busy });
    this.input = el("input", { className: "search-input", attrs: { type: "search", "aria-label": "Search cards", "aria-keyshortcuts": "/", placeholder: "Search cards  /", spellcheck: "false" } });
    const select = (label) => el("select", { className: "filter-select", attrs: { "aria-label": label } });
    this.label = select("Label filter");
    this.assignee = select("Assignee filter");
    this.due = select("Due filter");
    this.due.append(...DUE_OPTIONS.map(([value, text]) => el("option", { text, props: { value } })));
    this.unchecked = el("input", { className: "filter-check", attrs: { type: "checkbox" } });
    const unchecked = el("label", { className: "filter-toggle" }, this.unchecked, el("span", { text: "Has unchecked items" }));
    this.clear = el("button", { className: "bar-button", text: "Clear filters", props: { type: "button" } });
    this.status = el("span", { className: "filter-status", attrs: { role: "status" } });
    this.element = el("form", { className: "filter-bar", attrs: { role: "search", "aria-label": "Search and filter" } },
      this.input, this.label, this.assignee, this.due, unchecked, this.clear, this.status);
    this.listKey = null;
    this.listsOf = null;
    this.lastUpdateMs = 0;
    on(this.element, "submit", (event) => event.preventDefault());
    on(this.input, "input", () => this.#changed());
    for (const node of [this.label, this.assignee, this.due, this.unchecked]) on(node, "change", () => this.#changed());
    on(this.clear, "click", () => {
      this.#show(normalFilter());
      this.#changed();
      this.input.focus();
    });
    on(this.input, "keydown", (event) => {
      if (event.key !== "Escape" || !this.input.value) return;
      event.preventDefault();
      this.input.value = "";
      this.#changed();
    });
    on(document, "keydown", (event) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (typing(event.target) || document.querySelector("dialog[open]") || this.busy()) return;
      event.preventDefault();
      this.input.focus();
      this.input.select();
    });
    // The address's filter, from the first frame on (its lists fill in once the board is there).
    const initial = filterFromAddress(location.href);
    this.#show(initial);
    this.filter.set(initial);
    this.#showStatus();
  }

  /** Keeps the label and assignee lists to the board's (after each render; cheap when unchanged). */
  refresh() {
    const board = this.board();
    if (!board) return;
    // The lists change only with the board (its item objects are new after each change).
    if (board.collections === this.listsOf?.collections && board.labels === this.listsOf?.labels) return this.#showStatus();
    this.listsOf = { collections: board.collections, labels: board.labels };
    const labels = board.labels.map((l) => [l.id, l.name || "Unnamed label"]);
    const people = boardPeople(board).map((name) => [name, name]);
    const f = this.filter.filter;
    // A label or person the address names stays listed (it may come back, or be a typo to clear).
    if (f.label && !labels.some(([id]) => id === f.label)) labels.push([f.label, "Unknown label"]);
    if (f.assignee && !people.some(([name]) => name === f.assignee)) people.push([f.assignee, f.assignee]);
    const key = JSON.stringify([labels, people]);
    if (key !== this.listKey) {
      this.listKey = key;
      fill(this.label, [["", "Any label"], ...labels], f.label);
      fill(this.assignee, [["", "Anyone"], ...people], f.assignee);
    }
    this.#showStatus();
  }

  #read() {
    return normalFilter({ q: this.input.value, label: this.label.value, assignee: this.assignee.value, due: this.due.value, unchecked: this.unchecked.checked });
  }

  #show(filter) {
    this.input.value = filter.q;
    this.unchecked.checked = !!filter.unchecked;
    for (const [node, value] of [[this.label, filter.label], [this.assignee, filter.assignee], [this.due, filter.due]]) {
      if (value && ![...node.options].some((o) => o.value === value)) node.append(el("option", { text: value, props: { value } }));
      node.value = value;
    }
  }

  /** A part changed: the board shows it in the next frame, the address keeps it. */
  #changed() {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      const began = performance.now();
      const filter = this.#read();
      this.filter.set(filter);
      this.#showStatus();
      this.lastUpdateMs = performance.now() - began; // read by tests and from the console
      const address = addressWithFilter(location.href, filter);
      if (address !== location.href) history.replaceState(history.state, "", address);
    });
  }

  #showStatus() {
    this.clear.disabled = !this.filter.active;
    this.element.classList.toggle("filtering", this.filter.active);
    let text = "";
    if (this.filter.active) {
      const { shown, total } = this.filter.counts();
      text = `${shown} of ${total} cards`;
    }
    if (this.status.textContent !== text) this.status.textContent = text;
  }
}

/** Makes a select's options exactly `options` ([value, text]) with `value` chosen. */
function fill(select, options, value) {
  select.replaceChildren(...options.map(([v, text]) => el("option", { text, props: { value: v } })));
  select.value = value;
}
