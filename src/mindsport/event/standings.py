"""Scores checked, rank points per round and the standings with their tie-breaks.

A round counts once every table of it has a result. Its rank points are those of
:func:`mindsport.tournament.rank_points.rank_points`, R = 2 (n - place + 1) with ties sharing the
best place, over the round's field (scoring ``field``: everyone seated, by game score) or over
each table (scoring ``table``). A player with a bye gets the mean rank points of the round (n + 1
over a field of n, 4 at a table of three) and no game score: a bye neither helps nor hurts on
average. A late entrant starts with nothing for the rounds he missed (``late_points`` ``zero``)
or, for each, that round's mean, what a bye earns (``mean``), and no game score. Standings
order players by total rank points, then by the event's tie-breaks; players equal on all of
them share a place.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mindsport.event.model import (
    EventError,
    EventSpec,
    LatePoints,
    Player,
    Result,
    Round,
    Scoring,
    Standing,
    Standings,
    Table,
    TieBreak,
)
from mindsport.tournament.rank_points import rank_points

__all__ = [
    "Step",
    "bye_points",
    "check_scores",
    "complete_rounds",
    "lot",
    "paths",
    "round_points",
    "standings",
]

#: largest magnitude of one board score
MAX_SCORE = 1e6


def check_scores(
    table: Table, scores: Sequence[Sequence[float]], rule: str = "linear", game: str = "doudizhu"
) -> Result:
    """``scores[board][seat]`` checked for ``table``: one row per board, one number per seat,
    finite, and scores some game could have under the event's scoring ``rule``
    (:meth:`~mindsport.event.games.TableGame.problem`; Dou Dizhu: zero-sum, and the two farmers
    alike under ``linear`` and ``classic``, under ``ccpc2016`` each farmer's own stake, a factor
    1, 2 or 4 apart by their doublings). What a mahjong table enters is each seat's final
    points; the result holds the scores computed from them
    (:meth:`~mindsport.event.games.TableGame.score`: placement points and WRC uma)."""
    from mindsport.event.games import table_game

    judge = table_game(game)
    where = f"round {table.round} table {table.number}"
    boards = len(table.deals) * len(table.players)
    if isinstance(scores, str | bytes) or len(scores) != boards:
        got = "text" if isinstance(scores, str | bytes) else f"{len(scores)} rows"
        raise EventError(f"{where}: expected scores for {boards} boards, got {got}")
    rows = []
    for b, row in enumerate(scores):
        if isinstance(row, str | bytes) or len(row) != judge.size:
            raise EventError(
                f"{where} board {b + 1}: expected {judge.size} {judge.entries} "
                f"({', '.join(judge.seats)})"
            )
        values = []
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise EventError(f"{where} board {b + 1}: score {value!r} is not a number")
            if not math.isfinite(value) or abs(value) > MAX_SCORE:
                raise EventError(f"{where} board {b + 1}: score {value!r} is out of range")
            values.append(float(value))
        why = judge.problem(rule, tuple(values))
        if why is not None:
            raise EventError(f"{where} board {b + 1}: {why}")
        rows.append(judge.score(rule, tuple(values)))
    return Result(table.round, table.number, tuple(rows))


def complete_rounds(rounds: Sequence[Round], results: Mapping[tuple[int, int], Result]) -> int:
    """How many rounds from the first have a result at every table."""
    done = 0
    for r in rounds:
        if any((r.number, t.number) not in results for t in r.tables):
            break
        done += 1
    return done


def round_points(
    spec: EventSpec, played: Round, results: Mapping[tuple[int, int], Result]
) -> dict[str, tuple[int, float]]:
    """``{player: (rank points, game score)}`` of one complete round, byes included."""
    scores: dict[str, float] = {}
    for table in played.tables:
        scores.update(results[(played.number, table.number)].player_scores(table))
    points: dict[str, int] = {}
    if spec.scoring is Scoring.FIELD:
        names = list(scores)
        for name, r in zip(names, rank_points([scores[n] for n in names]).tolist(), strict=True):
            points[name] = int(r)
        bye = bye_points(spec, played)
    else:
        for table in played.tables:
            rp = rank_points([scores[p] for p in table.players]).tolist()
            for name, r in zip(table.players, rp, strict=True):
                points[name] = int(r)
        bye = bye_points(spec, played)
    out = {p: (points[p], scores[p]) for p in scores}
    for p in played.byes:
        out[p] = (bye, 0.0)
    return out


def bye_points(spec: EventSpec, played: Round) -> int:
    """The rank points of a bye in round ``played``: the round's mean, n + 1 over a field of n
    seated players (``field`` scoring) or of a table of n (``table`` scoring)."""
    if spec.scoring is Scoring.FIELD:
        return sum(len(t.players) for t in played.tables) + 1
    return len(played.tables[0].players) + 1 if played.tables else 0


def lot(seed: int, player: str) -> int:
    """The player's lot: a number fixed by the event's seed and the name, ordering players
    equal on everything (and the first round's seating)."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{player}".encode()).digest()[:8], "big")


def standings(
    spec: EventSpec,
    players: Sequence[Player],
    rounds: Sequence[Round],
    results: Mapping[tuple[int, int], Result],
) -> Standings:
    """The standings after the complete rounds, best first (ties by lot; a list with a
    ``to_frame()``)."""
    done = complete_rounds(rounds, results)
    points = {p.name: 0 for p in players}
    score = {p.name: 0.0 for p in players}
    played = dict.fromkeys(points, 0)
    byes = dict.fromkeys(points, 0)
    met: dict[str, list[str]] = {p: [] for p in points}
    for r in rounds[:done]:
        for name, (rp, s) in round_points(spec, r, results).items():
            points[name] += rp
            score[name] += s
            played[name] += 1
        for name in r.byes:
            byes[name] += 1
        if spec.late_points is LatePoints.MEAN:
            for late in players:
                if late.joined > r.number:  # a late entrant, missing this round
                    points[late.name] += bye_points(spec, r)
        for table in r.tables:
            for p in table.players:
                met[p].extend(q for q in table.players if q != p)
    opponents = {p: sum(points[q] for q in met[p]) for p in points}

    def key(p: str) -> tuple[float, ...]:
        values: list[float] = [points[p]]
        for tb in spec.tie_breaks:
            values.append(round(score[p], 9) if tb is TieBreak.SCORE else opponents[p])
        return tuple(values)

    names = [p.name for p in players]
    if not names:
        return Standings()
    keys = [key(p) for p in names]
    # competition ranking on the key tuples: equal tuples share the best place
    order = sorted(range(len(names)), key=lambda i: keys[i], reverse=True)
    rank_of: dict[int, int] = {}
    for pos, i in enumerate(order):
        rank_of[i] = pos if pos == 0 or keys[order[pos - 1]] != keys[i] else rank_of[order[pos - 1]]
    places = [rank_of[i] + 1 for i in range(len(names))]
    withdrawn = {p.name for p in players if p.withdrawn is not None}
    rows = [
        Standing(
            place=places[i],
            player=n,
            rank_points=points[n],
            score=score[n],
            opponents=opponents[n],
            rounds=played[n],
            byes=byes[n],
            withdrawn=n in withdrawn,
        )
        for i, n in enumerate(names)
    ]
    rows.sort(key=lambda s: (s.place, lot(spec.seed, s.player)))
    return Standings(rows)


@dataclass(frozen=True)
class Step:
    """One round of a player's path: the table (None: a bye, or not playing), the table's
    other players, and the game score and rank points once the round is complete."""

    round: int
    table: int | None
    opponents: tuple[str, ...]
    bye: bool
    score: float | None
    rank_points: int | None


def paths(
    spec: EventSpec,
    players: Sequence[Player],
    rounds: Sequence[Round],
    results: Mapping[tuple[int, int], Result],
) -> dict[str, list[Step]]:
    """Each player's path through the paired rounds."""
    done = complete_rounds(rounds, results)
    out: dict[str, list[Step]] = {p.name: [] for p in players}
    for r in rounds:
        points = round_points(spec, r, results) if r.number <= done else {}
        at: dict[str, Table] = {p: t for t in r.tables for p in t.players}
        for name, steps in out.items():
            rp, s = points.get(name, (None, None))
            table = at.get(name)
            steps.append(
                Step(
                    r.number,
                    None if table is None else table.number,
                    () if table is None else tuple(q for q in table.players if q != name),
                    name in r.byes,
                    s,
                    rp,
                )
            )
    return out
