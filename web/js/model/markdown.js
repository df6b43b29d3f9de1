// A card's description is markdown; this reads it into a small tree of plain values that the page
// turns into DOM nodes one by one (ui/rich-text.js), so nothing in a description is ever parsed as
// HTML. What it knows: ATX headings, paragraphs, bulleted and numbered lists (nested by
// indentation), fenced code blocks, thematic breaks, and inline code, links, bold and italic.
// Everything else is text, raw HTML included (it shows as typed).
//
// Links are the one way out of the page, so only http:, https: and mailto: addresses become links,
// spelled plainly (no spaces, control characters or entities tricks: an address is taken as it
// stands, never decoded); any other link is shown as the text that was typed.
//
// Pure and bounded: no DOM, linear in the text for what people write (the search for a closing
// `*` remembers where none is left), nesting capped, so a hostile 64 KiB description cannot stall
// the page.
//
// The tree:
//   {type: "doc", children: Block[]}
//   Block  = {type: "heading", level: 1-6, children: Inline[]} | {type: "paragraph", children}
//          | {type: "list", ordered, start, items: [{children: (Inline | list)[]}]}
//          | {type: "code", text, lang} | {type: "rule"}
//   Inline = {type: "text", text} | {type: "strong" | "em", children} | {type: "code", text}
//          | {type: "link", href, children} | {type: "break"}

/** Deepest nesting of emphasis and of lists; deeper markup stays text. */
const MAX_DEPTH = 8;

const SAFE_LINK = /^(?:https?:\/\/[^\s<>"`\u0000-\u001f\u007f]+|mailto:[^\s<>"`\u0000-\u001f\u007f:/]+@[^\s<>"`\u0000-\u001f\u007f]+)$/i;

/**
 * The address as a link may carry it, or null: http(s) with a host, or mailto with an address,
 * spelled plainly (no whitespace, control characters, quotes or angle brackets anywhere).
 */
export function safeLink(url) {
  if (typeof url !== "string") return null;
  if (!SAFE_LINK.test(url)) return null;
  if (/^https?:\/\/(?:[/?#]|$)/i.test(url)) return null; // no host
  return url;
}

// MARK: Blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;

/** Reads a description into its tree. */
export function parseMarkdown(source) {
  const lines = String(source ?? "").replace(/\r\n?/g, "\n").split("\n");
  const children = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) children.push({ type: "paragraph", children: inlineLines(paragraph) });
    paragraph = [];
  };
  for (let n = 0; n < lines.length; ) {
    const line = lines[n];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1];
      const body = [];
      n++;
      const closing = new RegExp(`^ {0,3}\\${marker[0]}{${marker.length},}[ \\t]*$`);
      while (n < lines.length && !closing.test(lines[n])) {
        body.push(lines[n]);
        n++;
      }
      n++; // the closing fence (or the end)
      children.push({ type: "code", text: body.join("\n"), lang: fence[2] || "" });
      continue;
    }
    if (!line.trim()) {
      flush();
      n++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      children.push({ type: "heading", level: heading[1].length, children: inline(heading[2] || "") });
      n++;
      continue;
    }
    if (RULE.test(line)) {
      flush();
      children.push({ type: "rule" });
      n++;
      continue;
    }
    if (LIST_ITEM.test(line) && (paragraph.length === 0 || /^\s*([-*+]|1[.)])\s/.test(line))) {
      flush();
      const end = listEnd(lines, n);
      children.push(list(lines.slice(n, end), 0));
      n = end;
      continue;
    }
    paragraph.push(line);
    n++;
  }
  flush();
  return { type: "doc", children };
}

/** Where the list starting at line `n` ends: at a blank line followed by a line that is neither an item nor indented. */
function listEnd(lines, n) {
  const first = LIST_ITEM.exec(lines[n]);
  const ordered = /\d/.test(first[2]);
  let end = n + 1;
  while (end < lines.length) {
    const line = lines[end];
    // A numbered list after bullets (or the other way round) at the same depth is a new list.
    const item = LIST_ITEM.exec(line);
    if (item && item[1].length <= first[1].length && /\d/.test(item[2]) !== ordered) break;
    if (!line.trim()) {
      const next = lines[end + 1];
      if (next !== undefined && (LIST_ITEM.test(next) || /^ {2,}\S/.test(next))) {
        end++;
        continue;
      }
      break;
    }
    if (FENCE.test(line) || HEADING.test(line) || (RULE.test(line) && !LIST_ITEM.test(line))) break;
    end++;
  }
  return end;
}

