"""Labels and comments on cards (issue 41) in two real browsers, against `corkboard serve`.

Ada makes the labels "Urgent" and "Later" in the top bar's "Labels" dialog, renames and recolours
one, and ticks "Urgent" on a card while Bob ticks the other on the same card at once: both stay
(labels are a set), and each sees the other's chip on the card's face live. Bob comments
"@Ada looks good"; Ada sees it live with Bob's name, the mention marked and the count on the card's
face, and has no control over Bob's comment. Bob edits his comment (a stale edit is refused with
a clear message and his text kept) and deletes another; a comment over 16 KiB is stopped before it
is sent. Deleting a label says how many cards carry it. Bob, on the view link, sees the labels and
comments and no control. axe audits the Labels dialog and the open card with comments; screenshots
go to Tests/python/artifacts/.
"""

import json

from test_browser import Keys, Page, browsers, console_errors, create_board, server, wait_until  # noqa: F401
from test_card_details import axe_script, open_by_title

LABELS = "dialog.labels-dialog[open]"
CONFIRM = "dialog.dialog[open]:not(.card-view):not(.labels-dialog)"
CARD_VIEW = "dialog.card-view[open]"


def audit(page, selector):
    """axe's serious and critical violations inside `selector`."""
    page.js(axe_script())
    violations = page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document.querySelector(arguments[0])).then(r => done(r.violations.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => "
        "({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}))));", selector)
    return violations


def chips(page, item):
    """The label chips on a card's face: [(name, colour class)]."""
    return page.js("return [...document.querySelectorAll(`.card[data-item='${arguments[0]}'] .label-chip`)]"
                   ".map(c => [c.textContent, [...c.classList].find(k => k.startsWith('label-') && k !== 'label-chip')])", item)


def comment_count(page, item):
    return page.js("return document.querySelector(`.card[data-item='${arguments[0]}'] .comment-count`)?.getAttribute('aria-label') ?? null", item)


def comments(page):
    """The open card's comments as shown: [{name, text, mentions, edited, controls}]."""
    return page.js("""
        return [...document.querySelectorAll('.card-view .comment')].map(c => ({
          name: c.querySelector('.comment-author').textContent,
          time: c.querySelector('.comment-time').textContent,
          text: c.querySelector('.comment-body')?.textContent ?? null,
          mentions: [...c.querySelectorAll('.mention')].map(m => m.textContent),
          edited: !!c.querySelector('.comment-edited'),
          controls: [...c.querySelectorAll('button')].map(b => b.textContent),
        }));
    """)


def tick(page, name):
    """Clicks the open card's Labels checkbox named `name`, found and clicked in one script."""
    assert page.js("const b = [...document.querySelectorAll('.card-view-labels input')].find(b => b.labels[0].textContent === arguments[0]);"
                   " if (!b) return false; b.click(); return true;", name), f"no Labels checkbox {name!r}"


def choose(page, select_name, value):
    page.js("const s = document.querySelector(`select[aria-label='${arguments[0]}']`); s.value = arguments[1];"
            "s.dispatchEvent(new Event('change', {bubbles: true}))", select_name, value)


def board_labels(page):
    return page.js("return window.corkboard.board.labels.map(l => [l.name, l.color])")


def test_labels_and_comments_between_two_editors_and_a_viewer(browsers, server):
    board = create_board(server.port, "Team")
    bid = board["id"]
    card, other = f"{bid}-gc1", f"{bid}-gc2"
    edit_link = board["edit"].replace("localhost", "127.0.0.1")
    ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
    for page in (ada, bob):
        page.driver.get_log("browser")
    try:
        ada.driver.get(edit_link + "&name=Ada")
        bob.driver.get(edit_link + "&name=Bob")
        for page in (ada, bob):
            page.wait_live()
        wait_until(lambda: ada.js("return document.querySelectorAll('.member').length") == 2, message="two members")

        # Ada makes two labels in the Labels dialog, renames and recolours the second.
        ada.named("Labels").click()
        wait_until(lambda: ada.js("return !!document.querySelector(arguments[0])", LABELS), message="the Labels dialog")
        assert ada.js("return document.activeElement.getAttribute('aria-label')") == "New label name"
        ada.type("Urgent")
        choose(ada, "New label colour", "red")
        ada.named("Create label").click()
        ada.find("input[aria-label='New label name']").send_keys("Later", Keys.ENTER)
        wait_until(lambda: board_labels(bob) == [["Urgent", "red"], ["Later", "green"]], message="both labels for Bob",
                   describe=lambda: (board_labels(bob), board_labels(ada), ada.toasts(), ada.events()[-5:]))
        rename = ada.find("input[aria-label='Name of the label Later']")
        rename.send_keys(Keys.CONTROL, "a")
        rename.send_keys("Someday", Keys.ENTER)
        choose(ada, "Colour of the label Someday", "purple")
        wait_until(lambda: board_labels(bob) == [["Urgent", "red"], ["Someday", "purple"]], message="renamed and recoloured for Bob")
        assert ada.js("return !!document.querySelector(arguments[0])", LABELS), "Enter in a field does not close the dialog"
        assert audit(ada, LABELS) == []
        ada.shot("labels-dialog.png")
        ada.named("Done").click()

        # Both open the card; Ada ticks Urgent while Bob ticks Someday: both stay.
        open_by_title(ada, card)
        open_by_title(bob, card)
        assert [b["name"] for b in ada.js("return [...document.querySelectorAll('.card-view-labels input')].map(b => ({name: b.labels[0].textContent}))")] == ["Urgent", "Someday"]
        # Found and clicked in one step: a peer's change may draw the picker again in between.
        tick(ada, "Urgent")
        tick(bob, "Someday")
        for page in (ada, bob):
            wait_until(lambda: chips(page, card) == [["Urgent", "label-red"], ["Someday", "label-purple"]], message=f"both chips for {page.name}")
            wait_until(lambda: page.js("return [...document.querySelectorAll('.card-view-labels input')].map(b => b.checked)") == [True, True],
                       message=f"both boxes ticked for {page.name}")
        assert "labels Urgent and Someday" in bob.card(card).get_attribute("aria-label")

        # Bob comments with the Save comment button, then with Ctrl+Enter; Ada sees both live.
        bob.find("textarea[aria-label='Comment']").send_keys("@Ada looks good")
        bob.named("Save comment").click()
        box = bob.find("textarea[aria-label='Comment']")
        box.send_keys("A second thought")
        bob.chord(Keys.CONTROL, Keys.ENTER)
        wait_until(lambda: len(comments(ada)) == 2, message="Bob's comments for Ada")
        first, second = comments(ada)
        assert (first["name"], first["text"], first["mentions"], first["controls"]) == ("Bob", "@Ada looks good", ["@Ada"], [])
        assert (second["name"], second["text"], second["controls"]) == ("Bob", "A second thought", [])
        assert first["time"] == ada.js("const c = window.corkboard.board.item(arguments[0]).details.comments[0];"
                                       "return document.querySelector('.comment time').dateTime === new Date(c.at).toISOString() && document.querySelector('.comment time').textContent", card)
        wait_until(lambda: comment_count(ada, card) == "2 comments", message="the count on Ada's card face")
        assert comments(bob)[0]["controls"] == ["Edit comment", "Delete comment"], "the author's own controls"
        assert ada.js("return document.querySelectorAll('.card-view .comment button').length") == 0, "Ada has no control over Bob's comments"

        # A stale edit is refused with a clear message, and the text is kept.
        bob.rewrite_sent("m.type === 'submit' && m.op.kind === 'editComment'", "if (!window.__staled) { window.__staled = true; m.op.version = 7; }")
        bob.js("document.querySelector('.card-view .comment .comment-edit').click()")
        edit = wait_until(lambda: bob.js("return document.activeElement.getAttribute('aria-label') === 'Edited comment' && document.activeElement"),
                          message="Bob's comment editor")
        edit.send_keys(Keys.CONTROL, "a")
        edit.send_keys("@Ada looks great")
        bob.named("Save edit").click()
        notice = wait_until(lambda: bob.js("return document.querySelector('.card-view-comments .comment-notice:not([hidden])')?.textContent"),
                            message="the refusal in Bob's card")
        assert notice.startswith("Your comment on “Old Mill Wheel” could not be changed: it was changed elsewhere"), notice
        assert bob.js("return document.activeElement.getAttribute('aria-label')") == "Edited comment"
        assert bob.js("return document.activeElement.value") == "@Ada looks great"
        bob.named("Save edit").click()
        wait_until(lambda: comments(ada)[0]["text"] == "@Ada looks great" and comments(ada)[0]["edited"], message="the edit for Ada")

        # Bob deletes his second comment after confirming.
        bob.js("document.querySelectorAll('.card-view .comment .comment-delete')[1].click()")
        wait_until(lambda: bob.js("return !!document.querySelector(arguments[0])", CONFIRM), message="the confirmation")
        bob.js("[...document.querySelectorAll(arguments[0] + ' button')].find(b => b.textContent === 'Delete').click()", CONFIRM)
        wait_until(lambda: len(comments(ada)) == 1 and comment_count(ada, card) == "1 comment", message="the deletion for Ada")

        # A comment over 16 KiB is stopped before it is sent.
        pending = ada.js("return window.corkboard.replica.pending.length")
        ada.js("const t = document.querySelector(\"textarea[aria-label='Comment']\"); t.value = 'é'.repeat(8193);")
        ada.named("Save comment").click()
        assert ada.js("return document.querySelector('.card-view-comments .comment-notice').textContent") == \
            "A comment holds at most 16384 bytes of UTF-8; shorten it or split it in two."
        assert ada.js("return window.corkboard.replica.pending.length") == pending
        ada.js("document.querySelector(\"textarea[aria-label='Comment']\").value = ''")

        # The open card with its labels and comments passes axe.
        assert audit(ada, CARD_VIEW) == []
        ada.shot("card-view-labels-comments.png")
        ada.named("Close").click()

        # Deleting a label says how many cards carry it, and takes it off them for everyone.
        ada.named("Labels").click()
        wait_until(lambda: ada.js("return !!document.querySelector(arguments[0])", LABELS), message="the Labels dialog again")
        ada.named("Delete label Someday").click()
        message = wait_until(lambda: ada.js("return document.querySelector(arguments[0] + ' .dialog-message')?.textContent", CONFIRM), message="the question")
        assert message.startswith("1 card carries it"), message
        ada.js("[...document.querySelectorAll(arguments[0] + ' button')].find(b => b.textContent === 'Delete label').click()", CONFIRM)
        wait_until(lambda: chips(bob, card) == [["Urgent", "label-red"]], message="the deleted label off Bob's card")
        wait_until(lambda: bob.js("return document.querySelectorAll('.card-view-labels input').length") == 1, message="Bob's open card follows")
        ada.named("Done").click()
        bob.settle()
        bob.named("Close").click()
        bob.shot("cards-with-labels.png")

        # Bob on the view link: labels and comments shown, no control.
        bob.driver.get(board["view"].replace("localhost", "127.0.0.1") + "&name=Bob")
        bob.wait_live()
        assert chips(bob, card) == [["Urgent", "label-red"]] and comment_count(bob, card) == "1 comment"
        assert chips(bob, other) == []
        open_by_title(bob, card)
        assert comments(bob)[0]["text"] == "@Ada looks great" and comments(bob)[0]["controls"] == []
        assert bob.js("return [...document.querySelectorAll('.card-view-labels input')].map(b => b.disabled)") == [True]
        assert bob.js("return document.querySelector(\"textarea[aria-label='Comment']\").offsetParent") is None
        bob.named("Close").click()
        bob.named("Labels").click()
        wait_until(lambda: bob.js("return !!document.querySelector(arguments[0])", LABELS), message="the viewer's Labels dialog")
        assert bob.js("return document.querySelectorAll(arguments[0] + ' .labels-list input, ' + arguments[0] + ' .labels-list button, ' + arguments[0] + ' .labels-new').length", LABELS) == 0
        assert bob.js("return [...document.querySelectorAll(arguments[0] + ' .labels-list .label-chip')].map(c => c.textContent)", LABELS) == ["Urgent"]
        bob.named("Done").click()
        errors = {page.name: console_errors(page.driver) for page in (ada, bob)}
        assert not any(errors.values()), f"errors in the browser console: {errors}"
        assert not json.dumps(errors).count("SEVERE")
    finally:
        for page in (ada, bob):
            page.driver.get("about:blank")
