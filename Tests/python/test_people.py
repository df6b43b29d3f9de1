"""People and personal invites (issue 45) at a real `corkboard serve`, with an independent client
(websockets) and the CLI (`corkboard boards invite / members / revoke`).

An invite is claimed by a device key (`hello` with `invite` and `device`); the person joins under the
invite's name (the hello's name is the alias) and comes back with the device alone. A one-use invite
is claimed once; used, unknown and expired invites each get their own error and close 4003. An admin
changes a person's role and it applies to their open connection at once; removing a person closes
their connections 1008 with the reason within a second and leaves everyone else connected, and so
does `corkboard boards revoke` while the server runs. The last admin stays; non-admins are refused
`forbidden`; the anyone-with-the-link row can be turned off.
"""

import asyncio
import json
import secrets
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
import websockets

from card_clients import open_socket, receive, until
from conftest import DataServe, executable, role_keys

BOARD = "team"
CARD = f"{BOARD}-gc1"


Server = DataServe


def cli(data, *args, ok=True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), "boards", *args, "--data", str(data)],
                            capture_output=True, text=True, timeout=60)
    if ok:
        assert result.returncode == 0, result.stderr
    return result


def invite(data, name, role, *extra) -> str:
    """`corkboard boards invite`: the token of the link it prints."""
    out = cli(data, "invite", BOARD, "--name", name, "--role", role, *extra).stdout
    link = next(line.split("link: ")[1] for line in out.splitlines() if "link: " in line)
    assert link.startswith("http://") and f"?board={BOARD}&invite=t-" in link, out
    return link.split("invite=")[1]


def device() -> str:
    return "d-" + secrets.token_hex(16)


async def hello(url, **fields):
    """A connection and the answer to its hello (welcome or error)."""
    ws = await open_socket(url)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": BOARD, "name": "Someone", **fields}))
    return ws, await receive(ws, 10)


async def closed(ws, timeout=5.0):
    """The close code and reason of a connection the server closes, and how long it took."""
    start = time.monotonic()
    with pytest.raises(websockets.ConnectionClosed) as close:
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    return close.value.rcvd.code, close.value.rcvd.reason, time.monotonic() - start


async def refused(url, code, **fields):
    ws, answer = await hello(url, **fields)
    assert answer["type"] == "error" and answer["code"] == code, answer
    assert (await closed(ws))[0] == 4003
    return answer["message"]


async def manage(ws, request: dict) -> dict:
    """An admin message and its answer (`people` or `error` with the same ref)."""
    await ws.send(json.dumps(request))
    while True:
        message = await receive(ws, 10)
        if message.get("ref") == request["ref"]:
            return message


