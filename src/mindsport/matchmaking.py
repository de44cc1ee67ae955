"""Balanced tables from a pool of waiting players (a pure function over ratings).

Given the players waiting and a table *shape* (team sizes), :func:`matchmake` seats as many full
tables as the pool allows (``len(pool) // table_size``; the rest keep waiting) so that the
**worst table's quality is as high as possible** (a bottleneck objective: nobody gets a hopeless
game so that others can get perfect ones). Within a table the players are also split into teams
in the best way (for ``1v2``: who is the landlord).

Shapes: ``"1v1"``, ``"2v2"``, ``"1v2"`` (one landlord against two farmers, Dou Dizhu), ``"ffa4"``
(four-player free-for-all, mahjong), any ``"AvBvC..."`` or ``"ffaN"``, or a sequence of team
sizes such as ``(1, 1, 1)``. A table holds at most :data:`MAX_TABLE` players; a pool at most
:data:`MAX_POOL`.

Exact and heuristic search, and the work they may do:

* A table's *split* into teams is the best of all its distinct splits (teams of equal size are
  interchangeable, so ``ffa12`` has one split and ``6v6`` has 462) when there are at most
  ``exact_splits`` (default :data:`EXACT_SPLITS`) of them; otherwise a heuristic: players in
  decreasing strength each join the team with the lowest strength per seat so far, then swaps of
  two players between teams while they raise the quality (at most :data:`SPLIT_STEPS`
  evaluations per table).
* The seating is **exact** (``Pairing.exact``) when the pool has at most ``exact_limit``
  (default 12) players, splits are exact, and the search needs at most :data:`EXACT_EVALUATIONS`
  quality evaluations (C(pool, table size) x splits per table): branch and bound over the
  partitions of the pool. Otherwise a heuristic: two starting seatings (neighbours in strength
  at one table, or one player of each strength tier per table), each improved by swaps out of
  the worst table while they lift it, within ``max_evaluations`` evaluations after the starts.
* Both stop at ``deadline`` (a :func:`time.monotonic` value) if one is given: an exact search cut
  short falls back to the heuristic, a heuristic returns the best seating found so far.

``quality(teams) -> float`` is any match-quality function (higher is better) that does not change
when two teams of the same size swap places, e.g. ``TrueSkill().quality``.

>>> skill = {"a": 1.0, "b": 2.0, "c": 8.0, "d": 9.0}
>>> q = lambda teams: -abs(sum(skill[p] for p in teams[0]) - sum(skill[p] for p in teams[1]))
>>> plan = matchmake({p: p for p in skill}, "1v1", q)
>>> sorted(sorted(p for team in t.teams for p in team) for t in plan.tables)
[['a', 'b'], ['c', 'd']]
>>> plan.worst_quality, plan.exact
(-1.0, True)
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from mindsport.errors import MindsportError

__all__ = [
    "EXACT_EVALUATIONS",
    "EXACT_SPLITS",
    "MAX_POOL",
    "MAX_TABLE",
    "SHAPES",
    "SPLIT_STEPS",
    "MatchmakingError",
    "Pairing",
    "Table",
    "count_splits",
    "matchmake",
    "parse_shape",
    "splits",
]

R = TypeVar("R")

SHAPES: dict[str, tuple[int, ...]] = {
    "1v1": (1, 1),
    "2v2": (2, 2),
    "1v2": (1, 2),
    "ffa4": (1, 1, 1, 1),
}

#: most players at one table (and so in one shape)
MAX_TABLE = 16
#: most players in one pool
MAX_POOL = 256
#: most distinct splits of a table that are enumerated (more: the split heuristic)
EXACT_SPLITS = 500
#: most quality evaluations an exact seating search may need
EXACT_EVALUATIONS = 20_000
#: most quality evaluations the split heuristic spends on one table
SPLIT_STEPS = 200

Members = tuple[int, ...]
Split = tuple[tuple[int, ...], ...]


class MatchmakingError(MindsportError):
    """A pool or shape matchmaking cannot use (names the input)."""


@dataclass(frozen=True, slots=True)
class Table:
    """One seated game: teams of player ids, in the order of the shape, and its quality;
    ``roles``: each team's roles (seats) when the tables were seated with roles."""

    teams: tuple[tuple[str, ...], ...]
    quality: float
    roles: tuple[tuple[str, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class Pairing:
    """The tables seated (worst first), the players still waiting, the worst table's quality,
    and whether the seating is provably the best (``exact``)."""

    tables: tuple[Table, ...]
    waiting: tuple[str, ...]
    worst_quality: float | None
    exact: bool


def parse_shape(shape: str | Sequence[int]) -> tuple[int, ...]:
    """Team sizes of a shape name (``"1v2"``) or a sequence of sizes.

    >>> parse_shape("1v2"), parse_shape("3v3"), parse_shape([1, 1, 1]), parse_shape("ffa3")
    ((1, 2), (3, 3), (1, 1, 1), (1, 1, 1))
    """
    if isinstance(shape, str):
        if shape in SHAPES:
            return SHAPES[shape]
        ffa = shape.startswith("ffa")
        parts = [shape[3:]] if ffa else shape.split("v")
        if not all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
            raise MatchmakingError(
                f"shape {shape[:40]!r}: use one of {', '.join(SHAPES)}, 'ffaN' or sizes like '2v2'"
            )
        if ffa and int(parts[0]) > MAX_TABLE:
            raise MatchmakingError(f"shape {shape!r}: at most {MAX_TABLE} players at a table")
        sizes: tuple[int, ...] = (1,) * int(parts[0]) if ffa else tuple(int(p) for p in parts)
    else:
        sizes = tuple(shape)
    if len(sizes) < 2 or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in sizes):
        raise MatchmakingError(f"shape {shape!r}: need at least two teams of at least one player")
    if sum(sizes) > MAX_TABLE:
        raise MatchmakingError(
            f"shape {shape!r}: {sum(sizes)} players at a table, at most {MAX_TABLE}"
        )
    return sizes


def count_splits(sizes: Sequence[int]) -> int:
    """Distinct splits of one table's players into teams of ``sizes`` (teams of equal size are
    interchangeable): k! / (prod s! x prod m!) with m the number of teams of each size.

    >>> count_splits((1, 1)), count_splits((1, 2)), count_splits((6, 6)), count_splits((1,) * 12)
    (1, 3, 462, 1)
    """
    n = math.factorial(sum(sizes))
    for s in sizes:
        n //= math.factorial(s)
    for m in Counter(sizes).values():
        n //= math.factorial(m)
    return n


def splits(members: Sequence[int], sizes: Sequence[int]) -> Iterator[Split]:
    """Every distinct split of ``members`` into teams of ``sizes`` (in the order of ``sizes``),
    each once: :func:`count_splits` of them, without enumerating orderings of equal teams.

    >>> sorted(splits((0, 1, 2), (1, 2)))
    [((0,), (1, 2)), ((1,), (0, 2)), ((2,), (0, 1))]
    """
    groups: dict[int, list[int]] = {}
    for pos, s in enumerate(sizes):
        groups.setdefault(s, []).append(pos)
    order = list(groups.items())

    def blocks(players: tuple[int, ...], size: int, count: int) -> Iterator[Split]:
        # unordered blocks: the first block holds the smallest player
        if count == 0:
            yield ()
            return
        first, others = players[0], players[1:]
        for combo in itertools.combinations(others, size - 1):
            rest = tuple(p for p in others if p not in combo)
            for more in blocks(rest, size, count - 1):
                yield ((first, *combo), *more)

    def by_group(
        g: int, rest: tuple[int, ...], placed: dict[int, tuple[int, ...]]
    ) -> Iterator[Split]:
        if g == len(order):
            yield tuple(placed[i] for i in range(len(sizes)))
            return
        size, positions = order[g]
        for union in itertools.combinations(rest, size * len(positions)):
            chosen = set(union)
            left = tuple(p for p in rest if p not in chosen)
            for bs in blocks(union, size, len(positions)):
                yield from by_group(
                    g + 1, left, {**placed, **dict(zip(positions, bs, strict=True))}
                )

    yield from by_group(0, tuple(sorted(members)), {})


def _strength(r: Any) -> float:
    for attr in ("mu", "rating"):
        v = getattr(r, attr, None)
        if isinstance(v, int | float):
            return float(v)
    if isinstance(r, int | float):
        return float(r)
    return 0.0


class _OutOfTime(Exception):
    """The deadline passed during the exact search."""


class _Budget:
    """Counts quality evaluations against a limit and watches the deadline."""

    def __init__(self, deadline: float | None) -> None:
        self.used = 0
        self.deadline = deadline
        self.limit = math.inf

    def late(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def exhausted(self) -> bool:
        return self.used >= self.limit or self.late()


def matchmake(
    ratings: Mapping[str, R],
    shape: str | Sequence[int],
    quality: Callable[[list[tuple[R, ...]]], float],
    *,
    exact_limit: int = 12,
    exact_splits: int = EXACT_SPLITS,
    strength: Callable[[R], float] | None = None,
    max_evaluations: int = 10_000,
    deadline: float | None = None,
) -> Pairing:
    """Seat ``ratings`` (player id -> rating) at tables of ``shape`` maximising the worst quality.

    ``strength`` orders players for the heuristics (default: ``.mu`` or ``.rating`` of the
    rating, or the rating itself when it is a number). See the module text for when the answer
    is exact and for the bounds on the work (``exact_limit``, ``exact_splits``,
    ``max_evaluations``, ``deadline``).
    """
    sizes = parse_shape(shape)
    k = sum(sizes)
    ids = list(ratings)
    if len(ids) > MAX_POOL:
        raise MatchmakingError(f"pool of {len(ids)} players: at most {MAX_POOL}")
    for p in ids:
        if not isinstance(p, str) or not p:
            raise MatchmakingError(f"player ids are non-empty strings, got {p!r}")
    n = len(ids)
    m = n // k
    if m == 0:
        return Pairing((), tuple(ids), None, True)
    values = [ratings[p] for p in ids]
    key_fn = strength if strength is not None else _strength
    power = [key_fn(v) for v in values]
    budget = _Budget(deadline)
    cache: dict[Members, tuple[float, Split]] = {}
    exact_split = count_splits(sizes) <= exact_splits

    def evaluate(arr: Split) -> float:
        budget.used += 1
        q = float(quality([tuple(values[i] for i in team) for team in arr]))
        if math.isnan(q):
            raise MatchmakingError(f"quality of {arr!r} is not a number")
        return q

    def table(members: Members) -> tuple[float, Split]:
        key = tuple(sorted(members))
        hit = cache.get(key)
        if hit is None:
            if exact_split:
                best_q, best_arr = -math.inf, cast(Split, ())
                for arr in splits(key, sizes):
                    q = evaluate(arr)
                    if q > best_q or not best_arr:
                        best_q, best_arr = q, arr
                hit = (best_q, best_arr)
            else:
                hit = _split_heuristic(key, sizes, power, evaluate)
            cache[key] = hit
        return hit

    exact = (
        n <= exact_limit
        and exact_split
        and math.comb(n, k) * count_splits(sizes) <= EXACT_EVALUATIONS
    )
    chosen: list[Members] = []
    waiting: list[int] = []
    if exact:
        try:
            chosen, waiting = _exact(n, k, m, table, budget)
        except _OutOfTime:
            chosen = []
    if not chosen:  # large pool, exact search cut short (or every quality -inf): heuristic
        budget.limit = budget.used + max_evaluations
        chosen, waiting = _heuristic(n, k, m, table, power, budget)
        exact = False
    tables = [
        Table(tuple(tuple(ids[i] for i in team) for team in table(members)[1]), table(members)[0])
        for members in chosen
    ]
    tables.sort(key=lambda t: t.quality)
    return Pairing(tuple(tables), tuple(ids[i] for i in sorted(waiting)), tables[0].quality, exact)


TableFn = Callable[[Members], tuple[float, Split]]


def _split_heuristic(
    members: Members, sizes: Sequence[int], power: list[float], evaluate: Callable[[Split], float]
) -> tuple[float, Split]:
    """Strongest first, each player joins the team with the lowest strength per seat that still
    has a free seat; then swaps of two players of different teams while the quality rises
    (first improvement, at most :data:`SPLIT_STEPS` evaluations)."""
    teams: list[list[int]] = [[] for _ in sizes]
    total = [0.0] * len(sizes)
    for p in sorted(members, key=lambda i: -power[i]):
        open_teams = [j for j in range(len(sizes)) if len(teams[j]) < sizes[j]]
        j = min(open_teams, key=lambda t: (total[t] / sizes[t], t))
        teams[j].append(p)
        total[j] += power[p]
    best = tuple(tuple(t) for t in teams)
    best_q = evaluate(best)
    steps = 1
    improved = True
    while improved and steps < SPLIT_STEPS:
        improved = False
        for a, b in itertools.combinations(range(len(sizes)), 2):
            for x, y in itertools.product(best[a], best[b]):
                if steps >= SPLIT_STEPS:
                    return best_q, best
                trial = list(best)
                trial[a] = tuple(y if p == x else p for p in best[a])
                trial[b] = tuple(x if p == y else p for p in best[b])
                q = evaluate(tuple(trial))
                steps += 1
                if q > best_q:
                    best, best_q, improved = tuple(trial), q, True
                    break
            if improved:
                break
    return best_q, best


def _exact(
    n: int, k: int, m: int, table: TableFn, budget: _Budget
) -> tuple[list[Members], list[int]]:
    """Branch and bound over partitions: the lowest unseated player waits or joins a table."""
    best_q = -math.inf
    best: tuple[list[Members], list[int]] = ([], [])

    def dfs(
        rest: tuple[int, ...], skips: int, tables: list[Members], waiting: list[int], cur: float
    ) -> None:
        nonlocal best_q, best
        if cur <= best_q:
            return
        if len(tables) == m:
            best_q = cur
            best = (list(tables), waiting + list(rest))
            return
        if budget.late():
            raise _OutOfTime
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
    n: int, k: int, m: int, table: TableFn, strength: list[float], budget: _Budget
) -> tuple[list[Members], list[int]]:
    """Two starts, each improved by swaps out of the worst table while that helps: neighbours in
    strength share a table (best when teams have equal sizes), or each table takes one player
    from each strength tier (better when they do not, e.g. a landlord against two farmers).
    The first start is always evaluated; the second and the swaps only within the budget. The
    start with the better worst table after its swaps wins."""
    order = sorted(range(n), key=lambda i: -strength[i])
    seated, waiting = order[: m * k], order[m * k :]
    starts = [
        [tuple(seated[j * k : (j + 1) * k]) for j in range(m)],
        [tuple(seated[j + i * m] for i in range(k)) for j in range(m)],
    ]
    best: tuple[float, list[Members], list[int]] | None = None
    spare = budget.limit - budget.used
    for i, tables in enumerate(starts):
        if i > 0 and budget.exhausted():
            break
        # the first start may use three quarters of the budget, the second the rest
        stop = budget.used + spare * 0.75 if i == 0 else budget.limit

        def spent(stop: float = stop) -> bool:
            return budget.used >= stop or budget.late()

        got_tables, got_waiting = _improve(tables, list(waiting), table, spent)
        worst = min(table(t)[0] for t in got_tables)
        if best is None or worst > best[0]:
            best = (worst, got_tables, got_waiting)
    assert best is not None
    return best[1], best[2]


def _improve(
    tables: list[Members],
    waiting: list[int],
    table: TableFn,
    exhausted: Callable[[], bool],
) -> tuple[list[Members], list[int]]:
    """Swap a player of the worst table with one of another table (or a waiting one) when both
    tables end above the old worst quality; first improvement, until none or out of budget."""
    m = len(tables)
    quals = [table(t)[0] for t in tables]
    while not exhausted():
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
