"""Frames RFC 6455 forbids a client, over real sockets (issue 19, "Hold under abuse").

libwebsockets 4.1.6 accepts unmasked client frames (§5.1 says the server must fail the connection)
and drops the TCP connection without a close frame on a control frame whose length uses the 16- or
64-bit form (§5.5). The transport's frame guard (Sources/CFrameGuard) checks frame headers where
libwebsockets reads them: each case here must get a Close frame 1002 whose reason names the
problem, then the end of the stream, with nothing of the bad frame reaching the application, over
ws and wss, on /ws and the echo path, on both event loops. Well-behaved clients are unaffected.

The guard fails closed: at start the server reads an unmasked frame through libwebsockets itself,
and a server whose guard is out of the read path (here: an LD_AUDIT module binds libwebsockets'
`recv` to libc's) refuses to start, unless `--allow-unguarded-reads` lets it serve with a warning.
"""

import json
import os
import shutil
import socket
import ssl
import subprocess
import time

import pytest

from conftest import ROOT, ServerProcess, executable, self_signed_certificate
from test_abuse import masked_frame, read_frame, read_one_frame, upgrade_request

READY = r"url=https?://[^ ]+:(?P<port>\d+)/"
HELLO = json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "Ada"}).encode()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


class Server:
    def __init__(self, process, tls):
        self.process, self.tls = process, tls

    @property
    def port(self):
        return self.process.port

    def connect(self):
        raw = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if not self.tls:
            return raw
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context.wrap_socket(raw)


