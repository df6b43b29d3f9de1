"""Prometheus metrics (issue 19): `corkboard serve --metrics-listen` serves `/metrics` on a listener of
its own, never on the public port; after a bot run the counters match what the bots did.

The text format is parsed here independently of the server's Prometheus library."""

import asyncio
import json
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websockets

from conftest import ROOT, ServerProcess, create_board_in, executable

METRICS_READY = r"metrics=http://127\.0\.0\.1:(?P<port>\d+)/metrics"
SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>[^}]*)\})? (?P<value>\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


class Server:
    """A server with metrics: `port` is the public port, `metrics_port` the metrics listener's."""

    def __init__(self, tmp_path, *extra):
        self.process = ServerProcess(
            [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data",
             tmp_path / "data", "--demo", "--metrics-listen", "0", *extra],
            METRICS_READY)
        self.metrics_port = self.process.port
        served = next(line for line in self.process.lines if "url=http" in line)
        self.port = int(re.search(r"url=http://127\.0\.0\.1:(\d+)/", served).group(1))

    def stop(self):
        return self.process.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def any_store_server(request, tmp_path):
    """A server with metrics on either store: SQLite, or a cluster node on a private PostgreSQL server
    (the store metrics mean the same on both)."""
    if request.param == "sqlite":
        server = Server(tmp_path, "--store", "sqlite")
        yield server
        server.stop()
        return
    from cluster_support import Node, PostgresServer
    database = PostgresServer()
    try:
        node = Node(database.url, tmp_path / "data", "--metrics-listen", "0")
        try:
            deadline = time.monotonic() + 10
            while not (found := [m for line in list(node.lines) if (m := re.search(METRICS_READY, line))]):
                assert time.monotonic() < deadline, "".join(node.lines)
                time.sleep(0.05)
            node.metrics_port = int(found[0].group("port"))
            yield node
        finally:
            node.stop()
    finally:
        database.stop()


def scrape(port):
    """`/metrics` as {(name, frozenset(labels)): value}, with the HELP and TYPE of every family."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        assert answer.status == 200
        assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
        text = answer.read().decode()
    samples, helps, types = {}, {}, {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            helps[name] = help_text
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            types[name] = kind
        elif line:
            match = SAMPLE.match(line)
            assert match, f"not a sample line: {line!r}"
            labels = frozenset(LABEL.findall(match.group("labels") or ""))
            samples[(match.group("name"), labels)] = float(match.group("value"))
    return samples, helps, types


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def family_total(samples, name, **fixed):
    return sum(v for (n, labels), v in samples.items()
               if n == name and all((k, fixed[k]) in labels for k in fixed))


def test_counters_match_what_the_bots_did(any_store_server):
    server = any_store_server
    before, _, _ = scrape(server.metrics_port)
    result = subprocess.run(
        [str(executable("CORKBOARD_BOT_BIN", "corkboard-bot")), "--url", f"ws://127.0.0.1:{server.port}/ws",
         "--bots", "4", "--duration", "4", "--seed", "11", "--conflicts", "--json"],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["passed"] and summary["committed"] > 0
    # Every bot and checker has gone.
    deadline = time.monotonic() + 10
    while True:
        after, helps, types = scrape(server.metrics_port)
        if value(after, "corkboard_connections") == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert value(after, "corkboard_connections") == 0
    assert value(after, "corkboard_boards_loaded") == 1
    # The rooms' tick in effect, in seconds: between the configured 33 ms and the busy maximum.
    assert 0.033 <= value(after, "corkboard_tick_seconds") <= 0.5

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    # Operations: what the bots saw committed and rejected, code by code (SQLite: committed = durable).
    assert delta("corkboard_operations_total", result="committed", code="ok") == summary["committed"]
    rejected = summary["tally"]["rejected"]
    for (name, labels), v in after.items():
        if name == "corkboard_operations_total" and ("result", "rejected") in labels:
            code = dict(labels)["code"]
            assert v - before.get((name, labels), 0) == rejected.get(code, 0), code
    # Every committed operation went through a store transaction, grouped (SQLite or PostgreSQL alike).
    assert delta("corkboard_store_batch_operations_sum") == summary["committed"]
    assert 1 <= delta("corkboard_store_commit_seconds_count") <= summary["committed"]
    assert delta("corkboard_store_commit_seconds_count") == delta("corkboard_store_batch_operations_count")
    assert delta("corkboard_store_commit_seconds_count") == delta("corkboard_store_batch_appends_count")
    assert delta("corkboard_store_commit_seconds_count") <= delta("corkboard_store_batch_appends_sum") <= summary[
        "committed"]
    # Drops with peers were timed until every peer had the op; bots drop and also submit.
    drops = delta("corkboard_drop_broadcast_seconds_count")
    assert 1 <= drops <= summary["committed"]
    assert value(after, 'corkboard_drop_broadcast_seconds_bucket', le="+Inf") == value(
        after, "corkboard_drop_broadcast_seconds_count")
    assert delta("corkboard_frames_sent_total") >= summary["messagesReceived"]
    # The transport timed how long the bots' messages waited in their sockets before being read
    # (at least one read per committed operation's message; a read may carry several messages).
    assert delta("corkboard_read_wait_seconds_count") >= 1
    assert value(after, 'corkboard_read_wait_seconds_bucket', le="+Inf") == value(
        after, "corkboard_read_wait_seconds_count")
    assert 0 <= delta("corkboard_read_wait_seconds_sum") < 60 * delta("corkboard_read_wait_seconds_count")
    # Nothing was rate limited, shed or refused in a normal run.
    assert family_total(after, "corkboard_rate_limited_total") == 0
    assert family_total(after, "corkboard_connections_refused_total") == 0
    # Every family says what it is.
    for family in ("corkboard_connections", "corkboard_boards_loaded", "corkboard_tick_seconds",
                   "corkboard_operations_total",
                   "corkboard_drop_broadcast_seconds", "corkboard_read_wait_seconds", "corkboard_store_commit_seconds",
                   "corkboard_store_batch_operations", "corkboard_frames_sent_total",
                   "corkboard_ephemeral_dropped_total", "corkboard_slow_consumer_closes_total",
                   "corkboard_rate_limited_total", "corkboard_connections_refused_total"):
        assert helps.get(family), f"no HELP for {family}"
        assert family in types, f"no TYPE for {family}"
    assert types["corkboard_drop_broadcast_seconds"] == "histogram"
    assert types["corkboard_read_wait_seconds"] == "histogram"
    assert types["corkboard_connections"] == "gauge"
    assert types["corkboard_tick_seconds"] == "gauge"


def test_metrics_are_not_on_the_public_port_and_the_listener_serves_no_websockets(tmp_path):
    server = Server(tmp_path, "--store", "memory")
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=10)
        assert refused.value.code == 404
        assert b"corkboard_" not in refused.value.read()
        # The metrics listener answers HTTP only: an upgrade gets 404.
        with socket.create_connection(("127.0.0.1", server.metrics_port), timeout=10) as s:
            s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                      b"Sec-WebSocket-Protocol: corkboard.v1\r\n\r\n")
            head = s.recv(4096).decode(errors="replace")
        assert head.startswith("HTTP/1.1 404"), head
        with pytest.raises(urllib.error.HTTPError) as other:
            urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/", timeout=10)
        assert other.value.code == 404
    finally:
        server.stop()


@pytest.mark.parametrize("listen, says", [
    ("nine", "port must be a number"),
    ("127.0.0.1:70000", "port must be a number"),
    (":9100", "names no host"),
    ("[::1]9100", "[ADDRESS]:PORT"),
])
def test_a_bad_metrics_listen_is_refused_with_a_sentence(tmp_path, listen, says):
    result = subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), "serve", "--port", "0", "--data", tmp_path / "data",
         "--web", ROOT / "web", "--metrics-listen", listen],
        capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert says in result.stderr


def test_metrics_cannot_share_the_public_port(tmp_path):
    result = subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), "serve", "--port", "18080", "--data", tmp_path / "data",
         "--web", ROOT / "web", "--metrics-listen", "18080"],
        capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "must not use the public port" in result.stderr


def metrics_text(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return answer.read().decode()


def test_refusals_are_counted_and_secrets_appear_nowhere_in_metrics_errors_or_logs(tmp_path):
    """Issue 19: share keys and resume tokens never appear in /metrics, in error messages (WebSocket
    errors and close reasons, HTTP answers) or in the log, whatever a client sent, nor do invite
    tokens and device keys (issue 45: a claim, a wrong invite, a used one); and the refusals a
    client earns (a connection past --max-connections-per-ip, a rate-limited flood and its 1008)
    are counted by reason and kind in /metrics."""
    data = tmp_path / "data"
    edit, view = create_board_in(data, "trip")
    invited = subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), "boards", "invite", "trip", "--name", "Bea",
                              "--role", "editor", "--one-use", "--data", str(data)],
                             capture_output=True, text=True, timeout=60)
    assert invited.returncode == 0, invited.stderr
    invite = invited.stdout.split("invite=")[1].split()[0]
    devices = ["d-" + "1a" * 16, "d-" + "2b" * 16]
    wrong_invite = "t-" + "fedcba9876543210" * 2
    wrong = "e-" + "0123456789abcdef" * 2
    wrong_token = "r-" + "fedcba9876543210" * 2
    server = Server(tmp_path, "--store", "sqlite", "--max-connections-per-ip", "2", "--rate-ephemeral", "5",
                    "--burst-ephemeral", "5", "--log-level", "debug")
    url = f"ws://127.0.0.1:{server.port}/ws"
    secrets = [edit, view, wrong, wrong_token, invite, wrong_invite, *devices]
    answers = []  # every error, close reason and HTTP error body a client got

    async def hello(ws, key, **extra):
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "trip", "key": key, "name": "Ada",
                                  "clientId": "c-secrets", **extra}))
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "error":
            answers.append(json.dumps(message))
        return message

    async def closed(ws):
        with pytest.raises(websockets.ConnectionClosed) as close:
            async with asyncio.timeout(10):
                while True:
                    message = json.loads(await ws.recv())
                    if message["type"] == "error":
                        answers.append(json.dumps(message))
        answers.append(close.value.rcvd.reason)
        return close.value.rcvd.code

    async def scenario():
        # Two connections from 127.0.0.1 are allowed; the third upgrade is answered 503.
        first = await websockets.connect(url, subprotocols=["corkboard.v1"])
        second = await websockets.connect(url, subprotocols=["corkboard.v1"])
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(url, subprotocols=["corkboard.v1"])
        assert refused.value.response.status_code == 503
        answers.append(refused.value.response.body.decode(errors="replace"))
        await first.close()
        await second.close()
        # The edit key joins and gets a resume token; a resume with it works.
        async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
            welcome = await hello(ws, edit)
            assert welcome["type"] == "welcome"
            secrets.append(welcome["resumeToken"])
        async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
            assert (await hello(ws, edit, resumeToken=secrets[-1]))["type"] == "welcome"
        # A wrong key is refused (4003) without repeating it, and so is a made-up resume token.
        async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
            assert (await hello(ws, wrong))["code"] == "bad-key"
            assert await closed(ws) == 4003
        async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
            refused = await hello(ws, edit, resumeToken=wrong_token)
            assert refused["type"] == "error", refused
        # Issue 45: a claim, a second device on the one-use invite (used), a wrong invite (unknown).
        for token, device, outcome in [(invite, devices[0], "welcome"), (invite, devices[1], "invite-used"),
                                       (wrong_invite, devices[1], "invite-unknown")]:
            async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "trip", "name": "Bea",
                                          "invite": token, "device": device}))
                answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert answer.get("code", answer["type"]) == outcome, answer
                if answer["type"] == "error":
                    answers.append(json.dumps(answer))
                    assert await closed(ws) == 4003
        # A viewer may not submit (forbidden) and is rate limited when it floods cursors, then 1008.
        async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
            joined = await hello(ws, view, clientId="c-viewer")
            assert joined["type"] == "welcome", joined
            await ws.send(json.dumps({"type": "submit", "ref": "s", "opId": "o", "base": 0,
                                      "op": {"kind": "renameCollection", "collection": "nowhere", "title": view}}))
            for n in range(60):
                await ws.send(json.dumps({"type": "cursor", "x": n, "y": 0}))
            assert await closed(ws) == 1008

    asyncio.run(scenario())
    # HTTP: an upload with a wrong key and with the view key, the key in the query.
    for key in (wrong, view):
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/boards/trip/files?key={key}",
                                         data=b"not an image", headers={"Content-Type": "image/png"}, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        answers.append(refused.value.read().decode(errors="replace"))
    assert any("rate" in a for a in answers) and any("key" in a for a in answers), answers
    samples, _, _ = scrape(server.metrics_port)
    assert value(samples, "corkboard_connections_refused_total", reason="max-connections-per-ip") == 1
    assert value(samples, "corkboard_rate_limited_total", kind="ephemeral") >= 1
    assert value(samples, "corkboard_rate_limit_closes_total", kind="ephemeral") == 1
    exposition = metrics_text(server.metrics_port)
    assert server.stop() == 0
    log = "".join(server.process.lines) + server.process.process.stderr.read()
    for where, text in [("/metrics", exposition), ("an answer to a client", "\n".join(answers)), ("the log", log)]:
        for secret in secrets:
            assert secret not in text, f"a secret ({secret[:4]}…) appears in {where}"
