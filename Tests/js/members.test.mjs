// Members on a big board (issue 17): the page knows only some members — the welcome lists up to
// 32 and each membersChanged up to 32 joins — keeps the count, and asks for a member it meets in a
// drag, pointer or presence once, with listMembers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { joined } from "./fake-session.mjs";

const member = (n) => ({ id: `m${n}`, name: `P${n}`, color: "#1971c2", role: "editor", clientId: `c-${String(n).padStart(32, "0")}` });

test("membersChanged applies leaves before joins and keeps the count", () => {
  const { session, conn } = joined();
  assert.equal(session.members.count, 2);
  conn.receive({ type: "membersChanged", count: 40, joined: [member(3), member(4)], left: ["m1"], more: true });
  assert.deepEqual([...session.members.byId.keys()], ["m2", "m3", "m4"]);
  assert.equal(session.members.count, 40);
  assert.equal(conn.take("listMembers").length, 0, "more joins are not fetched until someone needs them");
});

test("a drag, pointer or presence of an unknown member asks for it once, and the answer names it", () => {
  const { session, conn } = joined();
  conn.take();
  conn.receive({ type: "dragStarted", session: "d9", member: "m77", items: ["demo-gc3"], external: [] });
  conn.receive({ type: "cursor", member: "m77", x: 1, y: 2 });
  conn.receive({ type: "presence", member: "m78", state: "idle" });
  const asked = conn.take("listMembers");
  assert.deepEqual(asked.map((m) => m.ids), [["m77"], ["m78"]], "each unknown member is asked for once");
  conn.receive({ type: "memberList", ref: asked[0].ref, members: [member(77)], count: 3 });
  assert.equal(session.members.byId.get("m77").name, "P77");
  conn.receive({ type: "cursor", member: "m77", x: 5, y: 6 });
  assert.equal(conn.take("listMembers").length, 0, "a known member is not asked for again");
});

test("a member who left may be asked for again if it comes back into view", () => {
  const { session, conn } = joined();
  conn.take();
  conn.receive({ type: "cursor", member: "m90", x: 1, y: 2 });
  assert.equal(conn.take("listMembers").length, 1);
  conn.receive({ type: "membersChanged", count: 2, joined: [], left: ["m90"] });
  conn.receive({ type: "cursor", member: "m90", x: 1, y: 2 });
  assert.equal(conn.take("listMembers").length, 1);
  assert.equal(session.members.count, 2);
});

test("the board's people for Assign: members here first, then the others the room knows, and who joins since", () => {
  const { session, conn } = joined();
  // The documented welcome: Ada and Grace here, Linus known to the room (he was here before).
  assert.deepEqual(session.members.peopleNames(), ["Ada", "Grace", "Linus"]);
  conn.receive({ type: "membersChanged", count: 2, joined: [member(5)], left: ["m1"] });
  assert.deepEqual(session.members.peopleNames(), ["Grace", "P5", "Ada", "Linus"], "Ada left: still one of the board's people, after those here");
  conn.receive({ type: "membersChanged", count: 1, joined: [], left: ["m5"] });
  assert.deepEqual(session.members.peopleNames(), ["Grace", "P5", "Ada", "Linus"], "someone who joined and left stays, most recent first");
});
