"""Roles (issue 45, R17) at a real `corkboard serve`, with an independent client (websockets).

`corkboard boards create` prints four links, one per role. Each key opens its role, and `welcome.keys`
carries the keys that role may hand out. A commenter's move, drag, insert, edit lease and upload are
refused `forbidden` (an upload `bad-key`) with a sentence naming the role, and change nothing; its
comment commits, everyone sees it, and its undo takes the comment back. The keys survive a restart.
A board written before roles (no comment or admin key in its record) keeps its edit and view keys
and gets new random comment and admin keys when the server opens the store.
"""

import asyncio
import json
import sqlite3
import subprocess
import urllib.error
import urllib.request

from card_clients import open_socket, until
from conftest import DataServe, executable, role_keys

BOARD = "roles"
CARD = f"{BOARD}-gc1"


#: `corkboard serve` on a data folder (no open demo board: every board needs its key).
Server = DataServe


def boards(data, *args) -> subprocess.CompletedProcess:
    result = subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), "boards", *args, "--data", str(data)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result


def listed_keys(data) -> dict:
    """Role → key of the board, from `corkboard boards list --json` (which lists the demo board too)."""
    row = next(row for row in json.loads(boards(data, "list", "--json").stdout) if row["id"] == BOARD)
    return {role: row[role].split("key=")[1] for role in ("admin", "edit", "comment", "view") if role in row}


async def join(url: str, key: str, name: str):
    ws = await open_socket(url)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": BOARD, "key": key, "name": name}))
    return ws, await until(ws, "welcome")


def move(ref: str, base: int) -> dict:
    return {"type": "submit", "ref": ref, "opId": ref, "base": base,
            "op": {"kind": "move", "items": [CARD],
                   "destination": {"collection": f"{BOARD}-found", "section": f"{BOARD}-found", "index": 0,
                                   "intent": "insertAtDestinationIndexPath"}}}


