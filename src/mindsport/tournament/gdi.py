"""Grade difficulty index (GDI, the equal-strength paper) and equal-strength hands.

With the k possible landlord scores s_1 < s_2 < ... < s_k seen as k grades, a hand played once
at each of n tables has G = (g_1, ..., g_{k-1}), g_i = fraction of tables whose landlord score
reached grade i + 1 or higher (grade 1 is always reached and is left out). Two hands have
*equal strength* when the Euclidean distance of their GDIs is below a threshold epsilon.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from mindsport.tournament.errors import TournamentError

__all__ = [
    "EQUAL_STRENGTH_CENTRE",
    "EQUAL_STRENGTH_EPSILON",
    "ONE_BOMB_LEVELS",
    "equal_strength",
    "gdi_distance",
    "grade_difficulty",
]

#: the equal-strength paper: deals with exactly one bomb in all three hands, landlord scores (-2,
#: -1, 1, 2)
ONE_BOMB_LEVELS: tuple[float, ...] = (-2.0, -1.0, 1.0, 2.0)
EQUAL_STRENGTH_CENTRE: tuple[float, ...] = (0.96, 0.91, 0.79)
EQUAL_STRENGTH_EPSILON: float = 0.15


def _levels(levels: Sequence[float]) -> npt.NDArray[np.float64]:
    arr = np.asarray(levels, dtype=np.float64).ravel()
    if arr.size < 2:
        raise TournamentError(f"levels needs at least two scores, got {list(levels)!r}")
    if not np.all(np.isfinite(arr)):
        raise TournamentError(f"levels contains a non-finite value: {arr.tolist()}")
    if np.unique(arr).size != arr.size:
        raise TournamentError(f"levels contains a repeated score: {arr.tolist()}")
    return np.sort(arr)


def grade_difficulty(
    scores_by_table: Sequence[float] | npt.ArrayLike, levels: Sequence[float]
) -> npt.NDArray[np.float64]:
    """GDI of one hand from the landlord score at each table; ``levels`` are the k grades.

    >>> grade_difficulty([2, 1, 1, -1, -2], levels=(-2, -1, 1, 2)).tolist()
    [0.8, 0.6, 0.2]
    """
    grades = _levels(levels)
    scores = np.asarray(scores_by_table, dtype=np.float64).ravel()
    if scores.size == 0:
        raise TournamentError("scores_by_table is empty: the hand was played at no table")
    unknown = sorted(set(scores.tolist()) - set(grades.tolist()))
    if unknown:
        raise TournamentError(
            f"scores_by_table contains scores {unknown} that are not among levels {grades.tolist()}"
        )
    return np.array([(scores >= g).mean() for g in grades[1:]], dtype=np.float64)


def _vector(g: Sequence[float] | npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    arr = np.asarray(g, dtype=np.float64).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise TournamentError(
            f"{name} must be a non-empty vector of finite numbers, got {arr.tolist()}"
        )
    return arr


def gdi_distance(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Euclidean distance between two GDIs of the same length.

    >>> round(gdi_distance([0.96, 0.91, 0.79], [0.95, 0.95, 0.95]), 4)
    0.1652
    """
    x, y = _vector(a, "a"), _vector(b, "b")
    if x.size != y.size:
        raise TournamentError(f"GDIs differ in length ({x.size} vs {y.size})")
    return float(np.linalg.norm(x - y))


def equal_strength(
    gdis: Mapping[str, npt.ArrayLike] | Iterable[tuple[str, npt.ArrayLike]],
    centre: npt.ArrayLike = EQUAL_STRENGTH_CENTRE,
    epsilon: float = EQUAL_STRENGTH_EPSILON,
) -> list[tuple[str, float]]:
    """Hands whose GDI lies strictly within ``epsilon`` of ``centre``, nearest first.

    Returns ``[(hand, distance), ...]``; ties keep the input order.
    """
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise TournamentError(f"epsilon must be a positive number, got {epsilon!r}")
    c = _vector(centre, "centre")
    items = gdis.items() if isinstance(gdis, Mapping) else gdis
    chosen = []
    for hand, g in items:
        d = gdi_distance(g, c)
        if d < epsilon:
            chosen.append((hand, d))
    chosen.sort(key=lambda item: item[1])
    return chosen
