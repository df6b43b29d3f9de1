"""The HTTP endpoints of `corkboard serve` (docs/PROTOCOL.md, "HTTP endpoints"), from outside:
image upload and serving, board creation, and every error they answer.

Requests go over raw sockets or http.client, so paths reach the server exactly as written (no
client-side normalisation of `..`)."""

import asyncio
import hashlib
import http.client
import json
import socket
import subprocess
import time

import pytest
import websockets

from conftest import ROOT, ServerProcess, executable

READY = r"url=https?://[^ ]+:(?P<port>\d+)/"

# A 2×2 red PNG, and the smallest headers of the other accepted types.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a73"
    "0000001649444154789c63f8cfc0f09f8181818181e13f030003fe01ff2bd3b3b5"
    "0000000049454e44ae426082"
)
JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")
GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"


def start(data, *extra):
    return ServerProcess(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data", data,
         "--demo", *extra],
        READY,
    )


@pytest.fixture
def server(tmp_path):
    proc = start(tmp_path / "data")
    proc.data = tmp_path / "data"
    yield proc
    proc.stop()


def request(port, method, path, body=None, headers=None):
    """One request with http.client; returns (status, headers dict lower-cased, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body is not None and not any(k.lower() == "content-length" for k in (headers or {})):
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def upload(port, board, body, content_type="image/png", key=None, headers=None):
    path = f"/api/boards/{board}/files" + (f"?key={key}" if key is not None else "")
    return request(port, "POST", path, body, {"Content-Type": content_type, **(headers or {})})


def create(port, payload, headers=None):
    body = json.dumps(payload).encode() if not isinstance(payload, bytes) else payload
    return request(port, "POST", "/api/boards", body, {"Content-Type": "application/json", **(headers or {})})


def error_code(result):
    status, headers, body = result
    assert headers["content-type"] == "application/json", result
    return status, json.loads(body)["code"]


def raw(port, data, timeout=10):
    """Sends raw bytes and reads until the server closes or the response is complete."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        received = b""
        while True:
            head, sep, rest = received.partition(b"\r\n\r\n")
            if sep:
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), None)
                if length is not None and len(rest) >= length:
                    break
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), head.decode(), body


def health(port):
    return json.loads(request(port, "GET", "/healthz")[2])


# MARK: Upload


def test_healthz_advertises_uploads_and_board_creation(server, tmp_path):
    h = health(server.port)
    assert h["uploadMaxBytes"] == 10 * 1024 * 1024
    assert h["boardCreation"] is True
    off = start(tmp_path / "off", "--max-upload-bytes", "0", "--max-boards", "0")
    try:
        h = health(off.port)
        assert "uploadMaxBytes" not in h and "boardCreation" not in h
        assert error_code(upload(off.port, "demo", PNG)) == (404, "not-found")
        assert error_code(create(off.port, {"title": "x"}))[0] == 404
    finally:
        off.stop()


def test_png_round_trip_stored_by_content_and_served_with_cache_headers(server):
    status, headers, body = upload(server.port, "demo", PNG)
    assert status == 201, body
    digest = hashlib.sha256(PNG).hexdigest()
    answer = json.loads(body)
    assert answer == {"url": f"/files/demo/{digest}.png", "type": "image/png", "bytes": len(PNG), "image": True}
    stored = server.data / "files" / "demo" / f"{digest}.png"
    assert stored.read_bytes() == PNG
    assert not [p for p in stored.parent.iterdir() if p.name.startswith(".")], "no temporary file is left"
    status, headers, body = request(server.port, "GET", answer["url"])
    assert status == 200 and body == PNG
    assert headers["content-type"] == "image/png"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    # The same image again: the same name, stored once.
    assert json.loads(upload(server.port, "demo", PNG)[2])["url"] == answer["url"]
    assert len(list(stored.parent.iterdir())) == 1


@pytest.mark.parametrize("content_type,data,ext", [("image/jpeg", JPEG, "jpg"), ("image/gif", GIF, "gif"),
                                                   ("image/webp", WEBP, "webp"), ("IMAGE/PNG; x=y", PNG, "png")])
def test_every_accepted_type(server, content_type, data, ext):
    status, _, body = upload(server.port, "demo", data, content_type)
    assert status == 201, body
    url = json.loads(body)["url"]
    assert url.endswith(f".{ext}")
    status, headers, served = request(server.port, "GET", url)
    assert status == 200 and served == data
    assert headers["content-type"] == content_type.split(";")[0].lower()


