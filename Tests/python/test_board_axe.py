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
