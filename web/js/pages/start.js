// The start page: the boards this browser has links for (remembered in localStorage when a board
// is opened), opening a share link, your display name, and creating a board when the server
// offers it (GET /healthz says `"boardCreation": true`; POST /api/boards), or importing one from a
// Trello export (POST /api/boards/import/trello).
import { el } from "../ui/dom.js";
import { retryWhenBusy } from "./busy-retry.js";
import { peekBoard } from "../net/peek.js";
import { inviteLink, inviteShapeProblem } from "../model/invite-link.js";

const BOARDS_KEY = "corkboard.boards";
const NAME_KEY = "corkboard.name";
/** Where a Trello export is imported, and the largest file the server takes (TrelloImport.maxFileBytes). */
const TRELLO_IMPORT_PATH = "/api/boards/import/trello";
const TRELLO_MAX_BYTES = 50 * 1024 * 1024;

/** The browser's localStorage, or null when storage is disabled. */
export function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: nothing is remembered
  }
}

/** The boards remembered in this browser, most recently opened first. */
export function rememberedBoards() {
  try {
    const list = JSON.parse(storage()?.getItem(BOARDS_KEY) || "[]");
    return Array.isArray(list) ? list.filter((b) => b && typeof b.id === "string") : [];
  } catch {
    return [];
  }
}

/** Remembers a board link (called when a board is opened). */
export function rememberBoard({ id, key, title, role }) {
  const list = rememberedBoards().filter((b) => !(b.id === id && (b.key || "") === (key || "")));
  list.unshift({ id, key: key || "", title: title || id, role: role || "editor", opened: Date.now() });
  storage()?.setItem(BOARDS_KEY, JSON.stringify(list.slice(0, 50)));
}

function forgetBoard(id, key) {
  storage()?.setItem(BOARDS_KEY, JSON.stringify(rememberedBoards().filter((b) => !(b.id === id && (b.key || "") === (key || "")))));
}

/** The display name: remembered, or a fresh "Guest NNN". */
export function displayName() {
  let name = storage()?.getItem(NAME_KEY);
  if (!name) {
    name = `Guest ${Math.floor(100 + Math.random() * 900)}`;
    storage()?.setItem(NAME_KEY, name);
  }
  return name;
}

/** Remembers the display name for the next boards opened (the start page's and the board page's "Your name"). */
export function saveDisplayName(name) {
  storage()?.setItem(NAME_KEY, name);
}

export function boardLink(id, key) {
  const q = new URLSearchParams({ board: id });
  if (key) q.set("key", key);
  return `./?${q}`;
}

