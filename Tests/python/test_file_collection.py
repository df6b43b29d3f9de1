"""Uploaded files go once nothing refers to them (issue 41, R16; docs/PROTOCOL.md "Removing unused
files"): `corkboard files collect` and `corkboard serve --file-collection-hours` remove the files of
DATA/files that no card, Trash, undo history or kept operation mentions and that are older than the
grace period; `corkboard boards delete` keeps the files of the deleted board that other boards use."""

import asyncio
import json
import subprocess
import time

import websockets

from conftest import executable
from test_attachments_http import PDF, answer_of, attach
from test_http_endpoints import PNG, request, start, server  # noqa: F401  (server is a fixture)

HTML = b"<!doctype html><p>never attached</p>"


def corkboard(*args):
    return subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def file_of(data, url):
    return data / "files" / url.removeprefix("/files/")


async def submit_all(port, board, ops, key=None):
    """Joins `board` and submits `ops` in order; every one must commit."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"], open_timeout=5,
                                  max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "ref": "h", "protocol": 1, "board": board, "name": "Ada",
                                  **({"key": key} if key else {})}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 15))
        assert welcome["type"] == "welcome", welcome
        head = welcome["head"]
        for n, op in enumerate(ops):
            await ws.send(json.dumps({"type": "submit", "ref": f"s{n}", "opId": f"ada-{n}", "base": head, "op": op}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 15))
                if message["type"] in ("ack", "error"):
                    break
            assert message["type"] == "ack" and message["outcome"]["kind"] == "committed", message
            head = max(head, message["outcome"]["seq"])


def attachment(answer, name):
    return {"url": answer["url"], "name": name, "type": answer["type"], "bytes": answer["bytes"]}


def wait_until(condition, timeout, message):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, message
        time.sleep(0.1)


def test_collect_removes_only_files_nothing_refers_to_and_only_past_the_grace(server):
    data = server.data
    pdf = answer_of(attach(server.port, PDF, "application/pdf"))
    png = answer_of(attach(server.port, PNG, "image/png"))
    html = answer_of(attach(server.port, HTML, "text/html"))
    # The PDF stays on a card; the image's card goes to the Trash; the HTML page is never attached.
    asyncio.run(submit_all(server.port, "demo", [
        {"kind": "updateCard", "item": "demo-gc1", "attach": [attachment(pdf, "Plan.pdf")]},
        {"kind": "updateCard", "item": "demo-gc2", "attach": [attachment(png, "map.png")]},
        {"kind": "delete", "items": ["demo-gc2"]},
    ]))

    # Within the grace period (7 days by default) nothing is judged, let alone removed.
    young = corkboard("files", "collect", "--data", data, "--dry-run")
    assert young.returncode == 0, young.stderr
    assert "3 files on 1 board: 0 in use, 3 too recent to judge, 0 unused (0 bytes)" in young.stdout, young.stdout

    dry = corkboard("files", "collect", "--data", data, "--file-grace-days", "0", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    unused = html["url"].removeprefix("/files/")
    assert f"would remove {unused}" in dry.stdout and "2 in use" in dry.stdout, dry.stdout
    assert file_of(data, html["url"]).exists(), "a dry run removes nothing"

    # While the server runs: the unused page goes; the card's file and the Trash's image stay served.
    done = corkboard("files", "collect", "--data", data, "--file-grace-days", "0")
    assert done.returncode == 0, done.stderr
    assert f"removed {unused}" in done.stdout and f"1 unused ({len(HTML)} bytes)" in done.stdout, done.stdout
    assert not file_of(data, html["url"]).exists()
    assert request(server.port, "GET", html["url"])[0] == 404
    assert request(server.port, "GET", pdf["url"])[0] == 200
    assert request(server.port, "GET", png["url"])[0] == 200

    again = corkboard("files", "collect", "--data", data, "--file-grace-days", "0")
    assert "2 files on 1 board: 2 in use" in again.stdout, again.stdout


def test_collect_refuses_bad_options_and_a_missing_store(tmp_path):
    bad = corkboard("files", "collect", "--data", tmp_path, "--file-grace-days=-1")
    assert bad.returncode != 0 and "--file-grace-days must be 0 or more" in bad.stderr, bad.stderr
    missing = corkboard("files", "collect", "--data", tmp_path / "nothing-here")
    assert missing.returncode != 0 and "There is no board store" in missing.stderr, missing.stderr


def test_serve_collects_on_its_schedule(tmp_path):
    data = tmp_path / "data"
    first = start(data)
    try:
        kept = answer_of(attach(first.port, PDF, "application/pdf"))
        asyncio.run(submit_all(first.port, "demo", [
            {"kind": "updateCard", "item": "demo-gc1", "attach": [attachment(kept, "Plan.pdf")]}]))
    finally:
        first.stop()
    # Every 1.8 s, with no grace: an upload no card takes goes within a few collections.
    second = start(data, "--file-collection-hours", "0.0005", "--file-grace-days", "0")
    try:
        stray = answer_of(attach(second.port, HTML, "text/html"))
        wait_until(lambda: not file_of(data, stray["url"]).exists(), 20, "the unused upload removed by serve")
        assert file_of(data, kept["url"]).exists(), "the attached file stays"
        assert request(second.port, "GET", kept["url"])[0] == 200
    finally:
        second.stop()
    refused = corkboard("serve", "--data", data, "--file-collection-hours=-2")
    assert refused.returncode != 0 and "--file-collection-hours must be 0 (off) or more" in refused.stderr


def test_deleting_a_board_keeps_the_files_other_boards_use(server):
    created = json.loads(request(server.port, "POST", "/api/boards", json.dumps({"title": "Old"}).encode(),
                                 {"Content-Type": "application/json"})[2])
    board, key = created["id"], created["editKey"]
    shared = answer_of(attach(server.port, PDF, "application/pdf", board=board, key=key))
    alone = answer_of(attach(server.port, HTML, "text/html", board=board, key=key))
    # A card of the demo board holds the old board's PDF (as a card moved between boards does).
    asyncio.run(submit_all(server.port, "demo", [
        {"kind": "updateCard", "item": "demo-gc3", "attach": [attachment(shared, "Plan.pdf")]}]))
    server.stop()
    stray = server.data / "files" / board / "partial-upload.tmp"
    stray.write_bytes(b"half")
    deleted = corkboard("boards", "delete", board, "--data", server.data)
    assert deleted.returncode == 0, deleted.stderr
    assert f"deleted {board}" in deleted.stdout and "kept 1 of its files" in deleted.stdout, deleted.stdout
    assert file_of(server.data, shared["url"]).exists()
    assert not file_of(server.data, alone["url"]).exists()
    assert not stray.exists()
    assert sorted(p.name for p in (server.data / "files" / board).iterdir()) == [file_of(server.data, shared["url"]).name]
