"""The shared Trash (issue 43, R15) in two real browsers, against `corkboard serve`.

Bob deletes a card: Ada sees "Bob deleted “…”" with "Show in Trash", opens the Trash, finds the
card with who deleted it, and clicks "Restore": both see it back in its place, and Bob's own undo
of that delete is now refused (a restore applies once). Ada deletes a card and clicks "Undo" in her
toast: it comes back. "Empty trash" asks first and empties it for both. axe audits the open Trash.
"""

from test_browser import Page, browsers, create_board, server, wait_until  # noqa: F401
from test_card_labels_comments import audit

TRASH = "dialog.trash-dialog[open]"


def toasts(page):
    return page.js("return [...document.querySelectorAll('.toast:not(.leaving)')].map(t => ({text: t.querySelector('.toast-text').textContent,"
                   " actions: [...t.querySelectorAll('.toast-action')].map(b => b.textContent)}))")


def click_toast_action(page, text, action):
    assert page.js("const t = [...document.querySelectorAll('.toast:not(.leaving)')].find(t => t.querySelector('.toast-text').textContent === arguments[0]);"
                   "const b = t && [...t.querySelectorAll('.toast-action')].find(b => b.textContent === arguments[1]);"
                   "if (!b) return false; b.click(); return true;", text, action), (text, action, toasts(page))


def trash_entries(page):
    return page.js("return [...document.querySelectorAll('.trash-entry')].map(e => ({what: e.querySelector('.trash-what').textContent,"
                   " about: e.querySelector('.trash-about').textContent, buttons: [...e.querySelectorAll('button')].map(b => b.textContent)}))")


def delete_card(page, item):
    page.card_menu(item)
    page.menu_item("Delete card").click()


def test_a_card_deleted_by_one_is_restored_by_another_and_undone_from_the_toast(browsers, server):
    board = create_board(server.port, "Trash")
    bid = board["id"]
    section = f"{bid}-to-find"
    first, second = f"{bid}-gc1", f"{bid}-gc2"
    link = board["edit"].replace("localhost", "127.0.0.1")
    ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
    ada.driver.get(link + "&name=Ada")
    bob.driver.get(link + "&name=Bob")
    for page in (ada, bob):
        page.wait_live()
    order = ada.order(section)
    title = ada.title(first)

    # Bob deletes a card: Ada is told, with a way to the Trash.
    delete_card(bob, first)
    wait_until(lambda: first not in ada.order(section), message="the card gone for Ada")
    said = f"Bob deleted “{title}”"
    wait_until(lambda: any(t["text"] == said and t["actions"] == ["Show in Trash"] for t in toasts(ada)),
               message="Ada's toast", describe=lambda: toasts(ada))
    wait_until(lambda: any(t["text"] == f"Deleted “{title}”" and t["actions"] == ["Undo"] for t in toasts(bob)),
               message="Bob's toast", describe=lambda: toasts(bob))
    click_toast_action(ada, said, "Show in Trash")
    wait_until(lambda: ada.js("return !!document.querySelector(arguments[0])", TRASH), message="the Trash for Ada")
    entries = trash_entries(ada)
    assert len(entries) == 1 and entries[0]["what"] == f"“{title}”" and entries[0]["about"].startswith("Deleted by Bob · ")
    assert entries[0]["buttons"] == ["Restore"]
    assert audit(ada, TRASH) == []
    ada.shot("trash-panel.png")

    # Ada restores it: back in its place for both; the entry leaves the Trash.
    ada.named("Restore").click()
    for page in (ada, bob):
        wait_until(lambda: page.order(section) == order, message=f"the card back in place for {page.name}")
    wait_until(lambda: trash_entries(ada) == [], message="the Trash empty again")
    ada.named("Close").click()
    # Bob's undo of his delete finds the card restored already: refused, nothing duplicated.
    bob.named("Undo").click()
    wait_until(lambda: any("Trash" in t["text"] or "restored" in t["text"] or "already" in t["text"] for t in toasts(bob)),
               message="Bob's undo refused", describe=lambda: toasts(bob))
    assert bob.order(section) == order and ada.order(section) == order

    # Ada deletes a card and takes it back from her toast.
    second_title = ada.title(second)
    delete_card(ada, second)
    wait_until(lambda: second not in bob.order(section), message="the second card gone for Bob")
    wait_until(lambda: any(t["text"] == f"Deleted “{second_title}”" for t in toasts(ada)), message="Ada's Undo toast")
    click_toast_action(ada, f"Deleted “{second_title}”", "Undo")
    for page in (ada, bob):
        wait_until(lambda: page.order(section) == order, message=f"the second card back for {page.name}")

    # Empty trash asks first, then empties it for everyone.
    delete_card(bob, first)
    wait_until(lambda: len(ada.js("return window.corkboard.board.trash")) == 1, message="one entry in Ada's Trash")
    ada.named("Trash").click()
    wait_until(lambda: ada.js("return !!document.querySelector(arguments[0])", TRASH), message="the Trash again")
    ada.named("Empty trash").click()
    wait_until(lambda: ada.js("return [...document.querySelectorAll('dialog[open] .dialog-title')].some(h => h.textContent === 'Empty the Trash?')"),
               message="the question")
    ada.js("[...document.querySelectorAll('dialog[open] button')].find(b => b.textContent === 'Empty trash' && b.closest('dialog').querySelector('.dialog-title').textContent === 'Empty the Trash?').click()")
    for page in (ada, bob):
        wait_until(lambda: page.js("return window.corkboard.board.trash.length") == 0, message=f"the Trash emptied for {page.name}")
    assert first not in bob.order(section)
