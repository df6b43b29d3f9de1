"""R18 end to end: the churn of issue 39 (legal ~1 MiB items inserted and deleted in a loop) against a
server whose byte budgets are small, set by flags. Its memory and data folder stay within a bound
scaled to those budgets however much is written; after a restart it listens within seconds, before any
board loads (rooms start at their first join), a resend of the last committed operation gets its first
outcome (nothing applies twice) and the board holds everything committed. The driver is scripts/churn_memory.py (the benchmark of docs/BENCHMARKS.md).
"""

import asyncio
import json
import sys
import time
from pathlib import Path

from conftest import executable

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import churn_memory as churn  # noqa: E402

MIB = 1 << 20
BUDGETS = {
    "--resume-log-bytes": 1 * MIB, "--resend-memory-bytes": MIB // 4, "--undo-board-bytes": 1 * MIB,
    "--undo-client-bytes": 1 * MIB, "--snapshot-bytes": 2 * MIB, "--journal-fold-bytes": 2 * MIB,
    "--trash-bytes": 1 * MIB,
}
SERVE = ["--durability", "normal", "--rate-ops", "0", "--store", "sqlite",
         *[str(part) for flag, value in BUDGETS.items() for part in (flag, value)]]
#: The pairs (each writes two ~1 MiB operations), the seconds they may take, and the fewest that
#: show the bound: 16 pairs write 32 MiB, which a server keeping every operation would hold on disk
#: beside its 20 MiB of WAL and pages (past the data bound below), thirty times the budgets.
PAIRS, SECONDS, MIN_PAIRS = 30, 50.0, 16
ITEM = 15 * 65_536
#: RSS growth: the budgets, the transport's buffers for 1 MiB messages to every peer, SQLite's page
#: caches (16 MiB for the writer) and the allocator's arenas, plus the Trash (R15) at its
#: `--trash-bytes` budget (and its newest entry, ~1 MiB here) in the room's board, its durable copy
#: and each snapshot encoded (one every 2 MiB here): 101-103 MiB measured in a debug build on a
#: loaded machine for 56 MiB churned (137 MiB with the Trash's default 8 MiB).
RSS_BOUND = 128 * MIB
#: The stored log behind a snapshot (resume log), operations since it (snapshot bytes), the journal
#: until it folds, the WAL between checkpoints (several snapshots, each with the Trash), the demo
#: board's snapshot: 50-51 MiB measured with a 1 MiB Trash (78 MiB with the default 8 MiB).
DATA_BOUND = 72 * MIB


def find(value, item_id):
    """The item with `item_id` anywhere in a decoded message."""
    if isinstance(value, dict):
        if value.get("id") == item_id and "representations" in value:
            return value
        values = value.values()
    elif isinstance(value, list):
        values = value
    else:
        return None
    for child in values:
        found = find(child, item_id)
        if found is not None:
            return found
    return None


async def insert_one(port):
    """One more fat insert, left on the board: what must survive the restart."""
    ws, welcome = await churn.join(port, "keeper")
    op = {"kind": "insert", "items": [churn.fat_item(15, 65_536, 7)], "destination": churn.INBOX}
    await ws.send(json.dumps({"type": "submit", "ref": "k", "opId": "keep-1", "base": 0, "op": op}))
    ack = await churn.next_of(ws, "ack")
    await ws.close()
    assert ack["outcome"]["kind"] == "committed", ack
    return welcome, op, ack["outcome"]


async def resume_and_resend(port, welcome, op):
    """Resumes the keeper after the restart and resends its insert: the first outcome, nothing twice."""
    member = welcome["member"]
    ws, again = await churn.join(port, "keeper", client_id=member["clientId"], token=welcome["resumeToken"])
    await ws.send(json.dumps({"type": "submit", "ref": "k2", "opId": "keep-1", "base": 0, "op": op}))
    # A board with a full Trash may come in parts (R14): they arrive before the answer.
    parts = []
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if message["type"] == "snapshotPart":
            parts.append(message)
        elif message["type"] == "ack":
            break
    await ws.close()
    return {**again, "parts": parts}, message


def test_churn_stays_within_the_byte_budgets_and_restarts_fast(tmp_path):
    binary = executable("CORKBOARD_BIN", "corkboard")
    data = tmp_path / "data"
    server = churn.Server(binary, data, SERVE, timeout=30)
    try:
        peak = {"rss": churn.rss_bytes(server.pid), "data": 0}
        start_rss = peak["rss"]

        def sample(_stats):
            peak["rss"] = max(peak["rss"], churn.rss_bytes(server.pid))
            peak["data"] = max(peak["data"], churn.folder_bytes(data))

        stats = asyncio.run(churn.run_churn(server.port, 4, PAIRS, SECONDS, 0, 15, 65_536, sample, every=1.0))
        sample(stats)
        assert not stats.rejected, stats.rejected
        assert stats.pairs >= MIN_PAIRS, f"only {stats.pairs} pairs in {SECONDS} s: too few to show a bound"
        written = stats.pairs * 2 * ITEM
        assert peak["rss"] - start_rss < RSS_BOUND, \
            f"RSS grew {(peak['rss'] - start_rss) / MIB:.0f} MiB (bound {RSS_BOUND / MIB:.0f}) for {written / MIB:.0f} MiB churned"
        assert peak["data"] < DATA_BOUND, \
            f"the data folder reached {peak['data'] / MIB:.0f} MiB (bound {DATA_BOUND / MIB:.0f}) for {written / MIB:.0f} MiB churned"
        welcome, op, first = asyncio.run(insert_one(server.port))
    finally:
        server.stop()

    restarted = churn.Server(binary, data, SERVE, timeout=30)
    try:
        assert restarted.listened_after < 5.0, f"listening took {restarted.listened_after:.1f} s after the restart"
        # R18: start-up reads the catalog only; the churned board loads at its first join.
        loaded_early = [line for line in restarted.log_before_listen if "board loaded" in line]
        assert not loaded_early, f"a board loaded before the server listened: {loaded_early}"
        started = time.monotonic()
        again, ack = asyncio.run(resume_and_resend(restarted.port, welcome, op))
        assert time.monotonic() - started < 20.0
        # Nothing committed is lost: the board is at the last seq and holds the kept item, content whole.
        assert again["head"] == first["seq"], (again["head"], first["seq"])
        item_id = first["effect"]["changes"][0]["item"]
        kept = find(again, item_id)
        assert kept is not None, "the kept item is not on the board after the restart"
        assert [len(r["value"]) for r in kept["representations"]] == [65_536] * 15
        assert any("board loaded" in line for line in restarted.lines), "the join did not load the board"
        # The resend gets its first outcome (same seq), and nothing applies twice.
        assert ack["outcome"]["kind"] == "committed" and ack["outcome"]["seq"] == first["seq"], ack
    finally:
        restarted.stop()
