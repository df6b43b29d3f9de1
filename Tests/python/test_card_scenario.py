"""Issue 41's whole scenario in two real browsers, one card from empty to full, against `corkboard serve`.

Ada and Bob (both editors) open the same card. Ada writes a description, sets a due date, assigns
Bob, adds a checklist with three items, reorders them by dragging, checks one, comments, attaches a
PDF and an image, and ticks a label made in the board's "Labels" dialog; after each step Bob sees it
in his open card and on the card's face, live, without a reload. Then Ada undoes the label: it goes
for both, and everything else stays. The separate suites (test_card_details, test_card_checklists,
test_card_labels_comments, test_card_files) test each part's edges; this one tests them together,
on one card, in the order a person works.
"""

from test_browser import ActionChains, Keys, Page, browsers, create_board, server, wait_until  # noqa: F401
from test_card_checklists import checklists, item_row, progress
from test_card_details import details, face, open_by_title, set_date, view_state, write_description
from test_card_files import files
from test_card_files import face as file_face
from test_card_labels_comments import LABELS, chips, comment_count, comments, tick
from test_http_endpoints import PNG


def test_one_card_filled_by_ada_shows_live_for_bob_and_undo_takes_back_only_the_label(browsers, server, tmp_path):
    board = create_board(server.port, "Launch")
    card = f"{board['id']}-gc1"
    link = board["edit"].replace("localhost", "127.0.0.1")
    ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
    ada.driver.get(link + "&name=Ada")
    bob.driver.get(link + "&name=Bob")
    for page in (ada, bob):
        page.wait_live()
    wait_until(lambda: ada.js("return document.querySelectorAll('.member').length") == 2, message="both on the board")

    # The board's label first (the top bar's Labels dialog), so the card can carry it later.
    ada.named("Labels").click()
    wait_until(lambda: ada.js("return !!document.querySelector(arguments[0])", LABELS), message="the Labels dialog")
    ada.type("Urgent")
    ada.named("Create label").click()
    wait_until(lambda: bob.js("return window.corkboard.board.labels.map(l => l.name)") == ["Urgent"], message="the label for Bob")
    ada.named("Done").click()

    open_by_title(ada, card)
    open_by_title(bob, card)

    # Description.
    write_description(ada, "Print **posters** and book the hall.")
    wait_until(lambda: view_state(bob)["description"] == "<p>Print <strong>posters</strong> and book the hall.</p>",
               message="the description in Bob's open card")
    wait_until(lambda: face(bob, card)["description"] == "Print posters and book the hall.", message="the description on Bob's card")

    # Due date, two hours away: due soon.
    shown = set_date(ada, "#card-view-due", 2)
    wait_until(lambda: view_state(bob)["due"] == shown and (face(bob, card)["badge"] or [None])[0] == "soon",
               message="the due date for Bob")

    # Assign Bob (Assign lists the people on the board).
    assert "Bob" in view_state(ada)["people"]
    ada.js("[...document.querySelectorAll('.card-view-people input')].find(b => b.value === 'Bob').click()")
    wait_until(lambda: view_state(bob)["assigned"] == ["Bob"] and face(bob, card)["initials"] == ["B"], message="Bob assigned, for Bob")

    # A checklist of three items, reordered by a pointer drag, one checked.
    ada.named("Add checklist").click()
    wait_until(lambda: ada.js("return document.activeElement?.getAttribute('aria-label')") == "Checklist name", message="the name box")
    ada.retype("Before the launch", Keys.ENTER)
    wait_until(lambda: checklists(bob) == [["Before the launch", "0/0", []]], message="the checklist in Bob's open card")
    ada.named("Add checklist item").click()
    for text in ("Posters", "Hall", "Snacks"):
        ada.type(text, Keys.ENTER)
        wait_until(lambda: text in [t for t, _ in checklists(ada)[0][2]], message=f"{text} in Ada's checklist")
    wait_until(lambda: [t for t, _ in checklists(bob)[0][2]] == ["Posters", "Hall", "Snacks"], message="three items for Bob")
    handle = ada.find(".checklist-handle", item_row(ada, "Snacks"))
    posters = item_row(ada, "Posters")
    ActionChains(ada.driver, duration=80).move_to_element(handle).click_and_hold().move_by_offset(0, -8).pause(0.1) \
        .move_to_element_with_offset(posters, 0, -posters.size["height"] // 2 + 2).pause(0.15).release().perform()
    wait_until(lambda: [t for t, _ in checklists(bob)[0][2]] == ["Snacks", "Posters", "Hall"], message="the dragged order for Bob")
    ada.js("arguments[0].querySelector('input').click()", item_row(ada, "Hall"))
    wait_until(lambda: checklists(bob) == [["Before the launch", "1/3", [["Snacks", False], ["Posters", False], ["Hall", True]]]],
               message="the check in Bob's open card")
    wait_until(lambda: progress(bob, card) == ["1/3", "1 of 3 checklist items done"], message="1/3 on Bob's card")

    # A comment.
    ada.find("textarea[aria-label='Comment']").send_keys("Hall is booked for @Bob")
    ada.named("Save comment").click()
    wait_until(lambda: [(c["name"], c["text"], c["mentions"]) for c in comments(bob)] == [("Ada", "Hall is booked for @Bob", ["@Bob"])],
               message="Ada's comment for Bob")
    wait_until(lambda: comment_count(bob, card) == "1 comment", message="the comment count on Bob's card")

    # A PDF and an image.
    pdf = tmp_path / "Floor plan.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    image = tmp_path / "poster.png"
    image.write_bytes(PNG)
    ada.find(".card-view-attachments input[type=file]").send_keys(f"{pdf}\n{image}")
    wait_until(lambda: [(f["name"], f["preview"]) for f in files(bob)] == [("Floor plan.pdf", False), ("poster.png", True)],
               message="both files in Bob's open card")
    wait_until(lambda: file_face(bob, card)["count"] == "2 files", message="the file count on Bob's card")

    # The label, ticked in the open card.
    tick(ada, "Urgent")
    wait_until(lambda: [name for name, _ in chips(bob, card)] == ["Urgent"], message="the label chip on Bob's card")
    before_undo = details(bob, card)
    assert before_undo["labels"] and before_undo["assignees"] == ["Bob"] and before_undo["description"]

    # Ada undoes her last change, the label: gone for both; everything else stays as it was.
    ada.named("Close").click()
    ada.named("Undo").click()
    wait_until(lambda: chips(bob, card) == [] and chips(ada, card) == [], message="the label undone for both")
    after = details(bob, card)
    assert after == details(ada, card)
    assert {k: v for k, v in after.items() if k != "labels"} == {k: v for k, v in before_undo.items() if k != "labels"}
    assert not after.get("labels")
    assert view_state(bob)["assigned"] == ["Bob"] and progress(bob, card) == ["1/3", "1 of 3 checklist items done"]
    assert [f["name"] for f in files(bob)] == ["Floor plan.pdf", "poster.png"] and len(comments(bob)) == 1
