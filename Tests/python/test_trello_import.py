"""Import from Trello (issue 43): `corkboard boards import --trello FILE` and
`POST /api/boards/import/trello` make a new board from a Trello board export, which a client then
joins over the protocol; bad files create nothing. The fixture is Tests/Fixtures/trello/."""

import asyncio
import json
import subprocess

import pytest

from card_clients import open_socket, until
from conftest import ROOT, board_keys, executable, serve_demo
from test_http_endpoints import error_code, request

FIXTURES = ROOT / "Tests" / "Fixtures" / "trello"
BOARD = FIXTURES / "trello-board.json"


def corkboard(*args):
    return subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), *map(str, args)], capture_output=True, text=True,
        encoding="utf-8", timeout=60,
    )


def listed(data):
    """The board ids of a data folder (none when it has no store)."""
    result = corkboard("boards", "list", "--json", "--data", data)
    assert result.returncode == 0, result.stderr
    return [] if result.stdout.startswith("No boards") else [row["id"] for row in json.loads(result.stdout)]


async def joined_snapshot(port, board, key):
    ws = await open_socket(f"ws://127.0.0.1:{port}/ws")
    try:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": board, "key": key, "name": "Ada"}))
        welcome = await until(ws, "welcome")
        return welcome["snapshot"]
    finally:
        await ws.close()


def check_imported(snapshot):
    """What the fixture must become: collections, cards in order, labels, details and comments."""
    board = snapshot["board"]
    collections = board["collections"]
    assert [c["title"] for c in collections] == ["Ideas", "To do 📝", "Empty"]
    cards = {c["title"]: c["sections"][0].get("items", []) for c in collections}
    assert [json.loads(i["representations"][0]["value"])["name"] for i in cards["To do 📝"]] == [
        "Pack 🎒", "Book flights ✈️"]
    assert cards["Empty"] == []
    assert [label["name"] for label in board["labels"]] == ["Urgent 🔥", "red", "Later", "gray"]
    flights = cards["To do 📝"][1]["details"]
    assert flights["done"] is True
    assert flights["due"] == 1_772_357_400_000
    # Trello's checklists arrive as the card's checklists, items in order, "complete" checked.
    assert [(l["name"], [(i["text"], i.get("done", False)) for i in l["items"]]) for l in flights["checklists"]] == [
        ("Before leaving", [("Tickets", False), ("Passport", True)])]
    assert "Passport" not in flights["description"]
    assert "[Itinerary](https://example.com/itinerary.pdf)" in flights["description"]
    assert [(c["name"], c["text"]) for c in flights["comments"]] == [
        ("Grace Hopper", "First!"), ("Ada Lovelace", "Done 👍")]
    assert len(flights["labels"]) == 2
    long = cards["Ideas"][0]
    assert len(long["details"]["description"].encode()) <= 65_536
    all_titles = [json.loads(i["representations"][0]["value"])["name"] for items in cards.values() for i in items]
    assert "Archived card" not in all_titles and "On a closed list" not in all_titles


def test_cli_import_then_join_over_the_protocol(tmp_path):
    data = tmp_path / "data"
    result = corkboard("boards", "import", "--trello", BOARD, "--id", "trip", "--data", data)
    assert result.returncode == 0, result.stderr
    assert "imported trip from Trello: Trip ✈️ planning" in result.stdout
    assert "3 lists, 3 cards, 4 labels, 3 comments" in result.stdout
    assert "left out: 1 closed lists and 2 closed cards" in result.stdout
    assert "cut to fit: 3 texts" in result.stdout
    edit, _ = board_keys(result.stdout)
    server = serve_demo(data)
    try:
        check_imported(asyncio.run(joined_snapshot(server.port, "trip", edit)))
    finally:
        server.stop()


@pytest.mark.parametrize(
    "name, message",
    [("malformed.json", "not valid JSON"), ("not-trello.json", "not a Trello board export")],
)
def test_cli_bad_files_create_nothing(tmp_path, name, message):
    data = tmp_path / "data"
    result = corkboard("boards", "import", "--trello", FIXTURES / name, "--id", "bad", "--data", data)
    assert result.returncode != 0
    assert message in result.stderr and "Nothing was created" in result.stderr
    assert listed(data) == []


def test_cli_oversized_file_creates_nothing(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(50 * 1024 * 1024 + 1)  # sparse: no 50 MiB written
    data = tmp_path / "data"
    result = corkboard("boards", "import", "--trello", big, "--data", data)
    assert result.returncode != 0
    assert "at most 52428800" in result.stderr and "50 MiB" in result.stderr
    assert listed(data) == []


def test_cli_help_names_the_flag():
    result = corkboard("boards", "import", "--help")
    assert result.returncode == 0
    assert "--trello" in result.stdout and "Trello" in result.stdout


def test_http_import_then_join(tmp_path):
    data = tmp_path / "data"
    server = serve_demo(data)
    try:
        headers = {"Content-Type": "application/json"}
        status, _, body = request(server.port, "POST", "/api/boards/import/trello", BOARD.read_bytes(), headers)
        assert status == 201, body
        created = json.loads(body)
        assert created["title"] == "Trip ✈️ planning"
        assert created["report"]["cards"] == 3 and created["report"]["closedCards"] == 2
        check_imported(asyncio.run(joined_snapshot(server.port, created["id"], created["editKey"])))
        # Bad files: a clear 400 and no new board.
        before = len(listed(data))
        for name in ("malformed.json", "not-trello.json"):
            result = request(server.port, "POST", "/api/boards/import/trello", (FIXTURES / name).read_bytes(),
                             headers)
            assert error_code(result) == (400, "bad-request")
        assert error_code(request(server.port, "POST", "/api/boards/import/trello", BOARD.read_bytes(),
                                  {**headers, "Origin": "https://evil.example"})) == (403, "bad-origin")
        assert len(listed(data)) == before
    finally:
        server.stop()