def upload(port: int, **query) -> tuple:
    """An image upload with `query` (key= or device=): (status, answer)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/boards/{BOARD}/files?" + urllib.parse.urlencode(query),
        data=b"\x89PNG\r\n\x1a\n", headers={"Content-Type": "image/png"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def still_open(ws):
    await ws.send(json.dumps({"type": "ping", "ref": "alive"}))
    assert (await until(ws, "pong"))["ref"] == "alive"


def test_invites_claims_roles_and_removal_end_to_end(tmp_path):
    data = tmp_path / "data"
    keys = role_keys(cli(data, "create", BOARD, "--template", "demo").stdout)
    bea_token = invite(data, "Bea", "commenter", "--one-use")
    cy_token = invite(data, "Cy", "editor")
    soon_token = invite(data, "Soon", "viewer", "--expires-days", "0.00002")  # about 1.7 s
    bad = cli(data, "invite", BOARD, "--name", "X", "--role", "owner", ok=False)
    assert bad.returncode != 0 and "Unknown role 'owner'; use admin, editor, commenter or viewer." in bad.stderr
    unknown_board = cli(data, "invite", "nope", "--name", "X", "--role", "viewer", ok=False)
    assert unknown_board.returncode != 0 and 'There is no board "nope"' in unknown_board.stderr
    time.sleep(2)
    server = Server(data)
    bea_device, cy_device = device(), device()

    async def scenario():
        sockets = []
        try:
            admin, welcome = await hello(server.url, key=keys["admin"], name="Root")
            sockets.append(admin)
            assert welcome["type"] == "welcome" and "person" not in welcome

            # Claiming: the person is the invite's name; the hello's differing name is the alias.
            bea, welcome = await hello(server.url, invite=bea_token, device=bea_device, name="Beatrice")
            sockets.append(bea)
            assert welcome["type"] == "welcome", welcome
            member = welcome["member"]
            assert (member["name"], member["alias"], member["role"]) == ("Bea", "Beatrice", "commenter"), member
            assert member["person"] == welcome["person"]["id"] and member["person"].startswith("p-")
            assert welcome["keys"] == {"view": keys["view"], "comment": keys["comment"]}
            bea_id = member["person"]
            # The same device again, with the device alone: the same person, no second use.
            bea2, again = await hello(server.url, device=bea_device, name="Bea")
            sockets.append(bea2)
            assert again["type"] == "welcome" and again["member"]["person"] == bea_id and "alias" not in again["member"]
            # Another device: the one-use invite is used. Unknown and expired invites: their own errors.
            message = await refused(server.url, "invite-used", invite=bea_token, device=device())
            assert message == "This invite was already used; ask the board's admin for a new one."
            message = await refused(server.url, "invite-unknown", invite="t-" + "0" * 32, device=device())
            assert message == "This invite link is not valid; ask the board's admin for a new one."
            message = await refused(server.url, "invite-expired", invite=soon_token, device=device())
            assert message.startswith("This invite expired on ") and message.endswith(
                " UTC; ask the board's admin for a new one."), message
            await refused(server.url, "bad-key", device=device())
            # Malformed: an invite with a key, a device that is no device key.
            ws, answer = await hello(server.url, invite=cy_token, key=keys["view"], device=device())
            assert (answer["code"], answer["field"]) == ("invalid-field", "invite"), answer
            await ws.close()
            ws, answer = await hello(server.url, invite=cy_token, device="d-short")
            assert (answer["code"], answer["field"]) == ("invalid-field", "device"), answer
            await ws.close()

            cy, welcome = await hello(server.url, invite=cy_token, device=cy_device, name="Cy")
            sockets.append(cy)
            assert welcome["member"]["role"] == "editor" and "alias" not in welcome["member"]
            cy_id = welcome["member"]["person"]
            # A person uploads with their device key, in their role.
            status, answer = await asyncio.to_thread(upload, server.port, device=cy_device)
            assert status in (200, 201) and answer["url"].startswith(f"/files/{BOARD}/"), (status, answer)
            status, answer = await asyncio.to_thread(upload, server.port, device=bea_device)
            assert status == 403 and answer["code"] == "bad-key" and "commenter" in answer["message"], answer

            listed = await manage(admin, {"type": "listPeople", "ref": "l1"})
            assert listed["type"] == "people", listed
            people = {p["name"]: p for p in listed["people"]}
            assert people["Bea"]["online"] and people["Cy"]["online"] and people["Bea"]["alias"] == "Beatrice"
            assert {i["name"]: i["uses"] for i in listed["invites"]} == {"Bea": 1, "Cy": 1, "Soon": 0}
            assert listed["linksEnabled"] is True and listed["keys"]["admin"] == keys["admin"]

            # A non-admin's member operations are refused forbidden, naming the role.
            answer = await manage(bea, {"type": "removePerson", "ref": "x", "person": cy_id})
            assert answer["type"] == "error" and answer["code"] == "forbidden", answer
            assert answer["message"] == "Only an admin manages the board's members and links; you are a commenter."

            # A role change applies to the open connection at once.
            answer = await manage(admin, {"type": "setRole", "ref": "r1", "person": cy_id, "role": "viewer"})
            assert next(p for p in answer["people"] if p["id"] == cy_id)["role"] == "viewer"
            changed = await until(cy, "roleChanged")
            assert changed["role"] == "viewer" and changed["keys"] == {"view": keys["view"]}, changed
            await cy.send(json.dumps({"type": "submit", "ref": "m1", "opId": "m1", "base": 0, "op": {
                "kind": "move", "items": [CARD], "destination": {
                    "collection": f"{BOARD}-found", "section": f"{BOARD}-found", "index": 0,
                    "intent": "insertAtDestinationIndexPath"}}}))
            assert (await until(cy, "ack"))["outcome"]["code"] == "read-only"

            # Removing Bea closes both her connections within a second; Cy and the admin stay.
            answer = await manage(admin, {"type": "removePerson", "ref": "r2", "person": bea_id})
            assert answer["type"] == "people", answer
            for ws in (bea, bea2):
                code, reason, waited = await closed(ws)
                assert (code, reason) == (1008, "you were removed from this board by an admin")
                assert waited < 1.0
            await still_open(cy)
            await still_open(admin)
            message = await refused(server.url, "removed", device=bea_device)
            assert message == "You were removed from this board; ask an admin of the board if this is a mistake."
            await refused(server.url, "removed", invite=bea_token, device=bea_device)

            # The last admin: a person admin cannot remove themselves while they are the only one.
            made = await manage(admin, {"type": "createInvite", "ref": "c1", "name": "Ann", "role": "admin"})
            ann, welcome = await hello(server.url, invite=made["created"]["token"], device=device(), name="Ann")
            sockets.append(ann)
            ann_id = welcome["member"]["person"]
            answer = await manage(ann, {"type": "removePerson", "ref": "la", "person": ann_id})
            assert answer["code"] == "last-admin", answer

            # The CLI, while the server runs: members lists them; revoke closes Cy within about a second.
            members = cli(data, "members", BOARD).stdout
            assert "Bea  commenter" in members and "(removed)" in members and "Cy  viewer" in members, members
            assert "anyone with the link on" in members
            assert f"invite={cy_token}" in members
            listed = json.loads(cli(data, "members", BOARD, "--json").stdout)
            assert {p["name"] for p in listed["people"]} == {"Bea", "Cy", "Ann"}
            start = time.monotonic()
            assert f"removed {cy_id}" in cli(data, "revoke", BOARD, cy_id).stdout
            code, reason, _ = await closed(cy, timeout=5)
            assert (code, reason) == (1008, "you were removed from this board by an admin")
            assert time.monotonic() - start < 2.5
            # The admins hear of it too (pushed people, no ref), and stay.
            while True:
                pushed = await until(admin, "people", timeout=5)
                if any(p["id"] == cy_id and p.get("removed") for p in pushed["people"]):
                    break
            assert "ref" not in pushed
            await still_open(admin)
            bad = cli(data, "revoke", BOARD, "x-1", ok=False)
            assert bad.returncode != 0 and "neither a person (p-…) nor an invite (i-…)" in bad.stderr
            bad = cli(data, "revoke", BOARD, "p-0000000000000000", ok=False)
            assert bad.returncode != 0 and "has no person p-0000000000000000" in bad.stderr

            # The anyone-with-the-link row off: a viewer who came by the view link is closed, the link
            # opens nothing, the admin key still does; people stay.
            viewer, welcome = await hello(server.url, key=keys["view"], name="Linker")
            sockets.append(viewer)
            assert welcome["member"]["role"] == "viewer"
            answer = await manage(admin, {"type": "setLinks", "ref": "off", "enabled": False})
            assert answer["linksEnabled"] is False
            code, reason, _ = await closed(viewer)
            assert (code, reason) == (1008, "this board's share links were turned off; ask an admin for an invite")
            await refused(server.url, "links-off", key=keys["view"])
            status, answer = await asyncio.to_thread(upload, server.port, key=keys["edit"])
            assert status == 403 and "share links were turned off" in answer["message"], answer
            await still_open(ann)
            root2, welcome = await hello(server.url, key=keys["admin"], name="Root again")
            sockets.append(root2)
            assert welcome["member"]["role"] == "admin"
        finally:
            for ws in sockets:
                await ws.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 90))
    finally:
        server.stop()
    # Everything lives in the record: after the server stopped, the CLI still sees it.
    listed = json.loads(cli(data, "members", BOARD, "--json").stdout)
    assert listed["linksEnabled"] is False
    assert {p["name"]: p["removed"] for p in listed["people"]} == {"Bea": True, "Cy": True, "Ann": False}
    listing = cli(data, "list").stdout
    assert f"view: http://127.0.0.1:{server.port}/?board={BOARD}&key={keys['view']}  (off: " in listing, listing
    assert role_keys(listing) == keys, "the links still parse; only the row is off"


def test_guessing_invites_is_throttled_like_keys(tmp_path):
    """Each refused invite counts as a failed join: the 11th guess within a minute from one address is
    refused for now (`rate-limited`, close 1008) before the catalog is asked, even with a valid token."""
    data = tmp_path / "data"
    cli(data, "create", BOARD)
    token = invite(data, "Bea", "editor")
    server = Server(data)

    async def scenario():
        for n in range(10):
            await refused(server.url, "invite-unknown", invite="t-" + secrets.token_hex(16), device=device())
        ws, answer = await hello(server.url, invite=token, device=device())
        assert answer["type"] == "error" and answer["code"] == "rate-limited", answer
        assert answer["message"].startswith("Refused for now: too many failed joins to this board"), answer
        code, reason, _ = await closed(ws)
        assert code == 1008 and reason.startswith("too many failed joins to this board from your address"), reason

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        server.stop()
    # Nothing was claimed meanwhile.
    assert json.loads(cli(data, "members", BOARD, "--json").stdout)["people"] == []
