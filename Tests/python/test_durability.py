"""Issue 7 end to end: `kill -9` under load loses nothing acknowledged, and a database that cannot be
written refuses changes cleanly.

The crash test prints its seed; set CORKBOARD_CRASH_SEED to replay a run (the kill moments and the
bots' moves follow from it; the server's timing does not).
"""

import asyncio
import json
import os
import random
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import websockets

from card_clients import CardDropper, ReplicaBot, card_sections, open_socket, sections_of
from conftest import DataServe, executable

BOARD = "demo"
# The demo template's card collections: cards move between them (both accept corkboard.card).
SECTIONS = card_sections(BOARD)
CARDS = [f"demo-gc{n}" for n in range(1, 11)]
KILLS = 5
BOTS = 4
WINDOW = 4  # operations in flight per bot
ROUND_BUDGET = 1800  # new operations per round at most: 5 rounds stay below the 10,000 outcomes retained
TIMEOUT = 10.0


def db_path(data: Path) -> Path:
    return data / "corkboard.sqlite"


class Server(DataServe):
    """`corkboard serve --demo` on a data folder."""

    def __init__(self, data: Path, *extra: str):
        # The bots submit as fast as they are answered: no rate limit on operations.
        super().__init__(data, "--demo", "--rate-ops", "0", *extra)


