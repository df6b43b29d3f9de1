#!/usr/bin/env python3
"""R18 benchmark: the churn of issue 39 against `corkboard serve --demo`, reporting the server's memory,
its data folder and how long it takes to listen again after a restart.

Each of --connections WebSockets alternates the insert of one legal item (--parts representations of
--value-bytes, 15 × 65,536 by default: 0.94 MiB) into the demo board's inbox and its delete, at --rate
operations a second, until --pairs insert/delete pairs are done in all (or --max-seconds pass). Every
--every seconds it prints the server's RSS (/proc/PID/status) and the data folder's size (`du -sb`).
Then it stops the server (SIGTERM), starts it again on the same folder, and reports the seconds until it
listens (its `url=` log line, then /healthz answering), its RSS then, and a fresh join's welcome time.

    python3 scripts/churn_memory.py --pairs 20000                      # the issue's figure (~7 min)
    python3 scripts/churn_memory.py --pairs 2000 -- --resume-log-bytes 4194304

Arguments after `--` go to `corkboard serve`. Uses CORKBOARD_BIN, else .build/release/corkboard, else
.build/debug/corkboard. Prints one JSON object last (the summary). Everything is bounded: --pairs and
--max-seconds.
"""
import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from conftest import stop_process  # noqa: E402  (the test suite's way to end a child)

READY = re.compile(r"url=https?://[^ ]+:(?P<port>\d+)/")
INBOX = {"collection": "demo-inbox", "section": "demo-inbox", "index": 0, "intent": "insertAtDestinationIndexPath"}


def default_binary():
    if os.environ.get("CORKBOARD_BIN"):
        return Path(os.environ["CORKBOARD_BIN"])
    for flavour in ("release", "debug"):
        path = ROOT / ".build" / flavour / "corkboard"
        if path.exists():
            return path
    sys.exit("no corkboard binary: build first or set CORKBOARD_BIN")


def rss_bytes(pid):
    """The resident set of a process, from /proc/PID/status (VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def folder_bytes(folder):
    """`du -sb` of a folder: what it holds on disk, in bytes."""
    result = subprocess.run(["du", "-sb", str(folder)], capture_output=True, text=True, check=True)
    return int(result.stdout.split()[0])


class Server:
    """`corkboard serve --demo` on a free loopback port; a thread drains its log."""

    def __init__(self, binary, data, extra, timeout=120.0):
        self.started = time.monotonic()
        self.lines = []
        self.port = None
        self.listened_after = None
        self.log_before_listen = []
        self.process = subprocess.Popen(
            [str(binary), "serve", "--port", "0", "--data", str(data), "--demo", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        ready = threading.Event()

        def drain():
            for line in self.process.stderr:
                self.lines.append(line)
                match = READY.search(line)
                if match and self.port is None:
                    self.log_before_listen = list(self.lines)
                    self.port = int(match.group("port"))
                    self.listened_after = time.monotonic() - self.started
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(timeout) or self.port is None:
            self.process.kill()
            raise RuntimeError(f"the server did not listen within {timeout} s: {''.join(self.lines[-20:])}")

    @property
    def pid(self):
        return self.process.pid

    def healthy_after(self, timeout=30.0):
        """Seconds from start until /healthz answers."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as response:
                    response.read()
                    return time.monotonic() - self.started
            except OSError:
                time.sleep(0.01)
        raise RuntimeError(f"/healthz did not answer within {timeout} s")

    def stop(self, timeout=30.0):
        return stop_process(self.process, timeout=timeout)


def fat_item(parts, value_bytes, n):
    letter = chr(65 + n % 26)
    return {"representations": [{"type": "public.plain-text", "value": letter * value_bytes} for i in range(parts)]}


async def connect(port):
    return await websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"],
                                    open_timeout=30, close_timeout=2, max_size=None)


async def next_of(ws, kind, timeout=60):
    """The next message of `kind`, skipping others (ops of the other churners, members, undoable)."""
    deadline = time.monotonic() + timeout
    wanted = f'{{"type":"{kind}"'
    while True:
        raw = await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
        # The other churners' 1 MiB ops are skipped unread: decoding each would bound the churn's rate.
        # Only a message that opens with its type is skipped by it (the server writes every `op` so);
        # a message encoded with its keys in another order may hold a nested "type" (a
        # representation's) near its start, so it is decoded.
        if raw.startswith('{"type":"') and not raw.startswith(wanted):
            continue
        message = json.loads(raw)
        if message["type"] == kind:
            return message


async def join(port, name, client_id=None, token=None, last_seq=None):
    ws = await connect(port)
    hello = {"type": "hello", "ref": "h", "protocol": 1, "board": "demo", "name": name}
    if client_id:
        hello.update({"clientId": client_id, "resumeToken": token})
    if last_seq is not None:
        hello["lastSeq"] = last_seq
    await ws.send(json.dumps(hello))
    welcome = await next_of(ws, "welcome")
    return ws, welcome


class Churn:
    """Counts what the churners did."""

    def __init__(self):
        self.pairs = 0
        self.rejected = {}
        self.last_seq = 0


