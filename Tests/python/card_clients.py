"""The clients of demo-template boards that the crash tests (test_durability.py, one server killed
with SIGKILL) and the cluster tests (cluster_support.py, nodes that die, stall and hand boards over)
share: a bot that moves cards between a board's two card sections and keeps a replica of them, and
a mover that drags cards onto another board (R6, R14). Each test adds how it connects and when it
gives up; what a client checks about the answers is written here once."""

import asyncio
import json
import random

import websockets


async def receive(ws, timeout: float) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def until(ws, kind: str, timeout: float = 15.0) -> dict:
    """The next message of a type, skipping the others (peers' updates, membersChanged, …)."""
    while True:
        message = await receive(ws, timeout)
        if message["type"] == kind:
            return message


async def open_socket(url: str):
    return await websockets.connect(url, subprotocols=["corkboard.v1"], open_timeout=5, close_timeout=1,
                                    max_size=None)


def sections_of(snapshot: dict) -> dict:
    """Section id → item ids, from a snapshot's board."""
    return {
        section["id"]: [item["id"] for item in section.get("items", [])]
        for collection in snapshot["board"]["collections"]
        for section in collection["sections"]
    }


def card_sections(board: str) -> dict:
    """The two card sections of a demo-template board (both accept corkboard.card): section id →
    collection id."""
    return {f"{board}-to-find": f"{board}-caches", f"{board}-found": f"{board}-found"}


def apply_effect(replica: dict, committed: dict) -> str | None:
    """Applies a committed operation's effect to `replica` (section id → the ids of its top-level
    items, for the sections it tracks) and returns what did not fit it, if anything.

    An effect's `from` positions are where the items stood before the operation and its `to`
    positions where they stand after it (docs/PROTOCOL.md, Effect): every item that changed leaves
    first, then the arrivals take their final indexes, lowest first. (Inserting each item in turn
    misplaces a multi-item drop whose later items stood before an earlier item's index.) A position
    with `group` is inside a group item, not at the top of its section. Each `from` in a tracked
    section is checked against the replica, so a missed or misapplied operation shows at the first
    operation that touches what it changed. A batch's parts report positions of their own, so a
    batch is not checked, and is replayed exactly only when no item changes twice in it (no client of
    these tests sends one)."""
    changes = committed["effect"]["changes"]
    misfit = None
    if committed.get("op", {}).get("kind") != "batch":
        for change in changes:
            source = change.get("from")
            if source is None or "group" in source or source["section"] not in replica:
                continue
            items = replica[source["section"]]
            if source["index"] >= len(items) or items[source["index"]] != change["item"]:
                where = items.index(change["item"]) if change["item"] in items else "nowhere"
                misfit = (f"moves {change['item']} from {source['section']} index {source['index']}, where the "
                          f"replica has it at {where}: an earlier operation was missed or misapplied")
                break
    for change in changes:
        for items in replica.values():
            if change["item"] in items:
                items.remove(change["item"])
    arrivals = [change for change in changes
                if change.get("to") is not None and "group" not in change["to"] and change["to"]["section"] in replica]
    for change in sorted(arrivals, key=lambda change: change["to"]["index"]):
        replica[change["to"]["section"]].insert(change["to"]["index"], change["item"])
    return misfit


