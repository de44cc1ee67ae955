"""Calibration curves: predicted probabilities in equal-width bins against observed frequencies
(the pairwise curve of :mod:`mindsport.history.evaluate`, the win/draw/loss curves of
:mod:`mindsport.history.threeway`).

>>> import numpy as np
>>> curve = calibration(np.array([0.1, 0.2, 0.8]), np.array([0, 1, 1.0]), 2)
>>> [(b.count, b.observed) for b in curve]
[(2, 0.5), (1, 1.0)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["CalibrationBin", "calibration"]


@dataclass(frozen=True, slots=True)
class CalibrationBin:
    """One bin of the calibration curve."""

    low: float
    high: float
    mean_predicted: float
    observed: float
    count: int


def calibration(
    q: NDArray[np.float64], z: NDArray[np.float64], bins: int
) -> tuple[CalibrationBin, ...]:
    """``bins`` equal-width bins of the predictions ``q`` (in [0, 1]; 1 falls in the last bin):
    per bin the mean prediction, the mean of the outcomes ``z`` (0 or 1) and the count (NaN
    means in an empty bin)."""
    b = np.minimum((q * bins).astype(np.int64), bins - 1)
    n = np.bincount(b, minlength=bins)
    sp = np.bincount(b, weights=q, minlength=bins)
    sy = np.bincount(b, weights=z, minlength=bins)
    return tuple(
        CalibrationBin(
            k / bins,
            (k + 1) / bins,
            float(sp[k] / n[k]) if n[k] else float("nan"),
            float(sy[k] / n[k]) if n[k] else float("nan"),
            int(n[k]),
        )
        for k in range(bins)
    )
