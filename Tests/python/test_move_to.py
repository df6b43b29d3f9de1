"""Move to… (issue 44) in two real browsers, against `corkboard serve --demo`: WCAG 2.2's
single-pointer alternative to dragging (2.5.7), and pages that leave cleanly.

Ada moves a card by its menu's "Move to…" to a chosen collection and position, and Bob sees it land
there live; she does it again with the keyboard alone (M, Tab, arrows, Enter) and focus comes back
to the moved card (and Undo takes it back, as for a drop); a selection of two cards moves together;
a collection moves by its menu; a card moves to another board she opened before (both boards'
pages agree); a collection that does not take a card is refused in the dialog; axe finds nothing
serious in the dialog. A tab that navigates away leaves everyone's members list at once and is
listed once again when it comes back.

Reuses test_browser.py's browsers and pages, and test_card_details.py's axe-core script.
"""

import json
import time

from conftest import create_board_in, serve_demo
from test_browser import Keys, Page, browsers, console_errors, pair, server, wait_until  # noqa: F401
from test_card_details import axe_script

from selenium.webdriver.support.select import Select

TO_FIND, FOUND, INBOX = "demo-to-find", "demo-found", "demo-inbox"
DIALOG = "dialog.dialog[open]"


def open_dialog_from_menu(page, item, name="Move to…"):
    page.card_menu(item)
    page.menu_item(name).click()
    return wait_for_dialog(page)


def wait_for_dialog(page):
    wait_until(lambda: page.js("return !!document.querySelector(arguments[0])", DIALOG), message=f"{page.name}'s Move to dialog")
    return page.find(DIALOG)


def choose(page, name, text):
    """Picks the option whose text starts with `text` in the dialog's select `name`."""
    select = Select(page.find(f"{DIALOG} select[name='{name}']"))
    option = next(o for o in select.options if o.text.startswith(text))
    select.select_by_visible_text(option.text)


def submit(page):
    page.named("Move", page.find(DIALOG)).click()


def closed(page):
    return page.js("return !document.querySelector(arguments[0])", DIALOG)


def members(page):
    return page.js("return [...document.querySelectorAll('.members .member:not(.more)')].map(m => m.textContent)")


