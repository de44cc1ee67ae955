"""Many games with deterministic per-game seeds (same results whatever the number of jobs)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from mindsport.doudizhu.bots import make_bots
from mindsport.doudizhu.deal import deal
from mindsport.doudizhu.game import GameRecord, play
from mindsport.doudizhu.scoring import LINEAR, ScoringRule

__all__ = ["game_rng", "simulate"]


def game_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of game ``index`` of a run seeded ``seed`` (deal and bots both draw on it)."""
    return np.random.default_rng([seed, index])


def _run_chunk(args: tuple[str, int, Sequence[int], ScoringRule]) -> list[GameRecord]:
    specs, seed, indices, scoring = args
    bots = make_bots(specs)
    out = []
    for i in indices:
        rng = game_rng(seed, i)
        out.append(play(deal(rng), bots, scoring=scoring, rng=rng))
    return out


def _chunks(games: int, size: int) -> Iterator[range]:
    for start in range(0, games, size):
        yield range(start, min(games, start + size))


def simulate(
    games: int,
    bots: str,
    seed: int = 0,
    jobs: int = 1,
    scoring: ScoringRule = LINEAR,
    progress: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games between the bots of spec ``bots`` (e.g. ``"strong,level:40,level:40"``).

    Game i deals and plays from :func:`game_rng` ``(seed, i)``, so the records are the same for
    any ``jobs``. ``progress(n)`` is called with the number of games just finished.
    """
    make_bots(bots)  # fail early on a bad spec
    chunk = max(1, min(200, games // (4 * max(1, jobs)) or 1))
    tasks = [(bots, seed, list(r), scoring) for r in _chunks(games, chunk)]
    results: list[GameRecord] = []
    if jobs <= 1:
        for task in tasks:
            part = _run_chunk(task)
            results.extend(part)
            if progress is not None:
                progress(len(part))
        return results
    # fork shares the parent's compiled numba kernels; warm them up once before forking
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        _run_chunk((bots, seed, [0], scoring))
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(jobs) as pool:
        for part in pool.imap(_run_chunk, tasks):
            results.extend(part)
            if progress is not None:
                progress(len(part))
    return results
