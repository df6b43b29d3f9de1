"""Words that help, one colour and one name per person (issue 44), in real headless Chromium
against `corkboard serve` on a SQLite data folder, each situation produced for real.

1. A link without a key, a key cut short, a board that does not exist (with a key of the right
   shape): each says what happened and what to do, on the board page and on the start page's
   "Open a share link".
2. The links are rotated (`corkboard boards rotate-keys`) while Ada is on the board: her page says
   so at once and does not retry; opened again, the link "opened this board here before".
   The board is deleted (`corkboard boards delete`, then a restart): a browser that knew the link
   says "rotated, or deleted"; one that did not says the board does not exist (or was deleted).
3. The server refuses a board creation for now (429 with Retry-After): the start page says the
   server is busy and counts down to its own retry.
4. Ada keeps her colour on the board across visits (asked for in `hello.color`), and Bob sees it.
5. "Your name" on the board page changes the name Bob sees at once, and it is kept for next visits.

Reuses test_browser.py's browsers and pages.
"""

import subprocess

import pytest

from conftest import create_board_in, executable, serve_demo
from test_browser import Page, browsers, wait_until  # noqa: F401

BOARD = "trip"


class Board:
    """A board with keys in a data folder, served by `corkboard serve` that can stop and start again."""

    def __init__(self, data, *extra):
        self.data = data
        self.extra = extra
        self.edit, self.view = create_board_in(data, BOARD, "--template", "demo", "--title", "Trip")
        self.server = serve_demo(data, *extra)
        self.port = self.server.port

    def restart(self):
        self.server.stop()
        self.server = serve_demo(self.data, *self.extra, port=self.port)

    def boards(self, *args):
        done = subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), "boards", *args, "--data", str(self.data)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr

    def url(self, name, key=None, board=BOARD):
        link = f"http://127.0.0.1:{self.port}/?board={board}&name={name}"
        return link + (f"&key={key}" if key else "")


@pytest.fixture
def board(tmp_path, browsers):
    b = Board(tmp_path / "data")
    yield b
    for driver in browsers:
        driver.get("about:blank")  # leave before the server stops
    b.server.stop()


def banner(page):
    return page.js("const b = document.querySelector('.banner'); return b && !b.hidden ? b.textContent : ''") or ""


def wait_banner(page, words, timeout=20):
    return wait_until(lambda: words in banner(page) and banner(page), timeout=timeout, message=f"a banner saying {words!r}",
                      describe=lambda: banner(page))


def open_live(page, url):
    page.driver.get(url)
    page.wait_live(timeout=20)


def start_page_open(page, link):
    """Types `link` into the start page's "Open a share link" and returns what it says."""
    page.driver.get(f"http://127.0.0.1:{page.port}/")
    field = wait_until(lambda: page.js("return document.querySelector('input[type=url]')"), message="the share link field")
    field.send_keys(link)
    page.named("Open").click()
    return wait_until(lambda: page.js("return document.querySelector('.form-error').textContent"), timeout=20,
                      message="the start page's answer")


def test_each_refusal_says_what_happened_and_what_to_do(board, browsers):
    ada = Page(browsers[0], board.port, "Ada")
    cases = [
        (board.url("Ada"), "has no key"),
        (board.url("Ada", board.edit[:10]), "The key in this link is wrong"),
        (board.url("Ada", "e-" + "0" * 32, board="nowhere"), "does not exist (or was deleted)"),
    ]
    seen = set()
    for url, words in cases:
        ada.driver.get(url)
        text = wait_banner(ada, words)
        assert "Ask" in text or "Check" in text or "Copy" in text, text
        assert ada.js("return document.querySelector('.connection').dataset.state") == "closed", "no retry: it cannot help"
        seen.add(text)
        assert words in start_page_open(ada, url)
    assert len(seen) == len(cases)


def test_rotated_links_and_a_deleted_board_each_say_so(board, browsers):
    ada, bob = Page(browsers[0], board.port, "Ada"), Page(browsers[1], board.port, "Bob")
    open_live(ada, board.url("Ada", board.edit))
    board.boards("rotate-keys", BOARD)
    text = wait_banner(ada, "changed (rotated)")
    assert "new link" in text
    assert ada.js("return document.querySelector('.connection').dataset.state") == "closed"
    # Opened again with the old link: this browser knew it, so it was rotated or deleted.
    ada.driver.get(board.url("Ada", board.edit))
    wait_banner(ada, "opened this board here before")
    # Deleted: the new links worked here, then the board is gone after a restart.
    board.edit, board.view = new_keys(board)
    open_live(ada, board.url("Ada", board.edit))
    ada.driver.get("about:blank")
    board.boards("delete", BOARD)
    board.restart()
    ada.driver.get(board.url("Ada", board.edit))
    assert "rotated" in wait_banner(ada, "or the board was deleted. Ask the board's owner or an admin for the new link")
    bob.driver.get(board.url("Bob", board.edit))
    wait_banner(bob, "does not exist (or was deleted)")