async def churner(port, index, stats, budget, deadline, rate, parts, value_bytes, prefix):
    """Insert and delete one fat item at a time until the shared budget of pairs runs out."""
    ws, welcome = await join(port, f"churn-{index}")
    client = welcome["member"]["clientId"]
    interval = 1.0 / rate if rate > 0 else 0.0
    next_at = time.monotonic()
    n = 0
    try:
        while time.monotonic() < deadline:
            if budget[0] <= 0:
                break
            budget[0] -= 1
            seqs = []
            for kind in ("insert", "delete"):
                now = time.monotonic()
                if next_at > now:
                    await asyncio.sleep(next_at - now)
                next_at = max(next_at + interval, time.monotonic() - 1.0)
                op_id = f"{prefix}{index}-{kind[0]}{n}"
                if kind == "insert":
                    op = {"kind": "insert", "items": [fat_item(parts, value_bytes, n)], "destination": INBOX}
                else:
                    op = {"kind": "delete", "items": [item]}
                await ws.send(json.dumps({"type": "submit", "ref": op_id, "opId": op_id, "base": 0, "op": op}))
                ack = await next_of(ws, "ack")
                outcome = ack["outcome"]
                if outcome["kind"] != "committed":
                    stats.rejected[outcome["code"]] = stats.rejected.get(outcome["code"], 0) + 1
                    break
                seqs.append(outcome["seq"])
                if kind == "insert":
                    item = outcome["effect"]["changes"][0]["item"]
            else:
                stats.pairs += 1
                stats.last_seq = max(stats.last_seq, *seqs)
            n += 1
    finally:
        await ws.close()
    return client


async def run_churn(port, connections, pairs, max_seconds, rate, parts, value_bytes, report=None, every=10.0,
                    prefix="c"):
    """Runs the churners; calls `report(stats)` every `every` seconds. Returns the stats."""
    stats = Churn()
    budget = [pairs]
    deadline = time.monotonic() + max_seconds
    tasks = [asyncio.create_task(churner(port, i, stats, budget, deadline, rate, parts, value_bytes, prefix))
             for i in range(connections)]
    while not all(task.done() for task in tasks):
        await asyncio.wait(tasks, timeout=every)
        if report:
            report(stats)
    for task in tasks:
        task.result()
    return stats


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=None, help="data folder (default: a fresh temporary one)")
    parser.add_argument("--connections", type=int, default=6)
    parser.add_argument("--pairs", type=int, default=20_000, help="insert/delete pairs in all")
    parser.add_argument("--rate", type=float, default=16.0, help="operations a second per connection")
    parser.add_argument("--parts", type=int, default=15)
    parser.add_argument("--value-bytes", type=int, default=65_536)
    parser.add_argument("--max-seconds", type=float, default=1_800.0)
    parser.add_argument("--every", type=float, default=15.0, help="seconds between progress lines")
    parser.add_argument("serve_args", nargs="*", help="after --: arguments for corkboard serve")
    args = parser.parse_args()
    binary = args.bin or default_binary()
    data = args.data or Path(tempfile.mkdtemp(prefix="corkboard-churn-")) / "data"

    server = Server(binary, data, args.serve_args)
    start_rss = rss_bytes(server.pid)
    started = time.monotonic()
    peak = {"rss": start_rss, "data": 0}

    def report(stats):
        rss, disk = rss_bytes(server.pid), folder_bytes(data)
        peak["rss"], peak["data"] = max(peak["rss"], rss), max(peak["data"], disk)
        print(f"{time.monotonic() - started:7.1f} s  pairs {stats.pairs:6d}  rss {rss / 2**20:7.1f} MiB  "
              f"data {disk / 2**20:7.1f} MiB  rejected {stats.rejected}", flush=True)

    stats = asyncio.run(run_churn(server.port, args.connections, args.pairs, args.max_seconds, args.rate,
                                  args.parts, args.value_bytes, report, args.every))
    elapsed = time.monotonic() - started
    end_rss, end_data = rss_bytes(server.pid), folder_bytes(data)
    stop_code = server.stop()
    stopped_data = folder_bytes(data)

    restarted = Server(binary, data, args.serve_args)
    listen_s = restarted.listened_after
    healthz_s = restarted.healthy_after()
    join_started = time.monotonic()

    async def fresh_join():
        ws, welcome = await join(restarted.port, "after-restart")
        await ws.close()
        return welcome

    welcome = asyncio.run(fresh_join())
    join_s = time.monotonic() - join_started
    summary = {
        "binary": str(binary), "connections": args.connections, "rate": args.rate,
        "itemBytes": args.parts * args.value_bytes, "pairs": stats.pairs, "rejected": stats.rejected,
        "seconds": round(elapsed, 1), "headSeq": welcome.get("head"),
        "rssStartMiB": round(start_rss / 2**20, 1), "rssPeakMiB": round(peak["rss"] / 2**20, 1),
        "rssEndMiB": round(end_rss / 2**20, 1), "dataPeakMiB": round(peak["data"] / 2**20, 1),
        "dataEndMiB": round(end_data / 2**20, 1), "dataAfterStopMiB": round(stopped_data / 2**20, 1),
        "stopExit": stop_code, "restartListenSeconds": round(listen_s, 3),
        "restartHealthzSeconds": round(healthz_s, 3), "restartJoinSeconds": round(join_s, 3),
        "rssAfterRestartJoinMiB": round(rss_bytes(restarted.pid) / 2**20, 1),
    }
    restarted.stop()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