def test_type_errors(server):
    assert error_code(upload(server.port, "demo", JPEG, "image/png")) == (415, "unsupported-type")
    assert error_code(upload(server.port, "demo", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml")) == (415, "unsupported-type")
    assert error_code(upload(server.port, "demo", b"just text", "image/png")) == (415, "unsupported-type")
    assert error_code(request(server.port, "POST", "/api/boards/demo/files", PNG)) == (415, "unsupported-type")
    assert error_code(upload(server.port, "demo", b"")) == (400, "bad-request")


def test_keys_boards_and_origins(server):
    created = json.loads(create(server.port, {"title": "Keyed"})[2])
    board = created["id"]
    assert upload(server.port, board, PNG, key=created["editKey"])[0] == 201
    assert error_code(upload(server.port, board, PNG, key=created["viewKey"])) == (403, "bad-key")
    assert error_code(upload(server.port, board, PNG, key="e-wrong")) == (403, "bad-key")
    assert error_code(upload(server.port, board, PNG)) == (403, "bad-key")
    # The open demo board takes any key or none.
    assert upload(server.port, "demo", PNG, key="anything")[0] == 201
    assert error_code(upload(server.port, "no-such-board", PNG)) == (404, "unknown-board")
    assert error_code(upload(server.port, "demo", PNG, headers={"Origin": "https://evil.example"})) == (403, "bad-origin")
    own = {"Origin": f"http://127.0.0.1:{server.port}"}
    assert upload(server.port, "demo", PNG, headers=own)[0] == 201


def test_a_file_that_cannot_be_stored_is_an_internal_error(server):
    # A plain file where the board's folder should be: the image cannot be written.
    (server.data / "files").mkdir(exist_ok=True)
    (server.data / "files" / "demo").write_bytes(b"in the way")
    assert error_code(upload(server.port, "demo", PNG)) == (500, "internal")
    assert (server.data / "files" / "demo").read_bytes() == b"in the way"


def test_help_lists_the_endpoint_options():
    result = subprocess.run([executable("CORKBOARD_BIN", "corkboard"), "serve", "--help"], capture_output=True,
                            text=True, timeout=20)
    assert "--max-upload-bytes" in result.stdout and "--max-boards" in result.stdout


def test_size_and_length_errors(tmp_path):
    proc = start(tmp_path / "data", "--max-upload-bytes", "1000")
    try:
        assert health(proc.port)["uploadMaxBytes"] == 1000
        big = PNG + bytes(1000 - len(PNG))
        assert upload(proc.port, "demo", big)[0] == 201
        assert error_code(upload(proc.port, "demo", big + b"\0")) == (413, "too-large")
        # Refused from the header alone: no body is ever sent, the answer comes anyway.
        started = time.monotonic()
        status, head, body = raw(proc.port, b"POST /api/boards/demo/files HTTP/1.1\r\nHost: x\r\n"
                                            b"Content-Type: image/png\r\nContent-Length: 50000000\r\n\r\n")
        assert status == 413 and json.loads(body)["code"] == "too-large"
        assert time.monotonic() - started < 5
        status, _, body = raw(proc.port, b"POST /api/boards/demo/files HTTP/1.1\r\nHost: x\r\n"
                                         b"Content-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n")
        assert status == 411 and json.loads(body)["code"] == "length-required"
        status, _, body = raw(proc.port, b"POST /api/boards/demo/files HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n\r\n")
        assert status == 411
    finally:
        proc.stop()


def test_path_traversal_is_impossible(server):
    (server.data / "files").mkdir(exist_ok=True)
    secret = server.data / "files" / "secret.png"
    secret.write_bytes(PNG)
    digest = hashlib.sha256(PNG).hexdigest()
    attempts = [
        "/files/../corkboard.sqlite", "/files/demo/../../corkboard.sqlite", "/files/demo/%2e%2e/%2e%2e/corkboard.sqlite",
        "/files/..%2fcorkboard.sqlite", "/files/demo/..%2f..%2fcorkboard.sqlite", "/files/secret.png",
        "/files/demo/secret.png", "/files/demo/../secret.png", f"/files/demo/{digest}.png/../../secret.png",
        f"/files/demo/{digest.upper()}.png", f"/files/demo/{digest}.svg", f"/files/demo/{digest}.png.png",
        "/files/demo//etc/passwd", "/files/demo/%00.png", "/files/", "/files/demo/",
    ]
    for path in attempts:
        status, _, body = raw(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        assert status in (400, 403, 404), (path, status)
        assert body != PNG and b"SQLite" not in body, path
    # Nothing outside files/<board>/ can be written either.
    for path in ["/api/boards/../files", "/api/boards/demo/../../files", "/api/boards/..%2f..%2fdemo/files",
                 "/api/boards/demo%2f..%2f../files"]:
        status, _, _ = raw(server.port, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n"
                                        f"Content-Length: {len(PNG)}\r\nConnection: close\r\n\r\n".encode() + PNG)
        assert status in (400, 403, 404, 405), (path, status)
    assert sorted(p.name for p in (server.data / "files").iterdir()) == ["secret.png"]


# MARK: Board creation


def hello(port, board, key):
    async def scenario():
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"]) as ws:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": board, "key": key, "name": "Ada"}))
            return json.loads(await asyncio.wait_for(ws.recv(), timeout=5))

    return asyncio.run(scenario())


