"""Swiss tables of three: no repeat opponents while a repeat-free split exists (brute force)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.tournament.swiss import repeated_pairs, swiss_round, swiss_schedule


def partitions(players: list[int]) -> Iterator[list[tuple[int, int, int]]]:
    """Every split of ``players`` into unordered tables of three."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for a in range(len(rest)):
        for b in range(a + 1, len(rest)):
            others = [p for i, p in enumerate(rest) if i not in (a, b)]
            for tail in partitions(others):
                yield [(first, rest[a], rest[b]), *tail]


def fewest_repeats(players: list[int], met: dict[int, set[int]]) -> int:
    return min(sum(repeated_pairs(t, met) for t in split) for split in partitions(players))


def check_round(this, players, met) -> None:
    seated = [p for t in this.tables for p in t] + list(this.byes)
    assert sorted(seated) == sorted(players)
    assert len(this.byes) == len(players) % 3
    assert this.repeats == sum(repeated_pairs(t, met) for t in this.tables)
    rest = [p for p in players if p not in this.byes]
    assert this.repeats == fewest_repeats(rest, met)


@pytest.mark.parametrize(
    ("n", "rounds", "seed"), [(6, 4, 0), (9, 5, 1), (9, 5, 2), (12, 6, 3), (7, 5, 4), (11, 5, 5)]
)
def test_no_repeats_while_a_repeat_free_split_exists(n: int, rounds: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    players = list(range(n))
    met: dict[int, set[int]] = {p: set() for p in players}
    byes: dict[int, int] = {p: 0 for p in players}
    for _ in range(rounds):
        standings = list(rng.permutation(n).tolist())
        this = swiss_round(standings, met, byes)
        check_round(this, players, met)  # zero whenever brute force finds a repeat-free split
        for p in this.byes:
            byes[p] += 1
        for t in this.tables:
            for p in t:
                met[p].update(q for q in t if q != p)


def test_schedule_has_no_repeats_early_and_rotates_byes() -> None:
    schedule = swiss_schedule(10, 10, np.random.default_rng(3))
    byes = [p for r in schedule for p in r.byes]
    assert sorted(byes) == list(range(10))  # everyone sits out exactly once
    # rounds 1-2 can always avoid repeats with 9 seated players
    assert schedule[0].repeats == 0 and schedule[1].repeats == 0


def test_best_players_sit_together() -> None:
    r = swiss_round(list("abcdefghi"))
    assert r.tables == (("a", "b", "c"), ("d", "e", "f"), ("g", "h", "i"))


def test_large_field_is_quick_and_repeat_free() -> None:
    schedule = swiss_schedule(600, 6, 11)
    assert all(r.repeats == 0 for r in schedule)
    seen: set[frozenset[int]] = set()
    for r in schedule:
        for t in r.tables:
            for pair in ((t[0], t[1]), (t[0], t[2]), (t[1], t[2])):
                assert frozenset(pair) not in seen
                seen.add(frozenset(pair))


def test_custom_results_drive_standings() -> None:
    def result(table, rng):  # lower id always wins
        order = sorted(table)
        return [3.0 - order.index(p) for p in table]

    schedule = swiss_schedule(9, 2, 0, result)
    winners = {min(t) for t in schedule[0].tables}
    assert set(schedule[1].tables[0]) == winners  # the three table winners meet next


def test_errors() -> None:
    with pytest.raises(MindsportError, match="a table needs three"):
        swiss_round([1, 2])
    with pytest.raises(MindsportError, match="twice"):
        swiss_round([1, 2, 2])
    with pytest.raises(MindsportError, match="rounds must be a positive integer"):
        swiss_schedule(6, 0, 1)


def test_tables_of_two() -> None:
    """Pairs (a two-player game): the best player meets the best he has not met; byes by the
    usual rule; every split of a small field checked against brute force."""
    import itertools

    r = swiss_round(["a", "b", "c", "d"], {"a": {"b"}, "b": {"a"}}, size=2)
    assert r.tables == (("a", "c"), ("b", "d")) and r.repeats == 0
    r = swiss_round(["a", "b", "c", "d", "e"], {}, {"e": 1}, size=2)
    assert r.byes == ("d",) and r.tables == (("a", "b"), ("c", "e"))
    players = list("abcdef")
    met: dict[str, set[str]] = {p: set() for p in players}
    for a, b in [("a", "b"), ("c", "d"), ("e", "f"), ("a", "c"), ("b", "e")]:
        met[a].add(b)
        met[b].add(a)
    r = swiss_round(players, met, size=2)

    def free(split: list[tuple[str, str]]) -> bool:
        return all(b not in met[a] for a, b in split)

    def splits(rest: list[str]) -> list[list[tuple[str, str]]]:
        if not rest:
            return [[]]
        first, others = rest[0], rest[1:]
        return [[(first, q), *s] for q in others for s in splits([x for x in others if x != q])]

    assert any(free(s) for s in splits(players)) and r.repeats == 0
    assert all(b not in met[a] for a, b in r.tables)
    assert sorted(itertools.chain(*r.tables)) == players
    with pytest.raises(MindsportError, match="tables seat two, three or four"):
        swiss_round(players, size=5)


def test_tables_of_four() -> None:
    """Tables of four (mahjong): the fewest repeated pairs over every split of a small field
    (brute force), byes for the players left over by the usual rule."""
    import itertools

    players = [f"p{i}" for i in range(8)]
    met: dict[str, set[str]] = {p: set() for p in players}
    # round one's tables (p0..p3, p4..p7): a repeat-free split must mix them two and two
    for table in (players[:4], players[4:]):
        for a, b in itertools.combinations(table, 2):
            met[a].add(b)
            met[b].add(a)

    def cost(split: list[tuple[str, ...]]) -> int:
        return sum(b in met[a] for t in split for a, b in itertools.combinations(t, 2))

    def splits(rest: list[str]) -> list[list[tuple[str, ...]]]:
        if not rest:
            return [[]]
        first, others = rest[0], rest[1:]
        return [
            [(first, *trio), *s]
            for trio in itertools.combinations(others, 3)
            for s in splits([x for x in others if x not in trio])
        ]

    best = min(cost(s) for s in splits(players))
    r = swiss_round(players, met, size=4)
    assert r.repeats == best == cost(list(r.tables)) == 4
    assert sorted(itertools.chain(*r.tables)) == players
    r = swiss_round([*players, "x", "y", "z"], {}, {"z": 1}, size=4)
    assert r.byes == ("p7", "x", "y") and all(len(t) == 4 for t in r.tables)
