"""Estimates with intervals, the rating scale, and the effective-sample gains of a design.

* :func:`estimate`: the mean of independent units (duplicate sets) with its standard error and
  a two-sided Student-t interval;
* :func:`elo_of` / :func:`score_of`: a win score on the logistic (Elo) scale and back,
  ``elo = 400 log10(w / (1 - w))``;
* :func:`stratified_variance`: the variance per game of the random-deal design, estimated from
  duplicate data (each line-up's results over the sets are what that design draws for that
  line-up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError

__all__ = ["Estimate", "elo_of", "estimate", "score_of", "stratified_variance"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean, its standard error, the interval ``[low, high]`` at ``level`` and the number of
    independent units it rests on."""

    mean: float
    se: float
    low: float
    high: float
    level: float
    units: int

    @property
    def width(self) -> float:
        return self.high - self.low

    def to_json(self) -> dict[str, float | int]:
        return {
            "mean": self.mean,
            "se": self.se,
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "units": self.units,
        }


def t_quantile(level: float, df: int) -> float:
    """The two-sided Student-t quantile of ``level`` with ``df`` degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2.0, df))


def estimate(values: npt.ArrayLike, level: float = 0.95, *, se: float | None = None) -> Estimate:
    """The mean of ``values`` (independent units) with a Student-t interval at ``level``;
    ``se`` replaces the sample's standard error when given (e.g. the naive one).

    >>> e = estimate([1.0, 2.0, 3.0, 4.0])
    >>> round(e.mean, 3), round(e.se, 4), round(e.low, 3), round(e.high, 3)
    (2.5, 0.6455, 0.446, 4.554)
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise MindsportError(f"an estimate needs at least two units, got {x.size}")
    if not np.isfinite(x).all():
        raise MindsportError("an estimate's values must be finite")
    if not 0.0 < level < 1.0:
        raise MindsportError(f"the interval's level must be in (0, 1), got {level!r}")
    mean = float(x.mean())
    error = float(x.std(ddof=1) / math.sqrt(x.size)) if se is None else float(se)
    half = t_quantile(level, x.size - 1) * error
    return Estimate(mean, error, mean - half, mean + half, level, int(x.size))


def elo_of(win_score: float, games: int) -> float:
    """A win score on the Elo scale, ``400 log10(w / (1 - w))``, with ``w`` kept within half a
    game of 0 and 1 (``games`` games played) so that it stays finite.

    >>> round(elo_of(0.75, 100), 2), elo_of(0.5, 10)
    (190.85, 0.0)
    """
    eps = 0.5 / max(1, games)
    w = min(1.0 - eps, max(eps, float(win_score)))
    return 400.0 * math.log10(w / (1.0 - w))


def score_of(elo: float) -> float:
    """The win score of an Elo difference: ``1 / (1 + 10 ** (-elo / 400))``.

    >>> round(score_of(190.85), 4)
    0.75
    """
    return 1.0 / (1.0 + 10.0 ** (-float(elo) / 400.0))


def stratified_variance(per_lineup: npt.ArrayLike) -> float:
    """The variance of one game of the random-deal design that cycles through the line-ups,
    from ``per_lineup[set, lineup]`` results of duplicate sets: the mean over line-ups of each
    line-up's variance across sets (the line-ups' differing means are no noise of that design,
    which plays each equally often)."""
    x = np.asarray(per_lineup, dtype=np.float64)
    return float(x.var(axis=0, ddof=1).mean())
