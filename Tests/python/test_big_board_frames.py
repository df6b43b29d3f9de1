"""Issue 44: a 10 × 400 board stays responsive in real headless Chromium while someone drags.

A dragger's page and a watcher's page on a board of 10 collections × 400 cards: a pointer drag
(lift, hover down the collection and into the next one, drop) and a keyboard lift moved two lists
to the right and dropped. A PerformanceObserver('longtask') in each page, installed before the
page's own scripts, records every task over 50 ms. The bound here is loose (CI machines are slow
and shared); scripts/bench_browser_board.py measures frames exactly.
"""

import asyncio

from test_browser import Page, browsers, server, wait_until  # noqa: F401
from test_search import COLLECTIONS, PER_COLLECTION, fill_big

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys

# Runs before the page's own scripts (Page.addScriptToEvaluateOnNewDocument): long tasks and frame
# gaps, in epoch milliseconds so that pages and the driver share one clock.
RECORDER = """
(() => {
  const origin = performance.timeOrigin;
  const rec = { longtasks: [], frames: [], cardsAt: null, expect: 0 };
  window.__bench = rec;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) rec.longtasks.push([origin + e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { rec.noLongtask = String(e); }
  let last = null;
  const frame = (t) => {
    if (last !== null) rec.frames.push([origin + t, t - last]);
    last = t;
    if (rec.frames.length > 20000) rec.frames.splice(0, 10000);
    if (rec.cardsAt === null && rec.expect && document.querySelectorAll('.card').length >= rec.expect) rec.cardsAt = origin + t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();
"""

# The longest task allowed in either page while anyone drags: loose, so a loaded CI run meets it
# (on a 2-core machine at load average 17–21 the longest were 0.35–0.57 s; the freezes this guards
# against lasted 0.7–2.3 s on a quiet one, 1–5 s at that load, long enough to lose the drag).
LONG_TASK_LIMIT_MS = 1000


def install_recorder(driver):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})


def now_ms(page):
    return page.js("return performance.timeOrigin + performance.now()")


def recorded(page, start, end):
    """The frame gaps and the long tasks of `page` that overlap [start, end] (epoch ms)."""
    data = page.js("return {frames: window.__bench.frames, longtasks: window.__bench.longtasks}")
    frames = [d for t, d in data["frames"] if start <= t <= end]
    tasks = [d for t, d in data["longtasks"] if start <= t + d and t <= end]
    return frames, tasks


def open_big(page, expect):
    page.driver.get(f"http://127.0.0.1:{page.port}/?board=demo&name={page.name}")
    page.js(f"window.__bench.expect = {expect}")
    wait_until(lambda: page.js("return window.__bench.cardsAt"), timeout=60, message=f"{page.name}'s {expect} cards")


def test_dragging_on_a_10_by_400_board_freezes_neither_page(browsers, server):
    assert asyncio.run(fill_big(server.port)) == []
    dragger, watcher = Page(browsers[0], server.port, "Dragger"), Page(browsers[1], server.port, "Watcher")
    for page in (dragger, watcher):
        page.driver.get_log("browser")
        install_recorder(page.driver)
    try:
        for page in (dragger, watcher):
            open_big(page, COLLECTIONS * PER_COLLECTION)
        wait_until(lambda: dragger.js("return document.querySelectorAll('.member').length") == 2, timeout=30, message="two members")
        # Big 0 and Big 1 in view (the demo's own collections come first).
        dragger.js("document.querySelector(`.collection[data-collection='big0']`).scrollIntoView({inline: 'start', block: 'nearest'})")
        dragger.js("return new Promise(r => setTimeout(r, 300))")
        start = now_ms(dragger)
        item = dragger.js("return document.querySelector(`.items[data-section='big0s'] > .card:nth-child(3)`).dataset.item")
        x, y = dragger.js("const r = document.querySelector(`.card[data-item='${arguments[0]}']`).getBoundingClientRect();"
                          "return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]", item)
        tx, ty = dragger.js("const r = document.querySelector(`.items[data-section='big1s']`).getBoundingClientRect();"
                            "return [Math.round(r.left + r.width / 2), Math.round(Math.max(r.top, 0) + 160)]")
        builder = ActionBuilder(dragger.driver, duration=30)
        builder.pointer_action.move_to_location(x, y).pointer_down().pause(0.05)
        for k in range(1, 9):  # down the collection, a card at a time
            builder.pointer_action.move_to_location(x + 8, y + 30 * k).pause(0.05)
        for k in range(1, 6):  # across into the next collection
            builder.pointer_action.move_to_location(round(x + (tx - x) * k / 5), round(y + 240 + (ty - y - 240) * k / 5)).pause(0.05)
        builder.pointer_action.pause(0.3)
        builder.perform()
        wait_until(lambda: dragger.js("return window.corkboard.drag?.target?.section") == "big1s", timeout=30, message="a target in Big 1")
        wait_until(lambda: watcher.js("return !!document.querySelector(`.items[data-section='big1s'] > .remote-gap`)"),
                   timeout=30, message="the watcher to see the gap in Big 1")
        release = ActionBuilder(dragger.driver, duration=30)
        release.pointer_action.pointer_up()
        release.perform()
        wait_until(lambda: watcher.js("return !!document.querySelector(`.items[data-section='big1s'] > .card[data-item='${arguments[0]}']`)", item),
                   timeout=30, message="the watcher to see the drop")
        # Keyboard: Space lifts a card in Big 2, two Right arrows move it two lists on, Space drops.
        kitem = dragger.js("return document.querySelector(`.items[data-section='big2s'] > .card:nth-child(2)`).dataset.item")
        dragger.js("document.querySelector(`.card[data-item='${arguments[0]}']`).focus()", kitem)
        live = lambda: dragger.js("return window.corkboard.lastAnnouncement") or ""  # noqa: E731
        ActionChains(dragger.driver).send_keys(Keys.SPACE).perform()
        wait_until(lambda: "Lifted" in live(), timeout=30, message="the keyboard lift")
        for n in (3, 4):
            ActionChains(dragger.driver).send_keys(Keys.ARROW_RIGHT).perform()
            wait_until(lambda: f"in Big {n}" in live(), timeout=30, message=f"the move to Big {n}")
        ActionChains(dragger.driver).send_keys(Keys.SPACE).perform()
        wait_until(lambda: watcher.js("return !!document.querySelector(`.items[data-section='big4s'] > .card[data-item='${arguments[0]}']`)", kitem),
                   timeout=30, message="the watcher to see the keyboard drop")
        dragger.js("return new Promise(r => setTimeout(r, 500))")
        end = now_ms(dragger)
        report = {}
        for page in (dragger, watcher):
            assert not page.js("return window.__bench.noLongtask"), "Chromium reports no long tasks here"
            frames, tasks = recorded(page, start, end)
            report[page.name] = {"frames": len(frames), "longest frame ms": round(max(frames, default=0)),
                                 "long tasks": len(tasks), "longest task ms": round(max(tasks, default=0))}
        print(report)
        assert all(r["frames"] > 10 for r in report.values()), report
        assert all(r["longest task ms"] <= LONG_TASK_LIMIT_MS for r in report.values()), report
        for page in (dragger, watcher):
            errors = [e for e in page.driver.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, errors
    finally:
        for page in (dragger, watcher):
            page.driver.get("about:blank")
