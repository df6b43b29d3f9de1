"""`corkboard-load relay` against the relays docs/BENCHMARKS.md compares Corkboard with (Debian's
lws mirror and Yjs' y-websocket server): a short run at small scale delivers every hover with sane
latencies. Skipped when the relays are not installed (`apt-get install -y libwebsockets-test-server
node-y-websocket node-ws`); the option checks run everywhere."""

import json
import subprocess

import pytest

from anchor_servers import APT_COMMAND, TARGETS, free_port, missing_anchors, start_anchor
from conftest import executable, stop_process

RUN_TIMEOUT = 120
MISSING = missing_anchors()


def relay(*args):
    command = [str(executable("CORKBOARD_LOAD_BIN", "corkboard-load")), "relay", "--json", "--quiet",
               *[str(a) for a in args]]
    return subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT)


@pytest.mark.skipif(bool(MISSING), reason=f"relays not installed ({'; '.join(MISSING)}): {APT_COMMAND}")
@pytest.mark.parametrize("target", TARGETS)
def test_relay_delivers_every_hover_through_the_anchor(target, tmp_path):
    with open(tmp_path / "relay.log", "w") as log:
        server, url = start_anchor(target, log)
        try:
            run = relay("--target", target, "--url", url, "--receivers", 5, "--senders", 2, "--hz", 30,
                        "--duration", 2, "--warmup", 0.5, "--pid", server.pid)
        finally:
            stop_process(server)
    assert run.returncode == 0, f"relay failed ({run.returncode}): {run.stdout[-3000:]} {run.stderr[-2000:]}"
    report = json.loads(run.stdout)
    assert report["passed"], report["failures"]
    assert report["target"] == target and report["scenario"] == "relay"
    connections = report["connections"]
    assert connections["joined"] == connections["requested"] == 7, connections
    assert connections["failed"] == 0 and connections["disconnects"] == 0
    assert report["errors"] == 0, report["errorSamples"]
    # Two senders at 30 Hz for about 2 s; every hover reaches all 7 clients (its sender included).
    assert 80 <= report["hoversSent"] <= 160, report["hoversSent"]
    assert report["messagesDelivered"] == report["hoversSeen"] > 0
    assert 0.9 <= report["hoverDeliveryRatio"] <= 1.1, report["hoverDeliveryRatio"]
    assert report["deliveredPerSecond"] > 0
    # Only copies from other clients are timed: 6 of every 7.
    hover = report["latencyMs"]["proposalPeers"]
    assert abs(hover["count"] - report["hoversSeen"] * 6 / 7) <= 0.1 * report["hoversSeen"], hover
    assert 0 < hover["p50"] <= hover["p90"] <= hover["p99"] <= hover["max"] < 10_000, hover
    server_usage = report["server"]
    assert server_usage["pid"] == server.pid
    assert server_usage["window"]["cpuSeconds"] >= 0
    assert server_usage["cpuMicrosPerDelivered"] is not None and server_usage["cpuMicrosPerDelivered"] >= 0


def test_relay_says_when_no_client_can_connect():
    run = relay("--target", "lws-mirror", "--url", f"ws://127.0.0.1:{free_port()}/", "--receivers", 2,
                "--senders", 1, "--duration", 1, "--warmup", 0)
    assert run.returncode != 0
    assert "could not connect" in run.stderr, run.stderr


@pytest.mark.parametrize("args, message", [
    (["--target", "y-websocket", "--url", "wss://127.0.0.1:1/"], "plain ws://"),
    (["--target", "lws-mirror", "--bytes", "10"], "--bytes must be in 64…4096"),
    (["--target", "lws-mirror", "--senders", "0"], "1 ≤ --senders"),
    (["--target", "lws-mirror", "--hz", "0"], "--hz must be in (0, 1000]"),
    (["--target", "nats"], "nats"),
])
def test_relay_refuses_bad_options(args, message):
    run = relay(*args)
    assert run.returncode != 0
    assert message in run.stderr, run.stderr
    assert run.stdout == ""
