// What a card's face shows of its details (issue 41): its labels as chips (colour and name, so the
// colour is never all there is), the first lines of its description as plain text (clamped by CSS
// to a few lines; a long description is never laid out whole), a date badge (overdue red, due
// within 24 h amber, done green), checklist progress ("2/5", green when all are done), the number
// of comments and of attached files, the initials of
// the people assigned, and the cover image (an attached image, above everything else).
// Screen readers get the same in words: the badge says "Overdue" / "Due soon" / "Done", each
// initial its full name, the count "3 comments", and `detailsInWords` is added to the card's own
// label. Every function takes `face`, {now (ms), labels (the board's)}: the clock and the board's
// label definitions a face depends on.
import { el } from "../ui/dom.js";
import { longDate, shortDate } from "../ui/local-time.js";
import { cardLabels, commentsInWords, detailsOf, dueState, initials, labelTitle } from "../model/card-details.js";
import { plainText } from "../model/markdown.js";
import { checklistProgress } from "../model/checklists.js";
import { listInWords } from "../model/words.js";

/** Initials shown on a card; the rest are counted. */
const SHOWN_PEOPLE = 3;

/** What the badge says: {text, words, state} or null when there is no badge. */
export function dateBadge(details, now) {
  const state = dueState(details, now);
  if (!state) return null;
  const due = details.due !== null ? longDate(details.due) : "";
  const text = details.due !== null ? `Due ${shortDate(details.due, now)}` : "Done";
  const words = {
    done: details.due !== null ? `Done, was due ${due}` : "Done",
    overdue: `Overdue, was due ${due}`,
    soon: `Due soon, ${due}`,
    later: `Due ${due}`,
  }[state];
  return { text, words, state };
}

/** The details of a card in words, for its accessible label ("" when it has none). */
export function detailsInWords(item, { now, labels }) {
  if (!item?.details) return "";
  const d = detailsOf(item);
  const parts = [];
  const carried = cardLabels(labels, d).map(labelTitle);
  if (carried.length) parts.push(`${carried.length === 1 ? "label" : "labels"} ${listInWords(carried)}`);
  const badge = dateBadge(d, now);
  if (badge) parts.push(badge.words);
  if (d.assignees.length) parts.push(`assigned to ${listInWords(d.assignees)}`);
  if (d.description) parts.push("has a description");
  if (d.comments.length) parts.push(commentsInWords(d.comments.length));
  if (d.attachments.length) parts.push(filesInWords(d.attachments.length));
  const progress = checklistProgress(d);
  if (progress.total) parts.push(progressInWords(progress));
  return parts.join(", ");
}

/** What the face depends on (the badge changes with the clock too). */
export function faceKey(item, { now, labels }) {
  if (!item?.details) return "";
  const d = detailsOf(item);
  return JSON.stringify([d.description.slice(0, 1200), d.due, d.done, d.assignees, dueState(d, now), cardLabels(labels, d), d.comments.length, d.attachments.length, d.cover, checklistProgress(d)]);
}

/** Appends the details part of a card's face to its body. */
export function appendDetails(body, item, { now, labels }) {
  if (!item?.details) return;
  const d = detailsOf(item);
  if (d.cover) body.prepend(el("img", { className: "card-cover", attrs: { src: d.cover, alt: "", loading: "lazy", draggable: "false" } }));
  const carried = cardLabels(labels, d);
  if (carried.length) body.append(el("span", "card-labels", ...carried.map((label) => labelChip(label))));
  if (d.description) body.append(el("span", "card-description", plainText(d.description)));
  const badge = dateBadge(d, now);
  const comments = d.comments.length;
  const files = d.attachments.length;
  const progress = checklistProgress(d);
  if (!badge && !d.assignees.length && !comments && !files && !progress.total) return;
  const row = el("span", "card-badges");
  if (progress.total) {
    const words = progressInWords(progress);
    const complete = progress.done === progress.total ? " complete" : "";
    row.append(el("span", { className: `checklist-count${complete}`, attrs: { role: "img", "aria-label": words, title: words } },
      el("span", { className: "checklist-icon", attrs: { "aria-hidden": "true" } }), `${progress.done}/${progress.total}`));
  }
  if (files) {
    const words = filesInWords(files);
    row.append(el("span", { className: "file-count", attrs: { role: "img", "aria-label": words, title: words } },
      el("span", { className: "file-icon", attrs: { "aria-hidden": "true" } }), String(files)));
  }
  if (comments) {
    const words = commentsInWords(comments);
    row.append(el("span", { className: "comment-count", attrs: { role: "img", "aria-label": words, title: words } },
      el("span", { className: "comment-icon", attrs: { "aria-hidden": "true" } }), String(comments)));
  }
  if (badge) {
    const node = el("span", { className: `date-badge ${badge.state}`, attrs: { title: badge.words } },
      el("span", "sr-only", `${badge.words}. `), el("span", { attrs: { "aria-hidden": "true" }, text: badge.text }));
    row.append(node);
  }
  if (d.assignees.length) {
    const people = el("span", { className: "assignees" });
    for (const name of d.assignees.slice(0, SHOWN_PEOPLE)) {
      people.append(el("span", { className: "assignee", attrs: { title: name } },
        el("span", { attrs: { "aria-hidden": "true" }, text: initials(name) }), el("span", "sr-only", name)));
    }
    const more = d.assignees.length - SHOWN_PEOPLE;
    if (more > 0) people.append(el("span", { className: "assignee more", attrs: { title: d.assignees.slice(SHOWN_PEOPLE).join(", ") } }, `+${more}`));
    row.append(people);
  }
  body.append(row);
}

/** "2 of 5 checklist items done". */
export const progressInWords = ({ done, total }) => `${done} of ${total} checklist item${total === 1 ? "" : "s"} done`;

/** "1 file", "3 files". */
const filesInWords = (count) => `${count} file${count === 1 ? "" : "s"}`;

/** A label as a chip: its colour behind its name (a label without a name says its colour). */
export function labelChip(label, className = "label-chip") {
  return el("span", { className: `${className} label-${label.color}`, text: labelTitle(label), attrs: { title: labelTitle(label) } });
}
