"""Issue 18 end to end, across nodes: drops between boards sequenced by two different nodes stay all
or nothing (R14) while their owners are killed (kill -9, the seed is printed; CORKBOARD_CLUSTER_SEED
replays it), the activity entry of each drop stored on the board it went to, and the Swift client
tools (`corkboard-bot`, `corkboard-load`) given several `--url`s follow redirects to the boards' nodes.
"""

import asyncio
import json
import os
import random
import subprocess
import time

import websockets

from card_clients import CardDropper
from cluster_support import (REMEMBERED, TIMEOUT, ClusterBot, Node, corkboard, demo_cluster, fresh_snapshot,
                             owner_of, postgres, wait_for)
from conftest import executable

__all__ = ["postgres"]  # the fixture
MOVE_KILLS = 2


def holders(nodes) -> dict:
    """board → the live node whose /healthz lists it, reading each node's /healthz once."""
    return {board: node for node in nodes if node.alive for board in node.health().get("ownedBoards", [])}


def owners(nodes, boards) -> dict:
    """board → the live node holding it, once every board has one (else {})."""
    held = holders(nodes)
    found = {board: held.get(board) for board in boards}
    return found if all(found.values()) else {}


def split_pair(nodes, boards) -> tuple | None:
    """Two of `boards` that two different live nodes hold now, if any (a node that starts first
    claims every board, then hands over those that belong on the nodes that joined)."""
    held = holders(nodes)
    placed = [board for board in boards if board in held]
    other = next((board for board in placed if held[board] is not held[placed[0]]), None)
    return (placed[0], other) if other else None


class ClusterMover(CardDropper, ClusterBot):
    """A client of one board that drags its cards, one at a time, onto a board another node
    sequences, following redirects, and remembers every drop acknowledged as committed (opId → the
    drop message and its seq on the other board)."""

    timeout = TIMEOUT

    def __init__(self, name: str, home: str, away: str, keys: dict, entry: int, rng: random.Random):
        super().__init__(name, home, keys[home], entry, rng)
        self.home, self.away, self.keys = home, away, keys
        self.cards = set()  # the cards on the home board, as far as this client knows
        self.drops = {}  # opId → (drop message, seq on the away board)
        self.in_flight = None  # the drop sent and not answered when its node died
        self.rejected = {}  # rejection code → count (a destination node that died mid-move: nothing moved)
        self.reasons = {}  # the start of each rejection's message → count

    def welcome(self, message: dict):
        self.resume_token = message["resumeToken"]
        self.last_seq = message["head"]
        self.take_cards(message["snapshot"])

    def follow(self, message: dict):
        if message["type"] == "op":
            self.last_seq = message["seq"]
            self.follow_cards(message)
        elif message["type"] == "redirect":
            self.redirect = message.get("url")

    def outcome(self, drop: dict, ack: dict):
        outcome = ack.get("outcome", {})
        if ack["type"] == "ack" and outcome.get("kind") == "committed":
            self.drops[drop["opId"]] = (drop, outcome["seq"])
            return
        code = outcome.get("code") or ack.get("code")
        # A destination whose node died before the move was decided: nothing moved, which the
        # final census checks. Anything else is a refusal the test did not expect.
        if code in ("gone", "store-failed", "unknown-session"):
            self.rejected[code] = self.rejected.get(code, 0) + 1
            reason = (outcome.get("message") or ack.get("message") or "")[:60]
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        else:
            self.problems.append(f"{self.client_id}: drop {drop['opId']} was refused: {ack}")

    async def session(self, urls, stop: asyncio.Event, away_head):
        """Joins (following redirects), resends the drop in flight and the acknowledged drops the
        other board still remembers (each must be answered with its first seq), then moves cards to
        the other board until `stop` or until the connection dies."""
        ws = await self.join(urls, time.monotonic() + 60)
        try:
            resent = await self.resend_in_flight(ws)
            if resent is not None:
                self.outcome(*resent)
            head = away_head()
            for op_id, (drop, seq) in list(self.drops.items()):
                if seq > head - REMEMBERED:
                    await self.resend_drop(ws, op_id, drop, seq, "after a failover")
            while not stop.is_set():
                dropped = await self.drag_and_drop(ws, idle=0.02)
                if dropped is not None:
                    _, drop, ack = dropped
                    self.outcome(drop, ack)
        except (websockets.ConnectionClosed, ConnectionError, asyncio.TimeoutError):
            pass  # the node died or gave the board up: join again
        finally:
            await ws.close()

    async def run(self, urls, stop: asyncio.Event, away_head):
        while not stop.is_set():
            try:
                await self.session(urls, stop, away_head)
            except AssertionError as error:
                self.problems.append(str(error))
                return


