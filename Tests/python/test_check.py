"""`corkboard check` over a real store (issue 43): each board's line names its activity feed, and an
activity entry that does not belong (past the log, unreadable) fails the check, naming its seq."""

import asyncio
import json
import re
import sqlite3

import websockets

from test_board_abuse import corkboard, serve


async def move_a_card(port):
    """One committed move on the open demo board; returns its seq."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"], open_timeout=5) as ws:
        await ws.send(json.dumps({"type": "hello", "ref": "h", "protocol": 1, "board": "demo", "name": "Ada"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "submit", "ref": "m", "opId": "op-1", "base": 0, "op": {
            "kind": "move", "items": ["demo-gc1"],
            "destination": {"collection": "demo-found", "section": "demo-found", "index": 0,
                            "intent": "insertAtDestinationIndexPath"}}}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if message["type"] == "ack":
                assert message["outcome"]["kind"] == "committed", message
                return message["outcome"]["seq"]


def test_check_reports_each_boards_activity_and_fails_on_a_stray_entry(tmp_path):
    data = tmp_path / "data"
    server = serve(data, "--demo")
    try:
        seq = asyncio.run(move_a_card(server.port))
    finally:
        server.stop()
    check = corkboard("check", "--data", data)
    assert check.returncode == 0, check.stdout + check.stderr
    assert re.search(rf"^demo: ok at seq {seq}, \d+ items, 1 activity entry \(seq {seq}\)$", check.stdout, re.M), check.stdout

    db = sqlite3.connect(data / "corkboard.sqlite")
    db.execute("INSERT INTO activity (board, seq, data) VALUES ('demo', 999999, '{\"seq\":999999}')")
    db.commit()
    db.close()
    check = corkboard("check", "--data", data)
    assert check.returncode == 1, check.stdout
    line = next(line for line in check.stdout.splitlines() if line.startswith("demo: "))
    assert "the activity entry of seq 999999 is outside the log" in line, check.stdout
    assert "the activity entry at seq 999999 is not readable JSON of an entry" in line, check.stdout
