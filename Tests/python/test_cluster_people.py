"""Issue 45 on a cluster: people, invites and revocations live in PostgreSQL and take effect on every
node within a second.

- A one-use invite claimed through one node (which then redirects the person to the node that
  sequences the board) cannot be claimed again by another device through the other node (the claim is
  one transaction in PostgreSQL, run by the node the hello reached).
- A revoke written to PostgreSQL by another process than the node sequencing the board (`corkboard
  boards revoke --postgres-url`, as any node's write would be) closes the person's socket on that node
  within 1.5 s of its commit (1008, the reason), and leaves the other members connected; the removed person's
  next hello, through either node, is refused `removed`.
"""

import asyncio
import json
import secrets
import time

import pytest
import websockets

from cluster_support import Node, corkboard, open_socket, owner_of, postgres, receive, wait_for

__all__ = ["postgres"]  # the fixture

BOARD = "crew"


def invite(database: str, name: str, role: str, *extra) -> str:
    made = corkboard("boards", "invite", BOARD, "--name", name, "--role", role, *extra, "--postgres-url", database)
    assert made.returncode == 0, made.stderr
    return made.stdout.split("invite=")[1].split()[0]


async def join(url: str, fields: dict, hops: int = 4):
    """A hello through `url`, following redirects to the node that sequences the board: (the
    connection, its answer, the url it joined through)."""
    for _ in range(hops):
        ws = await open_socket(url)
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": BOARD, "name": "Someone", **fields}))
        answer = await receive(ws, 15)
        if answer["type"] != "redirect":
            return ws, answer, url
        await ws.close()
        url = answer.get("url") or url
        await asyncio.sleep(0.2)
    pytest.fail(f"no node took the hello for {BOARD}")


async def closed(ws, timeout: float):
    start = time.monotonic()
    with pytest.raises(websockets.ConnectionClosed) as close:
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    return close.value.rcvd.code, close.value.rcvd.reason, time.monotonic() - start


def test_a_revoke_in_postgres_closes_the_person_on_the_node_that_holds_them(postgres, tmp_path):
    assert corkboard("migrate", "--postgres-url", postgres.url).returncode == 0
    created = corkboard("boards", "create", BOARD, "--template", "demo", "--postgres-url", postgres.url)
    assert created.returncode == 0, created.stderr
    bea_token = invite(postgres.url, "Bea", "commenter", "--one-use")
    cy_token = invite(postgres.url, "Cy", "editor")
    nodes = [Node(postgres.url, tmp_path / f"node{n}") for n in range(2)]
    urls = [node.url for node in nodes]
    bea_device, cy_device = "d-" + secrets.token_hex(16), "d-" + secrets.token_hex(16)

    def settled_owner():
        """The node that sequences the board once it has held it for two seconds (a node that
        started late may take a board over from the node that loaded it first)."""
        first = wait_for(lambda: owner_of(nodes, BOARD), 30, f"an owner of {BOARD}")
        time.sleep(2)
        return first if owner_of(nodes, BOARD) is first else None

    async def scenario():
        sockets = []
        try:
            # Cy's claim starts the board; wait until its owner is settled.
            cy, welcome, _ = await join(urls[0], {"invite": cy_token, "device": cy_device, "name": "Cy"})
            assert welcome["type"] == "welcome" and welcome["member"]["name"] == "Cy", welcome
            await cy.close()
            holder = await asyncio.to_thread(wait_for, settled_owner, 40, f"a settled owner of {BOARD}")
            other_url = next(node.url for node in nodes if node is not holder)
            # Bea claims through the other node (the claim runs there, then she is redirected); another
            # device tries her one-use invite through the holder.
            bea, welcome, bea_url = await join(other_url, {"invite": bea_token, "device": bea_device, "name": "Bea"})
            sockets.append(bea)
            assert welcome["type"] == "welcome", welcome
            assert bea_url == holder.url, "redirected to the node that sequences the board"
            bea_id = welcome["member"]["person"]
            other, answer, _ = await join(holder.url, {"invite": bea_token, "device": "d-" + secrets.token_hex(16)})
            assert answer["type"] == "error" and answer["code"] == "invite-used", answer
            await other.close()
            cy, welcome, _ = await join(other_url, {"device": cy_device, "name": "Cy"})
            sockets.append(cy)
            assert welcome["type"] == "welcome" and welcome["member"]["name"] == "Cy", welcome

            # The revoke is written to PostgreSQL by another process; the holding node closes her.
            revoked = await asyncio.to_thread(
                corkboard, "boards", "revoke", BOARD, bea_id, "--postgres-url", postgres.url)
            assert revoked.returncode == 0, revoked.stderr
            # From the revoke's commit (the command returned) to her socket's close.
            code, reason, took = await closed(bea, timeout=5)
            assert (code, reason) == (1008, "you were removed from this board by an admin")
            assert took < 1.5, f"the revoke took {took:.2f} s to close her socket"
            await cy.send(json.dumps({"type": "ping", "ref": "alive"}))
            while (message := await receive(cy, 5))["type"] != "pong":
                pass
            # Her device opens nothing, through either node.
            for url in urls:
                ws, answer, _ = await join(url, {"device": bea_device, "name": "Bea"})
                assert answer["type"] == "error" and answer["code"] == "removed", answer
                await ws.close()
            return took
        finally:
            for ws in sockets:
                await ws.close()

    try:
        # Both nodes up and the board listed before the first hello.
        wait_for(lambda: all(node.health() for node in nodes), 30, "both nodes to answer /healthz")
        took = asyncio.run(asyncio.wait_for(scenario(), 120))
        print(f"revoke → close on the holding node: {took:.2f} s")
    finally:
        for node in nodes:
            node.stop()
    people = json.loads(corkboard("boards", "members", BOARD, "--json", "--postgres-url", postgres.url).stdout)
    assert {p["name"]: p["removed"] for p in people["people"]} == {"Bea": True, "Cy": False}
