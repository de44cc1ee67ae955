"""Three-way (win/draw/loss) forecasts of two-team matches and their scores.

The pairwise metrics of :mod:`mindsport.history.evaluate` skip drawn pairs; here every match of
**two teams** whose order the result tells is scored on its three outcomes, as seen from the
team listed first (the home side when the data lists home first): it finished ahead, drew, or
finished behind. A forecast ``(P(ahead), P(draw), P(behind))`` comes from

* the model itself when it predicts a draw probability (TrueSkill and its relatives, whose draw
  margin gives ``P(draw)``; the replay keeps it beside the draw-free ``p``):
  ``((1 - d) p, d, (1 - d) (1 - p))``;
* otherwise from the model's expected score ``E`` (Elo, Glicko-2, Tenhou: a draw counts one
  half) through **Davidson's draw model** (Davidson 1970): strengths ``x**2 : 1`` give
  ``P(ahead) = x**2 / N``, ``P(draw) = nu x / N``, ``P(behind) = 1 / N`` with
  ``N = x**2 + nu x + 1``; ``x`` is chosen so that the expected score ``P(ahead) + P(draw) / 2``
  is exactly ``E`` (:func:`davidson`), and the one draw parameter ``nu`` is fitted by maximum
  likelihood on the training part (the matches before ``start``; :func:`fit_nu`). Draws are
  likelier between even sides, as in TrueSkill; without a training part there is no ``nu`` and
  no three-way score for such a model;
* for the **constant baseline** (:func:`constant_baseline`): the rates of first-listed wins,
  draws and first-listed losses among the training part's two-team matches, the same for every
  match.

Scores (:class:`ThreeWay`), over the scored matches: ``log_loss``, the mean of
``-ln P(what happened)`` (P clipped to [1e-12, 1]); ``brier``, the mean of
``sum_k (P_k - o_k)**2`` over the three outcomes (0 perfect, 2 worst); the predicted and
observed rates of draws and of first-listed wins; calibration curves for "a given side finishes
ahead" (each match entering once per side, as in the pairwise curve) and for "draw".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar

from mindsport.errors import MindsportError
from mindsport.history.calibration import CalibrationBin, calibration
from mindsport.history.replay import MatchPrediction, Predictions
from mindsport.match import Match, pair_outcome

__all__ = [
    "NU_RANGE",
    "ThreeWay",
    "constant_baseline",
    "davidson",
    "fit_nu",
    "forecasts",
    "score_forecasts",
    "three_way",
    "two_team_outcomes",
]

_EPS = 1e-12
#: the range of Davidson's ``nu`` searched (a draw between even sides from 5e-7 to 0.998)
NU_RANGE = (1e-6, 1e3)


@dataclass(frozen=True)
class ThreeWay:
    """Win/draw/loss scores of two-team matches (see the module docstring).

    ``source``: where the draw probability came from (``"model"``, ``"davidson"`` with ``nu``,
    or ``"constant"``).
    """

    matches: int
    log_loss: float
    brier: float
    draw_rate_predicted: float
    draw_rate_observed: float
    ahead_rate_predicted: float
    ahead_rate_observed: float
    source: str
    nu: float | None = None
    calibration_ahead: tuple[CalibrationBin, ...] = field(default=())
    calibration_draw: tuple[CalibrationBin, ...] = field(default=())

    def as_dict(self) -> dict[str, float | int | str | None]:
        """The scalar scores, named as in :meth:`mindsport.history.evaluate.Metrics.as_dict`."""
        return {
            "wdl_matches": self.matches,
            "wdl_log_loss": self.log_loss,
            "wdl_brier": self.brier,
            "draw_rate_predicted": self.draw_rate_predicted,
            "draw_rate_observed": self.draw_rate_observed,
            "ahead_rate_predicted": self.ahead_rate_predicted,
            "ahead_rate_observed": self.ahead_rate_observed,
            "wdl_source": self.source,
            "nu": self.nu,
        }


class _Rows:
    """The two-team matches of a replay's predictions: match index, draw-free ``p`` (or
    expected score), the model's draw probability (NaN: none) and the outcome class (0 first
    ahead, 1 draw, 2 first behind)."""

    def __init__(self, predictions: Iterable[MatchPrediction]) -> None:
        preds = predictions if isinstance(predictions, Predictions) else Predictions.of(predictions)
        counts = np.diff(preds.pair_ptr)
        two = np.flatnonzero(counts == 1)
        at = preds.pair_ptr[two]
        self.index: NDArray[np.int64] = two.astype(np.int64)
        self.p: NDArray[np.float64] = np.asarray(preds.prob[at], np.float64)
        self.draw: NDArray[np.float64] = np.asarray(preds.draw[at], np.float64)
        self.cls: NDArray[np.int64] = _classes(preds.outcome[at])


def _classes(outcome: NDArray[np.float64]) -> NDArray[np.int64]:
    return np.where(outcome == 1.0, 0, np.where(outcome == 0.5, 1, 2)).astype(np.int64)


def davidson(expected: NDArray[np.float64] | float, nu: float) -> NDArray[np.float64]:
    """``(P(ahead), P(draw), P(behind))`` per expected score ``E`` under Davidson's model with
    draw parameter ``nu`` (rows of an ``(n, 3)`` array): the strengths ``x**2 : 1`` with
    ``(1 - E) x**2 - nu (E - 1/2) x - E = 0``, so that ``P(ahead) + P(draw) / 2 = E``.

    >>> davidson(0.5, 2.0).round(3).tolist()  # even sides: a draw with nu / (2 + nu)
    [[0.25, 0.5, 0.25]]
    """
    if not (math.isfinite(nu) and nu >= 0):
        raise MindsportError(f"Davidson's nu must be a finite number >= 0, got {nu!r}")
    e = np.clip(np.atleast_1d(np.asarray(expected, np.float64)), _EPS, 1.0 - _EPS)
    h = e - 0.5
    x = (nu * h + np.sqrt(nu * nu * h * h + 4.0 * e * (1.0 - e))) / (2.0 * (1.0 - e))
    n = x * x + nu * x + 1.0
    return np.stack([x * x / n, nu * x / n, 1.0 / n], axis=1)


def _log_likelihood(probs: NDArray[np.float64], cls: NDArray[np.int64]) -> float:
    picked = probs[np.arange(len(cls)), cls]
    return float(np.sum(np.log(np.clip(picked, _EPS, 1.0))))


def fit_nu(expected: NDArray[np.float64], cls: NDArray[np.int64]) -> float:
    """Davidson's ``nu`` of greatest likelihood for these expected scores and outcome classes
    (0 first ahead, 1 draw, 2 behind), searched in :data:`NU_RANGE` on a log scale."""
    if len(cls) == 0:
        raise MindsportError("fit_nu: no two-team matches to fit the draw parameter on")
    lo, hi = math.log(NU_RANGE[0]), math.log(NU_RANGE[1])
    res = minimize_scalar(
        lambda t: -_log_likelihood(davidson(expected, math.exp(t)), cls),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-6},
    )
    return float(math.exp(res.x))


def forecasts(
    p: NDArray[np.float64], draw: NDArray[np.float64], nu: float | None
) -> NDArray[np.float64]:
    """Three-way forecasts (rows ``(P(ahead), P(draw), P(behind))``): from the model's draw
    probability where it is given (not NaN), else from ``p`` as an expected score through
    Davidson's model with ``nu`` (required then)."""
    out = np.empty((len(p), 3))
    own = ~np.isnan(draw)
    d = draw[own]
    out[own, 0] = (1.0 - d) * p[own]
    out[own, 1] = d
    out[own, 2] = (1.0 - d) * (1.0 - p[own])
    if not own.all():
        if nu is None:
            raise MindsportError("forecasts: expected scores need Davidson's nu")
        out[~own] = davidson(p[~own], nu)
    return out


