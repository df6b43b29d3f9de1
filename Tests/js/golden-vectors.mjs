// Tests/golden/model-vectors.json (written by Tests/CorkboardServerTests/GoldenVectorTests.swift) and
// its compact boards made whole again, for the tests that replay it (model.test.mjs,
// model-sharing.test.mjs).
import { readFileSync } from "node:fs";

export const vectors = JSON.parse(readFileSync(new URL("../golden/model-vectors.json", import.meta.url), "utf8"));

/** Board JSON from the file's compact form (representations given by their number in the table). */
export function expand(board) {
  const item = (i) => {
    const out = { ...i, representations: vectors.representations[i.representations] };
    if (i.children) out.children = i.children.map(item);
    return out;
  };
  const collections = board.collections.map((c) => ({ ...c, sections: c.sections.map((s) => ({ ...s, items: s.items.map(item) })) }));
  const out = board.title === undefined ? {} : { title: board.title };
  if (board.labels) out.labels = board.labels;
  return board.trash ? { ...out, collections, trash: board.trash } : { ...out, collections };
}
