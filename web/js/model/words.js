// Words for people. Every sentence the page shows about a refusal names things as people see them
// on the board — card titles, collection names, "Takes cards" — and says what to do; never an
// item id, a type identifier or a close code. The room's own sentences are for programs and logs
// (they name ids); here the page says the same from the codes and its own copy of the board.
// Pure: no DOM, so node tests can check it.
import { itemLabel } from "./card-content.js";
import { entryMatches } from "./model.js";

const INTO = "insertIntoDestinationIndexPath";

/** Kinds of content in words, most specific first. */
const KINDS = [
  ["corkboard.card", "cards"],
  ["public.plain-text", "text"],
  ["public.url", "links"],
  ["public.image", "images"],
  ["public.movie", "videos"],
  ["public.audio", "sounds"],
  ["public.data", "files"],
];

/** The kinds a collection can be set to take, in the order the page offers them. */
export const OFFERED_KINDS = Object.freeze([
  { type: "corkboard.card", words: "Cards" },
  { type: "public.plain-text", words: "Text" },
  { type: "public.url", words: "Links" },
  { type: "public.image", words: "Images" },
]);

/** A type identifier as the kind of content people know ("links"). */
export function typeInWords(type) {
  for (const [entry, words] of KINDS) if (entryMatches(entry, type) || entry === type) return words;
  return "other items";
}

/** "a", "a and b", "a, b and c". */
export function listInWords(words) {
  const unique = [...new Set(words)];
  if (unique.length <= 1) return unique[0] || "";
  return `${unique.slice(0, -1).join(", ")} and ${unique.at(-1)}`;
}

/** What a collection takes, as its header says it: "Takes cards", "Takes text, links and images". */
export function acceptsInWords(accepts) {
  if (!accepts?.length) return "Takes anything";
  return `Takes ${listInWords(accepts.map(typeInWords))}`;
}

/** A name in quotes, or a count as it is ("3 cards"). */
export function named(label) {
  if (!label) return "it";
  return /^\d/.test(label) ? label : `“${label}”`;
}

function collectionName(collection) {
  return collection ? named(collection.title || "Untitled") : "That collection";
}

/** "“Geocaches” takes only cards." */
export function takesOnly(collection) {
  return `${collectionName(collection)} takes only ${listInWords((collection?.accepts || []).map(typeInWords))}.`;
}

/** The name of whoever's drag holds `itemId`: from the peers' live drags, else the room's sentence. */
export function holderOf(itemId, members, message = "") {
  for (const drag of members?.drags?.values?.() || []) {
    if (drag.items?.includes(itemId)) {
      const name = members.byId.get(drag.member)?.name;
      if (name) return name;
    }
  }
  const match = /\bby (.+?)(?:;|\.(?:\s|$)|$)/.exec(message);
  return match ? match[1] : "someone else";
}

/**
 * Why a drag cannot drop where it hovers, for a `cancel` or `forbidden` proposal (or no target).
 * `context` is {board, items, external, target, canEdit}.
 */
export function dropRefusalInWords(proposal, { board, items = [], external = [], target, canEdit = true }) {
  if (!target) return "Not dropped: drop it over a collection.";
  const live = items.filter((id) => board.item(id));
  if (proposal?.operation === "cancel") {
    if (live.length === 0 && external.length === 0) return "The cards you were moving were deleted meanwhile.";
    return "That place no longer exists; drop it somewhere else.";
  }
  if (!canEdit) return "You can only view this board; ask for the edit link to make changes.";
  if (live.some((id) => board.item(id).placeholder)) return "A card that is still loading cannot be moved yet.";
  const collection = board.collectionById.get(target.collection);
  if (target.intent === INTO || proposal?.intent === INTO) {
    const into = board.item(target.targetItem) || board.sections.get(target.section)?.section.items[target.index];
    if (into?.placeholder) return "A card that is still loading cannot take other cards.";
    if (into && live.some((id) => board.isAncestorOrSelf(id, into.id))) return "A card cannot go inside itself.";
  }
  if (collection) {
    const refused = live.some((id) => !board.matches(collection.accepts, board.item(id)));
    const refusedExternal = external.some((types) => collection.accepts.length && !types.some((t) => collection.accepts.some((e) => entryMatches(e, t))));
    if (refused || refusedExternal) return takesOnly(collection);
  }
  return "It cannot be dropped here; try another place.";
}