def upload(port: int, key: str) -> tuple:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/boards/{BOARD}/files?key={key}",
                                     data=b"\x89PNG\r\n\x1a\n", headers={"Content-Type": "image/png"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_each_key_opens_its_role_and_a_commenter_only_comments(tmp_path):
    data = tmp_path / "data"
    keys = role_keys(boards(data, "create", BOARD, "--template", "demo").stdout)
    assert sorted(keys) == ["admin", "comment", "edit", "view"], keys
    assert keys["admin"].startswith("a-") and keys["comment"].startswith("c-")
    assert all(len(key) == 34 for key in keys.values()), keys
    server = Server(data)

    async def roles_and_refusals():
        sockets = []
        try:
            welcomes = {}
            for role, key in keys.items():
                ws, welcome = await join(server.url, key, role.title())
                sockets.append(ws)
                welcomes[role] = (ws, welcome)
            expected = {"admin": ("admin", {"admin", "edit", "comment", "view"}),
                        "edit": ("editor", {"edit", "comment", "view"}),
                        "comment": ("commenter", {"comment", "view"}),
                        "view": ("viewer", {"view"})}
            for link, (role, shared) in expected.items():
                welcome = welcomes[link][1]
                assert welcome["member"]["role"] == role, welcome["member"]
                assert set(welcome["keys"]) == shared, (link, welcome["keys"])
                for name in shared:
                    assert welcome["keys"][name] == keys[name]
            cy, welcome = welcomes["comment"]
            editor = welcomes["edit"][0]
            head = welcome["head"]

            # R17: a move, an insert and a drag are refused forbidden, naming the role; nothing changes.
            await cy.send(json.dumps(move("m1", head)))
            ack = await until(cy, "ack")
            assert ack["outcome"]["kind"] == "rejected" and ack["outcome"]["code"] == "forbidden", ack
            assert ack["outcome"]["message"].startswith("A commenter can comment on cards but not move them"), ack
            await cy.send(json.dumps({"type": "submit", "ref": "i1", "opId": "i1", "base": head, "op": {
                "kind": "insert", "items": [{"representations": [{"type": "public.plain-text", "value": "Mine"}]}],
                "destination": {"collection": f"{BOARD}-inbox", "section": f"{BOARD}-inbox", "index": 0,
                                "intent": "insertAtDestinationIndexPath"}}}))
            ack = await until(cy, "ack")
            assert ack["outcome"]["code"] == "forbidden" and "commenter" in ack["outcome"]["message"], ack
            await cy.send(json.dumps({"type": "dragBegin", "ref": "d1", "session": "d1", "items": [CARD]}))
            granted = await until(cy, "dragGranted")
            assert granted["granted"] == [], granted
            assert [(r["item"], r["code"]) for r in granted["refused"]] == [(CARD, "forbidden")], granted
            assert "A commenter" in granted["refused"][0]["message"]
            await cy.send(json.dumps({"type": "editBegin", "ref": "e1", "item": CARD}))
            refused = await until(cy, "editRefused")
            assert refused["code"] == "forbidden" and "commenter" in refused["message"], refused
            status, body = upload(server.port, keys["comment"])
            assert status == 403 and body["code"] == "bad-key" and "commenter" in body["message"], body
            # The viewer's move is still refused read-only, as before roles.
            viewer = welcomes["view"][0]
            await viewer.send(json.dumps(move("v1", head)))
            assert (await until(viewer, "ack"))["outcome"]["code"] == "read-only"

            # Its comment commits and the editor sees it, named as the commenter.
            await cy.send(json.dumps({"type": "submit", "ref": "c1", "opId": "c1", "base": head,
                                      "op": {"kind": "addComment", "item": CARD, "text": "Looks good"}}))
            ack = await until(cy, "ack")
            assert ack["outcome"]["kind"] == "committed", ack
            assert ack["outcome"]["seq"] == head + 1, "the refusals sequenced nothing"
            seen = await until(editor, "op")
            assert seen["op"]["kind"] == "addComment" and seen["op"]["name"] == "Comment", seen
            # R13 for a commenter: its undo takes its comment back.
            await cy.send(json.dumps({"type": "undo", "ref": "u1", "opId": "u1", "base": head + 1}))
            undone = await until(cy, "ack")
            assert undone["outcome"]["kind"] == "committed", undone
            assert undone["outcome"]["op"]["kind"] == "deleteComment", undone
            await cy.send(json.dumps({"type": "submit", "ref": "c2", "opId": "c2", "base": head + 2,
                                      "op": {"kind": "addComment", "item": CARD, "text": "Kept"}}))
            assert (await until(cy, "ack"))["outcome"]["kind"] == "committed"
        finally:
            for ws in sockets:
                await ws.close()

    async def after_the_restart():
        sockets = []
        try:
            roles = {}
            for link, key in keys.items():
                ws, welcome = await join(server.url, key, link)
                sockets.append(ws)
                roles[link] = welcome["member"]["role"]
                card = next(item for c in welcome["snapshot"]["board"]["collections"] for s in c["sections"]
                            for item in s.get("items", []) if item["id"] == CARD)
                assert [c["text"] for c in card["details"]["comments"]] == ["Kept"], card
            assert roles == {"admin": "admin", "edit": "editor", "comment": "commenter", "view": "viewer"}
        finally:
            for ws in sockets:
                await ws.close()

    try:
        asyncio.run(asyncio.wait_for(roles_and_refusals(), 60))
        server.stop()
        server = Server(data)
        asyncio.run(asyncio.wait_for(after_the_restart(), 60))
    finally:
        server.stop()
    assert listed_keys(data) == keys


def test_a_board_from_before_roles_keeps_its_links_and_gets_comment_and_admin_keys(tmp_path):
    data = tmp_path / "data"
    keys = role_keys(boards(data, "create", BOARD).stdout)
    # The record as a build before roles wrote it: an edit and a view key only.
    with sqlite3.connect(data / "corkboard.sqlite") as db:
        record = json.loads(db.execute("SELECT record FROM boards WHERE id = ?", (BOARD,)).fetchone()[0])
        record["keys"] = {"edit": keys["edit"], "view": keys["view"], "isOpen": False}
        db.execute("UPDATE boards SET record = ? WHERE id = ?", (json.dumps(record), BOARD))
    server = Server(data)
    try:
        async def old_links_work():
            for key, role in [(keys["edit"], "editor"), (keys["view"], "viewer")]:
                ws, welcome = await join(server.url, key, "Old")
                await ws.close()
                assert welcome["member"]["role"] == role
        asyncio.run(asyncio.wait_for(old_links_work(), 30))
    finally:
        server.stop()
    upgraded = listed_keys(data)
    assert (upgraded["edit"], upgraded["view"]) == (keys["edit"], keys["view"])
    assert upgraded["admin"].startswith("a-") and upgraded["comment"].startswith("c-")
    assert upgraded["admin"] != keys["admin"] and upgraded["comment"] != keys["comment"], "new random keys"
    # Opened again, the store keeps them.
    assert listed_keys(data) == upgraded


def test_rotate_keys_replaces_all_four(tmp_path):
    data = tmp_path / "data"
    keys = role_keys(boards(data, "create", BOARD).stdout)
    rotated = role_keys(boards(data, "rotate-keys", BOARD).stdout)
    assert sorted(rotated) == sorted(keys)
    assert all(rotated[role] != keys[role] for role in keys), (keys, rotated)
