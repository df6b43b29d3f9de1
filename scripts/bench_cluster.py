#!/usr/bin/env python3
"""The cluster figures of docs/BENCHMARKS.md: `corkboard serve --store postgres` nodes on a private
PostgreSQL server (scripts/test-postgres.sh: Debian's PostgreSQL 15, `synchronous_commit=on`, the
default, with fsync), release binaries from .build/release.

    scripts/bench_cluster.py storm --runs 3          # storm (50 clients) and storm4 on one node on PostgreSQL
    scripts/bench_cluster.py failover --kills 12     # kill -9 of a busy board's owner: kill → first commit elsewhere
    scripts/bench_cluster.py redirect --joins 300    # time to a welcome: straight to the owner, or redirected
    scripts/bench_cluster.py boards --boards 100     # the boards scenario on one node, then on three

Nodes run on CPU 0 (`taskset -c 0`), the load tool on CPU 1; PostgreSQL's processes are not pinned
(they share both cores). Each figure is printed as the median and [min – max] over the runs, or as
percentiles over the kills and joins.
"""

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from conftest import stop_process  # noqa: E402  (the test suite's way to end a child)
READY = re.compile(r"url=https?://[^ ]+:(?P<port>\d+)/")


class Postgres:
    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="corkboard-bench-pg-"))
        out = subprocess.run([str(ROOT / "scripts" / "test-postgres.sh"), "start", str(self.folder)],
                             capture_output=True, text=True, check=True)
        self.url = out.stdout.strip()

    def stop(self):
        subprocess.run([str(ROOT / "scripts" / "test-postgres.sh"), "stop", str(self.folder)], check=False)


class Node:
    def __init__(self, bin_dir, database, work, name, *extra, cpu="0"):
        self.log = open(work / f"{name}.log", "w")
        command = ["taskset", "-c", cpu, str(bin_dir / "corkboard"), "serve", "--store", "postgres", "--postgres-url",
                   database, "--port", "0", "--web", str(ROOT / "web"), "--data", str(work / f"{name}-data"), "--demo",
                   "--max-connections-per-ip", "0", "--max-pending-per-ip", "0", "--max-connections", "0", *extra]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        self.port = None
        while time.monotonic() < deadline and self.port is None:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                break
            self.log.write(line)
            match = READY.search(line)
            if match:
                self.port = int(match.group("port"))
        if self.port is None:
            raise SystemExit(f"a node did not start; see {self.log.name}")

        def drain():
            for rest in self.process.stderr:
                self.log.write(rest)

        threading.Thread(target=drain, daemon=True).start()

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}/ws"

    def owned(self):
        import urllib.request
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as response:
                return json.loads(response.read()).get("ownedBoards", [])
        except Exception:
            return []

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        stop_process(self.process, timeout=15)


def corkboard(bin_dir, *args):
    return subprocess.run([str(bin_dir / "corkboard"), *args], capture_output=True, text=True, check=True).stdout


@contextlib.contextmanager
def cluster(bin_dir):
    """A fresh PostgreSQL with Corkboard's tables, and a list for the nodes started on it: on the way
    out the nodes in the list stop, then the database."""
    postgres = Postgres()
    nodes = []
    try:
        corkboard(bin_dir, "migrate", "--postgres-url", postgres.url)
        yield postgres, nodes
    finally:
        for node in nodes:
            node.stop()
        postgres.stop()


def percentiles(values):
    ordered = sorted(values)

    def at(p):
        return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]

    return {"n": len(ordered), "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": ordered[-1]}


def median_line(name, values, unit=""):
    print(f"  {name:32} {statistics.median(values):10.2f}{unit}  [{min(values):.2f} – {max(values):.2f}]")


# MARK: storm on PostgreSQL

