// The card view's "Comments" (issue 41): the card's thread, oldest first, each comment with its
// author's name, its time in the browser's time zone and its text as markdown (rendered node by
// node, never parsed as HTML: model/markdown.js and ui/rich-text.js), where "@Name" of one of the
// board's people is marked. Below it a textbox named "Comment" and "Save comment" (Ctrl/⌘+Enter
// saves too) add one (`addComment`).
//
// The author of a comment sees "Edit comment" and "Delete comment" on it, nobody else: an edit is
// made on the comment's version (`editComment`; the room refuses it `conflict` when the comment
// changed since, e.g. in another tab, and the text comes back with the reason), a deletion asks
// first. Limits are checked before anything is sent (16 KiB a comment, 500 a card). Comments from
// others show live; commenters comment like editors (R17); viewers read the thread and see no controls.
import { el, on } from "../ui/dom.js";
import { confirmDialog } from "../ui/dialog.js";
import { longDate } from "../ui/local-time.js";
import { renderTree } from "../ui/rich-text.js";
import { parseMarkdown } from "../model/markdown.js";
import { mentionSegments } from "../model/mentions.js";
import { CARD_LIMITS, commentTextProblem, commentsInWords, detailsOf } from "../model/card-details.js";

const KINDS = new Set(["addComment", "editComment", "deleteComment"]);
const NONE = Object.freeze([]);

/** Marks "@Name" of one of `names` in the text of a rendered comment (never inside code or a link). */
export function markMentions(root, names) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) if (walker.currentNode.data.includes("@") && !walker.currentNode.parentElement.closest("code, a")) texts.push(walker.currentNode);
  for (const node of texts) {
    const segments = mentionSegments(node.data, names);
    if (!segments.some((s) => s.mention)) continue;
    node.replaceWith(...segments.map((s) => (s.mention ? el("span", { className: "mention", text: s.text, attrs: { title: `Mentions ${s.mention}` } }) : s.text)));
  }
}