export function startPage(root) {
  document.body.classList.add("start-page");
  root.replaceChildren();
  const header = el("header", "start-header");
  header.append(el("h1", "", "Corkboard"), el("p", "tagline", "Drag and drop together: everyone's drags, proposals and drops, live."));

  const mine = el("section", "panel");
  mine.setAttribute("aria-labelledby", "mine-title");
  const mineTitle = el("h2", "", "Your boards");
  mineTitle.id = "mine-title";
  const list = el("ul", "board-list");
  const renderList = () => {
    const boards = rememberedBoards();
    list.replaceChildren();
    if (!boards.some((b) => b.id === "demo")) {
      const li = el("li", "board-entry");
      const a = el("a", "", "Demo board");
      a.href = boardLink("demo");
      li.append(a, el("span", "hint", "Geocaches, found caches and an inbox for text, links and images"));
      list.append(li);
    }
    for (const b of boards) {
      const li = el("li", "board-entry");
      const a = el("a", "", b.title || b.id);
      a.href = boardLink(b.id, b.key);
      const meta = el("span", "hint", `${b.id}${b.role === "viewer" ? " · view only" : b.role === "commenter" ? " · comment only" : b.role === "admin" ? " · admin" : ""}`);
      const forget = el("button", "link-button", "Forget");
      forget.type = "button";
      forget.setAttribute("aria-label", `Forget ${b.title || b.id}`);
      forget.addEventListener("click", () => {
        forgetBoard(b.id, b.key);
        renderList();
      });
      li.append(a, meta, forget);
      list.append(li);
    }
  };
  renderList();
  mine.append(mineTitle, list);

  const { panel: open, form: openForm, input: linkInput, message: openError } = formPanel({
    title: "Open a share link", label: "Share link", button: "Open", message: ["p", "form-error", "alert"],
  });
  linkInput.type = "url";
  linkInput.required = true;
  linkInput.placeholder = `${location.origin}/?board=…&key=…`;
  openForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    let id, key;
    try {
      const url = new URL(linkInput.value, location.href);
      id = url.searchParams.get("board");
      key = url.searchParams.get("key") || "";
      if (!id) throw new Error("missing board");
    } catch {
      openError.textContent = "That is not a Corkboard link: it needs ?board=… (and usually &key=… or &invite=…).";
      return;
    }
    // A personal invite (issue 45) is claimed by the board page itself: a look here would claim it.
    const invite = new URL(linkInput.value, location.href).searchParams.get("invite");
    if (invite && !key) {
      const problem = inviteShapeProblem(invite);
      if (problem) openError.textContent = problem;
      else location.href = inviteLink(location.href, id, invite);
      return;
    }
    // A short look first: a link that opens nothing is explained here, not on an empty board page.
    openError.textContent = "";
    const knownBefore = rememberedBoards().some((b) => b.id === id && (b.key || "") === key);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    try {
      await peekBoard({ url: `${scheme}//${location.host}/ws`, board: id, key: key || undefined, name: displayName(), knownBefore });
      location.href = boardLink(id, key);
    } catch (error) {
      openError.textContent = error.message;
    }
  });

  const { panel: me, form: nameForm, input: nameInput, message: nameNote } = formPanel({
    title: "Your name", label: "Display name shown to others", button: "Save", message: ["p", "hint", "status"],
  });
  nameInput.value = displayName();
  nameInput.maxLength = 64;
  nameForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) return;
    saveDisplayName(name);
    nameNote.textContent = `Others will see you as ${name}.`;
  });

  const { panel: create, form: createForm, input: titleInput, button: createButton, message: createNote } = formPanel({
    title: "New board", label: "Title of the new board", button: "Create", message: ["div", "hint", "status"],
  });
  titleInput.placeholder = "Title";
  titleInput.required = true;
  titleInput.maxLength = 100;
  // Import from Trello: the board's JSON export goes to POST /api/boards/import/trello as is.
  const importLabel = el("label", "file-button", "Import from Trello (JSON export)");
  const importInput = el("input");
  importInput.type = "file";
  importInput.accept = "application/json,.json";
  importInput.setAttribute("aria-label", "Import from Trello");
  importLabel.append(importInput);
  const importNote = el("p", "hint");
  importNote.setAttribute("role", "status");
  create.append(importLabel, importNote);
  // Until /healthz answers the form waits, without a note; a note only when creation is off.
  const setCreation = (available, known = true) => {
    titleInput.disabled = createButton.disabled = importInput.disabled = !available;
    createNote.textContent = available || !known
      ? ""
      : "This server has board creation turned off. Whoever runs it can add one with: corkboard boards create ID --title TITLE, and share the edit link it prints.";
  };
  setCreation(false, false);
  fetch("/healthz", { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : {}))
    .then((h) => setCreation(!!h.boardCreation))
    .catch(() => setCreation(false));
  createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    createButton.disabled = true;
    try {
      const response = await fetch("/api/boards", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ title: titleInput.value.trim(), template: "empty" }),
      });
      if (retryWhenBusy(response, createNote, () => createForm.requestSubmit())) return;
      const body = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(body.message || `the server answered ${response.status}`);
      // The creator is the board's first admin (R17): the admin link is theirs, the others to share.
      rememberBoard({ id: body.id, key: body.adminKey || body.editKey, title: body.title, role: body.adminKey ? "admin" : "editor" });
      renderList();
      const line = (label, key) => key && linkLine(label, new URL(boardLink(body.id, key), location.href).href);
      createNote.replaceChildren(...[
        el("p", "", `Created “${body.title}”. The admin link is yours (keep it: it hands out every link); share the others:`),
        line("Admin", body.adminKey),
        line("Edit", body.editKey),
        line("Comment", body.commentKey),
        line("View", body.viewKey),
      ].filter(Boolean));
    } catch (error) {
      createNote.textContent = `Could not create the board: ${error.message}.`;
    } finally {
      createButton.disabled = false;
    }
  });

  importInput.addEventListener("change", async () => {
    const file = importInput.files?.[0];
    if (!file) return;
    if (file.size > TRELLO_MAX_BYTES) {
      importNote.textContent = `Could not import: the file has ${file.size} bytes; a Trello export may have at most 50 MiB.`;
      return;
    }
    importInput.disabled = true;
    importNote.textContent = `Importing ${file.name}…`;
    try {
      const response = await fetch(TRELLO_IMPORT_PATH, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: await file.text(),
      });
      if (retryWhenBusy(response, importNote, () => importInput.dispatchEvent(new Event("change")))) return;
      const body = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(body.message || `the server answered ${response.status}`);
      rememberBoard({ id: body.id, key: body.adminKey || body.editKey, title: body.title, role: body.adminKey ? "admin" : "editor" });
      location.href = boardLink(body.id, body.adminKey || body.editKey);
    } catch (error) {
      importNote.textContent = `Could not import the board: ${error.message}.`;
      importInput.disabled = false;
    }
  });

  const main = el("main", "start");
  main.append(mine, open, create, me);
  root.append(header, main);
}

/**
 * A panel of the start page: a heading, a one-line form (an input named `label` and a submit
 * button) and the element its outcome is written to (`message`: tag, class and ARIA role).
 */
function formPanel({ title, label, button: buttonText, message: [tag, className, role] }) {
  const panel = el("section", "panel");
  panel.append(el("h2", "", title));
  const form = el("form", "row");
  const input = el("input");
  input.setAttribute("aria-label", label);
  const button = el("button", "", buttonText);
  button.type = "submit";
  const message = el(tag, className);
  message.setAttribute("role", role);
  form.append(input, button);
  panel.append(form, message);
  return { panel, form, input, button, message };
}

function linkLine(label, href) {
  const p = el("p", "share-link");
  const a = el("a", "", href);
  a.href = href;
  p.append(el("strong", "", `${label}: `), a);
  return p;
}
