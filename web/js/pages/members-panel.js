// The "Members" panel (issue 45): everyone with access to the board and who is on it now. Everyone
// sees every person with access, their role, who is on the board now and when the others were last
// seen (asked for with `listPeople` when the panel opens), and who is here by a link; admins also get,
// per person, a "Role" select and a "Remove" button, the "Invite" form (name, role, one use,
// expiry) that shows the new link with "Copy invite link", each invite with its link and a
// Disable/Enable button, and the "Anyone with the link" row (on/off, and new links). It follows the
// room live while open: members joining and leaving, the admins' `people` pushes, and this member's
// own role (a demoted admin's controls go at once). Every refusal is said in the panel as its
// sentence (model/people.js).
import { el, on } from "../ui/dom.js";
import { confirmDialog } from "../ui/dialog.js";
import { roleMay, ROLE_NAMES } from "../model/roles.js";
import { inviteLink } from "../model/invite-link.js";
import {
  EXPIRY_DAYS, ROLE_LABELS, inviteInWords, inviteRequest, inviteRows, memberRows, nameTaken, peopleRefusalInWords,
  personLabel, presenceInWords, rowInWords,
} from "../model/people.js";

let panels = 0;

/** A select of the four roles, `role` chosen. */
function roleSelect(role, attrs) {
  const select = el("select", { className: "role-select", attrs });
  for (const r of ROLE_NAMES) select.append(el("option", { text: ROLE_LABELS[r], props: { value: r, selected: r === role, defaultSelected: r === role } }));
  return select;
}

/** Copies `text`, saying in `status` whether it worked. */
async function copyInto(text, field, status) {
  field?.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    copied = document.execCommand?.("copy") || false;
  }
  status.textContent = copied ? "Copied" : "Select the link and copy it (Ctrl+C)";
}

export class MembersPanel {
  /**
   * @param {object} deps
   *   session  BoardSession (members, me, people, boardId)
   *   page     {announce(text), toast(text, kind)}
   */
  constructor({ session, page }) {
    this.session = session;
    this.page = page;
    this.id = `members-${++panels}`;
    this.dialog = null;
    this.created = null; // the invite just made, shown with its link until the panel closes
    this.button = el("button", { className: "bar-button", text: "Members", attrs: { "aria-label": "Members", "aria-haspopup": "dialog" }, props: { type: "button", title: "Who has access to the board" } });
    on(this.button, "click", () => this.open());
  }

  get isOpen() {
    return !!this.dialog?.open;
  }

  get isAdmin() {
    return roleMay(this.session.me?.role, "manageLinks") && !this.session.refused;
  }

  /** Opens the panel (once) and asks for the list of people (an admin's with the invites). */
  open() {
    if (this.isOpen) return;
    const heading = el("h2", { className: "dialog-title", text: "Members", attrs: { id: `${this.id}-title` } });
    this.status = el("p", { className: "dialog-problem", attrs: { role: "alert" }, props: { hidden: true } });
    this.list = el("ul", { className: "members-list", attrs: { "aria-label": "People with access" } });
    // The Invite form is made once per opening, so that a push while someone types keeps what they typed.
    this.form = this.#inviteForm();
    this.admin = el("div", "members-admin");
    const close = el("button", { className: "primary", text: "Close", props: { type: "button" } });
    this.dialog = el("dialog", { className: "dialog members-dialog", attrs: { "aria-labelledby": heading.id } },
      el("div", "dialog-form", heading, this.status, this.list, this.form, this.admin, el("div", "dialog-actions", close)));
    const returnFocus = document.activeElement;
    on(close, "click", () => this.dialog.close());
    on(this.dialog, "close", () => {
      this.dialog.remove();
      this.dialog = null;
      this.created = null;
      if (returnFocus?.isConnected) returnFocus.focus({ preventScroll: true });
    });
    document.body.append(this.dialog);
    this.key = "";
    this.adminKey = "";
    this.render();
    this.dialog.showModal();
    close.focus();
    if (!this.session.refused) this.#answer(this.session.people.refresh());
  }

