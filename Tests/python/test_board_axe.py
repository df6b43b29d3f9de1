"""The whole board page passes axe-core (issue 44): 0 serious or critical violations.

Ada and Bob are on the demo board (two members in the top bar, so the page has a member badge on
the server's palette and its own "me" badge); axe runs over the whole document of Ada's page, an
editor's. Cards describe themselves through `aria-describedby` ("Draggable
card: …"), not `aria-roledescription`, which axe does not allow on a list item; a member badge
whose colour is too light for white text gets black text; the "+ Add collection" button has a solid
background (axe cannot read a colour mixed with transparency).
"""

import json

from test_browser import Page, browsers, console_errors, create_board, pair, server, wait_until  # noqa: F401
from test_card_details import axe_script


def serious(page):
    """axe's serious and critical violations over the whole page."""
    page.js(axe_script())
    return page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then(r => done(r.violations.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => "
        "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))));")


def test_the_board_page_has_no_serious_axe_violations(pair):
    ada, bob = pair
    violations = serious(ada)
    assert violations == [], json.dumps(violations, indent=1)
    # Every card points at the page's description of a card, and that description exists.
    assert ada.js("return document.querySelectorAll('.card[aria-roledescription]').length") == 0
    assert ada.js("return [...document.querySelectorAll('.card')].every(c => c.getAttribute('aria-describedby') === 'card-help')")
    assert "Space lifts it" in ada.js("return document.getElementById('card-help').textContent")
    # Member badges read at 4.5:1 or better, whatever colour the server gave.
    ratios = ada.js("""
        const lum = c => { const [r, g, b] = c.match(/\\d+/g).slice(0, 3).map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                           return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
        return [...document.querySelectorAll('.member:not(.more)')].map(m => {
          const s = getComputedStyle(m); const a = lum(s.color), b = lum(s.backgroundColor);
          return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); });
    """)
    assert len(ratios) == 2 and all(r >= 4.5 for r in ratios), ratios


def close_dialog(page):
    page.js("document.querySelector('dialog[open]')?.close()")
    wait_until(lambda: page.js("return !document.querySelector('dialog[open]')"), message="the dialog closed")


def test_the_start_page_the_open_card_and_every_dialog_pass_axe(pair):
    """axe over the whole document with each open: the start page, the open card, Labels, Move to…,
    the Export menu, Rename, Share, Members and "Your name"."""
    from test_card_details import open_by_title
    from test_move_to import open_dialog_from_menu

    ada, _ = pair
    found = {}
    open_by_title(ada, "demo-gc1")
    found["open card"] = serious(ada)
    close_dialog(ada)
    for name in ("Labels", "Rename", "Share", "Members", "Your name: Ada. Change it"):
        ada.named(name).click()
        wait_until(lambda: ada.js("return !!document.querySelector('dialog[open]')"), message=f"the {name} dialog")
        found[name] = serious(ada)
        close_dialog(ada)
    open_dialog_from_menu(ada, "demo-gc2")
    found["Move to…"] = serious(ada)
    close_dialog(ada)
    ada.named("Export").click()
    wait_until(lambda: ada.js("return !!document.querySelector('.menu [role=menuitem]')"), message="the Export menu")
    found["Export"] = serious(ada)
    ada.js("document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))")
    ada.driver.get(f"http://127.0.0.1:{ada.port}/")
    wait_until(lambda: ada.js("return !!document.querySelector('.start')"), message="the start page")
    found["start page"] = serious(ada)
    assert all(v == [] for v in found.values()), json.dumps(found, indent=1)


def test_drop_into_a_card_with_the_keyboard_alone(pair):
    """Space lifts, I turns the drop into a drop into the card next to the gap, Space drops: a stack,
    for Bob too. The page's keyboard help says so."""
    ada, bob = pair
    assert "I drops it into the card" in ada.js("return document.querySelector('.help p').textContent")
    ada.focus(".card[data-item='demo-gc1']")
    ada.type(" ")
    wait_until(lambda: ada.js("return !!window.corkboard.drags.state"), message="the card lifted")
    ada.type("i")
    wait_until(lambda: "Into" in (ada.js("return document.getElementById('live').textContent") or ""), message="the drop-into target spoken",
               describe=lambda: ada.js("return document.getElementById('live').textContent"))
    ada.type(" ")
    for page in (ada, bob):
        wait_until(lambda: page.js("return window.corkboard.board.position('demo-gc1')?.group") == "demo-gc2",
                   timeout=15, message=f"demo-gc1 inside demo-gc2 for {page.name}",
                   describe=lambda: page.js("return window.corkboard.board.position('demo-gc1')"))
