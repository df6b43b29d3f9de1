"""Phones and tablets (issue 44) in real headless Chromium emulating a 390×844 phone with touch,
against `corkboard serve --demo`; touches are dispatched through the DevTools protocol
(`Input.dispatchTouchEvent`), so the page sees real touch and pointer events.

- A card long-pressed in the first collection and held at the screen's right edge turns the board
  to the next collection once per dwell, never a jump (the board's scroll position is sampled every
  frame), and dropped there it lands in that collection (on the server too: a reload shows it).
- A collection long-pressed by its header and held at the edge turns the board the same way.
- A swipe without a long press moves between collections (the board snaps to the next one).
- "Move to…" is reachable by touch from the card's ⋯ button.
- Dropping into a card takes the "Drop into" label: a pause alone over a card's middle drops beside
  it; holding on the label puts it inside.
- At 1,280 px nothing is cut off: the "+ Add collection" column is inside the board's visible area.

Reuses test_browser.py's pages, browser and waits.
"""

import time

import pytest

from test_browser import Page, console_errors, new_browser, server, wait_until  # noqa: F401

TO_FIND, FOUND = "demo-to-find", "demo-found"


@pytest.fixture(scope="module")
def driver():
    browser = new_browser()
    yield browser
    browser.quit()


def emulate(driver, width, height, phone):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 2 if phone else 1, "mobile": phone})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": phone, "maxTouchPoints": 5})


@pytest.fixture
def phone(driver, server):
    """Ada on the demo board in a 390×844 phone with touch; fails the test on console errors."""
    emulate(driver, 390, 844, True)
    driver.get_log("browser")
    page = Page(driver, server.port, "Ada")
    page.open()
    wait_until(lambda: page.js("return innerWidth") == 390, message="the phone's width")
    page.settle()
    yield page
    errors = console_errors(driver)
    driver.get("about:blank")
    assert not errors, f"errors in the browser console: {errors}"


def touch(page, kind, point=None):
    points = [] if kind == "touchEnd" else [{"x": point[0], "y": point[1]}]
    page.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def slide(page, start, end, steps=6, pause=0.02):
    for k in range(1, steps + 1):
        touch(page, "touchMove", (start[0] + (end[0] - start[0]) * k / steps, start[1] + (end[1] - start[1]) * k / steps))
        time.sleep(pause)


def long_press(page, point):
    touch(page, "touchStart", point)
    time.sleep(0.4)  # past the long press (220 ms)
    wait_until(lambda: page.events("lift"), message="the long press to lift the card")


def rect(page, css):
    return page.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                   "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}", css)


def centre(r, fx=0.5, fy=0.5):
    return r["left"] + r["width"] * fx, r["top"] + r["height"] * fy


def onto_middle(page, item, start):
    """Slides a lifted card's finger from `start` onto the middle of card `item` (again once the gap
    has made room, since the cards move as it opens) until the Drop into label shows; the point."""
    point = start
    for _ in range(4):
        target = centre(rect(page, f".card[data-item='{item}']"))
        slide(page, point, target, steps=4)
        point = target
        time.sleep(0.3)
        if page.js("return !!document.querySelector('.into-zone')"):
            return point
    raise AssertionError(f"no Drop into label over {item}: target {page.js('return JSON.stringify(window.corkboard.drag?.target)')}")


def board_left(page):
    return page.js("return document.querySelector('.board').scrollLeft")


def collection_offset(page, collection):
    """How far a collection's left edge is from the board's visible left edge."""
    return page.js("return document.querySelector(`.collection[data-collection='${arguments[0]}']`).getBoundingClientRect().left"
                   " - document.querySelector('.board').getBoundingClientRect().left", collection)


def sample_scrolls(page):
    """Records the board's scroll position at every animation frame from now on (bounded)."""
    page.js("window.__scrolls = []; const b = document.querySelector('.board');"
            "const f = (t) => { window.__scrolls.push([t, b.scrollLeft]); if (window.__scrolls.length < 2000) requestAnimationFrame(f); };"
            "requestAnimationFrame(f);")


def to_edge(page, start, edge):
    """Slides to just outside the edge zone (48 px), then into it at `edge`; the page's clock before it got there."""
    slide(page, start, (edge[0] - 60, edge[1]))
    before = page.js("return performance.now()")
    touch(page, "touchMove", edge)
    return before


