"""Rank points per round (the DIH paper): R = 2 x (n - O + 1), O the place, totals over rounds.

Places follow standard competition ranking: a higher score is a better place and tied scores
share the best place of the tie (scores 5, 3, 3, 1 take places 1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mindsport.tournament.errors import TournamentError

__all__ = ["competition_places", "rank_points", "total_rank_points"]


def _as_scores(scores: npt.ArrayLike, name: str = "scores") -> npt.NDArray[np.float64]:
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim != 1:
        raise TournamentError(f"{name} must be one score per player, got shape {arr.shape}")
    if arr.size == 0:
        raise TournamentError(f"{name} is empty: a round needs at least one player")
    if not np.all(np.isfinite(arr)):
        raise TournamentError(f"{name} contains a non-finite value: {arr.tolist()}")
    return arr


def competition_places(scores: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Place of each player (1 = best; ties share the best place of the tie).

    >>> competition_places([1, 5, 3, 3]).tolist()
    [4, 1, 2, 2]
    """
    arr = _as_scores(scores)
    ordered = np.sort(arr)
    # number of players with a strictly higher score
    higher = arr.size - np.searchsorted(ordered, arr, side="right")
    return (higher + 1).astype(np.int64)


def rank_points(scores: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Rank points of one round: R = 2 x (n - O + 1) for each player, O its place.

    >>> rank_points([1, 5, 3, 3]).tolist()
    [2, 8, 6, 6]
    """
    places = competition_places(scores)
    n = places.size
    return 2 * (n - places + 1)


def total_rank_points(rounds: Sequence[npt.ArrayLike] | npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Sum of the rank points over rounds; ``rounds[d][i]`` is player i's score in round d.

    >>> total_rank_points([[1, 5, 3, 3], [2, 2, 2, 0]]).tolist()
    [10, 16, 14, 8]
    """
    matrix = np.asarray(rounds, dtype=np.float64)
    if matrix.ndim != 2:
        raise TournamentError(
            f"rounds must be a rounds x players table of scores, got shape {matrix.shape}"
        )
    if matrix.shape[0] == 0:
        raise TournamentError("rounds is empty: no round to total")
    total = np.zeros(matrix.shape[1], dtype=np.int64)
    for d, row in enumerate(matrix):
        total += rank_points(_as_scores(row, name=f"rounds[{d}]"))
    return total
