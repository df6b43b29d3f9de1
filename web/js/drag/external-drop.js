// Content from outside the page (text, links, image files) and cards dragged out of it.
//
// Dropping in: while the content hovers, a drag session with `external` type lists shows the gap
// and the room's proposal like any drag (a forbidden cursor where the collection does not take
// it). On drop, each piece becomes a placeholder (insertPlaceholder under the drag's session, so
// every member sees "Loading…" in the dropper's color at once), then is committed with its
// content (commitPlaceholder) or deleted if reading or uploading it fails.
//
// Dragging out: the ⇱ grip of a card starts a native drag carrying text/plain, text/uri-list
// (links) and application/x-corkboard+json {origin, board, items, representations}. Another
// Corkboard tab of the same server that receives it asks this tab, over a BroadcastChannel, to
// move the items there (a drop with `board`); without an answer it inserts copies.
//
// It sees the page through narrow facets: `page` {root, view, board, announce, toast, renderNow},
// `drags` (the drag controller), `selection`, and `content` {canDrop(), clientId(), submit(op,
// options), log(event), upload: {board, key, capabilities()}} for what it adds to the board.
import { itemLabel } from "../model/card-content.js";
import { destinationFor } from "./drag-controller.js";
import { derivedID } from "../model/model.js";
import { el, on } from "../ui/dom.js";
import { operation } from "../net/protocol.js";
import { uploadFile } from "../net/uploads.js";

export const CORKBOARD_MIME = "application/x-corkboard+json";
const MAX_DATA_URL_BYTES = 400 * 1024;
const MAX_IMAGE_EDGE = 1024;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const channel = "BroadcastChannel" in window ? new BroadcastChannel("corkboard-drags") : null;

/** The type lists of what a DataTransfer carries, as far as it can be seen while hovering. */
export function externalTypes(dt) {
  const lists = [];
  const types = [...(dt.types || [])];
  if (types.includes(CORKBOARD_MIME)) return [["corkboard.card"]];
  for (const item of dt.items || []) {
    if (item.kind === "file") lists.push(IMAGE_TYPES.includes(item.type) ? ["public.image"] : [item.type ? `public.data.${item.type}` : "public.data"]);
  }
  if (lists.length === 0 && types.includes("Files")) lists.push(["public.image"]);
  if (lists.length === 0) {
    if (types.includes("text/uri-list")) lists.push(["public.url", "public.plain-text"]);
    else if (types.includes("text/plain")) lists.push(["public.plain-text"]);
  }
  return lists.slice(0, 20);
}

function looksLikeURL(text) {
  return /^https?:\/\/\S+$/i.test(text.trim());
}

/** What a drop carries, read once at drop time: [{kind:'text'|'url'|'image'|'card', ...}]. */
export function readDrop(dt) {
  const entries = [];
  const files = [...(dt.files || [])];
  for (const file of files) entries.push({ kind: IMAGE_TYPES.includes(file.type) ? "image" : "file", file });
  if (entries.length) return entries;
  const corkboard = dt.getData(CORKBOARD_MIME);
  if (corkboard) {
    try {
      const payload = JSON.parse(corkboard);
      if (payload && Array.isArray(payload.items)) return [{ kind: "card", payload }];
    } catch {
      // Not ours after all; fall through to text.
    }
  }
  const uris = (dt.getData("text/uri-list") || "").split(/\r?\n/).filter((l) => l && !l.startsWith("#"));
  const text = dt.getData("text/plain") || "";
  if (uris.length) {
    for (const url of uris.slice(0, 20)) entries.push({ kind: "url", url, text: uris.length === 1 && text && text !== url ? text : "" });
  } else if (text.trim()) {
    entries.push(looksLikeURL(text) ? { kind: "url", url: text.trim(), text: "" } : { kind: "text", text });
  }
  return entries;
}

function readAsDataURL(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error || new Error("the file could not be read"));
    reader.readAsDataURL(blob);
  });
}

/** An image as a data: URL small enough for a message, scaled down when needed. */
async function imageDataURL(file) {
  if (file.size <= MAX_DATA_URL_BYTES * 0.74) return readAsDataURL(file);
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, MAX_IMAGE_EDGE / Math.max(bitmap.width, bitmap.height));
  const canvas = el("canvas", { props: { width: Math.max(1, Math.round(bitmap.width * scale)), height: Math.max(1, Math.round(bitmap.height * scale)) } });
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  for (const quality of [0.85, 0.7, 0.5]) {
    const url = canvas.toDataURL("image/jpeg", quality);
    if (url.length <= MAX_DATA_URL_BYTES) return url;
  }
  throw new Error("the image is too large to send without the server's upload endpoint");
}

