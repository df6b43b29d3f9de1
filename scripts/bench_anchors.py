#!/usr/bin/env python3
"""Corkboard's hover load beside two relays, in one run: the side-by-side anchors of docs/BENCHMARKS.md.

For each load (R receivers + 10 senders at 30 Hz; R = 100 and 200) and each of --runs rounds, it runs
in turn, each server pinned to CPU 0 (`taskset -c 0`) and the load tool to CPU 1 (`--cpu 1`, --pid on
the server):

  corkboard    release `corkboard serve`, memory store, rate limits and per-address caps lifted (as
               scripts/bench_scenarios.py serves it), with `corkboard-load crowd --clients R+10
               --draggers 10 --hover-hz 30 --drops-per-second 0 --checkers 0`: hovers only, no drops
  lws-mirror   Debian's `libwebsockets-test-server`, `corkboard-load relay --target lws-mirror`
  y-websocket  Yjs' y-websocket Node server, `corkboard-load relay --target y-websocket`

then prints per load and target the median [min – max] over the rounds of: server µs per delivered
message, p50 and p99 hover → peers, server CPU % and delivered messages/s; and the ratios
Corkboard ÷ lws and Corkboard ÷ yjs of µs per delivered message and of p99 (ratios of the medians).
Each run's JSON report is kept in --work.

    scripts/bench_anchors.py                          # both loads, 3 rounds
    scripts/bench_anchors.py --loads 200 --runs 5
    scripts/bench_anchors.py --targets lws-mirror,y-websocket --duration 10

The relays come from Debian: `apt-get install -y libwebsockets-test-server node-y-websocket node-ws`
(--install runs it when this script runs as root). Release binaries are expected in .build/release
(`make build`); --bin-dir changes that.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from anchor_servers import APT_COMMAND, APT_PACKAGES, missing_anchors, start_anchor  # noqa: E402
from bench_scenarios import keep_report, run_status, spread, start_server, tool_note  # noqa: E402
from conftest import stop_process  # noqa: E402

TARGETS = ("corkboard", "lws-mirror", "y-websocket")
SENDERS = 10
HZ = 30


def tool_command(bin_dir, target, url, pid, receivers, args):
    """The load tool's command line for one run."""
    common = ["--url", url, "--pid", str(pid), "--cpu", "1", "--duration", str(args.duration),
              "--warmup", str(args.warmup), "--json", "--quiet"]
    if target == "corkboard":
        return [str(bin_dir / "corkboard-load"), "crowd", "--clients", str(receivers + SENDERS),
                "--draggers", str(SENDERS), "--hover-hz", str(HZ), "--drops-per-second", str(args.drops_per_second),
                "--checkers", "0", *common]
    return [str(bin_dir / "corkboard-load"), "relay", "--target", target, "--receivers", str(receivers),
            "--senders", str(SENDERS), "--hz", str(HZ), "--bytes", str(args.bytes), *common]


def run_once(bin_dir, work, target, receivers, run, args):
    """One server, one load tool run; returns the tool's JSON report (None when it gave none)."""
    name = f"{target}-{receivers}-{run}"
    with open(work / f"{name}.server.log", "w") as log:
        if target == "corkboard":
            data = work / "corkboard-data"
            shutil.rmtree(data, ignore_errors=True)
            server, port = start_server(bin_dir, data, "memory", log, [])
            url = f"ws://127.0.0.1:{port}/ws"
        else:
            server, url = start_anchor(target, log, cpu=0)
        try:
            result = subprocess.run(tool_command(bin_dir, target, url, server.pid, receivers, args),
                                    capture_output=True, text=True, timeout=600)
        finally:
            stop_process(server, timeout=15)
    report = keep_report(result, work / f"{name}.json", name)
    if report is not None:
        print(f"{name}: {run_status(report)}{tool_note(report)}", file=sys.stderr)
    return report


def figures(report):
    """The compared figures of one report (crowd's and relay's share these names)."""
    out = {"delivered/s": report["deliveredPerSecond"]}
    if "hoverDeliveryRatio" in report:
        # Below 1 the relay fell behind (crowd has no such figure: Corkboard coalesces hovers).
        out["hover delivery ratio"] = report["hoverDeliveryRatio"]
    hover = report["latencyMs"].get("proposalPeers")
    if hover and hover["count"]:
        out["hover → peers p50 ms"] = hover["p50"]
        out["hover → peers p99 ms"] = hover["p99"]
    server = report.get("server")
    if server:
        out["server CPU %"] = server["window"]["cpuCores"] * 100
        if server.get("cpuMicrosPerDelivered") is not None:
            out["server µs/delivered"] = server["cpuMicrosPerDelivered"]
    return out


