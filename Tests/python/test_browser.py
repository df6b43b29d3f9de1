"""The browser client (web/) in real headless Chromium, driven by Selenium, against `corkboard serve --demo`.

Two independent browser sessions share the demo board; drags use real pointer input (W3C actions)
and real keys, drops from outside use synthetic DragEvents carrying a DataTransfer. Every test
fails on errors in either browser's console. A screenshot of a live remote drag is saved in
Tests/python/artifacts/ (gitignored).

Needs Debian's `chromium` and `chromium-driver` and pip's `selenium` (scripts/install-deps.sh --test).
Without chromium the tests are skipped locally and fail under CI (env CI set).
"""

import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import executable, serve_demo

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/lib/chromium/chromedriver" if os.path.exists("/usr/lib/chromium/chromedriver") else None
)
MISSING = [name for name, path in [("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER)] if not path]
try:
    import selenium  # noqa: F401
except ImportError:
    MISSING.append("selenium (pip)")

if MISSING:
    reason = f"{', '.join(MISSING)} missing: run scripts/install-deps.sh --test"
    if os.environ.get("CI"):
        # In CI a missing browser is a broken setup, never a silent skip.
        def test_browser_tooling_is_installed():
            pytest.fail(reason)
    else:
        pytest.skip(reason, allow_module_level=True)
else:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.keys import Keys

# A 2×2 red PNG.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a73"
        "0000001649444154789c63f8cfc0f09f8181818181e13f030003fe01ff2bd3b3b5"
        "0000000049454e44ae426082"
    )
).decode()

# Chromium's own lines for a WebSocket that cannot connect while the server is down, expected
# only in the restart test.
RECONNECT_NOISE = ("WebSocket connection to", "ERR_CONNECTION_REFUSED", "net::ERR_")


def new_browser():
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900",
                "--disable-gpu", "--disable-extensions", "--no-first-run"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def console_errors(driver, allowed=()):
    return [
        entry for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and not any(noise in entry["message"] for noise in allowed)
    ]


def wait_until(predicate, timeout=10.0, message="condition", describe=None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(0.05)
    detail = f"; state: {describe()}" if describe else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {message}; last value {last!r}{detail}")


class Page:
    """One browser session on a board."""

    def __init__(self, driver, port, name):
        self.driver = driver
        self.port = port
        self.name = name

    def open(self, board="demo"):
        self.driver.get(f"http://127.0.0.1:{self.port}/?board={board}&name={self.name}")
        self.wait_live()

    def wait_live(self, timeout=10.0):
        wait_until(
            lambda: self.js("return document.querySelector('.connection')?.dataset.state === 'open' "
                            "&& document.querySelectorAll('.card').length > 0"),
            timeout, f"{self.name} to be live on the board",
        )

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def rewrite_sent(self, when: str, change: str):
        """Tampers with what the page sends from now on: each outgoing message `m` for which the
        JavaScript condition `when` holds is changed by the JavaScript statements `change` on the wire,
        behind the page's back (to make the room refuse what the page thinks fine)."""
        self.js(
            """
            const send = WebSocket.prototype.send;
            WebSocket.prototype.send = function (data) {
              const m = JSON.parse(data);
              if (%s) {
                %s
                data = JSON.stringify(m);
              }
              return send.call(this, data);
            };
            """ % (when, change))

    def order(self, section):
        return self.js(
            "return [...document.querySelectorAll(`.items[data-section='${arguments[0]}'] > .card`)]"
            ".map(c => c.dataset.item)", section)

    def card(self, item):
        return self.driver.find_element("css selector", f".card[data-item='{item}']")

    def section(self, section):
        return self.driver.find_element("css selector", f".items[data-section='{section}']")

    def events(self, kind=None):
        events = self.js("return window.corkboard.events") or []
        return [e for e in events if kind is None or e.get("event") == kind]

    def has_class(self, css, cls):
        return self.js("const n = document.querySelector(arguments[0]); return !!n && n.classList.contains(arguments[1])",
                       css, cls)

    def settle(self):
        """Waits for running animations (cards sliding into place) so element centers are final."""
        wait_until(lambda: self.js("return document.getAnimations().filter(a => a.playState === 'running' "
                                   "&& a.effect?.target?.classList?.contains('card')).length === 0"),
                   message=f"{self.name}'s cards to settle")

    def lift(self, item, to=None, offset=(0, 0)):
        """Presses on a card and moves the pointer (a real pointer drag) without releasing."""
        self.settle()
        actions = ActionChains(self.driver, duration=60)
        actions.move_to_element(self.card(item)).click_and_hold().move_by_offset(12, 6).pause(0.1)
        if to is not None:
            actions.move_to_element_with_offset(to, *offset).pause(0.1).move_by_offset(1, 1).pause(0.15)
        actions.perform()

    def move_to(self, element, offset=(0, 0)):
        self.settle()  # aim at where the element is, not where a running animation shows it
        ActionChains(self.driver, duration=60).move_to_element_with_offset(element, *offset).pause(0.1) \
            .move_by_offset(1, 0).pause(0.15).perform()

    def release(self):
        ActionChains(self.driver, duration=60).release().perform()

    def onto_into_label(self):
        """Moves the lifted card's pointer onto the "Drop into" label (shown over a card's middle) and holds it there."""
        x, y = wait_until(lambda: self.js("const z = document.querySelector('.into-zone'); if (!z) return null;"
                                          "const r = z.getBoundingClientRect(); return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]"),
                          message="the Drop into label")
        builder = ActionBuilder(self.driver, duration=60)
        builder.pointer_action.move_to_location(x, y).pause(0.1).move_to_location(x + 1, y).pause(0.15)
        builder.perform()

    def drag(self, item, to, offset=(0, 0)):
        self.lift(item, to, offset)
        self.release()

    def after_last(self, section):
        """An offset from the section list's center to just below its last card."""
        size = self.section(section).size
        return (0, size["height"] // 2 - 6)

    def left_half(self, item):
        return (-self.card(item).size["width"] // 4, 0)

    def synthetic_drop(self, section, kind, payload):
        """Dispatches dragenter, dragover and drop with a DataTransfer over the end of a section."""
        self.js(
            """
            const [section, kind, payload] = arguments;
            const list = document.querySelector(`.items[data-section='${section}']`);
            const r = list.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.bottom - 4;
            const dt = new DataTransfer();
            if (kind === 'text') dt.setData('text/plain', payload);
            else if (kind === 'data') for (const [type, value] of Object.entries(payload)) dt.setData(type, value);
            else {
              const bytes = Uint8Array.from(atob(payload), c => c.charCodeAt(0));
              dt.items.add(new File([bytes], 'red.png', {type: 'image/png'}));
            }
            for (const type of ['dragenter', 'dragover', 'drop']) {
              const target = document.elementFromPoint(x, y);
              target.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: dt}));
            }
            """,
            section, kind, payload,
        )

    def center(self, item, dx=0.0):
        """The viewport point at a card's center, moved by `dx` card widths."""
        self.settle()
        r = self.js("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", self.card(item))
        return int(r[0] + r[2] * (0.5 + dx)), int(r[1] + r[3] / 2)

    def touch(self, fingers):
        """Runs touch gestures tick by tick: `fingers` is a list of per-finger step lists, each step
        ("move", (x, y)), ("down",), ("up",) or ("pause", seconds); shorter lists wait."""
        builder = ActionBuilder(self.driver)
        sources = [builder.add_pointer_input(interaction.POINTER_TOUCH, f"finger{n}") for n in range(len(fingers))]
        for tick in range(max(len(steps) for steps in fingers)):
            longest = max((steps[tick][1] for steps in fingers if tick < len(steps) and steps[tick][0] == "pause"), default=0)
            for source, steps in zip(sources, fingers):
                step = steps[tick] if tick < len(steps) else ("pause", longest)
                if step[0] == "move":
                    source.create_pointer_move(x=step[1][0], y=step[1][1], duration=50)
                elif step[0] == "down":
                    source.create_pointer_down(button=0)
                elif step[0] == "up":
                    source.create_pointer_up(button=0)
                else:
                    source.create_pause(step[1])
        builder.perform()

    def find(self, css, within=None):
        return (within or self.driver).find_element("css selector", css)

    def named(self, name, within=None):
        """The control whose accessible name (aria-label, else its text) is `name`, first in document order."""
        scope = within or self.driver
        for node in scope.find_elements("css selector", f"[aria-label='{name}']"):
            if node.is_displayed():
                return node
        return self.js("return [...(arguments[1] || document).querySelectorAll('button, [role=menuitem]')]"
                       ".find(b => b.textContent.trim() === arguments[0] && b.offsetParent !== null)", name, within)

    def menu_item(self, name):
        return wait_until(lambda: self.js("return [...document.querySelectorAll('.menu [role=menuitem]')]"
                                          ".find(b => b.textContent === arguments[0])", name),
                          message=f"the menu item {name!r}")

    def card_menu(self, item):
        """Opens a card's ⋯ menu with the pointer (it shows on hover)."""
        card = self.card(item)
        button = self.find(".card-menu-button", card)
        ActionChains(self.driver, duration=60).move_to_element(card).pause(0.1).move_to_element(button).click().perform()
        wait_until(lambda: self.js("return !!document.querySelector('.menu')"), message="the card menu")

    def collection_menu(self, collection):
        self.find(f".collection[data-collection='{collection}'] .collection-menu-button").click()
        wait_until(lambda: self.js("return !!document.querySelector('.menu')"), message="the collection menu")

    def title(self, item):
        return self.js("return document.querySelector(`.card[data-item='${arguments[0]}'] .card-title`)?.textContent", item)

    def type(self, *keys):
        ActionChains(self.driver).send_keys(*keys).perform()

    def chord(self, modifier, key):
        ActionChains(self.driver).key_down(modifier).send_keys(key).key_up(modifier).perform()

    def retype(self, text, *then):
        """Replaces the focused field's text (Ctrl+A, then typing)."""
        self.chord(Keys.CONTROL, "a")
        self.type(text, *then)

    def focus(self, css):
        self.js("document.querySelector(arguments[0]).focus()", css)

    def toasts(self):
        return self.js("return document.querySelector('.toasts').textContent")

    def applied(self, kind):
        return [e for e in self.events("applied") if e["kind"] == kind]

    def shot(self, name):
        ARTIFACTS.mkdir(exist_ok=True)
        self.driver.save_screenshot(str(ARTIFACTS / name))

    def watch_placeholders(self):
        """Records every placeholder card element that enters the page from now on."""
        self.js(
            """
            window.__placeholders = [];
            new MutationObserver(records => {
              for (const r of records) {
                const nodes = r.type === 'attributes' ? [r.target] : [...r.addedNodes];
                for (const n of nodes) if (n.classList?.contains('placeholder')) window.__placeholders.push(n.dataset.item);
              }
            }).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
            """
        )

    def placeholders_seen(self):
        return self.js("return window.__placeholders")


@pytest.fixture(scope="module")
def browsers():
    first = new_browser()
    try:
        second = new_browser()
    except Exception:
        first.quit()
        raise
    yield first, second
    first.quit()
    second.quit()


@pytest.fixture
def server(tmp_path):
    proc = serve_demo(tmp_path / "data")
    yield proc
    proc.stop()


@pytest.fixture
def pair(browsers, server, request):
    """Ada and Bob on the demo board of a fresh server; fails the test on console errors."""
    ada = Page(browsers[0], server.port, "Ada")
    bob = Page(browsers[1], server.port, "Bob")
    for page in (ada, bob):
        page.driver.get_log("browser")  # drop what earlier tests left
    ada.open()
    bob.open()
    wait_until(lambda: ada.js("return document.querySelectorAll('.member').length") == 2, message="two members")
    yield ada, bob
    allowed = RECONNECT_NOISE if "server_restart" in request.node.name or "stalled" in request.node.name else ()
    errors = {page.name: console_errors(page.driver, allowed) for page in (ada, bob)}
    for page in (ada, bob):
        page.driver.get("about:blank")  # leave before the server stops, so nothing reconnects
    assert not any(errors.values()), f"errors in the browser console: {errors}"


TO_FIND, FOUND, INBOX = "demo-to-find", "demo-found", "demo-inbox"


def test_remote_lift_and_gap_show_before_the_drop_then_the_move(pair):
    ada, bob = pair
    ada.lift("demo-gc1", to=ada.card("demo-gc9"), offset=ada.left_half("demo-gc9"))
    # Bob sees Ada's lift (dimmed card with her name) and her gap in Found, before any drop.
    wait_until(lambda: bob.has_class(".card[data-item='demo-gc1']", "remote-lifted"), message="remote lift in Bob's page")
    assert bob.js("return document.querySelector(\".card[data-item='demo-gc1']\").dataset.peer") == "Ada"
    marker = wait_until(
        lambda: bob.js("const m = document.querySelector(\".items[data-section='demo-found'] > .remote-gap\");"
                       "return m && {name: m.textContent, forbidden: m.classList.contains('forbidden')}"),
        message="Ada's gap in Bob's Found list",
    )
    assert marker["name"].startswith("Ada") and not marker["forbidden"]
    assert bob.order(FOUND) == ["demo-gc9", "demo-gc10"], "nothing moves before the drop"
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "remote-drag.png"
    bob.driver.save_screenshot(str(shot))
    print(f"screenshot of a live remote drag: {shot}")
    # Ada's own page shows the gap where the card would land.
    assert ada.js("return !!document.querySelector(\".items[data-section='demo-found'] > .gap\")")
    ada.release()
    assert ada.order(FOUND) == ["demo-gc1", "demo-gc9", "demo-gc10"], "the dropper sees the move at once"
    wait_until(lambda: bob.order(FOUND) == ["demo-gc1", "demo-gc9", "demo-gc10"], message="the move in Bob's page")
    wait_until(lambda: not bob.js("return document.querySelector('.remote-lifted, .remote-gap')"),
               message="the remote drag to end in Bob's page")
    assert "demo-gc1" not in bob.order(TO_FIND)


def test_reorder_within_a_collection(pair):
    ada, bob = pair
    ada.drag("demo-gc1", ada.card("demo-gc4"), ada.left_half("demo-gc4"))
    expected = ["demo-gc2", "demo-gc3", "demo-gc1", "demo-gc4", "demo-gc5", "demo-gc6", "demo-gc7", "demo-gc8"]
    assert ada.order(TO_FIND) == expected
    wait_until(lambda: bob.order(TO_FIND) == expected, message="Bob to see the reorder")
    wait_until(lambda: not ada.js("return window.corkboard.replica.pending.length"), message="the drop to be acknowledged")
    assert ada.order(TO_FIND) == expected


def test_move_between_collections_lands_at_the_end(pair):
    ada, bob = pair
    ada.drag("demo-gc3", ada.section(FOUND), ada.after_last(FOUND))
    assert ada.order(FOUND) == ["demo-gc9", "demo-gc10", "demo-gc3"]
    wait_until(lambda: bob.order(FOUND) == ["demo-gc9", "demo-gc10", "demo-gc3"], message="the move in Bob's page")
    assert "demo-gc3" not in bob.order(TO_FIND)
    # Bob drags it back: both pages agree again.
    bob.drag("demo-gc3", bob.card("demo-gc4"), bob.left_half("demo-gc4"))
    expected = ["demo-gc1", "demo-gc2", "demo-gc3", "demo-gc4", "demo-gc5", "demo-gc6", "demo-gc7", "demo-gc8"]
    wait_until(lambda: ada.order(TO_FIND) == expected and bob.order(TO_FIND) == expected, message="both pages to agree",
               describe=lambda: (ada.order(TO_FIND), bob.order(TO_FIND), bob.events()[-3:]))


def test_escape_cancels_a_pointer_drag_and_the_card_flies_home(pair):
    ada, bob = pair
    ada.lift("demo-gc1", to=ada.card("demo-gc9"), offset=ada.left_half("demo-gc9"))
    wait_until(lambda: bob.has_class(".card[data-item='demo-gc1']", "remote-lifted"), message="Bob to see the lift")
    ActionChains(ada.driver).send_keys(Keys.ESCAPE).perform()
    assert ada.js("return document.querySelector('.ghost.flying') !== null"), "the ghost flies back"
    ada.release()
    assert ada.order(TO_FIND)[0] == "demo-gc1" and ada.order(FOUND) == ["demo-gc9", "demo-gc10"]
    assert ada.events("cancel") and not ada.events("drop")
    wait_until(lambda: not bob.js("return document.querySelector('.remote-lifted, .remote-gap')"), message="the cancel in Bob's page")
    wait_until(lambda: not ada.js("return document.querySelector('.ghost')"), message="the ghost to land")


def test_holding_over_a_card_drops_into_it_making_a_group(pair):
    ada, bob = pair
    ada.lift("demo-gc2", to=ada.card("demo-gc3"))
    ada.move_to(ada.card("demo-gc3"))  # over the middle of the card: the Drop into label shows
    ada.onto_into_label()
    wait_until(lambda: ada.has_class(".card[data-item='demo-gc3']", "into-target"), message="the drop-into highlight")
    wait_until(lambda: bob.has_class(".card[data-item='demo-gc3']", "remote-target"), message="Bob to see the target")
    ada.release()
    for page in (ada, bob):
        wait_until(lambda: page.js("return window.corkboard.board.item('demo-gc3').children?.map(c => c.id)") == ["demo-gc2"],
                   message=f"the group in {page.name}'s replica")
        assert "demo-gc2" not in page.order(TO_FIND)
        wait_until(lambda: page.has_class(".card[data-item='demo-gc3']", "group"), message=f"the group card in {page.name}'s page")


def test_multi_item_drag_lands_together_in_drag_order(pair):
    ada, bob = pair
    ActionChains(ada.driver).key_down(Keys.CONTROL).click(ada.card("demo-gc5")).click(ada.card("demo-gc2")) \
        .key_up(Keys.CONTROL).perform()
    assert ada.js("return window.corkboard.selection") == ["demo-gc5", "demo-gc2"]
    ada.lift("demo-gc2", to=ada.card("demo-gc9"), offset=ada.left_half("demo-gc9"))
    assert ada.js("return document.querySelector('.ghost .count-badge').textContent") == "2"
    wait_until(lambda: bob.has_class(".card[data-item='demo-gc5']", "remote-lifted")
               and bob.has_class(".card[data-item='demo-gc2']", "remote-lifted"), message="both cards lifted for Bob")
    ada.release()
    expected = ["demo-gc5", "demo-gc2", "demo-gc9", "demo-gc10"]
    assert ada.order(FOUND) == expected
    wait_until(lambda: bob.order(FOUND) == expected, message="Bob to see both cards land together")


def test_touch_long_press_drag_with_a_second_finger_adding_a_card(pair):
    ada, bob = pair
    start = ada.center("demo-gc1")
    other = ada.center("demo-gc3")
    drop_at = ada.center("demo-gc10", dx=-0.25)
    ada.touch([
        [("move", start), ("down",), ("pause", 0.45), ("move", (start[0] + 20, start[1] + 12)), ("pause", 0.1),
         ("pause", 0), ("pause", 0), ("pause", 0.1), ("move", drop_at), ("pause", 0.3), ("up",)],
        [("pause", 0), ("pause", 0), ("pause", 0.45), ("pause", 0), ("pause", 0.1),
         ("move", other), ("down",), ("up",)],
    ])
    expected = ["demo-gc9", "demo-gc1", "demo-gc3", "demo-gc10"]
    # Touch input is dispatched asynchronously by the driver: wait for the drop instead of asserting at once.
    wait_until(lambda: ada.order(FOUND) == expected, message="the touch drop", describe=lambda: ada.events()[-4:])
    wait_until(lambda: bob.order(FOUND) == expected, message="Bob to see the touch drop")


def test_touch_swipe_without_a_long_press_does_not_drag(pair):
    ada, _ = pair
    start = ada.center("demo-gc1")
    ada.touch([[("move", start), ("down",), ("move", (start[0], start[1] - 60)), ("up",)]])
    time.sleep(0.4)
    assert not ada.events("lift")
    assert ada.order(TO_FIND)[0] == "demo-gc1"


def test_keyboard_lift_move_drop_and_cancel(pair):
    ada, bob = pair
    ada.js("document.querySelector(\".card[data-item='demo-gc1']\").focus()")
    live = lambda: ada.js("return window.corkboard.lastAnnouncement")  # noqa: E731
    ActionChains(ada.driver).send_keys(Keys.SPACE).perform()
    wait_until(lambda: "Lifted “Old Mill Wheel”. Position 1 of 8 in To find." in (live() or ""), message="the lift announcement")
    wait_until(lambda: bob.has_class(".card[data-item='demo-gc1']", "remote-lifted"), message="Bob to see the keyboard lift")
    ActionChains(ada.driver).send_keys(Keys.ARROW_DOWN).perform()
    wait_until(lambda: (live() or "").startswith("Position 2 of 8 in To find."), message="the step announcement")
    ActionChains(ada.driver).send_keys(Keys.ARROW_RIGHT).perform()
    wait_until(lambda: (live() or "").startswith("Position 2 of 3 in Found."), message="the move to Found")
    wait_until(lambda: bob.js("return !!document.querySelector(\".items[data-section='demo-found'] > .remote-gap\")"),
               message="Bob to see the keyboard gap in Found")
    ActionChains(ada.driver).send_keys(Keys.SPACE).perform()
    assert ada.order(FOUND) == ["demo-gc9", "demo-gc1", "demo-gc10"]
    wait_until(lambda: (live() or "").startswith("Dropped “Old Mill Wheel”. Position 2 of 3 in Found."), message="the drop announcement")
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc1", "focus follows the dropped card"
    wait_until(lambda: bob.order(FOUND) == ["demo-gc9", "demo-gc1", "demo-gc10"], message="Bob to see the keyboard drop")
    # Lift again, move, and cancel with Escape: nothing changes.
    ActionChains(ada.driver).send_keys(Keys.SPACE).send_keys(Keys.ARROW_LEFT).perform()
    wait_until(lambda: "in To find" in (live() or ""), message="the move back to To find")
    ActionChains(ada.driver).send_keys(Keys.ESCAPE).perform()
    wait_until(lambda: (live() or "").startswith("Cancelled. “Old Mill Wheel” is back at position 2 in Found."),
               message="the cancel announcement")
    assert ada.order(FOUND) == ["demo-gc9", "demo-gc1", "demo-gc10"]
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc1"
    wait_until(lambda: not bob.js("return document.querySelector('.remote-lifted')"), message="the cancel in Bob's page")


def test_forbidden_drop_is_shown_while_hovering_and_the_card_goes_home(pair):
    ada, bob = pair
    # The inbox note is plain text; Geocaches accepts only corkboard.card.
    ada.lift("demo-note1", to=ada.card("demo-gc2"), offset=ada.left_half("demo-gc2"))
    wait_until(lambda: ada.js("return document.body.classList.contains('drop-forbidden')"), message="the forbidden cursor")
    assert ada.has_class(".items[data-section='demo-to-find'] > .gap", "forbidden")
    assert ada.has_class(".ghost", "forbidden")
    # The room's proposal agrees, and Bob sees Ada's hover drawn as forbidden.
    wait_until(lambda: ada.js("return window.corkboard.drag?.serverProposal?.operation") == "forbidden",
               message="the room's forbidden proposal")
    wait_until(lambda: bob.js("return document.querySelector(\".items[data-section='demo-to-find'] > .remote-gap.forbidden\") !== null"),
               message="Bob to see the forbidden hover")
    ada.release()
    assert ada.order(INBOX) == ["demo-note1"]
    assert "demo-note1" not in ada.order(TO_FIND)
    assert ada.js("return !document.querySelector('.card[data-item=\"demo-note1\"]').hidden")
    # The reason in people's words (issue 16): the collection's name and what it takes, no type identifier.
    toasts = wait_until(lambda: (lambda t: "“Geocaches” takes only cards." in t and t)(ada.js("return document.querySelector('.toasts').textContent")),
                        message="a message saying why")
    assert "corkboard.card" not in toasts
    assert bob.order(INBOX) == ["demo-note1"]


def test_drop_refused_by_the_room_goes_back_with_its_reason(pair):
    ada, bob = pair
    # The room refuses what it cannot apply; to make it refuse a drop the page thinks fine, the
    # outgoing drop is redirected on the wire to a section that does not exist.
    ada.rewrite_sent("m.type === 'drop'",
                     "m.destination = {collection: 'demo-found', section: 'demo-nowhere', index: 0, "
                     "intent: m.destination.intent};")
    ada.drag("demo-gc1", ada.card("demo-gc9"), ada.left_half("demo-gc9"))
    assert ada.events("drop")[0]["destination"]["section"] == FOUND
    wait_until(lambda: ada.order(TO_FIND)[0] == "demo-gc1" and ada.order(FOUND) == ["demo-gc9", "demo-gc10"],
               message="the card to go back home")
    # The room's reason in people's words (issue 16): the card's title, never the section's id.
    toasts = wait_until(lambda: (lambda t: "“Old Mill Wheel” could not be placed: the collection or section it was going to was deleted"
                                 in t and t)(ada.js("return document.querySelector('.toasts').textContent")),
                        message="the room's reason")
    assert "demo-nowhere" not in toasts
    assert ada.events("rejected")[0]["code"] == "destination-gone"
    time.sleep(0.2)
    assert bob.order(FOUND) == ["demo-gc9", "demo-gc10"] and bob.order(TO_FIND)[0] == "demo-gc1"


def test_card_leased_by_another_drag_is_refused_and_stays_home(pair):
    ada, bob = pair
    bob.lift("demo-gc4", to=bob.card("demo-gc9"), offset=bob.left_half("demo-gc9"))
    wait_until(lambda: ada.has_class(".card[data-item='demo-gc4']", "remote-lifted"), message="Bob's lift in Ada's page")
    ada.lift("demo-gc4", to=ada.section(FOUND), offset=ada.after_last(FOUND))
    wait_until(lambda: "Bob" in ada.js("return document.querySelector('.toasts').textContent"),
               message="the refusal naming the holder")
    ada.release()
    assert "demo-gc4" in ada.order(TO_FIND)
    bob.release()
    wait_until(lambda: ada.order(FOUND) == ["demo-gc4", "demo-gc9", "demo-gc10"], message="Bob's drop to win")
    assert bob.order(FOUND) == ["demo-gc4", "demo-gc9", "demo-gc10"]


def test_drop_from_outside_text_and_image_become_placeholders_then_cards_everywhere(pair):
    ada, bob = pair
    for page in (ada, bob):
        page.watch_placeholders()
    ada.synthetic_drop(INBOX, "text", "Bring a flashlight")
    text_item = wait_until(lambda: next((e["items"][0] for e in ada.events("placeholders")), None), message="the placeholder")
    for page in (ada, bob):
        wait_until(lambda: text_item in page.order(INBOX) and
                   page.js("return !document.querySelector(`.card[data-item='${arguments[0]}']`).classList.contains('placeholder')", text_item),
                   message=f"the text card in {page.name}'s page")
        assert text_item in page.placeholders_seen(), f"{page.name} saw no placeholder"
        assert page.js("return document.querySelector(`.card[data-item='${arguments[0]}'] .card-text`).textContent", text_item) == "Bring a flashlight"
        kinds = [e["kind"] for e in page.events("applied") if e["item"] == text_item]
        assert kinds == ["insertPlaceholder", "commitPlaceholder"]
    assert ada.order(INBOX) == ["demo-note1", text_item]

    # The server advertises uploads (/healthz uploadMaxBytes): the image goes through
    # POST /api/boards/demo/files and the card carries the URL it answers, not a data: URL.
    assert ada.js("return window.corkboard.capabilities.uploadMaxBytes") == 10 * 1024 * 1024
    ada.synthetic_drop(INBOX, "image", PNG)
    image_item = wait_until(lambda: next((e["items"][0] for e in ada.events("placeholders")[1:]), None), message="the image placeholder")
    digest = hashlib.sha256(base64.b64decode(PNG)).hexdigest()
    for page in (ada, bob):
        src = wait_until(lambda: page.js("return document.querySelector(`.card[data-item='${arguments[0]}'] img`)?.src", image_item),
                         message=f"the image card in {page.name}'s page")
        assert src == f"http://127.0.0.1:{page.port}/files/demo/{digest}.png"
        stored = page.js("return window.corkboard.board.item(arguments[0]).representations"
                         ".find(r => r.type === 'public.image').value", image_item)
        assert stored == f"/files/demo/{digest}.png", "the card keeps the server-relative URL"
        assert image_item in page.placeholders_seen()
        assert page.order(INBOX) == ["demo-note1", text_item, image_item]
        # The image really decodes.
        wait_until(lambda: page.js("const i = document.querySelector(`.card[data-item='${arguments[0]}'] img`); return i.complete && i.naturalWidth === 2", image_item),
                   message="the image to decode")


def test_new_board_from_the_start_page_opens_with_its_edit_and_view_links(browsers, server):
    ada_driver, bob_driver = browsers
    for driver in browsers:
        driver.get_log("browser")
    try:
        ada_driver.get(f"http://127.0.0.1:{server.port}/")
        ada = Page(ada_driver, server.port, "Ada")
        title = ada_driver.find_element("css selector", "input[aria-label='Title of the new board']")
        wait_until(lambda: title.is_enabled(), message="board creation to be offered (healthz boardCreation)")
        # Issue 16: no note that the browser cannot create boards, now that it can.
        assert ada.js("return document.querySelector(\"input[aria-label='Title of the new board']\").form.nextElementSibling.textContent") == ""
        title.send_keys("Weekend hike")
        ada.js("document.querySelector(\"input[aria-label='Title of the new board']\").form.requestSubmit()")
        links = wait_until(lambda: ada.js("return [...document.querySelectorAll('.share-link a')].map(a => a.href)"),
                           message="the share links of the new board")
        # R17: four links, the admin link (the creator's) first.
        admin, edit, comment, view = links
        assert "key=a-" in admin and "key=e-" in edit and "key=c-" in comment and "key=v-" in view
        board = re.search(r"board=([a-z0-9-]+)", edit).group(1)
        assert board.startswith("weekend-hike-")
        remembered = ada.js("return [...document.querySelectorAll('.board-entry a')].map(a => a.textContent)")
        assert "Weekend hike" in remembered
        assert ada.js("return JSON.parse(localStorage.getItem('corkboard.boards') || '[]')[0]?.role") == "admin"
        # The admin link opens the (empty) board as an admin, the edit link as an editor, the
        # comment link as a commenter, the view link as a viewer.
        for driver, link, role in ((ada_driver, admin, "admin"), (ada_driver, edit, "editor"),
                                   (bob_driver, comment, "commenter"), (bob_driver, view, "viewer")):
            driver.get(link)
            page = Page(driver, server.port, "x")
            wait_until(lambda: page.js("return document.querySelector('.connection')?.dataset.state === 'open' "
                                       "&& window.corkboard.me?.role"), message="the new board to be live")
            assert page.js("return window.corkboard.me.role") == role
            assert page.js("return document.querySelector('.board-title').textContent") == "Weekend hike"
            assert page.js("return document.querySelector('.role-badge').hidden") is (role in ("admin", "editor"))
        errors = {d.session_id: console_errors(d) for d in browsers}
        assert not any(errors.values()), f"errors in the browser console: {errors}"
    finally:
        for driver in browsers:
            driver.get("about:blank")


def test_drop_from_outside_is_forbidden_where_the_collection_does_not_take_it(pair):
    ada, bob = pair
    ada.synthetic_drop(TO_FIND, "text", "not a card")
    assert not ada.events("placeholders")
    assert ada.order(TO_FIND) == [f"demo-gc{n}" for n in range(1, 9)]
    wait_until(lambda: not ada.js("return window.corkboard.drag"), message="the external drag to end")


def test_auto_scroll_near_the_edge_while_dragging(pair):
    ada, _ = pair
    ada.driver.set_window_size(760, 600)
    try:
        ada.settle()
        board = ada.driver.find_element("css selector", ".board")
        assert ada.js("return arguments[0].scrollLeft", board) == 0
        width = board.size["width"]
        ada.lift("demo-gc1", to=board, offset=(width // 2 - 6, 0))
        wait_until(lambda: ada.js("return arguments[0].scrollLeft", board) > 100, message="the board to scroll right")
        ActionChains(ada.driver).send_keys(Keys.ESCAPE).perform()
        ada.release()
        assert ada.order(TO_FIND)[0] == "demo-gc1"
    finally:
        ada.driver.set_window_size(1400, 900)


def test_drag_out_carries_text_and_moves_to_another_board_in_another_tab(browsers, tmp_path):
    data = tmp_path / "data"
    created = subprocess.run(
        [executable("CORKBOARD_BIN", "corkboard"), "boards", "create", "other", "--title", "Other board",
         "--template", "demo", "--data", data], capture_output=True, text=True, timeout=20, check=True)
    other_key = re.search(r"board=other&key=(e-[0-9a-f]+)", created.stdout).group(1)
    proc = serve_demo(data)
    driver = browsers[0]
    first = driver.current_window_handle
    try:
        driver.get_log("browser")
        demo = Page(driver, proc.port, "Ada")
        demo.open()
        # Drag out from the demo board: plain text for other apps, and the Corkboard type.
        carried = demo.js(
            """
            const grip = document.querySelector(".card[data-item='demo-gc1'] .drag-out");
            const dt = new DataTransfer();
            grip.dispatchEvent(new DragEvent('dragstart', {bubbles: true, cancelable: true, dataTransfer: dt}));
            return {text: dt.getData('text/plain'), corkboard: dt.getData('application/x-corkboard+json')};
            """)
        assert carried["text"] == "Old Mill Wheel: Behind the waterwheel, magnetic."
        payload = json.loads(carried["corkboard"])
        assert payload["board"] == "demo" and payload["items"] == ["demo-gc1"]
        # Drop it on another board in another tab: that tab asks this one to move it there (R6).
        driver.switch_to.new_window("tab")
        other = Page(driver, proc.port, "Ada")
        driver.get(f"http://127.0.0.1:{proc.port}/?board=other&key={other_key}&name=Ada")
        other.wait_live()
        other.synthetic_drop("other-found", "data", {"application/x-corkboard+json": carried["corkboard"]})
        wait_until(lambda: "demo-gc1" in other.order("other-found"), message="the card on the other board")
        assert other.order("other-found") == ["other-gc9", "other-gc10", "demo-gc1"]
        errors = console_errors(driver)
        driver.close()
        driver.switch_to.window(first)
        wait_until(lambda: "demo-gc1" not in demo.order(TO_FIND), message="the card to leave the demo board")
        errors += console_errors(driver)
        assert not errors, f"errors in the browser console: {errors}"
    finally:
        if driver.current_window_handle != first:
            driver.close()
            driver.switch_to.window(first)
        driver.get("about:blank")
        proc.stop()


def test_server_restart_mid_session_both_reconnect_and_converge(pair, server, tmp_path):
    ada, bob = pair
    server_port = ada.port
    ada.drag("demo-gc1", ada.card("demo-gc9"), ada.left_half("demo-gc9"))
    wait_until(lambda: bob.order(FOUND) == ["demo-gc1", "demo-gc9", "demo-gc10"], message="the first move")
    # Stop the server: both pages say so and keep working offline.
    server.stop()
    for page in (ada, bob):
        wait_until(lambda: page.js("return document.querySelector('.connection').dataset.state") == "reconnecting",
                   message=f"{page.name} to notice the lost connection")
        assert "Connection lost" in page.js("return document.querySelector('.banner').textContent")
    ada.drag("demo-gc2", ada.section(FOUND), ada.after_last(FOUND))
    assert ada.order(FOUND)[-1] == "demo-gc2"
    assert ada.js("return window.corkboard.replica.pending.length") == 1
    # Same port, same data folder: the clients find it again with their backoff.
    restarted = serve_demo(tmp_path / "data", port=server_port)
    try:
        for page in (ada, bob):
            page.wait_live(timeout=20)
        wait_until(lambda: not ada.js("return window.corkboard.replica.pending.length"), timeout=10,
                   message="Ada's offline drop to be resent and acknowledged")
        wait_until(lambda: all(ada.order(s) == bob.order(s) for s in (TO_FIND, FOUND, INBOX)), message="the pages to converge",
                   describe=lambda: [(page.name, [page.order(s) for s in (TO_FIND, FOUND, INBOX)], page.events()[-6:]) for page in (ada, bob)])
        assert "demo-gc2" in bob.order(FOUND)
        seqs = [page.js("return window.corkboard.replica.confirmedSeq") for page in (ada, bob)]
        assert seqs[0] == seqs[1]
        assert ada.js("return document.querySelector('.banner').hidden") is True
        # R13: Ada resumed as herself (her token outlived the server) with her history: two Undos
        # reach her move from before the restart, and the card goes back to the top of To find.
        assert ada.js("return window.corkboard.session.undoable.undo") is True
        before = list(ada.order(FOUND))
        ada.js("window.corkboard.session.undo()")
        wait_until(lambda: bob.order(FOUND) == [c for c in before if c != "demo-gc2"], message="the first undo")
        ada.js("window.corkboard.session.undo()")
        wait_until(lambda: bob.order(TO_FIND)[:1] == ["demo-gc1"] and "demo-gc1" not in bob.order(FOUND),
                   message="Ada's undo of her move from before the restart",
                   describe=lambda: [page.order(s) for page in (ada, bob) for s in (TO_FIND, FOUND)])
    finally:
        restarted.stop()


def test_a_board_in_parts_loads_with_a_progress_bar(browsers, server):
    """R14: a board over 1 MiB arrives as snapshotPart messages; the page shows a progress bar
    while they come (the browser's download is throttled so it can be seen), then the board."""
    import asyncio

    from test_big_boards import fill

    assert asyncio.run(fill(server.port, 6)) == []  # six cards of ~800 KB: about 4.8 MB
    ada = Page(browsers[0], server.port, "Ada")
    driver = ada.driver
    driver.get_log("browser")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": 2 * 1024 * 1024, "uploadThroughput": -1})
    try:
        driver.get(f"http://127.0.0.1:{server.port}/?board=demo&name=Ada")
        shown = wait_until(
            lambda: ada.js("const l = document.querySelector('.board-loading');"
                           "return !!l && !l.hidden && document.querySelector('.board-loading-bar').value > 0"
                           " && document.querySelector('.board-loading-text').textContent"),
            timeout=20, message="the progress bar while the board loads")
        assert "Loading the board" in shown and "%" in shown
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "board-loading.png"))
        ada.wait_live(timeout=30)
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    announced = ada.events("snapshot-parts")
    assert len(announced) == 1 and announced[0]["parts"] > 1 and announced[0]["bytes"] > 4_000_000
    parts = ada.events("snapshot-part")
    assert [e["part"] for e in parts] == list(range(announced[0]["parts"]))
    fractions = [e["fraction"] for e in parts]
    assert fractions == sorted(fractions) and fractions[-1] == 1
    assert ada.js("return document.querySelector('.board-loading').hidden") is True
    assert len(ada.order(INBOX)) == 7
    assert ada.order(TO_FIND) == [f"demo-gc{n}" for n in range(1, 9)]
    errors = console_errors(driver)
    driver.get("about:blank")
    assert not errors, f"errors in the browser console: {errors}"


# Issue 16: a board people can work on. Each flow in two browser sessions; screenshots of the main
# flows go to Tests/python/artifacts/.

# Ids, type identifiers and close codes: never in a sentence people read.
MACHINE_WORDS = re.compile(r"demo-|corkboard\.card|public\.|\bc-[0-9a-f]{6}|\b(?:100\d|101\d|400\d)\b")


def test_add_card_lands_where_it_was_added_for_everyone(pair):
    ada, bob = pair
    ada.named("Add card", ada.find(".section[data-section='demo-found']")).click()
    wait_until(lambda: ada.js("return document.activeElement.classList.contains('card-editor-title')"), message="the composer's title")
    # While Ada types, Bob moves a card to the front of Found: her card still lands at the end.
    bob.drag("demo-gc1", bob.card("demo-gc9"), bob.left_half("demo-gc9"))
    wait_until(lambda: ada.order(FOUND)[0] == "demo-gc1", message="Bob's move in Ada's page")
    ada.type("Stone Bridge", Keys.TAB, "Under the third arch.")
    ada.shot("add-card.png")
    ada.type(Keys.ENTER)
    added = ada.order(FOUND)[-1]
    assert ada.order(FOUND) == ["demo-gc1", "demo-gc9", "demo-gc10", added]
    assert ada.title(added) == "Stone Bridge"
    wait_until(lambda: bob.order(FOUND) == ["demo-gc1", "demo-gc9", "demo-gc10", added], message="the new card for Bob")
    assert bob.title(added) == "Stone Bridge"
    reps = bob.js("return window.corkboard.board.item(arguments[0]).representations", added)
    assert reps == [{"type": "corkboard.card", "value": json.dumps({"name": "Stone Bridge", "summary": "Under the third arch."}, separators=(",", ":"))},
                    {"type": "public.plain-text", "value": "Stone Bridge: Under the third arch."}]
    # The composer stays open for the next card; Escape closes it.
    assert ada.js("return document.activeElement.classList.contains('card-editor-title') && document.activeElement.value === ''")
    ada.type(Keys.ESCAPE)
    assert not ada.js("return document.querySelector('.card-editor')")
    # N on a focused card adds one to its section; a title is needed, Escape cancels.
    ada.focus(".card[data-item='demo-gc2']")
    ada.type("n")
    wait_until(lambda: ada.js("return document.activeElement.closest('.section')?.dataset.section") == TO_FIND, message="the composer in To find")
    ada.type(Keys.ENTER)
    assert "Type a title" in ada.js("return document.querySelector('.card-editor-notice').textContent")
    ada.type("Ford", Keys.ENTER, Keys.ESCAPE)
    ford = ada.order(TO_FIND)[-1]
    assert ada.title(ford) == "Ford"
    wait_until(lambda: bob.order(TO_FIND)[-1] == ford and bob.title(ford) == "Ford", message="Bob to see the second card")
    assert not ada.js("return window.corkboard.replica.pending.length") or wait_until(
        lambda: not ada.js("return window.corkboard.replica.pending.length"), message="the inserts to be acknowledged")


def test_edit_a_card_in_place_and_nobody_is_silently_overwritten(pair):
    ada, bob = pair
    # Double-click edits in place; Enter saves.
    ActionChains(ada.driver).double_click(ada.card("demo-gc1")).perform()
    title = wait_until(lambda: ada.js("return document.querySelector(\".card[data-item='demo-gc1'] .card-editor-title\")"), message="the editor")
    assert title.get_attribute("value") == "Old Mill Wheel"
    assert ada.js("return document.activeElement") == title
    ada.retype("Old Mill", Keys.ENTER)
    assert ada.title("demo-gc1") == "Old Mill"
    wait_until(lambda: bob.title("demo-gc1") == "Old Mill", message="the new title for Bob")
    card = json.loads(bob.js("return window.corkboard.board.item('demo-gc1').representations[0].value"))
    assert card["latitude"] == 47.3769 and card["summary"] == "Behind the waterwheel, magnetic.", "the rest of the card stays"
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc1"
    # F2 on a focused card edits it (Enter opens it: test_card_details.py); Escape leaves it as it was.
    ada.focus(".card[data-item='demo-gc2']")
    ada.type(Keys.F2)
    wait_until(lambda: ada.js("return document.activeElement.classList.contains('card-editor-title')"), message="the editor by F2")
    ada.type("zzz", Keys.ESCAPE)
    assert ada.title("demo-gc2") == "Lighthouse Steps"
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc2"
    # From the menu. R12: while Ada edits, Bob sees "Ada is editing" on the card, live, and cannot
    # edit or delete it.
    ada.card_menu("demo-gc3")
    ada.menu_item("Edit card").click()
    wait_until(lambda: ada.js("return document.activeElement.classList.contains('card-editor-title')"), message="the editor from the menu")
    ada.type(Keys.END, " (Ada's note)")
    badge = wait_until(lambda: bob.js("return document.querySelector(\".card[data-item='demo-gc3'] .edit-badge\")?.textContent"),
                       message="“Ada is editing” in Bob's page")
    assert badge == "Ada is editing"
    ActionChains(bob.driver).double_click(bob.card("demo-gc3")).perform()
    wait_until(lambda: "Ada is editing “Granite Owl”; wait until they save, then try again." in bob.toasts(), message="Bob's refusal")
    assert not bob.js("return document.querySelector('.card-editor')"), "no editor for Bob"
    bob.card_menu("demo-gc3")
    assert bob.menu_item("Ada is editing").get_attribute("aria-disabled") == "true"
    bob.type(Keys.ESCAPE)
    wait_until(lambda: not bob.js("return document.querySelector('.menu')"), message="the menu to close")
    bob.focus(".card[data-item='demo-gc3']")
    bob.type(Keys.DELETE)
    wait_until(lambda: "“Granite Owl” could not be deleted: Ada is editing “Granite Owl”; try again once they save." in bob.toasts(),
               message="the refused delete")
    wait_until(lambda: "demo-gc3" in bob.order(TO_FIND), message="the card back in Bob's page")
    assert not MACHINE_WORDS.search(bob.toasts())
    bob.shot("is-editing.png")
    ada.type(Keys.ENTER)
    wait_until(lambda: bob.title("demo-gc3") == "Granite Owl (Ada's note)" and
               not bob.js("return document.querySelector('.edit-badge')"), message="Ada's save, her lease ended, for Bob")
    # An update made on a version the card has moved past is refused, and the editor keeps what was
    # typed with a clear message. (Ada's outgoing update names an old version.)
    ada.rewrite_sent("m.type === 'submit' && m.op.kind === 'updateItem' && m.op.item === 'demo-gc3'", "m.op.version = 0;")
    ada.focus(".card[data-item='demo-gc3']")
    ada.type(Keys.F2, Keys.END, " again", Keys.ENTER)
    notice = wait_until(lambda: ada.js("return document.querySelector(\".card[data-item='demo-gc3'] .card-editor-notice:not([hidden])\")?.textContent"),
                        message="the version conflict back in the editor")
    assert notice == ("Your changes to “Granite Owl (Ada's note)” could not be saved: the card changed while you were editing it. "
                      "Your text is kept: look at the new version and save again.")
    assert ada.js("return document.querySelector(\".card[data-item='demo-gc3'] .card-editor-title\").value") == "Granite Owl (Ada's note) again"
    ada.shot("edit-conflict.png")
    ada.type(Keys.ESCAPE)
    ada.js("location.reload()")
    ada.wait_live()
    # A save the room refuses comes back in the editor, with what was typed and why. (The outgoing
    # update is pointed at a card that does not exist, so the room refuses it.)
    ada.rewrite_sent("m.type === 'submit' && m.op.kind === 'updateItem'", "m.op.item = 'demo-nowhere';")
    ada.focus(".card[data-item='demo-gc4']")
    ada.type(Keys.F2, Keys.END, " 2", Keys.ENTER)
    notice = wait_until(lambda: ada.js("return document.querySelector(\".card[data-item='demo-gc4'] .card-editor-notice:not([hidden])\")?.textContent"),
                        message="the refused save back in the editor")
    assert notice == "Your changes to “Ferry Landing” could not be saved: it was deleted before your change arrived."
    assert ada.js("return document.querySelector(\".card[data-item='demo-gc4'] .card-editor-title\").value") == "Ferry Landing 2"
    ada.type(Keys.ESCAPE)
    assert ada.title("demo-gc4") == "Ferry Landing" and bob.title("demo-gc4") == "Ferry Landing"


def test_delete_a_card_by_its_menu_and_by_the_delete_key(pair):
    ada, bob = pair
    ada.card_menu("demo-gc1")
    ada.shot("card-menu.png")
    ada.menu_item("Delete card").click()
    assert "demo-gc1" not in ada.order(TO_FIND)
    wait_until(lambda: "demo-gc1" not in bob.order(TO_FIND), message="the delete for Bob")
    ada.focus(".card[data-item='demo-gc2']")
    ada.type(Keys.DELETE)
    assert "demo-gc2" not in ada.order(TO_FIND)
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc3", "focus moves to the next card"
    wait_until(lambda: bob.order(TO_FIND) == [f"demo-gc{n}" for n in range(3, 9)], message="both deletes for Bob")
    assert len(bob.applied("delete")) == 2
    assert ada.js("return window.corkboard.lastAnnouncement") == "Deleted “Lighthouse Steps”."
    # The menu from the keyboard: Shift+F10 on the focused card, arrows, Enter.
    ada.chord(Keys.SHIFT, Keys.F10)
    wait_until(lambda: ada.js("return document.activeElement.getAttribute('role')") == "menuitem", message="the menu by keyboard")
    assert ada.js("return document.activeElement.textContent") == "Open card"
    ada.type(Keys.ARROW_DOWN)
    assert ada.js("return document.activeElement.textContent") == "Edit card"
    ada.type(Keys.ARROW_DOWN)
    assert ada.js("return document.activeElement.textContent") == "Move to…"
    ada.type(Keys.ARROW_DOWN, Keys.ENTER)
    wait_until(lambda: bob.order(TO_FIND) == [f"demo-gc{n}" for n in range(4, 9)], message="the keyboard menu's delete for Bob")
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc4"


def test_trash_takes_dragged_cards_and_deleting_several_is_one_operation(pair):
    ada, bob = pair
    trash = ada.named("Trash")
    assert trash.is_displayed()
    ActionChains(ada.driver).key_down(Keys.CONTROL).click(ada.card("demo-gc5")).click(ada.card("demo-gc6")).key_up(Keys.CONTROL).perform()
    ada.lift("demo-gc5", to=trash)
    wait_until(lambda: ada.has_class(".trash", "over"), message="the Trash to light up")
    wait_until(lambda: bob.has_class(".card[data-item='demo-gc6']", "remote-lifted"), message="Bob to see both lifted")
    ada.shot("trash.png")
    ada.release()
    assert not {"demo-gc5", "demo-gc6"} & set(ada.order(TO_FIND))
    wait_until(lambda: not {"demo-gc5", "demo-gc6"} & set(bob.order(TO_FIND)), message="the Trash's delete for Bob")
    assert [e["kind"] for e in bob.events("applied")] == ["delete"], "two cards, one operation"
    wait_until(lambda: not bob.js("return document.querySelector('.remote-lifted')"), message="the drag to end for Bob")
    # Selected with the keyboard and deleted with the Delete key: one operation.
    ada.focus(".card[data-item='demo-gc1']")
    ada.chord(Keys.SHIFT, " ")
    ada.type(Keys.ARROW_DOWN)
    ada.chord(Keys.SHIFT, " ")
    ada.type(Keys.DELETE)
    wait_until(lambda: bob.order(TO_FIND) == ["demo-gc3", "demo-gc4", "demo-gc7", "demo-gc8"], message="the keyboard multi-delete for Bob")
    assert len(bob.applied("delete")) == 2
    # A keyboard drag dropped in the Trash with Delete; the Trash pressed deletes the selection.
    ada.focus(".card[data-item='demo-gc3']")
    ada.type(" ", Keys.ARROW_DOWN, Keys.DELETE)
    ada.settle()
    ActionChains(ada.driver).key_down(Keys.CONTROL).click(ada.card("demo-gc8")).key_up(Keys.CONTROL).perform()
    ada.named("Trash").click()
    wait_until(lambda: bob.order(TO_FIND) == ["demo-gc4", "demo-gc7"], message="the last deletes for Bob")
    assert len(bob.applied("delete")) == 4


def test_collections_and_sections_are_added_renamed_moved_and_deleted_for_everyone(pair):
    ada, bob = pair
    collections = lambda page: page.js("return [...document.querySelectorAll('.collection .collection-title')].map(t => t.textContent)")  # noqa: E731
    # A new collection: a list that takes only text.
    ada.named("Add collection").click()
    ada.type("Ideas")
    ada.js("[...document.querySelectorAll('.add-collection-form label')].find(l => l.textContent.trim() === 'As a list').click()")
    ada.js("[...document.querySelectorAll('.add-collection-form label')].find(l => l.textContent.trim() === 'Text').click()")
    ada.shot("add-collection.png")
    ada.type(Keys.ENTER)
    wait_until(lambda: collections(bob) == ["Geocaches", "Found", "Inbox", "Ideas"], message="the new collection for Bob")
    ideas = bob.js("return [...document.querySelectorAll('.collection')].at(-1).dataset.collection")
    assert bob.js("const c = document.querySelector(`.collection[data-collection='${arguments[0]}']`);"
                  "return [c.dataset.layout, c.querySelector('.collection-accepts').textContent]", ideas) == ["list", "Takes text"]
    assert ada.js("return document.activeElement.getAttribute('aria-label')") == "Add card", "ready for its first card"
    # Rename from the menu.
    ada.collection_menu("demo-found")
    ada.menu_item("Rename").click()
    ada.retype("Found in 2025", Keys.ENTER)
    wait_until(lambda: collections(bob)[1] == "Found in 2025", message="the rename for Bob")
    # A section added and renamed; a collection moved left.
    ada.collection_menu("demo-caches")
    ada.menu_item("Add section").click()
    ada.type("This weekend", Keys.ENTER)
    weekend = wait_until(lambda: bob.js("return [...document.querySelectorAll(\".collection[data-collection='demo-caches'] .section\")]"
                                        ".find(s => s.querySelector('.section-title').textContent === 'This weekend')?.dataset.section"),
                         message="the new section for Bob")
    ada.find(f".section[data-section='{weekend}'] .section-menu-button").click()
    ada.menu_item("Rename").click()
    ada.retype("Next weekend", Keys.ENTER)
    wait_until(lambda: bob.js("return document.querySelector(`.section[data-section='${arguments[0]}'] .section-title`).textContent", weekend) == "Next weekend",
               message="the section's new title for Bob")
    ada.collection_menu("demo-inbox")
    ada.menu_item("Move left").click()
    wait_until(lambda: collections(bob) == ["Geocaches", "Inbox", "Found in 2025", "Ideas"], message="the move for Bob")
    # What Found takes, in words.
    ada.collection_menu("demo-found")
    ada.menu_item("Choose what it takes").click()
    ada.js("document.querySelector('dialog input[value=anything]').click()")
    ada.shot("takes-dialog.png")
    ada.js("document.querySelector('dialog button[type=submit]').click()")
    wait_until(lambda: bob.js("return document.querySelector(\".collection[data-collection='demo-found'] .collection-accepts\").textContent") == "Takes anything",
               message="Found takes anything for Bob")
    # Deleting a section with cards asks first, then is one operation.
    ada.find(f".section[data-section='{TO_FIND}'] .section-menu-button").click()
    ada.menu_item("Delete section").click()
    question = wait_until(lambda: ada.js("const d = document.querySelector('dialog[open]'); return d && d.textContent"), message="the question")
    assert "Delete “To find”?" in question and "Its 8 cards will be deleted with it." in question
    ada.shot("delete-section.png")
    ada.js("[...document.querySelectorAll('dialog[open] button')].find(b => b.textContent === 'Delete section').click()")
    wait_until(lambda: not bob.js("return document.querySelector(\".section[data-section='demo-to-find']\")"), message="the section gone for Bob")
    assert [e["kind"] for e in bob.applied("deleteSection")] == ["deleteSection"]
    assert not [e for e in bob.events("applied") if e["kind"] == "delete"], "its cards went with the one operation"
    # An empty collection goes without a question.
    ada.collection_menu(ideas)
    ada.menu_item("Delete collection").click()
    assert not ada.js("return document.querySelector('dialog[open]')")
    wait_until(lambda: collections(bob) == ["Geocaches", "Inbox", "Found in 2025"], message="the empty collection gone for Bob")
    ada.shot("structure.png")


def test_a_collection_moves_by_dragging_its_header(pair):
    ada, bob = pair
    header = ada.find(".collection[data-collection='demo-inbox'] .collection-title")
    target = ada.find(".collection[data-collection='demo-caches']")
    ActionChains(ada.driver, duration=80).move_to_element(header).click_and_hold().move_by_offset(-20, 4).pause(0.1) \
        .move_to_element_with_offset(target, -target.size["width"] // 2 + 10, 0).pause(0.2).move_by_offset(-2, 0).pause(0.1).perform()
    wait_until(lambda: ada.js("return !!document.querySelector('.collection-lifted') && !!document.querySelector('.collection-marker')"),
               message="the lifted collection and its marker")
    ada.shot("collection-drag.png")
    ada.release()
    order = lambda page: page.js("return window.corkboard.board.collections.map(c => c.id)")  # noqa: E731
    assert order(ada) == ["demo-inbox", "demo-caches", "demo-found"]
    wait_until(lambda: order(bob) == ["demo-inbox", "demo-caches", "demo-found"], message="the move for Bob")


def create_board(port, title, template="demo"):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/boards", method="POST",
                                     data=json.dumps({"title": title, "template": template}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_viewers_see_no_editing_controls_and_cannot_lift(browsers, server):
    board = create_board(server.port, "Trip")
    ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
    for page in (ada, bob):
        page.driver.get_log("browser")
    try:
        ada.driver.get(board["edit"].replace("localhost", "127.0.0.1") + "&name=Ada")
        bob.driver.get(board["view"].replace("localhost", "127.0.0.1") + "&name=Bob")
        for page in (ada, bob):
            page.wait_live()
        wait_until(lambda: ada.js("return document.querySelectorAll('.member').length") == 2, message="two members")
        bid = board["id"]
        controls = ".add-card, .card-menu-button, .collection-menu-button, .section-menu-button, .add-collection, .drag-out, .card-editor"
        assert ada.js(f"return document.querySelectorAll('{controls}').length") > 10
        assert bob.js(f"return document.querySelectorAll('{controls}').length") == 0
        # The Trash is there to look in (what was deleted), never to drop on or delete with.
        assert bob.js("return !document.querySelector('.trash').hidden && document.querySelector('.board-end').hidden")
        assert bob.js("return document.querySelector('.role-badge').textContent") == "View only"
        # A pointer drag does not lift; neither do the keys, and nothing edits or deletes.
        bob.lift(f"{bid}-gc1", to=bob.card(f"{bid}-gc9"))
        bob.release()
        bob.focus(f".card[data-item='{bid}-gc2']")
        bob.type(" ")
        wait_until(lambda: bob.js("return window.corkboard.lastAnnouncement") == "You can only view this board.", message="the keyboard refusal")
        bob.type(Keys.ESCAPE, Keys.DELETE, Keys.F2, "n")
        ActionChains(bob.driver).double_click(bob.card(f"{bid}-gc3")).perform()
        time.sleep(0.3)
        assert not bob.events("lift") and not bob.js("return window.corkboard.replica.pending.length")
        assert not bob.js("return document.querySelector('.card-editor, .menu, dialog')")
        assert not ada.js("return document.querySelector('.remote-lifted, .remote-gap')")
        assert bob.order(f"{bid}-to-find") == ada.order(f"{bid}-to-find") == [f"{bid}-gc{n}" for n in range(1, 9)]
        # The top bar: no Undo, Redo or Rename for a viewer; Share offers the view link only.
        assert ada.js("return ['Undo', 'Redo', 'Rename', 'Share'].map(n => !document.querySelector(`.board-actions [aria-label='${n}']`).hidden)") == [True] * 4
        assert bob.js("return ['Undo', 'Redo', 'Rename', 'Share'].map(n => !document.querySelector(`.board-actions [aria-label='${n}']`).hidden)") == [False, False, False, True]
        bob.type(Keys.CONTROL + "z")
        bob.named("Share").click()
        links = wait_until(lambda: bob.js("return [...document.querySelectorAll('dialog .share-link')].map(i => i.getAttribute('aria-label') + ' ' + i.value)"),
                           message="the viewer's share dialog")
        assert links == [f"View link http://127.0.0.1:{server.port}/?board={bid}&key={board['view'].split('key=')[1]}"]
        bob.shot("viewer.png")
        bob.type(Keys.ESCAPE)
        assert not bob.js("return window.corkboard.replica.pending.length") and not bob.events("undo-refused")
        # The viewer still sees the editor's changes live.
        ada.focus(f".card[data-item='{bid}-gc1']")
        ada.type(Keys.DELETE)
        wait_until(lambda: f"{bid}-gc1" not in bob.order(f"{bid}-to-find"), message="the editor's delete for the viewer")
        errors = {page.name: console_errors(page.driver) for page in (ada, bob)}
        assert not any(errors.values()), f"errors in the browser console: {errors}"
    finally:
        for page in (ada, bob):
            page.driver.get("about:blank")


def test_a_commenter_comments_and_finds_no_control_that_changes_the_board(browsers, server):
    """R17: the comment link opens the board for commenting: the cards, the open card's "Comment" and
    "Save comment", Undo for its comments; no "Add card", no lift, no Trash to drop on, no editing of
    labels, description or dates. The admin's Share dialog offers all four links, the commenter's two."""
    board = create_board(server.port, "Review")
    bid = board["id"]
    ada, cy = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Cy")
    for page in (ada, cy):
        page.driver.get_log("browser")
    try:
        ada.driver.get(board["admin"].replace("localhost", "127.0.0.1") + "&name=Ada")
        cy.driver.get(board["comment"].replace("localhost", "127.0.0.1") + "&name=Cy")
        for page in (ada, cy):
            page.wait_live()
        assert ada.js("return window.corkboard.me.role") == "admin"
        assert cy.js("return window.corkboard.me.role") == "commenter"
        assert cy.js("return document.querySelector('.role-badge').textContent") == "Can comment"
        controls = ".add-card, .card-menu-button, .collection-menu-button, .section-menu-button, .add-collection, .drag-out, .card-editor"
        assert ada.js(f"return document.querySelectorAll('{controls}').length") > 10
        assert cy.js(f"return document.querySelectorAll('{controls}').length") == 0
        assert cy.js("return [...document.querySelectorAll('button')].filter(b => !b.hidden && b.offsetParent && /Add card/.test(b.textContent + (b.getAttribute('aria-label') || ''))).length") == 0
        assert cy.js("return document.querySelector('.board-end').hidden"), "no Trash to drop on"
        # No lift, by pointer or keys; the refusal says what the link allows.
        cy.lift(f"{bid}-gc1", to=cy.card(f"{bid}-gc9"))
        cy.release()
        cy.focus(f".card[data-item='{bid}-gc2']")
        cy.type(" ")
        wait_until(lambda: cy.js("return window.corkboard.lastAnnouncement") == "You can comment on this board's cards but not move them.",
                   message="the keyboard refusal")
        cy.type(Keys.ESCAPE)
        assert not cy.events("lift") and not cy.js("return window.corkboard.replica.pending.length")
        assert cy.order(f"{bid}-to-find") == [f"{bid}-gc{n}" for n in range(1, 9)]
        # Undo and Redo for its comments; no Rename.
        assert cy.js("return ['Undo', 'Redo', 'Rename', 'Share'].map(n => !document.querySelector(`.board-actions [aria-label='${n}']`).hidden)") == [True, True, False, True]
        # The open card: comment, but no editing of its description, dates or labels.
        cy.settle()
        cy.find(f".card[data-item='{bid}-gc3'] .card-title").click()
        wait_until(lambda: cy.js("return !!document.querySelector('dialog.card-view[open]')"), message="the card's view")
        assert cy.js("return [...document.querySelectorAll('.card-view input, .card-view select')].filter(i => i.type !== 'hidden' && i.getAttribute('aria-hidden') !== 'true' && !i.disabled && i.offsetParent).map(i => i.outerHTML)") == []
        assert cy.js("return [...document.querySelectorAll('.card-view button')].filter(b => !b.hidden && b.offsetParent).map(b => b.textContent).filter(t => /Edit|Attach|Clear/.test(t))") == []
        cy.find("textarea[aria-label='Comment']").send_keys("Ship it")
        cy.named("Save comment").click()
        wait_until(lambda: ada.js("return window.corkboard.board.item(arguments[0]).details?.comments?.map(c => [c.name, c.text])", f"{bid}-gc3") == [["Cy", "Ship it"]],
                   message="the commenter's comment at the admin")
        wait_until(lambda: not cy.js("return window.corkboard.replica.pending.length"), message="the comment to commit")
        cy.shot("commenter.png")
        cy.type(Keys.ESCAPE)
        # Share: the commenter hands out the comment and view links; the admin all four.
        cy.named("Share").click()
        links = wait_until(lambda: cy.js("return [...document.querySelectorAll('dialog .share-link')].map(i => i.getAttribute('aria-label'))"),
                           message="the commenter's share dialog")
        assert links == ["Comment link", "View link"]
        cy.type(Keys.ESCAPE)
        ada.named("Share").click()
        links = wait_until(lambda: ada.js("return [...document.querySelectorAll('dialog .share-link')].map(i => i.getAttribute('aria-label') + ' ' + i.value)"),
                           message="the admin's share dialog")
        assert [link.split(" http")[0] for link in links] == ["Admin link", "Edit link", "Comment link", "View link"]
        assert links[0].endswith(f"key={board['adminKey']}")
        ada.type(Keys.ESCAPE)
        errors = {page.name: console_errors(page.driver) for page in (ada, cy)}
        assert not any(errors.values()), f"errors in the browser console: {errors}"
    finally:
        for page in (ada, cy):
            page.driver.get("about:blank")


def test_phone_layout_shows_one_collection_per_screen_with_touch_controls(pair):
    ada, bob = pair
    ada.driver.set_window_size(390, 844)
    try:
        wait_until(lambda: ada.js("return innerWidth") <= 390, message="the phone width")
        ada.settle()
        layout = ada.js("""
            const board = document.querySelector('.board');
            const inner = board.clientWidth;
            const cols = [...document.querySelectorAll('.collection')].map(c => c.getBoundingClientRect().width);
            const list = document.querySelector(".items[data-section='demo-to-find']");
            const card = document.querySelector(".card[data-item='demo-gc1']");
            const menu = card.querySelector('.card-menu-button'), grip = card.querySelector('.drag-out');
            return {inner, cols, snap: getComputedStyle(board).scrollSnapType, list: list.clientWidth, card: card.getBoundingClientRect().width,
                    menu: [getComputedStyle(menu).opacity, menu.getBoundingClientRect().height, menu.getBoundingClientRect().width],
                    grip: [getComputedStyle(grip).opacity, grip.getBoundingClientRect().height]};
        """)
        assert layout["snap"] == "x mandatory"
        assert all(layout["inner"] - 40 <= w <= layout["inner"] for w in layout["cols"]), layout
        assert layout["card"] >= layout["list"] - 16, "cards take the full width"
        assert float(layout["menu"][0]) > 0.5 and layout["menu"][1] >= 30 and layout["menu"][2] >= 36, layout
        assert float(layout["grip"][0]) > 0.5 and layout["grip"][1] >= 30, layout
        ada.shot("phone.png")
        # Scrolling sideways snaps to the next collection.
        ada.js("document.querySelector('.board').scrollBy({left: 150})")
        wait_until(lambda: ada.js("const b = document.querySelector('.board'), f = document.querySelector(\".collection[data-collection='demo-found']\");"
                                  "return Math.abs(f.getBoundingClientRect().left - b.getBoundingClientRect().left - 12) < 8"),
                   message="the board to snap to Found")
        ada.js("document.querySelector('.board').scrollTo({left: 0})")
        # The menu by touch: Edit card, then Escape.
        ada.settle()
        button = ada.js("const r = document.querySelector(\".card[data-item='demo-gc1'] .card-menu-button\").getBoundingClientRect();"
                        "return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]")
        ada.touch([[("move", tuple(button)), ("down",), ("up",)]])
        ada.menu_item("Edit card")
        ada.shot("phone-menu.png")
        ada.menu_item("Edit card").click()
        wait_until(lambda: ada.js("return document.activeElement.classList.contains('card-editor-title')"), message="the editor on the phone")
        ada.type(Keys.ESCAPE)
    finally:
        ada.driver.set_window_size(1400, 900)


def test_peers_see_the_gap_open_where_the_card_would_land(pair):
    ada, bob = pair
    # In the wrapped grid of To find, over the left half of the first card of the second row.
    ada.lift("demo-gc1", to=ada.card("demo-gc5"), offset=ada.left_half("demo-gc5"))
    target = wait_until(lambda: ada.js("return window.corkboard.drag?.target"), message="Ada's target")
    wait_until(lambda: ada.js("return window.corkboard.drag?.serverProposal?.operation") == "move", message="the room's proposal")
    gap = wait_until(lambda: bob.js("""
        const gap = document.querySelector(".items[data-section='demo-to-find'] > .remote-gap");
        if (!gap) return null;
        let next = gap.nextElementSibling, prev = gap.previousElementSibling;
        while (prev && prev.classList.contains('remote-lifted')) prev = prev.previousElementSibling;
        const r = gap.getBoundingClientRect(), card = document.querySelector(".card[data-item='demo-gc1']").getBoundingClientRect();
        return {next: next?.dataset.item, prev: prev?.dataset.item, width: r.width, height: r.height, cardWidth: card.width, cardHeight: card.height,
                name: gap.textContent, color: getComputedStyle(gap).borderTopColor};
    """), message="Ada's gap in Bob's To find")
    assert gap["next"] == target["before"] and gap["prev"] == target["after"], (gap, target)
    assert abs(gap["width"] - gap["cardWidth"]) < 4 and abs(gap["height"] - gap["cardHeight"]) < 4, "the gap is the size of the card"
    assert gap["name"] == "Ada"
    ada_colour = bob.js("return [...document.querySelectorAll('.member')].find(m => m.textContent === 'Ada').style.getPropertyValue('--peer-color')")
    assert gap["color"] == bob.js("const d = document.createElement('div'); d.style.color = arguments[0]; document.body.append(d);"
                                  "const c = getComputedStyle(d).color; d.remove(); return c", ada_colour)
    bob.shot("peer-gap.png")
    ada.release()
    wait_until(lambda: bob.order(TO_FIND).index("demo-gc1") == ada.order(TO_FIND).index("demo-gc1"), message="the drop where the gap was")
    assert not bob.js("return document.querySelector('.remote-gap')")


def test_a_person_keeps_one_colour_however_many_join(pair):
    from websockets.sync.client import connect

    ada, bob = pair
    colours = lambda page: page.js("return Object.fromEntries([...document.querySelectorAll('.member')]"  # noqa: E731
                                   ".map(m => [m.textContent, m.style.getPropertyValue('--peer-color')]))")
    before = colours(ada)
    assert before == colours(bob) and len(set(before.values())) == 2
    # Bob's connection drops; he resumes as a new member. His hello asks for his colour back
    # (hello.color, test_words checks the room's side); whatever the room gives, he keeps it here.
    bob.js("window.corkboard.session.conn.socket.close()")
    wait_until(lambda: ada.js("return window.corkboard.session.members.byId.get('m3')?.name") == "Bob", message="Bob back as m3")
    wait_until(lambda: colours(ada) == before, message="Bob's colour to stay")
    bob.wait_live()
    assert colours(bob) == before
    # Ten more people join: the room's ten colours come round again, yet nobody shares one.
    url = f"ws://127.0.0.1:{ada.port}/ws"
    with contextlib.ExitStack() as sockets:
        for n in range(10):
            ws = sockets.enter_context(connect(url, subprotocols=["corkboard.v1"]))
            ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": f"Guest {n}"}))
            assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
        wait_until(lambda: len(colours(ada)) == 12, message="twelve people")
        now = colours(ada)
        assert len(set(now.values())) == 12, now
        assert now["Ada"] == before["Ada"] and now["Bob"] == before["Bob"]
        assert colours(bob) == now
        ada.shot("colours.png")


def test_refusals_stay_readable_say_what_to_do_and_can_be_dismissed(pair):
    ada, bob = pair
    ada.drag("demo-note1", ada.card("demo-gc9"), ada.left_half("demo-gc9"))
    toast = wait_until(lambda: ada.js("return document.querySelector('.toast.error')"), message="the refusal")
    text = toast.text
    assert "“Found” takes only cards." in text and not MACHINE_WORDS.search(text)
    # Bob holds a card; Ada's lift of it is refused, naming the card and Bob, saying what to do.
    bob.lift("demo-gc4", to=bob.card("demo-gc9"), offset=bob.left_half("demo-gc9"))
    wait_until(lambda: ada.has_class(".card[data-item='demo-gc4']", "remote-lifted"), message="Bob's lift")
    ada.lift("demo-gc4", to=ada.section(FOUND), offset=ada.after_last(FOUND))
    wait_until(lambda: "“Ferry Landing” is being moved by Bob; wait for them to drop it." in ada.toasts(), message="the lease refusal")
    ada.release()
    bob.release()
    ada.shot("refusal-toast.png")
    assert not MACHINE_WORDS.search(ada.toasts())
    time.sleep(4.2)
    assert toast.is_displayed(), "a refusal stays at least 4 s"
    ada.find(".toast-dismiss", toast).click()
    wait_until(lambda: not ada.js("return [...document.querySelectorAll('.toast')].some(t => t.textContent.includes('takes only'))"),
               message="the dismissed refusal to go")


def test_alt_copies_with_the_source_in_view_and_a_card_comes_out_of_a_group(pair):
    ada, bob = pair
    # Alt: the source stays where it is during the drag, and a copy lands.
    ActionChains(ada.driver, duration=60).move_to_element(ada.card("demo-gc1")).key_down(Keys.ALT).click_and_hold() \
        .move_by_offset(12, 6).pause(0.1).move_to_element(ada.section(FOUND)).move_by_offset(0, ada.after_last(FOUND)[1]).pause(0.2) \
        .move_by_offset(1, 1).pause(0.2).perform()
    wait_until(lambda: ada.has_class(".items[data-section='demo-found'] > .gap", "copy"), message="the copy gap")
    assert ada.js("return !document.querySelector(\".card[data-item='demo-gc1']\").hidden"), "the source stays in view"
    ada.shot("alt-copy.png")
    ActionChains(ada.driver).release().key_up(Keys.ALT).perform()
    copy = wait_until(lambda: next((i for i in ada.order(FOUND) if i not in ("demo-gc9", "demo-gc10")), None), message="the copy")
    assert ada.order(TO_FIND)[0] == "demo-gc1" and ada.title(copy) == "Old Mill Wheel"
    wait_until(lambda: copy in bob.order(FOUND) and bob.order(TO_FIND)[0] == "demo-gc1", message="the copy for Bob")
    # A slow reorder across the middle of a card does not group it.
    ada.lift("demo-gc2")
    start = ada.center("demo-gc3", dx=-0.3)
    chain = ActionChains(ada.driver, duration=40)
    chain.move_to_element_with_offset(ada.card("demo-gc3"), -int(ada.card("demo-gc3").size["width"] * 0.3), 0)
    for _ in range(12):
        chain.move_by_offset(5, 0).pause(0.12)
    chain.perform()
    assert start
    ada.release()
    assert not ada.js("return window.corkboard.board.item('demo-gc3').children"), "no group by accident"
    # Holding on the Drop into label puts a card inside; its card then comes out again by dragging it.
    ada.lift("demo-gc4", to=ada.card("demo-gc5"))
    ada.move_to(ada.card("demo-gc5"))
    ada.onto_into_label()
    wait_until(lambda: ada.has_class(".card[data-item='demo-gc5']", "into-target"), message="the drop-into after holding on its label")
    ada.shot("drop-into.png")
    ada.release()
    wait_until(lambda: bob.js("return window.corkboard.board.item('demo-gc5').children?.map(c => c.id)") == ["demo-gc4"], message="the group for Bob")
    chip = ada.find(".card[data-item='demo-gc5'] .child-card[data-item='demo-gc4']")
    assert chip.get_attribute("textContent") == "Ferry Landing"
    wait_until(lambda: not ada.js("return document.querySelector('.ghost')"), message="the ghost to land")
    ada.settle()
    ada.shot("group.png")
    ada.drag("demo-gc4", ada.section(FOUND), ada.after_last(FOUND))
    assert ada.order(FOUND)[-1] == "demo-gc4"
    wait_until(lambda: bob.order(FOUND)[-1] == "demo-gc4" and bob.js("return window.corkboard.board.item('demo-gc5').children === undefined"),
               message="the card out of its group for Bob, the emptied group dissolved into a card")


def undoable(page):
    return page.js("return ['Undo', 'Redo'].map(n => !document.querySelector(`.board-actions [aria-label='${n}']`).disabled)")


def test_undo_and_redo_a_move_an_edit_and_a_delete_even_after_a_peer_moved_the_card(pair):
    """R13 in the browser: the Undo and Redo buttons follow the room's `undoable`; Ctrl+Z,
    Shift+Ctrl+Z and Ctrl+Y work; an undo is computed against the board as it is now."""
    ada, bob = pair
    assert undoable(ada) == [False, False]
    # A move, then Bob moves the same card elsewhere; Ada's undo puts it back beside its old
    # neighbours, for both.
    ada.drag("demo-gc2", ada.section(FOUND), ada.after_last(FOUND))
    wait_until(lambda: undoable(ada) == [True, False], message="Undo to be enabled")
    wait_until(lambda: bob.order(FOUND)[-1] == "demo-gc2", message="Ada's move for Bob")
    bob.drag("demo-gc2", bob.card("demo-gc9"), bob.left_half("demo-gc9"))
    wait_until(lambda: ada.order(FOUND)[0] == "demo-gc2", message="Bob's move for Ada")
    # Bob's own answer travels on his connection, Ada's copy of his move on hers: either may come
    # first, so Bob's Undo is waited for, not assumed.
    wait_until(lambda: undoable(bob) == [True, False], message="Bob's Undo after his move")
    assert undoable(ada) == [True, False]
    ada.focus(".card[data-item='demo-gc5']")
    ada.chord(Keys.CONTROL, "z")
    home = ["demo-gc1", "demo-gc2", "demo-gc3", "demo-gc4", "demo-gc5", "demo-gc6", "demo-gc7", "demo-gc8"]
    for page in (ada, bob):
        wait_until(lambda: page.order(TO_FIND) == home, message=f"the undone move in {page.name}'s page")
    assert ada.order(FOUND) == bob.order(FOUND) == ["demo-gc9", "demo-gc10"]
    wait_until(lambda: undoable(ada) == [False, True], message="Redo to be enabled")
    ada.shot("undo-after-peer-move.png")
    # Redo moves it again: to where it was just before the undo (Bob's place).
    ada.named("Redo").click()
    for page in (ada, bob):
        wait_until(lambda: page.order(FOUND) == ["demo-gc2", "demo-gc9", "demo-gc10"], message=f"the redone move in {page.name}'s page")
    # Bob's Undo undoes his own move, never Ada's.
    bob.named("Undo").click()
    wait_until(lambda: bob.order(FOUND)[-1] == "demo-gc2", message="Bob's own move undone")
    wait_until(lambda: undoable(bob) == [False, True], message="Bob's Redo")

    # An edit: undone while the text is still Ada's, then redone with Shift+Ctrl+Z.
    ada.focus(".card[data-item='demo-gc1']")
    ada.type(Keys.F2)
    wait_until(lambda: ada.js("return document.activeElement.classList.contains('card-editor-title')"), message="the editor")
    ada.retype("Mill", Keys.ENTER)
    wait_until(lambda: bob.title("demo-gc1") == "Mill", message="the edit for Bob")
    wait_until(lambda: undoable(ada) == [True, False], message="Undo after the edit")
    ada.focus(".card[data-item='demo-gc1']")
    ada.chord(Keys.CONTROL, "z")
    for page in (ada, bob):
        wait_until(lambda: page.title("demo-gc1") == "Old Mill Wheel", message=f"the undone edit in {page.name}'s page")
    ActionChains(ada.driver).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
    for page in (ada, bob):
        wait_until(lambda: page.title("demo-gc1") == "Mill", message=f"the redone edit in {page.name}'s page")

    # A delete: the card comes back with its id, content and place; Ctrl+Y deletes it again.
    ada.focus(".card[data-item='demo-gc5']")
    ada.type(Keys.DELETE)
    wait_until(lambda: "demo-gc5" not in bob.order(TO_FIND), message="the delete for Bob")
    wait_until(lambda: undoable(ada) == [True, False], message="Undo after the delete")
    ada.named("Undo").click()
    for page in (ada, bob):
        wait_until(lambda: page.order(TO_FIND) == ["demo-gc1", "demo-gc3", "demo-gc4", "demo-gc5", "demo-gc6", "demo-gc7", "demo-gc8"] and page.title("demo-gc5") == "Chapel Ruin",
                   message=f"the card back in {page.name}'s page")
    ada.focus(".card[data-item='demo-gc6']")
    ada.chord(Keys.CONTROL, "y")
    for page in (ada, bob):
        wait_until(lambda: "demo-gc5" not in page.order(TO_FIND), message=f"the redone delete in {page.name}'s page")

    # An undo the room refuses says why, and the history moves past it: Bob edits the card Ada
    # edited, so undoing Ada's edit would overwrite his change.
    ada.named("Undo").click()  # the delete
    wait_until(lambda: "demo-gc5" in ada.order(TO_FIND), message="the delete undone again")
    ActionChains(bob.driver).double_click(bob.card("demo-gc1")).perform()
    wait_until(lambda: bob.js("return document.activeElement.classList.contains('card-editor-title')"), message="Bob's editor")
    bob.retype("Mill (Bob)", Keys.ENTER)
    wait_until(lambda: ada.title("demo-gc1") == "Mill (Bob)", message="Bob's edit for Ada")
    ada.named("Undo").click()  # Ada's redone edit
    wait_until(lambda: "Could not undo editing" in ada.toasts(), message="the refused undo")
    assert "“Mill (Bob)” was changed again since your edit" in ada.toasts() and not MACHINE_WORDS.search(ada.toasts())
    assert ada.title("demo-gc1") == bob.title("demo-gc1") == "Mill (Bob)"
    ada.shot("undo-refused.png")
    ada.named("Undo").click()  # the history moved on: the redone move before it
    for page in (ada, bob):
        wait_until(lambda: page.order(TO_FIND)[:3] == ["demo-gc1", "demo-gc2", "demo-gc3"], message=f"the next undo in {page.name}'s page")
    assert ada.title("demo-gc1") == "Mill (Bob)"
    assert ada.js("return window.corkboard.replica.pending.length") == 0


def test_share_dialog_rename_the_board_and_switch_grid_and_list(pair):
    ada, bob = pair
    ada.named("Share").click()
    rows = wait_until(lambda: ada.js("return [...document.querySelectorAll('dialog .share-link')].map(i => [i.getAttribute('aria-label'), i.value])"),
                      message="the share dialog")
    keys = ada.js("return window.corkboard.session.keys")
    base = f"http://127.0.0.1:{ada.port}/?board=demo"
    edit = f"{base}&key={keys['edit']}" if keys.get("edit") else base
    # An editor hands out the links of its role and those below it (R17): edit, comment and view.
    assert rows == [["Edit link", edit], ["Comment link", f"{base}&key={keys['comment']}"],
                    ["View link", f"{base}&key={keys['view']}"]]
    ada.find("dialog .copy-link").click()
    wait_until(lambda: ada.js("return document.querySelector('dialog .copy-status').textContent"), message="the copy's status")
    ada.shot("share.png")
    ada.type(Keys.ESCAPE)
    wait_until(lambda: not ada.js("return document.querySelector('dialog')"), message="the dialog to close")
    # The comment link opens the board for comments only; the view link read-only.
    for (label, link), badge in zip(rows[1:], ("Can comment", "View only")):
        bob.driver.get(link + "&name=Vi")
        bob.wait_live()
        assert bob.js("return document.querySelector('.role-badge').textContent") == badge, label
    bob.driver.get(f"http://127.0.0.1:{bob.port}/?board=demo&name=Bob")
    bob.wait_live()

    # Rename: everyone sees the new title; Ada's Undo gives the old one back.
    old = ada.js("return document.querySelector('.board-title').textContent")
    bob.named("Rename").click()
    field = wait_until(lambda: bob.js("return document.querySelector('dialog input')"), message="the rename dialog")
    assert field.get_attribute("value") == old
    bob.retype("Summer caches", Keys.ENTER)
    for page in (ada, bob):
        wait_until(lambda: page.js("return document.querySelector('.board-title').textContent") == "Summer caches",
                   message=f"the new title in {page.name}'s page")
    assert ada.driver.title == "Summer caches · Corkboard"

    # Grid or list, per collection, for everyone.
    assert bob.js("return document.querySelector(\".collection[data-collection='demo-inbox']\").dataset.layout") == "list"
    ada.collection_menu("demo-inbox")
    ada.menu_item("Show as a grid").click()
    for page in (ada, bob):
        wait_until(lambda: page.js("return document.querySelector(\".collection[data-collection='demo-inbox']\").dataset.layout") == "grid",
                   message=f"the Inbox as a grid in {page.name}'s page")
    ada.shot("layout-grid.png")
    ada.named("Undo").click()
    for page in (ada, bob):
        wait_until(lambda: page.js("return document.querySelector(\".collection[data-collection='demo-inbox']\").dataset.layout") == "list",
                   message=f"the Inbox back to a list in {page.name}'s page")
    bob.named("Undo").click()
    for page in (ada, bob):
        wait_until(lambda: page.js("return document.querySelector('.board-title').textContent") == old,
                   message=f"the old title back in {page.name}'s page")


def test_a_stalled_server_is_noticed_within_seconds_and_the_pages_come_back(pair, server):
    """SIGSTOP closes nothing: the pages notice the silence themselves (a ping after 1.5 s, the link
    given up after 5 s: web/js/net/connection.js LIVENESS) instead of after the 45 s they used to take."""
    ada, bob = pair
    state = "return document.querySelector('.connection').dataset.state"
    stopped = time.monotonic()
    server.process.send_signal(signal.SIGSTOP)
    try:
        for page in (ada, bob):
            wait_until(lambda: page.js(state) == "reconnecting", timeout=15,
                       message=f"{page.name} to notice the stalled server")
        noticed = time.monotonic() - stopped
    finally:
        server.process.send_signal(signal.SIGCONT)
    assert noticed < 7.0, f"the pages noticed the stall after {noticed:.1f} s"
    for page in (ada, bob):
        page.wait_live(timeout=20)
    ada.drag("demo-gc1", ada.section(FOUND), ada.after_last(FOUND))
    wait_until(lambda: bob.order(FOUND)[-1:] == ["demo-gc1"], message="a move after the pages came back")
