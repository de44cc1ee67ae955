"""Matchmaking against brute force: every way to seat a small pool, best worst-table quality."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from mindsport.matchmaking import MatchmakingError, count_splits, matchmake, parse_shape, splits


def brute_force(
    ratings: dict[str, Any], sizes: Sequence[int], quality: Callable[[list[tuple[Any, ...]]], float]
) -> float:
    """max over every choice of tables (any members, the rest waiting) of the min table quality,
    where a table's quality is the best over every order of its members cut into ``sizes``."""
    ids = sorted(ratings)
    k = sum(sizes)
    m = len(ids) // k
    if m == 0:
        return -math.inf
    best_split: dict[frozenset[str], float] = {}

    def table(members: tuple[str, ...]) -> float:
        key = frozenset(members)
        if key not in best_split:
            values = []
            for perm in itertools.permutations(members):
                teams, pos = [], 0
                for s in sizes:
                    teams.append(tuple(ratings[p] for p in perm[pos : pos + s]))
                    pos += s
                values.append(quality(teams))
            best_split[key] = max(values)
        return best_split[key]

    def seatings(rest: tuple[str, ...], tables: int) -> Any:
        if tables == 0:
            yield []
            return
        for combo in itertools.combinations(rest, k):
            left = tuple(p for p in rest if p not in combo)
            for tail in seatings(left, tables - 1):
                yield [combo, *tail]

    return max(min(table(t) for t in seating) for seating in seatings(tuple(ids), m))


def check_plan(plan: Any, ratings: dict[str, Any], sizes: Sequence[int]) -> None:
    seated = [p for t in plan.tables for team in t.teams for p in team]
    assert sorted(seated + list(plan.waiting)) == sorted(ratings)
    assert len(seated) == len(set(seated))
    assert len(plan.tables) == len(ratings) // sum(sizes)
    for t in plan.tables:
        assert [len(team) for team in t.teams] == list(sizes)
    assert plan.worst_quality == min(t.quality for t in plan.tables)


@pytest.fixture(scope="module")
def env() -> Any:
    trueskill = pytest.importorskip("trueskill")
    return trueskill.TrueSkill(backend=None)


@pytest.mark.parametrize(
    ("shape", "n"),
    [("1v1", 7), ("1v1", 8), ("2v2", 8), ("1v2", 7), ("ffa4", 8), ((1, 1, 1), 7)],
)
def test_exact_equals_brute_force_with_trueskill_quality(env: Any, shape: Any, n: int) -> None:
    rng = random.Random(n * 31 + len(str(shape)))
    for _ in range(2 if n < 8 else 1):
        ratings = {
            f"x{i}": env.create_rating(rng.uniform(10, 40), rng.uniform(1, 8)) for i in range(n)
        }
        quality = env.quality
        sizes = parse_shape(shape)
        plan = matchmake(ratings, shape, quality)
        assert plan.exact
        check_plan(plan, ratings, sizes)
        for t in plan.tables:  # the reported quality is the quality of the reported teams
            assert t.quality == pytest.approx(
                quality([tuple(ratings[p] for p in tm) for tm in t.teams])
            )
        assert plan.worst_quality == pytest.approx(brute_force(ratings, sizes, quality), abs=1e-12)


def test_exact_equals_brute_force_with_any_quality() -> None:
    rng = random.Random(7)
    for n, shape in [(9, "1v2"), (6, "1v1"), (9, "2v2")]:
        skill = {f"s{i}": rng.randint(0, 50) for i in range(n)}

        def quality(teams: list[tuple[int, ...]]) -> float:
            totals = [sum(t) for t in teams]
            return -float(max(totals) - min(totals))

        plan = matchmake(skill, shape, quality)
        check_plan(plan, skill, parse_shape(shape))
        assert plan.worst_quality == brute_force(skill, parse_shape(shape), quality)


