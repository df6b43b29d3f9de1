"""What the cluster tests share: a private PostgreSQL server, `corkboard serve --store postgres`
nodes as processes, and bots that follow redirects, fail over between entry URLs and remember every
operation they saw acknowledged."""

import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import websockets

from card_clients import ReplicaBot, apply_effect, open_socket, sections_of
from conftest import ROOT, DrainedServe, executable

# apply_effect, open_socket and sections_of are imported from here by the cluster tests too.

SCRIPT = ROOT / "scripts" / "test-postgres.sh"
TIMEOUT = 12.0  # a hello may wait up to 5 s for its board to settle on a node
# A room answers a resent operation from its memory of the last 10,000 outcomes (docs/PROTOCOL.md,
# Resume); an operation acknowledged longer ago than that is a new operation when resent, so the bots
# check only those well inside the window.
REMEMBERED = 9_000
# Liveness as docs/PROTOCOL.md describes it for clients: a ping after 1.5 s of silence, the link given
# up after 5 s (ClusterBot.liveness).
PING_AFTER = 1.5
SILENCE_LIMIT = 5.0
MOVED = 4005  # the close after `redirect`: another node sequences the board now


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "false")


class PostgresServer:
    """A private PostgreSQL server in a temporary folder (scripts/test-postgres.sh), on loopback."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="corkboard-pg-"))
        result = subprocess.run([str(SCRIPT), "start", str(self.folder)], capture_output=True, text=True,
                                 timeout=120)
        if result.returncode != 0:
            message = f"cannot start a PostgreSQL server for the test: {result.stderr.strip()}"
            subprocess.run(["rm", "-rf", str(self.folder)], check=False)
            if in_ci():
                pytest.fail(message)
            pytest.skip(message + " (scripts/install-deps.sh --test installs it)")
        self.url = result.stdout.strip()

    def psql(self, sql: str) -> str:
        """Runs SQL with psql and returns its unaligned output."""
        result = subprocess.run(["psql", self.url, "-X", "-A", "-t", "-c", sql], capture_output=True, text=True,
                                timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def halt(self):
        subprocess.run([str(SCRIPT), "halt", str(self.folder)], check=True, timeout=60)

    def resume(self):
        subprocess.run([str(SCRIPT), "resume", str(self.folder)], check=True, timeout=60)

    def stop(self):
        subprocess.run([str(SCRIPT), "stop", str(self.folder)], check=False, timeout=60)


@pytest.fixture
def postgres():
    server = PostgresServer()
    try:
        yield server
    finally:
        server.stop()


def corkboard(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(executable("CORKBOARD_BIN", "corkboard")), *args], capture_output=True, text=True,
                          timeout=timeout)


# The bots send moves as fast as they are acknowledged and resend their pending ones after every
# kill, all from 127.0.0.1: under the default per-connection rate limits (issue 19) they are closed
# 1008 and the address is throttled, so these nodes lift the limits, as load tests do.
NO_RATE_LIMITS = ("--rate-ops", "0", "--rate-ephemeral", "0")


class Node(DrainedServe):
    """`corkboard serve --store postgres` on a free port."""

    ready_timeout = 30.0
    stop_timeout = 15.0
    health_timeout = 3.0
    what = "node"

    def __init__(self, database: str, data: Path, *extra: str):
        super().__init__([executable("CORKBOARD_BIN", "corkboard"), "serve", "--store", "postgres",
                          "--postgres-url", database, "--port", "0", "--web", ROOT / "web", "--data", data,
                          "--demo", *NO_RATE_LIMITS, *extra])

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def health(self) -> dict:
        """/healthz as JSON (200 or 503), with `httpStatus`; {} when the node does not answer."""
        try:
            return super().health()
        except OSError:
            return {}

    def owns(self, board: str) -> bool:
        return board in self.health().get("ownedBoards", [])


def wait_for(condition, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def owner_of(nodes, board: str):
    """The live node whose /healthz lists the board, if any."""
    for node in nodes:
        if node.alive and node.owns(board):
            return node
    return None


def edit_key(database: str, board: str) -> str | None:
    listed = corkboard("boards", "list", "--json", "--postgres-url", database)
    assert listed.returncode == 0, listed.stderr
    for row in json.loads(listed.stdout):
        if row["id"] == board:
            return re.search(r"key=([^&]+)", row["edit"]).group(1) if "key=" in row["edit"] else None
    return None


def create_board(database: str, board: str) -> str | None:
    """A board made from the demo template in the cluster's database; returns its edit key."""
    created = corkboard("boards", "create", board, "--template", "demo", "--postgres-url", database)
    assert created.returncode == 0, created.stderr
    return edit_key(database, board)


