#!/usr/bin/env python3
"""When did the slow drops happen? Reads a `corkboard-load ... --drop-trace FILE` trace.

A p99 says how many drops were slow, not when. This prints, for the drops of one run:

- the median latency by the wall-clock phase of a period (default 1 s): a burst of work that
  every room does at the same instant of each second shows as one phase far above the rest;
- the latency over the run, window by window (`--timeline`): overload builds and drains;
- the lags at which the median latency repeats itself (autocorrelation of 100 ms medians): a
  stall every few seconds (a store's periodic work, say) shows as a peak at its period.

    scripts/drop_trace.py /tmp/boards.trace [--period 1] [--bins 20] [--timeline] [--json]

Plain Python, no packages. Exit status 2 when the file is not a drop trace.
"""

import argparse
import json
import statistics
import sys


def read_trace(path):
    """Returns (offset_ns, [(sent_ns, latency_ns)]) from a drop trace; raises ValueError."""
    offset = None
    drops = []
    with open(path, encoding="utf-8") as file:
        first = file.readline()
        if not first.startswith("# corkboard-load drop trace"):
            raise ValueError(f"{path} is not a corkboard-load drop trace (it has no header)")
        for number, line in enumerate(file, start=2):
            if line.startswith("#"):
                parts = line[1:].split()
                if len(parts) == 2 and parts[0] == "realtime_minus_monotonic_ns":
                    offset = int(parts[1])
                continue
            fields = line.split()
            if len(fields) != 2:
                raise ValueError(f"{path}:{number}: expected 'sent_ns every_peer_ns', got {line.strip()!r}")
            drops.append((int(fields[0]), int(fields[1])))
    if offset is None:
        raise ValueError(f"{path}: the header lacks realtime_minus_monotonic_ns")
    return offset, drops


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def by_phase(offset, drops, period, bins):
    """Median latency (ms) of the drops sent in each of `bins` phases of `period` s of wall time."""
    groups = [[] for _ in range(bins)]
    for sent, latency in drops:
        phase = ((sent + offset) / 1e9) % period / period
        groups[min(bins - 1, int(phase * bins))].append(latency / 1e6)
    return [statistics.median(g) if g else None for g in groups]


def timeline(drops, window):
    """(start s, count, median ms, max ms) per window of the run."""
    start = drops[0][0]
    rows = {}
    for sent, latency in drops:
        rows.setdefault(int((sent - start) / 1e9 / window), []).append(latency / 1e6)
    return [(k * window, len(v), statistics.median(v), max(v)) for k, v in sorted(rows.items())]


def repeats(drops, step=0.1, shortest=0.2, longest=10.0, top=3):
    """The lags (s) at which the run's 100 ms median latencies correlate most with themselves."""
    series = [median for _, _, median, _ in timeline(drops, step)]
    if len(series) < 3:
        return []
    mean = statistics.fmean(series)
    centred = [x - mean for x in series]
    energy = sum(x * x for x in centred) or 1.0
    found = []
    for lag in range(max(1, int(shortest / step)), min(len(series) - 1, int(longest / step)) + 1):
        found.append((round(lag * step, 2), sum(a * b for a, b in zip(centred, centred[lag:])) / energy))
    # Local peaks only (the correlation falls from lag 0 first; a lag next to a stronger one is
    # the same repetition).
    peaks = [
        (lag, value)
        for i, (lag, value) in enumerate(found)
        if 0 < i and value > found[i - 1][1] and (i == len(found) - 1 or value >= found[i + 1][1])
    ]
    return sorted(peaks, key=lambda p: -p[1])[:top]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", help="a file written by corkboard-load --drop-trace")
    parser.add_argument("--period", type=float, default=1.0, help="the wall-clock period to fold over (s)")
    parser.add_argument("--bins", type=int, default=20, help="phases of the period")
    parser.add_argument("--window", type=float, default=0.25, help="the timeline's window (s)")
    parser.add_argument("--timeline", action="store_true", help="also print the latency window by window")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.period <= 0 or not 1 <= args.bins <= 1000 or args.window <= 0:
        parser.error("--period and --window must be positive and --bins between 1 and 1000")
    try:
        offset, drops = read_trace(args.trace)
    except (OSError, ValueError) as error:
        print(f"drop_trace.py: {error}", file=sys.stderr)
        return 2
    if not drops:
        print(f"drop_trace.py: {args.trace} holds no drops (did the run measure any?)", file=sys.stderr)
        return 2
    latencies = [latency / 1e6 for _, latency in drops]
    phases = by_phase(offset, drops, args.period, args.bins)
    worst = max((m, i) for i, m in enumerate(phases) if m is not None)
    result = {
        "drops": len(drops),
        "p50Ms": percentile(latencies, 0.5),
        "p99Ms": percentile(latencies, 0.99),
        "phaseMedianMs": phases,
        "worstPhase": {"start": worst[1] * args.period / args.bins, "medianMs": worst[0]},
        "repeatsAt": [{"lagSeconds": lag, "correlation": value} for lag, value in repeats(drops)],
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{len(drops)} drops: p50 {result['p50Ms']:.1f} ms, p99 {result['p99Ms']:.1f} ms")
    print(f"median by wall-clock phase of {args.period:g} s ({args.bins} bins, ms):")
    print("  " + " ".join("-" if m is None else f"{m:.0f}" for m in phases))
    print(
        f"  slowest phase: {result['worstPhase']['start']:.3f}–{result['worstPhase']['start'] + args.period / args.bins:.3f} s,"
        f" median {worst[0]:.1f} ms"
    )
    print(
        "median latency repeats itself at: "
        + ", ".join(f"{r['lagSeconds']:g} s ({r['correlation']:.2f})" for r in result["repeatsAt"])
    )
    if args.timeline:
        print(f"window by window ({args.window:g} s): start, drops, median ms, max ms")
        for start, count, median, top in timeline(drops, args.window):
            print(f"  {start:7.2f} {count:5d} {median:7.1f} {top:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
