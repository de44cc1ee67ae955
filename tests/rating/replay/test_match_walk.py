"""The compiled reading of Match objects (their slots' addresses) and the encoder of a list of
matches built on it, against plain Python: ``id()`` of each slot's value, and the block that
the Python path (:func:`~mindsport.rating.replay.blocks.encode_columns` of the attributes)
encodes from the same matches into its own player index."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindsport._jit import layout
from mindsport.match import Match
from mindsport.rating.replay import blocks
from mindsport.rating.replay.blocks import (
    PlayerIndex,
    encode_columns,
    encode_matches,
    match_times,
    only_matches,
)

NAMES = ("teams", "ranks", "weights", "id", "time")


class Sub(Match):
    """A Match subclass: not read by the compiled walk."""

    __slots__ = ()


@dataclass
class Lookalike:
    teams: Any
    ranks: Any
    weights: Any = None
    time: float = 0.0


def test_slots_are_found_and_read_by_identity() -> None:
    offsets = layout.slot_offsets(Match, NAMES)
    assert offsets is not None and len(set(offsets.tolist())) == len(NAMES)
    ms = [
        Match("a", 1, [["x"], ["y", "z"]], [0, 1]),
        Match("b", 2.5, [["x"], ["y"]], None, scores=[1, 2], weights=[[1.0], [0.5]]),
    ]
    read, bad = layout.walk_slots(id(ms), id(Match), offsets, id(list))
    assert bad == -1
    assert read.tolist() == [[id(getattr(m, name)) for name in NAMES] for m in ms]


@pytest.mark.parametrize("other", [Sub("s", 1, [["x"], ["y"]], [0, 1]), "m", None, Lookalike(1, 2)])
def test_walk_stops_at_anything_but_a_match(other: Any) -> None:
    offsets = layout.slot_offsets(Match, NAMES)
    assert offsets is not None
    ms = [Match("a", 1, [["x"], ["y"]], [0, 1]), other]
    read, bad = layout.walk_slots(id(ms), id(Match), offsets, id(list))
    assert bad == 1 and read.shape == (0, len(NAMES))
    items = tuple(ms)
    assert layout.walk_slots(id(items), id(Match), offsets, id(list))[1] == 0  # not a list


def test_offsets_of_a_class_without_such_slots() -> None:
    assert layout.slot_offsets(Match, ("teams", "nope")) is None
    assert layout.slot_offsets(Lookalike, ("teams",)) is None  # no __slots__


def python_block(ms: list[Any], index: PlayerIndex, time_unit: float | None = None) -> Any:
    return encode_columns(
        [m.teams for m in ms],
        [m.ranks for m in ms],
        [m.weights for m in ms],
        match_times([m.time for m in ms], time_unit),
        index,
    )


def history(rng: np.random.Generator, n: int, fresh: bool, odd: bool) -> list[Match]:
    """``n`` matches of 2-3 teams of 1-2 players among 300 (ids built per appearance when
    ``fresh``); with ``odd``, some unranked teams, large ranks and scores."""
    names = [f"p{i}" for i in range(300)]
    out = []
    for i in range(n):
        k = int(rng.integers(2, 4))
        who = rng.choice(300, size=2 * k, replace=False).tolist()
        sizes = rng.integers(1, 3, k).tolist()
        teams = [[f"p{p}" if fresh else names[p] for p in who[2 * t : 2 * t + s]]
                 for t, s in enumerate(sizes)]  # fmt: skip
        ranks: list[int | None] = rng.permutation(k).tolist()
        if odd and rng.random() < 0.2:
            ranks[0] = None
        if odd and rng.random() < 0.05:
            ranks = [r if r is None else r + 1000 for r in ranks]
        time = float(i) if rng.random() < 0.5 else i
        out.append(Match(f"m{i}", time, teams, ranks))
    return out


@pytest.mark.parametrize("fresh", [False, True])
@pytest.mark.parametrize("odd", [False, True])
def test_encode_matches_as_the_python_path(fresh: bool, odd: bool) -> None:
    rng = np.random.default_rng(11)
    ms = history(rng, 3000, fresh, odd)
    ours, theirs = PlayerIndex(), PlayerIndex()
    for a in range(0, len(ms), 700):  # several blocks into one index, new players in each
        chunk = ms[a : a + 700]
        got = encode_matches(chunk, ours, 2.0)
        want = python_block(chunk, theirs, 2.0)
        for x, y in zip(got.arrays, want.arrays, strict=True):
            assert np.array_equal(x, y, equal_nan=True)
    assert ours.ids == theirs.ids


def test_encode_matches_takes_the_python_path_when_it_must(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(3)
    plain = history(rng, 200, True, False)
    weighted = [*plain[:100], Match("w", 5, [["p1"], ["p2"]], [0, 1], [[0.5], [1.0]]), *plain[100:]]
    subclassed = [*plain[:100], Sub("s", 5, [["p1"], ["p2"]], [1, 0]), *plain[100:]]
    walked = []
    real = blocks._walked_block
    monkeypatch.setattr(blocks, "_walked_block", lambda *a: walked.append(out := real(*a)) or out)
    for ms, compiled in ((plain, True), (weighted, False), (subclassed, False)):
        walked.clear()
        got = encode_matches(ms, PlayerIndex())
        want = python_block(ms, PlayerIndex())
        assert (walked[0] is not None) == compiled
        for x, y in zip(got.arrays, want.arrays, strict=True):
            assert np.array_equal(x, y, equal_nan=True)


def test_only_matches() -> None:
    ms = [Match(f"m{i}", i, [["a"], ["b"]], [0, 1]) for i in range(100)]
    assert only_matches(ms) and only_matches(ms[:3]) and only_matches([])
    assert only_matches([*ms, Sub("s", 1, [["a"], ["b"]], [0, 1])])  # isinstance, as before
    assert not only_matches([*ms, Lookalike([["a"], ["b"]], [0, 1])])
    assert not only_matches([*ms[:3], "m"])


def test_a_match_with_an_empty_slot_is_left_to_python() -> None:
    ms = [Match(f"m{i}", i, [["a"], ["b"]], [0, 1]) for i in range(100)]
    hollow = object.__new__(Match)  # no field set: reading one raises
    offsets = layout.slot_offsets(Match, NAMES)
    assert offsets is not None
    items = [*ms, hollow]
    assert layout.walk_slots(id(items), id(Match), offsets, id(list))[1] == 100
    with pytest.raises(AttributeError):
        encode_matches(items, PlayerIndex())


def as_bits(values: list[float]) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(2**60) + 1, 2**60 - 1),
            st.floats(allow_nan=True, allow_infinity=True),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_numbers_are_read_as_float_reads_them(values: list[Any]) -> None:
    """Exact floats and ints of up to two digits read in compiled code: the same doubles as
    ``float(x)`` (bit for bit: signed zeros, NaN, the rounding of ints past 2^53)."""
    numbers = layout.number_layout()
    assert numbers is not None
    raw, is_int, bad = layout.read_numbers(np.array([id(v) for v in values], np.int64), numbers)
    assert bad == -1
    assert is_int.tolist() == [isinstance(v, int) for v in values]
    got = np.where(is_int, raw.astype(np.float64), raw.view(np.float64)).tolist()
    assert as_bits(got) == as_bits([float(v) for v in values])


@pytest.mark.parametrize(
    "other", [2**60, -(2**60), 10**30, True, datetime(2026, 1, 1, tzinfo=UTC), "1.5", None]
)
def test_numbers_past_two_digits_and_other_objects_are_left_to_python(other: Any) -> None:
    numbers = layout.number_layout()
    assert numbers is not None
    values = [1.5, 7, other, 2.0]
    assert layout.read_numbers(np.array([id(v) for v in values], np.int64), numbers)[2] == 2


@pytest.mark.parametrize("time_unit", [None, 86400.0])
def test_walked_times_as_the_python_path_and_datetimes_through_python(
    time_unit: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block's times read in compiled code equal :func:`match_times` of the same times; a
    list with a datetime among them is read by Python (the walk still encodes the block)."""
    rng = np.random.default_rng(5)
    numeric = history(rng, 600, True, False)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    dated = [*numeric[:300], Match("d", start, [["p1"], ["p2"]], [0, 1]), *numeric[300:]]
    read = []
    real = blocks._walked_times
    monkeypatch.setattr(blocks, "_walked_times", lambda *a: read.append(out := real(*a)) or out)
    for ms, compiled in ((numeric, True), (dated, False)):
        read.clear()
        got = encode_matches(ms, PlayerIndex(), time_unit)
        want = python_block(ms, PlayerIndex(), time_unit)
        assert (read[0] is not None) == compiled
        assert as_bits(got.times.tolist()) == as_bits(want.times.tolist())
