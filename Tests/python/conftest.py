"""Shared fixtures: locate the built executables and run servers as child processes."""

import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def executable(env_name: str, default_name: str) -> Path:
    """The path of a built executable, from `env_name` or `.build/debug/<default_name>`."""
    path = Path(os.environ.get(env_name, ROOT / ".build" / "debug" / default_name))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first (`make build-debug`) or set {env_name}")
    return path


def stop_process(process: subprocess.Popen, sig=signal.SIGTERM, timeout: float = 10.0) -> int:
    """Sends `sig` to a child still running and waits `timeout` seconds for it to end, then kills it;
    returns its exit status."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


class ServerProcess:
    """A server child process whose log announces the port it bound."""

    def __init__(self, args, ready_pattern: str, stream: str = "stderr", timeout: float = 20.0):
        self.process = subprocess.Popen(
            [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
        )
        self.lines = []
        pipe = self.process.stderr if stream == "stderr" else self.process.stdout
        deadline = time.monotonic() + timeout
        pattern = re.compile(ready_pattern)
        while time.monotonic() < deadline:
            line = pipe.readline()
            if not line:
                if self.process.poll() is not None:
                    break
                continue
            self.lines.append(line)
            match = pattern.search(line)
            if match:
                self.port = int(match.group("port"))
                return
        self.stop()
        pytest.fail(f"server did not announce its port within {timeout} s; output: {''.join(self.lines)}")

    def stop(self, sig=signal.SIGTERM, timeout: float = 10.0) -> int:
        return stop_process(self.process, sig, timeout)


def serve_demo(data: Path, *extra, port: int = 0) -> ServerProcess:
    """`corkboard serve --demo` on `data` (the web client from web/) at `port`, 0 for a free one, with
    `extra` options."""
    return ServerProcess(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", str(port), "--web", ROOT / "web",
         "--data", data, "--demo", *extra],
        r"url=https?://[^ ]+:(?P<port>\d+)/",
    )


class DrainedServe:
    """A `corkboard serve` child on a free port whose stderr a thread reads for its whole life (so a
    busy server never blocks on its log); `lines` keeps every line. Subclasses give the arguments."""

    READY = re.compile(r"url=https?://[^ ]+:(?P<port>\d+)/")
    #: Seconds to wait for the port, for a SIGTERM to end it, and for /healthz.
    ready_timeout = 20.0
    stop_timeout = 10.0
    health_timeout = 5.0
    #: What the failure message calls the process.
    what = "server"

    def __init__(self, args):
        self.port = None
        self.lines = []
        self.process = subprocess.Popen(
            [str(a) for a in args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        )
        ready = threading.Event()

        def drain():
            for line in self.process.stderr:
                self.lines.append(line)
                match = self.READY.search(line)
                if match and self.port is None:
                    self.port = int(match.group("port"))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(self.ready_timeout) or self.port is None:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"the {self.what} did not announce its port; output: {''.join(self.lines)}")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def health(self) -> dict:
        """/healthz as JSON, whether it answers 200 (ok) or 503 (degraded); `httpStatus` added."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz",
                                        timeout=self.health_timeout) as response:
                return {**json.loads(response.read()), "httpStatus": response.status}
        except urllib.error.HTTPError as error:
            return {**json.loads(error.read()), "httpStatus": error.code}

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> int:
        return stop_process(self.process, timeout=self.stop_timeout)


class DataServe(DrainedServe):
    """`corkboard serve` on a data folder, with `extra` arguments (`--demo` opens its demo board to
    anyone): the server most suites start."""

    def __init__(self, data, *extra):
        super().__init__([executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
                          "--data", data, *extra])


def board_keys(output: str) -> tuple:
    """(edit key, view key) from the links a `corkboard boards` command printed."""
    keys = role_keys(output)
    return keys["edit"], keys["view"]


def role_keys(output: str) -> dict:
    """Role → key (admin, edit, comment, view) from the links a `corkboard boards` command printed
    for one board (R17)."""
    keys = {}
    for line in output.splitlines():
        role, _, link = line.strip().partition(": ")
        if role in {"admin", "edit", "comment", "view"} and "key=" in link:
            keys.setdefault(role, link.split("key=")[1].split()[0])
    return keys


def create_board_in(data: Path, board: str, *extra) -> tuple:
    """`corkboard boards create BOARD --data DATA [EXTRA…]` (the server not running, EXTRA such as
    `--template demo`); returns (edit key, view key)."""
    created = subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), "boards", "create", board, "--data", str(data), *map(str, extra)],
        capture_output=True, text=True, timeout=60,
    )
    assert created.returncode == 0, created.stderr
    return board_keys(created.stdout)


def self_signed_certificate(folder: Path) -> tuple:
    """A P-256 self-signed certificate for localhost in `folder` (OpenSSL 3 refuses small keys): (key, cert)."""
    key, cert = folder / "tls-key.pem", folder / "tls-cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "1", "-subj", "/CN=localhost", "-keyout", key, "-out", cert],
        check=True, capture_output=True,
    )
    return key, cert