export class CommentThread {
  /**
   * @param {object} deps
   *   session   BoardSession (board, canComment, clientId, me)
   *   edits     BoardEdits (addComment, editComment, deleteComment)
   *   announce(text)
   */
  constructor({ session, edits, announce }) {
    Object.assign(this, { session, edits, announce });
    this.itemId = null;
    this.key = "";
    this.nodes = new Map(); // comment id → its <li>, kept while it is edited
    this.editing = null; // {id, version, textbox, node}
    this.drafts = new Map(); // opId → {itemId, kind, comment?, text?}, until the room answers
    this.heading = el("h3", { className: "card-view-heading", text: "Comments", attrs: { id: "card-view-comments" } });
    this.list = el("ol", { className: "comment-list", attrs: { "aria-labelledby": "card-view-comments" } });
    this.empty = el("p", "card-view-empty", "No comments yet.");
    this.status = el("p", { className: "comment-notice", attrs: { role: "status" }, props: { hidden: true } });
    this.textbox = el("textarea", {
      className: "comment-textbox",
      attrs: { "aria-label": "Comment", rows: "3", placeholder: "Write a comment: markdown, @Name to mention someone. Ctrl+Enter saves." },
    });
    this.saveButton = el("button", { className: "primary", text: "Save comment", attrs: { "aria-keyshortcuts": "Control+Enter Meta+Enter" }, props: { type: "button" } });
    this.form = el("div", "comment-form", this.textbox, el("div", "dialog-actions", this.saveButton));
    this.element = el("section", { className: "card-view-section card-view-comments", attrs: { "aria-labelledby": "card-view-comments" } },
      this.heading, this.list, this.empty, this.status, this.form);
    on(this.saveButton, "click", () => this.#add());
    on(this.textbox, "keydown", (event) => {
      if (saveKey(event)) {
        event.preventDefault();
        this.#add();
      }
    });
    on(this.list, "click", (event) => this.#clicked(event));
  }

  notice(text) {
    this.status.textContent = text;
    this.status.hidden = !text;
  }

  /** Shows the card's thread; `people` are the board's names that a mention may name. */
  show(item, people) {
    if (item.id !== this.itemId) {
      this.itemId = item.id;
      this.textbox.value = "";
      this.editing = null;
      this.nodes.clear();
      this.notice("");
    }
    this.people = people;
    const canComment = this.session.canComment;
    // The model gives a card's thread a new array whenever it changes, so an unchanged one is skipped
    // without reading it (a thread may hold 500 comments of 16 KiB, and this runs every frame).
    const comments = item.details?.comments || NONE;
    this.form.hidden = !canComment;
    this.empty.hidden = comments.length > 0;
    this.heading.textContent = comments.length ? `Comments (${comments.length})` : "Comments";
    const me = this.session.clientId;
    const key = JSON.stringify([canComment, me, people, this.editing?.id]);
    if (key === this.key && comments === this.shown) return;
    this.key = key;
    this.shown = comments;
    const focused = this.list.contains(document.activeElement) ? [document.activeElement.closest(".comment")?.dataset.comment, document.activeElement.className] : null;
    // The comment being edited keeps its textbox; it ends if the comment left or its author changed it elsewhere.
    const editing = this.editing && comments.find((c) => c.id === this.editing.id);
    if (this.editing && !editing) return this.#endEdit();
    if (editing && (editing.version || 0) !== this.editing.version) {
      this.notice("You changed this comment elsewhere meanwhile; saving now will be refused. Copy your text, cancel, and edit it again.");
    }
    const rows = comments.map((comment) => {
      if (this.editing?.id === comment.id) return this.editing.node;
      const own = canComment && comment.author === me;
      // A comment that did not change keeps its node (and the focus on its buttons).
      const rowKey = JSON.stringify([comment.text, comment.version, comment.name, comment.at, own, people]);
      const kept = this.nodes.get(comment.id);
      if (kept?._key === rowKey) return kept;
      const node = this.#row(comment, own, people);
      node._key = rowKey;
      this.nodes.set(comment.id, node);
      return node;
    });
    for (const id of this.nodes.keys()) if (!comments.some((c) => c.id === id)) this.nodes.delete(id);
    // In place, so the comment being edited (and the focus in it) stays where it is.
    const keep = new Set(rows);
    for (const child of [...this.list.children]) if (!keep.has(child)) child.remove();
    rows.forEach((row, n) => {
      if (this.list.children[n] !== row) this.list.insertBefore(row, this.list.children[n] || null);
    });
    if (focused?.[0] && !this.list.contains(document.activeElement)) {
      this.list.querySelector(`.comment[data-comment="${CSS.escape(focused[0])}"] .${focused[1].split(" ").at(-1)}`)?.focus();
    }
  }

  #row(comment, own, people) {
    const name = comment.name || (comment.author === this.session.clientId ? this.session.me?.name : "") || "Someone";
    const time = comment.at
      ? el("time", { className: "comment-time", text: longDate(comment.at), attrs: { datetime: new Date(comment.at).toISOString() } })
      : el("span", { className: "comment-time", text: "Sending…" });
    const head = el("div", "comment-head", el("strong", "comment-author", name), time, comment.version ? el("span", "comment-edited", "(edited)") : null);
    if (own) {
      const button = (text, className) => el("button", { className: `bar-button ${className}`, text, props: { type: "button" } });
      head.append(el("div", "comment-actions", button("Edit comment", "comment-edit"), button("Delete comment", "comment-delete")));
    }
    const body = el("div", "comment-body markdown");
    body.append(renderTree(parseMarkdown(comment.text), { baseLevel: 4 }));
    markMentions(body, people);
    return el("li", { className: "comment", data: { comment: comment.id } }, head, body);
  }

  #comment(id) {
    return detailsOf(this.session.board?.item(this.itemId)).comments.find((c) => c.id === id);
  }

