"""Balanced tables from a pool of waiting players (a pure function over ratings).

Given the players waiting and a table *shape* (team sizes), :func:`matchmake` seats as many full
tables as the pool allows (``len(pool) // table_size``; the rest keep waiting) so that the
**worst table's quality is as high as possible** (a bottleneck objective: nobody gets a hopeless
game so that others can get perfect ones). Within a table the players are also split into teams
in the best way (for ``1v2``: who is the landlord).

Shapes: ``"1v1"``, ``"2v2"``, ``"1v2"`` (one landlord against two farmers, Dou Dizhu), ``"ffa4"``
(four-player free-for-all, mahjong), or any sequence of team sizes such as ``(1, 1, 1)``.

Pools of up to ``exact_limit`` players (default 12) are solved exactly by branch and bound over
partitions; larger pools get a heuristic (tables of neighbours in strength, then swaps that lift
the worst table) with no optimality guarantee.

``quality(teams) -> float`` is any match-quality function (higher is better) that does not change
when two teams of the same size swap places, e.g. ``TrueSkill().quality``.

>>> skill = {"a": 1.0, "b": 2.0, "c": 8.0, "d": 9.0}
>>> q = lambda teams: -abs(sum(skill[p] for p in teams[0]) - sum(skill[p] for p in teams[1]))
>>> plan = matchmake({p: p for p in skill}, "1v1", q)
>>> sorted(sorted(p for team in t.teams for p in team) for t in plan.tables)
[['a', 'b'], ['c', 'd']]
>>> plan.worst_quality
-1.0
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mindsport.errors import MindsportError

__all__ = ["SHAPES", "MatchmakingError", "Pairing", "Table", "matchmake", "parse_shape"]

R = TypeVar("R")

SHAPES: dict[str, tuple[int, ...]] = {
    "1v1": (1, 1),
    "2v2": (2, 2),
    "1v2": (1, 2),
    "ffa4": (1, 1, 1, 1),
}


class MatchmakingError(MindsportError):
    """A pool or shape matchmaking cannot use (names the input)."""


@dataclass(frozen=True, slots=True)
class Table:
    """One seated game: teams of player ids, in the order of the shape, and its quality."""

    teams: tuple[tuple[str, ...], ...]
    quality: float


@dataclass(frozen=True, slots=True)
class Pairing:
    """The tables seated (worst first), the players still waiting, the worst table's quality."""

    tables: tuple[Table, ...]
    waiting: tuple[str, ...]
    worst_quality: float | None
    exact: bool


def parse_shape(shape: str | Sequence[int]) -> tuple[int, ...]:
    """Team sizes of a shape name (``"1v2"``) or a sequence of sizes.

    >>> parse_shape("1v2"), parse_shape("3v3"), parse_shape([1, 1, 1])
    ((1, 2), (3, 3), (1, 1, 1))
    """
    if isinstance(shape, str):
        if shape in SHAPES:
            return SHAPES[shape]
        if shape.startswith("ffa") and shape[3:].isdigit():
            sizes: tuple[int, ...] = (1,) * int(shape[3:])
        else:
            parts = shape.split("v")
            if not all(p.isdigit() for p in parts):
                raise MatchmakingError(
                    f"shape {shape!r}: use one of {', '.join(SHAPES)} or sizes like '2v2'"
                )
            sizes = tuple(int(p) for p in parts)
    else:
        sizes = tuple(shape)
    if len(sizes) < 2 or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in sizes):
        raise MatchmakingError(f"shape {shape!r}: need at least two teams of at least one player")
    return sizes


