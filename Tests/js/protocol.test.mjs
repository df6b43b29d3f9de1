// web/js/net/protocol.js against docs/PROTOCOL.md, as ProtocolDocumentTests checks the Swift codec:
// every server → client example validates, every client → server example is a message
// protocol.js builds field for field, and every message type, operation kind, error code and
// rejection code of the document is known to protocol.js (and the other way round).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  build, decode, encode, validateClientMessage, validateServerMessage, ProtocolError,
  CLIENT_TYPES, SERVER_TYPES, OPERATION_KINDS, ERROR_CODES, REJECT_CODES, LIMITS, SUBPROTOCOL,
} from "../../web/js/net/protocol.js";
import { loadProtocolDocument, subheadings, tableCodes } from "./protocol-document.mjs";

const doc = loadProtocolDocument();
const where = (block) => `docs/PROTOCOL.md line ${block.line}`;
// Blocks outside the two message sections (the board operations' `submit` examples, the `op` of a
// moveOut) may be either; their type says which.
const directionOf = (b) => (b.direction !== "either" ? b.direction : CLIENT_TYPES.includes(b.json.type) && b.json.type !== "cursor" && b.json.type !== "presence" ? "client" : "server");
const clientBlocks = doc.blocks.filter((b) => directionOf(b) === "client");
const serverBlocks = doc.blocks.filter((b) => directionOf(b) === "server");

/** The operations a message carries, submitted or committed. */
function operations(message) {
  switch (message.type) {
    case "submit": return [message.op];
    case "op": return [message.op];
    case "ack": return message.outcome.kind === "committed" ? [message.outcome.op] : [];
    case "welcome":
    case "synced": return (message.ops || []).map((c) => c.op);
    default: return [];
  }
}

test("the document has its examples", () => {
  assert.ok(doc.blocks.length >= 40, `expected the document's examples, found ${doc.blocks.length}`);
  assert.ok(clientBlocks.length >= 11 && serverBlocks.length >= 17);
});

test("every server → client example validates", () => {
  for (const block of serverBlocks) {
    assert.doesNotThrow(() => validateServerMessage(block.json), where(block));
    const { message, error } = decode(block.text);
    assert.equal(error, undefined, `${where(block)}: ${error?.message}`);
    assert.deepEqual(message, block.json);
  }
});

test("every client → server example is a message protocol.js builds, field for field", () => {
  for (const block of clientBlocks) {
    const example = block.json;
    assert.doesNotThrow(() => validateClientMessage(example), where(block));
    const builder = build[example.type];
    assert.ok(builder, `${where(block)}: protocol.js has no builder for ${example.type}`);
    const { type, ...fields } = example;
    assert.deepEqual(builder(fields), example, `${where(block)}: build.${type} does not give the example back`);
    assert.deepEqual(JSON.parse(encode(example)), example);
  }
});

test("every message type of the document is known to protocol.js, and each has an example", () => {
  const clientSection = doc.section("## Client → server messages");
  const serverSection = doc.section("## Server → client messages");
  assert.deepEqual([...subheadings(clientSection)].sort(), [...CLIENT_TYPES].sort(), "client message headings");
  assert.deepEqual([...subheadings(serverSection)].sort(), [...SERVER_TYPES].sort(), "server message headings");
  const examples = (direction) => [...new Set(doc.blocks.filter((b) => b.direction === direction).map((b) => b.json.type))].sort();
  assert.deepEqual(examples("client"), [...CLIENT_TYPES].sort(), "an example of every client message under its heading");
  assert.deepEqual(examples("server"), [...SERVER_TYPES].sort(), "an example of every server message under its heading");
  assert.deepEqual(Object.keys(build).sort(), [...CLIENT_TYPES].sort(), "one builder per client message type");
});

test("every operation kind, error code and rejection code of the document is known to protocol.js", () => {
  const kinds = doc.section("## Board operations");
  // The operations table stands before the first operation's heading (an operation's own tables, such as updateCard's bounds, follow it).
  assert.deepEqual(tableCodes(kinds.split("\n### ")[0]).sort(), [...OPERATION_KINDS].sort(), "the operations table");
  assert.deepEqual(subheadings(kinds).sort(), [...OPERATION_KINDS].sort(), "the ### headings under Board operations");
  const shown = new Set(doc.blocks.flatMap((b) => operations(b.json)).map((op) => op.kind));
  assert.deepEqual([...shown].sort(), [...OPERATION_KINDS].sort(), "an example of every operation kind");
  assert.deepEqual(tableCodes(doc.section("### Error codes")).sort(), [...ERROR_CODES].sort());
  assert.deepEqual(tableCodes(doc.section("### Rejection codes")).sort(), [...REJECT_CODES].sort());
});

