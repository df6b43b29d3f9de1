// docs/PROTOCOL.md for the JS tests: its json blocks, each with the direction of the section it
// sits in (as Tests/CorkboardProtocolTests/ProtocolDocumentTests.swift reads them), and its tables.
import { readFileSync } from "node:fs";

export const documentURL = new URL("../../docs/PROTOCOL.md", import.meta.url);

export function loadProtocolDocument() {
  const text = readFileSync(documentURL, "utf8");
  const blocks = [];
  let direction = "either";
  let open = null;
  text.split("\n").forEach((line, offset) => {
    const trimmed = line.trim();
    if (open) {
      if (trimmed === "```") {
        const body = open.lines.join("\n");
        blocks.push({ line: open.line, text: body, direction: open.direction, json: JSON.parse(body) });
        open = null;
      } else {
        open.lines.push(line);
      }
    } else if (trimmed === "```json") {
      open = { line: offset + 1, lines: [], direction };
    } else if (line.startsWith("## ")) {
      direction = line.includes("Client → server") ? "client" : line.includes("Server → client") ? "server" : "either";
    }
  });
  if (open) throw new Error(`docs/PROTOCOL.md line ${open.line}: the json block is never closed`);
  return { text, blocks, section: (heading) => section(text, heading) };
}

/** The text from a heading line to the next heading of the same or a higher level. */
function section(text, heading) {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/PROTOCOL.md has no "${heading}" heading`);
  const level = heading.match(/^#+/)[0].length;
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** The `### name` headings of a `## ` section. */
export function subheadings(sectionText) {
  return [...sectionText.matchAll(/^### (\S+)\s*$/gm)].map((m) => m[1]);
}

/** The first-column codes of a markdown table: "| `code` | …". */
export function tableCodes(sectionText) {
  return [...sectionText.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
}
