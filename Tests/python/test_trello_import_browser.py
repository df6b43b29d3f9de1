"""The start page's "Import from Trello" (issue 43) in real headless Chromium: the file input named
"Import from Trello" takes the fixture export (Selenium's send_keys of its path), and the page lands
on the new board, live, showing the imported lists and cards. A file that is not a Trello export
leaves the page where it is with the server's sentence."""

import pytest

from test_browser import Page, console_errors, new_browser, server, wait_until  # noqa: F401
from conftest import ROOT
from selenium.webdriver.common.by import By

FIXTURES = ROOT / "Tests" / "Fixtures" / "trello"


@pytest.fixture
def browser():
    driver = new_browser()
    yield driver
    driver.quit()


def import_input(page):
    return wait_until(
        lambda: next(
            (i for i in page.driver.find_elements(By.CSS_SELECTOR, "input[type=file]")
             if i.accessible_name == "Import from Trello" and i.is_enabled()), None),
        message="an enabled file input named Import from Trello",
    )


def test_import_from_trello_lands_on_the_new_board(browser, server):
    page = Page(browser, server.port, "Ada")
    browser.get(f"http://127.0.0.1:{server.port}/")
    browser.get_log("browser")
    # Not a Trello export: the page says so and stays on the start page.
    import_input(page).send_keys(str(FIXTURES / "not-trello.json"))
    wait_until(lambda: "not a Trello board export" in page.js("return document.body.innerText"),
               message="the server's refusal on the page")
    assert "board=" not in browser.current_url
    # The fixture: the page lands on the new board, live, with its lists and cards.
    import_input(page).send_keys(str(FIXTURES / "trello-board.json"))
    wait_until(lambda: "board=trip-planning-" in browser.current_url, message="the new board's address")
    page.wait_live(timeout=20.0)
    text = wait_until(lambda: (t := page.js("return document.body.innerText")) and "Book flights" in t and t,
                      message="the imported cards on the board")
    for expected in ["Ideas", "To do 📝", "Empty", "Pack 🎒", "Book flights ✈️"]:
        assert expected in text
    assert "Archived card" not in text
    assert page.js("return document.querySelectorAll('.card[data-item]').length") == 3
    errors = [e for e in console_errors(browser) if "/api/boards/import/trello" not in e["message"]]
    browser.get("about:blank")
    assert not errors, f"errors in the browser console: {errors}"