  /** Says a refusal (or nothing) at the top of the panel, and to screen readers. */
  #say(sentence) {
    if (!this.status) return;
    this.status.textContent = sentence || "";
    this.status.hidden = !sentence;
  }

  /** Waits for an answer to a request: a refusal is said; returns the answer. */
  async #answer(request) {
    const answer = await request;
    if (answer.error) this.#say(peopleRefusalInWords(answer.error));
    else this.#say("");
    return answer;
  }

  /** Draws the panel as things are now (after members changed, a `people` push, a role change). */
  render(now = Date.now()) {
    if (!this.dialog) return;
    const admin = this.isAdmin;
    const list = this.session.people.list;
    const me = this.session.me;
    const members = [...this.session.members.byId.values()];
    const rows = memberRows({ people: list?.people, members, me });
    const key = JSON.stringify([rows, admin, Math.floor(now / 30000)]);
    if (key !== this.key) {
      this.key = key;
      this.#keepFocus(this.list, () => this.list.replaceChildren(...rows.map((row, n) => this.#row(row, n, admin, now))));
    }
    this.form.hidden = !admin;
    const adminKey = JSON.stringify([admin, list?.invites, list?.linksEnabled, this.created?.id, Math.floor(now / 30000)]);
    if (adminKey !== this.adminKey) {
      this.adminKey = adminKey;
      this.#keepFocus(this.admin, () => this.admin.replaceChildren(...(admin ? this.#adminParts(list, now) : [])));
    }
  }

  /** Redraws a part, focus staying on the control it was on (found again by its data-focus). */
  #keepFocus(part, redraw) {
    const focused = part.contains(document.activeElement) ? document.activeElement.dataset.focus : null;
    redraw();
    if (focused) part.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
  }

  #row(row, n, admin, now) {
    const nameId = `${this.id}-person-${n}`;
    const name = el("span", { className: "member-name", text: personLabel(row.name, row.alias) + (row.me ? " (you)" : ""), attrs: { id: nameId } });
    const about = el("span", "member-about", `${ROLE_LABELS[row.role] || row.role}${row.link ? " · with a link" : ""} · ${presenceInWords(row, now)}`);
    const li = el("li", { className: "member-row", data: { person: row.person || "", online: String(row.online) }, attrs: { "aria-label": rowInWords(row, now) } },
      el("span", { className: `presence-dot${row.online ? " online" : ""}`, attrs: { "aria-hidden": "true" } }),
      el("span", "member-text", name, about));
    if (row.removed) li.classList.add("removed");
    if (!admin || !row.person || row.removed || row.link) return li;
    const select = roleSelect(row.role, { "aria-label": "Role", "aria-describedby": nameId, "data-focus": `role:${row.person}` });
    on(select, "change", () => this.#setRole(row, select));
    const remove = el("button", { className: "bar-button danger", text: "Remove", attrs: { "aria-label": "Remove", "aria-describedby": nameId, "data-focus": `remove:${row.person}` }, props: { type: "button" } });
    on(remove, "click", () => this.#remove(row));
    li.append(el("span", "member-controls", select, remove));
    return li;
  }

  async #setRole(row, select) {
    const role = select.value;
    const answer = await this.#answer(this.session.people.setRole(row.person, role));
    if (answer.error) select.value = row.role;
    else this.page.announce(`${row.name} is now ${role === "admin" ? "an" : "a"} ${role}.`);
  }

  async #remove(row) {
    const sure = await confirmDialog({
      title: `Remove ${row.name}?`,
      message: `${row.name} is closed out of the board at once and their invite link stops working. Their comments and changes stay, under their name.`,
      confirm: `Remove ${row.name}`,
    });
    if (!sure) return;
    const answer = await this.#answer(this.session.people.removePerson(row.person));
    if (!answer.error) this.page.announce(`Removed ${row.name} from the board.`);
  }

  /** The admin's parts below the Invite form: the new link, the invites, the "Anyone with the link" row. */
  #adminParts(list, now) {
    const parts = [];
    if (this.created) parts.push(this.#createdLink(this.created));
    const invites = inviteRows(list?.invites || [], now);
    if (invites.length) {
      parts.push(el("h3", { className: "members-heading", text: "Invites", attrs: { id: `${this.id}-invites` } }),
        el("ul", { className: "invite-list", attrs: { "aria-labelledby": `${this.id}-invites` } }, ...invites.map((invite, n) => this.#inviteRow(invite, n, now))));
    }
    if (list) parts.push(this.#linksRow(list));
    return parts;
  }

  #inviteForm() {
    const field = (label, control) => el("label", "members-field", el("span", "members-field-label", label), control);
    const name = el("input", { attrs: { autocomplete: "off", "data-focus": "invite-name" }, props: { type: "text", maxLength: 64, required: true } });
    const role = roleSelect("editor", { "data-focus": "invite-role" });
    const days = el("select", { attrs: { "data-focus": "invite-days" } });
    for (const d of EXPIRY_DAYS) days.append(el("option", { text: d ? `${d} day${d === 1 ? "" : "s"}` : "Never", props: { value: String(d), selected: d === 7, defaultSelected: d === 7 } }));
    const oneUse = el("input", { attrs: { "data-focus": "invite-one-use" }, props: { type: "checkbox", checked: true, defaultChecked: true } });
    const submit = el("button", { className: "primary", text: "Invite", attrs: { "data-focus": "invite-submit" }, props: { type: "submit" } });
    const form = el("form", { className: "invite-form", attrs: { "aria-labelledby": `${this.id}-invite-title` } },
      el("h3", { className: "members-heading", text: "Invite a person", attrs: { id: `${this.id}-invite-title` } }),
      el("p", "hint", "The link is theirs: the first browser that opens it joins as them, with this role."),
      field("Name", name), field("Their role", role), field("Expires after", days),
      el("label", "members-check", oneUse, "One use only"),
      submit);
    on(form, "submit", async (event) => {
      event.preventDefault();
      if (form.getAttribute("aria-busy") === "true") return;
      const request = inviteRequest({ name: name.value, role: role.value, oneUse: oneUse.checked, days: days.value }, Date.now());
      if (request.problem) return this.#say(request.problem);
      if (nameTaken(this.session.people.list?.people, request.name)
        && !(await confirmDialog({ title: `Invite another ${request.name}?`, message: `Someone called ${request.name} already has access. Invite a second person of that name?`, confirm: "Invite" }))) return;
      form.setAttribute("aria-busy", "true");
      const answer = await this.#answer(this.session.people.createInvite(request));
      form.removeAttribute("aria-busy");
      if (answer.error) return;
      form.reset();
      this.created = answer.created || null;
      this.adminKey = "";
      this.render();
      this.page.announce(`Invited ${request.name}: copy the link and send it to them.`);
      this.admin.querySelector(".invite-created [data-focus='copy-created']")?.focus();
    });
    return form;
  }

  #link(invite) {
    return inviteLink(location.href, this.session.boardId, invite.token);
  }

  /** The invite just made: its link, to copy and send. */
  #createdLink(invite) {
    const url = this.#link(invite);
    const field = el("input", { className: "share-link", attrs: { readonly: true, "aria-label": `Invite link for ${invite.name}` }, props: { value: url } });
    const status = el("span", { className: "copy-status", attrs: { role: "status" } });
    const copy = el("button", { className: "bar-button", text: "Copy invite link", attrs: { "aria-label": "Copy invite link", "data-focus": "copy-created" }, props: { type: "button" } });
    on(field, "focus", () => field.select());
    on(copy, "click", () => copyInto(url, field, status));
    return el("div", "share-row invite-created",
      el("p", "share-label", `The invite link for ${invite.name}`),
      el("p", "hint", "Send it to them only: whoever opens it first joins as them."),
      el("div", "share-line", field, copy, status));
  }

  #inviteRow(invite, n, now) {
    const nameId = `${this.id}-invite-${n}`;
    const status = el("span", { className: "copy-status", attrs: { role: "status" } });
    const copy = el("button", { className: "bar-button small", text: "Copy invite link", attrs: { "aria-label": "Copy invite link", "aria-describedby": nameId, "data-focus": `copy:${invite.id}` }, props: { type: "button" } });
    on(copy, "click", () => copyInto(this.#link(invite), null, status));
    const toggle = el("button", {
      className: "bar-button small", text: invite.disabled ? "Enable" : "Disable",
      attrs: { "aria-describedby": nameId, "data-focus": `toggle:${invite.id}` }, props: { type: "button" },
    });
    on(toggle, "click", () => this.#answer(this.session.people.setInviteDisabled(invite.id, !invite.disabled)));
    return el("li", { className: `invite-row${invite.disabled ? " disabled" : ""}`, data: { invite: invite.id } },
      el("span", "member-text", el("span", { className: "member-name", text: invite.name, attrs: { id: nameId } }), el("span", "member-about", inviteInWords(invite, now))),
      el("span", "member-controls", copy, toggle, status));
  }

  /** The "Anyone with the link" row: the edit, comment and view links on or off, and new ones. */
  #linksRow(list) {
    const titleId = `${this.id}-links`;
    const toggle = el("input", { attrs: { role: "switch", "aria-checked": String(list.linksEnabled), "aria-labelledby": titleId, "aria-describedby": `${titleId}-hint`, "data-focus": "links-switch" }, props: { type: "checkbox", checked: list.linksEnabled } });
    on(toggle, "change", () => {
      toggle.setAttribute("aria-checked", String(toggle.checked));
      this.#setLinks(toggle);
    });
    const rotate = el("button", { className: "bar-button", text: "New links", attrs: { "aria-label": "Replace the share links", "data-focus": "links-rotate" }, props: { type: "button" } });
    on(rotate, "click", () => this.#rotate());
    const hint = list.linksEnabled
      ? "On: the edit, comment and view links (Share) open the board for anyone who has them. Your admin link always works."
      : "Off: the edit, comment and view links open nothing; only invited people and the admin link get in.";
    return el("div", "links-row",
      el("label", "members-check", toggle, el("span", { className: "members-heading", text: "Anyone with the link", attrs: { id: titleId } })),
      el("p", { className: "hint", text: hint, attrs: { id: `${titleId}-hint` } }),
      rotate);
  }

  async #setLinks(toggle) {
    const enabled = toggle.checked;
    if (!enabled && !(await confirmDialog({
      title: "Turn off the share links?",
      message: "Everyone who joined with the edit, comment or view link is closed out now, and those links stop working. Invited people and the admin link keep working.",
      confirm: "Turn off",
    }))) {
      toggle.checked = true;
      toggle.setAttribute("aria-checked", "true");
      return;
    }
    const answer = await this.#answer(this.session.people.setLinks(enabled));
    if (answer.error) {
      toggle.checked = !enabled;
      toggle.setAttribute("aria-checked", String(!enabled));
    }
    else this.page.announce(enabled ? "Anyone with the link can open the board again." : "The share links are off.");
  }

  async #rotate() {
    const sure = await confirmDialog({
      title: "Replace the share links?",
      message: "The edit, comment and view links get new keys; everyone who joined with the old ones is closed out. Share the new links (Share) with whoever should keep access.",
      confirm: "Replace the links",
    });
    if (!sure) return;
    const answer = await this.#answer(this.session.people.rotateLinks());
    if (!answer.error) this.page.announce("New share links made; the old ones open nothing.");
  }
}
