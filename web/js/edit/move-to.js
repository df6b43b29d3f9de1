// "Move to…": a card, the selection it is in, or a collection moved by choosing where in a dialog
// instead of dragging (WCAG 2.2, 2.5.7: a single-pointer, fully keyboard-operable alternative). The
// card menu, the collection menu and the key M on a focused card open it. Cards go where a drop
// would put them and by the same path: a drag of this page (dragBegin, dropUpdate, drop) that lands
// on this board, or on another board of the server (R6, the drag's cross-board drop), so undo, acks
// and peers see a drop. A collection moves with moveCollection. The dialog stays open until the
// room answers, and says why when it refuses; then focus goes to the moved card.
//
// Other boards: those this browser remembers (the start page's "Your boards") that it may edit,
// read by a short join (net/peek.js) when chosen, since the page knows no other board's structure.
//
// It sees the page through narrow facets: `page` {root, view, board, announce, renderNow}, `drags`
// (the drag controller), `edits` (BoardEdits), `selection`, `session` (answers, members, capabilities, joined),
// `canEdit()`, `here` {id, title()} and `boards` {list() → [{id, key, title}], peek(id, key)}.
import { el, on } from "../ui/dom.js";
import { showDialog } from "../ui/dialog.js";
import { menuOpen } from "../ui/menu.js";
import { collectionIndex, moveTarget, placesIn, refusedBy, startingChoice } from "../model/move-target.js";
import { itemLabel } from "../model/card-content.js";
import { acceptsInWords, named, rejectionInWords } from "../model/words.js";

/** How long the dialog waits for the room's answer before it closes and lets the ack come later. */
const ANSWER_MS = 8000;
const HERE = "";

const refuses = (proposal) => !proposal || proposal.operation === "forbidden" || proposal.operation === "cancel";