def check_turns(page, reached, width):
    """The sampled scroll positions never jumped: nothing before a dwell at the edge (reached after
    `reached`, the page's clock), at most one collection `width` in any half second, and every
    frame a small step."""
    samples = page.js("const s = window.__scrolls.slice(); window.__scrolls.length = 5000; return s")  # and stops the sampler
    at_edge = [s for s in samples if s[0] >= reached]
    assert at_edge and at_edge[0][1] == samples[0][1] == 0
    # No turn before a dwell at the edge (500 ms; 450 leaves a frame's room).
    assert all(left == 0 for t, left in at_edge if t < reached + 450), at_edge[:40]
    for k, (t, left) in enumerate(samples):
        for t2, left2 in samples[k + 1:]:
            if t2 - t > 500:
                break
            assert abs(left2 - left) <= width + 16, f"{left} → {left2} in {t2 - t:.0f} ms"
    steps = [abs(b[1] - a[1]) for a, b in zip(samples, samples[1:])]
    assert max(steps) < width / 4, f"a frame scrolled {max(steps)} px"
    return samples


def test_a_card_held_at_the_edge_turns_one_collection_per_dwell_and_lands_in_the_next(phone):
    page = phone
    width = page.js("return document.querySelector(\".collection[data-collection='demo-found']\").getBoundingClientRect().width")
    sample_scrolls(page)
    start = centre(rect(page, ".card[data-item='demo-gc1']"))
    long_press(page, start)
    edge = (386, start[1])
    reached = to_edge(page, start, edge)
    # Held at the edge, the board turns to Found after a dwell, and only then.
    wait_until(lambda: abs(collection_offset(page, FOUND)) < 30, timeout=5, message="the board to turn to Found",
               describe=lambda: board_left(page))
    # Back to the middle of the screen, over Found, and down to below its cards.
    slide(page, edge, (195, start[1]))
    after = rect(page, ".items[data-section='demo-found']")
    slide(page, (195, start[1]), (195, after["bottom"] - 8))
    time.sleep(0.2)
    assert abs(collection_offset(page, FOUND)) < 30, "the board stays on Found once the finger leaves the edge"
    touch(page, "touchEnd")
    wait_until(lambda: "demo-gc1" in page.order(FOUND), message="the card to land in Found",
               describe=lambda: (page.order(TO_FIND), page.order(FOUND)))
    check_turns(page, reached, width)
    # The server has it: a fresh page shows the card in Found.
    page.open()
    assert "demo-gc1" in page.order(FOUND) and "demo-gc1" not in page.order(TO_FIND)


def test_a_collection_held_at_the_edge_turns_one_collection_per_dwell_too(phone):
    page = phone
    width = page.js("return document.querySelector(\".collection[data-collection='demo-found']\").getBoundingClientRect().width")
    sample_scrolls(page)
    start = centre(rect(page, ".collection[data-collection='demo-caches'] .collection-title"))
    touch(page, "touchStart", start)
    time.sleep(0.5)  # past the header's long press (300 ms)
    wait_until(lambda: page.js("return document.body.classList.contains('moving-collection')"), message="the collection to lift")
    edge = (386, start[1])
    reached = to_edge(page, start, edge)
    wait_until(lambda: abs(collection_offset(page, FOUND)) < 30, timeout=5, message="the board to turn to Found",
               describe=lambda: board_left(page))
    slide(page, edge, (200, start[1]))
    time.sleep(0.2)
    touch(page, "touchEnd")
    check_turns(page, reached, width)
    wait_until(lambda: page.js("return window.corkboard.board.collections.map(c => c.id)")[:2] == [FOUND, "demo-caches"],
               message="To find's collection after Found", describe=lambda: page.js("return window.corkboard.board.collections.map(c => c.id)"))


def test_a_swipe_moves_between_collections(phone):
    page = phone
    assert board_left(page) == 0
    y = centre(rect(page, ".card[data-item='demo-gc1']"))[1]
    touch(page, "touchStart", (300, y))
    slide(page, (300, y), (90, y), steps=5, pause=0.016)
    touch(page, "touchEnd")
    wait_until(lambda: abs(collection_offset(page, FOUND) - 12) < 8, message="the board to snap to Found",
               describe=lambda: (board_left(page), collection_offset(page, FOUND)))
    assert not page.events("lift"), "a swipe is not a drag"
    time.sleep(0.3)
    assert abs(collection_offset(page, FOUND) - 12) < 8, "it stays on Found (snapped)"


