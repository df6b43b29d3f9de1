"""Offline that keeps its promises (issue 44), in real headless Chromium against `corkboard serve`
on a SQLite data folder (the board survives a restart).

1. Ada makes a change, the server stops, she makes two more ("Offline — 2 changes waiting"), the
   page is closed; the server starts again and the board is opened in a fresh page of the same
   browser profile: the same client resumes, the two changes are applied exactly once (Bob, another
   client, sees them and the seqs count three operations), and Ctrl+Z undoes the last one.
2. The board's share links are rotated while the page was away: the page reopens, says the link no
   longer works, shows the refused changes as text to copy (axe finds nothing serious in that
   dialog), forgets them, and is read-only.
3. Two tabs of one browser on one board are two clients; a reload of the first is itself again.

Reuses test_browser.py's browsers and pages.
"""

import subprocess

import pytest

from conftest import create_board_in, executable, serve_demo
from test_browser import RECONNECT_NOISE, Keys, Page, browsers, console_errors, wait_until  # noqa: F401
from test_card_details import axe_script

TO_FIND, FOUND = "trip-to-find", "trip-found"
BOARD = "trip"


class Board:
    """A board with keys in a data folder, served by `corkboard serve` that can stop and start again."""

    def __init__(self, data):
        self.data = data
        self.edit, self.view = create_board_in(data, BOARD, "--template", "demo", "--title", "Trip")
        self.server = serve_demo(data)
        self.port = self.server.port

    def stop(self):
        self.server.stop()

    def start(self):
        self.server = serve_demo(self.data, port=self.port)

    def url(self, name, key=None):
        return f"http://127.0.0.1:{self.port}/?board={BOARD}&key={key or self.edit}&name={name}"


@pytest.fixture
def board(tmp_path, browsers):
    for driver in browsers:
        driver.get_log("browser")
    b = Board(tmp_path / "data")
    yield b
    for driver in browsers:
        driver.get("about:blank")  # leave before the server stops; each server's port is its own storage origin
    b.stop()


def status(page):
    return page.js("return document.querySelector('.connection').textContent")


def stored_pending(page):
    return page.js("return Object.keys(localStorage).filter(k => k.startsWith('corkboard.offline.1:') && !k.endsWith('.claim'))"
                   ".map(k => JSON.parse(localStorage.getItem(k)).pending.length).reduce((a, b) => a + b, 0)")


def open_page(page, url):
    page.driver.get(url)
    page.wait_live(timeout=20)


def test_changes_made_offline_survive_the_page_and_apply_once_then_undo(board, browsers):
    ada, bob = Page(browsers[0], board.port, "Ada"), Page(browsers[1], board.port, "Bob")
    open_page(ada, board.url("Ada"))
    start_seq = ada.js("return window.corkboard.replica.confirmedSeq")
    client = ada.js("return window.corkboard.session.clientId")
    ada.drag("trip-gc1", ada.card("trip-gc9"), ada.left_half("trip-gc9"))
    wait_until(lambda: not ada.js("return window.corkboard.replica.pending.length"), message="the first change acknowledged")
    board.stop()
    wait_until(lambda: ada.js("return document.querySelector('.connection').dataset.state") == "reconnecting",
               message="Ada's page to notice the server is gone")
    ada.drag("trip-gc2", ada.section(FOUND), ada.after_last(FOUND))
    ada.drag("trip-gc3", ada.section(FOUND), ada.after_last(FOUND))
    wait_until(lambda: status(ada) == "Offline — 2 changes waiting", message="the offline status", describe=lambda: status(ada))
    assert stored_pending(ada) == 2, "kept in the browser the moment they were made"
    errors = console_errors(ada.driver, RECONNECT_NOISE)
    ada.driver.get("about:blank")  # the page is closed
    board.start()
    open_page(ada, board.url("Ada"))
    assert ada.js("return window.corkboard.session.clientId") == client, "the same client resumed"
    wait_until(lambda: not ada.js("return window.corkboard.replica.pending.length"), timeout=15,
               message="the stored changes resent and acknowledged")
    expected = ["trip-gc1", "trip-gc9", "trip-gc10", "trip-gc2", "trip-gc3"]
    open_page(bob, board.url("Bob"))
    assert bob.order(FOUND) == expected
    assert ada.order(FOUND) == expected
    # Exactly once: three operations in all, in both pages.
    seqs = [page.js("return window.corkboard.replica.confirmedSeq") for page in (ada, bob)]
    assert seqs == [start_seq + 3, start_seq + 3]
    assert stored_pending(ada) == 0
    # R13: the undo history of the client made before the reload is there.
    wait_until(lambda: ada.js("return !document.querySelector(`.board-actions [aria-label='Undo']`).disabled"), message="Undo enabled")
    ada.focus(".card[data-item='trip-gc1']")
    ada.chord(Keys.CONTROL, "z")
    wait_until(lambda: "trip-gc3" not in bob.order(FOUND) and "trip-gc3" in bob.order(TO_FIND), message="the undo of the last change for Bob",
               describe=lambda: (bob.order(FOUND), ada.events()[-4:]))
    assert bob.order(FOUND) == expected[:-1]
    errors += console_errors(ada.driver, RECONNECT_NOISE) + console_errors(bob.driver)
    assert not errors, errors


