// Turns a markdown tree (model/markdown.js's plain values) into DOM nodes, one element at a time:
// text only ever goes in as text nodes and no string is parsed as HTML, so whatever a description
// says cannot become markup or script. Links open in a new tab without handing it this page
// (rel="noopener noreferrer"), and only http:, https: and mailto: addresses are links at all
// (checked again here, whatever the tree says).

const LINK_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** The address a link may carry, or null. */
function linkHref(href) {
  if (typeof href !== "string" || /[\s\u0000-\u001f\u007f"<>`]/.test(href)) return null;
  try {
    return LINK_SCHEMES.has(new URL(href).protocol) ? href : null;
  } catch {
    return null;
  }
}

/**
 * A DocumentFragment for a markdown tree ({type: "doc", children}). Its headings start at
 * `baseLevel` (below the headings of the page around it) and never skip a level: the levels the
 * text uses map in order to baseLevel, baseLevel + 1, … (at most h6).
 */
export function renderTree(tree, { baseLevel = 3 } = {}) {
  const used = [...new Set((tree.children || []).filter((b) => b.type === "heading").map((b) => b.level))].sort();
  const levels = new Map(used.map((level, n) => [level, Math.min(6, baseLevel + n)]));
  const fragment = document.createDocumentFragment();
  for (const block of tree.children || []) fragment.append(renderBlock(block, levels));
  return fragment;
}

function renderBlock(block, levels) {
  switch (block.type) {
    case "heading": return withChildren(document.createElement(`h${levels.get(block.level) ?? 6}`), block.children);
    case "paragraph": return withChildren(document.createElement("p"), block.children);
    case "list": {
      const list = document.createElement(block.ordered ? "ol" : "ul");
      if (block.ordered && block.start !== 1) list.start = block.start;
      for (const item of block.items) {
        const li = document.createElement("li");
        for (const child of item.children) li.append(child.type === "list" ? renderBlock(child, levels) : renderInline(child));
        list.append(li);
      }
      return list;
    }
    case "code": {
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = block.text;
      pre.append(code);
      return pre;
    }
    case "rule": return document.createElement("hr");
    default: return document.createTextNode("");
  }
}

function withChildren(node, children = []) {
  for (const child of children) node.append(renderInline(child));
  return node;
}

function renderInline(node) {
  switch (node.type) {
    case "text": return document.createTextNode(node.text);
    case "strong": return withChildren(document.createElement("strong"), node.children);
    case "em": return withChildren(document.createElement("em"), node.children);
    case "code": {
      const code = document.createElement("code");
      code.textContent = node.text;
      return code;
    }
    case "break": return document.createElement("br");
    case "link": {
      const href = linkHref(node.href);
      if (!href) return withChildren(document.createElement("span"), node.children);
      const a = document.createElement("a");
      a.setAttribute("href", href);
      a.setAttribute("target", "_blank");
      a.setAttribute("rel", "noopener noreferrer");
      return withChildren(a, node.children);
    }
    default: return document.createTextNode("");
  }
}