export function installMoveTo({ page, drags, edits, selection, session, canEdit, here, boards }) {
  const waiting = new Map(); // opId → resolve(outcome)

  /** The room's answer to `opId` (null when none came in time, or the page is offline). */
  function answerTo(opId) {
    if (!session.joined) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(opId);
        resolve(null);
      }, ANSWER_MS);
      waiting.set(opId, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  }

  /** Every answer of the session: the one a move waits for ends its wait. */
  function answered({ opId, outcome }) {
    const resolve = waiting.get(opId);
    waiting.delete(opId);
    resolve?.(outcome);
  }

  const field = (label, select) => el("label", "move-to-field", el("span", "", label), select);
  const option = (value, text, selected) => el("option", { text, props: { value, selected: !!selected } });

  /** Opens the dialog for the cards a move from the card `id` takes (its selection, else itself). */
  function cards(id, items) {
    const b = page.board;
    const live = items.filter((x) => b.item(x) && !b.item(x).placeholder);
    if (!live.length || !canEdit() || drags.state) return;
    const label = live.length > 1 ? `${live.length} cards` : itemLabel(b.item(live[0]));
    const boardSelect = el("select", { attrs: { name: "board" } });
    const collectionSelect = el("select", { attrs: { name: "collection" } });
    const sectionSelect = el("select", { attrs: { name: "section" } });
    const positionSelect = el("select", { attrs: { name: "position" } });
    const status = el("p", { className: "hint", attrs: { role: "status" } });
    const others = boards.list().filter((o) => o.id !== here.id);
    boardSelect.append(option(HERE, `This board (${here.title()})`, true), ...others.map((o) => option(o.id, o.title || o.id)));
    const looks = new Map(); // board id → the look at it (a promise), once chosen
    let shown = { board: page.board, canEdit: true, title: here.title() };
    let failure = null;

    const fillPositions = () => {
      const count = placesIn(shown.board, sectionSelect.value, boardSelect.value === HERE ? live : []);
      positionSelect.replaceChildren(...Array.from({ length: count }, (_, n) =>
        option(String(n + 1), `${n + 1}${count === 1 ? "" : n === 0 ? " (top)" : n === count - 1 ? " (bottom)" : ""}`, n === count - 1)));
    };
    const fillSections = () => {
      const collection = shown.board.collectionById.get(collectionSelect.value);
      const sections = collection?.sections || [];
      sectionSelect.replaceChildren(...sections.map((s, n) => option(s.id, s.title || collection.title || `Section ${n + 1}`)));
      fillPositions();
    };
    const fillCollections = (choice) => {
      collectionSelect.replaceChildren(...shown.board.collections.filter((c) => c.sections.length)
        .map((c) => option(c.id, c.title || "Untitled", c.id === choice?.collection)));
      fillSections();
      if (choice?.section) sectionSelect.value = choice.section;
      fillPositions();
    };
    const setLoading = (loading) => [collectionSelect, sectionSelect, positionSelect].forEach((s) => (s.disabled = loading));

    on(boardSelect, "change", async () => {
      const id = boardSelect.value;
      failure = null;
      status.textContent = "";
      if (id === HERE) {
        shown = { board: page.board, canEdit: true, title: here.title() };
        fillCollections(startingChoice(page.board, live));
        setLoading(false);
        return;
      }
      const other = others.find((o) => o.id === id);
      setLoading(true);
      status.textContent = `Reading ${named(other.title || id)}…`;
      if (!looks.has(id)) looks.set(id, boards.peek(id, other.key).then((look) => ({ look }), (error) => ({ error })));
      const { look, error } = await looks.get(id);
      if (boardSelect.value !== id) return; // another board was chosen meanwhile
      if (error || !look.canEdit) {
        failure = error ? `${named(other.title || id)} cannot be read: ${error.message}` : `You can only view ${named(look.title)}; open its edit link once to move cards there.`;
        status.textContent = failure;
        return;
      }
      shown = { ...look, key: other.key };
      status.textContent = "";
      fillCollections(null);
      setLoading(false);
    });
    on(collectionSelect, "change", fillSections);
    on(sectionSelect, "change", fillPositions);
    fillCollections(startingChoice(page.board, live));

    const hint = others.length
      ? "Other boards: the ones this browser opened before."
      : "Only this board: boards this browser opens (from their links) are offered here too.";
    let landed = null;
    showDialog({
      title: `Move ${named(label)} to…`,
      body: [field("Board", boardSelect), el("p", "hint", hint), field("Collection", collectionSelect), field("Section", sectionSelect), field("Position", positionSelect), status],
      confirm: "Move",
      submit: async () => {
        if (failure) return failure;
        const choice = { collection: collectionSelect.value, section: sectionSelect.value, position: Number(positionSelect.value) };
        const result = boardSelect.value === HERE ? await moveHere(live, label, choice) : await moveThere(live, label, choice, boardSelect.value, shown);
        if (result.refusal) return result.refusal;
        landed = result.focus;
        return null;
      },
      returnFocus: () => landed?.() || null,
    });
  }

  /** Moves cards on this board: the drop a drag to that place makes. {refusal} or {focus}. */
  async function moveHere(items, label, choice) {
    const b = page.board;
    const live = items.filter((x) => b.item(x) && !b.item(x).placeholder);
    if (!live.length) return { refusal: "The cards you were moving were deleted meanwhile." };
    const target = moveTarget(b, live, choice);
    if (!target) return { refusal: "That section no longer exists; choose another." };
    const proposal = b.proposal(live, [], target, false, canEdit());
    if (refuses(proposal)) return { refusal: drags.refusalOf({ items: live, external: [], target }, proposal) };
    const drag = drags.begin(live);
    if (!drag) return { refusal: drags.state ? "Finish the drag in progress first." : "You can only view this board." };
    drags.hover(drag, target);
    const result = drags.drop(drag);
    if (!result.ok) return { refusal: result.reason };
    const outcome = await answerTo(result.opId);
    if (outcome && outcome.kind !== "committed") {
      const envelope = { op: { kind: "move", items: live, destination: target }, label };
      return { refusal: rejectionInWords(outcome, { envelope, board: page.board, members: session.members, maxBoardBytes: session.capabilities.maxBoardBytes }) };
    }
    page.renderNow();
    const p = page.board.position(live[0]);
    const section = p && page.board.sections.get(p.section);
    const where = section ? ` Position ${p.index + 1} of ${section.section.items.length} in ${section.section.title || section.collection.title}.` : "";
    page.announce(`Moved ${named(label)}.${where}${outcome ? "" : " The room confirms it once the connection is back."}`);
    return { focus: () => page.view.cardElement(live[0]) };
  }

  /** Moves cards to another board (R6): the drag's cross-board drop. {refusal} or {focus}. */
  async function moveThere(items, label, choice, boardId, look) {
    const b = page.board;
    const live = items.filter((x) => b.item(x) && !b.item(x).placeholder);
    if (!live.length) return { refusal: "The cards you were moving were deleted meanwhile." };
    const target = moveTarget(look.board, [], choice);
    const collection = look.board.collectionById.get(choice.collection);
    if (!target || !collection) return { refusal: "That section no longer exists; choose another." };
    const refused = refusedBy(b, live, collection);
    if (refused) {
      return { refusal: `${named(collection.title || "That collection")} on ${named(look.title)} does not take ${named(itemLabel(refused))}: it ${acceptsInWords(collection.accepts).toLowerCase()}.` };
    }
    const next = nextCard(live);
    const drag = drags.begin(live);
    if (!drag) return { refusal: drags.state ? "Finish the drag in progress first." : "You can only view this board." };
    const result = drags.drop(drag, { board: boardId, key: look.key || undefined, destination: target });
    const outcome = await answerTo(result.opId);
    if (outcome && outcome.kind !== "committed") {
      const envelope = { op: { kind: "move", items: live, destination: target }, label };
      const words = rejectionInWords(outcome, { envelope, members: session.members });
      return { refusal: outcome.code === "forbidden" || !outcome.code ? words : `${words} (${look.title})` };
    }
    page.announce(`Moved ${named(label)} to ${named(look.title)}.${outcome ? "" : " The room confirms it once the connection is back."}`);
    return { focus: () => page.view.cardElement(next) || page.root.querySelector(".card") };
  }

  /** The card to focus once `items` leave the board: the next in the first one's section, else the one before. */
  function nextCard(items) {
    const p = page.board.position(items[0]);
    if (!p || p.group) return null;
    const rest = (page.board.itemIDs(p.section) || []).filter((x) => !items.includes(x));
    return rest[Math.min(p.index, rest.length - 1)] || null;
  }

  /** Opens the dialog for a collection: its place among the board's collections. */
  function collection(id) {
    const b = page.board;
    const c = b.collectionById.get(id);
    if (!c || !canEdit()) return;
    const count = b.collections.length;
    const at = b.collections.indexOf(c);
    const positionSelect = el("select", { attrs: { name: "position" } });
    positionSelect.append(...b.collections.map((_, n) =>
      option(String(n + 1), `${n + 1}${n === 0 ? " (leftmost)" : n === count - 1 ? " (rightmost)" : ""}`, n === at)));
    const title = named(c.title || "Untitled");
    showDialog({
      title: `Move ${title} to…`,
      body: [el("p", "hint", "Collections move within this board."), field("Position", positionSelect)],
      confirm: "Move",
      submit: async () => {
        const index = collectionIndex(page.board, id, Number(positionSelect.value));
        if (index === null) return `${title} was deleted meanwhile.`;
        if (page.board.collections.indexOf(page.board.collectionById.get(id)) !== index) {
          const opId = edits.moveCollection(id, index);
          page.renderNow();
          const outcome = await answerTo(opId);
          if (outcome && outcome.kind !== "committed") {
            return rejectionInWords(outcome, { envelope: { op: { kind: "moveCollection" }, label: c.title }, board: page.board });
          }
        }
        page.announce(`Moved ${title} to position ${index + 1} of ${page.board.collections.length}.`);
        return null;
      },
      returnFocus: () => page.view.collectionEntry(id)?.menuButton,
    });
  }

  // M on a focused card (or a card in a group) opens the dialog for it, or the selection it is in.
  on(page.root, "keydown", (event) => {
    if (event.key !== "m" && event.key !== "M") return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || menuOpen() || !canEdit()) return;
    const card = event.target.closest?.(".card");
    if (!card || event.target !== card || drags.state) return;
    event.preventDefault();
    cards(card.dataset.item, selection.itemsFor(card.dataset.item));
  });

  return {
    /** Opens the dialog for the card `id`, or the selection it is in. */
    cards: (id) => cards(id, selection.itemsFor(id)),
    collection,
    answered,
  };
}
