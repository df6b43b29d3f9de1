"""R14 with an independent client (Python `websockets`): a board larger than every per-connection
bound (the room's 8 MiB, the transport's 16 MiB) is joined by assembling `snapshotPart` messages; the
size limit refuses growth with `too-large`; `/healthz`, `corkboard boards` and the bots see big boards.
"""

import asyncio
import json
import subprocess
import time
import urllib.request

import pytest
import websockets

from conftest import executable, serve_demo

CARD_BYTES = 800_000
TIMEOUT = 60


def serve(data, *extra):
    return serve_demo(data, "--durability", "normal", *extra)


@pytest.fixture
def server(tmp_path):
    proc = serve(tmp_path / "data")
    yield proc
    proc.stop()


async def connect(port):
    return await websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"],
                                    open_timeout=5, close_timeout=1, max_size=None)


async def receive(ws):
    return json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))


async def hello(ws, name):
    await ws.send(json.dumps({"type": "hello", "ref": "h", "protocol": 1, "board": "demo", "name": name}))
    return await receive(ws)


def card(n):
    return chr(65 + n % 26) * CARD_BYTES


def card_representations(n):
    """Card n as 16 representations of 50,000 bytes (a value may hold at most maxValueBytes, 65,536)."""
    text = card(n)
    return [{"type": "public.plain-text", "value": text[i:i + 50_000]} for i in range(0, CARD_BYTES, 50_000)]


async def fill(port, count):
    """Inserts `count` cards of ~800 KB into the demo inbox; returns the rejections (code, message)."""
    ws = await connect(port)
    try:
        welcome = await hello(ws, "filler")
        assert welcome["type"] == "welcome", welcome
        rejections = []
        for n in range(count):
            await ws.send(json.dumps({
                "type": "submit", "ref": f"f{n}", "opId": f"fill-{n}", "base": 0,
                "op": {"kind": "insert", "items": [{"representations": card_representations(n)}],
                       "destination": {"collection": "demo-inbox", "section": "demo-inbox", "index": 0,
                                       "intent": "insertAtDestinationIndexPath"}}}))
            while True:
                message = await receive(ws)
                if message["type"] == "ack":
                    break
            outcome = message["outcome"]
            if outcome["kind"] == "rejected":
                rejections.append((outcome["code"], outcome["message"]))
        return rejections
    finally:
        await ws.close()


class Assembler:
    """Puts a snapshot sent in parts back together (docs/PROTOCOL.md, "Snapshots in parts")."""

    def __init__(self, descriptor):
        self.descriptor = descriptor
        self.received = 0
        self.collections = []
        self.parents = {}  # ("collection" | "section" | "group", id) → the list to append to

    def register_item(self, item):
        if "children" in item:
            self.parents[("group", item["id"])] = item["children"]
            for child in item["children"]:
                self.register_item(child)

    def register_section(self, section):
        self.parents[("section", section["id"])] = section["items"]
        for item in section["items"]:
            self.register_item(item)

    def add(self, part):
        assert part["seq"] == self.descriptor["seq"] and part["part"] == self.received, part.get("part")
        for entry in part["append"]:
            if "collections" in entry:
                for collection in entry["collections"]:
                    self.collections.append(collection)
                    self.parents[("collection", collection["id"])] = collection["sections"]
                    for section in collection["sections"]:
                        self.register_section(section)
            elif "collection" in entry:
                target = self.parents[("collection", entry["collection"])]
                for section in entry["sections"]:
                    target.append(section)
                    self.register_section(section)
            else:
                kind = "section" if "section" in entry else "group"
                target = self.parents[(kind, entry[kind])]
                for item in entry["items"]:
                    target.append(item)
                    self.register_item(item)
        self.received += 1
        return self.received == self.descriptor["parts"]


