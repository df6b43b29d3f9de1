"""People, personal invites and the Members panel (issue 45) in real Chromium, three browsers.

The admin (Ada, with the admin link of a new board) opens "Members" and invites Bea as a commenter
(one use) and Cy as an editor with the "Invite" form; each link is shown with "Copy invite link".
Bea opens her link under the name "Beatrice": the page claims the invite with a device key kept in
localStorage, the invite leaves the address, and everyone sees "Bea (Beatrice)". Bea comments, but
finds no "Add card" and cannot lift a card. Cy moves a card and Ada sees it. Ada removes Bea: Bea's
page closes with the reason in its banner while Cy stays connected; her link opens nothing now.
Ada makes Cy a commenter with his "Role" select and his "Add card" buttons go at once. Ada turns the
"Anyone with the link" row off: the old view link opens nothing and says why. axe finds nothing
serious in the admin's panel. The invite errors each show their own sentence.

Reuses test_browser.py's browsers and pages, and test_card_details.py's axe script. Needs a server
built with issue 45's people (branch s9-invites).
"""

import json

import pytest

from test_browser import MISSING, Page, browsers, console_errors, create_board, new_browser, server, wait_until  # noqa: F401
from test_card_details import axe_script

if not MISSING:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select


@pytest.fixture(scope="module")
def third():
    driver = new_browser()
    yield driver
    driver.quit()


def open_members(page):
    page.named("Members").click()
    wait_until(lambda: page.js("return !!document.querySelector('dialog.members-dialog[open]')"), message=f"{page.name}'s Members panel")


def close_members(page):
    page.js("document.querySelector('dialog.members-dialog[open]')?.close()")
    wait_until(lambda: page.js("return !document.querySelector('dialog.members-dialog')"), message="the panel closed")


def invite(page, name, role, one_use=True):
    """Fills the Invite form and returns the link it shows."""
    form = page.find("dialog.members-dialog form.invite-form")
    field = form.find_element("css selector", "input[type=text]")
    field.clear()
    field.send_keys(name)
    Select(form.find_element("css selector", "select[data-focus='invite-role']")).select_by_value(role)
    box = form.find_element("css selector", "input[type=checkbox]")
    if box.is_selected() != one_use:
        box.click()
    page.named("Invite", within=form).click()
    link = wait_until(lambda: page.js("const f = document.querySelector('.invite-created .share-link');"
                                      "return f && f.getAttribute('aria-label') === 'Invite link for ' + arguments[0] && f.value", name),
                      message=f"the invite link for {name}")
    assert page.js("return !!document.querySelector(\".invite-created [aria-label='Copy invite link']\")")
    return link.replace("localhost", "127.0.0.1")


def row_of(page, name):
    """The Members panel's row whose name starts with `name`, as JSON {text, online, person}."""
    return page.js("const li = [...document.querySelectorAll('.members-dialog .member-row')].find(r => r.querySelector('.member-name').textContent.startsWith(arguments[0]));"
                   "return li ? {text: li.textContent, online: li.dataset.online === 'true', person: li.dataset.person, label: li.getAttribute('aria-label')} : null", name)


def control_in_row(page, name, css):
    return page.js("const li = [...document.querySelectorAll('.members-dialog .member-row')].find(r => r.querySelector('.member-name').textContent.startsWith(arguments[0]));"
                   "return li && li.querySelector(arguments[1])", name, css)


def banner(page):
    return page.js("const b = document.querySelector('.banner'); return b && !b.hidden ? b.textContent : ''")


def state(page):
    return page.js("return document.querySelector('.connection')?.dataset.state")


def add_card_buttons(page):
    return page.js("return [...document.querySelectorAll('button')].filter(b => !b.hidden && b.offsetParent && "
                   "/Add card/.test(b.textContent + (b.getAttribute('aria-label') || ''))).length")


