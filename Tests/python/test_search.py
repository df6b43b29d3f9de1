"""Search and filter (issue 43) in two real browsers, against `corkboard serve --demo`.

Ada presses `/`, types in "Search cards" and sees "N of M" in each collection's header; she adds a
label filter, the address carries both and a reload keeps them. Bob (unfiltered) moves a matching
card and labels another: Ada's filtered view follows live. In the filtered view a keyboard move and
a pointer drop land at the board's own index, where the gap showed, not at an index among the cards
in view. On a board of 4,000 cards (10 × 400) each keystroke updates the view within a frame or
two. The assignee and due filters pick their cards, and axe finds nothing serious in the filter bar
or the collections' counts.

Reuses test_browser.py's browsers and pages, and test_card_details.py's axe script.
"""

import asyncio
import json
import re
import statistics
import time

import websockets

from test_browser import Keys, Page, browsers, console_errors, pair, server, wait_until  # noqa: F401
from test_card_details import axe_script

TO_FIND, FOUND = "demo-to-find", "demo-found"  # sections; their collections:
CACHES = "demo-caches"
SEARCH = "input[aria-label='Search cards']"


def cards(page):
    """Every card of the board as the test reads it independently: id, collection, text, labels."""
    return page.js("""
        const b = window.corkboard.board;
        const names = new Map(b.labels.map(l => [l.id, l.name]));
        return b.collections.flatMap(c => c.sections.flatMap(s => s.items.map(i => ({
          id: i.id, collection: c.id,
          text: [...i.representations.filter(r => r.type === 'public.plain-text').map(r => r.value),
                 ...(i.details?.labels || []).map(l => names.get(l))].join(' '),
          labels: i.details?.labels || []}))));
    """)


def expected_counts(page, word, label=None):
    """collection → "shown of total", computed here from the board (not by the page's filter)."""
    counts = {}
    for card in cards(page):
        shown, total = counts.get(card["collection"], (0, 0))
        passes = word in card["text"].lower() and (label is None or label in card["labels"])
        counts[card["collection"]] = (shown + passes, total + 1)
    return {c: f"{s} of {t}" for c, (s, t) in counts.items()}


def shown_counts(page):
    return page.js("""
        return Object.fromEntries([...document.querySelectorAll('.collection')].map(c => [c.dataset.collection,
          c.querySelector('.collection-filter-count')?.hidden === false ? c.querySelector('.collection-filter-count').textContent : null]));
    """)


def in_view(page, section):
    return page.js("return [...document.querySelectorAll(`.items[data-section='${arguments[0]}'] > .card`)]"
                   ".filter(c => c.offsetParent !== null).map(c => c.dataset.item)", section)


def model_order(page, section):
    return page.js("return window.corkboard.board.itemIDs(arguments[0])", section)


def label_cards(page, ids, label="l-field", name="Fieldwork"):
    page.js("""
        const [ids, label, name] = arguments;
        const s = window.corkboard.session;
        if (!window.corkboard.board.labels.some(l => l.id === label)) s.submit({kind: 'setLabel', label: {id: label, name, color: 'green'}});
        for (const id of ids) s.submit({kind: 'updateCard', item: id, addLabels: [label]});
    """, ids, label, name)