async def join_big(port, name):
    """Joins the demo board; returns (welcome, assembled board, part count, wire bytes of the parts)."""
    ws = await connect(port)
    try:
        welcome = await hello(ws, name)
        assert welcome["type"] == "welcome", welcome
        assert "snapshot" not in welcome and "ops" not in welcome
        descriptor = welcome["snapshotParts"]
        assert descriptor["seq"] == welcome["head"]
        assembler = Assembler(descriptor)
        parts = wire = 0
        while True:
            raw = await asyncio.wait_for(ws.recv(), TIMEOUT)
            message = json.loads(raw)
            if message["type"] != "snapshotPart":
                continue
            parts += 1
            wire += len(raw.encode())
            if assembler.add(message):
                break
        await ws.send(json.dumps({"type": "ping", "ref": "p"}))
        while (message := await receive(ws))["type"] != "pong":
            pass
        return welcome, {"collections": assembler.collections}, parts, wire
    finally:
        await ws.close()


def health(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
        return json.loads(response.read())


def test_a_24_mib_board_is_joined_by_assembling_parts(server, tmp_path):
    assert asyncio.run(fill(server.port, 30)) == []
    started = time.monotonic()
    welcome, board, parts, wire = asyncio.run(join_big(server.port, "python"))
    elapsed = time.monotonic() - started
    print(f"joined a {wire}-byte board in {parts} parts in {elapsed:.2f} s")
    assert parts == welcome["snapshotParts"]["parts"] > 1
    assert wire == welcome["snapshotParts"]["bytes"] > 24_000_000
    inbox = next(c for c in board["collections"] if c["id"] == "demo-inbox")["sections"][0]["items"]
    values = ["".join(r["value"] for r in item["representations"]) for item in inbox]
    # Inserted at index 0 one after the other: the newest first, then the demo note.
    assert values[:30] == [card(n) for n in reversed(range(30))]
    assert inbox[30]["id"] == "demo-note1"
    caches = next(c for c in board["collections"] if c["id"] == "demo-caches")
    assert [i["id"] for i in caches["sections"][0]["items"]] == [f"demo-gc{n}" for n in range(1, 9)]

    report = health(server.port)
    assert report["maxBoardBytes"] == 64 * 1024 * 1024
    assert report["largestBoardBytes"] >= 24_000_000
    assert report["boardBytes"] >= report["largestBoardBytes"]
    assert {"status", "version", "connections", "boards", "members", "store"} <= report.keys()

    # The bots join the big board (in parts) and check their replicas against a fresh join.
    result = subprocess.run(
        [str(executable("CORKBOARD_BOT_BIN", "corkboard-bot")), "--url", f"ws://127.0.0.1:{server.port}/ws",
         "--board", "demo", "--bots", "2", "--duration", "2", "--seed", "5", "--json"],
        capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["passed"] is True and summary["divergences"] == 0

    server.stop()
    listing = subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), "boards", "--data", str(tmp_path / "data"), "--json"],
        capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0, listing.stderr
    demo = next(row for row in json.loads(listing.stdout) if row["id"] == "demo")
    assert demo["bytes"] >= 24_000_000 and demo["seq"] >= 30
    text = subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), "boards", "--data", str(tmp_path / "data")],
        capture_output=True, text=True, timeout=60)
    assert text.returncode == 0 and " MiB at seq " in text.stdout, text.stdout


def test_growth_past_the_limit_is_refused_too_large(tmp_path):
    proc = serve(tmp_path / "data", "--max-board-bytes", str(4 << 20))
    try:
        rejections = asyncio.run(fill(proc.port, 7))
        assert len(rejections) == 2, rejections
        code, message = rejections[0]
        assert code == "too-large"
        assert "4 MiB" in message and "4194304 bytes" in message and "--max-board-bytes" in message
        assert health(proc.port)["maxBoardBytes"] == 4 << 20
        assert health(proc.port)["largestBoardBytes"] <= 4 << 20
    finally:
        proc.stop()
