"""Files attached to cards over HTTP (issue 41, docs/PROTOCOL.md "Uploading an image or a file" and
"Serving an image or a file"): any file is taken with `as=attachment`, and nothing uploaded can
ever run as a page or a script on the server's origin, whatever it holds or claims to be."""

import hashlib
import json
import urllib.parse

import pytest

from test_http_endpoints import JPEG, PNG, error_code, request, server, upload  # noqa: F401  (server is a fixture)

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
HTML = b"<!doctype html><script>document.title='pwned'</script><h1>hi</h1>"
SVG = b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'><script>alert(2)</script></svg>"


def attach(port, body, content_type, board="demo", key=None):
    query = {"as": "attachment", **({"key": key} if key is not None else {})}
    headers = {} if content_type is None else {"Content-Type": content_type}
    return request(port, "POST", f"/api/boards/{board}/files?{urllib.parse.urlencode(query)}", body, headers)


def answer_of(result):
    status, _, body = result
    assert status == 201, body
    return json.loads(body)


def assert_download_only(port, url, body, name=None):
    """Served as bytes to save, never as something a browser would render or run."""
    path = url + (f"?{urllib.parse.urlencode({'name': name})}" if name else "")
    status, headers, served = request(port, "GET", path)
    assert status == 200 and served == body
    assert headers["content-type"] == "application/octet-stream"
    assert headers["content-disposition"].startswith("attachment;")
    assert headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in headers["content-security-policy"]
    return headers


def test_a_pdf_is_stored_by_content_and_served_only_as_a_download(server):
    answer = answer_of(attach(server.port, PDF, "application/pdf"))
    digest = hashlib.sha256(PDF).hexdigest()
    assert answer == {"url": f"/files/demo/{digest}.bin", "type": "application/pdf", "bytes": len(PDF), "image": False}
    assert (server.data / "files" / "demo" / f"{digest}.bin").read_bytes() == PDF
    headers = assert_download_only(server.port, answer["url"], PDF, name="Plan «final».pdf")
    disposition = headers["content-disposition"]
    assert 'filename="Plan _final_.pdf"' in disposition
    assert "filename*=UTF-8''Plan%20%C2%ABfinal%C2%BB.pdf" in disposition
    # Without a name the download is still an attachment.
    assert_download_only(server.port, answer["url"], PDF)


@pytest.mark.parametrize("content_type,body", [
    ("text/html", HTML), ("image/svg+xml", SVG), ("application/xhtml+xml", HTML), ("text/javascript", b"alert(1)"),
    # Lying types: HTML that says it is a PNG, a JPEG that says it is a PNG.
    ("image/png", HTML), ("image/png", JPEG), (None, HTML), ("not a type", SVG),
])
def test_nothing_uploaded_can_run_on_the_origin(server, content_type, body):
    answer = answer_of(attach(server.port, body, content_type))
    assert answer["url"].endswith(".bin") and answer["image"] is False
    assert answer["type"] == (content_type if content_type in ("text/html", "image/svg+xml", "application/xhtml+xml",
                                                              "text/javascript", "image/png") else "application/octet-stream")
    assert_download_only(server.port, answer["url"], body, name="x.html")


def test_an_image_attached_is_an_image_served_inline(server):
    answer = answer_of(attach(server.port, PNG, "image/png"))
    assert answer["url"].endswith(".png") and answer["image"] is True
    status, headers, served = request(server.port, "GET", answer["url"])
    assert status == 200 and served == PNG and headers["content-type"] == "image/png"
    assert "content-disposition" not in headers
    # With a name it downloads under it.
    status, headers, _ = request(server.port, "GET", answer["url"] + "?name=map.png")
    assert headers["content-disposition"].startswith('attachment; filename="map.png"')


def test_attachment_errors(server):
    created = json.loads(request(server.port, "POST", "/api/boards", json.dumps({"title": "Keyed"}).encode(),
                                 {"Content-Type": "application/json"})[2])
    assert error_code(attach(server.port, PDF, "application/pdf", board=created["id"], key=created["viewKey"])) == (403, "bad-key")
    assert attach(server.port, PDF, "application/pdf", board=created["id"], key=created["editKey"])[0] == 201
    assert error_code(attach(server.port, b"", "application/pdf")) == (400, "bad-request")
    assert error_code(request(server.port, "POST", "/api/boards/demo/files?as=archive", PDF,
                              {"Content-Type": "application/pdf"})) == (400, "bad-request")
    # Without as=attachment, only images are taken, as before.
    assert error_code(upload(server.port, "demo", PDF, "application/pdf")) == (415, "unsupported-type")
    digest = hashlib.sha256(b"never uploaded").hexdigest()
    assert request(server.port, "GET", f"/files/demo/{digest}.bin")[0] == 404
    assert request(server.port, "GET", f"/files/demo/{digest}.BIN")[0] == 404
    assert request(server.port, "GET", f"/files/demo/{digest}.exe")[0] == 404