class ReplicaBot:
    """A client of one demo-template board that moves its cards between the board's two card
    sections, keeps a replica of them from the welcome's snapshot and every committed operation, and
    remembers every operation acknowledged as committed: resent later, each must come back with its
    first outcome, at the same seq (R10)."""

    def __init__(self, name: str, board: str, key: str | None, rng: random.Random):
        self.client_id = name
        self.board = board
        self.key = key
        self.rng = rng
        self.sections = card_sections(board)
        self.cards = [f"{board}-gc{n}" for n in range(1, 11)]
        self.last_seq = None
        self.replica = {}
        self.acked = {}  # opId → seq of every committed ack seen
        self.pending = {}  # opId → submit message sent and not answered yet
        self.sent = {}  # opId → the submit message, to resend it verbatim
        self.problems = []
        self.made = 0
        self.resume_token = None
        self.history = None
        # Rejections that are not problems (none unless a test adds them).
        self.tolerated = set()

    def hello(self) -> dict:
        message = {"type": "hello", "protocol": 1, "board": self.board, "name": self.client_id,
                   "clientId": self.client_id}
        if self.key:
            message["key"] = self.key
        if self.last_seq is not None:
            message["lastSeq"] = self.last_seq
            message["history"] = self.history
        if self.resume_token is not None:
            # Only the holder of the welcome's token may resume a client id the room knows. Tokens
            # derive from a secret in the store, so they outlive a restart.
            message["resumeToken"] = self.resume_token
        return message

    def apply(self, committed: dict):
        seq = committed["seq"]
        if seq <= self.last_seq:
            return
        if seq != self.last_seq + 1:
            self.problems.append(f"{self.client_id}: seq {seq} arrived after {self.last_seq}")
        misfit = apply_effect(self.replica, committed)
        if misfit:
            self.problems.append(f"{self.client_id}: seq {seq} {misfit}")
        self.last_seq = seq

    def welcome(self, message: dict):
        self.resume_token = message["resumeToken"]
        self.history = message["history"]
        if message.get("snapshot") is not None:
            if self.last_seq is not None and message["head"] < self.last_seq:
                self.problems.append(
                    f"{self.client_id}: the board went back from {self.last_seq} to {message['head']}")
            self.replica = {k: v for k, v in sections_of(message["snapshot"]).items() if k in self.sections}
            self.last_seq = message["head"]
        # On resume, the operations after lastSeq; some may be this bot's own whose ack was lost with
        # its link (they are still pending, resent, and answered with their first outcome).
        for committed in message.get("ops") or []:
            self.apply(committed)

    def next_move(self) -> dict:
        self.made += 1
        card = self.rng.choice(self.cards)
        target = self.rng.choice(list(self.sections))
        length = len([item for item in self.replica.get(target, []) if item != card])
        op_id = f"{self.client_id}-{self.made}"
        return {
            "type": "submit", "ref": op_id, "opId": op_id, "base": self.last_seq,
            "op": {"kind": "move", "items": [card], "destination": {
                "collection": self.sections[target], "section": target, "index": self.rng.randint(0, length),
                "intent": "insertAtDestinationIndexPath"}},
        }

    def committed_ack(self, seq: int):
        """Called for every committed ack of a new operation (a hook for timing; nothing here)."""

    def handle(self, message: dict, resent: dict):
        """Follows one message; `resent` holds the acknowledged operations sent again (opId → seq),
        each of which must be answered committed at its first seq."""
        kind = message["type"]
        if kind == "op":
            self.apply(message)
        elif kind == "ack":
            op_id = message["opId"]
            outcome = message["outcome"]
            if op_id in resent:
                expected = resent.pop(op_id)
                if outcome.get("kind") != "committed" or outcome.get("seq") != expected:
                    self.problems.append(
                        f"{self.client_id}: {op_id} was acknowledged at seq {expected}; resent later (after a "
                        f"crash or a failover), the server answered {outcome}")
                return
            self.pending.pop(op_id, None)
            if outcome["kind"] == "committed":
                if op_id in self.acked and self.acked[op_id] != outcome["seq"]:
                    self.problems.append(f"{self.client_id}: {op_id} acked at {self.acked[op_id]} and {outcome['seq']}")
                self.acked[op_id] = outcome["seq"]
                self.committed_ack(outcome["seq"])
                self.apply(outcome)
            elif outcome.get("code") not in self.tolerated:
                self.problems.append(f"{self.client_id}: {op_id} was rejected: {outcome}")
        elif kind == "error":
            self.problems.append(f"{self.client_id}: error {message}")