def new_keys(board):
    listed = subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), "boards", "list", "--data", str(board.data)],
                            capture_output=True, text=True, timeout=60)
    edit = next(w for w in listed.stdout.replace("&", " ").replace("=", " ").split() if w.startswith("e-"))
    view = next(w for w in listed.stdout.replace("&", " ").replace("=", " ").split() if w.startswith("v-"))
    return edit, view


def test_a_busy_server_is_counted_down_and_retried(tmp_path, browsers):
    server = serve_demo(tmp_path / "data", "--board-creations-per-minute", "1")
    try:
        ada = Page(browsers[0], server.port, "Ada")
        ada.driver.get(f"http://127.0.0.1:{server.port}/")
        title = "input[aria-label='Title of the new board']"
        note = f"return document.querySelector(\"{title}\").form.nextElementSibling.textContent"
        field = ada.driver.find_element("css selector", title)
        wait_until(lambda: field.is_enabled(), message="board creation to be offered")
        field.send_keys("First")
        ada.js(f"document.querySelector(\"{title}\").form.requestSubmit()")
        wait_until(lambda: "Created" in (ada.js(note) or ""), timeout=20, message="the first board created",
                   describe=lambda: ada.js(note))
        field.clear()
        field.send_keys("Second")
        ada.js(f"document.querySelector(\"{title}\").form.requestSubmit()")
        first = wait_until(lambda: ada.js(note) if "busy" in (ada.js(note) or "") else None, timeout=20,
                           message="the busy countdown", describe=lambda: ada.js(note))
        assert "The server is busy; trying again in" in first, first
        seconds = int(first.split(" in ")[1].split(" ")[0])
        wait_until(lambda: "busy" in ada.js(note) and int(ada.js(note).split(" in ")[1].split(" ")[0]) < seconds, timeout=5,
                   message="the countdown to go down", describe=lambda: ada.js(note))
    finally:
        browsers[0].get("about:blank")
        server.stop()


def member_color(page, name):
    return page.js("return [...document.querySelectorAll('.members .member')].find(m => m.textContent === arguments[0])"
                   "?.style.getPropertyValue('--peer-color')", name)


def test_a_person_keeps_a_colour_and_changes_the_name_peers_see(board, browsers):
    ada, bob = Page(browsers[0], board.port, "Ada"), Page(browsers[1], board.port, "Bob")
    open_live(bob, board.url("Bob", board.edit))
    open_live(ada, board.url("Ada", board.edit))
    color = ada.js("return window.corkboard.session.me.color")
    assert color == ada.js("return localStorage.getItem('corkboard.color:trip')")
    wait_until(lambda: member_color(bob, "Ada") == color, message="Bob to see Ada's colour", describe=lambda: member_color(bob, "Ada"))
    # Both leave; Ada comes back first: in join order she would get another colour, she keeps hers.
    for page in (ada, bob):
        page.driver.get("about:blank")
    open_live(ada, board.url("Ada", board.edit))
    assert ada.js("return window.corkboard.session.me.color") == color
    open_live(bob, board.url("Bob", board.edit))
    wait_until(lambda: member_color(bob, "Ada") == color, message="Bob to see Ada's colour again")
    # "Your name" on the board page: Bob sees the new name at once; it is kept for next visits.
    ada.named("Your name: Ada. Change it").click()
    field = wait_until(lambda: ada.js("return document.querySelector('dialog[open] input')"), message="the name dialog")
    field.clear()
    field.send_keys("Ada Lovelace")
    ada.named("Save", ada.find("dialog[open]")).click()
    wait_until(lambda: member_color(bob, "Ada Lovelace") == color, timeout=15, message="Bob to see Ada's new name in her colour",
               describe=lambda: bob.js("return document.querySelector('.members').textContent"))
    assert ada.js("return localStorage.getItem('corkboard.name')") == "Ada Lovelace"
    ada.driver.refresh()
    ada.wait_live(timeout=20)
    assert ada.js("return window.corkboard.session.me.name") == "Ada Lovelace"
    assert ada.js("return window.corkboard.session.me.color") == color


def test_a_full_server_says_it_is_busy_counts_down_and_joins_when_there_is_room(tmp_path, browsers):
    """`--max-connections 1`: Ada holds the one WebSocket; Bob's page says the server is busy with a
    countdown, and joins by itself once Ada leaves."""
    server = serve_demo(tmp_path / "data", "--max-connections", "1")
    try:
        ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
        ada.open()
        bob.driver.get(f"http://127.0.0.1:{server.port}/?board=demo&name=Bob")
        text = wait_banner(bob, "The server is busy; trying again in")
        assert bob.js("return document.querySelector('.connection').dataset.state") == "reconnecting"
        seconds = int(text.split(" in ")[1].split(" ")[0])
        wait_until(lambda: "busy" in banner(bob) and int(banner(bob).split(" in ")[1].split(" ")[0]) < seconds, timeout=5,
                   message="the countdown to go down", describe=lambda: banner(bob))
        ada.driver.get("about:blank")
        bob.wait_live(timeout=30)
    finally:
        for driver in browsers:
            driver.get("about:blank")
        server.stop()
