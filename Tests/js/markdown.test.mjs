// A description's markdown (model/markdown.js) and its DOM (ui/rich-text.js, run here on a tiny
// recording document): the markup people write renders, and hostile text stays inert — raw HTML is
// text, only http/https/mailto addresses become links (whatever their casing, spacing or
// entities), every link opens with rel="noopener noreferrer" in a new tab, and no input of the
// size a description may have stalls the parser.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inline, parseMarkdown, plainText, safeLink } from "../../web/js/model/markdown.js";
import { renderTree } from "../../web/js/ui/rich-text.js";

// MARK: A recording document: elements, text nodes and fragments, serialised with escaping.

class FakeNode {
  constructor(tag) {
    this.tagName = tag;
    this.attributes = new Map();
    this.children = [];
  }
  append(...nodes) {
    for (const node of nodes) this.children.push(...(node.tagName === "#fragment" ? node.children : [node]));
  }
  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }
  set textContent(text) {
    this.children = [{ text: String(text) }];
  }
  set start(value) {
    this.setAttribute("start", value);
  }
}

globalThis.document = {
  createElement: (tag) => new FakeNode(tag),
  createTextNode: (text) => ({ text: String(text) }),
  createDocumentFragment: () => new FakeNode("#fragment"),
};

const escape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
function html(node) {
  if (node.text !== undefined) return escape(node.text);
  const inner = node.children.map(html).join("");
  if (node.tagName === "#fragment") return inner;
  const attrs = [...node.attributes].map(([k, v]) => ` ${k}="${escape(v)}"`).join("");
  return `<${node.tagName}${attrs}>${inner}</${node.tagName}>`;
}
const render = (source, options) => html(renderTree(parseMarkdown(source), options));
/** Every element of a rendered tree, depth first. */
const elements = (node) => (node.text !== undefined ? [] : [node, ...node.children.flatMap(elements)]);

const LINK = (href, text) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;

test("headings, paragraphs, lists, code, bold, italic and links render", () => {
  assert.equal(render("## Plan\n\nFirst **bold** and *italic* and _also_ and __strong__.\nSecond line.", { baseLevel: 4 }),
    "<h4>Plan</h4><p>First <strong>bold</strong> and <em>italic</em> and <em>also</em> and <strong>strong</strong>. Second line.</p>", "headings start at h4 below the view's own");
  assert.equal(render("# A\n### B", { baseLevel: 3 }), "<h3>A</h3><h4>B</h4>", "levels never skip");
  assert.equal(render("- one\n- two\n  - nested\n* three"), "<ul><li>one</li><li>two<ul><li>nested</li></ul></li><li>three</li></ul>");
  assert.equal(render("3. c\n4. d\n\n- e"), '<ol start="3"><li>c</li><li>d</li></ol><ul><li>e</li></ul>');
  assert.equal(render("Use `npm test` now"), "<p>Use <code>npm test</code> now</p>");
  assert.equal(render("```js\nconst a = 1 < 2;\n**not bold**\n```\nafter"), "<pre><code>const a = 1 &lt; 2;\n**not bold**</code></pre><p>after</p>");
  assert.equal(render("See [the site](https://example.com/a_(b)?q=1) or <mailto:ada@example.com>."),
    `<p>See ${LINK("https://example.com/a_(b)?q=1", "the site")} or ${LINK("mailto:ada@example.com", "ada@example.com")}.</p>`);
  assert.equal(render('[t](http://example.com "Title")'), `<p>${LINK("http://example.com", "t")}</p>`);
  assert.equal(render("snake_case_name stays, 2*3*4 too? \\*escaped\\*"), "<p>snake_case_name stays, 2<em>3</em>4 too? *escaped*</p>");
  assert.equal(render("line one  \nline two"), "<p>line one<br></br>line two</p>");
  assert.equal(render("---"), "<hr></hr>");
  assert.equal(render(""), "");
});

