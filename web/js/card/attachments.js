// The card view's "Files" (issue 41): what is attached to the card and "Attach file", which takes
// any file up to the server's upload limit. Images show a preview and can be the card's cover
// ("Make cover" / "Remove cover"); every file is listed with its name, size and a download link
// (the server serves anything that is not exactly an image only as a download, so no upload runs
// on the board's origin). "Remove" detaches a file. Each change is an `updateCard` (attach,
// detach, cover), so it is sequenced, live for everyone and undoable like any other. Viewers see
// the files and download them; they change nothing.
import { el, on } from "../ui/dom.js";
import { CARD_LIMITS, fileSize, isImageFile } from "../model/card-details.js";
import { downloadUrl, uploadFile } from "../net/uploads.js";

export class AttachmentList {
  /**
   * @param {object} deps
   *   upload                 {board, key, capabilities()} for the upload endpoint
   *   change(parts, sentence) submits an updateCard of the open card (the card view's #submit)
   *   notice(text)            shows a sentence in the card view
   */
  constructor({ upload, change, notice }) {
    this.upload = upload;
    this.change = change;
    this.notice = notice;
    this.key = "";
    this.count = 0;
    this.list = el("ul", { className: "card-view-files", attrs: { "aria-label": "Attached files" } });
    this.input = el("input", { className: "sr-only", attrs: { type: "file", multiple: "", tabindex: "-1", "aria-hidden": "true" } });
    this.attachButton = el("button", { className: "bar-button", text: "Attach file", props: { type: "button" } });
    this.progress = el("p", { className: "card-view-uploading", attrs: { role: "status" }, props: { hidden: true } });
    this.element = el("section", { className: "card-view-section card-view-attachments", attrs: { "aria-labelledby": "card-view-files" } },
      el("h3", { className: "card-view-heading", text: "Files", attrs: { id: "card-view-files" } }),
      this.list, this.attachButton, this.input, this.progress);
    on(this.attachButton, "click", () => this.input.click());
    on(this.input, "change", () => {
      const files = [...this.input.files];
      this.input.value = "";
      this.#attach(files);
    });
    on(this.list, "click", (event) => {
      const button = event.target.closest("button[data-action]");
      if (button) this.#act(button.dataset.action, button.dataset.url, button.dataset.name);
    });
  }

  /** Shows the card's files; `canEdit` shows the buttons that change them. */
  show(attachments, cover, canEdit) {
    this.count = attachments.length;
    this.attachButton.hidden = !canEdit;
    const key = JSON.stringify([attachments, cover, canEdit]);
    if (key === this.key) return;
    this.key = key;
    const focused = this.list.contains(document.activeElement) ? [document.activeElement.dataset.action, document.activeElement.dataset.url] : null;
    const rows = attachments.map((file) => this.#row(file, file.url === cover, canEdit));
    this.list.replaceChildren(...(rows.length ? rows : [el("li", "card-view-empty", "No files attached.")]));
    if (focused) this.list.querySelector(`button[data-action="${focused[0]}"][data-url="${CSS.escape(focused[1] || "")}"]`)?.focus();
  }

  #row(file, isCover, canEdit) {
    const image = isImageFile(file.url);
    const link = el("a", { className: "card-view-file-name", text: file.name, attrs: { href: downloadUrl(file), download: file.name, rel: "noopener" } });
    const row = el("li", { className: `card-view-file${isCover ? " cover" : ""}` });
    if (image) row.append(el("img", { className: "card-view-file-preview", attrs: { src: file.url, alt: "", loading: "lazy" } }));
    const about = el("span", "card-view-file-about", link, el("span", "card-view-file-size", `${fileSize(file.bytes)}${isCover ? " · cover" : ""}`));
    row.append(about);
    if (canEdit) {
      const button = (action, text, label) => el("button", {
        className: "bar-button", text, props: { type: "button" },
        attrs: { "data-action": action, "data-url": file.url, "data-name": file.name, "aria-label": `${label ?? text} ${file.name}` },
      });
      const buttons = el("span", "card-view-file-actions");
      if (image) buttons.append(isCover ? button("uncover", "Remove cover", "Remove cover") : button("cover", "Make cover", "Make cover of"));
      buttons.append(button("detach", "Remove", "Remove"));
      row.append(buttons);
    }
    return row;
  }

  #act(action, url, name) {
    if (action === "detach") this.change({ detach: [url] }, `Removed ${name}.`);
    else if (action === "cover") this.change({ cover: url }, `${name} is the card's cover.`);
    else if (action === "uncover") this.change({ cover: "" }, "The card has no cover now.");
  }

  async #attach(files) {
    if (!files.length) return;
    if (this.count + files.length > CARD_LIMITS.attachments) {
      this.notice(`A card holds at most ${CARD_LIMITS.attachments} files; remove some before attaching more.`);
      return;
    }
    this.attachButton.disabled = true;
    const attached = [];
    try {
      for (const [n, file] of files.entries()) {
        this.progress.hidden = false;
        this.progress.textContent = files.length > 1 ? `Uploading ${file.name} (${n + 1} of ${files.length})…` : `Uploading ${file.name}…`;
        const answer = await uploadFile(this.upload, file, { asAttachment: true });
        attached.push({ url: answer.url, name: file.name || "file", type: answer.type, bytes: answer.bytes });
      }
    } catch (error) {
      this.notice(`The file was not attached: ${error.message}.`);
    } finally {
      this.progress.hidden = true;
      this.attachButton.disabled = false;
    }
    const unique = attached.filter((file, n) => attached.findIndex((other) => other.url === file.url) === n);
    if (unique.length) this.change({ attach: unique }, unique.length === 1 ? `Attached ${unique[0].name}.` : `Attached ${unique.length} files.`);
  }
}
