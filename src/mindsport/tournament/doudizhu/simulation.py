"""Simulated validation with Dou Dizhu games (seed 001 section 1.2, seed 004 experiment 3).

Entrants are bot line-ups ``(landlord, farmer 1, farmer 2)`` whose result on a hand is the
landlord score of one game (:func:`lineup_oracle`), or landlord bots at tables with fixed farmer
bots (:func:`landlord_oracle`). On top of the pure functions of :mod:`mindsport.tournament.formats`:

* :func:`play_records`: every line-up plays every hand once -> (hand text, landlord score)
  records, the input of hand libraries (score distributions for DIH, GDI per hand);
* :func:`discriminating_lineups`: seed 001's Algorithm 1 end to end (cross the bots, play
  random hands, bucket the score rates, one line-up per bucket);
* :func:`validate_test_cases`: seed 001's P1 (random hands) against P2 (the hands of highest
  DIH): the share of events whose best ``top`` rank-point totals are pairwise distinct;
* :func:`compare_formats`: seed 004's experiment 3, place-probability tables of the same
  entrants under duplicate, equal-strength and random dealing.

Hands are :class:`~mindsport.doudizhu.Deal` values throughout; a library (keyed by the deals'
text, as on disk) is turned into deals once, by :func:`library_deals`. Every function takes an
explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu import LINEAR, Deal, ScoringRule, deal, play
from mindsport.doudizhu.bots import Bot
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.formats import (
    Oracle,
    Plan,
    Ranking,
    duplicate_plan,
    equal_strength_plan,
    event_places,
    place_probabilities,
    play_event,
    random_plan,
)
from mindsport.tournament.library import HandLibrary
from mindsport.tournament.rank_points import total_rank_points
from mindsport.tournament.selection import (
    cross_combinations,
    select_discriminating_players,
    select_test_cases,
)

__all__ = [
    "FormatComparison",
    "Validation",
    "compare_formats",
    "deal_hand",
    "discriminating_lineups",
    "landlord_oracle",
    "library_deals",
    "lineup_oracle",
    "play_records",
    "top_distinct",
    "validate_test_cases",
]

Lineup = tuple[Bot, Bot, Bot]


def deal_hand(rng: np.random.Generator) -> Deal:
    """A random deal (seed 001's Algorithm 2)."""
    return deal(rng)


def library_deals(library: HandLibrary) -> dict[str, Deal]:
    """The library's hands as deals (read once from the seeds' notation), by their text."""
    return {hand: Deal.parse(hand) for hand in library.hands}


def lineup_oracle(scoring: ScoringRule = LINEAR) -> Oracle[Lineup, Deal]:
    """Oracle for line-up entrants: the landlord score of one game of ``hand``."""

    def oracle(entrant: Lineup, hand: Deal, rng: np.random.Generator) -> float:
        return float(play(hand, list(entrant), scoring, rng).landlord_score)

    return oracle


def landlord_oracle(farmers: Sequence[Bot], scoring: ScoringRule = LINEAR) -> Oracle[Bot, Deal]:
    """Oracle for landlord-bot entrants at tables with the fixed ``farmers`` (seed 004)."""
    if len(farmers) != 2:
        raise TournamentError(f"farmers must be two bots (farmer 1, farmer 2), got {len(farmers)}")
    f1, f2 = farmers

    def oracle(entrant: Bot, hand: Deal, rng: np.random.Generator) -> float:
        return float(play(hand, [entrant, f1, f2], scoring, rng).landlord_score)

    return oracle


def play_records(
    hands: Sequence[Deal],
    entrants: Sequence[Any],
    oracle: Oracle[Any, Deal],
    rng: np.random.Generator,
) -> list[tuple[str, float]]:
    """Every entrant plays every hand once: ``[(hand text, landlord score), ...]`` (the
    records of :meth:`~mindsport.tournament.library.HandLibrary.from_records`)."""
    return [(str(hand), float(oracle(e, hand, rng))) for hand in hands for e in entrants]


def discriminating_lineups(
    landlords: Sequence[Bot],
    farmers1: Sequence[Bot],
    farmers2: Sequence[Bot],
    hands: int,
    w: int,
    rng: np.random.Generator,
    scoring: ScoringRule = LINEAR,
) -> list[Lineup]:
    """Seed 001's Algorithm 1: line-ups spread over ``w`` score-rate buckets."""
    lineups = cross_combinations(landlords, farmers1, farmers2)
    deals = [deal_hand(rng) for _ in range(hands)]
    oracle = lineup_oracle(scoring)
    totals = {i: sum(oracle(lineup, h, rng) for h in deals) for i, lineup in enumerate(lineups)}
    return [lineups[i] for i in select_discriminating_players(totals, w, rng)]


def top_distinct(totals: npt.ArrayLike, top: int) -> bool:
    """Whether the best ``top`` values are pairwise distinct (X(1) > ... > X(top)).

    >>> top_distinct([3, 5, 5, 1], 2), top_distinct([3, 5, 4, 4], 2)
    (False, True)
    """
    values = np.sort(np.asarray(totals, dtype=np.float64))[::-1]
    if top < 1 or top > values.size:
        raise TournamentError(f"top must be between 1 and {values.size}, got {top}")
    head = values[:top]
    return bool(np.all(head[:-1] > head[1:]))


@dataclass(frozen=True)
class Validation:
    """Seed 001's P1 (random hands) and P2 (selected test cases); ``hands`` are the selection."""

    p_random: float
    p_selected: float
    hands: tuple[str, ...]
    events: int

    @property
    def improvement(self) -> float:
        """(P2 - P1) / P1 (``inf`` when P1 is 0 and P2 is not)."""
        if self.p_random == 0:
            return 0.0 if self.p_selected == 0 else float("inf")
        return (self.p_selected - self.p_random) / self.p_random


def _distinct_share(
    entrants: Sequence[Any],
    make_plan: Callable[[np.random.Generator], Plan[Deal]],
    oracle: Oracle[Any, Deal],
    events: int,
    top: int,
    rng: np.random.Generator,
) -> float:
    hits = 0
    for _ in range(events):
        scores = play_event(entrants, make_plan(rng), oracle, rng)
        hits += top_distinct(total_rank_points(scores), top)
    return hits / events


def validate_test_cases(
    entrants: Sequence[Any],
    library: HandLibrary,
    rounds: int,
    top: int,
    events: int,
    rng: np.random.Generator,
    oracle: Oracle[Any, Deal],
) -> Validation:
    """Seed 001, section 1.2: events of ``rounds`` rounds ranked by summed rank points.

    P1: each round every entrant plays the same random deal; P2: the same, with the ``rounds``
    hands of highest DIH in ``library`` (for ``len(entrants)`` players and ``top`` places). The
    result is the share of events whose best ``top`` totals are pairwise distinct (seed 001's
    "r = 1, the champion is unique" is ``top=2``).
    """
    if events < 1:
        raise TournamentError(f"events must be a positive integer, got {events!r}")
    n = len(entrants)
    chosen = tuple(r.hand for r in select_test_cases(library, n, rounds, top))
    deals = library_deals(library)
    selected = [deals[h] for h in chosen]

    def random_rounds(g: np.random.Generator) -> Plan[Deal]:
        return duplicate_plan([deal_hand(g) for _ in range(rounds)], n)

    def selected_rounds(g: np.random.Generator) -> Plan[Deal]:
        return duplicate_plan(selected, n)

    p1 = _distinct_share(entrants, random_rounds, oracle, events, top, rng)
    p2 = _distinct_share(entrants, selected_rounds, oracle, events, top, rng)
    return Validation(p1, p2, chosen, events)


@dataclass(frozen=True)
class FormatComparison:
    """Place-probability tables (entrant x place) per format, as in seed 004's Tables 3-5."""

    duplicate: npt.NDArray[np.float64]
    equal_strength: npt.NDArray[np.float64]
    random: npt.NDArray[np.float64]
    equal_strength_hands: int

    def most_likely_places(self) -> dict[str, list[int]]:
        """Each entrant's most probable place (1-based) under each format."""
        return {
            name: (np.argmax(table, axis=1) + 1).tolist()
            for name, table in (
                ("duplicate", self.duplicate),
                ("equal_strength", self.equal_strength),
                ("random", self.random),
            )
        }


def compare_formats(
    entrants: Sequence[Any],
    library: HandLibrary,
    centre: Sequence[float],
    epsilon: float,
    rounds: int,
    events: int,
    rng: np.random.Generator,
    oracle: Oracle[Any, Deal],
    ranking: Ranking = "total",
) -> FormatComparison:
    """Seed 004, experiment 3: the same entrants under the three ways of dealing.

    Duplicate deals one random hand per round to all; equal strength deals distinct hands from
    ``library.equal_strength(centre, epsilon)``; random deals an independent hand to each.
    """
    n = len(entrants)
    deals = library_deals(library)
    pool = [deals[h] for h in library.equal_strength(centre, epsilon).hands]
    if len(pool) < n:
        raise TournamentError(
            f"only {len(pool)} hands lie within {epsilon} of GDI {list(centre)}; "
            f"{n} entrants need {n}"
        )
    makers: dict[str, Callable[[np.random.Generator], Plan[Deal]]] = {
        "duplicate": lambda g: duplicate_plan([deal_hand(g) for _ in range(rounds)], n),
        "equal_strength": lambda g: equal_strength_plan(pool, n, rounds, g),
        "random": lambda g: random_plan(n, rounds, g, deal_hand),
    }
    tables = {}
    for name, make in makers.items():
        places = np.empty((events, n), dtype=np.int64)
        for e in range(events):
            places[e] = event_places(play_event(entrants, make(rng), oracle, rng), ranking)
        tables[name] = place_probabilities(places)
    return FormatComparison(
        tables["duplicate"], tables["equal_strength"], tables["random"], len(pool)
    )
