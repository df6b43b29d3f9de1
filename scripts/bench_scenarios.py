#!/usr/bin/env python3
"""Runs the corkboard-load scenarios of docs/BENCHMARKS.md and prints medians with their spread.

Each run starts a fresh `corkboard serve` pinned to CPU 0 (`taskset -c 0`), runs one scenario
with the load tool pinned to CPU 1 (`--cpu 1`, its --pid pointing at the server), stops the server,
and keeps the tool's JSON report. After --runs runs of a scenario it prints one line per figure:
the median and [min – max] over the runs.

    scripts/bench_scenarios.py                      # every scenario, 3 runs each
    scripts/bench_scenarios.py --only storm-memory --runs 5
    scripts/bench_scenarios.py --list
    scripts/bench_scenarios.py --only crowd-200 --server-arg=--threads=2    # the server's own flags
    scripts/bench_scenarios.py --only crowd-200 --metrics --scrape-every 1    # with /metrics, scraped

With --metrics the last scrape (taken as the tool ends, before the server stops) also gives the
server's own latencies over the whole run, joins and warm-up included, estimated from the
histograms' buckets as Prometheus' histogram_quantile does: how long messages waited in their
sockets before being read (`corkboard_read_wait_seconds`), a drop handed to its room until its
op was written to every peer (`corkboard_drop_broadcast_seconds`) and one store transaction
(`corkboard_store_commit_seconds`).

Each run's line says when the load tool's own loops were busy over 80 % of the window (its report's
`loadToolLoops`): the latencies of that run then include the tool's queueing, not the server's alone.

The servers lift the per-address caps and the per-connection rate limits (every client of a run
comes from 127.0.0.1, and storm sends as fast as it is answered); the `flood` scenarios are about
the rate limits, so `flood` keeps the server's defaults and `flood-unlimited` shows the same flood
without them.

Release binaries are expected in .build/release (`make build`); --bin-dir changes that. The
`boards` and `idle-10k` scenarios need 1,000 boards: they are created once in --work/boards-pristine
with `corkboard-load setup` (about a minute), and every run serves a fresh copy of them
(--work/boards-data), so no run loads the operations an earlier run left in the boards' logs.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from conftest import stop_process  # noqa: E402  (the test suite's way to end a child)
READY = re.compile(r"url=https?://[^ ]+:(?P<port>\d+)/")

# name → (store, needs the 1,000 boards, load tool arguments)
SCENARIOS = {
    "crowd": ("memory", False, ["crowd", "--clients", "1000", "--draggers", "20", "--hover-hz", "30",
                                "--drops-per-second", "10", "--duration", "20", "--warmup", "5"]),
    "crowd-200": ("memory", False, ["crowd", "--clients", "200", "--draggers", "10", "--hover-hz", "30",
                                    "--drops-per-second", "10", "--duration", "20", "--warmup", "5"]),
    # The anchors' load (performance.md): N watchers + 10 draggers hovering at 30 Hz on one board,
    # measured beside the lws mirror and y-websocket by scripts/bench_anchors.py.
    "hover-100": ("memory", False, ["crowd", "--clients", "110", "--draggers", "10", "--hover-hz", "30",
                                    "--drops-per-second", "10", "--duration", "20", "--warmup", "5"]),
    "hover-200": ("memory", False, ["crowd", "--clients", "210", "--draggers", "10", "--hover-hz", "30",
                                    "--drops-per-second", "10", "--duration", "20", "--warmup", "5"]),
    "boards": ("sqlite", True, ["boards", "--boards", "1000", "--clients-per-board", "10", "--duration", "30",
                                "--warmup", "5", "--connect-rate", "1000"]),
    "boards-200": ("sqlite", True, ["boards", "--boards", "200", "--clients-per-board", "10", "--duration", "30",
                                    "--warmup", "5"]),
    "boards-100": ("sqlite", True, ["boards", "--boards", "100", "--clients-per-board", "10", "--duration", "30",
                                    "--warmup", "5"]),
    "boards-50": ("sqlite", True, ["boards", "--boards", "50", "--clients-per-board", "10", "--duration", "30",
                                   "--warmup", "5"]),
    "storm-memory": ("memory", False, ["storm", "--clients", "50", "--items", "5000", "--duration", "20",
                                       "--warmup", "3"]),
    "storm-sqlite": ("sqlite", False, ["storm", "--clients", "50", "--items", "5000", "--duration", "20",
                                       "--warmup", "3"]),
    "storm4-memory": ("memory", False, ["storm", "--clients", "4", "--window", "16", "--items", "5000",
                                        "--duration", "20", "--warmup", "3", "--checkers", "0"]),
    "storm4-sqlite": ("sqlite", False, ["storm", "--clients", "4", "--window", "16", "--items", "5000",
                                        "--duration", "20", "--warmup", "3", "--checkers", "0"]),
    "idle-1k": ("memory", False, ["idle", "--clients", "1000", "--duration", "5"]),
    "idle-10k": ("sqlite", True, ["idle", "--clients", "10000", "--boards", "1000", "--duration", "5",
                                  "--connect-rate", "1000"]),
    "flood": ("memory", False, ["flood", "--quiet-seconds", "30", "--flood-seconds", "30", "--ping-hz", "20",
                                "--move-hz", "4"]),
    "flood-unlimited": ("memory", False, ["flood", "--quiet-seconds", "30", "--flood-seconds", "30", "--ping-hz",
                                          "20", "--move-hz", "4", "--max-ratio", "0"]),
    # The server with 1,000 boards loaded and nobody connected, its CPU over 30 s (rooms start at
    # their first join: IDLE_WARMUP joins every board once first).
    "idle-boards": ("sqlite", True, None),
}

# Scenarios whose server keeps its default rate limits (every other one lifts them).
RATE_LIMITED = {"flood"}


def flood_figures(report):
    """The figures of a `corkboard-load flood` report."""
    out = {}
    for key, trip in sorted(report["roundTripMs"].items()):
        out[f"{key} p50 ms"] = trip["p50"]
        out[f"{key} p99 ms"] = trip["p99"]
    for key, ratio in sorted(report["p99Ratio"].items()):
        out[f"{key} p99 ratio"] = ratio
    flooder = report["flooder"]
    out["flooder sent/s"] = flooder["sentPerSecond"]
    out["flooder committed"] = flooder["committed"]
    out["flooder closes"] = sum(flooder["closes"].values())
    for phase in report["phases"]:
        if phase.get("server"):
            out[f"server CPU % {phase['phase']}"] = phase["server"]["cpuCores"] * 100
    return out


IDLE_SECONDS = 30
# Joins each of the 1,000 boards once and leaves, so every room is loaded before the idle window.
IDLE_WARMUP = ["idle", "--clients", "1000", "--boards", "1000", "--duration", "1", "--connect-rate", "1000"]


def idle_report(pid):
    """The server's CPU while nobody is connected: utime + stime from /proc over IDLE_SECONDS."""
    def ticks():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    time.sleep(5)  # the rooms just loaded save their first snapshots; the warm-up's connections close
    before = ticks()
    time.sleep(IDLE_SECONDS)
    used = (ticks() - before) / os.sysconf("SC_CLK_TCK")
    return {"passed": True, "failures": [], "idle": {"seconds": IDLE_SECONDS, "cpuSeconds": used}}


