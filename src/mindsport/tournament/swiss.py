"""Swiss pairing into tables of three (for events too large for a full round robin).

Each round the players, in standing order (best first), are split into tables of three so that
no two players at a table have met before, whenever such a split exists. The search is a
depth-first backtracking over "the best unseated player sits with two of the others, in
standing order", which keeps the strong players together like a Swiss system and is complete:
if it finds nothing, no repeat-free split exists. When none exists it looks for a split with at
most 1, 2, ... repeated pairs (so small fields get the fewest repeats possible); if a search
runs out of its node budget (huge, late-round fields) it seats greedily, table by table, with
the fewest repeats. When the field is not a multiple of three, the
one or two lowest-standing players with the fewest byes so far sit out (a bye).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from mindsport.tournament.errors import TournamentError

__all__ = [
    "SwissHistory",
    "SwissRound",
    "read_results",
    "repeated_pairs",
    "swiss_round",
    "swiss_schedule",
]

K = TypeVar("K", bound=Hashable)

#: search nodes tried per repeat allowance before falling back
DEFAULT_NODE_BUDGET = 100_000


@dataclass(frozen=True)
class SwissRound(Generic[K]):
    """One round: the tables (best-standing table first), the byes, repeated pairs seated."""

    tables: tuple[tuple[K, ...], ...]
    byes: tuple[K, ...]
    repeats: int


def repeated_pairs(table: Sequence[K], met: Mapping[K, set[K]] | Mapping[K, frozenset[K]]) -> int:
    """How many pairs at ``table`` have met before."""
    count = 0
    for i in range(len(table)):
        seen = met.get(table[i], set())
        for j in range(i + 1, len(table)):
            if table[j] in seen:
                count += 1
    return count


def _candidates(
    remaining: list[K], met: Mapping[K, set[K]], allowance: int, size: int = 3
) -> Iterator[tuple[tuple[K, ...], list[K], int]]:
    """Tables of ``size`` for the best remaining player, in standing order: (table, others,
    cost); a choice already over the allowance is not extended."""
    first, rest = remaining[0], remaining[1:]

    def grow(
        start: int, picked: list[int], cost: int
    ) -> Iterator[tuple[tuple[K, ...], list[K], int]]:
        members = [first, *(rest[j] for j in picked)]
        for i in range(start, len(rest)):
            p = rest[i]
            c = cost + sum(1 for q in members if p in met.get(q, set()))
            if c > allowance:
                continue
            if len(picked) + 2 == size:
                chosen = {*picked, i}
                others = [q for j, q in enumerate(rest) if j not in chosen]
                yield (*members, p), others, c
            else:
                yield from grow(i + 1, [*picked, i], c)

    yield from grow(0, [], 0)


def _search(
    players: list[K], met: Mapping[K, set[K]], allowance: int, budget: int, size: int = 3
) -> tuple[list[tuple[K, ...]] | None, bool]:
    """Depth-first search (explicit stack) for a split with at most ``allowance`` repeats.

    Returns (tables or None, whether the search was complete, i.e. not cut by the budget).
    """
    if not players:
        return [], True
    tables: list[tuple[K, ...]] = []
    stack = [(_candidates(players, met, allowance, size), allowance)]
    while stack:
        budget -= 1
        if budget < 0:
            return None, False
        candidates, left = stack[-1]
        step = next(candidates, None)
        if step is None:
            stack.pop()
            if tables:
                tables.pop()
            continue
        table, others, cost = step
        tables.append(table)
        if not others:
            return tables, True
        stack.append((_candidates(others, met, left - cost, size), left - cost))
    return None, True


def _greedy(remaining: list[K], met: Mapping[K, set[K]], size: int = 3) -> list[tuple[K, ...]]:
    tables = []
    pool = list(remaining)
    while pool:
        first, rest = pool[0], pool[1:]
        best: tuple[int, tuple[int, ...]] | None = None
        for picked in itertools.combinations(range(len(rest)), size - 1):
            cost = repeated_pairs((first, *(rest[j] for j in picked)), met)
            if best is None or cost < best[0]:
                best = (cost, picked)
            if cost == 0:
                break
        assert best is not None
        _, picked = best
        tables.append((first, *(rest[j] for j in picked)))
        pool = [q for j, q in enumerate(rest) if j not in set(picked)]
    return tables


def swiss_round(
    standings: Sequence[K],
    met: Mapping[K, set[K]] | None = None,
    byes_taken: Mapping[K, int] | None = None,
    *,
    node_budget: int = DEFAULT_NODE_BUDGET,
    size: int = 3,
) -> SwissRound[K]:
    """Seat ``standings`` (best first) at tables of ``size`` (three; two or four for games of
    two or four players), avoiding repeat opponents.

    ``met[p]`` is the set of players ``p`` has already sat with; ``byes_taken[p]`` counts
    ``p``'s earlier byes.

    >>> r = swiss_round(["a", "b", "c", "d", "e", "f"], {"a": {"b"}, "b": {"a"}})
    >>> r.tables, r.repeats
    ((('a', 'c', 'd'), ('b', 'e', 'f')), 0)
    """
    players = list(standings)
    if isinstance(size, bool) or size not in (2, 3, 4):
        raise TournamentError(f"size {size!r}: tables seat two, three or four players")
    if len(players) < size:
        need = {2: "two", 3: "three", 4: "four"}[size]
        raise TournamentError(f"standings has {len(players)} players; a table needs {need}")
    if len(set(players)) != len(players):
        raise TournamentError("standings lists a player twice")
    met = met or {}
    byes_taken = byes_taken or {}
    n_byes = len(players) % size
    byes: list[K] = []
    if n_byes:
        # lowest standing first among those with the fewest byes
        order = sorted(range(len(players)), key=lambda i: (byes_taken.get(players[i], 0), -i))
        byes = [players[i] for i in sorted(order[:n_byes])]
        players = [p for p in players if p not in set(byes)]
    tables: list[tuple[K, ...]] | None = None
    for allowance in range(0, len(players) + 1):
        tables, complete = _search(players, met, allowance, node_budget, size)
        if tables is not None:
            break
        if not complete:  # a field too large to search to the end: seat greedily
            tables = _greedy(players, met, size)
            break
    assert tables is not None
    repeats = sum(repeated_pairs(t, met) for t in tables)
    return SwissRound(tuple(tables), tuple(byes), repeats)


TableResult = Callable[[tuple[K, K, K], np.random.Generator], Sequence[float]]


def swiss_schedule(
    players: Sequence[K] | int,
    rounds: int,
    rng: np.random.Generator | int,
    table_result: TableResult[K] | None = None,
    *,
    node_budget: int = DEFAULT_NODE_BUDGET,
) -> list[SwissRound[K]]:
    """Pair ``rounds`` Swiss rounds; standings are cumulative table points, ties by lot.

    ``table_result(table, rng)`` returns the three players' points for one table; by default
    every table is a random finishing order scored 4, 2, 0 (a stand-in until real games are
    played). ``players`` may be a count (players ``0..n-1``).
    """
    if isinstance(rounds, bool) or int(rounds) != rounds or rounds < 1:
        raise TournamentError(f"rounds must be a positive integer, got {rounds!r}")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    ids: list = list(range(players)) if isinstance(players, int) else list(players)
    if len(ids) < 3:
        raise TournamentError(f"players must be at least 3, got {len(ids)}")

    def default_result(table: tuple[K, K, K], g: np.random.Generator) -> Sequence[float]:
        points = np.array([4.0, 2.0, 0.0])
        g.shuffle(points)
        return points.tolist()

    result = table_result or default_result
    lot = {p: float(x) for p, x in zip(ids, generator.random(len(ids)), strict=True)}
    points = {p: 0.0 for p in ids}
    met: dict[K, set[K]] = {p: set() for p in ids}
    byes_taken: dict[K, int] = {p: 0 for p in ids}
    schedule: list[SwissRound[K]] = []
    for _ in range(int(rounds)):
        standings = sorted(ids, key=lambda p: (-points[p], lot[p]))
        this = swiss_round(standings, met, byes_taken, node_budget=node_budget)
        schedule.append(this)
        for p in this.byes:
            byes_taken[p] += 1
        for table in this.tables:
            scores = list(result(table, generator))
            if len(scores) != 3:
                raise TournamentError(f"table_result returned {scores!r} for {table}; need 3")
            for p, s in zip(table, scores, strict=True):
                points[p] += float(s)
            for p in table:
                met[p].update(q for q in table if q != p)
    return schedule


@dataclass(frozen=True)
class SwissHistory:
    """What earlier rounds leave for pairing the next: points, who met whom, byes taken."""

    points: dict[str, float]
    met: dict[str, set[str]]
    byes: dict[str, int]
    rounds: int

    def standings(self) -> list[str]:
        """Players by points (best first), ties by name."""
        return sorted(self.points, key=lambda p: (-self.points[p], p))


_BYE = {"", "bye", "-", "none", "null"}


def read_results(path: str | Path) -> SwissHistory:
    """Read a results file: one row per player and round, ``round, table, player, points``.

    CSV with that header (any column order), or JSONL objects with those keys. Players at the
    same (round, table) have met; a ``table`` of ``bye`` (or empty) is a bye. Errors name the
    file and line.
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise TournamentError(f"{source}: cannot read the results ({exc.strerror})") from None
    rows: list[tuple[str, dict[str, Any]]] = []
    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise TournamentError(f"{source}: no results")
    if lines[0][1].lstrip().startswith("{"):
        for number, line in lines:
            where = f"{source}, line {number}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TournamentError(f"{where}: invalid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise TournamentError(f"{where}: expected an object, got {obj!r}")
            rows.append((where, obj))
    else:
        reader = csv.DictReader(io.StringIO(text))
        for number, row in enumerate(reader, start=2):
            rows.append((f"{source}, line {number}", dict(row)))
    points: dict[str, float] = {}
    byes: dict[str, int] = {}
    tables: dict[tuple[int, str], list[str]] = {}
    last = 0
    for where, row in rows:
        missing = [k for k in ("round", "player", "points") if k not in row]
        if missing:
            raise TournamentError(
                f"{where}: missing {', '.join(missing)} (need round, table, player, points)"
            )
        try:
            number = int(row["round"])
            score = float(row["points"])
        except (TypeError, ValueError):
            raise TournamentError(
                f"{where}: round must be an integer and points a number, got "
                f"{row['round']!r}, {row['points']!r}"
            ) from None
        if not np.isfinite(score):
            raise TournamentError(f"{where}: points must be finite, got {row['points']!r}")
        player = str(row["player"]).strip()
        if not player:
            raise TournamentError(f"{where}: empty player name")
        last = max(last, number)
        points[player] = points.get(player, 0.0) + score
        byes.setdefault(player, 0)
        table = "" if row.get("table") is None else str(row.get("table")).strip()
        if table.lower() in _BYE:
            byes[player] += 1
        else:
            tables.setdefault((number, table), []).append(player)
    met: dict[str, set[str]] = {p: set() for p in points}
    for (number, table), seated in tables.items():
        if len(set(seated)) != len(seated):
            raise TournamentError(f"{source}: round {number} table {table} lists a player twice")
        for p in seated:
            met[p].update(q for q in seated if q != p)
    return SwissHistory(points, met, byes, last)