def test_rotated_links_refuse_the_kept_changes_which_stay_to_copy_and_the_page_is_read_only(board, browsers):
    ada = Page(browsers[0], board.port, "Ada")
    open_page(ada, board.url("Ada"))
    board.stop()
    wait_until(lambda: ada.js("return document.querySelector('.connection').dataset.state") == "reconnecting",
               message="Ada's page to notice the server is gone")
    title = ada.title("trip-gc4")
    ada.drag("trip-gc4", ada.section(FOUND), ada.after_last(FOUND))
    wait_until(lambda: status(ada) == "Offline — 1 change waiting", message="the offline status", describe=lambda: status(ada))
    ada.driver.get("about:blank")
    rotated = subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), "boards", "rotate-keys", BOARD, "--data", str(board.data)],
                             capture_output=True, text=True, timeout=60)
    assert rotated.returncode == 0, rotated.stderr
    board.start()
    ada.driver.get(board.url("Ada"))
    dialog = "dialog.dialog[open]"
    wait_until(lambda: ada.js("return document.querySelector(arguments[0] + ' h2')?.textContent", dialog) == "Changes not saved",
               timeout=20, message="the Changes not saved dialog")
    text = ada.js("return document.querySelector(arguments[0] + ' textarea').value", dialog)
    assert "Moved" in text and title in text, text
    banner = ada.js("return document.querySelector('.banner').textContent")
    assert "no longer works" in banner and "new link" in banner, banner
    assert ada.js("return document.querySelector('.banner').hidden") is False
    assert ada.js("return document.body.classList.contains('view-only') && !window.corkboard.session.canEdit")
    assert stored_pending(ada) == 0, "refused for good: forgotten"
    ada.js(axe_script())
    violations = ada.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document.querySelector(arguments[0])).then(r => done(r.violations.filter(v => "
        "['serious', 'critical'].includes(v.impact)).map(v => v.id)));", dialog)
    assert violations == []
    ada.named("Copy", ada.find(dialog)).click()
    wait_until(lambda: ada.js("return document.querySelector('.unsaved-copied').textContent") == "Copied.", message="copied")
    ada.named("Close", ada.find(dialog)).click()
    # Opened again: nothing left to refuse; this browser opened the board with the link before.
    ada.driver.get(board.url("Ada"))
    wait_until(lambda: "opened this board here before" in (ada.js("return document.querySelector('.banner').textContent") or ""), timeout=20,
               message="the wrong link's banner")
    assert not ada.js("return document.querySelector('dialog[open]')")


def test_two_tabs_are_two_clients_and_a_reload_is_the_same_client(board, browsers):
    ada = Page(browsers[0], board.port, "Ada")
    open_page(ada, board.url("Ada"))
    first = ada.js("return window.corkboard.session.clientId")
    home = ada.driver.current_window_handle
    ada.driver.switch_to.new_window("tab")
    try:
        open_page(ada, board.url("Ada"))
        second = ada.js("return window.corkboard.session.clientId")
        assert second and second != first
        ada.driver.close()
    finally:
        ada.driver.switch_to.window(home)
    assert ada.js("return window.corkboard.session.clientId") == first
    assert ada.js("return document.querySelector('.connection').dataset.state") == "open", "the first tab was not replaced"
    ada.driver.refresh()
    ada.wait_live(timeout=20)
    assert ada.js("return window.corkboard.session.clientId") == first
