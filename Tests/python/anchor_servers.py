"""The relays Corkboard is compared with (docs/BENCHMARKS.md, "Side-by-side anchors"), started on a
free loopback port: Debian's `libwebsockets-test-server` (its `lws-mirror-protocol`) and the Node
server of Yjs' y-websocket. Used by scripts/bench_anchors.py and Tests/python/test_anchors.py."""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

# The Debian packages that bring both relays.
APT_PACKAGES = ["libwebsockets-test-server", "node-y-websocket", "node-ws"]
APT_COMMAND = "apt-get install -y " + " ".join(APT_PACKAGES)

LWS_SERVER = "libwebsockets-test-server"
YJS_SERVER = Path("/usr/share/nodejs/y-websocket/bin/server.js")
# Debian's Node modules; the Node on PATH does not always look there by itself (server.js needs `ws`).
NODE_MODULES = Path("/usr/share/nodejs")

TARGETS = ("lws-mirror", "y-websocket")


def missing_anchors():
    """What is missing to run the relays, as sentences (empty when both can run)."""
    missing = []
    if shutil.which(LWS_SERVER) is None:
        missing.append(f"{LWS_SERVER} (package libwebsockets-test-server)")
    if shutil.which("node") is None:
        missing.append("node (package nodejs)")
    if not YJS_SERVER.exists():
        missing.append(f"{YJS_SERVER} (package node-y-websocket)")
    if not (NODE_MODULES / "ws").exists():
        missing.append(f"{NODE_MODULES / 'ws'} (package node-ws)")
    return missing


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(process, port, timeout=30.0):
    """Waits until something accepts TCP connections on 127.0.0.1:`port`; raises if `process` ends
    first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the relay exited with {process.returncode} before listening on port {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} within {timeout:.0f} s")


def start_anchor(target, log, cpu=None):
    """Starts relay `target` ("lws-mirror" or "y-websocket") on a free port, pinned to `cpu` when
    given (`taskset -c`), its output into the open file `log`. Returns (process, url for
    `corkboard-load relay --url`). Stop it with conftest's stop_process.

    A port found free can be taken before the relay binds it (the relay then exits at once): up to
    three ports are tried."""
    for _ in range(2):
        try:
            return start_anchor_on(target, log, free_port(), cpu)
        except RuntimeError:
            pass
    return start_anchor_on(target, log, free_port(), cpu)


def start_anchor_on(target, log, port, cpu=None):
    """`start_anchor` on one given port; raises RuntimeError when the relay does not listen."""
    pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
    env = dict(os.environ)
    if target == "lws-mirror":
        command = [*pin, LWS_SERVER, f"--port={port}"]
        url = f"ws://127.0.0.1:{port}/"
    elif target == "y-websocket":
        command = [*pin, "node", str(YJS_SERVER)]
        env.update(HOST="127.0.0.1", PORT=str(port),
                   NODE_PATH=os.pathsep.join(p for p in (str(NODE_MODULES), env.get("NODE_PATH")) if p))
        url = f"ws://127.0.0.1:{port}/corkboard-relay"
    else:
        raise ValueError(f"unknown relay {target!r}: one of {', '.join(TARGETS)}")
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_listening(process, port)
    except RuntimeError:
        log.write(f"the relay did not listen on port {port}\n")
        process.kill()
        process.wait()
        raise
    return process, url
