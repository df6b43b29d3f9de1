// Files attached to cards (issue 41) without a browser: updateCard's attach, detach and cover in
// model.js as CorkboardModel applies them (AttachmentTests), their checks in card-details.js and
// protocol.js, and the sizes and download links the card view shows.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board, Rejection } from "../../web/js/model/model.js";
import { attachmentProblem, fileSize, isImageFile, isStoredFileUrl } from "../../web/js/model/card-details.js";
import { operation, ProtocolError } from "../../web/js/net/protocol.js";
import { downloadUrl } from "../../web/js/net/uploads.js";
import { welcomeExample } from "./fake-session.mjs";

const plain = (value) => JSON.parse(JSON.stringify(value));
const demo = () => Board.fromJSON(welcomeExample.snapshot.board);
const apply = (board, op) => board.apply(op, "c1", "o1");
const rejects = (board, op, field) => {
  const before = plain(board.toJSON());
  assert.throws(() => apply(board, op), (e) => e instanceof Rejection && e.code === "invalid" && e.field === field, JSON.stringify(op).slice(0, 120));
  assert.deepEqual(plain(board.toJSON()), before, "a refused updateCard changes nothing");
};
const hex = (c) => c.repeat(64);
const PDF = { url: `/files/demo/${hex("a")}.bin`, name: "Plan.pdf", type: "application/pdf", bytes: 1234 };
const MAP = { url: `/files/demo/${hex("b")}.png`, name: "map.png", type: "image/png", bytes: 78 };

test("attach adds each file once, cover takes an attached image, detaching the cover clears it", () => {
  const board = demo();
  apply(board, { kind: "updateCard", item: "demo-gc1", attach: [PDF, MAP], cover: MAP.url });
  assert.deepEqual(board.item("demo-gc1").details, { attachments: [PDF, MAP], cover: MAP.url });
  apply(board, { kind: "updateCard", item: "demo-gc1", attach: [MAP], cover: "" });
  assert.deepEqual(board.item("demo-gc1").details, { attachments: [PDF, MAP] });
  apply(board, { kind: "updateCard", item: "demo-gc1", cover: MAP.url });
  apply(board, { kind: "updateCard", item: "demo-gc1", detach: [MAP.url] });
  assert.deepEqual(board.item("demo-gc1").details, { attachments: [PDF] });
  apply(board, { kind: "updateCard", item: "demo-gc1", detach: [PDF.url] });
  assert.equal(board.item("demo-gc1").details, undefined, "no files left: no details");
});

test("bad files, lists and covers are refused invalid, naming the field, as the Swift model does", () => {
  const board = demo();
  for (const url of ["https://evil.example/x.bin", `/files/demo/${hex("a")}.html`, `/files/demo/${hex("A")}.bin`, "/files/demo/abc.png", "javascript:alert(1)"]) {
    rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [{ ...PDF, url }] }, "attach");
  }
  for (const name of ["", "  ", "line\nbreak", "n".repeat(256)]) rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [{ ...PDF, name }] }, "attach");
  for (const type of ["", "pdf", "Application/PDF", "text/html; charset=utf-8"]) rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [{ ...PDF, type }] }, "attach");
  for (const bytes of [-1, 2 ** 40 + 1, 1.5]) rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [{ ...PDF, bytes }] }, "attach");
  rejects(board, { kind: "updateCard", item: "demo-gc1", detach: ["nope"] }, "detach");
  rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [PDF], detach: [PDF.url] }, "detach");
  rejects(board, { kind: "updateCard", item: "demo-gc1", cover: MAP.url }, "cover");
  rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [PDF], cover: PDF.url }, "cover");
  const many = Array.from({ length: 21 }, (_, n) => ({ url: `/files/demo/${n.toString(16).padStart(64, "0")}.bin`, name: `f${n}`, type: "text/plain", bytes: n }));
  rejects(board, { kind: "updateCard", item: "demo-gc1", attach: many }, "attach");
  apply(board, { kind: "updateCard", item: "demo-gc1", attach: many.slice(0, 20) });
  rejects(board, { kind: "updateCard", item: "demo-gc1", attach: [many[20]] }, "attach");
});

test("the protocol composes attach, detach and cover, and refuses a file in both lists", () => {
  assert.deepEqual(plain(operation.updateCard({ item: "i", attach: [PDF], cover: "" })), { kind: "updateCard", item: "i", attach: [PDF], cover: "" });
  assert.deepEqual(plain(operation.updateCard({ item: "i", attach: [], detach: [PDF.url] })), { kind: "updateCard", item: "i", detach: [PDF.url] });
  assert.throws(() => operation.updateCard({ item: "i", attach: [PDF], detach: [PDF.url] }), ProtocolError);
  assert.throws(() => operation.updateCard({ item: "i", attach: [{ ...PDF, bytes: "big" }] }), ProtocolError);
});

test("stored file urls, images, sizes and download links", () => {
  assert.ok(isStoredFileUrl(PDF.url) && isStoredFileUrl(MAP.url));
  assert.ok(!isStoredFileUrl(`/files/demo/${hex("a")}.svg`) && !isStoredFileUrl(`/files/a/b/${hex("a")}.bin`));
  // Board ids as the catalog names boards: letters of any script, digits, - and _, at most 64 bytes.
  assert.ok(isStoredFileUrl(`/files/tâches_2/${hex("a")}.bin`) && isStoredFileUrl(`/files/${"é".repeat(32)}/${hex("a")}.bin`));
  assert.ok(!isStoredFileUrl(`/files/${"é".repeat(33)}/${hex("a")}.bin`) && !isStoredFileUrl(`/files/a b/${hex("a")}.bin`));
  assert.ok(isImageFile(MAP.url) && !isImageFile(PDF.url));
  assert.equal(attachmentProblem(PDF), null);
  assert.equal(fileSize(1), "1 byte");
  assert.equal(fileSize(999), "999 bytes");
  assert.equal(fileSize(1234), "1.2 KB");
  assert.equal(fileSize(15_000_000), "15 MB");
  assert.equal(downloadUrl({ url: PDF.url, name: "Plan «final».pdf" }), `${PDF.url}?name=Plan+%C2%ABfinal%C2%BB.pdf`);
});