/** A `dragGranted` refusal ({item, code, message}) in words. */
export function dragRefusalInWords(refusal, { board, members }) {
  const label = named(itemLabel(board?.item(refusal.item)));
  switch (refusal.code) {
    case "locked": return `${label} is being moved by ${holderOf(refusal.item, members, refusal.message)}; wait for them to drop it.`;
    case "gone": return "That card was deleted meanwhile.";
    case "forbidden": return `${label} is still loading; it can be moved once it has arrived.`;
    default: return `${label} cannot be moved right now; try again in a moment.`;
  }
}

/** "“Old Mill Wheel” could not be placed" for the operation in `envelope`. */
function subject(envelope) {
  const op = envelope?.op;
  const what = named(envelope?.label);
  switch (op?.kind) {
    case "move":
    case "copy": return `${what} could not be placed`;
    case "insert":
    case "insertPlaceholder":
    case "commitPlaceholder": return `${what} could not be added`;
    case "delete":
    case "deletePlaceholder": return `${what} could not be deleted`;
    case "updateItem":
    case "updateCard": return `Your changes to ${what} could not be saved`;
    case "createCollection": return `The collection ${what} could not be added`;
    case "createSection": return `The section ${what} could not be added`;
    case "renameCollection":
    case "renameSection": return `${what} could not be renamed`;
    case "deleteCollection":
    case "deleteSection": return `${what} could not be deleted`;
    case "moveCollection":
    case "moveSection": return `${what} could not be moved`;
    case "setAccepts": return `What ${what} takes could not be changed`;
    case "setLayout": return `How ${what} shows its cards could not be changed`;
    case "renameBoard": return "The board could not be renamed";
    case "setLabel": return `The label ${what} could not be saved`;
    case "deleteLabel": return `The label ${what} could not be deleted`;
    case "addComment": return `Your comment on ${what} could not be added`;
    case "editComment": return `Your comment on ${what} could not be changed`;
    case "deleteComment": return `Your comment on ${what} could not be deleted`;
    case "checklist": return `Your checklist change on ${what} could not be saved`;
    default: return "Your change could not be made";
  }
}

const MIB = 1048576;

const COMMENT_KINDS = new Set(["addComment", "editComment", "deleteComment"]);

/** What an `invalid` refusal means, by operation kind and the field it names. */
const INVALID = {
  updateCard: (field) => (field === "dates" ? "its start date would come after its due date; nothing changed." : null),
  setLabel: (field) => (field === "label.name" ? "a label's name has at most 50 characters; shorten it." : "a board has at most 50 labels; delete one first."),
  addComment: (field) => (field === "item" ? "a card holds at most 500 comments; delete some first." : "a comment holds 1 to 16 KiB of text; shorten it."),
  editComment: () => "a comment holds 1 to 16 KiB of text; shorten it.",
  checklist: (field) =>
    field === "checklist" ? "a card holds at most 20 checklists; delete one first."
      : field === "entry" ? "a card holds at most 500 checklist items; delete some first."
        : "a checklist's name or item has 1 to 512 characters; shorten it.",
};

/**
 * A rejected operation (an `ack` outcome {code, message, item?}) in words, with what to do.
 * `context` is {envelope, board, members, maxBoardBytes}.
 */