test("the limits table and the subprotocol match protocol.js", () => {
  const limits = doc.section("## Limits");
  for (const [name, value] of Object.entries(LIMITS)) {
    const shownValue = name === "reservedOpIdCharacter" ? `\`${value}\`` : String(value);
    assert.ok(limits.includes(`| \`${name}\` | ${shownValue} |`), `the Limits row of ${name}`);
  }
  assert.ok(doc.text.includes(`\`${SUBPROTOCOL}\``));
});

test("server messages that break the document are refused, naming the field", () => {
  const welcome = serverBlocks.find((b) => b.json.type === "welcome").json;
  const ack = serverBlocks.find((b) => b.json.type === "ack" && b.json.outcome.kind === "committed").json;
  const cases = [
    [{ ...welcome, member: undefined }, "member"],
    [{ ...welcome, snapshot: { ...welcome.snapshot, version: 2 } }, "snapshot.version"],
    [{ ...ack, outcome: { ...ack.outcome, seq: -1 } }, "outcome.seq"],
    [{ ...ack, outcome: { ...ack.outcome, op: { ...ack.outcome.op, kind: "teleport" } } }, "outcome.op.kind"],
    [{ ...ack, outcome: { ...ack.outcome, effect: { changes: [] } } }, "outcome.effect.skipped"],
    [{ type: "dragEnded", session: "d1", member: "m1", reason: "vanished" }, "reason"],
    [{ type: "cursor", member: "m1", x: "12", y: 4 }, "x"],
    [{ type: "error", code: "oops", message: "…" }, "code"],
    [{ type: "snapshotPart", seq: 1, part: 0, append: [{ nothing: [] }] }, "append.0"],
    [{ type: "teleport" }, "type"],
  ];
  for (const [message, field] of cases) {
    assert.throws(() => validateServerMessage(message), (error) => error instanceof ProtocolError && error.field === field, field);
  }
  assert.equal(decode("not json").error.field, "");
  assert.equal(decode("[1, 2]").error.field, "");
  // Unknown fields are ignored and null means absent.
  assert.doesNotThrow(() => validateServerMessage({ type: "pong", head: 3, ref: null, extra: true }));
});

test("builders leave out absent options and refuse what the server would refuse", () => {
  assert.deepEqual(build.dragBegin({ ref: "d1", session: "d1", items: ["a"], external: [] }), { type: "dragBegin", ref: "d1", session: "d1", items: ["a"] });
  assert.deepEqual(build.drop({ ref: "o", session: "d1", opId: "o", base: 0, destination: { collection: "c", section: "s", index: 0, intent: "insertAtDestinationIndexPath" }, copy: false }),
    { type: "drop", ref: "o", session: "d1", opId: "o", base: 0, destination: { collection: "c", section: "s", index: 0, intent: "insertAtDestinationIndexPath" } });
  assert.deepEqual(build.hello({ ref: "hello", board: "demo", name: "Ada", key: undefined, lastSeq: 0 }), { type: "hello", ref: "hello", protocol: 1, board: "demo", name: "Ada", lastSeq: 0 });
  const refused = [
    [() => build.hello({ board: "demo", name: "   " }), "name"],
    [() => build.hello({ board: "demo", name: "x".repeat(65) }), "name"],
    [() => build.submit({ opId: "a@b", base: 0, op: { kind: "delete", items: ["x"] } }), "opId"],
    [() => build.submit({ opId: "o1", base: -1, op: { kind: "delete", items: ["x"] } }), "base"],
    [() => build.submit({ opId: "o1", base: 0, op: { kind: "delete", items: [""] } }), "op.items.0"],
    [() => build.submit({ opId: "o1", base: 0, op: { kind: "fly" } }), "op.kind"],
    [() => build.dragBegin({ session: "d1", items: [] }), "items"],
    [() => build.dragAdd({ session: "d1", items: Array(1001).fill("i") }), "items"],
    [() => build.dropUpdate({ session: "d1", target: { collection: "c", section: "s", index: 1000001, intent: "insertAtDestinationIndexPath" } }), "target.index"],
    [() => build.cursor({ x: Infinity, y: 0 }), "x"],
    [() => build.presence({ state: "asleep" }), "state"],
    [() => build.dragEnd({ session: "s".repeat(129) }), "session"],
  ];
  for (const [make, field] of refused) {
    assert.throws(make, (error) => error instanceof ProtocolError && error.field === field, field);
  }
});
