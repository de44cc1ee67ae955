"""The compiled reading of nested lists and tuples, and the block encoder built on it, against
plain Python: lengths and ``id()`` of items, and a block encoded item by item."""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from mindsport._jit import layout as layoutkernels
from mindsport.rating.replay import blocks as batch
from mindsport.rating.replay.blocks import PlayerIndex, encode_columns


class Tup(tuple):  # type: ignore[type-arg]
    """A tuple subclass: not read by the compiled walk."""


def test_layout_is_recognised_here() -> None:
    assert layoutkernels.available()


def walk(teams: list[Any]) -> tuple[list[int], list[int], list[int], int]:
    tpm, sizes, leaves, bad = layoutkernels.walk_teams(id(teams), id(tuple), id(list))
    return tpm.tolist(), sizes.tolist(), leaves.tolist(), bad


def test_walk_teams_reads_lengths_and_identities() -> None:
    rng = np.random.default_rng(5)
    names = [f"p{i}" for i in range(50)] + [None, 7, 2.5]
    for _ in range(30):
        teams: list[Any] = []
        for _ in range(int(rng.integers(0, 12))):
            match = [
                [names[int(k)] for k in rng.integers(0, len(names), int(rng.integers(0, 4)))]
                for _ in range(int(rng.integers(0, 5)))
            ]
            teams.append(tuple(map(tuple, match)) if rng.random() < 0.5 else match)
        want_tpm = [len(m) for m in teams]
        want_sizes = [len(t) for m in teams for t in m]
        want_ids = [id(p) for m in teams for t in m for p in t]
        assert walk(teams) == (want_tpm, want_sizes, want_ids, -1)


@pytest.mark.parametrize(
    ("teams", "bad"),
    [
        ([(("a",), ("b",)), "ab"], 1),  # a match that is a string
        ([(("a",), ("b",)), (("a",), "b")], 1),  # a team that is a string
        ([[["a"]], [Tup(("a",))]], 1),  # a tuple subclass
        ([Tup((("a",),))], 0),
        ([(("a",), ("b",)), ({"a"}, ("b",))], 1),  # a set
    ],
)
def test_walk_teams_stops_at_anything_else(teams: list[Any], bad: int) -> None:
    tpm, sizes, ids, at = walk(teams)
    assert at == bad and tpm == sizes == ids == []


def test_walk_pairs() -> None:
    ranks: list[Any] = [(0, 1), [None, 3, 300], (), (2.5,)]
    counts, leaves, bad = layoutkernels.walk_pairs(id(ranks), id(tuple), id(list))
    assert bad == -1 and counts.tolist() == [2, 3, 0, 1]
    assert leaves.tolist() == [id(r) for rs in ranks for r in rs]
    mixed = [(0,), 5]  # (kept alive while read)
    assert layoutkernels.walk_pairs(id(mixed), id(tuple), id(list))[2] == 1


def reference_block(
    teams: list[Any], ranks: list[Any], weights: list[Any], index: dict[str, int]
) -> tuple[list[int], ...]:
    """The block's arrays item by item, numbering players in a dict by first appearance."""
    team_ptr, player_ptr, players, ws, rank_col = [0], [0], [], [], []
    for match, rs, w in zip(teams, ranks, weights, strict=True):
        team_ptr.append(team_ptr[-1] + len(match))
        for t, team in enumerate(match):
            player_ptr.append(player_ptr[-1] + len(team))
            players += [index.setdefault(p, len(index)) for p in team]
            ws += [1.0] * len(team) if w is None else list(w[t])
            rank_col.append(math.nan if rs[t] is None else float(rs[t]))
    return team_ptr, player_ptr, players, ws, rank_col


