"""Matchmaking against brute force: every way to seat a small pool, best worst-table quality."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from mindsport.matchmaking import MatchmakingError, matchmake, parse_shape


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