async def census(urls, boards, keys) -> dict:
    """card → the board sections it stands on, from fresh joins of both boards."""
    places = {f"{board}-gc{n}": [] for board in boards for n in range(1, 11)}
    heads = {}
    for board in boards:
        seen = await fresh_snapshot(urls, board, keys[board])
        heads[board] = seen["head"]
        for section, items in seen["sections"].items():
            for item in items:
                places.setdefault(item, []).append(f"{board}/{section}")
    return places, heads


def test_moves_between_boards_of_two_nodes_stay_all_or_nothing_under_kills(postgres, tmp_path, capsys):
    """R14 across nodes: cards keep moving between two boards that two different nodes sequence while
    the owner of one or the other is killed with SIGKILL; every card ends on exactly one board, every
    acknowledged drop is answered with its first seq when resent, and the database checks out."""
    seed = int(os.environ.get("CORKBOARD_CLUSTER_SEED", random.randrange(1, 2**31)))
    with capsys.disabled():
        print(f"\ncluster move test seed {seed} (CORKBOARD_CLUSTER_SEED={seed} replays it)")
    rng = random.Random(seed)
    # Eight boards over three nodes with random ids: all eight land on one node once in 2,000 runs.
    candidates = [f"m{n}" for n in range(8)]
    keys, nodes, urls = demo_cluster(postgres, tmp_path, candidates)
    kills = []
    try:
        pair = wait_for(lambda: split_pair(nodes, candidates), 90, "two boards held by different nodes")
        left, right = pair
        heads = {left: 0, right: 0}
        movers = [ClusterMover(f"mover{n}-{seed}", *((left, right) if n % 2 == 0 else (right, left)), keys, n,
                               random.Random(rng.random())) for n in range(4)]

        async def scenario():
            stop = asyncio.Event()
            tasks = [asyncio.create_task(m.run(urls, stop, lambda m=m: heads[m.away])) for m in movers]
            try:
                await asyncio.to_thread(wait_for, lambda: sum(len(m.drops) for m in movers) >= 20, 60,
                                        "some drops across nodes")
                for kill in range(MOVE_KILLS):
                    await asyncio.sleep(rng.uniform(0.5, 2.0))
                    victim_board = rng.choice(pair)
                    victim = await asyncio.to_thread(wait_for, lambda: owner_of(nodes, victim_board), 20,
                                                     f"an owner of {victim_board}")
                    drops = sum(len(m.drops) for m in movers)
                    victim.kill9()
                    kills.append((victim_board, drops))
                    index = nodes.index(victim)
                    nodes[index] = await asyncio.to_thread(Node, postgres.url, tmp_path / f"node{index}-{kill}")
                    # The movers carry on on the new owners.
                    await asyncio.to_thread(wait_for, lambda: sum(len(m.drops) for m in movers) > drops + 5, 60,
                                            f"drops after kill {kill + 1}")
            finally:
                stop.set()
                await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
            problems = [p for m in movers for p in m.problems]
            assert not problems, f"seed {seed}: " + "\n".join(problems[:20])
            places, seen = await census(urls, pair, keys)
            heads.update(seen)
            misplaced = {card: where for card, where in places.items() if len(where) != 1}
            assert not misplaced, f"seed {seed}: cards not on exactly one board: {misplaced}"
            # Every acknowledged drop, resent once more, is answered with its first seq.
            final = asyncio.Event()
            final.set()
            for mover in movers:
                await mover.session(urls, final, lambda m=mover: heads[m.away])
            problems = [p for m in movers for p in m.problems]
            assert not problems, f"seed {seed}: " + "\n".join(problems[:20])

        asyncio.run(asyncio.wait_for(scenario(), 200))
        checked = corkboard("check", "--postgres-url", postgres.url)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        for board in pair:
            assert f"{board}: ok" in checked.stdout, checked.stdout
        # The insert half of every acknowledged drop has its activity entry on the board it went to (issue 43):
        # the destination's node sent it with its operations, and the source's transaction wrote it.
        for board in pair:
            stored = {int(seq) for seq in postgres.psql(
                f"SELECT string_agg(seq::text, ',') FROM corkboard_activity WHERE board = '{board}'").split(",") if seq}
            assert stored, f"seed {seed}: no activity stored for {board}"
            arrived = [seq for m in movers if m.away == board for _, seq in m.drops.values() if seq >= min(stored)]
            missing = sorted(set(arrived) - stored)
            assert not missing, f"seed {seed}: drops onto {board} without their activity entries at seqs {missing}"
        total = sum(len(m.drops) for m in movers)
        rejected, reasons = {}, {}
        for mover in movers:
            for code, count in mover.rejected.items():
                rejected[code] = rejected.get(code, 0) + count
            for reason, count in mover.reasons.items():
                reasons[reason] = reasons.get(reason, 0) + count
        with capsys.disabled():
            print(f"cluster move test seed {seed}: boards {left} and {right} on two nodes; kills (board, drops "
                  f"acknowledged before) {kills}; {total} acknowledged drops, refused {rejected} {reasons}; every card "
                  f"on exactly one board")
        assert len(kills) == MOVE_KILLS
    finally:
        for node in nodes:
            node.stop()


