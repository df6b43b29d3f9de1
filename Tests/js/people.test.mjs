// Issue 45, the page's side of people and invites: names as shown, the Members panel's rows and
// invite words, the Invite form's checks, every refusal in words, invite links in addresses and the
// claim (device key, invite dropped from the address), the admin's requests and their answers, and
// a role change applied at once (only that role's controls: model/roles.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  JOIN_REFUSALS, accessEndedInWords, accessInWords, dayInWords, inviteInWords, inviteRequest, inviteRows, inviteUsable, memberLabel, memberRows,
  nameTaken, peopleRefusalInWords, personLabel, presenceInWords, rowInWords,
} from "../../web/js/model/people.js";
import { DEVICE_SHAPE, addressWithoutInvite, deviceKeyOf, helloIdentity, inviteLink, inviteShapeProblem, readAddress } from "../../web/js/model/invite-link.js";
import { DEVICE_NAME, InviteClaim, PERSON_PREFIX, deviceKey } from "../../web/js/net/invite-claim.js";
import { People } from "../../web/js/net/people.js";
import { roleMay } from "../../web/js/model/roles.js";
import { build } from "../../web/js/net/protocol.js";
import { loadProtocolDocument } from "./protocol-document.mjs";
import { joined } from "./fake-session.mjs";

const NOW = Date.parse("2026-12-08T12:00:00Z");
const SEC = NOW / 1000;
const doc = loadProtocolDocument();
const peopleExample = doc.blocks.find((b) => b.json.type === "people").json;

