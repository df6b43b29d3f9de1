"""`corkboard-bot` against a real `corkboard serve`: bots act on the demo board, then every replica must
match a fresh snapshot (semantics.md "Ordered operations", R1, R5, R8, R9, R10).

That the comparison itself can fail is shown by the Swift tests in Tests/CorkboardBotTests (replicas that
differ by one moved item, a seq, a pending operation): a real server gives no honest way to make a bot's
replica diverge.
"""

import json
import signal
import socket
import subprocess
import time

import pytest

from conftest import ServerProcess, executable

READY = r"url=https?://[^ ]+:(?P<port>\d+)/"


@pytest.fixture
def server(tmp_path):
    proc = ServerProcess(
        [
            executable("CORKBOARD_BIN", "corkboard"),
            "serve",
            "--port",
            "0",
            "--data",
            tmp_path / "data",
            "--demo",
            "--store",
            "memory",
        ],
        READY,
    )
    yield proc
    proc.stop()


def bot_command(*args):
    return [str(executable("CORKBOARD_BOT_BIN", "corkboard-bot")), *map(str, args)]


def run_bot(*args, timeout=60):
    return subprocess.run(bot_command(*args), capture_output=True, text=True, timeout=timeout)


def ws_url(server):
    return f"ws://127.0.0.1:{server.port}/ws"


def test_bots_with_conflicts_converge_on_the_server_snapshot(server):
    result = run_bot("--url", ws_url(server), "--bots", 4, "--duration", 3, "--seed", 7, "--conflicts", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "seed 7" in result.stderr
    summary = json.loads(result.stdout)
    assert summary["passed"] is True
    assert summary["seed"] == 7 and summary["bots"] == 4
    assert summary["committed"] > 0
    assert summary["divergences"] == 0 and summary["invariantViolations"] == 0
    assert summary["check"]["compared"] == 4
    # On a fresh board every seq is one of the bots' acknowledged commits: the two counts agree.
    assert summary["check"]["seq"] == summary["committed"]
    assert summary["errors"] == 0
    actions = summary["tally"]["actions"]
    assert actions.get("conflict", 0) > 0
    assert sum(actions.values()) == summary["actions"] > 0
    # Every drop was preceded by dropUpdates at 30 Hz, each answered by a proposal.
    assert summary["proposals"] >= summary["tally"]["actions"].get("reorder", 0)
    assert summary["tally"]["proposalMismatches"] == []
    assert 2.5 <= summary["elapsedSeconds"] < 10


def test_text_summary_says_pass(server):
    result = run_bot("--url", ws_url(server), "--bots", 2, "--duration", 1, "--seed", 3)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "replicas compared with a fresh snapshot at seq" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("PASS")


def test_bad_input_gets_errors_and_changes_nothing(server):
    result = run_bot(
        "--url", ws_url(server), "--bots", 2, "--duration", 3, "--rate", 5, "--seed", 11, "--bad-input", "--json"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    bad = summary["tally"]["badInput"]
    assert bad["sent"] > 0
    assert bad["answered"] == bad["sent"]
    assert bad["wrongAnswers"] == [] and bad["unanswered"] == [] and bad["changes"] == []
    assert summary["errors"] >= bad["sent"]
    assert summary["divergences"] == 0 and summary["passed"] is True


def test_unknown_board_fails_with_a_clear_message(server):
    result = run_bot("--url", ws_url(server), "--board", "no-such-board", "--duration", 1, timeout=30)
    assert result.returncode != 0
    assert "Cannot join board no-such-board" in result.stderr
    assert "bad-key" in result.stderr  # answered like a wrong key: ids are not revealed


def test_nothing_listening_fails_with_a_clear_message():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_bot("--url", f"ws://127.0.0.1:{port}/ws", "--duration", 1, "--timeout", 5, timeout=30)
    assert result.returncode != 0
    assert f"Cannot join board demo at ws://127.0.0.1:{port}/ws" in result.stderr


def test_invalid_options_are_refused_with_usage():
    result = run_bot("--duration", 0, timeout=30)
    assert result.returncode == 64
    assert "--duration must be more than 0" in result.stderr


def test_sigint_stops_the_bots_and_still_checks(server):
    process = subprocess.Popen(
        bot_command("--url", ws_url(server), "--bots", 2, "--duration", 60, "--rate", 5, "--progress", "--json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The first progress line (after one second) shows the bots are acting.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line or line.startswith("["):
                break
        assert line.startswith("["), f"no progress line; stderr: {line!r}"
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stdout
    assert time.monotonic() - started < 15
    summary = json.loads(stdout)
    assert summary["interruptedBy"] == "SIGINT"
    assert summary["elapsedSeconds"] < 30
    assert summary["check"]["compared"] == 2 and summary["divergences"] == 0
