"""Export (issue 43) in real headless Chromium, against `corkboard serve`.

Bob, a second client speaking the protocol, gives the "Trip plan" board two labels, puts them on a
card with assignees, a due date and a description, comments on two cards and adds a card whose
title starts with "=". Ada, in Chromium with its download folder set (the download.default_directory
pref, and CDP's setDownloadBehavior for headless), opens "Export" in the top bar and saves each
format: the CSV's rows are the board's cards (collection, section, title) with Bob's labels,
assignees and comment counts and the formula guarded; the JSON is a `corkboard export` archive that
`corkboard import` takes into a fresh data folder with the same items; the Markdown has the
headings. On the view link Ada can export too, and no export carries the board's keys. axe audits
the open menu; a screenshot goes to Tests/python/artifacts/.
"""

import asyncio
import csv
import io
import json
import re
import subprocess
import time
from pathlib import Path

import pytest
import websockets

from conftest import executable
from test_browser import CHROMEDRIVER, CHROMIUM, Page, console_errors, create_board, server, wait_until  # noqa: F401
from test_card_details import axe_script

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
except ImportError:  # test_browser.py skips (or fails under CI) without selenium
    webdriver = None

DUE = 1796639400000  # 2026-12-07T10:30:00Z
FORMULA = "=SUM(1,2)"


@pytest.fixture
def downloads(tmp_path):
    """A Chromium that saves downloads in a folder of its own, without asking: (driver, folder)."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900",
                "--disable-gpu", "--disable-extensions", "--no-first-run"]:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(folder),
                                              "download.prompt_for_download": False,
                                              "safebrowsing.enabled": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # Headless Chromium ignores the pref for downloads unless DevTools allows them.
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    yield driver, folder
    driver.quit()


async def bob_edits(port, board, key, cards):
    """Bob's labels, details, comments and a new card, through the protocol; returns the rejections."""
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"], open_timeout=5, max_size=None)
    first, second, third = cards
    ops = [
        {"kind": "setLabel", "label": {"id": "l-urgent", "name": "Urgent", "color": "red"}},
        {"kind": "setLabel", "label": {"id": "l-later", "name": "Later, maybe", "color": "green"}},
        {"kind": "updateCard", "item": first, "addLabels": ["l-later", "l-urgent"], "assign": ["Ada", "Bob"],
         "dates": {"due": DUE}, "description": {"text": "Bring **tweezers**\n- and a pen", "version": 0}},
        {"kind": "updateCard", "item": second, "done": True},
        {"kind": "addComment", "item": first, "text": "On it"},
        {"kind": "addComment", "item": first, "text": "Done, \"mostly\""},
        {"kind": "addComment", "item": third, "text": "@Ada?"},
        {"kind": "insert", "items": [{"representations": [
            {"type": "corkboard.card", "value": json.dumps({"name": FORMULA, "summary": "a, \"b\"\nc"})},
            {"type": "public.plain-text", "value": f"{FORMULA}: a"}]}],
         "destination": {"collection": f"{board}-found", "section": f"{board}-found", "index": 0,
                         "intent": "insertAtDestinationIndexPath"}},
    ]
    rejections = []
    try:
        await ws.send(json.dumps({"type": "hello", "ref": "h", "protocol": 1, "board": board, "name": "Bob", "key": key}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 15))
        assert welcome["type"] == "welcome", welcome
        for n, op in enumerate(ops):
            await ws.send(json.dumps({"type": "submit", "ref": f"b{n}", "opId": f"bob-{n}", "base": welcome["head"], "op": op}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 15))
                if message["type"] in ("ack", "error"):
                    break
            if message["type"] == "error" or message["outcome"]["kind"] != "committed":
                rejections.append(message)
            await asyncio.sleep(0.06)  # inside the room's rate limit
    finally:
        await ws.close()
    return rejections


def title_of(item):
    """What a row calls an item: a card's name, a note's first line."""
    for rep in item["representations"]:
        if rep["type"] == "corkboard.card":
            return json.loads(rep["value"])["name"]
    for rep in item["representations"]:
        if rep["type"] == "public.plain-text":
            return rep["value"].split("\n")[0].strip()
    return None


