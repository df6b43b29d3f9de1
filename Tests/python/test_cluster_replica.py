"""The cluster tests' replica bookkeeping (cluster_support.apply_effect), without a server: the
clients of test_cluster*.py compare the replica they build from committed effects with a fresh join,
so it must replay every effect the bots' drops produce, and must notice an operation it never got."""

from cluster_support import apply_effect


def position(section: str, index: int, group: str | None = None) -> dict:
    spot = {"collection": "c", "section": section, "index": index}
    if group is not None:
        spot["group"] = group
    return spot


def committed(seq: int, *changes: dict, kind: str = "move") -> dict:
    return {"seq": seq, "opId": f"op-{seq}", "op": {"kind": kind}, "effect": {"changes": list(changes)}}


def test_a_multi_item_drop_lands_at_its_final_indexes():
    # Y stands before the index X lands at: inserting X first and then moving Y would put X before a.
    replica = {"s": ["y", "a"], "t": ["x"]}
    drop = committed(1, {"item": "x", "from": position("t", 0), "to": position("s", 1)},
                     {"item": "y", "from": position("s", 0), "to": position("s", 2)})
    assert apply_effect(replica, drop) is None
    assert replica == {"s": ["a", "x", "y"], "t": []}


def test_items_dropped_into_a_group_leave_the_top_level_and_come_back_out_of_it():
    replica = {"s": ["a", "b", "c"]}
    into = committed(1, {"item": "b", "from": position("s", 1), "to": position("s", 0, group="a")},
                     {"item": "c", "from": position("s", 2), "to": position("s", 1, group="a")})
    assert apply_effect(replica, into) is None
    assert replica == {"s": ["a"]}
    out = committed(2, {"item": "c", "from": position("s", 1, group="a"), "to": position("s", 0)})
    assert apply_effect(replica, out) is None
    assert replica == {"s": ["c", "a"]}


def test_items_leaving_for_untracked_sections_or_the_board_go_and_copies_arrive():
    replica = {"s": ["a", "b", "c"]}
    assert apply_effect(replica, committed(1, {"item": "a", "from": position("s", 0), "to": position("inbox", 0)},
                                           {"item": "c", "from": position("s", 2)})) is None
    assert replica == {"s": ["b"]}
    assert apply_effect(replica, committed(2, {"item": "b:copy", "to": position("s", 0)}, kind="copy")) is None
    assert replica == {"s": ["b:copy", "b"]}


def test_a_missed_operation_shows_at_the_next_one_that_touches_what_it_changed():
    replica = {"s": ["a", "b", "c"], "t": []}
    first = committed(1, {"item": "a", "from": position("s", 0), "to": position("t", 0)})
    second = committed(2, {"item": "b", "from": position("s", 0), "to": position("t", 1)})
    # The first never arrives: the second's `from` does not fit.
    misfit = apply_effect(replica, second)
    assert misfit is not None and "moves b from s index 0" in misfit and "at 1" in misfit, misfit
    # Applied in order, both fit.
    replica = {"s": ["a", "b", "c"], "t": []}
    assert apply_effect(replica, first) is None and apply_effect(replica, second) is None
    assert replica == {"s": ["c"], "t": ["a", "b"]}
