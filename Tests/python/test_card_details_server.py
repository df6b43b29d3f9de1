"""Issue 41, card details at the server, with an independent client (websockets): a card's
description, dates, done flag and assignees change live for every member, bad input is refused
`invalid-field` naming the field and changes nothing, and an acknowledged change survives a kill -9
of the server (R16).
"""

import asyncio
import json

from card_clients import open_socket, until
from conftest import DataServe

class Server(DataServe):
    """`corkboard serve --demo` on a data folder."""

    def __init__(self, data):
        super().__init__(data, "--demo")


async def join(url: str, name: str):
    ws = await open_socket(url)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": name}))
    return ws, await until(ws, "welcome")


def find_item(snapshot: dict, item_id: str) -> dict:
    for collection in snapshot["board"]["collections"]:
        for section in collection["sections"]:
            for item in section.get("items", []):
                if item["id"] == item_id:
                    return item
    raise AssertionError(f"{item_id} is not on the board")


def update_card(ref: str, base: int, **parts) -> dict:
    return {"type": "submit", "ref": ref, "opId": ref, "base": base,
            "op": {"kind": "updateCard", "item": "demo-gc1", **parts}}


def test_details_are_live_bounded_and_survive_a_kill9(tmp_path):
    data = tmp_path / "data"
    server = Server(data)
    description = "## Plan\n- bring **tweezers**\n<script>alert(1)</script>"

    async def live_and_bounded():
        ada, welcome = await join(server.url, "Ada")
        bob, _ = await join(server.url, "Bob")
        try:
            head = welcome["head"]
            bad = [
                ({"dates": {"due": 5, "start": 6}}, "op.dates"),
                ({"assign": ["   "]}, "op.assign"),
                ({"description": {"text": "x" * 65537}}, "op.description"),
                ({"assign": [f"P{n}" for n in range(21)]}, "op.assign"),
                ({"done": "yes"}, "op.done"),
                ({}, "op.item"),
            ]
            for n, (parts, field) in enumerate(bad):
                await ada.send(json.dumps(update_card(f"bad{n}", head, **parts)))
                error = await until(ada, "error")
                assert (error["code"], error["field"], error["ref"]) == ("invalid-field", field, f"bad{n}"), error
            await ada.send(json.dumps(update_card(
                "d1", head, description={"text": description, "version": 0},
                dates={"due": 1765036800000}, done=True, assign=["Ada", "Bob"])))
            ack = await until(ada, "ack")
            assert ack["outcome"]["kind"] == "committed", ack
            seen = await until(bob, "op")
            assert seen["op"]["kind"] == "updateCard" and seen["seq"] == ack["outcome"]["seq"], seen
            assert seen["op"]["description"]["text"] == description
            # A stale description is refused conflict and changes nothing.
            await bob.send(json.dumps({**update_card("b1", seen["seq"], description={"text": "Bob's", "version": 0}),
                                       "ref": "b1", "opId": "b1"}))
            refused = await until(bob, "ack")
            assert refused["outcome"]["code"] == "conflict" and refused["outcome"]["field"] == "description", refused
            return ack["outcome"]["seq"]
        finally:
            await ada.close()
            await bob.close()

    async def after_the_restart():
        cy, welcome = await join(server.url, "Cy")
        try:
            details = find_item(welcome["snapshot"], "demo-gc1").get("details")
            assert details == {"description": description, "descriptionVersion": 1, "due": 1765036800000,
                               "datesVersion": 1, "done": True, "assignees": ["Ada", "Bob"]}, details
        finally:
            await cy.close()

    try:
        asyncio.run(asyncio.wait_for(live_and_bounded(), 60))
        server.kill9()
        server = Server(data)
        asyncio.run(asyncio.wait_for(after_the_restart(), 60))
    finally:
        server.stop()
