"""Checklists on a card (issue 41) in two real browsers, against `corkboard serve --demo`.

Ada and Bob open the same card. Ada adds a checklist ("Add checklist", then its name) with three
items ("Add checklist item"), reorders them by dragging an item's handle with the pointer and by
Alt+ArrowUp on a focused item, and checks one; Bob sees each change live in his open card (while
Ada drags, the item lifted with her name and her gap open where it would land), and
the card's face shows "1/3" ("1 of 3 checklist items done"). Ada closes her card and presses Undo:
the check is taken back for Bob too. A screenshot of Bob's open card goes to Tests/python/artifacts/.
"""

from pathlib import Path

from test_browser import ActionChains, Keys, browsers, pair, server, wait_until  # noqa: F401
from test_card_details import DIALOG, open_by_title
from test_card_labels_comments import audit

GC1 = "demo-gc1"
ARTIFACTS = Path(__file__).parent / "artifacts"
ARTIFACTS.mkdir(exist_ok=True)


def checklists(page):
    """The open card's checklists as shown: [(name, progress, [(text, checked)])]."""
    return page.js("""
        return [...document.querySelectorAll(arguments[0] + ' .checklist')].map(c => [
          c.querySelector('.checklist-name').textContent,
          c.querySelector('.checklist-progress').textContent,
          [...c.querySelectorAll('.checklist-item')].map(i => [i.querySelector('label').textContent, i.querySelector('input').checked]),
        ]);
    """, DIALOG)


def progress(page, item):
    """The checklist progress on a card's face: [text, accessible label], or None."""
    return page.js("const p = document.querySelector(`.card[data-item='${arguments[0]}'] .checklist-count`);"
                   "return p && [p.textContent, p.getAttribute('aria-label')]", item)


def item_row(page, text):
    return page.js("return [...document.querySelectorAll(arguments[0] + ' .checklist-item')]"
                   ".find(i => i.querySelector('label').textContent === arguments[1])", DIALOG, text)


def test_checklist_added_filled_reordered_checked_live_and_undone(pair):
    ada, bob = pair
    open_by_title(ada, GC1)
    open_by_title(bob, GC1)
    assert not bob.js("return document.querySelector('.checklist-new').checkVisibility()"), "the name form waits for Add checklist"

    # "Add checklist", then its name.
    ada.named("Add checklist").click()
    wait_until(lambda: ada.js("return document.activeElement?.getAttribute('aria-label')") == "Checklist name",
               message="the Checklist name textbox")
    ada.retype("Launch", Keys.ENTER)
    wait_until(lambda: checklists(bob) == [["Launch", "0/0", []]], message="Ada's checklist in Bob's open card")

    # Three items through "Add checklist item": the textbox keeps the focus for the next one.
    ada.named("Add checklist item").click()
    for text in ("Posters", "Tickets", "Chairs"):
        ada.type(text, Keys.ENTER)
        wait_until(lambda: text in [t for t, _ in checklists(ada)[0][2]], message=f"{text} in Ada's checklist")
    wait_until(lambda: [t for t, _ in checklists(bob)[0][2]] == ["Posters", "Tickets", "Chairs"],
               message="the three items in Bob's open card")
    assert progress(bob, GC1) == ["0/3", "0 of 3 checklist items done"]

    # A pointer drag of Chairs' handle to the top: the item lifts, the gap opens, the drop lands it there.
    handle = ada.find(".checklist-handle", item_row(ada, "Chairs"))
    posters = item_row(ada, "Posters")
    height = posters.size["height"]
    ActionChains(ada.driver, duration=80).move_to_element(handle).click_and_hold().move_by_offset(0, -8).pause(0.1) \
        .move_to_element_with_offset(posters, 0, -height // 2 + 2).pause(0.15).perform()
    assert ada.js("return !!document.querySelector('.checklist-item.lifted') && !!document.querySelector('.checklist-gap')"), \
        "the dragged item is lifted and a gap is open"
    assert ada.js("const g = document.querySelector('.checklist-gap'); return g.parentElement.firstElementChild === g"), \
        "the gap opens at the top"
    # Bob, with the same card open, sees the proposal live: Chairs lifted with Ada's name, her gap at the top.
    wait_until(lambda: bob.js("const r = document.querySelector(arguments[0] + ' .checklist-item.remote-lifted');"
                              "return r && [r.querySelector('label').textContent, r.dataset.peer]", DIALOG) == ["Chairs", "Ada"],
               message="Ada's lifted item in Bob's open card")
    wait_until(lambda: bob.js("const g = document.querySelector(arguments[0] + ' .remote-gap');"
                              "return g && g.parentElement.firstElementChild === g && g.textContent", DIALOG) == "Ada",
               message="Ada's gap at the top of Bob's checklist")
    assert [t for t, _ in checklists(bob)[0][2]] == ["Posters", "Tickets", "Chairs"], "nothing moves before the drop"
    bob.driver.save_screenshot(str(ARTIFACTS / "card-checklist-remote-drag.png"))
    ActionChains(ada.driver, duration=60).release().perform()
    wait_until(lambda: [t for t, _ in checklists(bob)[0][2]] == ["Chairs", "Posters", "Tickets"],
               message="the dragged order in Bob's open card")
    wait_until(lambda: bob.js("return !document.querySelector('.remote-gap, .remote-lifted')"), message="Ada's proposal gone after her drop")

    # By keyboard: Alt+ArrowUp on Tickets' checkbox moves it up one, and it keeps the focus.
    ada.js("arguments[0].querySelector('input').focus()", item_row(ada, "Tickets"))
    ActionChains(ada.driver).key_down(Keys.ALT).send_keys(Keys.ARROW_UP).key_up(Keys.ALT).perform()
    wait_until(lambda: [t for t, _ in checklists(bob)[0][2]] == ["Chairs", "Tickets", "Posters"],
               message="the keyboard move in Bob's open card")
    assert ada.js("return document.activeElement.labels?.[0]?.textContent") == "Tickets"

    # Checking one: Bob sees it checked and 1/3 on the card's face.
    ada.js("arguments[0].querySelector('input').click()", item_row(ada, "Tickets"))
    wait_until(lambda: checklists(bob) == [["Launch", "1/3", [["Chairs", False], ["Tickets", True], ["Posters", False]]]],
               message="the check in Bob's open card")
    wait_until(lambda: progress(bob, GC1) == ["1/3", "1 of 3 checklist items done"], message="1/3 on Bob's card face")
    assert "1 of 3 checklist items done" in bob.js(f"return document.querySelector(\".card[data-item='{GC1}']\").getAttribute('aria-label')")
    ARTIFACTS.mkdir(exist_ok=True)
    bob.driver.save_screenshot(str(ARTIFACTS / "card-checklists.png"))
    assert audit(bob, DIALOG) == [], "axe finds nothing serious in the open card with its checklist"

    # Ada closes her card and undoes: the check is taken back for Bob too, the order stays.
    ada.named("Close").click()
    ada.named("Undo").click()
    wait_until(lambda: checklists(bob) == [["Launch", "0/3", [["Chairs", False], ["Tickets", False], ["Posters", False]]]],
               message="the undone check in Bob's open card")
    wait_until(lambda: progress(bob, GC1) == ["0/3", "0 of 3 checklist items done"], message="0/3 on Bob's card face")
