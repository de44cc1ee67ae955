"""Many games with deterministic per-game seeds (same results whatever the number of jobs).

Games between the built-in bots (``random``, ``greedy``, ``strong``, ``level:N``) run whole on
the compiled engine (:mod:`mindsport.doudizhu.batch`); other bots (any
:class:`~mindsport.doudizhu.bots.Bot` object) are played move by move by :func:`play`. The
built-in bots are the engine's decision kernel either way, so the games are the same.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from mindsport.doudizhu.bots import Bot, make_bots
from mindsport.doudizhu.deal import deal
from mindsport.doudizhu.game import GameRecord, play
from mindsport.doudizhu.scoring import LINEAR, ScoringRule
from mindsport.errors import MindsportError

__all__ = ["game_rng", "simulate"]

Bots = str | Sequence[Bot]


def game_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of game ``index`` of a run seeded ``seed`` (deal and bots both draw on it)."""
    return np.random.default_rng([seed, index])


def _players(bots: Bots) -> list[Bot]:
    players = make_bots(bots) if isinstance(bots, str) else list(bots)
    if len(players) != 3:
        raise MindsportError(f"a game needs 3 players, got {len(players)}")
    return players


def _use_compiled(bots: Bots) -> bool:
    from mindsport.doudizhu.batch import supported

    return supported(bots)


def _run_chunk(
    args: tuple[Bots, int, Sequence[int], ScoringRule, bool],
) -> list[GameRecord]:
    bots, seed, indices, scoring, compiled = args
    if compiled:
        from mindsport.doudizhu.batch import simulate_records

        return simulate_records(indices, bots, seed=seed, scoring=scoring)
    players = _players(bots)
    out = []
    for i in indices:
        rng = game_rng(seed, i)
        out.append(play(deal(rng), players, scoring=scoring, rng=rng))
    return out


def _chunks(games: int, size: int) -> Iterator[range]:
    for start in range(0, games, size):
        yield range(start, min(games, start + size))


def simulate(
    games: int,
    bots: Bots,
    seed: int = 0,
    jobs: int = 1,
    scoring: ScoringRule = LINEAR,
    progress: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games between ``bots``: a spec (e.g. ``"strong,level:40,level:40"``) or
    three :class:`~mindsport.doudizhu.bots.Bot` objects (landlord, farmer1, farmer2).

    Game i deals and plays from :func:`game_rng` ``(seed, i)``, so the records are the same for
    any ``jobs``. ``progress(n)`` is called with the number of games just finished.
    """
    _players(bots)  # fail early on a bad spec
    compiled = _use_compiled(bots)
    chunk = max(1, min(200, games // (4 * max(1, jobs)) or 1))
    tasks = [(bots, seed, list(r), scoring, compiled) for r in _chunks(games, chunk)]
    results: list[GameRecord] = []
    if jobs <= 1:
        for task in tasks:
            part = _run_chunk(task)
            results.extend(part)
            if progress is not None:
                progress(len(part))
        return results
    # fork shares the parent's compiled numba kernels; load them once before forking
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        from mindsport.doudizhu.compiled import ensure_compiled
        from mindsport.doudizhu.moves import move_table

        ensure_compiled()
        move_table()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(jobs) as pool:
        for part in pool.imap(_run_chunk, tasks):
            results.extend(part)
            if progress is not None:
                progress(len(part))
    return results
