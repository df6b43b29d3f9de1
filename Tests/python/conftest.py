"""Shared fixtures: locate the built executables and run servers as child processes."""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def executable(env_name: str, default_name: str) -> Path:
    """The path of a built executable, from `env_name` or `.build/debug/<default_name>`."""
    path = Path(os.environ.get(env_name, ROOT / ".build" / "debug" / default_name))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first (`make build-debug`) or set {env_name}")
    return path


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
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode
