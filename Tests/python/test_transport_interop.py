"""Interop: the Python `websockets` client against `corkboard-load transport-server`.

Run with: CORKBOARD_LOAD_BIN=.build/debug/corkboard-load python3 -m pytest Tests/python
"""

import asyncio
import os
import subprocess

import pytest
import websockets

BIN = os.environ.get("CORKBOARD_LOAD_BIN", ".build/debug/corkboard-load")


@pytest.fixture
def server_port():
    if not os.path.exists(BIN):
        pytest.fail(
            f"corkboard-load binary not found at {BIN!r}: build it (swift build --product corkboard-load) "
            "or set CORKBOARD_LOAD_BIN"
        )
    proc = subprocess.Popen(
        [BIN, "transport-server", "--port", "0", "--host", "127.0.0.1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on "), f"unexpected first line from transport-server: {line!r}"
        yield int(line.split()[-1])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


async def _exchange(port):
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"], open_timeout=5, close_timeout=5
    ) as ws:
        assert ws.subprotocol == "corkboard.v1"
        await ws.send("hello from python")
        assert await asyncio.wait_for(ws.recv(), 5) == "hello from python"
        await ws.send(bytes([0, 1, 2, 255]))
        assert await asyncio.wait_for(ws.recv(), 5) == bytes([0, 1, 2, 255])
        await ws.send(["frag", "mented ", "message"])
        assert await asyncio.wait_for(ws.recv(), 5) == "fragmented message"
        await ws.send('{"bench":{"count":500,"size":100}}')
        frames = 0
        while True:
            msg = await asyncio.wait_for(ws.recv(), 10)
            if isinstance(msg, str):
                assert msg.startswith('{"benchDone":500')
                break
            assert msg == b"B" * 100
            frames += 1
        assert frames == 500


def test_python_client_echo_and_broadcast(server_port):
    asyncio.run(asyncio.wait_for(_exchange(server_port), 30))


async def _refused(port):
    with pytest.raises(websockets.exceptions.InvalidStatus) as info:
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5):
            pass
    assert info.value.response.status_code == 400


def test_python_client_without_subprotocol_gets_http_400(server_port):
    asyncio.run(asyncio.wait_for(_refused(server_port), 15))