test("raw HTML is text, never markup", () => {
  // One hostile description per line.
  const hostile = String.raw`<script>alert(1)</script>
<img src=x onerror="alert(1)">
<iframe src="javascript:alert(1)"></iframe>
<a href="javascript:alert(1)">x</a>
<svg/onload=alert(1)>
**<b>bold</b>** ${"`"}<i>code</i>${"`"}
<style>body{display:none}</style>`.split("\n");
  for (const source of hostile) {
    const tree = renderTree(parseMarkdown(source));
    const tags = elements(tree).map((n) => n.tagName);
    assert.ok(tags.every((t) => ["#fragment", "p", "strong", "code"].includes(t)), `${source}: only markdown's own elements, got ${tags}`);
    assert.ok(!elements(tree).some((n) => [...n.attributes.keys()].some((k) => k.startsWith("on"))), `${source}: no handler attribute`);
    assert.ok(html(tree).includes("&lt;"), `${source}: the angle brackets are kept as text`);
  }
  assert.equal(render("<script>alert(1)</script>"), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
});

test("only http, https and mailto addresses become links, however a hostile one is spelled", () => {
  const inert = [
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x]( javascript:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;avascript:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x](%6Aavascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(1))",
    "[x](file:///etc/passwd)",
    "[x](//evil.example/)",
    "[x](/relative)",
    "[x](<javascript:alert(1)>)",
    '[x](https://ok.example/"onmouseover="alert(1))',
    "[x](https://)",
    "<javascript:alert(1)>",
    "<data:text/html,hi>",
    "[**x**](javascript:alert(1))",
    "[x](\u0001javascript:alert(1))",
  ];
  for (const source of inert) {
    const tree = renderTree(parseMarkdown(source));
    assert.ok(!elements(tree).some((n) => n.tagName === "a"), `${source}: no link`);
    assert.ok(!elements(tree).some((n) => n.attributes.has("href")), `${source}: no href`);
  }
  // What is not followed is shown as it was typed.
  assert.equal(render("[x](javascript:alert(1))"), "<p>[x](javascript:alert(1))</p>");
  for (const url of ["javascript:alert(1)", " https://a.example", "https://a.example/ x", "data:,x", "mailto:", "mailto:nobody", "HTTPS://A.EXAMPLE/ok"]) {
    assert.equal(safeLink(url), url === "HTTPS://A.EXAMPLE/ok" ? url : null, url);
  }
  // Every link opens in a new tab without handing it the page.
  const links = elements(renderTree(parseMarkdown("[a](https://a.example) [b](http://b.example) [c](mailto:c@example.com) <https://d.example>"))).filter((n) => n.tagName === "a");
  assert.equal(links.length, 4);
  for (const a of links) {
    assert.equal(a.attributes.get("rel"), "noopener noreferrer");
    assert.equal(a.attributes.get("target"), "_blank");
  }
  // A link's label holds no link of its own.
  assert.equal(render("[see [inner](https://b.example)](https://a.example)"), `<p>${LINK("https://a.example", "see inner")}</p>`);
});

test("the DOM side refuses a link the tree should never have held", () => {
  const tree = { type: "doc", children: [{ type: "paragraph", children: [{ type: "link", href: "javascript:alert(1)", children: [{ type: "text", text: "x" }] }] }] };
  assert.equal(html(renderTree(tree)), "<p><span>x</span></p>");
});

test("nesting is capped and no hostile input of a description's size stalls the parser", () => {
  let nested = "x";
  for (let n = 0; n < 2000; n++) nested = `*${nested}*`;
  assert.doesNotThrow(() => parseMarkdown(nested));
  let deepList = "";
  for (let n = 0; n < 300; n++) deepList += `${" ".repeat(n * 2)}- level ${n}\n`;
  assert.doesNotThrow(() => parseMarkdown(deepList));
  const big = 60000;
  const inputs = ["*a ", "**a ", "[", "[a](", "`", "`a ", "_a ", "*a* ", "[a] ", "<a ", "- ", "> ", "# ", "\\", "](", "``x` "]
    .map((unit) => unit.repeat(Math.ceil(big / unit.length)).slice(0, big));
  for (const input of inputs) {
    const started = process.hrtime.bigint();
    parseMarkdown(input);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // Linear work takes milliseconds; a quadratic search would take many seconds on 60 KB.
    assert.ok(ms < 3000, `${JSON.stringify(input.slice(0, 8))}… took ${Math.round(ms)} ms`);
  }
});

test("plain text for a card's face: the words without markup, a few lines at most", () => {
  assert.equal(plainText("## Plan\n- **soon**\n- [site](https://a.example)\n\nSome *text* and `code`."), "Plan\n• soon\n• site\nSome text and code.");
  assert.equal(plainText("1. a\n2. b"), "1. a\n2. b");
  const long = plainText(Array.from({ length: 50 }, (_, n) => `line ${n}`).join("\n\n"));
  assert.equal(long.split("\n").length, 8);
  assert.ok(plainText("x".repeat(100000)).length <= 600);
  assert.deepEqual(inline("a **b** c").map((n) => n.type), ["text", "strong", "text"]);
});