def medians(reports):
    """{figure: (median, [values])} over the reports of one target and load."""
    rows = [figures(r) for r in reports]
    keys = [k for row in rows for k in row]
    out = {}
    for key in dict.fromkeys(keys):
        values = [row[key] for row in rows if key in row]
        out[key] = (statistics.median(values), values)
    return out


def ratio(a, b, key):
    if key not in a or key not in b or b[key][0] == 0:
        return "–"
    return f"{a[key][0] / b[key][0]:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="rounds per load (each runs every target once)")
    parser.add_argument("--loads", default="100,200", help="comma-separated receiver counts (10 senders each)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: " + ", ".join(TARGETS))
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of load before measuring")
    parser.add_argument("--bytes", type=int, default=200, help="bytes of each relay hover (Corkboard's are its own)")
    parser.add_argument("--drops-per-second", type=float, default=0.0,
                        help="drops/s in Corkboard's crowd (0: hovers only, as the relays carry)")
    parser.add_argument("--bin-dir", default=str(ROOT / ".build" / "release"))
    parser.add_argument("--work", default="/tmp/corkboard-anchors", help="logs and JSON reports")
    parser.add_argument("--install", action="store_true", help=f"run `{APT_COMMAND}` first (as root)")
    args = parser.parse_args()

    targets = [t for t in args.targets.split(",") if t]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise SystemExit(f"unknown targets {unknown}: choose among {', '.join(TARGETS)}")
    loads = [int(n) for n in args.loads.split(",") if n]
    if args.runs < 1 or not loads or min(loads) < 1:
        raise SystemExit("need --runs ≥ 1 and receiver counts ≥ 1 in --loads")
    if any(t != "corkboard" for t in targets):
        if args.install:
            if os.geteuid() != 0:
                raise SystemExit(f"--install needs root: run `sudo {APT_COMMAND}` instead")
            subprocess.run(["apt-get", "install", "-y", *APT_PACKAGES], check=True)
        missing = missing_anchors()
        if missing:
            raise SystemExit(f"the relays are not installed ({'; '.join(missing)}): run `{APT_COMMAND}` as root, "
                             "or this script with --install as root, or pass --targets corkboard")
    bin_dir = Path(args.bin_dir)
    if not (bin_dir / "corkboard-load").exists():
        raise SystemExit(f"no {bin_dir / 'corkboard-load'}: build the release binaries (`make build`) or pass --bin-dir")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)

    failed = False
    results = {}
    for receivers in loads:
        for run in range(1, args.runs + 1):
            # Alternate the targets within a round, so a slow minute of the machine falls on all of them.
            for target in targets:
                print(f"load average {os.getloadavg()[0]:.2f}: {target}, {receivers} + {SENDERS}, round {run}",
                      file=sys.stderr)
                report = run_once(bin_dir, work, target, receivers, run, args)
                if report is None or not report["passed"]:
                    failed = True
                if report is not None:
                    results.setdefault((receivers, target), []).append(report)
                time.sleep(1)

    for receivers in loads:
        print(f"\n## {receivers} receivers + {SENDERS} senders at {HZ} Hz; server on CPU 0, load tool on CPU 1; "
              f"{args.duration:g} s after {args.warmup:g} s warm-up; median [min – max]")
        table = {}
        for target in targets:
            reports = results.get((receivers, target), [])
            if not reports:
                print(f"{target}: no reports")
                continue
            table[target] = medians(reports)
            print(f"{target} ({len(reports)} runs)")
            for key, (_, values) in table[target].items():
                print(f"  {key:24} {spread(values)}")
        cork = table.get("corkboard")
        for other, short in (("lws-mirror", "lws"), ("y-websocket", "yjs")):
            if cork and other in table:
                print(f"Corkboard/{short}: µs per delivered message {ratio(cork, table[other], 'server µs/delivered')}, "
                      f"p99 hover → peers {ratio(cork, table[other], 'hover → peers p99 ms')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
