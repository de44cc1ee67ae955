"""Tournament formats as pure functions over a score oracle.

The seeds' experiments treat each *entrant* as one table "player" (a landlord bot with fixed
farmer bots, or a bot line-up) whose result on a hand is the landlord score. A *plan* says which
hand each entrant plays in each round (``plan[round][entrant]``):

* :func:`duplicate_plan`: every entrant plays the same hand in a round (复式);
* :func:`equal_strength_plan`: every entrant gets a different hand, all from an equal-strength
  set (GDI within epsilon of a centre, seed 004);
* :func:`random_plan`: every entrant gets an independently dealt hand.

:func:`play_event` asks the oracle ``oracle(entrant, hand, rng) -> landlord score`` for every
cell, :func:`event_places` ranks by total score or by rank points, and
:func:`place_probabilities` turns many simulated events into the rank-probability table of
seed 004 (Tables 3-5). :func:`simulate_format` does all of it for one format.

For people seated three to a table, :func:`rotated_seatings` gives the three seat rotations of a
table so that, in duplicate play, each of the three plays every seat of the same deal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

import numpy as np
import numpy.typing as npt

from mindsport.tournament.errors import TournamentError
from mindsport.tournament.rank_points import competition_places, total_rank_points

__all__ = [
    "Plan",
    "duplicate_plan",
    "equal_strength_plan",
    "event_places",
    "place_probabilities",
    "play_event",
    "random_plan",
    "rotated_seatings",
    "simulate_format",
]

P = TypeVar("P")
H = TypeVar("H")
#: ``plan[round][entrant]``: the hand (any value: a deal, a deal's text) each entrant plays
Plan = list[list[H]]
Oracle = Callable[[P, H, np.random.Generator], float]
Ranking = Literal["total", "rank_points"]


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise TournamentError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def duplicate_plan(hands: Sequence[H], entrants: int) -> Plan[H]:
    """One round per hand, the same hand for every entrant.

    >>> duplicate_plan(["h1", "h2"], 3)
    [['h1', 'h1', 'h1'], ['h2', 'h2', 'h2']]
    """
    n = _positive("entrants", entrants)
    if len(hands) == 0:
        raise TournamentError("hands is empty: a duplicate event needs one hand per round")
    return [[h] * n for h in hands]


def equal_strength_plan(
    candidates: Sequence[H], entrants: int, rounds: int, rng: np.random.Generator
) -> Plan[H]:
    """Each round, distinct hands drawn without replacement from an equal-strength set.

    ``candidates`` is the equal-strength set, e.g. ``library.equal_strength(centre, eps).hands``
    or the hands of :func:`mindsport.tournament.gdi.equal_strength`.
    """
    n = _positive("entrants", entrants)
    m = _positive("rounds", rounds)
    pool = list(dict.fromkeys(candidates))
    if len(pool) < n:
        raise TournamentError(
            f"the equal-strength set holds {len(pool)} hands, fewer than the {n} entrants"
        )
    return [[pool[i] for i in rng.choice(len(pool), size=n, replace=False)] for _ in range(m)]


def random_plan(
    entrants: int, rounds: int, rng: np.random.Generator, deal: Callable[[np.random.Generator], H]
) -> Plan[H]:
    """An independently dealt hand for every entrant and round (``deal(rng) -> hand``)."""
    n = _positive("entrants", entrants)
    m = _positive("rounds", rounds)
    return [[deal(rng) for _ in range(n)] for _ in range(m)]


def play_event(
    entrants: Sequence[P], plan: Plan[H], oracle: Oracle[P, H], rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """Scores of every entrant in every round: ``scores[round, entrant]``."""
    if len(entrants) == 0:
        raise TournamentError("entrants is empty: an event needs at least one entrant")
    scores = np.zeros((len(plan), len(entrants)), dtype=np.float64)
    for d, row in enumerate(plan):
        if len(row) != len(entrants):
            raise TournamentError(
                f"plan round {d} deals {len(row)} hands for {len(entrants)} entrants"
            )
        for i, (entrant, hand) in enumerate(zip(entrants, row, strict=True)):
            value = float(oracle(entrant, hand, rng))
            if not np.isfinite(value):
                raise TournamentError(f"oracle returned {value} for {entrant!r} on {hand}")
            scores[d, i] = value
    return scores


def event_places(scores: npt.ArrayLike, ranking: Ranking = "total") -> npt.NDArray[np.int64]:
    """Final places (1 = best, ties share the best place) from ``scores[round, entrant]``.

    ``ranking="total"`` ranks by total score; ``"rank_points"`` by seed 001's summed rank
    points per round.

    >>> event_places([[1, 0, -1], [-2, 1, 1]]).tolist()
    [3, 1, 2]
    >>> event_places([[1, 0, -1], [-2, 1, 1]], "rank_points").tolist()
    [2, 1, 2]
    """
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2 or matrix.size == 0:
        raise TournamentError(f"scores must be a rounds x entrants table, got shape {matrix.shape}")
    if ranking == "total":
        return competition_places(matrix.sum(axis=0))
    if ranking == "rank_points":
        return competition_places(total_rank_points(matrix))
    raise TournamentError(f"ranking must be 'total' or 'rank_points', got {ranking!r}")


def place_probabilities(places: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``table[i, k]``: fraction of events in which entrant i finished at place k + 1.

    ``places[event, entrant]`` as returned by :func:`event_places`; a tie counts at the shared
    (best) place.

    >>> place_probabilities([[1, 2], [2, 1], [1, 1]]).tolist()
    [[0.6666666666666666, 0.3333333333333333], [0.6666666666666666, 0.3333333333333333]]
    """
    matrix = np.asarray(places)
    if matrix.ndim != 2 or matrix.size == 0:
        raise TournamentError(
            f"places must be an events x entrants table, got shape {matrix.shape}"
        )
    events, n = matrix.shape
    if np.any(matrix < 1) or np.any(matrix > n) or np.any(matrix != np.round(matrix)):
        raise TournamentError(f"places must be integers between 1 and {n}")
    table = np.zeros((n, n), dtype=np.float64)
    for i in range(n):
        table[i] = np.bincount(matrix[:, i].astype(np.int64) - 1, minlength=n) / events
    return table


def simulate_format(
    entrants: Sequence[P],
    make_plan: Callable[[np.random.Generator], Plan[H]],
    oracle: Oracle[P, H],
    events: int,
    rng: np.random.Generator,
    ranking: Ranking = "total",
) -> npt.NDArray[np.float64]:
    """Run ``events`` independent events of one format; return the place-probability table."""
    count = _positive("events", events)
    places = np.empty((count, len(entrants)), dtype=np.int64)
    for e in range(count):
        plan = make_plan(rng)
        places[e] = event_places(play_event(entrants, plan, oracle, rng), ranking)
    return place_probabilities(places)


def rotated_seatings(table: Sequence[P]) -> list[tuple[P, P, P]]:
    """The three rotations of a table of three: (landlord, farmer 1, farmer 2) seatings.

    >>> rotated_seatings(["a", "b", "c"])
    [('a', 'b', 'c'), ('b', 'c', 'a'), ('c', 'a', 'b')]
    """
    if len(table) != 3:
        raise TournamentError(f"a table seats three players, got {len(table)}: {list(table)!r}")
    a, b, c = table
    return [(a, b, c), (b, c, a), (c, a, b)]