def test_heuristic_on_a_large_pool_is_valid_and_no_worse_than_strength_order(env: Any) -> None:
    rng = random.Random(3)
    ratings = {f"y{i}": env.create_rating(rng.uniform(0, 50), 2.0) for i in range(41)}
    plan = matchmake(ratings, "2v2", env.quality)
    assert not plan.exact
    check_plan(plan, ratings, (2, 2))
    # the starting point of the heuristic (neighbours in strength) is a valid seating too;
    # the swaps only ever raise the worst table
    order = sorted(ratings, key=lambda p: -ratings[p].mu)[:40]
    start = min(
        max(
            env.quality([(ratings[a], ratings[b]), (ratings[c], ratings[d])])
            for a, b, c, d in (
                (t[0], t[1], t[2], t[3]),
                (t[0], t[2], t[1], t[3]),
                (t[0], t[3], t[1], t[2]),
            )
        )
        for t in (order[i : i + 4] for i in range(0, 40, 4))
    )
    assert plan.worst_quality >= start - 1e-12


def test_small_pools_and_bad_shapes() -> None:
    plan = matchmake({"a": 1.0, "b": 2.0, "c": 3.0}, "ffa4", lambda t: 0.0)
    assert plan.tables == () and plan.waiting == ("a", "b", "c") and plan.worst_quality is None
    assert parse_shape("3v3") == (3, 3) and parse_shape("ffa6") == (1,) * 6
    for bad in ("1v", "x", "0v1", [3]):
        with pytest.raises(MatchmakingError, match="shape"):
            parse_shape(bad)


def _canonical(split: Any, sizes: Sequence[int]) -> Any:
    """A split up to swapping teams of equal size."""
    return tuple(
        sorted(
            (
                size,
                tuple(
                    sorted(tuple(sorted(t)) for t, s in zip(split, sizes, strict=True) if s == size)
                ),
            )
            for size in set(sizes)
        )
    )


@pytest.mark.parametrize(
    "sizes", [(1, 1), (1, 2), (2, 2), (1, 1, 1, 1), (2, 1, 2), (3, 3), (2, 2, 2), (1, 2, 3)]
)
def test_splits_are_every_distinct_split_once(sizes: tuple[int, ...]) -> None:
    """Brute force: every ordering of the players cut into the sizes, up to equal teams."""
    members = tuple(range(10, 10 + sum(sizes)))
    got = list(splits(members, sizes))
    assert all([len(t) for t in s] == list(sizes) for s in got)
    assert len({_canonical(s, sizes) for s in got}) == len(got) == count_splits(sizes)
    every = set()
    for perm in itertools.permutations(members):
        split, pos = [], 0
        for size in sizes:
            split.append(perm[pos : pos + size])
            pos += size
        every.add(_canonical(split, sizes))
    assert {_canonical(s, sizes) for s in got} == every


def _counting(quality: Callable[[Any], float]) -> tuple[Callable[[Any], float], list[int]]:
    calls = [0]

    def q(teams: Any) -> float:
        calls[0] += 1
        return quality(teams)

    return q, calls


@pytest.fixture(scope="module")
def fast() -> Any:
    """mindsport's own TrueSkill (its quality is checked against the reference above): the
    exact searches below evaluate thousands of tables."""
    from mindsport.rating import TrueSkill

    return TrueSkill()


@pytest.mark.parametrize(
    ("shape", "n"), [("1v1", 10), ("2v2", 9), ("1v2", 9), ("ffa4", 8), ("3v3", 10), ("2v2v2", 10)]
)
def test_heuristic_against_exact_search(fast: Any, shape: str, n: int) -> None:
    """Where both apply (small pools), the heuristic's seating is valid, never better than the
    exact optimum (which would disprove the exact search), and close to it."""
    sizes = parse_shape(shape)
    ratios = []
    for seed in range(4):
        rng = random.Random(seed * 97 + n)
        ratings = {f"h{i}": fast.rating(rng.uniform(10, 40), rng.uniform(1, 8)) for i in range(n)}
        exact = matchmake(ratings, shape, fast.quality)
        heur = matchmake(ratings, shape, fast.quality, exact_limit=0)
        assert exact.exact and not heur.exact
        check_plan(heur, ratings, sizes)
        assert heur.worst_quality <= exact.worst_quality + 1e-12
        ratios.append(heur.worst_quality / exact.worst_quality)
    assert min(ratios) >= 0.6 and sum(ratios) / len(ratios) >= 0.85, ratios