def check_store(data: Path):
    """`corkboard check` and SQLite's own integrity check on a data folder (server not running)."""
    result = subprocess.run(
        [str(executable("CORKBOARD_BIN", "corkboard")), "check", "--data", str(data)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, f"corkboard check failed:\n{result.stdout}{result.stderr}"
    assert f"{BOARD}: ok" in result.stdout, result.stdout
    connection = sqlite3.connect(db_path(data))
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        connection.close()


async def receive(ws, timeout: float = TIMEOUT) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


connect = open_socket  # the crash tests' name for it (test_shutdown_storm.py imports it from here)


async def crash_session(client, url: str, started: asyncio.Event, work, silence):
    """One session of a crash test's client: `work(ws)` on a socket to `url` until the server is
    killed (the link drops: nothing wrong). A server that cannot be reached, or one silent for
    TIMEOUT (`silence()` says what was awaited), is one of the client's problems. `started` is set
    however the session ends, so that the round goes on."""
    try:
        ws = await connect(url)
    except OSError as error:
        client.problems.append(f"{client.client_id}: cannot connect: {error}")
        started.set()
        return
    try:
        await work(ws)
    except (websockets.ConnectionClosed, ConnectionError):
        pass  # the server was killed
    except asyncio.TimeoutError:
        client.problems.append(f"{client.client_id}: {silence()}")
    finally:
        started.set()
        await ws.close()


class Bot(ReplicaBot):
    """A client that moves demo cards, keeps a replica of the two card sections, and remembers every
    operation it saw acknowledged as committed."""

    def __init__(self, name: str, rng: random.Random):
        super().__init__(name, BOARD, None, rng)

    async def join(self, ws):
        """Says hello on `ws` and takes the welcome (resuming from the replica's seq)."""
        await ws.send(json.dumps(self.hello()))
        message = await receive(ws)
        while message["type"] != "welcome":
            message = await receive(ws)
        self.welcome(message)

    async def rejoin(self, ws):
        """Joins, then resends what is pending and every operation acknowledged so far, and waits until
        each is answered: a resent opId must come back with its first outcome, at its seq."""
        await self.join(ws)
        for message in list(self.pending.values()):
            await ws.send(json.dumps(message))
        resent = dict(self.acked)
        for op_id in resent:
            await ws.send(json.dumps(self.sent[op_id]))
        while resent or self.pending:
            self.handle(await receive(ws), resent)

    async def session(self, url: str, budget: list, started: asyncio.Event, all_started: asyncio.Event):
        """Resumes, resends what was in flight, resends every acknowledged operation (each must come
        back committed at the same seq), then submits moves until the connection dies."""
        async def work(ws):
            await self.rejoin(ws)
            started.set()
            await all_started.wait()
            while True:
                while len(self.pending) < WINDOW and budget[0] > 0:
                    budget[0] -= 1
                    message = self.next_move()
                    self.pending[message["opId"]] = self.sent[message["opId"]] = message
                    await ws.send(json.dumps(message))
                self.handle(await receive(ws), {})

        await crash_session(self, url, started, work,
                            lambda: f"no message for {TIMEOUT} s (pending {len(self.pending)})")


async def fresh_snapshot(url: str, board: str = BOARD, key: str | None = None) -> dict:
    """The welcome of an observer that joins `board` afresh (no client id, nothing to resume)."""
    hello = {"type": "hello", "protocol": 1, "board": board, "name": "observer"}
    if key is not None:
        hello["key"] = key
    ws = await connect(url)
    try:
        await ws.send(json.dumps(hello))
        message = await receive(ws)
        assert message["type"] == "welcome", message
        return message
    finally:
        await ws.close()


async def run_round(server: Server, bots: list, rng: random.Random, kill: bool) -> float:
    """One round: every bot resumes and verifies, then they all submit until the server is killed
    after a random delay (or, without kill, until they have converged)."""
    budget = [ROUND_BUDGET if kill else 0]
    all_started = asyncio.Event()
    starts = [asyncio.Event() for _ in bots]
    tasks = [asyncio.create_task(bot.session(server.url, budget, started, all_started))
             for bot, started in zip(bots, starts)]
    await asyncio.wait_for(asyncio.gather(*(s.wait() for s in starts)), 60)
    all_started.set()
    delay = rng.uniform(0.05, 1.2)
    if kill:
        await asyncio.sleep(delay)
        server.kill9()
    else:
        # Converge: nothing is pending; every bot pings and must be at the head it is told.
        for bot in bots:
            assert not bot.pending, f"{bot.client_id} still has {len(bot.pending)} operations pending"
        for task in tasks:
            task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return delay


def crash_seed(capsys, test: str) -> int:
    """The random seed of a crash test, printed: CORKBOARD_CRASH_SEED replays it."""
    seed = int(os.environ.get("CORKBOARD_CRASH_SEED", random.randrange(1, 2**31)))
    with capsys.disabled():
        print(f"\n{test} seed {seed} (CORKBOARD_CRASH_SEED={seed} replays it)")
    return seed


def assert_no_problems(clients: list, where: str):
    """What the clients found wrong in the server's answers (the first 20)."""
    problems = [p for client in clients for p in client.problems]
    assert not problems, f"{where}: " + "\n".join(problems[:20])


async def crash_rounds(data: Path, rounds: int, one_round, *server_options: str):
    """The rounds of a crash test: each on a new server on `data` (with `server_options`), which
    `one_round(server, round_number)` kills or leaves running; the server is stopped (or reaped)
    after each, and the store is checked after the last."""
    for round_number in range(rounds):
        server = Server(data, *server_options)
        try:
            await one_round(server, round_number)
        finally:
            server.stop()
    check_store(data)


def test_kill9_under_load_loses_no_acknowledged_operation(tmp_path, capsys):
    seed = crash_seed(capsys, "crash test")
    rng = random.Random(seed)
    data = tmp_path / "data"
    bots = [Bot(f"bot{n}-{seed}", random.Random(rng.random())) for n in range(BOTS)]
    kill_points = []
    started = time.monotonic()

    async def one_round(server: Server, round_number: int):
        kill = round_number < KILLS
        acked_before = sum(len(bot.acked) for bot in bots)
        delay = await run_round(server, bots, rng, kill)
        assert_no_problems(bots, f"seed {seed}, round {round_number}")
        if kill:
            acked = sum(len(bot.acked) for bot in bots)
            kill_points.append((round(delay, 3), acked - acked_before))
            check_store(data)
            return
        # Final round: the bots converged on the server's board.
        observer = await fresh_snapshot(server.url)
        board = sections_of(observer["snapshot"])
        for bot in bots:
            await converge(server.url, bot)
            assert bot.last_seq == observer["head"], f"seed {seed}: {bot.client_id} at {bot.last_seq}"
            assert bot.replica == {k: board[k] for k in SECTIONS}, f"seed {seed}: {bot.client_id} differs"
        cards = sorted(item for section in SECTIONS for item in board[section])
        assert cards == sorted(CARDS), f"seed {seed}: cards were lost or duplicated: {cards}"
        assert observer["head"] >= sum(len(bot.acked) for bot in bots)

    asyncio.run(asyncio.wait_for(crash_rounds(data, KILLS + 1, one_round, "--snapshot-every", "300"), 240))
    total = sum(len(bot.acked) for bot in bots)
    with capsys.disabled():
        print(f"crash test seed {seed}: {len(kill_points)} kill points (delay s, acks in the round): {kill_points}; "
            f"{total} acknowledged operations, all present after every restart; {time.monotonic() - started:.1f} s")
    assert len(kill_points) >= 5
    assert total > 0, f"seed {seed}: no operation was acknowledged at all"


async def converge(url: str, bot: Bot):
    """Resumes the bot one last time and waits until it has everything up to the head."""
    ws = await connect(url)
    try:
        await ws.send(json.dumps(bot.hello()))
        message = await receive(ws)
        while message["type"] != "welcome":
            message = await receive(ws)
        bot.welcome(message)
        await ws.send(json.dumps({"type": "ping", "ref": "p"}))
        while True:
            message = await receive(ws)
            if message["type"] == "pong":
                assert message["head"] == bot.last_seq, f"{bot.client_id} stopped at {bot.last_seq}: {message}"
                return
            bot.handle(message, {})
    finally:
        await ws.close()


# MARK: A database that cannot be written


def immutable(paths, on: bool) -> str | None:
    """`chattr +i`/`-i` on the existing paths; returns chattr's complaint, or None when it worked."""
    existing = [str(p) for p in paths if Path(p).exists()]
    if not existing:
        return None
    result = subprocess.run(["chattr", "+i" if on else "-i", *existing], capture_output=True, text=True)
    return None if result.returncode == 0 else (result.stderr.strip() or f"chattr exited {result.returncode}")


def chattr_problem(folder: Path) -> str | None:
    probe = folder / "chattr-probe"
    probe.write_text("x")
    try:
        problem = immutable([probe], True)
        if problem is None:
            try:
                probe.write_text("y")
                problem = "chattr +i did not stop a write (not root?)"
            except PermissionError:
                pass
        return problem
    finally:
        immutable([probe], False)
        probe.unlink()


@pytest.fixture
def immutable_capable_folder(tmp_path):
    """A folder where `chattr +i` works: under tmp_path, else under /dev/shm (tmpfs supports it too)."""
    problems = []
    for base in [tmp_path, Path("/dev/shm")]:
        if not base.is_dir():
            continue
        folder = Path(tempfile.mkdtemp(prefix="corkboard-immutable-", dir=base))
        problem = chattr_problem(folder)
        if problem is None:
            try:
                yield folder
            finally:
                immutable(list(folder.rglob("*")), False)
                subprocess.run(["rm", "-rf", str(folder)], check=False)
            return
        problems.append(f"{base}: {problem}")
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    message = ("making the database read-only under the server needs `chattr +i` (root, and a file system "
               "with attributes): " + "; ".join(problems))
    if os.environ.get("CI", "").lower() not in ("", "false"):
        pytest.fail(message)
    pytest.skip(message)


def test_read_only_database_refuses_the_drop_and_nobody_sees_it(immutable_capable_folder):
    data = immutable_capable_folder / "data"
    server = Server(data)
    files = [db_path(data), Path(f"{db_path(data)}-wal")]

    async def join(ws, name):
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": BOARD, "name": name, "clientId": name}))
        message = await receive(ws)
        assert message["type"] == "welcome", message
        return message

    async def until(ws, kind, seen):
        while True:
            message = await receive(ws)
            if message["type"] == kind:
                return message
            seen.append(message)

    def move(op_id, base, card, section="demo-found"):
        return {"type": "submit", "ref": op_id, "opId": op_id, "base": base,
                "op": {"kind": "move", "items": [card], "destination": {
                    "collection": SECTIONS[section], "section": section, "index": 0,
                    "intent": "insertAtDestinationIndexPath"}}}

    async def scenario():
        writer = await connect(server.url)
        watcher = await connect(server.url)
        try:
            head = (await join(writer, "writer"))["head"]
            await join(watcher, "watcher")
            assert server.health()["store"] == "ok"

            assert immutable(files, True) is None
            try:
                # A drag and drop of a card: the drop is the operation the store cannot keep.
                await writer.send(json.dumps({"type": "dragBegin", "ref": "d", "session": "s1", "items": ["demo-gc1"]}))
                granted = await until(writer, "dragGranted", [])
                assert granted["granted"] == ["demo-gc1"], granted
                await writer.send(json.dumps({
                    "type": "drop", "ref": "f1", "session": "s1", "opId": "f1", "base": head,
                    "destination": {"collection": "demo-found", "section": "demo-found", "index": 0,
                                    "intent": "insertAtDestinationIndexPath"}}))
                ack = await until(writer, "ack", [])
                assert ack["opId"] == "f1" and ack["ref"] == "f1", ack
                assert ack["outcome"]["kind"] == "rejected", f"a drop the store could not keep was {ack['outcome']}"
                assert ack["outcome"]["code"] == "store-failed", ack
                assert "could not save" in ack["outcome"]["message"], ack

                # The watcher sees no op: anything sent before its pong would have come first.
                await watcher.send(json.dumps({"type": "ping", "ref": "w"}))
                seen = []
                pong = await until(watcher, "pong", seen)
                assert pong["head"] == head
                assert [m for m in seen if m["type"] == "op"] == [], seen
                await writer.send(json.dumps({"type": "sync", "lastSeq": head}))
                synced = await until(writer, "synced", [])
                assert synced["head"] == head and synced.get("ops") == [], synced

                health = server.health()
                assert health["store"].startswith("failing"), health
                assert "read-only" in health["store"], health
                # A node that cannot save says so: a load balancer stops sending it writes.
                assert (health["httpStatus"], health["status"]) == (503, "degraded"), health
                # A plain submit is refused the same way.
                await writer.send(json.dumps(move("f2", head, "demo-gc2")))
                ack = await until(writer, "ack", [])
                assert ack["outcome"]["code"] == "store-failed", ack
            finally:
                assert immutable(files, False) is None

            # Writable again: /healthz recovers by itself (the store probes), before any new write.
            deadline = time.monotonic() + 5
            while server.health()["status"] != "ok" and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            health = server.health()
            assert (health["httpStatus"], health["status"], health["store"]) == (200, "ok", "ok"), health

            # The next operation commits and the watcher sees it.
            await writer.send(json.dumps(move("f3", head, "demo-gc3")))
            ack = await until(writer, "ack", [])
            assert ack["outcome"]["kind"] == "committed" and ack["outcome"]["seq"] == head + 1, ack
            op = await until(watcher, "op", [])
            assert op["opId"] == "f3" and op["seq"] == head + 1, op
            assert server.health()["store"] == "ok"
        finally:
            await writer.close()
            await watcher.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        immutable(files, False)
        assert server.stop() == 0
    log = "".join(server.lines)
    assert "storing operations failed" in log, log[-3000:]

    # After a restart the refused operations are not there, the one that committed is.
    check_store(data)
    server = Server(data)
    try:
        snapshot = asyncio.run(asyncio.wait_for(fresh_snapshot(server.url), 30))
        board = sections_of(snapshot["snapshot"])
        assert board["demo-found"][0] == "demo-gc3"
        assert "demo-gc1" in board["demo-to-find"] and "demo-gc2" in board["demo-to-find"]
    finally:
        server.stop()


# MARK: kill -9 during moves between boards (R14)

OTHER = "trip"  # a second board made from the demo template: cards trip-gc1 … trip-gc10
CROSS_KILLS = 4
CROSS_BOTS = 4


def test_check_reads_a_store_it_cannot_write(immutable_capable_folder):
    """`corkboard check` opens the store read-only: an immutable file and folder are checked."""
    data = immutable_capable_folder / "data"
    server = Server(data)
    assert server.health()["status"] == "ok"
    server.stop()
    paths = [p for p in data.iterdir()] + [data]
    assert immutable(paths, True) is None
    try:
        result = subprocess.run(
            [str(executable("CORKBOARD_BIN", "corkboard")), "check", "--data", str(data)],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "sqlite integrity: ok" in result.stdout
        assert "demo: ok" in result.stdout
    finally:
        immutable(paths, False)


def all_cards() -> list:
    return [f"{board}-gc{n}" for board in (BOARD, OTHER) for n in range(1, 11)]


def create_other_board(data: Path) -> str:
    """`corkboard boards create trip --template demo`; returns its edit key."""
    corkboard = str(executable("CORKBOARD_BIN", "corkboard"))
    created = subprocess.run([corkboard, "boards", "create", OTHER, "--template", "demo", "--data", str(data)],
                             capture_output=True, text=True, timeout=60)
    assert created.returncode == 0, created.stdout + created.stderr
    listed = subprocess.run([corkboard, "boards", "list", "--json", "--data", str(data)],
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    link = next(b for b in json.loads(listed.stdout) if b["id"] == OTHER)["edit"]
    return link.split("key=", 1)[1]


class Mover(CardDropper):
    """A client on one board that drags its cards, one at a time, onto the other board and
    remembers every drop acknowledged as committed (opId → the drop message and the seq)."""

    timeout = TIMEOUT

    def __init__(self, name: str, home: str, away: str, keys: dict, rng: random.Random):
        self.client_id = name
        self.home, self.away, self.keys = home, away, keys
        self.rng = rng
        self.cards = set()  # the cards on the home board, as far as this client knows
        self.acked = {}  # opId → (drop message, seq on the away board)
        self.in_flight = None  # the drop sent and not answered when the server died
        self.resume_token = None
        self.made = 0
        self.problems = []
        self.stopping = False  # set to end the session after the current drop

    def follow(self, message: dict):
        """Keeps `cards` from welcomes and the board's operations."""
        if message["type"] == "welcome":
            self.resume_token = message["resumeToken"]
            self.take_cards(message["snapshot"])
        elif message["type"] == "op":
            self.follow_cards(message)

    async def session(self, url: str, started: asyncio.Event, all_started: asyncio.Event):
        """Joins, resends every acknowledged drop (each must be answered with its first seq) and the
        one in flight, then moves cards to the other board until the connection dies."""
        async def work(ws):
            await ws.send(json.dumps(self.hello()))
            welcome = await receive(ws)
            assert welcome["type"] == "welcome", welcome
            self.follow(welcome)
            for op_id, (drop, seq) in list(self.acked.items()):
                await self.resend_drop(ws, op_id, drop, seq, "after the crash")
            resent = await self.resend_in_flight(ws)
            if resent is not None:
                drop, ack = resent
                if ack["type"] == "ack" and ack["outcome"]["kind"] == "committed":
                    self.acked[drop["opId"]] = (drop, ack["outcome"]["seq"])
            started.set()
            await all_started.wait()
            while not self.stopping:
                dropped = await self.drag_and_drop(ws, idle=0.01)
                if dropped is None:
                    continue
                card, drop, ack = dropped
                if ack["outcome"]["kind"] == "committed":
                    self.acked[drop["opId"]] = (drop, ack["outcome"]["seq"])
                    self.cards.discard(card)
                else:
                    self.problems.append(f"{self.client_id}: drop {drop['opId']} was rejected: {ack['outcome']}")

        await crash_session(self, url, started, work, lambda: f"no answer for {TIMEOUT} s")


async def assert_each_card_on_one_board(url: str, keys: dict, when: str):
    """Every card of both boards stands on exactly one of them, in fresh snapshots (R14)."""
    places = {card: [] for card in all_cards()}
    for board in (BOARD, OTHER):
        for section, items in sections_of((await fresh_snapshot(url, board, keys[board]))["snapshot"]).items():
            for item in items:
                if item in places:
                    places[item].append(f"{board}/{section}")
    misplaced = {card: where for card, where in places.items() if len(where) != 1}
    assert not misplaced, f"{when}: cards not on exactly one board: {misplaced}"


def test_kill9_during_cross_board_moves_loses_nothing(tmp_path, capsys):
    """R14: cards keep moving between two boards while the server is killed with SIGKILL at random
    moments; after every restart each card stands on exactly one board and every acknowledged drop
    is answered with its first seq."""
    seed = crash_seed(capsys, "cross-board crash test")
    rng = random.Random(seed)
    data = tmp_path / "data"
    data.mkdir()
    keys = {BOARD: "any", OTHER: create_other_board(data)}
    movers = [Mover(f"mover{n}-{seed}", *((BOARD, OTHER) if n % 2 == 0 else (OTHER, BOARD)), keys,
                    random.Random(rng.random())) for n in range(CROSS_BOTS)]
    kill_points = []

    async def one_round(server: Server, round_number: int):
        await assert_each_card_on_one_board(server.url, keys, f"seed {seed}, round {round_number}")
        acked_before = sum(len(m.acked) for m in movers)
        all_started = asyncio.Event()
        starts = [asyncio.Event() for _ in movers]
        tasks = [asyncio.create_task(m.session(server.url, s, all_started)) for m, s in zip(movers, starts)]
        await asyncio.wait_for(asyncio.gather(*(s.wait() for s in starts)), 60)
        assert_no_problems(movers, f"seed {seed}, round {round_number}")
        all_started.set()
        if round_number == CROSS_KILLS:
            # The last round ends quietly, and the boards must hold every card once.
            await asyncio.sleep(0.5)
            for mover in movers:
                mover.stopping = True
            await asyncio.wait_for(asyncio.gather(*tasks), 30)
            await assert_each_card_on_one_board(server.url, keys, f"seed {seed}, at the end")
            return
        delay = rng.uniform(0.05, 1.0)
        await asyncio.sleep(delay)
        server.kill9()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert_no_problems(movers, f"seed {seed}, round {round_number}")
        kill_points.append((round(delay, 3), sum(len(m.acked) for m in movers) - acked_before))
        check_store(data)

    # Moves between the boards write both in one transaction, through the journal; a small
    # journal moves its rows into the boards' logs all the time, so kills land in the
    # middle of that too.
    rounds = crash_rounds(data, CROSS_KILLS + 1, one_round, "--snapshot-every", "50", "--journal-fold-rows", "40")
    asyncio.run(asyncio.wait_for(rounds, 240))
    total = sum(len(m.acked) for m in movers)
    with capsys.disabled():
        print(f"cross-board crash test seed {seed}: kill points (delay s, drops acknowledged in the round) "
              f"{kill_points}; {total} acknowledged drops, every card on exactly one board after every restart")
    assert len(kill_points) == CROSS_KILLS
    assert total > 0, f"seed {seed}: no drop was acknowledged at all"