@pytest.fixture(scope="module", params=[("ws", "libuv"), ("ws", "poll"), ("wss", "libuv"), ("wss", "poll")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def server(request, tmp_path_factory, certificate):
    scheme, loop = request.param
    data = tmp_path_factory.mktemp("data")
    args = [
        executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data", data,
        "--store", "memory", "--demo", "--echo-path", "/echo", "--event-loop", loop,
    ]
    if scheme == "wss":
        args += ["--tls-cert", certificate[1], "--tls-key", certificate[0]]
    process = ServerProcess(args, READY)
    yield Server(process, scheme == "wss")
    process.stop()


def read_head(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(1)  # byte by byte: nothing after the head is consumed here
        if not chunk:
            break
        data += chunk
    return data


def open_websocket(server, path):
    s = server.connect()
    s.sendall(upgrade_request(server.port, path, "corkboard.v1" if path == "/ws" else None))
    head = read_head(s)
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def unmasked(payload: bytes, opcode=0x1) -> bytes:
    return masked_frame(payload, opcode, mask=False)


def control_with_long_length(opcode: int, form: int) -> bytes:
    """A masked control frame of 5 bytes whose length is written in the 16- (126) or 64-bit (127) form."""
    length = (5).to_bytes(2 if form == 126 else 8, "big")
    key = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | form]) + length + key + bytes(b ^ key[i % 4] for i, b in enumerate(b"abcde"))


def frames_until_close(s, deadline=10.0):
    """Frames the server sends until its close frame: ([(opcode, payload)…], close code, reason)."""
    s.settimeout(deadline)
    seen = []
    while True:
        opcode, _, payload = read_one_frame(s)
        if opcode == 0x8:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
            return seen, code, payload[2:].decode()
        seen.append((opcode, payload))


def read_messages(s, count, pongs=0):
    """`count` data messages, reassembled, and `pongs` pongs, which may come between them."""
    messages, seen_pongs, current = [], [], None
    while len(messages) < count or len(seen_pongs) < pongs:
        opcode, fin, payload = read_one_frame(s)
        if opcode == 0xA:
            seen_pongs.append(payload)
            continue
        current = (opcode, payload) if current is None else (current[0], current[1] + payload)
        if fin:
            messages.append(current)
            current = None
    return messages, seen_pongs


def assert_stream_ends(s, within=10.0):
    s.settimeout(within)
    try:
        while s.recv(4096):
            pass
    except (ConnectionResetError, ssl.SSLError, ssl.SSLEOFError):
        pass  # the server may end the stream with a reset once it stops waiting for our close


def expect_protocol_error(s, words):
    seen, code, reason = frames_until_close(s)
    assert code == 1002, (code, reason)
    assert words in reason, reason
    assert_stream_ends(s)
    return seen


PATHS = ["/ws", "/echo"]


@pytest.mark.parametrize("path", PATHS)
def test_unmasked_text_frame_is_closed_1002_and_never_processed(server, path):
    s = open_websocket(server, path)
    s.sendall(unmasked(HELLO))
    seen = expect_protocol_error(s, "unmasked frame")
    assert seen == [], "nothing of an unmasked frame reaches the application (no welcome, no echo)"


@pytest.mark.parametrize("path", PATHS)
def test_unmasked_frame_after_masked_ones(server, path):
    s = open_websocket(server, path)
    if path == "/ws":
        s.sendall(masked_frame(HELLO))
        opcode, _, payload = read_one_frame(s)
        assert json.loads(payload)["type"] == "welcome"
    else:
        s.sendall(masked_frame(b"one") + masked_frame(b"two"))
        assert read_one_frame(s)[2] == b"one" and read_one_frame(s)[2] == b"two"
    s.sendall(unmasked(b"three"))
    seen = expect_protocol_error(s, "unmasked frame")
    assert all(payload != b"three" for _, payload in seen)


@pytest.mark.parametrize("path", PATHS)
def test_masked_and_unmasked_in_one_write(server, path):
    """Neither the bad frame nor what follows it is served (the close is immediate: answers to the
    frames before it, still queued, are dropped with the connection)."""
    s = open_websocket(server, path)
    if path == "/echo":
        s.sendall(masked_frame(b"before") + unmasked(b"bad") + masked_frame(b"after"))
        seen = expect_protocol_error(s, "unmasked frame")
        assert seen in ([], [(0x1, b"before")])
    else:
        s.sendall(masked_frame(HELLO) + unmasked(b"bad") + masked_frame(b"{}"))
        seen = expect_protocol_error(s, "unmasked frame")
        assert all(json.loads(p)["type"] == "welcome" for _, p in seen), "no error for the bad frame or the next"


@pytest.mark.parametrize("path", PATHS)
def test_unmasked_ping_is_not_answered_but_closed(server, path):
    s = open_websocket(server, path)
    s.sendall(unmasked(b"ping?", opcode=0x9))
    seen = expect_protocol_error(s, "unmasked frame")
    assert seen == [], "no pong for an unmasked ping"


@pytest.mark.parametrize("path", PATHS)
def test_zero_length_unmasked_frame(server, path):
    s = open_websocket(server, path)
    s.sendall(bytes([0x81, 0x00]))
    assert expect_protocol_error(s, "unmasked frame") == []


@pytest.mark.parametrize("path", PATHS)
def test_unmasked_frame_sent_a_byte_at_a_time(server, path):
    """A header split over many reads: its first byte reached libwebsockets before the check could decide."""
    s = open_websocket(server, path)
    for byte in unmasked(b"slow"):
        s.sendall(bytes([byte]))
        time.sleep(0.02)
    assert expect_protocol_error(s, "unmasked frame") == []


@pytest.mark.parametrize("path", PATHS)
def test_upgrade_request_and_unmasked_frame_in_one_write(server, path):
    """Frames that arrive with the upgrade request are checked too (read with the request head)."""
    s = server.connect()
    s.sendall(upgrade_request(server.port, path, "corkboard.v1" if path == "/ws" else None) + unmasked(HELLO))
    head = read_head(s)
    assert head.startswith(b"HTTP/1.1 101"), head
    assert expect_protocol_error(s, "unmasked frame") == []


@pytest.mark.parametrize("path", PATHS)
def test_upgrade_request_with_masked_frames_in_one_write_is_served(server, path):
    s = server.connect()
    frame = masked_frame(HELLO if path == "/ws" else b"early")
    s.sendall(upgrade_request(server.port, path, "corkboard.v1" if path == "/ws" else None) + frame)
    assert read_head(s).startswith(b"HTTP/1.1 101")
    opcode, _, payload = read_one_frame(s)
    if path == "/ws":
        assert json.loads(payload)["type"] == "welcome"
    else:
        assert payload == b"early"
    s.close()


@pytest.mark.parametrize("opcode", [0x9, 0x8], ids=["ping", "close"])
@pytest.mark.parametrize("form", [126, 127], ids=["16-bit", "64-bit"])
@pytest.mark.parametrize("path", PATHS)
def test_control_frame_with_extended_length_gets_a_close_frame(server, path, opcode, form):
    s = open_websocket(server, path)
    s.sendall(control_with_long_length(opcode, form))
    assert expect_protocol_error(s, "control frame longer than 125 bytes") == []


def test_64_bit_length_with_its_top_bit_set_gets_a_close_frame(server):
    s = open_websocket(server, "/echo")
    s.sendall(bytes([0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 5]) + os.urandom(4) + b"abcde")
    assert expect_protocol_error(s, "most significant bit") == []


@pytest.mark.parametrize("path", PATHS)
def test_well_behaved_client_is_unaffected(server, path):
    """Masked frames of every length form, pings and fragments, written in odd pieces, are served."""
    s = open_websocket(server, path)
    if path == "/ws":
        s.sendall(masked_frame(HELLO))
        assert json.loads(read_one_frame(s)[2])["type"] == "welcome"
        s.sendall(masked_frame(b"are you there", opcode=0x9))
        opcode, _, payload = read_one_frame(s)
        while opcode != 0xA:  # presence and other broadcasts may come first
            opcode, _, payload = read_one_frame(s)
        assert payload == b"are you there"
    else:
        payloads = [b"", b"x" * 125, b"y" * 126, b"z" * 65535, b"w" * 65536]
        stream = b"".join(masked_frame(p, opcode=0x2) for p in payloads)
        stream += masked_frame(b"ping", opcode=0x9)
        for at in range(0, len(stream), 7777):  # pieces that cut headers in odd places
            s.sendall(stream[at:at + 7777])
        messages, pongs = read_messages(s, len(payloads), pongs=1)
        assert messages == [(0x2, p) for p in payloads]
        assert pongs == [b"ping"]
        first = masked_frame(b"frag-", opcode=0x1)
        s.sendall(bytes([first[0] & 0x7F]) + first[1:] + masked_frame(b"mented", opcode=0x0))
        assert read_frame(s) == (0x1, b"frag-mented")
    close = bytes([0x88, 0x82]) + b"\0\0\0\0" + (1000).to_bytes(2, "big")
    s.sendall(close)
    _, code, _ = frames_until_close(s)
    assert code == 1000
    s.close()


def test_a_guarded_server_starts_without_a_warning(server):
    log = "".join(server.process.lines)
    assert "frame guard" not in log, log


@pytest.fixture(scope="module")
def unguard_recv(tmp_path_factory):
    """The audit module of unguard_recv_audit.c, built: with it as LD_AUDIT, libwebsockets reads
    past the guard while every symbol lookup still finds the guard's `recv`."""
    compiler = shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    assert compiler, "a C compiler (cc, clang or gcc) must build the test's audit module"
    library = tmp_path_factory.mktemp("audit") / "unguard_recv.so"
    source = ROOT / "Tests" / "python" / "unguard_recv_audit.c"
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", library, source], check=True, capture_output=True,
                   timeout=120)
    return library