/**
 * Stores an image and returns its URL: the server's upload endpoint when /healthz advertises
 * `uploadMaxBytes`, otherwise a (scaled-down) data: URL.
 */
async function storeImage(upload, file) {
  if (!upload.capabilities().uploadMaxBytes) return imageDataURL(file);
  return (await uploadFile(upload, file)).url;
}

async function representationsOf(upload, entry) {
  switch (entry.kind) {
    case "text":
      return [{ type: "public.plain-text", value: entry.text }];
    case "url":
      return [{ type: "public.url", value: entry.url }, { type: "public.plain-text", value: entry.text || entry.url }];
    case "image": {
      const url = await storeImage(upload, entry.file);
      return [{ type: "public.image", value: url }, { type: "public.plain-text", value: entry.file.name || "Image" }];
    }
    case "card":
      return entry.payload.representations?.[0] || [{ type: "public.plain-text", value: "Card" }];
    default:
      throw new Error(`${entry.file?.name || "this file"} is not an image (PNG, JPEG, GIF or WebP)`);
  }
}

export function installExternalDrop({ page, drags, selection, content }) {
  const boardId = content.upload.board;
  let ext = null; // {drag, leaveTimer}
  let outgoing = null; // a card dragged out of this page: {drag, items, handled}

  const isOwnDrag = (event) => outgoing && [...event.dataTransfer.types].includes(CORKBOARD_MIME);

  function hover(event) {
    if (!content.canDrop()) return;
    if (isOwnDrag(event)) return; // our own card over our own page: nothing to do
    const dt = event.dataTransfer;
    if (!ext) {
      if (drags.state) return;
      const types = externalTypes(dt);
      if (!types.length) return;
      const drag = drags.begin([], { external: types, label: types.length > 1 ? `${types.length} items` : "dropped content" });
      if (!drag) return;
      drag.gapSize = { width: 160, height: 56 };
      ext = { drag };
    }
    clearTimeout(ext.leaveTimer);
    const target = page.view.targetAt(event.clientX, event.clientY, [], page.board);
    const op = drags.hover(ext.drag, target, false)?.operation;
    if (target && (op === "copy" || op === "move")) {
      event.preventDefault();
      dt.dropEffect = "copy";
    } else {
      dt.dropEffect = "none";
    }
  }

  on(document, "dragenter", hover);
  on(document, "dragover", hover);
  on(document, "dragleave", () => {
    if (!ext) return;
    clearTimeout(ext.leaveTimer);
    const current = ext;
    // dragleave fires between every pair of elements; only a quiet pause means it left the page.
    current.leaveTimer = setTimeout(() => {
      if (ext === current) {
        drags.cancel(current.drag);
        ext = null;
      }
    }, 150);
  });

  on(document, "drop", (event) => {
    if (isOwnDrag(event)) {
      event.preventDefault();
      return;
    }
    if (!ext) return;
    event.preventDefault();
    const current = ext;
    ext = null;
    clearTimeout(current.leaveTimer);
    const drag = current.drag;
    const target = page.view.targetAt(event.clientX, event.clientY, [], page.board) || drag.target;
    const proposal = drags.hover(drag, target, false);
    let entries = readDrop(event.dataTransfer);
    if (entries.length === 0) {
      drags.cancel(drag, "There was nothing to drop.", "info");
      return;
    }
    if (!target || !proposal || (proposal.operation !== "copy" && proposal.operation !== "move")) {
      drags.cancel(drag, drags.refusalOf(drag, proposal));
      return;
    }
    if (entries[0].kind === "card" && entries[0].payload.board !== boardId) {
      dropForeignCards(drag, entries[0].payload, target);
      return;
    }
    placeEntries(drag, entries, target);
  });

  /** Places each entry as a placeholder now, then commits it when its content is ready. */
  function placeEntries(drag, entries, target) {
    const clientId = content.clientId();
    const placeholderOf = (opId) => derivedID(clientId, opId, 0);
    // Each placeholder lands right after the one before it (R3: anchored on its id).
    const operations = entries.map((_, n) => (opIds) => {
      const destination = { collection: target.collection, section: target.section, index: target.index + n, intent: "insertAtDestinationIndexPath" };
      const after = n > 0 ? placeholderOf(opIds[n - 1]) : target.after;
      if (after) destination.after = after;
      else if (target.before) destination.before = target.before;
      return { op: operation.insertPlaceholder({ destination }), label: "Loading…" };
    });
    const placeholders = drags.drop(drag, { operations }).opIds.map(placeholderOf);
    content.log({ event: "placeholders", items: placeholders });
    page.announce(`Dropped ${entries.length > 1 ? `${entries.length} items` : "1 item"}; loading.`);
    entries.forEach(async (entry, n) => {
      const item = placeholders[n];
      try {
        const representations = await representationsOf(content.upload, entry);
        content.submit(operation.commitPlaceholder({ item, representations }), { label: itemLabel({ representations }) });
        content.log({ event: "committed", item });
      } catch (error) {
        content.submit(operation.deletePlaceholder({ item }), { label: "Loading…" });
        page.toast(`Could not add ${entry.file?.name || "the dropped item"}: ${error.message}.`, "error");
        content.log({ event: "placeholder-failed", item, reason: error.message });
      }
    });
  }

  /** Cards from another Corkboard board: ask their tab to move them here, else insert copies. */
  function dropForeignCards(drag, payload, target) {
    const request = Math.random().toString(36).slice(2);
    let answered = false;
    const listener = (event) => {
      if (event.data?.type === "moved" && event.data.request === request) answered = true;
    };
    channel?.addEventListener("message", listener);
    channel?.postMessage({
      type: "move-request",
      request,
      from: payload.board,
      session: payload.session,
      items: payload.items,
      to: boardId,
      key: content.upload.key || null,
      destination: destinationFor(target),
    });
    drags.cancel(drag);
    setTimeout(() => {
      channel?.removeEventListener("message", listener);
      if (answered) return;
      // Nobody owns the drag any more (another browser, a closed tab): copy the content.
      const items = payload.representations.map((representations) => ({ representations }));
      const destination = destinationFor(target);
      content.submit(operation.insert({ items, destination }), { label: `${items.length} card${items.length > 1 ? "s" : ""}` });
    }, 600);
  }

  // MARK: Dragging out

  on(page.root, "dragstart", (event) => {
    const grip = event.target.closest?.(".drag-out");
    const card = grip?.closest(".card");
    if (!card || drags.state) {
      if (!grip) event.preventDefault(); // only the grip starts a native drag
      return;
    }
    const board = page.board;
    const ids = selection.itemsFor(card.dataset.item).filter((id) => board.item(id) && !board.item(id).placeholder);
    if (!ids.length) {
      event.preventDefault();
      return;
    }
    const items = ids.map((id) => board.item(id));
    const texts = items.map((item) => item.representations.find((r) => r.type === "public.plain-text")?.value || itemLabel(item));
    const urls = items.map((item) => item.representations.find((r) => r.type === "public.url")?.value).filter(Boolean);
    const dt = event.dataTransfer;
    dt.effectAllowed = "copyMove";
    dt.setData("text/plain", urls.length === 1 && items.length === 1 ? urls[0] : texts.join("\n"));
    if (urls.length) dt.setData("text/uri-list", urls.join("\r\n"));
    const drag = drags.begin(ids, { label: itemLabel(items[0]), native: true });
    dt.setData(
      CORKBOARD_MIME,
      JSON.stringify({ origin: location.origin, board: boardId, session: drag?.session, items: ids, representations: items.map((i) => i.representations) }),
    );
    dt.setDragImage(card, 16, 16);
    outgoing = { drag, items: ids, handled: false };
  });

  on(page.root, "dragend", () => {
    const current = outgoing;
    if (!current) return;
    // A move request from another tab may still be on its way.
    setTimeout(() => {
      if (outgoing === current) outgoing = null;
      if (!current.handled && current.drag && drags.state === current.drag) drags.cancel(current.drag);
    }, 500);
  });

  channel?.addEventListener("message", (event) => {
    const m = event.data;
    if (m?.type !== "move-request" || m.from !== boardId || !outgoing?.drag || m.session !== outgoing.drag.session) return;
    outgoing.handled = true;
    const drag = outgoing.drag;
    channel.postMessage({ type: "moved", request: m.request });
    // R6: the room moves the items to the other board (moveOut here, insert there).
    drags.drop(drag, { board: m.to, key: m.key || undefined, destination: m.destination });
  });
}