def _arrangements(
    players: tuple[int, ...], sizes: tuple[int, ...]
) -> list[tuple[tuple[int, ...], ...]]:
    """Every split of ``players`` into teams of ``sizes``, up to swapping equal-size teams."""
    out: list[tuple[tuple[int, ...], ...]] = []
    seen: set[tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]] = set()

    def rec(rest: tuple[int, ...], k: int, acc: tuple[tuple[int, ...], ...]) -> None:
        if k == len(sizes):
            key = tuple(
                sorted(
                    (size, tuple(sorted(t for t, s in zip(acc, sizes, strict=True) if s == size)))
                    for size in set(sizes)
                )
            )
            if key not in seen:
                seen.add(key)
                out.append(acc)
            return
        for combo in itertools.combinations(rest, sizes[k]):
            left = tuple(p for p in rest if p not in combo)
            rec(left, k + 1, (*acc, combo))

    rec(players, 0, ())
    return out


def _strength(r: Any) -> float:
    for attr in ("mu", "rating"):
        v = getattr(r, attr, None)
        if isinstance(v, int | float):
            return float(v)
    if isinstance(r, int | float):
        return float(r)
    return 0.0


def matchmake(
    ratings: Mapping[str, R],
    shape: str | Sequence[int],
    quality: Callable[[list[tuple[R, ...]]], float],
    *,
    exact_limit: int = 12,
    strength: Callable[[R], float] | None = None,
    max_rounds: int = 500,
    max_evaluations: int = 4_000,
) -> Pairing:
    """Seat ``ratings`` (player id -> rating) at tables of ``shape`` maximising the worst quality.

    ``strength`` orders players for the heuristic on large pools (default: ``.mu`` or
    ``.rating`` of the rating, or the rating itself when it is a number). The heuristic stops
    after ``max_rounds`` improving swaps or ``max_evaluations`` new tables evaluated, whichever
    comes first, so its time is bounded.
    """
    sizes = parse_shape(shape)
    k = sum(sizes)
    ids = list(ratings)
    for p in ids:
        if not isinstance(p, Hashable) or not isinstance(p, str) or not p:
            raise MatchmakingError(f"player ids are non-empty strings, got {p!r}")
    n = len(ids)
    m = n // k
    if m == 0:
        return Pairing((), tuple(ids), None, True)
    values = [ratings[p] for p in ids]
    cache: dict[tuple[int, ...], tuple[float, tuple[tuple[int, ...], ...]]] = {}

    evaluations = [0]

    def table(members: tuple[int, ...]) -> tuple[float, tuple[tuple[int, ...], ...]]:
        key = tuple(sorted(members))
        hit = cache.get(key)
        if hit is None:
            best_q = -math.inf
            best_arr: tuple[tuple[int, ...], ...] = ()
            for arr in _arrangements(key, sizes):
                q = float(quality([tuple(values[i] for i in team) for team in arr]))
                if math.isnan(q):
                    raise MatchmakingError(f"quality of {arr!r} is not a number")
                if q > best_q or not best_arr:
                    best_q, best_arr = q, arr
            hit = (best_q, best_arr)
            cache[key] = hit
            evaluations[0] += 1
        return hit

    exact = n <= exact_limit
    chosen: list[tuple[int, ...]] = []
    waiting: list[int] = []
    if exact:
        chosen, waiting = _exact(n, k, m, table)
    if not chosen:  # large pool (or every quality -inf): heuristic
        key_fn = strength if strength is not None else _strength
        chosen, waiting = _heuristic(
            n,
            k,
            m,
            table,
            [key_fn(v) for v in values],
            max_rounds,
            evaluations,
            max_evaluations,
        )
        exact = False
    tables = [
        Table(tuple(tuple(ids[i] for i in team) for team in table(members)[1]), table(members)[0])
        for members in chosen
    ]
    tables.sort(key=lambda t: t.quality)
    return Pairing(tuple(tables), tuple(ids[i] for i in sorted(waiting)), tables[0].quality, exact)


TableFn = Callable[[tuple[int, ...]], tuple[float, tuple[tuple[int, ...], ...]]]


