"""Dou Dizhu games in bulk for the tournament experiments, on any executor, reproducibly.

A :class:`Game` names a deal (a :class:`~mindsport.doudizhu.Deal` value), the three bots (spec
strings of :func:`mindsport.games.make_bot`: ``level:N``, ``strong``, ``cmd:...``) and a
key. Game ``key`` of a run seeded ``seed`` plays with the generator
:func:`~mindsport.tournament.executors.task_rng` ``(seed, *key)``, so a landlord score depends
only on (seed, game). :func:`play_games` hands the games to the game-free runner
(:func:`mindsport.tournament.runner.play_tables`), which plays line-ups of built-in bots on the
compiled engine, whole chunks at a time, and anything else move by move through the referee.

Deal helpers for the equal-strength paper: :func:`bomb_count` (four-of-a-kinds in the three hands,
plus the rocket when one hand holds both jokers) and :func:`one_bomb_deal` (rejection sampling of
Algorithm 2 deals until exactly one bomb is held in all three hands combined).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu import LINEAR, Deal, ScoringRule, deal
from mindsport.games.many import Table
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor
from mindsport.tournament.runner import DEFAULT_CHUNK, GameSpec, play_tables

__all__ = [
    "DEFAULT_CHUNK",
    "Game",
    "bomb_count",
    "landlord_table",
    "one_bomb_deal",
    "play_games",
    "random_deals",
    "warm_engine",
]

#: deals tried by :func:`one_bomb_deal` before giving up
MAX_REDEALS = 10_000


@dataclass(frozen=True)
class Game:
    """One game: the deal, bot specs per seat (landlord, farmer 1, farmer 2), seed key."""

    deal: Deal
    bots: tuple[str, str, str]
    key: tuple[int, ...]


def bomb_count(hand: Deal, *, rocket: bool = True) -> int:
    """Bombs held in the three hands combined: four-of-a-kinds, plus 1 for a hand holding both
    jokers when ``rocket`` (the rocket doubles the score like a bomb).

    >>> deal = Deal.parse("[333344455566677788XD][4567889999TTTJJJQ][TJQQQKKKKAAAA2222]")
    >>> bomb_count(deal), bomb_count(deal, rocket=False)
    (6, 5)
    """
    count = 0
    for counts in hand.counts():
        count += sum(1 for n in counts[:13] if n == 4)
        if rocket and counts[13] == 1 and counts[14] == 1:
            count += 1
    return count


def one_bomb_deal(rng: np.random.Generator, *, rocket: bool = True) -> Deal:
    """The equal-strength paper's deals: Algorithm 2 deals redrawn until exactly one bomb is held in
    all three hands combined (:func:`bomb_count`; with ``rocket=True`` a split rocket does not count
    and a held rocket counts as the one bomb, so scores stay within the paper's levels -2..2)."""
    for _ in range(MAX_REDEALS):
        d = deal(rng)
        if bomb_count(d, rocket=rocket) == 1:
            return d
    raise TournamentError(f"no one-bomb deal in {MAX_REDEALS} tries")  # pragma: no cover


def random_deals(count: int, rng: np.random.Generator, *, one_bomb: bool = False) -> list[Deal]:
    """``count`` deals (Algorithm 2, or the equal-strength paper's one-bomb deals)."""
    if isinstance(count, bool) or int(count) != count or count < 0:
        raise TournamentError(f"count must be a non-negative integer, got {count!r}")
    make: Callable[[np.random.Generator], Deal] = one_bomb_deal if one_bomb else deal
    return [make(rng) for _ in range(int(count))]


def warm_engine() -> None:
    """Load (or compile, once) the engine and build the move table, so that worker processes
    forked afterwards share them."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.moves import move_table

    ensure_compiled()
    move_table()


def _spec(scoring: ScoringRule) -> GameSpec:
    return GameSpec("doudizhu", (("scoring", scoring),))


def play_games(
    games: Sequence[Game],
    seed: int,
    executor: Executor | None = None,
    *,
    scoring: ScoringRule = LINEAR,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> npt.NDArray[np.float64]:
    """Landlord score of every game, in game order; ``progress(k)`` after each chunk of k."""
    tables = [Table(g.deal, tuple(g.bots), tuple(g.key)) for g in games]
    returns = play_tables(_spec(scoring), tables, seed, executor, chunk=chunk, progress=progress)
    return np.ascontiguousarray(returns[:, 0])


def landlord_table(
    deals: Sequence[Deal],
    landlords: Sequence[str],
    farmers: tuple[str, str],
    seed: int,
    stage: int,
    executor: Executor | None = None,
    *,
    replays: int = 1,
    scoring: ScoringRule = LINEAR,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> npt.NDArray[np.float64]:
    """``scores[landlord, deal, replay]``: each landlord bot (with the fixed farmers) plays each
    deal ``replays`` times; game keys are ``(stage, landlord, deal, replay)``."""
    if isinstance(replays, bool) or int(replays) != replays or replays < 1:
        raise TournamentError(f"replays must be a positive integer, got {replays!r}")
    games = [
        Game(d, (lord, farmers[0], farmers[1]), (stage, i, j, k))
        for i, lord in enumerate(landlords)
        for j, d in enumerate(deals)
        for k in range(int(replays))
    ]
    scores = play_games(games, seed, executor, scoring=scoring, chunk=chunk, progress=progress)
    return scores.reshape(len(landlords), len(deals), int(replays))
