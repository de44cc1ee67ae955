"""The luck correction: a control variate of expected value zero whatever the bots do, and the
cross-fitted regression that weighs it.

**What it uses.** For each duplicate set ``i`` the game's fixed *reference pairs*
(:attr:`~mindsport.games.contract.GameInfo.references`, e.g. Dou Dizhu's ``strong`` against
``greedy``) play the set's chance outcome ``d_i`` in every line-up of the rotation; their mean
margin and mean win score are the features ``f(d_i)`` of that outcome: how much it rewards
the better player, as fixed bots see it. The same reference pairs also play ``K`` further
outcomes ``d'_ij`` drawn independently for the set (the *calibration* outcomes), and the
control variate is

    c_i = f(d_i) - mean_j f(d'_ij).

Both terms are features of outcomes drawn from the game's own chance distribution and played
by the same fixed bots on generators of their own, so ``E[c_i] = 0`` exactly, with no
expectation to know in advance; the calibration's noise is part of ``c_i`` and so of the
interval.

**The estimate.** The corrected value of set ``i`` is ``z_i = y_i - c_i . beta_k``, where
``y_i`` is the set's result (its mean margin or win score) and ``beta_k`` the least-squares
coefficients of ``y`` on ``c`` fitted on the *other* folds (sets are dealt into ``folds`` folds
by number). ``beta_k`` depends only on other sets, which are independent of set ``i``, so
``E[c_i . beta_k] = E[c_i] . E[beta_k] = 0`` and ``E[z_i] = E[y_i]``: the corrected mean is
unbiased at any number of sets, and the correction can only remove variance that the features
explain.

**Why a bot cannot game it.** The variate never looks at the compared bots' games: it is a
function of chance outcomes and of the reference bots' play on them, fixed before any game of
the comparison. A bot may play well or badly on the outcomes the references find lucky, which
changes how much variance the correction removes, but not ``E[c_i] = 0``, so not the mean of
the estimate. Nothing is fitted on the set it corrects.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError

__all__ = ["DEFAULT_FOLDS", "Correction", "correct"]

FloatArray = npt.NDArray[np.float64]

#: folds of the cross-fitting
DEFAULT_FOLDS = 5


class Correction:
    """The corrected values ``values`` (one per set) and each fold's coefficients ``beta``
    (folds x features; zero rows where a fold had too few other sets to fit)."""

    __slots__ = ("beta", "values")

    def __init__(self, values: FloatArray, beta: FloatArray) -> None:
        self.values = values
        self.beta = beta


def _fit(y: FloatArray, c: FloatArray) -> FloatArray:
    """Least-squares slopes of ``y`` on ``c`` with an intercept (minimum norm when ``c`` is
    rank-deficient, e.g. a constant feature)."""
    cc = c - c.mean(axis=0)
    yc = y - y.mean()
    beta, *_ = np.linalg.lstsq(cc, yc, rcond=1e-10)
    out: FloatArray = np.where(np.isfinite(beta), beta, 0.0)
    return out


def correct(
    values: npt.ArrayLike, variates: npt.ArrayLike, *, folds: int = DEFAULT_FOLDS
) -> Correction:
    """``values[i] - variates[i] . beta_{fold(i)}`` with ``fold(i) = i mod folds`` and
    ``beta_k`` fitted on the sets outside fold ``k`` (see the module); a fold whose other sets
    number fewer than ``max(10, 4 * (features + 1))`` is left uncorrected.

    >>> c = np.array([[-1.0], [1.0]] * 20)
    >>> correct(c[:, 0] + 3.0, c).values[:3].round(12).tolist()
    [3.0, 3.0, 3.0]
    """
    y = np.asarray(values, dtype=np.float64)
    c = np.asarray(variates, dtype=np.float64)
    if y.ndim != 1 or c.ndim != 2 or c.shape[0] != y.shape[0]:
        raise MindsportError(
            f"values {y.shape} and variates {c.shape} are not one value and one row per set"
        )
    if isinstance(folds, bool) or folds < 2:
        raise MindsportError(f"folds must be an integer of at least 2, got {folds!r}")
    if not (np.isfinite(y).all() and np.isfinite(c).all()):
        raise MindsportError("the values and the variates must be finite")
    n, p = c.shape
    fold = np.arange(n) % folds
    beta = np.zeros((folds, p))
    need = max(10, 4 * (p + 1))
    for k in range(folds):
        other = fold != k
        if p and int(other.sum()) >= need:
            beta[k] = _fit(y[other], c[other])
    corrected: FloatArray = y - np.einsum("ij,ij->i", c, beta[fold])
    return Correction(corrected, beta)