def bench_storm(args, bin_dir, work):
    variants = {
        "storm": ["storm", "--clients", "50", "--items", "5000", "--duration", "20", "--warmup", "3"],
        "storm4": ["storm", "--clients", "4", "--window", "16", "--items", "5000", "--duration", "20", "--warmup", "3",
                   "--checkers", "0"],
    }
    for name, load in variants.items():
        rows = []
        for run in range(args.runs):
            with cluster(bin_dir) as (postgres, nodes):
                node = Node(bin_dir, postgres.url, work, f"{name}-{run}")
                nodes.append(node)
                time.sleep(1.5)
                load_average = os.getloadavg()[0]
                result = subprocess.run([str(bin_dir / "corkboard-load"), *load, "--url", node.url, "--pid",
                                         str(node.process.pid), "--cpu", "1", "--json", "--quiet"],
                                        capture_output=True, text=True, timeout=600)
            report = json.loads(result.stdout)
            ack = report["latencyMs"].get("ack") or next(v for k, v in report["latencyMs"].items() if v["count"])
            rows.append((report["committedPerSecond"], ack["p50"], ack["p99"],
                         report["server"]["window"]["cpuCores"] * 100, report["passed"], load_average))
            print(f"{name} run {run + 1}: {rows[-1][0]:.0f} ops/s, ack p99 {rows[-1][2]:.1f} ms, "
                  f"passed {rows[-1][4]} (load average before {load_average:.2f})", file=sys.stderr)
        print(f"\n## {name} on PostgreSQL (synchronous_commit=on): corkboard-load {' '.join(load)}")
        median_line("committed ops/s", [r[0] for r in rows])
        median_line("ack p50 ms", [r[1] for r in rows])
        median_line("ack p99 ms", [r[2] for r in rows])
        median_line("server CPU %", [r[3] for r in rows])


# MARK: failover

async def failover_client(urls, board, stop, acks):
    """Closed-loop moves on one board: (time, node URL) of every committed ack."""
    sections = [f"{board}-to-find", f"{board}-found"]
    collections = {sections[0]: f"{board}-caches", sections[1]: f"{board}-found"}
    entry, redirect, n = 0, None, 0
    last_seq, token, history = None, None, None
    rng = random.Random(1)
    while not stop.is_set():
        url = redirect or urls()[entry % len(urls())]
        redirect = None
        try:
            ws = await websockets.connect(url, subprotocols=["corkboard.v1"], open_timeout=3, close_timeout=0.5)
        except Exception:
            entry += 1
            await asyncio.sleep(0.05)
            continue
        try:
            hello = {"type": "hello", "protocol": 1, "board": board, "name": "bench", "clientId": "bench"}
            if token:
                hello.update(resumeToken=token, lastSeq=last_seq, history=history)
            await ws.send(json.dumps(hello))
            message = json.loads(await asyncio.wait_for(ws.recv(), 15))
            if message["type"] == "redirect":
                redirect = message.get("url")
                continue
            if message["type"] != "welcome":
                continue
            token, history, last_seq = message["resumeToken"], message["history"], message["head"]
            while not stop.is_set():
                n += 1
                await ws.send(json.dumps({"type": "submit", "opId": f"o{n}", "base": last_seq, "op": {
                    "kind": "move", "items": [f"{board}-gc{rng.randint(1, 10)}"], "destination": {
                        "collection": collections[sections[n % 2]], "section": sections[n % 2], "index": 0,
                        "intent": "insertAtDestinationIndexPath"}}}))
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 2))
                    if reply["type"] == "error":
                        raise RuntimeError(f"refused: {reply}")
                    if reply["type"] == "ack" and reply["opId"] == f"o{n}":
                        if reply["outcome"]["kind"] == "committed":
                            acks.append((time.monotonic(), url))
                            last_seq = max(last_seq, reply["outcome"]["seq"])
                        break
        except Exception as error:
            if os.environ.get("BENCH_DEBUG"):
                print(f"client: {error!r}", file=sys.stderr)
            entry += 1
        finally:
            await ws.close()


def bench_failover(args, bin_dir, work):
    with cluster(bin_dir) as (postgres, nodes):
        # The demo board, open with --demo: the client needs no key.
        nodes.extend(Node(bin_dir, postgres.url, work, f"failover-node{n}", cpu="0,1") for n in range(3))
        urls = lambda: [node.url for node in nodes]  # noqa: E731
        times = []

        async def run():
            stop = asyncio.Event()
            acks = []
            client = asyncio.create_task(failover_client(urls, "demo", stop, acks))
            await asyncio.sleep(3)
            for kill in range(args.kills):
                await asyncio.sleep(random.uniform(1.0, 2.0))
                owner = next((node for node in nodes if "demo" in node.owned()), None)
                if owner is None:
                    await asyncio.sleep(1)
                    continue
                killed = time.monotonic()
                owner.kill9()
                while True:
                    after = [t for t, url in acks if t > killed and url != owner.url]
                    if after:
                        times.append(min(after) - killed)
                        break
                    if time.monotonic() - killed > 30:
                        times.append(float("inf"))
                        break
                    await asyncio.sleep(0.01)
                print(f"kill {kill + 1}: {times[-1]:.3f} s (load average {os.getloadavg()[0]:.2f})", file=sys.stderr)
                index = nodes.index(owner)
                nodes[index] = await asyncio.to_thread(Node, bin_dir, postgres.url, work,
                                                       f"failover-node{index}-{kill}", cpu="0,1")
            stop.set()
            await client

        asyncio.run(run())
        stats = percentiles(times)
        print(f"\n## failover over {stats['n']} kills (kill -9 of the owner → first op committed by another node), "
              f"lease 3 s")
        print(f"  p50 {stats['p50']:.2f} s, p90 {stats['p90']:.2f} s, p99 {stats['p99']:.2f} s, max {stats['max']:.2f} s")