def _exact(n: int, k: int, m: int, table: TableFn) -> tuple[list[tuple[int, ...]], list[int]]:
    """Branch and bound over partitions: the lowest unseated player waits or joins a table."""
    best_q = -math.inf
    best: tuple[list[tuple[int, ...]], list[int]] = ([], [])

    def dfs(
        rest: tuple[int, ...],
        skips: int,
        tables: list[tuple[int, ...]],
        waiting: list[int],
        cur: float,
    ) -> None:
        nonlocal best_q, best
        if cur <= best_q:
            return
        if len(tables) == m:
            best_q = cur
            best = (list(tables), waiting + list(rest))
            return
        first, others = rest[0], rest[1:]
        for combo in itertools.combinations(others, k - 1):
            members = (first, *combo)
            q = table(members)[0]
            if q <= best_q:
                continue
            left = tuple(p for p in others if p not in combo)
            tables.append(members)
            dfs(left, skips, tables, waiting, min(cur, q))
            tables.pop()
        if skips > 0:
            waiting.append(first)
            dfs(others, skips - 1, tables, waiting, cur)
            waiting.pop()

    dfs(tuple(range(n)), n - m * k, [], [], math.inf)
    return best


def _heuristic(
    n: int,
    k: int,
    m: int,
    table: TableFn,
    strength: list[float],
    max_rounds: int,
    evaluations: list[int],
    max_evaluations: int,
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Two starts, each improved by swaps out of the worst table while that helps: neighbours in
    strength share a table (best when teams have equal sizes), or each table takes one player
    from each strength tier (better when they do not, e.g. a landlord against two farmers).
    The start with the better worst table after its swaps wins."""
    order = sorted(range(n), key=lambda i: -strength[i])
    seated, waiting = order[: m * k], order[m * k :]
    starts = [
        [tuple(seated[j * k : (j + 1) * k]) for j in range(m)],
        [tuple(seated[j + i * m] for i in range(k)) for j in range(m)],
    ]
    best: tuple[float, list[tuple[int, ...]], list[int]] | None = None
    # the start whose worst table is better to begin with gets three quarters of the budget
    starts.sort(key=lambda ts: -min(table(t)[0] for t in ts))
    for i, tables in enumerate(starts):
        limit = max_evaluations * 3 // 4 if i == 0 else max_evaluations

        def exhausted(limit: int = limit) -> bool:
            return evaluations[0] >= limit

        got_tables, got_waiting = _improve(tables, list(waiting), table, max_rounds, exhausted)
        worst = min(table(t)[0] for t in got_tables)
        if best is None or worst > best[0]:
            best = (worst, got_tables, got_waiting)
    assert best is not None
    return best[1], best[2]


def _improve(
    tables: list[tuple[int, ...]],
    waiting: list[int],
    table: TableFn,
    max_rounds: int,
    exhausted: Callable[[], bool],
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Swap a player of the worst table with one of another table (or a waiting one) when both
    tables end above the old worst quality; first improvement, until none or out of budget."""
    m = len(tables)
    quals = [table(t)[0] for t in tables]
    for _ in range(max_rounds):
        w = min(range(m), key=lambda j: quals[j])
        worst = quals[w]
        improved = False
        for a in tables[w]:
            # swap a with a player of another table, or with a waiting player
            for o in range(-1, m):
                if o == w:
                    continue
                pool = waiting if o == -1 else list(tables[o])
                for b in pool:
                    if exhausted():
                        return tables, waiting
                    new_w = tuple(b if x == a else x for x in tables[w])
                    qw = table(new_w)[0]
                    if qw <= worst:
                        continue
                    if o == -1:
                        tables[w] = new_w
                        quals[w] = qw
                        waiting = [a if x == b else x for x in waiting]
                        improved = True
                        break
                    new_o = tuple(a if x == b else x for x in tables[o])
                    qo = table(new_o)[0]
                    if qo <= worst:
                        continue
                    tables[w], tables[o] = new_w, new_o
                    quals[w], quals[o] = qw, qo
                    improved = True
                    break
                if improved:
                    break
            if improved:
                break
        if not improved:
            break
    return tables, waiting