class CardDropper:
    """What a client needs to drag the cards of its home board, one at a time, onto the away board
    (a drop with `board`, R6) and to resend its drops after the server or node behind it died: each
    drop acknowledged as committed must be answered again with its first seq (R14).

    A mixin: the class that uses it sets `client_id`, `home`, `away`, `keys` (board → edit key),
    `rng`, `made`, `problems`, `resume_token`, `cards` (the home board's cards, as far as this client
    knows), `in_flight` (the drop sent and not answered yet) and `timeout` (how long a message may
    take), and defines `follow(message)`, which sees every message `answer` reads."""

    def hello(self) -> dict:
        # No lastSeq: every welcome carries a snapshot, which the home cards are read from.
        message = {"type": "hello", "protocol": 1, "board": self.home, "name": self.client_id,
                   "clientId": self.client_id, "key": self.keys[self.home]}
        if self.resume_token is not None:
            message["resumeToken"] = self.resume_token
        return message

    def take_cards(self, snapshot: dict):
        """The home cards from a welcome's snapshot."""
        self.cards = {item for section, items in sections_of(snapshot).items()
                      if section in card_sections(self.home) for item in items}

    def follow_cards(self, operation: dict):
        """The home cards after one of the home board's operations."""
        for change in operation["effect"]["changes"]:
            to = change.get("to")
            if to is not None and to["section"] in card_sections(self.home):
                self.cards.add(change["item"])
            else:
                self.cards.discard(change["item"])

    async def answer(self, ws, kinds: tuple, ref: str) -> dict:
        """Reads (and follows) messages until one of `kinds` with `ref`."""
        while True:
            message = await receive(ws, self.timeout)
            self.follow(message)
            if message["type"] in kinds and message.get("ref") == ref:
                return message

    async def resend_in_flight(self, ws):
        """Resends the drop that was in flight, if any: either it happened (answered committed) or it
        did not (its drag is gone); both are fine. Returns (drop, answer), or None."""
        if self.in_flight is None:
            return None
        drop, self.in_flight = self.in_flight, None
        await ws.send(json.dumps(drop))
        return drop, await self.answer(ws, ("ack", "error"), drop["ref"])

    async def resend_drop(self, ws, op_id: str, drop: dict, seq: int, when: str):
        """Resends an acknowledged drop: it must be answered committed at `seq` on the away board."""
        await ws.send(json.dumps(drop))
        ack = await self.answer(ws, ("ack", "error"), drop["ref"])
        outcome = ack.get("outcome", {})
        if ack["type"] != "ack" or outcome.get("kind") != "committed" or outcome.get("seq") != seq:
            self.problems.append(f"{self.client_id}: drop {op_id} was acknowledged at {self.away} seq {seq}; "
                                 f"resent {when}, the server answered {ack}")

    async def drag_and_drop(self, ws, idle: float):
        """Drags one home card and drops it on the away board; returns (card, drop, ack), or None when there
        is no card to drag (after a ping and `idle` seconds) or the card's drag was refused (another
        client holds it: the drag is ended)."""
        if not self.cards:
            await ws.send(json.dumps({"type": "ping", "ref": "idle"}))
            await self.answer(ws, ("pong",), "idle")
            await asyncio.sleep(idle)
            return None
        self.made += 1
        op_id = f"{self.client_id}-x{self.made}"
        card = self.rng.choice(sorted(self.cards))
        await ws.send(json.dumps({"type": "dragBegin", "ref": op_id, "session": op_id, "items": [card]}))
        granted = await self.answer(ws, ("dragGranted",), op_id)
        if granted["granted"] != [card]:
            await ws.send(json.dumps({"type": "dragEnd", "session": op_id}))
            return None
        section = self.rng.choice(list(card_sections(self.away)))
        drop = {"type": "drop", "ref": op_id, "session": op_id, "opId": op_id, "base": 0,
                "board": self.away, "key": self.keys[self.away],
                "destination": {"collection": card_sections(self.away)[section], "section": section,
                                "index": self.rng.randint(0, 3), "intent": "insertAtDestinationIndexPath"}}
        self.in_flight = drop
        await ws.send(json.dumps(drop))
        ack = await self.answer(ws, ("ack",), op_id)
        self.in_flight = None
        return card, drop, ack