def expected_rows(board):
    """(collection, section, title) of every card of the page's board, in order, the formula guarded."""
    rows = []
    for collection in board["collections"]:
        for section in collection["sections"]:
            for item in section.get("items", []):
                title = title_of(item)
                rows.append((collection["title"], section["title"], "'" + title if title[0] in "=+-@" else title))
    return rows


def item_count(board):
    def count(items):
        return sum(1 + count(item.get("children") or []) for item in items)
    return sum(count(section.get("items", [])) for c in board["collections"] for section in c["sections"])


def export(page, folder, choice, pattern):
    """Clicks Export, chooses `choice` and returns the path of the one file matching `pattern` once written."""
    for old in folder.iterdir():
        old.unlink()
    page.named("Export").click()
    page.menu_item(choice).click()
    found = wait_until(lambda: [p for p in folder.iterdir() if re.fullmatch(pattern, p.name)], timeout=15,
                       message=f"the {choice} download", describe=lambda: [p.name for p in folder.iterdir()])
    assert len(found) == 1, found
    # The name can appear before the bytes are all there: wait for a size that holds still.
    sizes = []
    wait_until(lambda: sizes.append(found[0].stat().st_size) or (len(sizes) > 2 and sizes[-1] > 0 and sizes[-1] == sizes[-2]),
               timeout=15, message=f"the {choice} download written", describe=lambda: sizes[-3:])
    return found[0]