class MemoryStorage {
  constructor() {
    this.map = new Map();
  }
  getItem(k) {
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    this.map.set(k, String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
}

test("issue 45: a person's name is shown with the name they typed when it differs", () => {
  assert.equal(personLabel("Bea", "Beatrice"), "Bea (Beatrice)");
  assert.equal(personLabel("Bea", " bea "), "Bea", "the same name, ignoring case and spaces");
  assert.equal(personLabel("Bea", undefined), "Bea");
  assert.equal(memberLabel({ name: "Cy", alias: "Cyrus" }), "Cy (Cyrus)");
  assert.equal(memberLabel({ name: "Ada" }), "Ada");
});

test("issue 45: the Members rows: people with online and last seen, link members, removed last", () => {
  const people = [
    { id: "p-1", name: "Cy", role: "editor", online: false, lastSeen: SEC - 600 },
    { id: "p-2", name: "Bea", role: "commenter", online: false },
    { id: "p-3", name: "Ann", role: "viewer", removed: true, lastSeen: SEC - 90000 },
  ];
  const members = [
    { id: "m1", name: "Ada", role: "admin", clientId: "c1" },
    { id: "m2", name: "Bea", alias: "Beatrice", person: "p-2", role: "commenter", clientId: "c2" },
    { id: "m3", name: "Bea", alias: "Beatrice", person: "p-2", role: "commenter", clientId: "c3" },
  ];
  const rows = memberRows({ people, members, me: members[0] });
  assert.deepEqual(rows.map((r) => [r.name, r.online, r.removed, r.link, r.me]), [
    ["Ada", true, false, true, true], ["Bea", true, false, false, false], ["Cy", false, false, false, false], ["Ann", false, true, false, false],
  ], "on the board first, then the others by name, removed last; Bea once for her two tabs");
  assert.equal(rows[1].alias, "Beatrice", "the alias her connection uses");
  assert.equal(presenceInWords(rows[2], NOW), "Last seen 10 min ago");
  assert.equal(presenceInWords(rows[1], NOW), "On the board now");
  assert.equal(presenceInWords(rows[3], NOW), "Removed");
  assert.equal(rowInWords(rows[1], NOW), "Bea (Beatrice), commenter, on the board now");
  assert.equal(rowInWords(rows[0], NOW), "Ada (you), admin, with a link, on the board now");
  // Everyone else sees who is on the board now, one row per person.
  const seen = memberRows({ people: null, members, me: members[1] });
  assert.deepEqual(seen.map((r) => [r.name, r.me]), [["Ada", false], ["Bea", true]]);
});

test("issue 45: an invite in words, usable ones first", () => {
  const base = { id: "i-1", name: "Bea", role: "commenter", token: "t-x", createdAt: SEC - 100, uses: 0, disabled: false };
  assert.equal(inviteInWords({ ...base, maxUses: 1, expiresAt: SEC + 7 * 86400 }, NOW), "Commenter · one use, not used yet · expires 15 Dec 2026");
  assert.equal(inviteInWords({ ...base, maxUses: 1, uses: 1 }, NOW), "Commenter · one use, used");
  assert.equal(inviteInWords({ ...base, disabled: true, uses: 3 }, NOW), "Commenter · disabled · used 3 times");
  assert.equal(inviteInWords({ ...base, expiresAt: SEC - 86400 }, NOW), "Commenter · not used yet · expired 7 Dec 2026");
  assert.equal(inviteUsable({ ...base, maxUses: 1, uses: 1 }, NOW), false);
  assert.equal(inviteUsable({ ...base, expiresAt: SEC - 1 }, NOW), false);
  assert.equal(inviteUsable(base, NOW), true);
  const rows = inviteRows([{ ...base, id: "i-old", disabled: true }, { ...base, id: "i-a", createdAt: SEC - 50 }, { ...base, id: "i-b" }], NOW);
  assert.deepEqual(rows.map((r) => r.id), ["i-a", "i-b", "i-old"]);
  assert.equal(dayInWords(Date.parse("2024-02-29T23:59:59Z")), "29 Feb 2024");
  assert.equal(dayInWords(0), "1 Jan 1970");
});

test("issue 45: the Invite form is checked before anything is sent", () => {
  assert.deepEqual(inviteRequest({ name: "  Bea ", role: "commenter", oneUse: true, days: "7" }, NOW), { name: "Bea", role: "commenter", oneUse: true, expiresAt: SEC + 7 * 86400 });
  assert.deepEqual(inviteRequest({ name: "Cy", role: "editor", oneUse: false, days: "0" }, NOW), { name: "Cy", role: "editor", oneUse: false });
  assert.match(inviteRequest({ name: "  ", role: "editor" }, NOW).problem, /name/);
  assert.match(inviteRequest({ name: "x".repeat(65), role: "editor" }, NOW).problem, /64/);
  assert.match(inviteRequest({ name: "Bea", role: "owner" }, NOW).problem, /role/);
  // What the form sends is a message the protocol takes.
  const request = inviteRequest({ name: "Bea", role: "commenter", oneUse: true, days: 1 }, NOW);
  assert.deepEqual(build.createInvite({ ref: "p1", ...request }), { type: "createInvite", ref: "p1", ...request });
  assert.equal(nameTaken([{ name: "bea" }], "Bea"), true);
  assert.equal(nameTaken([{ name: "Bea", removed: true }], "Bea"), false);
});

test("issue 45: each invite refusal and each end of access has its own sentence", () => {
  const sentences = JOIN_REFUSALS.map((code) => peopleRefusalInWords({ code }));
  assert.equal(new Set(sentences).size, JOIN_REFUSALS.length, "one sentence per code");
  for (const s of sentences) assert.match(s, /admin/, "each says whom to ask");
  // The server's own sentence (with the date an invite expired) is shown as it is.
  const expired = "This invite expired on 2026-12-01 10:00 UTC; ask the board's admin for a new one.";
  assert.equal(peopleRefusalInWords({ code: "invite-expired", message: expired }), expired);
  assert.match(peopleRefusalInWords({ code: "last-admin" }), /admin/);
  // The 1008 reasons of docs/PROTOCOL.md, word for word.
  const reasons = doc.section("## Errors, rejections and close codes");
  assert.ok(reasons.includes("you were removed from this board by an admin"));
  assert.ok(reasons.includes("this board's share links were turned off; ask an admin for an invite"));
  assert.match(accessEndedInWords(1008, "you were removed from this board by an admin"), /removed you/);
  assert.match(accessEndedInWords(1008, "this board's share links were turned off; ask an admin for an invite"), /turned off/);
  assert.equal(accessEndedInWords(1008, "too many invalid messages"), null);
  assert.equal(accessEndedInWords(1008, "this board's share links were replaced; ask its owner for the new link"), null);
  assert.equal(accessEndedInWords(4003, "you were removed from this board by an admin"), null);
});

test("issue 45: invite links in addresses, and which identity a hello carries", () => {
  const token = "t-5f0c1e2d3b4a69788796a5b4c3d2e1f0";
  const device = "d-0123456789abcdef0123456789abcdef";
  assert.equal(inviteLink("http://h:8080/?board=trip&key=a-1&name=Ada#x", "trip", token), `http://h:8080/?board=trip&invite=${token}`);
  assert.deepEqual(readAddress(`http://h/?board=trip&invite=${token}&name=Beatrice`), { board: "trip", key: null, invite: token, name: "Beatrice" });
  assert.equal(addressWithoutInvite(`http://h/?board=trip&invite=${token}&name=B&card=c1`), "http://h/?board=trip&name=B&card=c1");
  assert.equal(deviceKeyOf(new Uint8Array(16).fill(171)), `d-${"ab".repeat(16)}`);
  assert.throws(() => deviceKeyOf(new Uint8Array(8)));
  assert.deepEqual(helloIdentity({ invite: token, device }), { invite: token, device });
  assert.deepEqual(helloIdentity({ device, isPerson: true }), { device });
  assert.deepEqual(helloIdentity({ device }), {}, "nobody on this board: no device");
  assert.deepEqual(helloIdentity({ key: "e-1", invite: token, device, isPerson: true }), {}, "a key decides alone");
  // The hellos of docs/PROTOCOL.md are what the builder makes of these fields.
  for (const block of doc.blocks.filter((b) => b.json.type === "hello" && (b.json.invite || b.json.device))) {
    const { type, protocol, ...fields } = block.json;
    assert.deepEqual(build.hello(fields), block.json);
  }
  assert.equal(inviteShapeProblem(token), null);
  assert.match(inviteShapeProblem("t-5f0c1e"), /cut short/);
});

test("issue 45: the claim keeps one device key, joins as the person after it, and drops the invite from the address", () => {
  const storage = new MemoryStorage();
  let address = "http://h/?board=trip&invite=t-5f0c1e2d3b4a69788796a5b4c3d2e1f0&name=Beatrice";
  const claim = new InviteClaim({
    board: "trip", invite: "t-5f0c1e2d3b4a69788796a5b4c3d2e1f0", storage,
    address: { get: () => address, replace: (href) => (address = href) }, random: (bytes) => bytes.fill(7),
  });
  assert.match(claim.device, DEVICE_SHAPE);
  assert.equal(storage.getItem(DEVICE_NAME), claim.device, "kept for the whole origin");
  assert.equal(deviceKey(storage, () => assert.fail("made again")), claim.device, "made once");
  assert.deepEqual(claim.helloFields(), { invite: "t-5f0c1e2d3b4a69788796a5b4c3d2e1f0", device: claim.device });
  claim.welcomed({ member: { id: "m3", person: "p-1" }, person: { id: "p-1", name: "Bea", role: "commenter" } });
  assert.deepEqual(claim.helloFields(), { device: claim.device }, "then the device alone");
  assert.equal(address, "http://h/?board=trip&name=Beatrice", "the invite left the address");
  assert.equal(storage.getItem(PERSON_PREFIX + "trip"), "p-1");
  // A reload without the invite joins as the person; a removal forgets it.
  const again = new InviteClaim({ board: "trip", storage, address: { get: () => "http://h/?board=trip", replace: () => assert.fail() } });
  assert.deepEqual(again.helloFields(), { device: claim.device });
  again.forget();
  assert.deepEqual(new InviteClaim({ board: "trip", storage }).helloFields(), {});
  // A role link sends no device at all.
  assert.deepEqual(new InviteClaim({ board: "trip", key: "e-1", storage }).helloFields(), {});
});

test("issue 45: the admin's requests are answered by people or by an error, each its own", async () => {
  const sent = [];
  const lists = [];
  const people = new People({ send: (m) => sent.push(m) && true, changed: (list) => lists.push(list) });
  const asked = people.createInvite({ name: "Bea", role: "commenter", oneUse: true });
  assert.deepEqual(sent.at(-1), { type: "createInvite", ref: "people-1", name: "Bea", role: "commenter", oneUse: true });
  assert.equal(people.receive({ ...structuredClone(peopleExample), ref: "people-1" }), true);
  const answer = await asked;
  assert.equal(answer.created.name, "Bea");
  assert.equal(people.list.linksEnabled, true);
  assert.equal(lists.length, 1);
  const refused = people.setRole("p-1", "viewer");
  assert.equal(people.refused({ type: "error", ref: "people-2", code: "last-admin", message: "The board would have no admin." }), true);
  assert.equal((await refused).error.code, "last-admin");
  assert.equal(people.refused({ type: "error", ref: "other", code: "forbidden", message: "x" }), false, "not ours");
  // false stays false on the wire.
  people.setLinks(false);
  people.setInviteDisabled("i-1", false);
  assert.deepEqual(sent.slice(-2), [{ type: "setLinks", ref: "people-3", enabled: false }, { type: "updateInvite", ref: "people-4", invite: "i-1", disabled: false }]);
  // Offline: answered at once, nothing waits forever.
  const offline = new People({ send: () => false });
  assert.equal((await offline.removePerson("p-1")).error.code, "offline");
  const waiting = people.rotateLinks();
  people.disconnected();
  assert.equal((await waiting).error.code, "offline");
});

test("issue 45: a role change is in force at once: only that role's controls, peers see the new role", () => {
  const { session, conn } = joined();
  const changes = [];
  session.handlers.roleChanged = (message, before) => changes.push([message.role, before]);
  assert.equal(session.canEdit, true);
  conn.receive({ type: "roleChanged", role: "commenter", keys: { comment: "c-1", view: "v-1" } });
  assert.deepEqual(changes, [["commenter", "editor"]]);
  assert.equal(session.me.role, "commenter");
  assert.equal(session.canEdit, false, "no Add card, no drag");
  assert.equal(session.canComment, true);
  assert.equal(roleMay(session.me.role, "drag"), false);
  assert.deepEqual(session.keys, { comment: "c-1", view: "v-1" });
  // A peer seen again with the same id takes its new role.
  conn.receive({ type: "membersChanged", count: 2, joined: [{ id: "m1", name: "Ada", color: "#d9480f", role: "viewer", clientId: "c-ada", person: "p-9", alias: "Adele" }], left: [] });
  assert.equal(session.members.byId.get("m1").role, "viewer");
  assert.equal(memberLabel(session.members.byId.get("m1")), "Ada (Adele)");
  // A people list goes to admins only; the session keeps rotated keys for Share.
  conn.receive({ type: "roleChanged", role: "admin", keys: { admin: "a-1", edit: "e-1", comment: "c-1", view: "v-1" } });
  assert.equal(session.canEdit, true);
  conn.receive(structuredClone(peopleExample));
  assert.equal(session.people.list.invites.length, 2);
  assert.equal(session.keys.admin, peopleExample.keys.admin);
  conn.receive({ type: "roleChanged", role: "viewer", keys: { view: "" } });
  assert.equal(session.people.list, null, "no longer an admin: the list goes");
});

test("issue 45: a hello refused for an invite is kept, so the page says that refusal's sentence", () => {
  const { session, conn } = joined();
  conn.joined = false;
  conn.receive({ type: "error", ref: "hello", code: "invite-used", message: "This invite was already used; ask the board's admin for a new one." });
  assert.equal(session.joinError.code, "invite-used");
  assert.equal(peopleRefusalInWords(session.joinError), "This invite was already used; ask the board's admin for a new one.");
});

test("issue 45: an invited person uploads with the device key, a link's member with its key", async () => {
  const { uploadFile } = await import("../../web/js/net/uploads.js");
  const asked = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url) => {
    asked.push(url);
    return { ok: true, json: async () => ({ url: "/files/trip/ab.png", type: "image/png", bytes: 3 }) };
  };
  try {
    const file = new Blob(["abc"], { type: "image/png" });
    const capabilities = () => ({ uploadMaxBytes: 100 });
    await uploadFile({ board: "trip", key: null, device: "d-0123456789abcdef0123456789abcdef", capabilities }, file);
    await uploadFile({ board: "trip", key: "e-1", device: "d-0123456789abcdef0123456789abcdef", capabilities }, file);
    assert.deepEqual(asked, ["/api/boards/trip/files?device=d-0123456789abcdef0123456789abcdef", "/api/boards/trip/files?key=e-1"]);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("issue 45: the banner's sentence when access ends or a hello is refused, and when the browser forgets it is a person", () => {
  const removed = accessInWords({ code: 1008, reason: "you were removed from this board by an admin" });
  assert.equal(removed.forget, true);
  assert.match(removed.sentence, /removed you/);
  assert.deepEqual(accessInWords({ code: 1008, reason: "this board's share links were turned off; ask an admin for an invite" }).forget, false);
  const used = { code: "invite-used", message: "This invite was already used; ask the board's admin for a new one." };
  assert.deepEqual(accessInWords({ code: 4003, joinError: used }), { sentence: used.message, forget: false });
  assert.deepEqual(accessInWords({ code: 4003, joinError: { code: "removed", message: "" } }).forget, true);
  const unknownDevice = { code: "bad-key", message: "This browser has no invite for board trip; open your invite link or a share link." };
  assert.deepEqual(accessInWords({ code: 4003, joinError: unknownDevice, isPerson: true }), { sentence: unknownDevice.message, forget: true });
  assert.deepEqual(accessInWords({ code: 4003, joinError: unknownDevice, key: "e-1", isPerson: true }), { sentence: null, forget: false }, "a key's refusal is join-words.js's");
  assert.deepEqual(accessInWords({ code: 1006, reason: "" }), { sentence: null, forget: false });
});