def tool_note(report):
    """A warning for a run whose load tool was saturated (its report's verdict: its lean loops busy
    over 80 % of the window), else an empty string."""
    loops = report.get("loadToolLoops")
    if not loops or not loops["saturated"]:
        return ""
    return (f"; the load tool's loops were {loops['busy'] * 100:.0f} % busy (half their busy time in rounds over "
            f"{loops['busyTimeRoundP50Ms']:.0f} ms): its own queueing is in these latencies")


def figures(report):
    """The figures worth a median, from one JSON report."""
    if "p99Ratio" in report:
        return flood_figures(report)
    if "idle" in report:
        idle = report["idle"]
        return {"server CPU % (nobody connected)": idle["cpuSeconds"] / idle["seconds"] * 100,
                "server CPU ms per second": idle["cpuSeconds"] / idle["seconds"] * 1000}
    out = {
        "joined": report["connections"]["joined"],
        "delivered/s": report["deliveredPerSecond"],
        "committed ops/s": report["committedPerSecond"],
        "delivery ratio": report["delivery"]["ratio"],
        "load tool CPU %": report["loadTool"]["cpuCores"] * 100,
    }
    loops = report.get("loadToolLoops")
    if loops:
        # The tool's own queueing: a message reaching it waits for the round in progress.
        out["load tool loops busy %"] = loops["busy"] * 100
        out["load tool round p99 ms"] = loops["roundP99Ms"]
        out["load tool busy-time round p50 ms"] = loops["busyTimeRoundP50Ms"]
    for name, latency in report["latencyMs"].items():
        if latency["count"]:
            out[f"{name} p50 ms"] = latency["p50"]
            out[f"{name} p99 ms"] = latency["p99"]
            out[f"{name} p99.9 ms"] = latency["p999"]
            out[f"{name} max ms"] = latency["max"]
    server = report.get("server")
    if server:
        out["server CPU %"] = server["window"]["cpuCores"] * 100
        if server.get("cpuMicrosPerDelivered") is not None:
            out["server µs/delivered"] = server["cpuMicrosPerDelivered"]
        if server.get("rssKiBPerConnection") is not None:
            out["server KiB/connection joined"] = server["rssKiBPerConnection"]
        if server.get("rssKiBPerConnectionAtEnd") is not None:
            out["server KiB/connection at end"] = server["rssKiBPerConnectionAtEnd"]
        out["server RSS MiB"] = server["window"]["rssMiB"]
        # Where the server's time went: its service threads (cb-service-N: sockets, decoding,
        # writes) against the rest (the Swift runtime's pool threads: rooms, the store's writer).
        threads = server["window"].get("threadCores", {})
        if threads:
            service = sum(v for k, v in threads.items() if k.startswith("cb-service"))
            out["server service threads CPU %"] = service * 100
            out["server other threads CPU %"] = (sum(threads.values()) - service) * 100
    out.update(report.get("serverHistograms", {}))
    return out


