#!/usr/bin/env python3
"""R14 benchmark: fill a `corkboard serve` demo board with ~800 KB cards up to a size, then time fresh
joins (welcome, and every snapshotPart assembled) with Python `websockets`, and one join throttled to a
reading rate; docs/BENCHMARKS.md "Big boards" quotes it.

    python3 scripts/bench_big_board.py --cards 30            # a 24 MiB board
    python3 scripts/bench_big_board.py --cards 84 --throttle 2   # up to the 64 MiB limit, one 2 MiB/s join
    python3 scripts/bench_big_board.py --cards 84 --move-between  # a card moved before each join: a new seq each time

Starts `.build/release/corkboard serve --store memory` on a free port (CORKBOARD_BIN overrides it).
"""
import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
import test_big_boards as t  # noqa: E402  (the Python client and assembler of the test suite)


async def timed_join(port, throttle=None):
    ws = await t.connect(port)
    start = time.monotonic()
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "bench"}))
    welcome = json.loads(await ws.recv())
    first = time.monotonic() - start
    assembler = t.Assembler(welcome["snapshotParts"])
    wire = 0
    while True:
        raw = await ws.recv()
        message = json.loads(raw)
        if message["type"] != "snapshotPart":
            continue
        wire += len(raw)
        if throttle:
            delay = start + wire / throttle - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        if assembler.add(message):
            break
    total = time.monotonic() - start
    await ws.close()
    return first, total, welcome["snapshotParts"], wire


async def move_a_card(port, n):
    """Moves a demo card between the two collections (a new seq), and waits for its ack."""
    ws = await t.connect(port)
    try:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "mover"}))
        welcome = json.loads(await ws.recv())
        while welcome["type"] != "welcome":
            welcome = json.loads(await ws.recv())
        target = ("demo-found", "demo-found") if n % 2 == 0 else ("demo-caches", "demo-to-find")
        await ws.send(json.dumps({"type": "submit", "ref": "m", "opId": f"bench-move-{n}-{time.time_ns()}", "base": welcome["head"], "op": {
            "kind": "move", "items": ["demo-gc1"], "destination": {
                "collection": target[0], "section": target[1], "index": 0, "intent": "insertAtDestinationIndexPath"}}}))
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "ack":
                return message["outcome"]["kind"]
    finally:
        await ws.close()


async def run(port, cards, runs, throttle, move_between):
    start = time.monotonic()
    rejections = await t.fill(port, cards)
    print(f"filled {cards} cards in {time.monotonic() - start:.1f} s; refused: {[code for code, _ in rejections]}")
    for n in range(runs):
        if move_between and n > 0:
            await move_a_card(port, n)
        first, total, descriptor, wire = await timed_join(port)
        print(f"join {n}: welcome after {first * 1000:.0f} ms; {descriptor['parts']} parts at seq {descriptor['seq']}, "
              f"{wire} bytes in {total:.2f} s")
    if throttle:
        first, total, descriptor, wire = await timed_join(port, throttle)
        print(f"join reading at {throttle / 1048576:.1f} MiB/s: {wire} bytes in {total:.1f} s, not closed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--throttle", type=float, help="MiB/s for one extra, throttled join")
    parser.add_argument("--move-between", action="store_true",
                        help="move a card before each join after the first, so each joins at a new seq")
    args = parser.parse_args()
    binary = os.environ.get("CORKBOARD_BIN", str(ROOT / ".build" / "release" / "corkboard"))
    server = subprocess.Popen([binary, "serve", "--port", "0", "--store", "memory", "--demo", "--data", "/tmp/corkboard-bench-big"],
                              stderr=subprocess.PIPE, text=True)
    try:
        port = None
        while port is None:
            line = server.stderr.readline()
            if not line:
                sys.exit("the server exited before it announced its port")
            match = re.search(r"url=https?://[^ ]+:(\d+)/", line)
            port = int(match.group(1)) if match else None
        throttle = args.throttle * 1048576 if args.throttle else None
        asyncio.run(run(port, args.cards, args.runs, throttle, args.move_between))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