export function rejectionInWords(outcome, { envelope, board, members, maxBoardBytes } = {}) {
  const op = envelope?.op;
  let reason;
  switch (outcome.code) {
    case "forbidden": {
      // R17: a role's refusal names the role and says whom to ask ("A commenter can comment on cards but not …").
      if (/^An? (admin|editor|commenter|viewer) /.test(outcome.message || "")) {
        reason = outcome.message.charAt(0).toLowerCase() + outcome.message.slice(1);
        if (!/[.!?]$/.test(reason)) reason += ".";
        break;
      }
      const id = op?.destination?.collection ?? board?.position(op?.item)?.collection;
      const collection = id && board?.collectionById.get(id);
      reason = collection?.accepts.length ? takesOnly(collection) : "that collection does not take this kind of item.";
      break;
    }
    case "gone": reason = "it was deleted before your change arrived."; break;
    case "destination-gone": reason = "the collection or section it was going to was deleted meanwhile; nothing moved."; break;
    case "cycle": reason = "a card cannot go inside itself or a card inside it."; break;
    case "locked": {
      const item = outcome.item && board?.item(outcome.item);
      const card = item ? named(itemLabel(item)) : "one of these cards";
      // R12: an edit lease, not a drag, holds it.
      const editing = /^(.+?) is editing /.exec(outcome.message || "");
      const editor = members?.editorOf?.(outcome.item)?.name || editing?.[1];
      reason = editor
        ? `${editor} is editing ${card}; try again once they save.`
        : `${holderOf(outcome.item, members, outcome.message)} is moving ${card}; try again once they drop it.`;
      break;
    }
    case "invalid":
      reason = INVALID[op?.kind]?.(outcome.field) || "it no longer fits the board as it is now; nothing changed.";
      break;
    case "read-only": reason = "you can only view this board; ask for the edit link to make changes."; break;
    case "not-owner":
      reason = COMMENT_KINDS.has(op?.kind) ? "only the person who wrote a comment can change or delete it." : "only the person who added it can finish it.";
      break;
    case "duplicate-id": reason = "something with the same name was added at the same moment; try again."; break;
    case "not-found":
      reason = op?.kind === "updateCard" && outcome.field === "addLabels" ? "that label was deleted from the board meanwhile." : "it was deleted meanwhile.";
      break;
    case "store-failed": reason = "the server could not save it; try again in a moment."; break;
    case "conflict":
      // R12: the card changed since the edit began; what was typed is kept in the editor.
      if (op?.kind === "editComment") {
        reason = "it was changed elsewhere (in another tab?) since you began editing it. Your text is kept: look at the comment and save again.";
      } else if (op?.kind === "updateCard" && outcome.field === "dates") {
        reason = "someone changed its dates meanwhile; look at them and set yours again.";
      } else if (op?.kind === "updateCard") {
        reason = "someone changed the description while you were editing it. Your text is kept: look at theirs and save again.";
      } else {
        reason = op?.kind === "updateItem" || outcome.field === "version"
          ? "the card changed while you were editing it. Your text is kept: look at the new version and save again."
          : "someone else changed it first; nothing was applied, so try again.";
      }
      break;
    case "too-large": {
      const limit = maxBoardBytes ? ` (it may hold ${Math.round(maxBoardBytes / MIB)} MiB)` : "";
      reason = `the board is full${limit}; delete or move cards first.`;
      break;
    }
    default: reason = "the server refused it; try again.";
  }
  return `${subject(envelope)}: ${reason}`;
}

/**
 * An operation the room refused as a message (an `error` answering it, such as `invalid-field`
 * for a text over a limit) in words; `context` as for rejectionInWords.
 */
export function messageRefusalInWords(error, { envelope } = {}) {
  const kind = envelope?.op?.kind;
  const reason = error.code === "invalid-field"
    ? kind === "updateCard"
      ? "the server does not take it as it is (a description may be too long, or too many people assigned); change it and try again."
      : COMMENT_KINDS.has(kind)
        ? "the server does not take it as it is (a comment holds at most 16 KiB); shorten it and try again."
        : "the server does not take it as it is (a title or text may be too long); shorten it and try again."
    : "the server refused it; try again.";
  return `${subject(envelope)}: ${reason}`;
}

/** Why the connection dropped, from the close code (and the server's reason), without the code. */
export function connectionLostInWords(code, reason = "") {
  if (code === 1008 && /failed joins/.test(reason)) return "a link with a wrong or outdated key was tried too often from your network, so the server asks to wait";
  if (code === 1008 && /rate limit/.test(reason)) return "too many messages were sent too fast from your network, so the server asks to wait";
  switch (code) {
    case 1001: return "the server is restarting";
    case 1008: return "the connection fell behind";
    case 1009: return "a message was too large";
    case 1011: return "the server could not store a change";
    case 4100: return "the server stopped answering";
    default: return "the network connection dropped";
  }
}
