"""Swiss events played by bots: each table plays one deal three times, the three seat
rotations (:func:`~mindsport.tournament.formats.rotated_seatings`, duplicate play at one table),
and each player scores the sum of its seat scores. Table t of round r deals from
:func:`~mindsport.tournament.executors.task_rng` ``(seed, 20, r, t)`` and rotation k plays with
``task_rng(seed, 20, r, t, k)``; the games of a round run through the game-free runner
(:func:`mindsport.tournament.runner.play_tables`) on an executor, so the event is the same on
any executor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mindsport.doudizhu import LINEAR, Deal, deal
from mindsport.games.many import Table
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor, task_rng
from mindsport.tournament.formats import rotated_seatings
from mindsport.tournament.runner import GameSpec, play_tables
from mindsport.tournament.swiss import SwissRound, swiss_round

__all__ = ["SwissEvent", "play_swiss", "play_table"]

_GAME = GameSpec("doudizhu", (("scoring", LINEAR),))


def _table_games(seed: int, round_number: int, table: int, specs: Sequence[str]) -> list[Table]:
    the_deal: Deal = deal(task_rng(seed, 20, round_number, table))
    return [
        Table(the_deal, tuple(specs[i] for i in rotation), (20, round_number, table, k))
        for k, rotation in enumerate(rotated_seatings([0, 1, 2]))
    ]


def _points(returns: np.ndarray) -> tuple[float, float, float]:
    """The three players' points at one table from its three rotated games."""
    points = [0.0, 0.0, 0.0]
    for k, rotation in enumerate(rotated_seatings([0, 1, 2])):
        for seat, player in enumerate(rotation):
            points[player] += float(returns[k, seat])
    return points[0], points[1], points[2]


def play_table(
    task: tuple[int, int, int, tuple[str, str, str]], executor: Executor | None = None
) -> tuple[float, float, float]:
    """Points of the three players (bot specs) at one table: one deal, three rotations."""
    seed, round_number, table, specs = task
    games = _table_games(seed, round_number, table, specs)
    return _points(play_tables(_GAME, games, seed, executor))


@dataclass(frozen=True)
class SwissEvent:
    """The rounds (tables of player indices), their points and the final points."""

    rounds: tuple[SwissRound[int], ...]
    round_points: tuple[tuple[float, ...], ...]
    points: tuple[float, ...]

    def standings(self) -> list[int]:
        """Player indices, best first (ties by index)."""
        return sorted(range(len(self.points)), key=lambda p: (-self.points[p], p))


def play_swiss(
    bots: Sequence[str], rounds: int, seed: int, executor: Executor | None = None
) -> SwissEvent:
    """A Swiss event of ``rounds`` rounds between bots (spec strings, player i = ``bots[i]``)."""
    if len(bots) < 3:
        raise TournamentError(f"a Swiss event needs at least 3 players, got {len(bots)}")
    if isinstance(rounds, bool) or int(rounds) != rounds or rounds < 1:
        raise TournamentError(f"rounds must be a positive integer, got {rounds!r}")
    n = len(bots)
    lot = task_rng(seed, 21).random(n)
    points = np.zeros(n)
    met: dict[int, set[int]] = {p: set() for p in range(n)}
    byes = dict.fromkeys(range(n), 0)
    played: list[SwissRound[int]] = []
    per_round: list[tuple[float, ...]] = []
    for r in range(int(rounds)):
        standings = sorted(range(n), key=lambda p: (-points[p], lot[p]))
        this = swiss_round(standings, met, byes)
        games = [
            g
            for t, (a, b, c) in enumerate(this.tables)
            for g in _table_games(int(seed), r, t, (bots[a], bots[b], bots[c]))
        ]
        returns = play_tables(_GAME, games, int(seed), executor)
        results = [_points(returns[3 * t : 3 * t + 3]) for t in range(len(this.tables))]
        gained = np.zeros(n)
        for table, scores in zip(this.tables, results, strict=True):
            for p, s in zip(table, scores, strict=True):
                gained[p] += s
            for p in table:
                met[p].update(q for q in table if q != p)
        for p in this.byes:
            byes[p] += 1
        points += gained
        played.append(this)
        per_round.append(tuple(gained.tolist()))
    return SwissEvent(tuple(played), tuple(per_round), tuple(points.tolist()))