METRICS = re.compile(r"metrics=(?P<url>http://[^ ]+/metrics)")


class Scraper:
    """Scrapes the server's /metrics every `every` seconds while a run lasts (as Prometheus would)."""

    def __init__(self, every):
        self.every = every
        self.url = None
        self.stopped = threading.Event()
        self.scrapes = 0
        self.last = None

    def start(self, url):
        self.url = url
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while not self.stopped.wait(self.every):
            self.scrape()

    def scrape(self):
        import urllib.request
        try:
            with urllib.request.urlopen(self.url, timeout=5) as answer:
                self.last = answer.read().decode()
            self.scrapes += 1
        except OSError:
            pass

    def stop(self):
        """Stops the periodic scrapes and takes a last one (the server still runs)."""
        self.stopped.set()
        self.last = None
        if self.url:
            self.scrape()


BUCKET = re.compile(r'^(?P<name>\w+)_bucket\{(?:.*,)?le="(?P<le>[^"]+)"(?:,.*)?\} (?P<count>\S+)$')
SERVER_HISTOGRAMS = {"corkboard_read_wait_seconds": "server read wait",
                     "corkboard_drop_broadcast_seconds": "server drop → written",
                     "corkboard_store_commit_seconds": "server store commit"}


def histogram_quantiles(text, quantiles=(0.5, 0.99)):
    """`{figure name: ms}` for SERVER_HISTOGRAMS in a /metrics text: each quantile interpolated
    linearly within its bucket (Prometheus' histogram_quantile); past the last finite bound it is
    that bound."""
    buckets = {}
    for line in text.splitlines():
        match = BUCKET.match(line)
        if match and match.group("name") in SERVER_HISTOGRAMS:
            bound = float("inf") if match.group("le") == "+Inf" else float(match.group("le"))
            buckets.setdefault(match.group("name"), []).append((bound, float(match.group("count"))))
    out = {}
    for name, rows in buckets.items():
        rows.sort()
        total = rows[-1][1]
        if total == 0:
            continue
        for q in quantiles:
            rank, lower, below = q * total, 0.0, 0.0
            for bound, count in rows:
                if count >= rank:
                    value = lower if bound == float("inf") else lower + (bound - lower) * (
                        (rank - below) / (count - below) if count > below else 1)
                    break
                lower, below = bound, count
            out[f"{SERVER_HISTOGRAMS[name]} p{q * 100:g} ms"] = value * 1000
    return out