def test_move_to_is_reachable_by_touch_on_the_phone(phone):
    page = phone
    button = rect(page, ".card[data-item='demo-gc1'] .card-menu-button")
    assert button["width"] >= 36 and button["height"] >= 30, button
    assert 0 <= button["left"] and button["right"] <= 390 and 0 <= button["top"] and button["bottom"] <= 844, button
    point = centre(button)
    touch(page, "touchStart", point)
    touch(page, "touchEnd")
    item = page.menu_item("Move to…")
    r = page.js("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", item)
    assert r[0] >= 0 and r[0] + r[2] <= 390 and r[1] + r[3] <= 844 and r[3] >= 40, r
    touch(page, "touchStart", (r[0] + r[2] / 2, r[1] + r[3] / 2))
    touch(page, "touchEnd")
    wait_until(lambda: page.js("return !!document.querySelector('dialog.dialog[open]')"), message="the Move to dialog")
    page.js("const s = document.querySelector(\"dialog select[name='collection']\"); s.value = 'demo-found';"
            "s.dispatchEvent(new Event('change', {bubbles: true}));")
    move = page.js("const b = [...document.querySelectorAll('dialog.dialog[open] button')].find(b => b.textContent === 'Move');"
                   "const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r.bottom]")
    assert move[2] <= 844, "the Move button is on the screen"
    touch(page, "touchStart", move[:2])
    touch(page, "touchEnd")
    wait_until(lambda: "demo-gc1" in page.order(FOUND), message="the card moved to Found by touch")


def test_dropping_into_a_card_takes_the_drop_into_label_not_a_pause(phone):
    page = phone
    # A pause of a second and a half over the middle of a card: the label shows, the drop goes beside.
    start = centre(rect(page, ".card[data-item='demo-gc1']"))
    long_press(page, start)
    middle = onto_middle(page, "demo-gc3", start)
    wait_until(lambda: page.js("return document.querySelector('.into-zone')?.textContent") == "Drop into", message="the Drop into label")
    time.sleep(1.5)
    assert not page.has_class(".card[data-item='demo-gc3']", "into-target"), "a pause alone does not drop into"
    touch(page, "touchEnd")
    wait_until(lambda: not page.js("return document.querySelector('.ghost, .into-zone')"), message="the drop to end")
    assert page.js("return window.corkboard.board.item('demo-gc3').children") is None
    assert "demo-gc1" in page.order(TO_FIND), "dropped beside, in the same collection"
    # Holding on the label puts the card inside.
    page.settle()
    start = centre(rect(page, ".card[data-item='demo-gc2']"))
    long_press(page, start)
    middle = onto_middle(page, "demo-gc4", start)
    label = wait_until(lambda: page.js("const z = document.querySelector('.into-zone'); if (!z) return null;"
                                       "const r = z.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]"),
                       message="the Drop into label")
    slide(page, middle, label, steps=3)
    wait_until(lambda: page.has_class(".card[data-item='demo-gc4']", "into-target"), message="the card to take the drag")
    assert page.js("return document.querySelector('.into-zone').textContent") == "Release to drop into"
    touch(page, "touchEnd")
    wait_until(lambda: page.js("return window.corkboard.board.item('demo-gc4').children?.map(c => c.id)") == ["demo-gc2"],
               message="the group")


def test_nothing_is_cut_off_at_1280_px(driver, server):
    emulate(driver, 1280, 800, False)
    try:
        page = Page(driver, server.port, "Ada")
        page.open()
        wait_until(lambda: page.js("return innerWidth") == 1280, message="the 1,280 px width")
        page.settle()
        fits = page.js("""
            const b = document.querySelector('.board'), a = document.querySelector('.add-collection');
            const inside = () => {
              const br = b.getBoundingClientRect(), r = a.getBoundingClientRect();
              return r.left >= br.left && r.right <= br.left + b.clientWidth && r.top >= br.top && r.bottom <= br.top + b.clientHeight
                && r.right <= innerWidth && r.width > 100;
            };
            const atStart = inside();
            a.scrollIntoView({block: 'nearest', inline: 'nearest'});
            return {atStart, scrolled: inside(), overflow: b.scrollWidth - b.clientWidth,
                    hit: document.elementFromPoint(a.getBoundingClientRect().right - 4, a.getBoundingClientRect().top + 4) === a};
        """)
        assert fits == {"atStart": True, "scrolled": True, "overflow": 0, "hit": True}, fits
        assert not console_errors(driver)
    finally:
        driver.get("about:blank")
        emulate(driver, 1400, 900, False)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