def serious(page):
    page.js(axe_script())
    return page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then(r => done(r.violations.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => "
        "({id: v.id, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))));")


def test_invite_comment_edit_remove_and_links_off_in_three_browsers(browsers, third, server):
    board = create_board(server.port, "Trip")
    bid = board["id"]
    ada, bea, cy = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bea"), Page(third, server.port, "Cy")
    for page in (ada, bea, cy):
        page.driver.get_log("browser")
    try:
        ada.driver.get(board["admin"].replace("localhost", "127.0.0.1") + "&name=Ada")
        ada.wait_live()
        open_members(ada)
        bea_link = invite(ada, "Bea", "commenter")
        cy_link = invite(ada, "Cy", "editor", one_use=False)
        assert f"board={bid}&invite=t-" in bea_link and bea_link != cy_link
        wait_until(lambda: ada.js("return document.querySelectorAll('.members-dialog .invite-row').length") == 2, message="two invites listed")
        assert "Commenter · one use, not used yet · expires" in ada.js("return document.querySelector('.members-dialog .invite-list').textContent")
        found = serious(ada)
        assert found == [], json.dumps(found, indent=1)
        close_members(ada)

        # Bea claims her invite under another name: the invite leaves the address, the device key stays.
        bea.driver.get(bea_link + "&name=Beatrice")
        bea.wait_live()
        assert bea.js("return new URL(location.href).searchParams.has('invite')") is False
        assert bea.js("return /^d-[0-9a-f]{32}$/.test(localStorage.getItem('corkboard.device'))")
        assert bea.js("return [window.corkboard.me.role, window.corkboard.me.name, window.corkboard.me.alias]") == ["commenter", "Bea", "Beatrice"]
        wait_until(lambda: "Bea (Beatrice)" in ada.js("return [...document.querySelectorAll('.member')].map(m => m.textContent)"),
                   message="Ada sees Bea (Beatrice)")
        # She comments, finds no Add card, and her drag does nothing.
        assert add_card_buttons(bea) == 0
        assert bea.js("return document.querySelector('.role-badge').textContent") == "Can comment"
        order = bea.order(f"{bid}-to-find")
        bea.lift(f"{bid}-gc1", to=bea.card(f"{bid}-gc3"))
        bea.release()
        assert not bea.events("lift") and not bea.js("return window.corkboard.replica.pending.length")
        assert bea.order(f"{bid}-to-find") == order
        bea.settle()
        bea.find(f".card[data-item='{bid}-gc3'] .card-title").click()
        wait_until(lambda: bea.js("return !!document.querySelector('dialog.card-view[open]')"), message="Bea's card view")
        bea.find("textarea[aria-label='Comment']").send_keys("Count me in")
        bea.named("Save comment").click()
        wait_until(lambda: ada.js("return window.corkboard.board.item(arguments[0]).details?.comments?.map(c => [c.name, c.text])", f"{bid}-gc3") == [["Bea", "Count me in"]],
                   message="Bea's comment at Ada's, under her invite's name")
        bea.type(Keys.ESCAPE)

        # Cy edits: his move reaches Ada.
        cy.driver.get(cy_link + "&name=Cy")
        cy.wait_live()
        assert cy.js("return window.corkboard.me.role") == "editor"
        assert add_card_buttons(cy) > 0
        cy.drag(f"{bid}-gc1", cy.card(f"{bid}-gc9"))
        wait_until(lambda: ada.js("return window.corkboard.board.position(arguments[0])?.collection", f"{bid}-gc1") == f"{bid}-found",
                   message="Cy's move at Ada's", describe=lambda: cy.events())

        # Cy, an editor, sees everyone with access in his panel too, and no control over them.
        open_members(cy)
        wait_until(lambda: (row_of(cy, "Bea") or {}).get("label") == "Bea (Beatrice), commenter, on the board now",
                   message="Bea in Cy's panel", describe=lambda: row_of(cy, "Bea"))
        assert (row_of(cy, "Cy") or {}).get("person", "").startswith("p-")
        assert not control_in_row(cy, "Bea", "select[aria-label='Role']") and not control_in_row(cy, "Bea", "button[aria-label='Remove']")
        assert cy.js("return document.querySelector('dialog.members-dialog form.invite-form').hidden") is True
        assert cy.js("return window.corkboard.session.people.list.invites.length") == 0, "no invites for an editor"
        close_members(cy)

        # The panel lists both as people on the board now, each with Role and Remove.
        open_members(ada)
        wait_until(lambda: (row_of(ada, "Bea") or {}).get("online") and (row_of(ada, "Cy") or {}).get("online"), message="Bea and Cy online in the panel")
        assert row_of(ada, "Bea")["label"] == "Bea (Beatrice), commenter, on the board now"
        assert control_in_row(ada, "Bea", "select[aria-label='Role']") and control_in_row(ada, "Bea", "button[aria-label='Remove']")

        # Ada removes Bea: her page says why at once; Cy stays.
        control_in_row(ada, "Bea", "button[aria-label='Remove']").click()
        wait_until(lambda: ada.named("Remove Bea"), message="the question before removing").click()
        wait_until(lambda: state(bea) == "closed" and "removed you" in banner(bea), timeout=5,
                   message="Bea's page closed with the reason", describe=lambda: (state(bea), banner(bea)))
        wait_until(lambda: "Removed" in (row_of(ada, "Bea") or {}).get("text", ""), message="Bea listed as removed")
        assert state(cy) == "open" and cy.js("return window.corkboard.session.joined")
        assert bea.js("return localStorage.getItem(arguments[0])", f"corkboard.person:{bid}") is None, "her browser forgets it was a person there"
        # Her invite link opens nothing now, and says why.
        bea.driver.get(bea_link + "&name=Beatrice")
        wait_until(lambda: state(bea) == "closed" and banner(bea), message="Bea's link refused", describe=lambda: banner(bea))
        assert "removed" in banner(bea).lower() or "disabled" in banner(bea).lower(), banner(bea)

        # Ada makes Cy a commenter: his editing controls go at once.
        Select(control_in_row(ada, "Cy", "select[aria-label='Role']")).select_by_value("commenter")
        wait_until(lambda: cy.js("return window.corkboard.me.role") == "commenter" and add_card_buttons(cy) == 0,
                   message="Cy's controls for a commenter", describe=lambda: (cy.js("return window.corkboard.me.role"), add_card_buttons(cy)))
        assert cy.js("return document.querySelector('.role-badge').textContent") == "Can comment"
        assert state(cy) == "open"

        # Ada turns the anyone-with-the-link row off: the view link opens nothing, in words.
        switch = ada.find(".members-dialog input[role=switch]")
        assert switch.is_selected()
        switch.click()
        wait_until(lambda: ada.named("Turn off"), message="the question before turning the links off").click()
        wait_until(lambda: not ada.find(".members-dialog input[role=switch]").is_selected() and ada.js("return window.corkboard.session.people.list.linksEnabled") is False,
                   message="the links row off")
        close_members(ada)
        bea.driver.get(board["view"].replace("localhost", "127.0.0.1") + "&name=Someone")
        wait_until(lambda: state(bea) == "closed" and "turned off" in banner(bea), message="the old view link refused in words",
                   describe=lambda: (state(bea), banner(bea)))
        assert state(cy) == "open" and state(ada) == "open", "people and the admin link stay"
        errors = {page.name: console_errors(page.driver) for page in (ada, cy)}
        assert not any(errors.values()), f"errors in the browser console: {errors}"
    finally:
        for page in (ada, bea, cy):
            page.driver.get("about:blank")


def test_each_invite_refusal_shows_its_own_sentence(browsers, server):
    """A mistyped invite, an unknown one, a one-use invite claimed by another browser, a disabled one:
    each page says its own sentence. An invite pasted in the start page's "Open a share link" is
    claimed by the board page, and opened again in the same browser joins as the same person (no
    new use). "Replace the share links" makes new ones: the old edit link opens nothing, the new one
    (the admin's keys) opens the board."""
    board = create_board(server.port, "Trip")
    bid = board["id"]
    ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
    try:
        ada.driver.get(board["admin"].replace("localhost", "127.0.0.1") + "&name=Ada")
        ada.wait_live()
        open_members(ada)
        link = invite(ada, "Dee", "viewer")
        close_members(ada)
        base = f"http://127.0.0.1:{server.port}/?board={bid}"

        def refused(address):
            bob.driver.get(address)
            return wait_until(lambda: state(bob) == "closed" and banner(bob), message=f"the refusal of {address}",
                              describe=lambda: (state(bob), banner(bob)))

        assert "cut short" in refused(base + "&invite=t-1234")
        assert refused(base + "&invite=t-" + "0" * 32) == "This invite link is not valid; ask the board's admin for a new one."
        # Claimed by Ada's browser (pasted in the start page's "Open a share link"), then by Bob's: used.
        ada.driver.get(f"http://127.0.0.1:{server.port}/")
        wait_until(lambda: ada.js("return !!document.querySelector('.start')"), message="the start page")
        ada.find("input[aria-label='Share link']").send_keys(link)
        ada.find("input[aria-label='Share link']").submit()
        ada.wait_live()
        assert ada.js("return window.corkboard.me.name") == "Dee"
        assert ada.js("return new URL(location.href).searchParams.has('invite')") is False
        ada.driver.get(link)
        ada.wait_live()
        assert "already used" in refused(link)
        # Disabled by the admin.
        ada.driver.get(board["admin"].replace("localhost", "127.0.0.1") + "&name=Ada")
        ada.wait_live()
        open_members(ada)
        other = invite(ada, "Eve", "viewer")
        wait_until(lambda: ada.js("return [...document.querySelectorAll('.members-dialog .invite-row')].find(r => r.textContent.startsWith('Eve'))"), message="Eve's invite listed")
        ada.js("[...document.querySelectorAll('.members-dialog .invite-row')].find(r => r.textContent.startsWith('Eve')).querySelector('button:nth-of-type(2)').click()")
        wait_until(lambda: "disabled" in ada.js("return [...document.querySelectorAll('.members-dialog .invite-row')].find(r => r.textContent.startsWith('Eve')).textContent"),
                   message="Eve's invite disabled")
        assert "disabled by an admin" in refused(other)
        # New links: the old edit link opens nothing, the new one (in the admin's Share) opens the board.
        old_edit = board["edit"].replace("localhost", "127.0.0.1")
        ada.named("Replace the share links").click()
        wait_until(lambda: ada.named("Replace the links"), message="the question before new links").click()
        new_key = wait_until(lambda: ada.js("const k = window.corkboard.session.keys?.edit; return k && !arguments[0].endsWith(k) && k", old_edit),
                             message="the new edit key at the admin's")
        close_members(ada)
        refused(old_edit + "&name=Bob")
        bob.driver.get(f"{base}&key={new_key}&name=Bob")
        bob.wait_live()
        assert bob.js("return window.corkboard.me.role") == "editor"
    finally:
        for page in (ada, bob):
            page.driver.get("about:blank")