def keep_report(result, path, label):
    """Writes a load tool run's standard output to `path` and returns its JSON report (None, after a
    line on standard error, when it printed none)."""
    path.write_text(result.stdout)
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        print(f"{label}: no report ({result.returncode}): {result.stderr[-500:]}", file=sys.stderr)
        return None


def run_status(report):
    """The status of a run: passed, or FAILED and its failures."""
    return "passed" if report["passed"] else "FAILED: " + "; ".join(report["failures"])[:300]


def spread(values):
    """A figure over runs: its median and [min – max]."""
    return f"{statistics.median(values):12.3f}  [{min(values):.3f} – {max(values):.3f}]"


def start_server(bin_dir, data, store, log, extra, rate_limited=False, scraper=None):
    command = ["taskset", "-c", "0", str(bin_dir / "corkboard"), "serve", "--port", "0", "--web", str(ROOT / "web"),
               "--data", str(data), "--demo", "--store", store, "--log-level", "info",
               # Every client of a benchmark comes from 127.0.0.1: lift the per-address caps.
               "--max-connections-per-ip", "0", "--max-pending-per-ip", "0", "--max-connections", "0", *extra]
    if not rate_limited:
        command += ["--rate-ops", "0", "--rate-ephemeral", "0"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    port = None
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line and process.poll() is not None:
            break
        log.write(line)
        match = READY.search(line)
        if match:
            port = int(match.group("port"))
        metrics = METRICS.search(line)
        if metrics and scraper:
            scraper.start(metrics.group("url"))
        # The metrics address is logged right after the public one.
        if port is not None and (scraper is None or scraper.url is not None):
            # Keep draining the log so the server never blocks on a full pipe.
            def drain(stream=process.stderr, out=log):
                for rest in stream:
                    out.write(rest)

            threading.Thread(target=drain, daemon=True).start()
            return process, port
    process.kill()
    raise SystemExit(f"the server did not start: see {log.name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenario names")
    parser.add_argument("--bin-dir", default=str(ROOT / ".build" / "release"))
    parser.add_argument("--work", default="/tmp/corkboard-bench", help="data folders, logs and JSON reports")
    parser.add_argument("--list", action="store_true", help="print the scenarios and their arguments")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="an argument for every `corkboard serve` (repeat; e.g. --server-arg=--threads=2)")
    parser.add_argument("--metrics", action="store_true",
                        help="serve /metrics (--metrics-listen on a free loopback port) and scrape it during runs")
    parser.add_argument("--scrape-every", type=float, default=15.0, help="seconds between scrapes with --metrics")
    parser.add_argument("extra", nargs="*", help="more arguments for every load tool run (after --)")
    args = parser.parse_args()
    if args.list:
        for name, (store, boards, load) in SCENARIOS.items():
            tool = f"corkboard-load {' '.join(load)}" if load else f"no clients; server CPU over {IDLE_SECONDS} s"
            print(f"{name:14} store={store:6} {'(1,000 boards) ' if boards else ''}{tool}")
        return 0
    bin_dir = Path(args.bin_dir)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenarios {unknown}; see --list")
    # The 1,000 boards as `setup` made them; each run gets a fresh copy, so no run starts with the
    # operations earlier runs left in the boards' logs (they would load with the rooms).
    pristine = work / "boards-pristine"
    if any(SCENARIOS[n][1] for n in names) and not (pristine / "corkboard.sqlite").exists():
        print("creating 1,000 boards in", pristine, file=sys.stderr)
        subprocess.run([str(bin_dir / "corkboard-load"), "setup", "--boards", "1000", "--data", str(pristine),
                        "--corkboard", str(bin_dir / "corkboard")], check=True)
    failed = False
    for name in names:
        store, needs_boards, load = SCENARIOS[name]
        reports = []
        for run in range(1, args.runs + 1):
            load_average = os.getloadavg()
            if needs_boards:
                data = work / "boards-data"
                shutil.rmtree(data, ignore_errors=True)
                shutil.copytree(pristine, data)
            else:
                data = work / f"{name}-data"
                shutil.rmtree(data, ignore_errors=True)
            scraper = Scraper(args.scrape_every) if args.metrics else None
            server_args = args.server_arg + (["--metrics-listen", "0"] if args.metrics else [])
            with open(work / f"{name}-{run}.server.log", "w") as log:
                server, port = start_server(bin_dir, data, store, log, server_args,
                                            rate_limited=name in RATE_LIMITED, scraper=scraper)
                try:
                    if load is None:
                        warmup = [str(bin_dir / "corkboard-load"), *IDLE_WARMUP, "--url", f"ws://127.0.0.1:{port}/ws",
                                  "--json", "--quiet", "--data", str(data), "--corkboard", str(bin_dir / "corkboard")]
                        subprocess.run(warmup, capture_output=True, text=True, timeout=600, check=True)
                        report = idle_report(server.pid)
                        reports.append(report)
                        print(f"{name} run {run} (load average before {load_average[0]:.2f}): "
                              f"{report['idle']['cpuSeconds']:.3f} CPU s in {IDLE_SECONDS} s", file=sys.stderr)
                        continue
                    command = [str(bin_dir / "corkboard-load"), *load, "--url", f"ws://127.0.0.1:{port}/ws",
                               "--pid", str(server.pid), "--cpu", "1", "--json", "--quiet", *args.extra]
                    if needs_boards:
                        command += ["--data", str(data), "--corkboard", str(bin_dir / "corkboard")]
                    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
                finally:
                    if scraper:
                        scraper.stop()
                    stop_process(server, timeout=15)
            report = keep_report(result, work / f"{name}-{run}.json", f"{name} run {run}")
            if report is None:
                failed = True
                continue
            if scraper and scraper.last:
                report["serverHistograms"] = histogram_quantiles(scraper.last)
            reports.append(report)
            status = run_status(report)
            scraped = f", {scraper.scrapes} scrapes of /metrics" if scraper else ""
            print(f"{name} run {run} (load average before {load_average[0]:.2f}{scraped}): {status}"
                  f"{tool_note(report)}", file=sys.stderr)
            failed = failed or not report["passed"]
        if not reports:
            continue
        serve = " ".join(args.server_arg + (["--metrics-listen 0"] if args.metrics else [])) or "(defaults)"
        if name in RATE_LIMITED:
            serve += " (default rate limits)"
        tool = f"corkboard-load {' '.join(load)}" if load else "no clients"
        print(f"\n## {name}: store {store}; corkboard serve {serve}; {tool}")
        print(f"{len(reports)} runs; median [min – max]")
        rows = [figures(r) for r in reports]
        for key in rows[0]:
            values = [row[key] for row in rows if key in row]
            print(f"  {key:28} {spread(values)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