def demo_cluster(postgres, folder: Path, boards, count: int = 3) -> tuple:
    """Migrates the database, creates `boards` from the demo template and starts `count` nodes with
    data folders in `folder`: (board → edit key, the nodes, a function giving the nodes' entry URLs
    now: they change when a test replaces a killed node in the list)."""
    assert corkboard("migrate", "--postgres-url", postgres.url).returncode == 0
    keys = {board: create_board(postgres.url, board) for board in boards}
    nodes = [Node(postgres.url, folder / f"node{n}") for n in range(count)]
    return keys, nodes, lambda: [node.url for node in nodes]


@contextlib.asynccontextmanager
async def running(bots, urls):
    """Runs every bot (`ClusterBot.run`) while the block runs, then stops them and waits for them."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(bot.run(urls, stop)) for bot in bots]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


async def receive(ws, timeout: float = TIMEOUT) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


class ClusterBot(ReplicaBot):
    """A client of one board that moves cards between the two card sections of a demo-template board,
    keeps a replica of them, follows `redirect`s, rotates over the entry URLs when a node is gone, and
    remembers every operation acknowledged as committed (each must come back with the same seq)."""

    def __init__(self, name: str, board: str, key: str | None, entry: int, rng: random.Random):
        super().__init__(name, board, key, rng)
        self.entry = entry
        self.redirect = None
        self.redirects = 0
        self.joined_url = None
        self.acks_after = []  # (monotonic time, seq, node URL) of committed acks, for failover timing
        # With liveness, a link silent for SILENCE_LIMIT is given up (a ping after PING_AFTER) and the
        # next join avoids its node; without, a silent link waits for TIMEOUT.
        self.liveness = False
        self.avoid = None  # the node whose link went silent
        self.joins = []  # (monotonic time, node URL) of every welcome
        # Rejections that are not problems: a store that failed, and whatever the test adds (`locked`
        # when other clients drag the same cards).
        self.tolerated = {"store-failed"}

    async def join(self, urls, deadline: float):
        """Connects and joins, following redirects and trying the next entry URL when one fails."""
        while time.monotonic() < deadline:
            url = self.redirect or urls()[self.entry % len(urls())]
            if self.redirect is None and url == self.avoid and len(urls()) > 1:
                self.entry += 1
                url = urls()[self.entry % len(urls())]
            self.redirect = None
            try:
                ws = await open_socket(url)
            except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake):
                self.entry += 1
                await asyncio.sleep(0.1)
                continue
            try:
                await ws.send(json.dumps(self.hello()))
                while True:
                    message = await receive(ws)
                    if message["type"] == "welcome":
                        self.welcome(message)
                        self.joined_url = url
                        self.joins.append((time.monotonic(), url))
                        return ws
                    if message["type"] == "redirect":
                        self.redirects += 1
                        self.redirect = message.get("url")
                        break
                    if message["type"] == "error":
                        self.problems.append(f"{self.client_id}: hello refused at {url}: {message}")
                        break
            except (websockets.ConnectionClosed, ConnectionError, asyncio.TimeoutError):
                self.entry += 1
            await ws.close()
            if self.redirect is None:
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.client_id} could not join {self.board} (entries {urls()})")

    def welcome(self, message: dict):
        if self.history is not None and message["history"] != self.history:
            self.problems.append(f"{self.client_id}: the board's history changed across nodes")
        super().welcome(message)

    def remembered(self) -> dict:
        """The acknowledged operations the board still remembers (opId → seq), to resend and check."""
        return {op_id: seq for op_id, seq in self.acked.items() if seq > self.last_seq - REMEMBERED}

    def committed_ack(self, seq: int):
        self.acks_after.append((time.monotonic(), seq, self.joined_url))

    async def run(self, urls, stop: asyncio.Event, window: int = 3, verify_every_resume: bool = True):
        """Until `stop`: join, resend what is pending, check every acknowledged operation comes back at
        its seq, then submit moves; after a lost link, join again (R10)."""
        while not stop.is_set():
            try:
                ws = await self.join(urls, time.monotonic() + 60)
            except AssertionError as error:
                self.problems.append(str(error))
                return
            try:
                for message in list(self.pending.values()):
                    await ws.send(json.dumps(message))
                resent = self.remembered() if verify_every_resume else {}
                for op_id in resent:
                    await ws.send(json.dumps(self.sent[op_id]))
                while resent or self.pending:
                    self.handle(await receive(ws, SILENCE_LIMIT if self.liveness else TIMEOUT), resent)
                heard, pinged = time.monotonic(), False
                while not stop.is_set():
                    while len(self.pending) < window:
                        message = self.next_move()
                        self.pending[message["opId"]] = self.sent[message["opId"]] = message
                        await ws.send(json.dumps(message))
                    try:
                        message = await receive(ws, 0.25 if self.liveness else 1.0)
                    except asyncio.TimeoutError:
                        silence = time.monotonic() - heard
                        if self.liveness and silence >= SILENCE_LIMIT:
                            self.avoid = self.joined_url
                            break
                        if self.liveness and silence >= PING_AFTER and not pinged:
                            pinged = True
                            await ws.send(json.dumps({"type": "ping", "ref": "alive"}))
                        continue
                    heard, pinged = time.monotonic(), False
                    self.handle(message, {})
            except (websockets.ConnectionClosed, ConnectionError):
                pass  # the node died, stalled or handed the board over: join again
            except asyncio.TimeoutError:
                # A stalled node (SIGSTOP): join again elsewhere.
                if self.liveness:
                    self.avoid = self.joined_url
            finally:
                await ws.close()

    async def converge(self, urls):
        """Joins one last time, resends everything acknowledged, and settles at the head. When the board
        moves to another node meanwhile (`redirect`, close 4005: a node that was away and is back takes
        the boards that belong on it again), joins again and starts over."""
        deadline = time.monotonic() + 60
        while True:
            ws = await self.join(urls, deadline)
            try:
                await self.settle(ws)
                return
            except websockets.ConnectionClosed as closed:
                if closed.rcvd is None or closed.rcvd.code != MOVED or time.monotonic() > deadline:
                    raise
            finally:
                await ws.close()

    async def settle(self, ws):
        """On a joined link: resends what is pending and what was acknowledged, checks the answers, and
        follows the stream up to the head."""
        for message in list(self.pending.values()):
            await ws.send(json.dumps(message))
        resent = self.remembered()
        for op_id in resent:
            await ws.send(json.dumps(self.sent[op_id]))
        while resent or self.pending:
            self.handle(await receive(ws), resent)
        await ws.send(json.dumps({"type": "ping", "ref": "p"}))
        while True:
            message = await receive(ws)
            if message["type"] == "pong":
                assert message["head"] == self.last_seq, (
                    f"{self.client_id} stopped at {self.last_seq}: {message}; " + "\n".join(self.problems[:10]))
                return
            self.handle(message, {})


async def fresh_snapshot(urls, board: str, key: str | None) -> dict:
    observer = ClusterBot("observer", board, key, 0, random.Random(0))
    observer.client_id = None
    hello = {"type": "hello", "protocol": 1, "board": board, "name": "observer"}
    if key:
        hello["key"] = key
    observer.hello = lambda: hello
    ws = await observer.join(urls, time.monotonic() + 60)
    await ws.close()
    return {"head": observer.last_seq, "sections": observer.replica}