def score_forecasts(
    probs: NDArray[np.float64],
    cls: NDArray[np.int64],
    *,
    source: str,
    nu: float | None = None,
    bins: int = 10,
) -> ThreeWay | None:
    """The scores of three-way forecasts ``probs`` (rows) against outcome classes ``cls`` (0
    first ahead, 1 draw, 2 behind); None when there is nothing to score."""
    if bins < 1:
        raise MindsportError(f"bins must be >= 1, got {bins!r}")
    n = len(cls)
    if n == 0:
        return None
    onehot = np.zeros((n, 3))
    onehot[np.arange(n), cls] = 1.0
    ahead = np.concatenate([probs[:, 0], probs[:, 2]])
    ahead_y = np.concatenate([onehot[:, 0], onehot[:, 2]])
    return ThreeWay(
        n,
        -_log_likelihood(probs, cls) / n,
        float(np.sum((probs - onehot) ** 2)) / n,
        float(np.mean(probs[:, 1])),
        float(np.mean(onehot[:, 1])),
        float(np.mean(probs[:, 0])),
        float(np.mean(onehot[:, 0])),
        source,
        nu,
        calibration(np.clip(ahead, 0.0, 1.0), ahead_y, bins),
        calibration(np.clip(probs[:, 1], 0.0, 1.0), onehot[:, 1], bins),
    )


def three_way(
    predictions: Iterable[MatchPrediction],
    start: int = 0,
    bins: int = 10,
    *,
    train_end: int | None = None,
) -> ThreeWay | None:
    """Three-way scores of the two-team matches with index ``>= start`` (see the module
    docstring). Davidson's ``nu``, when the model gives expected scores only, is fitted on the
    two-team matches before ``train_end`` (default ``start``). None when no two-team match is
    scored, or when ``nu`` is needed and there is nothing to fit it on."""
    rows = _Rows(predictions)
    test = rows.index >= start
    if not test.any():
        return None
    own = not np.isnan(rows.draw[test]).any()
    nu: float | None = None
    if not own:
        train = rows.index < (start if train_end is None else train_end)
        if not train.any():
            return None
        nu = fit_nu(rows.p[train], rows.cls[train])
    probs = forecasts(rows.p[test], rows.draw[test], nu)
    return score_forecasts(
        probs, rows.cls[test], source="model" if own else "davidson", nu=nu, bins=bins
    )


def two_team_outcomes(matches: Sequence[Match]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Index and outcome class (0 first ahead, 1 draw, 2 behind) of every match of two teams
    whose order the result tells."""
    idx: list[int] = []
    cls: list[int] = []
    for i, m in enumerate(matches):
        if len(m.teams) != 2:
            continue
        o = pair_outcome(m.ranks[0], m.ranks[1])
        if o is None:
            continue
        idx.append(i)
        cls.append(0 if o == 1.0 else 1 if o == 0.5 else 2)
    return np.asarray(idx, np.int64), np.asarray(cls, np.int64)


def constant_baseline(matches: Sequence[Match], start: int, bins: int = 10) -> ThreeWay | None:
    """The constant forecast (the training part's rates of first-listed wins, draws and
    first-listed losses among two-team matches) scored on the two-team matches from ``start``
    on; None without two-team matches on either side of ``start``."""
    idx, cls = two_team_outcomes(matches)
    train, test = cls[idx < start], cls[idx >= start]
    if len(train) == 0 or len(test) == 0:
        return None
    rates = np.bincount(train, minlength=3) / len(train)
    probs = np.tile(rates, (len(test), 1))
    return score_forecasts(probs, test, source="constant", bins=bins)
