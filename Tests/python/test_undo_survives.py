"""Issue 39 end to end: a client's undo history survives a kill -9 of the server and a failover
between the nodes of a cluster (R13, R18).

A client moves a card, the process that sequences the board dies with SIGKILL, the client resumes
(on the restarted server, or on the node that took the board over) with its client id and resume
token, is told its Undo still has something to act on, and `undo` puts the card back between the
neighbours it had (R3 anchors). Someone else claiming the client id without the token is refused.
On the cluster, the board's Activity feed (issue 43) comes along too: the node that took the board
over lists the move made on the killed one.
"""

import asyncio
import json
import random
import time

from card_clients import open_socket, until
from conftest import DataServe
from cluster_support import ClusterBot, corkboard, demo_cluster, fresh_snapshot, owner_of, postgres, wait_for

__all__ = ["postgres"]  # the fixture


class Server(DataServe):
    """`corkboard serve --demo` on a data folder."""

    def __init__(self, data):
        super().__init__(data, "--demo")


def move(board: str, card: str, base: int, op_id: str) -> dict:
    return {"type": "submit", "ref": op_id, "opId": op_id, "base": base,
            "op": {"kind": "move", "items": [card], "destination": {
                "collection": f"{board}-found", "section": f"{board}-found", "index": 0,
                "intent": "insertAtDestinationIndexPath"}}}


def to_find(snapshot: dict, board: str) -> list:
    for collection in snapshot["board"]["collections"]:
        for section in collection["sections"]:
            if section["id"] == f"{board}-to-find":
                return [item["id"] for item in section.get("items", [])]
    raise AssertionError(f"no to-find section on {board}")


def test_undo_after_a_kill9_restart_moves_the_card_back(tmp_path):
    data = tmp_path / "data"
    server = Server(data)

    async def before_the_crash():
        ws = await open_socket(server.url)
        try:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "Ada"}))
            welcome = await until(ws, "welcome")
            original = to_find(welcome["snapshot"], "demo")
            assert original[:3] == ["demo-gc1", "demo-gc2", "demo-gc3"], original
            await ws.send(json.dumps(move("demo", "demo-gc2", welcome["head"], "a1")))
            ack = await until(ws, "ack")
            assert ack["outcome"]["kind"] == "committed", ack
            assert await until(ws, "undoable") == {"type": "undoable", "undo": True, "redo": False}
            return welcome, ack["outcome"]["seq"], original
        finally:
            await ws.close()

    async def after_the_restart(welcome, seq, original):
        client_id = welcome["member"]["clientId"]
        intruder = await open_socket(server.url)
        try:
            # Client ids are public (operations carry them): without the token, nobody else gets its history.
            await intruder.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "Mallory",
                                            "clientId": client_id}))
            refused = await until(intruder, "error")
            assert refused["field"] == "resumeToken", refused
        finally:
            await intruder.close()
        ws = await open_socket(server.url)
        try:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "Ada",
                                      "clientId": client_id, "resumeToken": welcome["resumeToken"],
                                      "lastSeq": seq, "history": welcome["history"]}))
            resumed = await until(ws, "welcome")
            assert resumed["member"]["clientId"] == client_id
            assert resumed["resumeToken"] == welcome["resumeToken"], "the token outlived the process"
            assert resumed["undoable"] == {"undo": True, "redo": False}, resumed["undoable"]
            await ws.send(json.dumps({"type": "undo", "ref": "u1", "opId": "u1", "base": resumed["head"]}))
            ack = await until(ws, "ack")
            assert ack["outcome"]["kind"] == "committed", ack
            destination = ack["outcome"]["op"]["destination"]
            assert (destination["after"], destination["before"]) == ("demo-gc1", "demo-gc3"), destination
            assert await until(ws, "undoable") == {"type": "undoable", "undo": False, "redo": True}
        finally:
            await ws.close()
        fresh = await open_socket(server.url)
        try:
            await fresh.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "Observer"}))
            assert to_find((await until(fresh, "welcome"))["snapshot"], "demo") == original
        finally:
            await fresh.close()

    try:
        welcome, seq, original = asyncio.run(asyncio.wait_for(before_the_crash(), 60))
        server.kill9()
        server = Server(data)
        asyncio.run(asyncio.wait_for(after_the_restart(welcome, seq, original), 60))
    finally:
        server.stop()


class UndoingBot(ClusterBot):
    """A cluster client that keeps its last welcome (for its `undoable`)."""

    def welcome(self, message: dict):
        super().welcome(message)
        self.last_welcome = message


def test_undo_after_the_owner_is_killed_works_on_the_new_owner(postgres, tmp_path):
    keys, nodes, urls = demo_cluster(postgres, tmp_path, ["undo"], count=2)
    key = keys["undo"]

    async def scenario():
        bot = UndoingBot("ada", "undo", key, 0, random.Random(1))
        ws = await bot.join(urls, time.monotonic() + 30)
        original = list(bot.replica["undo-to-find"])
        assert original[:3] == ["undo-gc1", "undo-gc2", "undo-gc3"], original
        await ws.send(json.dumps(move("undo", "undo-gc2", bot.last_seq, "a1")))
        ack = await until(ws, "ack")
        assert ack["outcome"]["kind"] == "committed", ack
        owner = await asyncio.to_thread(wait_for, lambda: owner_of(nodes, "undo"), 15, "an owner of undo")
        owner.kill9()
        await ws.close()
        # The client enters through the entry URLs; the survivor takes the board once the lease ran out.
        bot.entry = nodes.index(owner)
        bot.last_seq = ack["outcome"]["seq"]
        ws = await bot.join(urls, time.monotonic() + 30)
        try:
            assert bot.joined_url != owner.url
            assert bot.last_welcome["undoable"] == {"undo": True, "redo": False}, bot.last_welcome["undoable"]
            await ws.send(json.dumps({"type": "activity", "ref": "f1", "limit": 30}))
            page = await until(ws, "activityPage")
            moved = [entry for entry in page["entries"] if entry["seq"] == ack["outcome"]["seq"]]
            assert moved and moved[0]["text"].startswith("moved "), page
            await ws.send(json.dumps({"type": "undo", "ref": "u1", "opId": "u1", "base": bot.last_seq}))
            undone = await until(ws, "ack")
            assert undone["outcome"]["kind"] == "committed", undone
        finally:
            await ws.close()
        fresh = await fresh_snapshot(urls, "undo", key)
        assert fresh["sections"]["undo-to-find"] == original
        assert not bot.problems, bot.problems

    try:
        asyncio.run(asyncio.wait_for(scenario(), 90))
    finally:
        for node in nodes:
            node.stop()