def test_created_board_opens_with_its_keys(server):
    status, headers, body = create(server.port, {"title": "  Trip planning ", "template": "demo"})
    assert status == 201, body
    board = json.loads(body)
    assert board["title"] == "Trip planning"
    assert board["id"].startswith("trip-planning-")
    base = f"http://127.0.0.1:{server.port}/?board={board['id']}"
    assert board["edit"] == f"{base}&key={board['editKey']}"
    assert board["view"] == f"{base}&key={board['viewKey']}"
    # R17: one link per role; its creator gets the admin link.
    assert board["admin"] == f"{base}&key={board['adminKey']}"
    assert board["comment"] == f"{base}&key={board['commentKey']}"
    assert hello(server.port, board["id"], board["adminKey"])["member"]["role"] == "admin"
    assert hello(server.port, board["id"], board["commentKey"])["member"]["role"] == "commenter"
    welcome = hello(server.port, board["id"], board["editKey"])
    assert welcome["type"] == "welcome", welcome
    assert welcome["member"]["role"] == "editor"
    assert welcome["board"] == {"id": board["id"], "title": "Trip planning"}
    items = [i for c in welcome["snapshot"]["board"]["collections"] for s in c["sections"] for i in s["items"]]
    assert f"{board['id']}-gc1" in json.dumps(items), "the demo template's cards"
    assert hello(server.port, board["id"], board["viewKey"])["member"]["role"] == "viewer"
    assert hello(server.port, board["id"], "e-wrong")["code"] == "bad-key"
    # With an id of the caller's choice; the same id again is taken.
    status, _, body = create(server.port, {"title": "Mine", "id": "my-board-1"})
    assert status == 201 and json.loads(body)["id"] == "my-board-1"
    assert hello(server.port, "my-board-1", json.loads(body)["editKey"])["member"]["role"] == "editor"
    assert error_code(create(server.port, {"title": "Mine again", "id": "my-board-1"})) == (409, "board-exists")
    assert health(server.port)["boards"] == 3


def test_board_creation_errors(server):
    for payload in [{"title": ""}, {"title": "   "}, {"title": "x" * 101}, {"title": "a\nb"}, {},
                    {"title": "ok", "template": "fancy"}, {"title": "ok", "id": "Upper"}, {"title": "ok", "id": "a_b"},
                    {"title": "ok", "id": "x" * 65}, {"title": "ok", "id": ""}, {"title": 5}, [1, 2]]:
        assert error_code(create(server.port, payload)) == (400, "bad-request"), payload
    assert error_code(create(server.port, b"{not json")) == (400, "bad-request")
    assert create(server.port, {"title": "x" * 100})[0] == 201
    status, _, body = request(server.port, "POST", "/api/boards", b'{"title":"t"}', {"Content-Type": "text/plain"})
    assert (status, json.loads(body)["code"]) == (415, "unsupported-type")
    assert error_code(create(server.port, {"title": "t"}, {"Origin": "https://evil.example"})) == (403, "bad-origin")
    assert create(server.port, {"title": "t"}, {"Origin": f"http://localhost:{server.port}"})[0] == 201
    status, headers, _ = request(server.port, "GET", "/api/boards")
    assert status == 405 and "POST" in headers["allow"]
    status, _, body = raw(server.port, b"POST /api/boards HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                       b"Content-Length: 5000\r\n\r\n")
    assert status == 413


def test_board_cap(tmp_path):
    proc = start(tmp_path / "data", "--max-boards", "2")
    try:
        assert create(proc.port, {"title": "Second"})[0] == 201  # the demo board is the first
        assert error_code(create(proc.port, {"title": "Third"})) == (409, "board-limit")
    finally:
        proc.stop()


def test_rate_limit_per_address(server):
    for n in range(10):
        assert create(server.port, {"title": f"Board {n}"})[0] == 201
    status, headers, body = create(server.port, {"title": "One too many"})
    assert (status, json.loads(body)["code"]) == (429, "rate-limited")
    assert 1 <= int(headers["retry-after"]) <= 60
    # Invalid requests are answered without counting (and without creating anything).
    assert error_code(create(server.port, {"title": ""})) == (400, "bad-request")
    assert health(server.port)["boards"] == 11


def test_static_files_revalidate(server):
    for path in ["/", "/js/app.js", "/style.css"]:
        status, headers, _ = request(server.port, "GET", path)
        assert status == 200
        assert headers["cache-control"] == "no-cache", path
