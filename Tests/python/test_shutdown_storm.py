"""Issue 39: a clean stop stays fast. SIGTERM in the middle of a write storm closes every WebSocket with
1001, loses nothing acknowledged, and the server exits promptly (docs/BENCHMARKS.md has the release
figure; the bound here holds for a debug build on a loaded machine).

The storm has a member that stopped reading (its socket full of the storm's broadcasts, so even its
close cannot be written): the server used to wait out its 2 s close grace for it at every stop.
"""

import asyncio
import base64
import json
import os
import random
import signal
import socket
import time

import websockets

from test_durability import Bot, Server, check_store, connect, converge, receive

STORMERS = 4
WINDOW = 16  # operations in flight per client: the server always has writes to make
EXIT_WITHIN = 1.5  # seconds from SIGTERM to exit, debug build


async def storm(bot: Bot, url: str, joined: asyncio.Event, closes: dict):
    """Joins, then submits moves as fast as they are acknowledged until the server closes the link."""
    ws = await connect(url)
    try:
        await bot.join(ws)
        joined.set()
        while True:
            while len(bot.pending) < WINDOW:
                move = bot.next_move()
                bot.pending[move["opId"]] = bot.sent[move["opId"]] = move
                await ws.send(json.dumps(move))
            bot.handle(await receive(ws), {})
    except websockets.ConnectionClosed as closed:
        closes[bot.client_id] = closed.rcvd.code if closed.rcvd is not None else None
    finally:
        joined.set()
        await ws.close()


def non_reader(port: int) -> socket.socket:
    """A member that joins the demo board and never reads again (a small receive buffer, so the
    storm's broadcasts soon fill its socket and the server's)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Sec-WebSocket-Protocol: corkboard.v1\r\n\r\n").encode())
    hello = json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": "stalled reader"}).encode()
    mask = os.urandom(4)
    sock.sendall(bytes([0x81, 0x80 | len(hello)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(hello)))
    return sock


async def verify(url: str, bot: Bot):
    """After the restart: every operation acknowledged before the stop, resent, comes back committed at
    its seq (the server answers a resent opId with its first outcome); what was pending is resent too."""
    ws = await connect(url)
    try:
        await bot.rejoin(ws)
    finally:
        await ws.close()


def test_sigterm_in_a_write_storm_closes_1001_loses_nothing_and_exits_promptly(tmp_path, capsys):
    data = tmp_path / "data"
    bots = [Bot(f"storm{n}", random.Random(n)) for n in range(STORMERS)]
    closes = {}
    server = Server(data)
    stalled_reader = non_reader(server.port)

    async def scenario():
        joined = [asyncio.Event() for _ in bots]
        tasks = [asyncio.create_task(storm(bot, server.url, event, closes)) for bot, event in zip(bots, joined)]
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in joined)), 30)
        await asyncio.sleep(1.0)  # the storm
        acked_at_stop = sum(len(bot.acked) for bot in bots)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.process.wait, 20)
        exited = time.monotonic() - started
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        return exited, acked_at_stop

    try:
        exited, acked_at_stop = asyncio.run(scenario())
    finally:
        server.stop()
        stalled_reader.close()
    problems = [p for bot in bots for p in bot.problems]
    assert not problems, "\n".join(problems[:20])
    assert acked_at_stop > 0, "the storm got nothing acknowledged"
    assert server.process.returncode == 0
    assert closes == {bot.client_id: 1001 for bot in bots}, f"close codes: {closes}"
    assert exited <= EXIT_WITHIN, f"the server took {exited:.2f} s to exit after SIGTERM"
    check_store(data)

    restarted = Server(data)
    try:
        async def check():
            for bot in bots:
                await verify(restarted.url, bot)
                await converge(restarted.url, bot)
        asyncio.run(asyncio.wait_for(check(), 60))
    finally:
        restarted.stop()
    problems = [p for bot in bots for p in bot.problems]
    assert not problems, "\n".join(problems[:20])
    total = sum(len(bot.acked) for bot in bots)
    with capsys.disabled():
        print(f"\nSIGTERM in a write storm: exit {exited:.3f} s after the signal; {acked_at_stop} operations "
              f"acknowledged before it ({total} in all), every one present after the restart; closes {closes}")