def test_search_and_label_filter_follow_peers_survive_a_reload_and_keep_model_indices(pair):
    ada, bob = pair
    label_cards(ada, ["demo-gc2", "demo-gc5", "demo-gc6", "demo-gc7"])
    wait_until(lambda: len(bob.js("return window.corkboard.board.labels")) == 1 and not ada.js("return window.corkboard.replica.pending.length"),
               message="the label on the board")

    # `/` from the board focuses "Search cards"; typing filters as it goes ("the", typed in capitals).
    ada.js("document.activeElement?.blur()")
    ada.type("/")
    assert ada.js("return document.activeElement.getAttribute('aria-label')") == "Search cards"
    ada.type("THE")
    want = expected_counts(ada, "the")
    assert want[CACHES] != "8 of 8" and want[FOUND] != "2 of 2", "the query hides some cards"
    wait_until(lambda: shown_counts(ada) == want, message="Ada's counts", describe=lambda: shown_counts(ada))
    assert shown_counts(bob) == {c: None for c in want}, "Bob's view is not filtered"

    # The label filter, by its accessible name; the address carries both, beside the board.
    choose(ada, "Label filter", "l-field")
    want = expected_counts(ada, "the", "l-field")
    wait_until(lambda: shown_counts(ada) == want, message="Ada's labelled counts", describe=lambda: shown_counts(ada))
    address = ada.js("return location.href")
    assert re.search(r"[?&]board=demo\b", address) and "q=THE" in address and "label=l-field" in address, address
    assert in_view(ada, TO_FIND) == ["demo-gc2", "demo-gc5", "demo-gc7"]

    ada.driver.refresh()
    ada.wait_live()
    wait_until(lambda: shown_counts(ada) == want, message="the counts after a reload", describe=lambda: shown_counts(ada))
    assert ada.js("return [document.querySelector(arguments[0]).value, document.querySelector(\"select[aria-label='Label filter']\").value]",
                  SEARCH) == ["THE", "l-field"]

    # Bob moves a matching card (a real drag in his unfiltered view) and labels another: Ada follows.
    bob.drag("demo-gc5", bob.section(FOUND), bob.after_last(FOUND))
    label_cards(bob, ["demo-gc8"])
    wait_until(lambda: in_view(ada, FOUND)[-1:] == ["demo-gc5"] and "demo-gc8" in in_view(ada, TO_FIND),
               message="Bob's move and label in Ada's filtered view", describe=lambda: (in_view(ada, TO_FIND), in_view(ada, FOUND)))
    assert ada.js("return document.querySelector(\".card[data-item='demo-gc8']\").getAnimations().length") == 0, \
        "a card the filter lets in appears in its place (it does not fly in from the page's corner)"
    want = expected_counts(ada, "the", "l-field")
    wait_until(lambda: shown_counts(ada) == want, message="Ada's counts after Bob's changes", describe=lambda: shown_counts(ada))
    ada.shot("search-filtered.png")

    # A keyboard move: gc2, one step down, goes just past gc7 (the next card in view), not one place
    # down the board (that is past gc3, which the filter hides).
    assert in_view(ada, TO_FIND) == ["demo-gc2", "demo-gc7", "demo-gc8"]
    before = model_order(ada, TO_FIND)
    ada.focus(".card[data-item='demo-gc2']")
    ada.type(" ")
    wait_until(lambda: ada.js("return !!window.corkboard.drag"), message="Ada's keyboard lift")
    ada.type(Keys.ARROW_DOWN)
    ada.type(" ")
    rest = [i for i in before if i != "demo-gc2"]
    landed = rest[:rest.index("demo-gc7") + 1] + ["demo-gc2"] + rest[rest.index("demo-gc7") + 1:]
    for page in (ada, bob):
        wait_until(lambda: model_order(page, TO_FIND) == landed, message=f"the keyboard drop in {page.name}'s board",
                   describe=lambda: model_order(page, TO_FIND))
    assert in_view(ada, TO_FIND) == ["demo-gc7", "demo-gc2", "demo-gc8"]

    # A pointer drop on gc7's left half, after hidden cards: the gap stands just before gc7, and so
    # does the card, in the board's own order.
    ada.lift("demo-gc8", to=ada.card("demo-gc7"), offset=ada.left_half("demo-gc7"))
    target = wait_until(lambda: ada.js("const t = window.corkboard.drag?.target; return t && t.section === arguments[0] && t", TO_FIND),
                        message="Ada's drag target")
    rest = [i for i in model_order(ada, TO_FIND) if i != "demo-gc8"]
    assert target["index"] == rest.index("demo-gc7"), (target, rest)
    assert ada.js("const g = document.querySelector('.gap'); let n = g.nextElementSibling;"
                  "while (n && n.offsetParent === null) n = n.nextElementSibling; return n?.dataset.item") == "demo-gc7"
    ada.release()
    landed = rest[:rest.index("demo-gc7")] + ["demo-gc8"] + rest[rest.index("demo-gc7"):]
    for page in (ada, bob):
        wait_until(lambda: model_order(page, TO_FIND) == landed, message=f"the pointer drop in {page.name}'s board",
                   describe=lambda: model_order(page, TO_FIND))

    # Escape in the field empties the search (the label filter stays); Clear filters ends the rest.
    ada.find(SEARCH).click()
    ada.type(Keys.ESCAPE)
    wait_until(lambda: "q=" not in ada.js("return location.href"), message="the search emptied")
    assert "label=l-field" in ada.js("return location.href")
    ada.named("Clear filters").click()
    wait_until(lambda: set(shown_counts(ada).values()) == {None}, message="no counts once the filters are clear")
    assert "label=" not in ada.js("return location.href") and len(in_view(ada, TO_FIND)) == len(model_order(ada, TO_FIND))