def serve(tmp_path, loop, *extra):
    return [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data",
            tmp_path / "data", "--store", "memory", "--echo-path", "/echo", "--event-loop", loop, *extra]


@pytest.mark.parametrize("loop", ["libuv", "poll"])
def test_a_server_whose_guard_is_out_of_the_read_path_refuses_to_start(tmp_path, unguard_recv, loop):
    result = subprocess.run(["env", f"LD_AUDIT={unguard_recv}", *serve(tmp_path, loop)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0, result.stderr
    assert "the WebSocket frame guard is not in libwebsockets' read path" in result.stderr, result.stderr
    assert "an unmasked frame reached libwebsockets: its recv is not the guard's" in result.stderr, result.stderr
    assert "serve without the guard: pass --allow-unguarded-reads or set CORKBOARD_ALLOW_UNGUARDED_READS=1." in result.stderr, result.stderr
    assert "url=" not in result.stderr, "it never announced an address"


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_allowing_unguarded_reads_serves_without_the_guard_and_warns(tmp_path, unguard_recv, how):
    launcher = ["env", f"LD_AUDIT={unguard_recv}"]
    if how == "environment":
        launcher.append("CORKBOARD_ALLOW_UNGUARDED_READS=1")
    flag = ["--allow-unguarded-reads"] if how == "flag" else []
    process = ServerProcess([*launcher, *serve(tmp_path, "libuv", *flag)], READY)
    try:
        log = "".join(process.lines)
        assert "warning" in log and "serving without it, as allowed" in log, log
        assert "its recv is not the guard's" in log, log
        # Unguarded indeed: the unmasked frame a guarded server closes 1002 is echoed.
        s = open_websocket(Server(process, tls=False), "/echo")
        s.sendall(unmasked(b"unchecked"))
        assert read_one_frame(s)[2] == b"unchecked"
        s.close()
    finally:
        process.stop()


def test_an_unreadable_allow_unguarded_reads_variable_is_refused(tmp_path):
    result = subprocess.run(["env", "CORKBOARD_ALLOW_UNGUARDED_READS=maybe", *serve(tmp_path, "libuv")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "CORKBOARD_ALLOW_UNGUARDED_READS='maybe' is not 1 or 0 (true or false)" in result.stderr, result.stderr