  #clicked(event) {
    const button = event.target.closest("button");
    const id = button?.closest(".comment")?.dataset.comment;
    if (!id || !this.session.canComment) return;
    if (button.classList.contains("comment-edit")) this.#beginEdit(id);
    else if (button.classList.contains("comment-delete")) this.#delete(id);
    else if (button.classList.contains("comment-save")) this.#saveEdit();
    else if (button.classList.contains("comment-cancel")) this.#endEdit({ focus: true });
  }

  // MARK: Adding

  #add() {
    const item = this.session.board?.item(this.itemId);
    if (!item || !this.session.canComment) return;
    const text = this.textbox.value;
    const problem = commentTextProblem(text);
    if (problem) return this.notice(problem.message);
    if (detailsOf(item).comments.length >= CARD_LIMITS.comments) {
      return this.notice(`This card already holds ${CARD_LIMITS.comments} comments, as many as a card can; delete some before adding more.`);
    }
    const opId = this.edits.addComment(this.itemId, text);
    this.drafts.set(opId, { itemId: this.itemId, kind: "addComment", text });
    this.textbox.value = "";
    this.notice("");
    this.announce(`Comment saved; the card has ${commentsInWords(detailsOf(this.session.board.item(this.itemId)).comments.length)}.`);
    this.textbox.focus();
  }

  // MARK: Editing and deleting one's own

  #beginEdit(id, { text, notice } = {}) {
    const comment = this.#comment(id);
    if (!comment || comment.author !== this.session.clientId) return;
    if (this.editing) this.#endEdit();
    const textbox = el("textarea", { className: "comment-textbox", attrs: { "aria-label": "Edited comment", rows: "3" }, props: { value: text ?? comment.text } });
    const save = el("button", { className: "primary comment-save", text: "Save edit", attrs: { "aria-keyshortcuts": "Control+Enter Meta+Enter" }, props: { type: "button" } });
    const cancel = el("button", { className: "comment-cancel", text: "Cancel edit", props: { type: "button" } });
    const old = this.nodes.get(id);
    const node = el("li", { className: "comment editing", data: { comment: id } }, old?.querySelector(".comment-head")?.cloneNode(true) || "",
      el("div", "comment-form", textbox, el("div", "dialog-actions", save, cancel)));
    node.querySelector(".comment-actions")?.remove();
    on(textbox, "keydown", (event) => {
      if (event.key === "Escape") {
        // Escape leaves the textbox, not the card.
        event.preventDefault();
        event.stopPropagation();
        this.#endEdit({ focus: true });
      } else if (saveKey(event)) {
        event.preventDefault();
        this.#saveEdit();
      }
    });
    this.editing = { id, version: comment.version || 0, textbox, node };
    old?.replaceWith(node);
    this.key = "";
    this.notice(notice || "");
    textbox.focus();
    textbox.setSelectionRange(textbox.value.length, textbox.value.length);
  }

  #endEdit({ focus = false } = {}) {
    const id = this.editing?.id;
    this.editing = null;
    this.key = "";
    const item = this.session.board?.item(this.itemId);
    if (item) this.show(item, this.people || []);
    if (focus && id) this.list.querySelector(`.comment[data-comment="${CSS.escape(id)}"] .comment-edit`)?.focus();
  }

  #saveEdit() {
    const e = this.editing;
    if (!e) return;
    const text = e.textbox.value;
    const comment = this.#comment(e.id);
    if (!comment) return this.#endEdit();
    if (text === comment.text) return this.#endEdit({ focus: true });
    const problem = commentTextProblem(text);
    if (problem) return this.notice(problem.message);
    const opId = this.edits.editComment(this.itemId, e.id, text, e.version);
    this.drafts.set(opId, { itemId: this.itemId, kind: "editComment", comment: e.id, text });
    this.notice("");
    this.announce("Comment changed.");
    this.#endEdit({ focus: true });
  }

  async #delete(id) {
    const itemId = this.itemId;
    const sure = await confirmDialog({ title: "Delete your comment?", message: "It goes for everyone on the board. Undo in the top bar brings it back.", confirm: "Delete" });
    if (!sure || this.itemId !== itemId || !this.#comment(id)) return;
    if (this.editing?.id === id) this.#endEdit();
    const opId = this.edits.deleteComment(itemId, id);
    this.drafts.set(opId, { itemId, kind: "deleteComment", comment: id });
    this.announce("Comment deleted.");
    this.textbox.focus();
  }

  // MARK: The room's answers

  /** A committed operation: ours leaves the drafts. */
  applied(committed) {
    if (committed.clientId === this.session.clientId) this.drafts.delete(committed.opId);
  }

  /** A refused comment of ours on the open card: its text comes back with the reason; returns whether it was one. */
  rejected(envelope, sentence) {
    const draft = this.drafts.get(envelope?.opId);
    this.drafts.delete(envelope?.opId);
    if (!KINDS.has(envelope?.op?.kind) || envelope.op.item !== this.itemId) return false;
    if (draft?.kind === "addComment" && !this.textbox.value) this.textbox.value = draft.text;
    if (draft?.kind === "editComment" && this.#comment(draft.comment)) {
      this.#beginEdit(draft.comment, { text: draft.text, notice: sentence });
      return true;
    }
    this.notice(sentence);
    return true;
  }
}

/** Ctrl+Enter (⌘+Enter on a Mac) saves. */
function saveKey(event) {
  return event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.altKey;
}