def choose(page, name, value):
    page.js("const s = document.querySelector(`select[aria-label='${arguments[0]}']`); s.value = arguments[1];"
            "s.dispatchEvent(new Event('change', {bubbles: true}))", name, value)


def test_assignee_and_due_filters_and_axe_finds_nothing_serious_in_the_filter_bar(pair):
    ada, _ = pair
    label_cards(ada, ["demo-gc1"], "l-late", "Later")
    ada.js("""
        const s = window.corkboard.session;
        s.submit({kind: 'updateCard', item: 'demo-gc1', assign: ['Bob']});
        s.submit({kind: 'updateCard', item: 'demo-gc3', dates: {due: Date.now() - 3600e3, version: 0}});
        s.submit({kind: 'updateCard', item: 'demo-gc9', dates: {due: Date.now() + 48 * 3600e3, version: 0}});
    """)
    wait_until(lambda: not ada.js("return window.corkboard.replica.pending.length"), message="Ada's changes")
    # In a text field `/` is a character, not the way to the search.
    ada.find(SEARCH).send_keys("a/b")
    assert ada.js("return document.querySelector(arguments[0]).value", SEARCH) == "a/b"
    ada.find(SEARCH).clear()
    choose(ada, "Assignee filter", "Bob")
    wait_until(lambda: shown_counts(ada)[CACHES] == "1 of 8" and in_view(ada, TO_FIND) == ["demo-gc1"], message="Bob's cards")
    choose(ada, "Assignee filter", "")
    for due, section, cards_in_view in [("overdue", TO_FIND, ["demo-gc3"]), ("week", FOUND, ["demo-gc9"])]:
        choose(ada, "Due filter", due)
        wait_until(lambda: in_view(ada, section) == cards_in_view, message=f"the {due} cards", describe=lambda: shown_counts(ada))
    choose(ada, "Due filter", "none")
    wait_until(lambda: shown_counts(ada)[CACHES] == "7 of 8" and shown_counts(ada)[FOUND] == "1 of 2", message="the cards without a date")
    assert "due=none" in ada.js("return location.href")
    choose(ada, "Due filter", "")
    # "Has unchecked items": only cards with a checklist item still to do; checklist text is searched.
    ada.js("""
        const s = window.corkboard.session;
        s.submit({kind: 'checklist', item: 'demo-gc2', checklist: 'k-gear', action: 'add', name: 'Gear'});
        s.submit({kind: 'checklist', item: 'demo-gc2', checklist: 'k-gear', action: 'addItem', entry: 'e-rope', text: 'Climbing rope'});
        s.submit({kind: 'checklist', item: 'demo-gc4', checklist: 'k-done', action: 'add', name: 'Done list'});
        s.submit({kind: 'checklist', item: 'demo-gc4', checklist: 'k-done', action: 'addItem', entry: 'e-map', text: 'Map', done: true});
    """)
    wait_until(lambda: not ada.js("return window.corkboard.replica.pending.length"), message="Ada's checklists")
    toggle_unchecked = "[...document.querySelectorAll('.filter-toggle')].find(l => l.textContent === 'Has unchecked items').click()"
    ada.js(toggle_unchecked)
    wait_until(lambda: in_view(ada, TO_FIND) == ["demo-gc2"] and shown_counts(ada)[FOUND] == "0 of 2",
               message="the cards with unchecked items", describe=lambda: shown_counts(ada))
    assert "unchecked=1" in ada.js("return location.href")
    ada.js(toggle_unchecked)
    wait_until(lambda: "unchecked=1" not in ada.js("return location.href"), message="the toggle off")
    ada.find(SEARCH).send_keys("climbing")
    wait_until(lambda: in_view(ada, TO_FIND) == ["demo-gc2"] and shown_counts(ada)[CACHES] == "1 of 8",
               message="a checklist item's text found", describe=lambda: shown_counts(ada))
    ada.find(SEARCH).send_keys(Keys.ESCAPE)
    wait_until(lambda: not ada.js("return document.querySelector(arguments[0]).value", SEARCH), message="the search emptied")
    ada.find(SEARCH).send_keys("mill")
    wait_until(lambda: shown_counts(ada)[CACHES] == "1 of 8", message="the filtered board")
    ada.js(axe_script())
    # What this change adds: the filter bar and the collections' headers with their counts.
    result = ada.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run({include: [['.filter-bar'], ['.collection-header']]}).then(r => done({"
        "  checked: r.passes.flatMap(p => p.nodes.map(n => n.target.join(' '))),"
        "  violations: r.violations.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => "
        "    ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}))}));")
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)
    assert {".search-input", ".filter-check", 'select[aria-label="Label\\ filter"]', 'select[aria-label="Due\\ filter"]'} <= set(result["checked"]), result["checked"]


COLLECTIONS, PER_COLLECTION = 10, 400
WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "inlet", "juniper"]