def same(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(
        x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("from_players", [0, batch.BY_IDENTITY_PLAYERS])
@pytest.mark.parametrize("compiled", [True, False])
def test_encode_columns_against_item_by_item(
    from_players: int, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Teams as tuples or lists, equal ids as the same or other string objects, ranks small,
    large, None or floats, weights or not; in chunks large and small, with new players among
    old: the encoder gives the arrays a plain loop gives, whichever way it reads them."""
    monkeypatch.setattr(batch, "BY_IDENTITY_PLAYERS", from_players)
    if not compiled:
        monkeypatch.setattr(batch, "WALK_FROM", 10**9)
    rng = np.random.default_rng(11)
    names = [f"n{i}" for i in range(3000)]
    index = PlayerIndex()
    expected: dict[str, int] = {}
    for size in (5, 3000, 70, 9000, 1):
        teams: list[Any] = []
        ranks: list[Any] = []
        weights: list[Any] = []
        for _ in range(size):
            k = int(rng.integers(2, 5))
            picks = rng.choice(len(names), int(rng.integers(k, 2 * k + 1)), replace=False)
            cut = np.sort(rng.choice(np.arange(1, len(picks)), k - 1, replace=False))
            match = [
                [names[i] if rng.random() < 0.7 else "".join(list(names[i])) for i in part]
                for part in np.split(picks, cut)
            ]
            teams.append(tuple(map(tuple, match)) if rng.random() < 0.5 else match)
            kind = rng.random()
            rk: list[Any] = rng.permutation(k).tolist()
            if kind < 0.1:
                rk[0] = None
            elif kind < 0.15:
                rk = [r + 1000 for r in rk]
            elif kind < 0.2:
                rk = [r + 0.5 for r in rk]
            ranks.append(tuple(rk) if rng.random() < 0.5 else rk)
            weights.append(None if rng.random() < 0.8 else [[0.5] * len(t) for t in match])
        times = np.arange(size, dtype=np.float64)
        block = encode_columns(teams, ranks, weights, times, index)
        want = reference_block(teams, ranks, weights, expected)
        assert block.team_ptr.tolist() == want[0]
        assert block.player_ptr.tolist() == want[1]
        assert block.players.tolist() == want[2]
        assert block.weights.tolist() == want[3]
        assert same(block.ranks.tolist(), want[4])
    assert index.ids == list(expected)


def test_encode_columns_of_other_sequences() -> None:
    """Sequences that are not lists (a tuple of matches, a team as a string subclass's list)
    take the Python path with the same result."""
    teams = tuple((("a",), ("b", "c")) for _ in range(100))
    block = encode_columns(teams, [(0, 1)] * 100, [None] * 100, np.zeros(100), PlayerIndex())
    assert block.players.tolist()[:6] == [0, 1, 2, 0, 1, 2] and len(block) == 100


def test_text_layout_is_recognised_here() -> None:
    assert layoutkernels.text_layout() is not None


@pytest.mark.parametrize("length", [1, 7, 8, 9, 15, 16, 17, 40])
def test_text_hash_and_comparison_read_the_characters(length: int) -> None:
    """Equal texts made apart hash and compare equal; a change of any one character, or of the
    length, tells them apart (against Python's own string equality)."""
    lay = layoutkernels.text_layout()
    assert lay is not None
    text = "".join(chr(33 + (7 * i) % 90) for i in range(length))
    copy = "".join(list(text))
    assert copy == text and (copy is not text or length == 1)  # one-character strings: cached
    n = layoutkernels.text_length(id(text), lay)
    assert n == length == layoutkernels.text_length(id(copy), lay)
    assert layoutkernels.text_hash(id(text), n, lay) == layoutkernels.text_hash(id(copy), n, lay)
    assert layoutkernels.same_text(id(text), id(copy), n, lay)
    for i in range(length):
        other = text[:i] + ("~" if text[i] != "~" else "!") + text[i + 1 :]
        assert not layoutkernels.same_text(id(text), id(other), n, lay)
    assert layoutkernels.text_length(id(text + "\u00e9"), lay) == -1  # not ASCII: left out
    assert layoutkernels.text_length(id(np.str_(text)), lay) == -1  # a str subclass: left out


def test_player_index_finds_copies_of_its_ids() -> None:
    """Ids built per appearance (equal strings, different objects), shared ids, non-ASCII ids
    and str subclasses in one look-up: the same indices as a plain dict numbering players in
    order of first appearance."""
    rng = np.random.default_rng(3)
    n_players = batch.BY_IDENTITY_PLAYERS + 500
    names = [f"player-{i}" if i % 5 else f"j\u00fcrgen-{i}" for i in range(n_players)]
    index = PlayerIndex()
    reference: dict[str, int] = {}
    first = names[: batch.BY_IDENTITY_PLAYERS + 100]  # known before: the tables are used
    assert index.codes(first).tolist() == [reference.setdefault(p, len(reference)) for p in first]
    for _ in range(4):
        picks = rng.integers(0, n_players, 6000).tolist()
        ids = [
            "".join(list(names[p])) if k % 3 == 0 else np.str_(names[p]) if k % 7 == 0 else names[p]
            for k, p in enumerate(picks)
        ]
        expected = [reference.setdefault(str(p), len(reference)) for p in ids]
        assert index.codes(ids).tolist() == expected
        built = [[["".join(list(names[p]))], [names[q]]] for p, q in pairwise(picks)]
        got = encode_columns(built, [[0, 1]] * len(built), [None] * len(built),
                             np.zeros(len(built)), index).players  # fmt: skip
        flat = [str(p) for teams in built for team in teams for p in team]
        assert got.tolist() == [reference.setdefault(p, len(reference)) for p in flat]
    assert index.ids == list(reference)