def test_move_to_a_collection_and_position_lands_live_for_a_peer_and_the_dialog_passes_axe(pair):
    ada, bob = pair
    open_dialog_from_menu(ada, "demo-gc1")
    # The dialog starts where the card is, at the end; the choices are labelled selects.
    assert ada.js("return document.activeElement.name") == "board"
    assert Select(ada.find(f"{DIALOG} select[name='collection']")).first_selected_option.text == "Geocaches"
    choose(ada, "collection", "Found")
    positions = [o.text for o in Select(ada.find(f"{DIALOG} select[name='position']")).options]
    assert positions == ["1 (top)", "2", "3 (bottom)"]
    ada.js(axe_script())
    violations = ada.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document.querySelector(arguments[0])).then(r => done(r.violations.filter(v => "
        "['serious', 'critical'].includes(v.impact)).map(v => ({id: v.id, impact: v.impact, "
        "nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}))));", DIALOG)
    assert violations == [], json.dumps(violations, indent=1)
    ada.shot("move-to-dialog.png")
    choose(ada, "position", "2")
    submit(ada)
    wait_until(lambda: closed(ada), message="the dialog to close")
    wait_until(lambda: bob.order(FOUND) == ["demo-gc9", "demo-gc1", "demo-gc10"], message="the card at position 2 for Bob",
               describe=lambda: bob.order(FOUND))
    assert ada.order(FOUND) == ["demo-gc9", "demo-gc1", "demo-gc10"]
    assert "demo-gc1" not in bob.order(TO_FIND)
    # The same path as a drop: one drop of the drag controller, focus on the moved card.
    assert [e["items"] for e in ada.events("drop")] == [["demo-gc1"]]
    assert ada.js("return document.activeElement.dataset.item") == "demo-gc1"
    assert "Moved “Old Mill Wheel”. Position 2 of 3 in Found." in ada.js("return window.corkboard.lastAnnouncement")


def test_move_to_with_the_keyboard_alone_then_undo(pair):
    ada, bob = pair
    ada.focus(".card[data-item='demo-gc2']")
    ada.type("m")
    wait_for_dialog(ada)
    assert ada.js("return document.activeElement.name") == "board"
    # Tab to Collection, Down to Found; Tab to Section; Tab to Position, Up to 2; Tab to Move, Enter.
    ada.type(Keys.TAB, Keys.ARROW_DOWN, Keys.TAB, Keys.TAB, Keys.ARROW_UP)
    assert ada.js("return document.activeElement.name") == "position"
    assert ada.js("return document.querySelector(\"dialog select[name='collection']\").value") == FOUND
    ada.type(Keys.TAB)
    assert ada.js("return document.activeElement.textContent") == "Move"
    ada.type(Keys.ENTER)
    wait_until(lambda: bob.order(FOUND) == ["demo-gc9", "demo-gc2", "demo-gc10"], message="the keyboard move for Bob",
               describe=lambda: bob.order(FOUND))
    wait_until(lambda: ada.js("return document.activeElement.dataset.item") == "demo-gc2", message="focus on the moved card")
    # Undo takes it back, for Bob too, as it does a drop.
    wait_until(lambda: ada.js("return !document.querySelector(`.board-actions [aria-label='Undo']`).disabled"), message="Undo to be enabled")
    ada.chord(Keys.CONTROL, "z")
    wait_until(lambda: bob.order(TO_FIND)[1] == "demo-gc2" and "demo-gc2" not in bob.order(FOUND), message="the undo for Bob",
               describe=lambda: (bob.order(TO_FIND), bob.order(FOUND)))


def test_a_selection_moves_together_and_a_collection_moves_by_its_menu(pair):
    ada, bob = pair
    for item in ("demo-gc3", "demo-gc4"):
        ada.focus(f".card[data-item='{item}']")
        ada.chord(Keys.SHIFT, " ")
    assert ada.js("return window.corkboard.selection") == ["demo-gc3", "demo-gc4"]
    open_dialog_from_menu(ada, "demo-gc4", "Move to… (2 cards)")
    choose(ada, "collection", "Found")
    submit(ada)
    wait_until(lambda: bob.order(FOUND) == ["demo-gc9", "demo-gc10", "demo-gc3", "demo-gc4"], message="both cards for Bob",
               describe=lambda: bob.order(FOUND))
    assert ada.events("drop")[-1]["items"] == ["demo-gc3", "demo-gc4"]
    # A collection: its menu's Move to… chooses its place among the collections.
    collections = lambda page: page.js("return [...document.querySelectorAll('.collection')].map(c => c.dataset.collection)")  # noqa: E731
    ada.collection_menu("demo-inbox")
    ada.menu_item("Move to…").click()
    wait_for_dialog(ada)
    choose(ada, "position", "1")
    submit(ada)
    wait_until(lambda: collections(bob) == ["demo-inbox", "demo-caches", "demo-found"], message="the collection first for Bob",
               describe=lambda: collections(bob))
    assert ada.applied("moveCollection")
    assert ada.js("return document.activeElement.closest('.collection')?.dataset.collection") == "demo-inbox"


def test_a_refusal_is_said_in_the_dialog_and_nothing_moves(pair):
    ada, bob = pair
    inbox = ada.order(INBOX)
    note = inbox[0]
    open_dialog_from_menu(ada, note)
    choose(ada, "collection", "Found")
    submit(ada)
    problem = wait_until(lambda: ada.js("const p = document.querySelector(`${arguments[0]} .dialog-problem`); "
                                        "return !p.hidden && p.textContent", DIALOG), message="the refusal in the dialog")
    assert "Found" in problem and "only" in problem, problem
    assert ada.js("return document.querySelector(`${arguments[0]} .dialog-problem`).getAttribute('role')", DIALOG) == "alert"
    assert ada.js("return !!document.activeElement.closest('dialog')"), "focus stays in the dialog"
    ada.named("Cancel", ada.find(DIALOG)).click()
    wait_until(lambda: closed(ada), message="the dialog to close")
    assert ada.js("return document.activeElement.dataset.item") == note
    time.sleep(0.2)
    assert bob.order(INBOX) == inbox and ada.order(INBOX) == inbox and ada.events("drop") == []
    # A refusal of the room (the drop redirected on the wire to a section that does not exist): the
    # dialog waits for the answer and says it; the card is back home for both.
    ada.rewrite_sent("m.type === 'drop'", "m.destination = {collection: 'demo-found', section: 'demo-nowhere', index: 0, "
                     "intent: m.destination.intent};")
    open_dialog_from_menu(ada, "demo-gc1")
    choose(ada, "collection", "Found")
    submit(ada)
    problem = wait_until(lambda: ada.js("const p = document.querySelector(`${arguments[0]} .dialog-problem`); "
                                        "return !p.hidden && p.textContent", DIALOG), message="the room's refusal in the dialog")
    assert "“Old Mill Wheel” could not be placed" in problem and "nothing moved" in problem, problem
    ada.type(Keys.ESCAPE)
    wait_until(lambda: closed(ada), message="the dialog to close")
    wait_until(lambda: ada.order(TO_FIND)[0] == "demo-gc1", message="the card back home")
    assert bob.order(TO_FIND)[0] == "demo-gc1" and bob.order(FOUND) == ["demo-gc9", "demo-gc10"]


def test_move_to_another_board_this_browser_opened(browsers, tmp_path):
    data = tmp_path / "data"
    key, _ = create_board_in(data, "other", "--title", "Other board", "--template", "demo")
    proc = serve_demo(data)
    ada = Page(browsers[0], proc.port, "Ada")
    bob = Page(browsers[1], proc.port, "Bob")
    try:
        for page in (ada, bob):
            page.driver.get_log("browser")
        # Ada opens the other board once (the browser remembers its edit link), then the demo board.
        ada.driver.get(f"http://127.0.0.1:{proc.port}/?board=other&key={key}&name=Ada")
        ada.wait_live()
        ada.open()
        bob.driver.get(f"http://127.0.0.1:{proc.port}/?board=other&key={key}&name=Bob")
        bob.wait_live()
        open_dialog_from_menu(ada, "demo-gc1")
        choose(ada, "board", "Other board")
        wait_until(lambda: ada.js("return !document.querySelector(\"dialog select[name='collection']\").disabled"),
                   message="the other board's collections")
        choose(ada, "collection", "Found")
        choose(ada, "position", "1")
        submit(ada)
        wait_until(lambda: closed(ada), message="the dialog to close", timeout=15)
        wait_until(lambda: bob.order("other-found") == ["demo-gc1", "other-gc9", "other-gc10"], message="the card on the other board",
                   describe=lambda: bob.order("other-found"))
        wait_until(lambda: "demo-gc1" not in ada.order(TO_FIND), message="the card to leave the demo board")
        assert ada.js("return document.activeElement.dataset.item") == "demo-gc2"
        errors = console_errors(ada.driver) + console_errors(bob.driver)
        assert not errors, f"errors in the browser console: {errors}"
    finally:
        for page in (ada, bob):
            page.driver.get("about:blank")
        proc.stop()


def test_a_tab_that_leaves_is_gone_from_members_at_once_and_comes_back_once(pair):
    ada, bob = pair
    assert sorted(members(ada)) == ["Ada", "Bob"]
    bob.find(".topbar a.home").click()
    wait_until(lambda: bob.js("return document.body.classList.contains('start-page')"), message="Bob on the start page")
    wait_until(lambda: members(ada) == ["Ada"], timeout=2.0, message="Bob to leave Ada's members list",
               describe=lambda: members(ada))
    bob.driver.back()
    bob.wait_live()
    # Chromium brings the page back from its back/forward cache: the same page joins again and
    # resumes from the last seq it applied (R10), rather than loading afresh.
    assert [w["resumed"] for w in bob.events("welcome")] == [False, True]
    wait_until(lambda: sorted(members(ada)) == ["Ada", "Bob"], message="Bob listed again", describe=lambda: members(ada))
    time.sleep(1.0)
    assert sorted(members(ada)) == ["Ada", "Bob"] and sorted(members(bob)) == ["Ada", "Bob"]