def test_swift_bots_and_load_tool_follow_redirects_over_several_entry_urls(postgres, tmp_path):
    """`corkboard-bot` and `corkboard-load` given every node's URL, the node that does not hold the
    board first: they follow the redirects, and their replicas match the board's."""
    keys, nodes, _ = demo_cluster(postgres, tmp_path, ["swift", "load-0000", "load-0001", "load-0002"])
    try:
        held = wait_for(lambda: owners(nodes, list(keys)), 30, "every board held by a node")
        # Entry URLs with a node that does not sequence `swift` first: every client is redirected.
        entries = sorted(nodes, key=lambda node: node is held["swift"])
        urls = sum((["--url", node.url] for node in entries), [])
        bots = subprocess.run(
            [str(executable("CORKBOARD_BOT_BIN", "corkboard-bot")), *urls, "--board", "swift", "--key",
             keys["swift"], "--bots", "3", "--duration", "3", "--seed", "5", "--json"],
            capture_output=True, text=True, timeout=120)
        assert bots.returncode == 0, bots.stdout[-3000:] + bots.stderr[-3000:]
        summary = json.loads(bots.stdout)
        assert summary["passed"] is True and summary["committed"] > 0, summary
        assert summary["divergences"] == 0 and summary["invariantViolations"] == 0, summary
        assert summary["check"]["compared"] == 3, summary
        board_list = tmp_path / "boards.json"
        listed = corkboard("boards", "list", "--json", "--postgres-url", postgres.url)
        assert listed.returncode == 0, listed.stderr
        board_list.write_text(listed.stdout)
        load = subprocess.run(
            [str(executable("CORKBOARD_LOAD_BIN", "corkboard-load")), "boards", *urls, "--boards", "3",
             "--board-list", str(board_list), "--clients-per-board", "3", "--drag-seconds", "0.3",
             "--cycle-seconds", "0.6", "--duration", "2", "--warmup", "0.6", "--checkers", "3", "--json", "--quiet"],
            capture_output=True, text=True, timeout=120)
        assert load.returncode == 0, load.stdout[-3000:] + load.stderr[-3000:]
        report = json.loads(load.stdout)
        assert report["passed"], report["failures"]
        assert report["boards"] == 3 and report["checkedBoards"] == 3, report
        assert report["seqGaps"] == 0 and report["errors"] == 0, report
        assert report["connections"]["joined"] == report["connections"]["requested"] == 9, report["connections"]
    finally:
        for node in nodes:
            node.stop()
