"""Test-case selection (the DIH paper, section 1.1.3) and discriminating bot line-ups (Algorithm 1).

* :func:`rank_by_discrimination` computes every hand's DIH for an event (players, rounds,
  prizes) and sorts the hands by it, highest first; :func:`select_test_cases` keeps one hand
  per round.
* Algorithm 1 crosses landlord, farmer-1 and farmer-2 bots into table "players"
  (:func:`cross_combinations`), totals each line-up's landlord score over some hands, turns the
  totals into score rates (T - Tmin) / (Tmax - Tmin), buckets the rates into ``w`` equal
  intervals of [0, 1] and draws one line-up per bucket
  (:func:`select_discriminating_players`). The bot games themselves come from the engine.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from mindsport.tournament.dih import discrimination_of_total
from mindsport.tournament.distribution import total_distribution
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.library import HandLibrary

__all__ = [
    "RankedHand",
    "cross_combinations",
    "rank_by_discrimination",
    "score_rates",
    "select_discriminating_players",
    "select_test_cases",
]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

Distributions = Mapping[str, tuple[npt.ArrayLike, npt.ArrayLike]] | HandLibrary


@dataclass(frozen=True)
class RankedHand:
    """A hand and its DIH for the event it was ranked for."""

    hand: str
    dih: float


def _items(library: Distributions) -> list[tuple[str, tuple[npt.ArrayLike, npt.ArrayLike]]]:
    if isinstance(library, HandLibrary):
        return [(e.hand, (e.scores, e.probs)) for e in library]
    return list(library.items())


def rank_by_discrimination(
    library: Distributions, players: int, rounds: int, top: int
) -> list[RankedHand]:
    """Every hand with its DIH, highest first (ties keep the library order).

    >>> lib = {"a": ([-1, 1], [0.5, 0.5]), "b": ([-2, -1, 1, 2], [0.1, 0.4, 0.4, 0.1])}
    >>> [(r.hand, round(r.dih, 4)) for r in rank_by_discrimination(lib, 4, 1, 2)]
    [('b', 0.4932), ('a', 0.25)]
    """
    ranked = []
    cache: dict[tuple[tuple[float, ...], tuple[float, ...]], float] = {}
    for hand, (scores, probs) in _items(library):
        key = (
            tuple(np.asarray(scores, dtype=float).tolist()),
            tuple(np.asarray(probs, dtype=float).tolist()),
        )
        if key not in cache:
            try:
                values, p = total_distribution(scores, probs, rounds)
                cache[key] = discrimination_of_total(values, p, players, top)
            except TournamentError as exc:
                raise TournamentError(f"hand {hand}: {exc}") from None
        ranked.append(RankedHand(hand, cache[key]))
    ranked.sort(key=lambda r: -r.dih)
    return ranked


def select_test_cases(
    library: Distributions, players: int, rounds: int, top: int
) -> list[RankedHand]:
    """The ``rounds`` hands of highest DIH (one per round), highest first."""
    ranked = rank_by_discrimination(library, players, rounds, top)
    if len(ranked) < rounds:
        raise TournamentError(
            f"the library holds {len(ranked)} hands, fewer than the {rounds} rounds to deal"
        )
    return ranked[:rounds]


def cross_combinations(
    landlords: Sequence[T], farmers1: Sequence[T], farmers2: Sequence[T]
) -> list[tuple[T, T, T]]:
    """Algorithm 1, step 1: every (landlord, farmer 1, farmer 2) line-up, a x b x d of them."""
    for name, group in (("landlords", landlords), ("farmers1", farmers1), ("farmers2", farmers2)):
        if len(group) == 0:
            raise TournamentError(f"{name} is empty: Algorithm 1 needs at least one bot per seat")
    return list(itertools.product(landlords, farmers1, farmers2))


def _totals(results: Mapping[K, float | Sequence[float]]) -> dict[K, float]:
    totals: dict[K, float] = {}
    for key, value in results.items():
        total = float(np.sum(np.asarray(value, dtype=np.float64)))
        if not np.isfinite(total):
            raise TournamentError(f"the result of {key!r} is not finite: {value!r}")
        totals[key] = total
    if not totals:
        raise TournamentError("results is empty: no line-up has played")
    return totals


def score_rates(results: Mapping[K, float | Sequence[float]]) -> dict[K, float]:
    """Algorithm 1, step 7: rate (T - Tmin) / (Tmax - Tmin) of each line-up's total T.

    ``results`` maps each line-up to its landlord total or its per-hand landlord scores.

    >>> score_rates({"x": [1, 2], "y": [-1, -1], "z": 0})
    {'x': 1.0, 'y': 0.0, 'z': 0.4}
    """
    totals = _totals(results)
    low, high = min(totals.values()), max(totals.values())
    if high == low:
        raise TournamentError(
            f"every line-up has the same total ({low}); the bots do not discriminate"
        )
    return {k: (t - low) / (high - low) for k, t in totals.items()}


def select_discriminating_players(
    results: Mapping[K, float | Sequence[float]], w: int, rng: np.random.Generator
) -> list[K]:
    """Algorithm 1, steps 7-10: one random line-up from each of ``w`` score-rate buckets.

    Bucket i holds the rates in ((i-1)/w, i/w]; rate 0 belongs to the first. Empty buckets
    are skipped, so fewer than ``w`` line-ups come back when the rates leave gaps; the result
    is ordered from the lowest bucket to the highest.
    """
    if isinstance(w, bool) or int(w) != w or w < 1:
        raise TournamentError(f"w must be a positive integer, got {w!r}")
    rates = score_rates(results)
    buckets: list[list[K]] = [[] for _ in range(int(w))]
    for key, rate in rates.items():
        index = max(0, int(np.ceil(rate * w)) - 1)
        buckets[min(index, int(w) - 1)].append(key)
    chosen: list[K] = []
    for bucket in buckets:
        if bucket:
            chosen.append(bucket[int(rng.integers(len(bucket)))])
    return chosen
