#!/usr/bin/env python3
"""Issue 44 benchmark: a 10 × 400 board in headless Chromium, a dragger's page and a watcher's page.

Fills the demo board of a fresh `corkboard serve` with 10 collections of 400 cards (through the
protocol, as Tests/python/test_search.py does), opens it in two browsers, and measures:
  load      navigation to interactive (every card in the page and then 500 ms without a long task)
  lift      pressing on a card and moving it (the dragger lifts, the watcher sees it lifted)
  hover     the pointer across several places in its collection and into another one
  drop      the release and the move that follows in both pages
  keyboard  Space, three Right arrows (a list further each), Space
  search    keystrokes in "Search cards" (the dragger's page), each timed to the frame that shows it
In each page a PerformanceObserver('longtask') and a requestAnimationFrame frame-gap recorder run
from the first script; each phase prints p50/p95/max frame gap and its long tasks (count, total,
longest) per page. docs/BENCHMARKS.md quotes it.

    CORKBOARD_BIN=/path/to/corkboard python3 scripts/bench_browser_board.py [--runs 3]
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from conftest import serve_demo  # noqa: E402
from test_browser import Page, new_browser, wait_until  # noqa: E402
from test_search import COLLECTIONS, PER_COLLECTION, SEARCH, fill_big  # noqa: E402
from test_big_board_frames import install_recorder, recorded  # noqa: E402  (the long-task and frame recorder)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

def now_ms():
    return time.time() * 1000


def percentile(values, p):
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary(frames, tasks):
    return {"frames": len(frames), "p50": percentile(frames, 50), "p95": percentile(frames, 95),
            "max": max(frames, default=0.0), "longtasks": len(tasks), "longtask_total": sum(tasks),
            "longtask_max": max(tasks, default=0.0)}


def load(page, expect):
    driver = page.driver
    began = now_ms()
    driver.get(f"http://127.0.0.1:{page.port}/?board=demo&name={page.name}")
    page.js(f"window.__bench.expect = {expect}")
    wait_until(lambda: page.js("return window.__bench.cardsAt"), timeout=120, message=f"{page.name}'s {expect} cards")
    # Interactive: the cards are in and then 500 ms pass without a long task.
    def quiet():
        data = page.js("return {now: performance.timeOrigin + performance.now(), lt: window.__bench.longtasks, cards: window.__bench.cardsAt}")
        ends = [t + d for t, d in data["lt"]]
        settled = max([data["cards"]] + ends)
        return settled if data["now"] - settled >= 500 else None
    settled = wait_until(quiet, timeout=120, message=f"{page.name} to be quiet")
    origin = page.js("return performance.timeOrigin")
    return {"cards_ms": page.js("return window.__bench.cardsAt") - origin, "interactive_ms": settled - origin,
            "since_get_ms": settled - began}


def card_center(page, item):
    return page.js("const r = document.querySelector(`.card[data-item='${arguments[0]}']`).getBoundingClientRect();"
                   "return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]", item)


def list_point(page, section, y_fraction):
    return page.js("const r = document.querySelector(`.items[data-section='${arguments[0]}']`).getBoundingClientRect();"
                   "const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);"
                   "return [Math.round(r.left + r.width / 2), Math.round(top + (bottom - top) * arguments[1])]",
                   section, y_fraction)


def quiet_frames(seconds=0.6):
    time.sleep(seconds)


lost = []  # the runs whose drag the room ended (its page lost the connection)


def run_once(dragger, watcher, phases, run):
    both = [dragger, watcher]
    marks = {}

    def phase(name, action):
        quiet_frames()
        start = now_ms()
        action()
        quiet_frames()  # the frames that show it, in both pages
        marks[name] = (start, now_ms())

    # Big 0 and Big 1 in view (the demo's collections come first); the card lifted near the top of Big 0.
    dragger.js("document.querySelector(`.collection[data-collection='big0']`).scrollIntoView({inline: 'start', block: 'nearest'})")
    time.sleep(0.3)
    item = dragger.js("return document.querySelector(`.items[data-section='big0s'] > .card:nth-child(3)`).dataset.item")
    x, y = card_center(dragger, item)

    def lift():
        builder = ActionBuilder(dragger.driver, duration=30)
        builder.pointer_action.move_to_location(x, y).pointer_down().pause(0.05)
        for k in range(1, 5):
            builder.pointer_action.move_to_location(x + 4 * k, y + 3 * k).pause(0.03)
        builder.perform()
        wait_until(lambda: watcher.js("return !!document.querySelector('.remote-lifted')"), timeout=30, message="the watcher to see the lift")

    def hover():
        builder = ActionBuilder(dragger.driver, duration=30)
        points = [list_point(dragger, "big0s", f) for f in (0.2, 0.35, 0.5, 0.65, 0.8)]
        points += [list_point(dragger, "big1s", f) for f in (0.8, 0.6, 0.4, 0.25)]
        px, py = x + 16, y + 12
        for tx, ty in points:
            for s in range(1, 6):  # a pointer that glides, several events per place
                builder.pointer_action.move_to_location(round(px + (tx - px) * s / 5), round(py + (ty - py) * s / 5)).pause(0.02)
            builder.pointer_action.pause(0.15)
            px, py = tx, ty
        builder.perform()
        target = wait_until(lambda: dragger.js("return window.corkboard.drag?.target?.section || "
                                               "(window.corkboard.events.some(e => e.event === 'cancel') ? 'lost' : null)"),
                            timeout=30, message="a drop target")
        if target == "lost":
            # The page froze until its connection dropped: the room ended the drag.
            lost.append(run)
            print(f"run {run}: the drag was lost during the hover (the page reconnected)", file=sys.stderr)
            return
        if target != "big1s":
            print(f"warning: the drag ended the hover over {target}, not big1s", file=sys.stderr)
        wait_until(lambda: watcher.js("return !!document.querySelector(`.items[data-section='${arguments[0]}'] > .remote-gap`)", target),
                   timeout=30, message="the watcher to see the gap")

    def drop():
        if run in lost:
            return
        builder = ActionBuilder(dragger.driver, duration=30)
        builder.pointer_action.pointer_up()
        builder.perform()
        wait_until(lambda: watcher.js("return !document.querySelector('.remote-lifted') && "
                                      "!!document.querySelector(`.items > .card[data-item='${arguments[0]}']`)", item),
                   timeout=30, message="the watcher to see the drop")

    phase("lift", lift)
    phase("hover", hover)
    phase("drop", drop)

    # Keyboard: a card near the top of Big 2 lifted with Space, three lists to the right, dropped.
    kitem = dragger.js("return document.querySelector(`.items[data-section='big2s'] > .card:nth-child(2)`).dataset.item")

    def keyboard():
        dragger.js("document.querySelector(`.card[data-item='${arguments[0]}']`).focus()", kitem)
        live = lambda: dragger.js("return window.corkboard.lastAnnouncement") or ""  # noqa: E731
        ActionChains(dragger.driver).send_keys(Keys.SPACE).perform()
        wait_until(lambda: "Lifted" in live(), timeout=30, message="the keyboard lift")
        for n in range(3):
            ActionChains(dragger.driver).send_keys(Keys.ARROW_RIGHT).perform()
            wait_until(lambda: f"in Big {3 + n}" in live(), timeout=30, message=f"the move to Big {3 + n}")
            time.sleep(0.2)
        ActionChains(dragger.driver).send_keys(Keys.SPACE).perform()
        wait_until(lambda: watcher.js("return !!document.querySelector(`.items[data-section='big5s'] > .card[data-item='${arguments[0]}']`)", kitem),
                   timeout=30, message="the watcher to see the keyboard drop")

    phase("keyboard", keyboard)

    # Search: real keystrokes in the field, each timed in the page to the frame that shows it.
    dragger.js(f"window.__keys = []; if (!window.__keysTimed) {{ window.__keysTimed = true; const input = document.querySelector(\"{SEARCH}\");"
               "input.addEventListener('input', () => { const t = performance.now();"
               "requestAnimationFrame(() => setTimeout(() => window.__keys.push(performance.now() - t), 0)); }); }")

    def search():
        field = dragger.driver.find_element("css selector", SEARCH)
        field.click()
        for ch in "cedar cafe 9":
            field.send_keys(ch)
            time.sleep(0.12)
        for _ in range(4):
            field.send_keys(Keys.BACKSPACE)
            time.sleep(0.12)
        field.send_keys(Keys.ESCAPE)

    phase("search", search)
    keys = dragger.js("return window.__keys")
    for name, (start, end) in marks.items():
        for page in both:
            frames, tasks = recorded(page, start, end)
            phases.setdefault((name, page.name), []).append(summary(frames, tasks))
    phases.setdefault(("search keystroke to frame", dragger.name), []).append(
        {"keys": len(keys), "p50": percentile(keys, 50), "p95": percentile(keys, 95), "max": max(keys, default=0)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="drag/keyboard/search rounds (default 3)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = serve_demo(Path(data) / "data")
        dragger_driver = new_browser()
        watcher_driver = new_browser()
        try:
            started = time.monotonic()
            rejections = asyncio.run(fill_big(server.port))
            assert not rejections, rejections
            print(f"filled {COLLECTIONS} × {PER_COLLECTION} cards in {time.monotonic() - started:.1f} s")
            expect = COLLECTIONS * PER_COLLECTION
            dragger = Page(dragger_driver, server.port, "Dragger")
            watcher = Page(watcher_driver, server.port, "Watcher")
            for page in (dragger, watcher):
                install_recorder(page.driver)
            loads = {}
            for page in (dragger, watcher):
                loads[page.name] = load(page, expect)
                print(f"load {page.name}: all cards at {loads[page.name]['cards_ms']:.0f} ms, "
                      f"interactive at {loads[page.name]['interactive_ms']:.0f} ms after navigation")
            wait_until(lambda: dragger.js("return document.querySelectorAll('.member').length") == 2, timeout=30, message="two members")
            phases = {}
            for run in range(args.runs):
                run_once(dragger, watcher, phases, run)
            print(f"{'phase':<28}{'page':<9}{'frames':>7}{'p50':>8}{'p95':>8}{'max':>8}{'LT n':>6}{'LT total':>10}{'LT max':>8}")
            for (name, page), runs in phases.items():
                for r in runs:
                    if "keys" in r:
                        print(f"{name:<28}{page:<9}{r['keys']:>7}{r['p50']:>8.1f}{r['p95']:>8.1f}{r['max']:>8.1f}")
                    else:
                        print(f"{name:<28}{page:<9}{r['frames']:>7}{r['p50']:>8.1f}{r['p95']:>8.1f}{r['max']:>8.1f}"
                              f"{r['longtasks']:>6}{r['longtask_total']:>10.0f}{r['longtask_max']:>8.0f}")
            if lost:
                print(f"drags lost in runs {lost}")
            if args.json:
                Path(args.json).write_text(json.dumps({"loads": loads, "phases": {f"{n}/{p}": v for (n, p), v in phases.items()}}, indent=1))
        finally:
            dragger_driver.quit()
            watcher_driver.quit()
            server.stop()


if __name__ == "__main__":
    main()
