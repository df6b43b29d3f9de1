"""Per-connection rate limits over real sockets (issue 19, OWASP's WebSocket cheat sheet), with an
independent client (Python `websockets`): a client flooding submits or cursors is answered
`rate-limited`, its excess is not applied, and it is closed 1008 when it keeps going; a normal
client on the same board is unaffected. Defaults: 20 operations a second in bursts of 40, 60
ephemeral updates a second in bursts of 120 (docs/PROTOCOL.md, "Rate limits")."""

import asyncio
import json

import pytest
import websockets

from conftest import ROOT, ServerProcess, executable

READY = r"url=https?://[^ ]+:(?P<port>\d+)/"


@pytest.fixture
def server(tmp_path):
    proc = ServerProcess(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data",
         tmp_path / "data", "--store", "memory", "--demo"],
        READY)
    yield proc
    proc.stop()


def submit(n, index=0):
    return json.dumps({
        "type": "submit", "ref": f"s{n}", "opId": f"o{n}", "base": 0,
        "op": {"kind": "move", "items": ["demo-gc1"],
               "destination": {"collection": "demo-caches", "section": "demo-to-find", "index": index,
                               "intent": "insertAtDestinationIndexPath"}}})


async def join(port, name):
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["corkboard.v1"], max_queue=None)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "demo", "name": name, "ref": "h"}))
    welcome = json.loads(await ws.recv())
    assert welcome["type"] == "welcome", welcome
    return ws, welcome


async def receive_until(ws, done, timeout=10):
    """Messages until `done(messages)` holds."""
    messages = []
    async with asyncio.timeout(timeout):
        while not done(messages):
            messages.append(json.loads(await ws.recv()))
    return messages


async def announced(ws, count):
    """Reads until the tick's membersChanged says `count` members are connected."""
    await receive_until(ws, lambda m: any(x["type"] == "membersChanged" and x["count"] == count for x in m))


async def close_of(ws, timeout=10):
    """Reads until the server closes; returns (code, reason) and the messages before."""
    messages = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        async with asyncio.timeout(timeout):
            while True:
                messages.append(json.loads(await ws.recv()))
    return closed.value.rcvd.code, closed.value.rcvd.reason, messages


def test_a_submit_flood_is_rate_limited_then_closed_and_a_peer_is_unaffected(server):
    async def scenario():
        flooder, welcome = await join(server.port, "flooder")
        head = welcome["head"]
        peer, _ = await join(server.port, "peer")
        await announced(flooder, 2)
        # 60 submits at once: the burst of 40 goes through (and what refilled meanwhile, at 20 a
        # second), the others are refused one by one.
        await asyncio.gather(*(flooder.send(submit(n)) for n in range(1, 61)))
        # Answers only (the flooder also gets `undoable` once its first move can be undone).
        answers = await receive_until(flooder, lambda m: len([x for x in m if x["type"] in ("ack", "error")]) >= 60)
        answers = [m for m in answers if m["type"] in ("ack", "error")]
        acks = [m for m in answers if m["type"] == "ack"]
        refused = [m for m in answers if m["type"] == "error"]
        assert 40 <= len(acks) <= 45 and all(a["outcome"]["kind"] == "committed" for a in acks)
        assert len(acks) + len(refused) == 60
        assert {m["code"] for m in refused} == {"rate-limited"}
        assert {m["ref"] for m in refused} <= {f"s{n}" for n in range(41, 61)}
        assert "20/s, bursts of 40" in refused[0]["message"] and "not applied" in refused[0]["message"]
        applied = len(acks)
        # The peer saw exactly the applied operations.
        ops = await receive_until(peer, lambda m: len([x for x in m if x["type"] == "op"]) >= applied)
        assert [o["seq"] for o in ops if o["type"] == "op"] == list(range(head + 1, head + applied + 1))
        # Keeping on: after another burst's worth of refusals within 10 s, closed 1008.
        for n in range(61, 101):
            await flooder.send(submit(n))
        code, reason, before = await close_of(flooder)
        assert code == 1008 and "rate limit" in reason
        assert all(m["code"] == "rate-limited" for m in before if m["type"] == "error")
        assert all(m["type"] in ("error", "undoable") for m in before), before
        # Nothing of the flood past the burst was applied; the peer still works normally.
        await peer.send(submit(1000, index=1))
        answer = await receive_until(peer, lambda m: any(x["type"] == "ack" for x in m))
        ack = next(x for x in answer if x["type"] == "ack")
        assert ack["outcome"]["kind"] == "committed" and ack["outcome"]["seq"] == head + applied + 1
        late, welcome = await join(server.port, "late")
        assert welcome["head"] == head + applied + 1
        await late.close()
        await peer.close()

    asyncio.run(scenario())


def test_a_cursor_flood_gets_one_answer_then_is_closed_and_peers_get_coalesced_cursors(server):
    async def scenario():
        flooder, _ = await join(server.port, "flooder")
        peer, _ = await join(server.port, "peer")
        await announced(flooder, 2)
        # Within the limit a cursor reaches the peer (at the next tick).
        await flooder.send(json.dumps({"type": "cursor", "x": 1000, "y": 1}))
        first = await receive_until(peer, lambda m: any(x["type"] == "cursor" for x in m))
        assert first[-1]["x"] == 1000
        for n in range(500):
            await flooder.send(json.dumps({"type": "cursor", "x": n, "y": 1}))
        code, reason, before = await close_of(flooder)
        assert code == 1008 and "rate limit" in reason
        errors = [m for m in before if m["type"] == "error"]
        # One answer per overrun, and one with the close: not one per refused message. A slow
        # machine that sends the flood over more than a token's refill time (1/60 s) lets one
        # through now and then, and each starts a new overrun with its own answer.
        assert {m["code"] for m in errors} == {"rate-limited"}
        assert 2 <= len(errors) <= 6, f"{len(errors)} answers to 500 refused cursors"
        # The peer got at most coalesced cursors (one per tick) of accepted updates, then the leave.
        seen = await receive_until(peer, lambda m: any(x["type"] == "membersChanged" and x["count"] == 1 for x in m))
        cursors = [m for m in seen if m["type"] == "cursor"]
        assert all(m["x"] < 150 for m in cursors), "only the burst (and what refilled) was applied"
        await peer.send(json.dumps({"type": "ping", "ref": "p"}))
        pong = await receive_until(peer, lambda m: any(x["type"] == "pong" for x in m))
        assert pong[-1]["ref"] == "p"
        await peer.close()

    asyncio.run(scenario())
