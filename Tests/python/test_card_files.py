"""Files on cards (issue 41) in two real browsers, against `corkboard serve`.

Ada opens a card and uses "Attach file" to attach a PDF, an image and an HTML page; Bob sees the
count on the card's face and the files in his open card live. Ada makes the image the card's
cover (Bob sees it on the face), removes the PDF and undoes that. Every download link names its
file, and what the server answers for the PDF and the HTML page is a download that cannot run on
the board's origin. Bob, on the view link, sees and downloads the files but has no control. axe
audits the open card with files; a screenshot goes to Tests/python/artifacts/.
"""

import http.client
import urllib.parse

from test_browser import Page, browsers, create_board, server, wait_until  # noqa: F401
from test_card_details import open_by_title
from test_card_labels_comments import audit
from test_http_endpoints import PNG

CARD_VIEW = "dialog.card-view[open]"


def files(page):
    """The open card's files as shown: [{name, size, href, preview, buttons}]."""
    return page.js("""
        return [...document.querySelectorAll('.card-view .card-view-file')].map(f => ({
          name: f.querySelector('.card-view-file-name').textContent,
          size: f.querySelector('.card-view-file-size').textContent,
          href: f.querySelector('.card-view-file-name').getAttribute('href'),
          preview: !!f.querySelector('img.card-view-file-preview'),
          buttons: [...f.querySelectorAll('button')].map(b => b.textContent),
        }));
    """)


def face(page, item):
    return page.js("const c = document.querySelector(`.card[data-item='${arguments[0]}']`);"
                   "return {count: c.querySelector('.file-count')?.getAttribute('aria-label') ?? null,"
                   " cover: c.querySelector('img.card-cover')?.getAttribute('src') ?? null}", item)


def head(port, href):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", href)
        response = conn.getresponse()
        response.read()
        return {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def test_files_attached_shown_live_made_cover_removed_and_undone(browsers, server, tmp_path):
    board = create_board(server.port, "Files")
    bid = board["id"]
    card = f"{bid}-gc1"
    pdf = tmp_path / "Plan 2026.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    image = tmp_path / "map.png"
    image.write_bytes(PNG)
    page_html = tmp_path / "evil.html"
    page_html.write_bytes(b"<script>document.title = 'pwned'</script>")
    ada, bob = Page(browsers[0], server.port, "Ada"), Page(browsers[1], server.port, "Bob")
    ada.driver.get(board["edit"].replace("localhost", "127.0.0.1") + "&name=Ada")
    bob.driver.get(board["view"].replace("localhost", "127.0.0.1") + "&name=Bob")
    for page in (ada, bob):
        page.wait_live()

    open_by_title(ada, card)
    open_by_title(bob, card)
    assert ada.named("Attach file") is not None
    assert bob.js("return [...document.querySelectorAll('.card-view button')].some(b => b.textContent === 'Attach file' && b.offsetParent)") is False
    chooser = ada.find(".card-view-attachments input[type=file]")
    chooser.send_keys("\n".join(str(p) for p in (pdf, image, page_html)))
    wait_until(lambda: [f["name"] for f in files(bob)] == ["Plan 2026.pdf", "map.png", "evil.html"], message="the files for Bob",
               describe=lambda: (files(ada), ada.toasts(), ada.js("return document.querySelector('.card-view-notice').textContent")))
    wait_until(lambda: face(bob, card)["count"] == "3 files", message="the count on Bob's card face")
    shown = files(ada)
    assert [f["preview"] for f in shown] == [False, True, False]
    assert shown[0]["size"] == "15 bytes"
    assert shown[1]["buttons"] == ["Make cover", "Remove"] and shown[0]["buttons"] == ["Remove"]
    assert all(f["buttons"] == [] for f in files(bob)), "a viewer has no control over files"

    # Every download names its file; the PDF and the HTML page are downloads only.
    for f in shown:
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(f["href"]).query)["name"] == [f["name"]]
    for f in (shown[0], shown[2]):
        headers = head(server.port, f["href"])
        assert headers["content-type"] == "application/octet-stream"
        assert headers["content-disposition"].startswith("attachment;")
        assert headers["x-content-type-options"] == "nosniff"

    # The image becomes the cover; Bob sees it on the card's face.
    ada.named("Make cover of map.png").click()
    wait_until(lambda: (face(bob, card)["cover"] or "").endswith(".png"), message="the cover on Bob's card")
    assert face(bob, card)["cover"] == face(ada, card)["cover"] == shown[1]["href"].split("?")[0]
    assert audit(ada, CARD_VIEW) == []
    ada.shot("card-files.png")

    # Ada removes the PDF; Undo brings it back for both.
    ada.named("Remove Plan 2026.pdf").click()
    wait_until(lambda: [f["name"] for f in files(bob)] == ["map.png", "evil.html"], message="the PDF gone for Bob")
    ada.named("Close").click()
    ada.named("Undo").click()
    wait_until(lambda: face(bob, card)["count"] == "3 files", message="the PDF back for Bob after Ada's undo")
    assert sorted(f["name"] for f in files(bob)) == ["Plan 2026.pdf", "evil.html", "map.png"]