@pytest.mark.parametrize("shape", ["4v4", "3v3", "2v2v2", "1v2v3"])
def test_split_heuristic_against_every_split(fast: Any, shape: str) -> None:
    """One table: the split heuristic against the best of every split (brute force over every
    ordering for tables of up to 6 players, the enumeration of distinct splits for 4v4, which
    the test above checks against brute force)."""
    sizes = parse_shape(shape)
    for seed in range(5):
        rng = random.Random(seed)
        ratings = {
            f"t{i}": fast.rating(rng.uniform(15, 35), rng.uniform(1, 6)) for i in range(sum(sizes))
        }
        exact = matchmake(ratings, shape, fast.quality)
        heur = matchmake(ratings, shape, fast.quality, exact_splits=0)
        assert exact.exact and not heur.exact
        best = exact.worst_quality
        if sum(sizes) <= 6:
            best = brute_force(ratings, sizes, fast.quality)
            assert exact.worst_quality == pytest.approx(best, abs=1e-12)
        check_plan(heur, ratings, sizes)
        assert heur.worst_quality <= best + 1e-12
        assert heur.worst_quality >= 0.8 * best


def test_work_is_bounded(fast: Any) -> None:
    """Counted quality evaluations, not time: the exact search stays within its stated bound,
    the heuristic within its two starting seatings plus the budget, whatever the pool and
    shape."""
    from mindsport.matchmaking import (
        EXACT_EVALUATIONS,
        EXACT_SPLITS,
        MAX_POOL,
        MAX_TABLE,
        SPLIT_STEPS,
    )

    rng = random.Random(1)
    pool = {f"w{i}": fast.rating(rng.uniform(0, 50), 3.0) for i in range(MAX_POOL)}
    small = dict(list(pool.items())[:12])
    for shape in ("ffa12", "6v6", "4v4", "2v2v2", "1v1"):
        q, calls = _counting(fast.quality)
        plan = matchmake(small, shape, q)
        assert calls[0] <= EXACT_EVALUATIONS, shape
        if plan.exact:
            k = sum(parse_shape(shape))
            assert calls[0] <= math.comb(12, k) * count_splits(parse_shape(shape))
    for shape, budget in (("1v1", 500), ("6v6", 300), ("8v8", 300), ("ffa16", 100)):
        q, calls = _counting(fast.quality)
        plan = matchmake(pool, shape, q, max_evaluations=budget)
        sizes = parse_shape(shape)
        tables = MAX_POOL // sum(sizes)
        splits_n = count_splits(sizes)
        per_table = splits_n if splits_n <= EXACT_SPLITS else SPLIT_STEPS
        assert not plan.exact and len(plan.tables) == tables
        assert calls[0] <= 2 * tables * per_table + budget + 2 * per_table, shape
    past = matchmake(small, "2v2", fast.quality, deadline=0.0)  # out of time at once
    assert not past.exact
    check_plan(past, small, (2, 2))
    with pytest.raises(MatchmakingError, match="at most"):
        matchmake({**pool, "extra": fast.rating()}, "1v1", fast.quality)
    with pytest.raises(MatchmakingError, match="at most"):
        parse_shape("ffa" + str(MAX_TABLE + 1))
    with pytest.raises(MatchmakingError, match="at most"):
        parse_shape("9v9")
    with pytest.raises(MatchmakingError, match="shape"):
        parse_shape("ffa" + "9" * 5000)  # refused on its text, no huge tuple is built
