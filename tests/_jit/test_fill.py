"""Slots set in compiled code (:mod:`mindsport._jit.fill`) against ``setattr``: the same values
read back, the same reference counts (``sys.getrefcount`` of every value, shared ones included),
and nothing written at all when anything is not as the fill needs."""

from __future__ import annotations

import operator
import sys
from typing import Any

import numpy as np
import pytest

from mindsport._jit import fill, layout
from mindsport.match import Match, assemble

pytestmark = pytest.mark.skipif(not fill.available(), reason="slots are set in Python here")


class Three:
    __slots__ = ("a", "b", "c")


class Other:
    __slots__ = ("a", "b", "c")


def fresh(n: int, cls: type = Three) -> list[Any]:
    return [object.__new__(cls) for _ in range(n)]


def columns(n: int) -> tuple[list[Any], list[Any], None]:
    shared_rows = [(i % 3,) for i in range(3)]  # values held by several objects
    return [f"v{i}" * 3 for i in range(n)], [shared_rows[i % 3] for i in range(n)], None


def counts(values: list[Any]) -> list[int]:
    return [sys.getrefcount(v) for v in values]


def test_fill_sets_and_counts_as_setattr_does() -> None:
    n = 500
    a, b, c = columns(n)
    distinct = [*a, *{id(x): x for x in b}.values()]
    start = counts(distinct)
    by_python = fresh(n)
    for o, x, y in zip(by_python, a, b, strict=True):
        o.a, o.b, o.c = x, y, c
    del o, x, y  # the loop's names hold the last values
    after_python = counts(distinct)
    compiled = fill.made(Three, ("a", "b", "c"), (a, b, c), n)
    assert compiled is not None
    assert all(o.a is x and o.b is y and o.c is c for o, x, y in zip(compiled, a, b, strict=True))
    gained = [x - y for x, y in zip(counts(distinct), after_python, strict=True)]
    assert gained == [x - y for x, y in zip(after_python, start, strict=True)]
    del by_python, compiled
    assert counts(distinct) == start  # every reference given back when the objects go


@pytest.mark.parametrize("fault", ["short column", "slot already set", "other class", "tuple"])
def test_nothing_is_written_when_the_fill_cannot_be_done(fault: str) -> None:
    n = 50
    a, b, c = columns(n)
    objs = fresh(n)
    values: tuple[Any, ...] = (a, b, c)
    if fault == "short column":
        values = (a[:-1], b, c)
    elif fault == "slot already set":
        objs[-1].b = "set before"
    elif fault == "other class":
        objs[-1] = object.__new__(Other)
    start = counts(a)
    outer: Any = tuple(objs) if fault == "tuple" else objs
    offsets = layout.slot_offsets(Three, ("a", "b", "c"))
    assert offsets is not None
    ids = np.array([id(v) for v in values], np.int64)  # (c: None, shared by all)
    shared = np.array([False, False, True])
    assert not fill.fill_slots(id(outer), id(Three), offsets, ids, shared, id(list))
    assert counts(a) == start
    for o in objs[:-1]:
        for name in ("a", "b", "c"):
            with pytest.raises(AttributeError):
                getattr(o, name)


def test_assemble_compiled_equals_assemble_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`mindsport.match.assemble` through the fill and through its Python loop: equal
    matches holding the very same value objects."""
    n = 300
    ids = [f"m{i}" for i in range(n)]
    times = [i if i % 2 else float(i) for i in range(n)]
    players = [(f"p{i}",) for i in range(40)]
    teams = [(players[i % 40], players[(i * 7 + 1) % 40]) for i in range(n)]
    ranks = [(0, 1) if i % 3 else (1, 0) for i in range(n)]
    weights = [None if i % 5 else ((1.0,), (0.5,)) for i in range(n)]
    scores = [None if i % 4 else (2.0, 1.0) if i % 3 == 0 else (1.0, 2.0) for i in range(n)]
    compiled = assemble(ids, times, teams, ranks, weights, scores)
    monkeypatch.setattr(fill, "available", lambda: False)
    plain = assemble(ids, times, teams, ranks, weights, scores)
    assert compiled == plain
    fields = ("id", "time", "teams", "ranks", "weights", "scores", "roles", "deal", "luck")
    for x, y in zip(compiled, plain, strict=True):
        assert all(getattr(x, f) is getattr(y, f) for f in fields)
    assert Match("m1", 1, [["p1"], ["p8"]], [0, 1]) == compiled[1]


def test_listed_holds_and_counts_as_a_list_does() -> None:
    values = [f"id{i}" * 2 for i in range(300)] + [None, 7]
    start = counts(values)
    out = fill.listed(np.array([id(v) for v in values], np.int64))
    assert out is not None and out == values and all(map(operator.is_, out, values))
    by_python = list(values)
    assert counts(values)[:300] == [c + 2 for c in start[:300]]  # out and by_python
    del out, by_python
    assert counts(values)[:300] == start[:300]


def test_a_list_not_made_for_it_is_left_alone() -> None:
    values = ["a", "b"]
    for target in ([None, None, None], ["x", None], (None, None)):
        before = counts(values)
        assert not fill.fill_list(
            id(target), np.array([id(v) for v in values], np.int64), id(None), id(list)
        )
        assert counts(values) == before


def test_match_ids_read_from_the_slots_equal_the_attributes() -> None:
    from mindsport.rating.replay.blocks import match_ids

    ms = [Match(f"m{i}-{'x' * (i % 7)}", i, [["a"], ["b"]], [0, 1]) for i in range(3000)]
    got = match_ids(ms)
    assert got == [m.id for m in ms] and all(g is m.id for g, m in zip(got, ms, strict=True))
    sub = type("SubMatch", (Match,), {"__slots__": ()})("s", 1, [["a"], ["b"]], [0, 1])
    mixed = [*ms, sub]  # not read from the slots: through Python
    assert match_ids(mixed) == [*(m.id for m in ms), "s"]


def test_a_value_shared_by_all_is_counted_once_for_each_object() -> None:
    n = 40
    a, b, _ = columns(n)
    common = object()
    start = sys.getrefcount(common)
    objs = fresh(n)
    offsets = layout.slot_offsets(Three, ("a", "b", "c"))
    assert offsets is not None
    ids = np.array([id(a), id(b), id(common)], np.int64)
    assert fill.fill_slots(
        id(objs), id(Three), offsets, ids, np.array([False, False, True]), id(list)
    )
    assert all(o.c is common for o in objs) and sys.getrefcount(common) == start + n
    del objs
    assert sys.getrefcount(common) == start


def test_made_leaves_other_sequences_to_python() -> None:
    a, b, _ = columns(10)
    assert fill.made(Three, ("a", "b", "c"), (tuple(a), b, None), 10) is None
    assert fill.made(Three, ("a", "b", "c"), (a, b, "shared"), 10) is None
    made = fill.made(Three, ("a", "b", "c"), (a, b, None), 10)
    assert made is not None and [o.c for o in made] == [None] * 10