async def fill_big(port):
    """10 collections of 400 cards each ("Card 3-217 cedar …"), through the protocol; returns rejections."""
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"], open_timeout=5, max_size=None)
    rejections = []
    try:
        await ws.send(json.dumps({"type": "hello", "ref": "h", "protocol": 1, "board": "demo", "name": "filler"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        ops = []
        for c in range(COLLECTIONS):
            ops.append({"kind": "createCollection", "id": f"big{c}", "title": f"Big {c}", "layout": "list",
                        "sections": [{"id": f"big{c}s", "title": ""}]})
            items = []
            for n in range(PER_COLLECTION):
                name = f"Card {c}-{n} {WORDS[(c + n) % 10]}"
                text = f"{WORDS[n % 7]} trail {'Café' if n % 5 == 0 else 'depot'}"
                items.append({"representations": [{"type": "corkboard.card", "value": json.dumps({"name": name, "summary": text})},
                                                  {"type": "public.plain-text", "value": f"{name}: {text}"}]})
            ops.append({"kind": "insert", "items": items, "destination": {
                "collection": f"big{c}", "section": f"big{c}s", "index": 0, "intent": "insertAtDestinationIndexPath"}})
        for n, op in enumerate(ops):
            await ws.send(json.dumps({"type": "submit", "ref": f"b{n}", "opId": f"big-{n}", "base": 0, "op": op}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if message["type"] == "ack" or message["type"] == "error":
                    break
            if message["type"] == "error" or message["outcome"]["kind"] == "rejected":
                rejections.append(message)
            await asyncio.sleep(0.06)  # inside the room's rate limit
    finally:
        await ws.close()
    return rejections


def test_each_keystroke_on_a_4000_card_board_updates_within_a_frame_or_two(browsers, server):
    assert asyncio.run(fill_big(server.port)) == []
    ada = Page(browsers[0], server.port, "Ada")
    ada.driver.get_log("browser")
    ada.open()
    wait_until(lambda: ada.js("return document.querySelectorAll('.card').length") >= COLLECTIONS * PER_COLLECTION,
               timeout=60, message="the big board")
    # Each keystroke as the field gets it (an input event), timed to the end of the frame that shows it.
    timings = ada.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const input = document.querySelector(arguments[0]);
        const query = arguments[1];
        const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
        (async () => {
          const out = [];
          for (let round = 0; round < 2; round++) {
            for (let n = 1; n <= query.length; n++) {
              await frame();
              const began = performance.now();
              input.value = query.slice(0, n);
              input.dispatchEvent(new Event('input', {bubbles: true}));
              await frame();
              document.body.offsetHeight; // the layout of what the frame shows
              out.push({text: input.value, ms: performance.now() - began, update: window.corkboard.search.lastUpdateMs,
                        shown: document.querySelectorAll('.card:not(.filtered-out)').length});
            }
            input.value = '';
            input.dispatchEvent(new Event('input', {bubbles: true}));
            await frame();
          }
          done(out);
        })();
    """, SEARCH, "cedar cafe 9")
    # The last query's cards, counted here: "cedar", "café" (accents ignored) and "9" in one card.
    expected = sum(1 for c in range(COLLECTIONS) for n in range(PER_COLLECTION)
                   if "cedar" in (WORDS[(c + n) % 10], WORDS[n % 7]) and n % 5 == 0 and "9" in f"{c}-{n}")
    assert expected > 0 and timings[-1]["text"] == "cedar cafe 9" and timings[-1]["shown"] == expected, timings[-1]
    keystrokes = [t["ms"] for t in timings]
    updates = [t["update"] for t in timings]
    summary = (f"keystroke to frame: median {statistics.median(keystrokes):.1f} ms, max {max(keystrokes):.1f} ms; "
               f"update alone: median {statistics.median(updates):.1f} ms, max {max(updates):.1f} ms, over {len(timings)} keystrokes")
    print(summary)
    # The update (classes and counts) within 50 ms; with the frame that lays out what it shows
    # (Chromium's layout of thousands of cards, the cost of which grows with the cards shown or
    # hidden), loosely, so a loaded CI machine meets it too.
    assert statistics.median(updates) < 50, summary
    assert statistics.median(keystrokes) < 250, summary
    errors = console_errors(ada.driver)
    ada.driver.get("about:blank")
    assert not errors, errors
