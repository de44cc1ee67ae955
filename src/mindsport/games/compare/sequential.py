"""Sequential stopping: Wald's sequential probability ratio test on the Elo scale, or a target
interval width.

:class:`Sprt` tests ``H0: elo = elo0`` against ``H1: elo = elo1`` (``elo0 < elo1``), the Elo
difference of the first bot over the second, with error rates ``alpha`` (accepting H1 when H0
holds) and ``beta`` (accepting H0 when H1 holds). It reads the duplicate sets' (corrected) win
scores ``x_i`` as normal with the variance of the sample (the generalized SPRT of chess engine
testing): with ``w0``, ``w1`` the win scores of ``elo0``, ``elo1`` and ``s2`` the sample
variance (divisor ``n``),

    LLR = sum_i [(x_i - w0)^2 - (x_i - w1)^2] / (2 s2) = n (w1 - w0) (2 mean - w0 - w1) / (2 s2),

the log-likelihood ratio of two normal models with that variance. Wald's bounds are
``lower = log(beta / (1 - alpha))`` and ``upper = log((1 - beta) / alpha)``: the test accepts H1
once ``LLR >= upper``, H0 once ``LLR <= lower``, and goes on in between. It is checked after
each batch of sets, which only makes it more careful (it sees fewer crossings).

:class:`Width` stops once the interval of the chosen result is no wider than ``width``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.games.compare.estimate import score_of

__all__ = ["METRICS", "Sprt", "SprtState", "Width"]

Metric = Literal["win", "score"]
METRICS: tuple[str, ...] = ("win", "score")

#: a sample variance below this is taken as this (a sample of equal values still decides)
MIN_VARIANCE = 1e-9


def _probability(value: float, name: str) -> float:
    if isinstance(value, bool) or not (0.0 < float(value) < 0.5):
        raise MindsportError(f"{name} must be a probability in (0, 0.5), got {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True)
class SprtState:
    """The test after some sets: its log-likelihood ratio, Wald's bounds and the verdict
    (``"H0"``, ``"H1"`` or None while undecided)."""

    llr: float
    lower: float
    upper: float
    verdict: str | None


@dataclass(frozen=True, slots=True)
class Sprt:
    """Wald's SPRT of ``H0: elo = elo0`` against ``H1: elo = elo1`` (see the module)."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        _probability(self.alpha, "alpha")
        _probability(self.beta, "beta")
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not (math.isfinite(value) and abs(value) <= 2000):
                raise MindsportError(f"{name} must be a finite Elo difference, got {value!r}")
        if not self.elo0 < self.elo1:
            raise MindsportError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
        return (
            math.log(self.beta / (1.0 - self.alpha)),
            math.log((1.0 - self.beta) / self.alpha),
        )

    def llr(self, values: npt.ArrayLike) -> float:
        """The log-likelihood ratio of H1 over H0 for win scores ``values`` (see the module).

        >>> round(Sprt(0.0, 100.0).llr([0.5, 0.75, 0.75, 1.0]), 3)
        3.227
        """
        x = np.asarray(values, dtype=np.float64)
        if x.size < 2:
            return 0.0
        w0, w1 = score_of(self.elo0), score_of(self.elo1)
        s2 = max(float(x.var()), MIN_VARIANCE)
        return float(x.size * (w1 - w0) * (2.0 * x.mean() - w0 - w1) / (2.0 * s2))

    def state(self, values: npt.ArrayLike) -> SprtState:
        """The test on ``values``: the LLR, the bounds and the verdict."""
        llr = self.llr(values)
        lower, upper = self.bounds
        verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
        return SprtState(llr, lower, upper, verdict)

    def describe(self) -> str:
        return (
            f"SPRT H0: elo = {self.elo0:g} against H1: elo = {self.elo1:g}, "
            f"alpha {self.alpha:g}, beta {self.beta:g}"
        )


@dataclass(frozen=True, slots=True)
class Width:
    """Stop once the interval of ``metric`` (``"win"``: the win score, ``"score"``: the
    margin) is at most ``width`` wide."""

    width: float
    metric: Metric = "win"

    def __post_init__(self) -> None:
        if isinstance(self.width, bool) or not (math.isfinite(self.width) and self.width > 0):
            raise MindsportError(f"the target width must be a positive number, got {self.width!r}")
        if self.metric not in METRICS:
            raise MindsportError(f"metric must be one of {', '.join(METRICS)}, got {self.metric!r}")

    def describe(self) -> str:
        return f"until the {self.metric} interval is at most {self.width:g} wide"