# MARK: redirect

async def time_joins(url, board, count):
    """Seconds from opening a socket to the welcome, following one redirect."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        target = url
        while True:
            async with websockets.connect(target, subprotocols=["corkboard.v1"]) as ws:
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": board, "name": "t"}))
                message = json.loads(await ws.recv())
                if message["type"] == "redirect":
                    target = message["url"]
                    continue
                assert message["type"] == "welcome", message
                break
        times.append((time.perf_counter() - started) * 1000)
    return times


def bench_redirect(args, bin_dir, work):
    with cluster(bin_dir) as (postgres, nodes):
        nodes.extend(Node(bin_dir, postgres.url, work, f"redirect-node{n}", cpu="0") for n in range(3))
        time.sleep(3)
        owner = next(node for node in nodes if "demo" in node.owned())
        other = next(node for node in nodes if node is not owner)
        direct = asyncio.run(time_joins(owner.url, "demo", args.joins))
        redirected = asyncio.run(time_joins(other.url, "demo", args.joins))
        print(f"\n## time to a welcome on the demo board (Python client, {args.joins} joins each)")
        for name, values in [("straight to the owner", direct), ("through another node (redirect)", redirected)]:
            stats = percentiles(values)
            print(f"  {name:34} p50 {stats['p50']:.2f} ms, p99 {stats['p99']:.2f} ms")


# MARK: boards over three nodes

def bench_boards(args, bin_dir, work):
    load = ["boards", "--boards", str(args.boards), "--clients-per-board", "10", "--duration", "30", "--warmup", "5"]
    for count in (1, 3):
        rows = []
        for run in range(args.runs):
            with cluster(bin_dir) as (postgres, nodes):
                for n in range(args.boards):
                    corkboard(bin_dir, "boards", "create", f"load-{n:04d}", "--postgres-url", postgres.url)
                board_list = work / "board-list.json"
                board_list.write_text(corkboard(bin_dir, "boards", "list", "--json", "--postgres-url", postgres.url))
                nodes.extend(Node(bin_dir, postgres.url, work, f"boards{count}-{run}-node{n}") for n in range(count))
                time.sleep(4)
                owned = [len(node.owned()) for node in nodes]
                urls = sum((["--url", node.url] for node in nodes), [])
                load_average = os.getloadavg()[0]
                result = subprocess.run([str(bin_dir / "corkboard-load"), *load, *urls, "--board-list", str(board_list),
                                         "--cpu", "1", "--json", "--quiet"], capture_output=True, text=True,
                                        timeout=900)
            report = json.loads(result.stdout)
            latencies = {name: (v["p50"], v["p99"]) for name, v in report["latencyMs"].items() if v["count"]}
            rows.append((report["committedPerSecond"], latencies, report["deliveredPerSecond"], report["passed"]))
            print(f"boards on {count} node(s) run {run + 1}: boards per node {owned}, {rows[-1][0]:.0f} ops/s, "
                  f"latencies (p50, p99 ms) {latencies}, passed {rows[-1][3]} (load average {load_average:.2f})",
                  file=sys.stderr)
        print(f"\n## boards on {count} node(s) on PostgreSQL: corkboard-load {' '.join(load)}")
        median_line("committed ops/s", [r[0] for r in rows])
        for name in rows[0][1]:
            median_line(f"{name} p50 ms", [r[1][name][0] for r in rows if name in r[1]])
            median_line(f"{name} p99 ms", [r[1][name][1] for r in rows if name in r[1]])
        median_line("delivered/s", [r[2] for r in rows])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["storm", "failover", "redirect", "boards"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--joins", type=int, default=300)
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--bin-dir", default=str(ROOT / ".build" / "release"))
    parser.add_argument("--work", default="/tmp/corkboard-bench-cluster")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    bin_dir = Path(args.bin_dir)
    {"storm": bench_storm, "failover": bench_failover, "redirect": bench_redirect, "boards": bench_boards}[args.what](
        args, bin_dir, work)


if __name__ == "__main__":
    main()