/** A list from its lines: items at the first item's indentation, deeper items nested in the item above. */
function list(lines, depth) {
  const first = LIST_ITEM.exec(lines[0]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const node = { type: "list", ordered, start: ordered ? parseInt(first[2], 10) : 1, items: [] };
  let current = null; // {text: [], nested: []}
  const close = () => {
    if (!current) return;
    const children = inlineLines(current.text);
    if (current.nested.length) {
      if (depth + 1 < MAX_DEPTH && LIST_ITEM.test(current.nested[0])) children.push(list(current.nested, depth + 1));
      else children.push({ type: "text", text: " " + current.nested.map((l) => l.trim()).join(" ") });
    }
    node.items.push({ children });
    current = null;
  };
  for (const line of lines) {
    const item = LIST_ITEM.exec(line);
    if (item && item[1].length <= indent) {
      close();
      current = { text: item[3] ? [item[3]] : [], nested: [] };
    } else if (current && item && item[1].length > indent) {
      current.nested.push(line.slice(Math.min(indent + 2, item[1].length)));
    } else if (current && current.nested.length && /^\s/.test(line)) {
      current.nested.push(line.slice(Math.min(indent + 2, line.length - line.trimStart().length)));
    } else if (current && line.trim()) {
      current.text.push(line.trim());
    }
  }
  close();
  return node;
}

// MARK: Inline

/** The lines of a paragraph: joined by spaces, a line ending in two spaces or a backslash breaks. */
function inlineLines(lines) {
  const out = [];
  lines.forEach((line, n) => {
    const last = n === lines.length - 1;
    const hard = !last && (/ {2,}$/.test(line) || /\\$/.test(line));
    const text = last ? line.trim() : hard ? line.trim().replace(/\\$/, "") : line.trim() + " ";
    out.push(...inline(text));
    if (hard) out.push({ type: "break" });
  });
  return merge(out);
}

const PUNCTUATION = /[!-/:-@[-`{-~]/;

/** Inline markup of one stretch of text. */
export function inline(text, depth = 0) {
  const out = [];
  let buffer = "";
  const push = (node) => {
    if (buffer) out.push({ type: "text", text: buffer });
    buffer = "";
    out.push(node);
  };
  // Positions from which no closing run of a delimiter is left (the memo that keeps this linear).
  const noCloser = new Map();
  const brackets = matchBrackets(text);
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length && PUNCTUATION.test(text[i + 1])) {
      buffer += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const run = runLength(text, i, "`");
      const close = findCodeClose(text, i + run, run);
      if (close >= 0) {
        let code = text.slice(i + run, close).replace(/\n/g, " ");
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
        push({ type: "code", text: code });
        i = close + run;
      } else {
        buffer += "`".repeat(run);
        i += run;
      }
      continue;
    }
    if (c === "[") {
      const link = readLink(text, i, brackets.get(i));
      if (link) {
        const href = safeLink(link.url);
        if (href) push({ type: "link", href, children: depth < MAX_DEPTH ? withoutLinks(inline(link.label, depth + 1)) : [{ type: "text", text: link.label }] });
        else buffer += text.slice(i, link.end); // not a link we follow: the text as typed
        i = link.end;
        continue;
      }
    }
    if (c === "<") {
      const auto = /^<([^\s<>]+)>/.exec(text.slice(i, i + 2048));
      if (auto && safeLink(auto[1])) {
        push({ type: "link", href: auto[1], children: [{ type: "text", text: auto[1].replace(/^mailto:/i, "") }] });
        i += auto[0].length;
        continue;
      }
    }
    if ((c === "*" || c === "_") && depth < MAX_DEPTH) {
      const run = runLength(text, i, c);
      const size = run >= 2 ? 2 : 1;
      const emphasis = readEmphasis(text, i, c, size, noCloser);
      if (emphasis) {
        push({ type: size === 2 ? "strong" : "em", children: inline(emphasis.content, depth + 1) });
        i = emphasis.end;
        continue;
      }
      buffer += c.repeat(run);
      i += run;
      continue;
    }
    buffer += c;
    i++;
  }
  if (buffer) out.push({ type: "text", text: buffer });
  return merge(out);
}

function runLength(text, at, c) {
  let n = 0;
  while (text[at + n] === c) n++;
  return n;
}

function findCodeClose(text, from, run) {
  let at = text.indexOf("`".repeat(run), from);
  while (at >= 0) {
    const length = runLength(text, at, "`");
    if (length === run) return at;
    at = text.indexOf("`".repeat(run), at + length);
  }
  return -1;
}

/** Each `[`'s matching `]` (escapes skipped), found in one pass. */
function matchBrackets(text) {
  const matches = new Map();
  if (!text.includes("[")) return matches;
  const open = [];
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (c === "[") open.push(k);
    else if (c === "]" && open.length) matches.set(open.pop(), k);
  }
  return matches;
}

/** Longest link address read; a longer one is text. */
const MAX_URL = 2048;

