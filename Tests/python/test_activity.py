"""The Activity feed (issue 43) in two real browsers, against `corkboard serve --demo`.

Ada opens the board's "Activity" dialog; Bob drags a card to Found, and Ada's dialog shows
"Bob moved “Old Mill Wheel” from To find to Found" live, with Bob's colour and "just now". After
more changes than one page holds, "Show older" pages back to the first entry and then hides. The
open card's own "Activity" section lists that card's entries only.

Reuses test_browser.py's browsers and pages.
"""

from test_browser import browsers, pair, server, wait_until  # noqa: F401

FOUND = "demo-found"
DIALOG = "dialog.activity-dialog[open]"


def entries(page, within=DIALOG):
    return page.js("return [...document.querySelectorAll(arguments[0] + ' .activity-entry')].map(e => e.textContent)", within)


def test_activity_shows_a_peers_move_live_with_names_and_pages_back(pair):
    ada, bob = pair
    ada.named("Activity").click()
    wait_until(lambda: ada.js("return !!document.querySelector(arguments[0])", DIALOG), message="Ada's Activity dialog")
    # The dialog is named "Activity" by its heading.
    assert ada.js("const d = document.querySelector(arguments[0]); "
                  "return document.getElementById(d.getAttribute('aria-labelledby')).textContent", DIALOG) == "Activity"
    assert entries(ada) == []

    bob.drag("demo-gc1", bob.card("demo-gc9"), offset=bob.left_half("demo-gc9"))
    wait_until(lambda: len(entries(ada)) == 1, message="Bob's move in Ada's Activity", describe=lambda: entries(ada))
    assert entries(ada)[0] == "Bob moved “Old Mill Wheel” from To find to Found · just now"
    bob_color = ada.js("return window.corkboard.session.members.colorOfClient(window.corkboard.session.members"
                       ".byId.get([...window.corkboard.session.members.byId.keys()].find(id => "
                       "window.corkboard.session.members.byId.get(id).name === 'Bob')).clientId)")
    dot = ada.js("return getComputedStyle(document.querySelector(arguments[0] + ' .activity-dot'))"
                 ".getPropertyValue('--actor-color').trim()", DIALOG)
    assert bob_color and dot == bob_color
    assert not ada.js("return document.querySelector(arguments[0] + ' .activity-older').offsetParent", DIALOG)

    # 32 more changes by Bob (within the burst of the rate limit): more than the first page (30) holds.
    bob.js("""
      const s = window.corkboard.session;
      for (let n = 0; n < 32; n++) {
        const item = n % 2 ? 'demo-gc2' : 'demo-gc3';
        s.submit({kind: 'move', items: [item], destination: {collection: 'demo-found', section: 'demo-found', index: 0, intent: 'insertAtDestinationIndexPath'}});
      }""")
    wait_until(lambda: len(entries(ada)) == 33, message="every move live in Ada's dialog", describe=lambda: len(entries(ada)))
    ada.named("Close", ada.find(DIALOG)).click()
    wait_until(lambda: not ada.js("return !!document.querySelector(arguments[0])", DIALOG), message="the dialog to close")

    ada.named("Activity").click()
    wait_until(lambda: len(entries(ada)) == 30, message="the first page", describe=lambda: len(entries(ada)))
    older = ada.named("Show older", ada.find(DIALOG))
    assert older is not None
    older.click()
    wait_until(lambda: len(entries(ada)) == 33, message="the older page", describe=lambda: len(entries(ada)))
    assert entries(ada)[-1].startswith("Bob moved “Old Mill Wheel” from To find to Found")
    wait_until(lambda: not ada.js("return document.querySelector(arguments[0] + ' .activity-older').offsetParent", DIALOG),
               message="Show older hidden with nothing older")
    ada.named("Close", ada.find(DIALOG)).click()

    # The card's own Activity: Old Mill Wheel's one move only.
    ada.js("window.corkboard.cardView.open('demo-gc1')")
    wait_until(lambda: len(entries(ada, "dialog.card-view")) == 1, message="the card's activity",
               describe=lambda: entries(ada, "dialog.card-view"))
    assert entries(ada, "dialog.card-view")[0].startswith("Bob moved “Old Mill Wheel”")