def run(*args):
    return subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_export_csv_json_and_markdown_for_an_editor_and_a_viewer(downloads, server, tmp_path):
    driver, folder = downloads
    board = create_board(server.port, "Trip plan")
    bid = board["id"]
    edit_key = board["edit"].split("key=")[1].split("&")[0]
    view_key = board["view"].split("key=")[1].split("&")[0]
    cards = [f"{bid}-gc1", f"{bid}-gc2", f"{bid}-gc3"]
    assert asyncio.run(bob_edits(server.port, bid, edit_key, cards)) == []

    ada = Page(driver, server.port, "Ada")
    driver.get_log("browser")
    driver.get(board["edit"].replace("localhost", "127.0.0.1") + "&name=Ada")
    ada.wait_live()
    wait_until(lambda: ada.js("return [...document.querySelectorAll('.card-title')].some(t => t.textContent === arguments[0])", FORMULA),
               message="Bob's card on Ada's board")
    day = ada.js("const d = new Date(); return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`")
    page_board = ada.js("return window.corkboard.replica.confirmed.toJSON()")
    seq = ada.js("return window.corkboard.replica.confirmedSeq")

    # The menu: a button named Export that opens three formats; axe finds nothing serious.
    button = ada.named("Export")
    assert button.get_attribute("aria-haspopup") == "menu" and button.get_attribute("aria-expanded") == "false"
    button.click()
    items = wait_until(lambda: ada.js("return [...document.querySelectorAll('.menu [role=menuitem]')].map(b => b.textContent)"),
                       message="the Export menu")
    assert items == ["JSON (for corkboard import)", "CSV (spreadsheet)", "Markdown"]
    assert button.get_attribute("aria-expanded") == "true"
    ada.js(axe_script())
    violations = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run({include: [['.topbar'], ['.menu']]}).then(r => done(r.violations"
        ".filter(v => ['serious', 'critical'].includes(v.impact)).map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(' '))}))));")
    assert violations == []
    ada.shot("export-menu.png")
    ada.js("document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))")
    wait_until(lambda: ada.js("return !document.querySelector('.menu')"), message="the menu closed")

    # CSV: a BOM, the header, one row per card with Bob's labels, assignees and comment counts.
    path = export(ada, folder, "CSV (spreadsheet)", rf"trip-plan-{day}\.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), raw[:10]
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert rows[0][:9] == ["Collection", "Section", "Title", "Text", "Labels", "Due", "Assignees", "Checklist", "Comments"]
    body = rows[1:]
    assert [tuple(r[:3]) for r in body] == expected_rows(page_board)
    by_title = {r[2]: r for r in body}
    first = by_title[title_of(next(i for s in page_board["collections"][0]["sections"] for i in s["items"] if i["id"] == cards[0]))]
    assert (first[4], first[5], first[6], first[7], first[8]) == ("Urgent; Later, maybe", "2026-12-07T10:30:00.000Z", "Ada; Bob", "", "2")
    assert first[10] == "Bring **tweezers**\n- and a pen"
    formula = by_title["'" + FORMULA]
    assert formula[1] == "Found" and formula[3] == "a, \"b\"\nc" and formula[8] == "0"
    assert sorted(r[8] for r in body if r[8] != "0") == ["1", "2"]
    assert [r[9] for r in body].count("yes") == 1

    # JSON: the archive `corkboard import` takes into a fresh data folder, with the same items.
    path = export(ada, folder, "JSON (for corkboard import)", rf"trip-plan-{day}\.corkboard\.json")
    text = path.read_text()
    assert edit_key not in text and view_key not in text, "the board's keys stay out of the export"
    archive = json.loads(text)
    assert (archive["format"], archive["version"], archive["board"]["id"], archive["board"]["title"]) == ("corkboard.board", 1, bid, "Trip plan")
    keys = archive["board"]["keys"]
    assert re.fullmatch(r"e-[0-9a-f]{32}", keys["edit"]) and re.fullmatch(r"v-[0-9a-f]{32}", keys["view"]) and keys["isOpen"] is False
    assert archive["snapshot"]["seq"] == seq and archive["snapshot"]["board"] == page_board
    fresh = tmp_path / "fresh"
    imported = run("import", path, "--data", fresh)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == f"imported {bid} at seq {seq} ({item_count(page_board)} items)"
    back = run("export", bid, "--data", fresh, "--output", "-")
    assert back.returncode == 0, back.stderr
    stored = json.loads(back.stdout)
    assert [[i["id"] for i in s.get("items", [])] for c in stored["snapshot"]["board"]["collections"] for s in c["sections"]] == \
        [[i["id"] for i in s.get("items", [])] for c in page_board["collections"] for s in c["sections"]]
    assert stored["snapshot"]["board"]["labels"] == page_board["labels"]
    stored_first = next(i for c in stored["snapshot"]["board"]["collections"] for s in c["sections"] for i in s.get("items", []) if i["id"] == cards[0])
    assert [c["text"] for c in stored_first["details"]["comments"]] == ["On it", "Done, \"mostly\""]
    assert run("check", "--data", fresh).returncode == 0

    # Markdown: the title, collections as ##, sections as ###, cards as task items.
    path = export(ada, folder, "Markdown", rf"trip-plan-{day}\.md")
    lines = path.read_text().split("\n")
    assert lines[0] == "# Trip plan"
    headings = [line for line in lines if line.startswith("##")]
    assert headings == [h for c in page_board["collections"] for h in
                        [f"## {c['title']}"] + [f"### {s['title']}" for s in c["sections"] if s["title"]]]
    assert any(line.startswith("- [x] **") for line in lines), "the done card is ticked"
    assert any("labels: Urgent, Later, maybe; due 2026-12-07T10:30:00.000Z; assigned to Ada, Bob; 2 comments" in line for line in lines)
    assert "  Bring **tweezers**" in lines

    # A viewer exports too, and never gets the keys; on a phone's width the button and its menu fit.
    driver.set_window_size(390, 844)
    driver.get(board["view"].replace("localhost", "127.0.0.1") + "&name=Ada")
    ada.wait_live()
    assert ada.js("return document.body.classList.contains('view-only')")
    ada.named("Export").click()
    wait_until(lambda: ada.js("return !!document.querySelector('.menu')"), message="the viewer's Export menu")
    assert ada.js("return [document.querySelector('.export-button'), document.querySelector('.menu')]"
                  ".every(n => { const r = n.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth && r.width > 0; })")
    ada.shot("export-menu-phone.png")
    ada.js("document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))")
    path = export(ada, folder, "CSV (spreadsheet)", rf"trip-plan-{day}\.csv")
    assert [tuple(r[:3]) for r in list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))[1:]] == expected_rows(page_board)
    path = export(ada, folder, "JSON (for corkboard import)", rf"trip-plan-{day}\.corkboard\.json")
    text = path.read_text()
    assert edit_key not in text and view_key not in text
    imported = run("import", path, "--data", fresh, "--id", "trip-copy")
    assert imported.returncode == 0, imported.stderr

    errors = console_errors(driver)
    driver.get("about:blank")
    assert not errors, f"errors in the browser console: {errors}"