/** `[label](url "title")` at `at` whose `]` is at `close`: {label, url, end} or null (then `[` is text). */
function readLink(text, at, close = -1) {
  if (close < 0 || text[close + 1] !== "(" || text.indexOf(")", close) < 0) return null;
  let k = close + 2;
  while (text[k] === " ") k++;
  let url = "";
  if (text[k] === "<") {
    const end = text.indexOf(">", k);
    if (end < 0 || end - k > MAX_URL) return null;
    url = text.slice(k + 1, end);
    k = end + 1;
  } else {
    let parens = 0;
    const start = k;
    for (; k < text.length && k - start <= MAX_URL; k++) {
      const c = text[k];
      if (c === "\\" && PUNCTUATION.test(text[k + 1] || "")) k++;
      else if (c === "(") parens++;
      else if (c === ")") {
        if (parens === 0) break;
        parens--;
      } else if (c === " " || c === "\t" || c === "\n") break;
    }
    url = text.slice(start, k);
  }
  while (text[k] === " ") k++;
  const quote = text[k];
  if (quote === '"' || quote === "'") {
    const end = text.indexOf(quote, k + 1);
    if (end < 0 || end - k > MAX_URL) return null;
    k = end + 1;
    while (text[k] === " ") k++;
  }
  if (text[k] !== ")") return null;
  return { label: text.slice(at + 1, close), url, end: k + 1 };
}

/** Emphasis opening at `at` with `size` delimiters `c`: {content, end} or null. */
function readEmphasis(text, at, c, size, noCloser) {
  const after = text[at + size];
  if (after === undefined || /\s/.test(after)) return null;
  // `_` inside a word (snake_case) is not emphasis.
  if (c === "_" && at > 0 && /[\p{L}\p{N}]/u.test(text[at - 1])) return null;
  const key = `${c}${size}`;
  const from = at + size + 1;
  if (noCloser.has(key) && noCloser.get(key) <= from) return null;
  const marker = c.repeat(size);
  let k = text.indexOf(marker, from);
  while (k >= 0) {
    const before = text[k - 1];
    const next = text[k + size];
    const closes = !/\s/.test(before) && (c !== "_" || next === undefined || !/[\p{L}\p{N}]/u.test(next));
    // A single delimiter does not close on half of a double one.
    const lone = size === 2 || (text[k + 1] !== c && text[k - 1] !== c);
    if (closes && lone && !isEscaped(text, k)) return { content: text.slice(at + size, k), end: k + size };
    k = text.indexOf(marker, k + 1);
  }
  noCloser.set(key, Math.min(noCloser.get(key) ?? Infinity, from));
  return null;
}

function isEscaped(text, at) {
  let n = 0;
  while (text[at - 1 - n] === "\\") n++;
  return n % 2 === 1;
}

/** A link's label holds no link of its own: inner links become their text. */
function withoutLinks(nodes) {
  return nodes.flatMap((node) => (node.type === "link" ? withoutLinks(node.children) : node.children ? [{ ...node, children: withoutLinks(node.children) }] : [node]));
}

/** Joins neighbouring text nodes. */
function merge(nodes) {
  const out = [];
  for (const node of nodes) {
    const last = out.at(-1);
    if (node.type === "text" && last?.type === "text") last.text += node.text;
    else out.push(node);
  }
  return out;
}

// MARK: Plain text

/** The words of a tree without markup, one line per block or list item (for a card's face). */
export function plainText(source, { maxLines = 8, maxChars = 600 } = {}) {
  // A card's face shows a few lines: read no more of a long description than can show.
  const head = String(source ?? "").slice(0, maxChars * 2);
  const lines = [];
  const text = (nodes) => nodes.map((n) => (n.type === "text" ? n.text : n.type === "code" ? n.text : n.type === "break" ? " " : n.children ? text(n.children) : "")).join("");
  const walk = (blocks, prefix = "") => {
    for (const block of blocks) {
      if (lines.length >= maxLines) return;
      if (block.type === "list") {
        block.items.forEach((item, n) => {
          const inlineNodes = item.children.filter((c) => c.type !== "list");
          lines.push(`${prefix}${block.ordered ? `${block.start + n}.` : "•"} ${text(inlineNodes)}`);
          const nested = item.children.filter((c) => c.type === "list");
          walk(nested, prefix + "  ");
        });
      } else if (block.type === "code") {
        lines.push(...block.text.split("\n"));
      } else if (block.type !== "rule") {
        lines.push(text(block.children));
      }
    }
  };
  walk(parseMarkdown(head).children);
  const joined = lines.slice(0, maxLines).join("\n");
  return joined.length > maxChars ? joined.slice(0, maxChars - 1) + "…" : joined;
}
