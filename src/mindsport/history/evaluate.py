"""Honest evaluation: chronological one-step-ahead prediction of match results.

Each model replays the history from the start (:func:`mindsport.history.replay`); before every
match it predicts, for every pair of teams, the probability ``p`` that the first finishes ahead
of the second. Scored pairs are those with **distinct ranks** (ties/draws are skipped; a ranked
team is ahead of an unranked one; two unranked teams are not compared). Over the scored pairs:

* ``log_loss``: mean ``-ln p(actual order)`` (p clipped to [1e-12, 1 - 1e-12]);
* ``brier``: mean ``(p - y)**2`` with ``y`` 1 if the first team finished ahead;
* ``accuracy``: fraction of pairs where the team given ``p > 1/2`` finished ahead (an even
  prediction, ``p = 1/2``, is not a correct one);
* ``prediction_error``: the TrueSkill paper's measure (Herbrich, Minka, Graepel 2007): the
  fraction of pairs whose order the model predicts wrongly, where a predicted tie (``p = 1/2``,
  e.g. two new players) counts as half an error. So ``accuracy + prediction_error = 1 - ties/2``;
  the two differ exactly by how even predictions are counted;
* ``calibration``: ``bins`` equal-width bins of predicted probability; each pair enters twice,
  as ``(p, y)`` and ``(1 - p, 1 - y)``, so the curve does not depend on which team is listed first
  (it is symmetric about 1/2). Per bin: mean prediction, observed frequency, number of entries.

``start`` restricts scoring to matches from that index (or fraction) on, while the ratings still
learn from every earlier match: train on a prefix, score on the rest.

Beside these pairwise metrics, every match of two teams is scored on its three outcomes
(win/draw/loss log-loss, three-way Brier, calibration, the draw rate predicted against the
observed; :mod:`mindsport.history.threeway`, in ``Metrics.three_way``), and the evaluation holds
the **constant baseline** (the training part's draw rate and first-listed win rate) scored the
same way. A model that predicts no draw probability of its own (Elo, Glicko-2, Tenhou: an
expected score) gets its draws from Davidson's model with one parameter fitted on the training
part (the matches before ``start``); with ``start`` 0 there is no training part, hence no
three-way score for such a model and no baseline.

>>> from mindsport.match import Match
>>> ms = [Match(f"g{i}", i, [["a"], ["b"]], [0, int(i % 3 == 0)]) for i in range(30)]
>>> ev = evaluate(["trueskill", "elo"], ms, start=0.5)
>>> round(ev.baseline.draw_rate_observed, 3), round(ev.baseline.draw_rate_predicted, 3)
(0.667, 0.667)
>>> ev.metrics["elo"].three_way.source, ev.metrics["trueskill"].three_way.source
('davidson', 'model')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.frames import frame
from mindsport.history.calibration import CalibrationBin, calibration
from mindsport.history.replay import MatchPrediction, Predictions, Replay, replay
from mindsport.history.rolling import WholeHistoryModel, rolling_predictions
from mindsport.history.threeway import ThreeWay, constant_baseline, three_way
from mindsport.match import Match

__all__ = [
    "BASELINE",
    "CalibrationBin",
    "Evaluation",
    "Metrics",
    "evaluate",
    "score_predictions",
]

_EPS = 1e-12


@dataclass(frozen=True)
class Metrics:
    """Prediction quality over the scored pairs (see the module docstring)."""

    matches: int
    pairs: int
    log_loss: float
    brier: float
    accuracy: float
    prediction_error: float
    calibration: tuple[CalibrationBin, ...] = field(default=())
    #: win/draw/loss scores of the two-team matches (None: none scored, or no training part
    #: for a model without draw probabilities of its own)
    three_way: ThreeWay | None = None

    def as_dict(self) -> dict[str, float | int | str | None]:
        """The scalar metrics (the three-way ones None when there are none)."""
        return {
            "matches": self.matches,
            "pairs": self.pairs,
            "log_loss": self.log_loss,
            "brier": self.brier,
            "accuracy": self.accuracy,
            "prediction_error": self.prediction_error,
            **_three_way_dict(self.three_way),
        }


_THREE_WAY_KEYS = tuple(ThreeWay(0, 0, 0, 0, 0, 0, 0, "").as_dict())


def _three_way_dict(tw: ThreeWay | None) -> dict[str, float | int | str | None]:
    return dict.fromkeys(_THREE_WAY_KEYS) if tw is None else tw.as_dict()


def _columns(
    predictions: Iterable[MatchPrediction],
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Match index, ``p`` and outcome of every pair (straight from the arrays of a replay)."""
    if isinstance(predictions, Predictions):
        counts = np.diff(predictions.pair_ptr)
        index = np.repeat(np.arange(len(predictions), dtype=np.int64), counts)
        return index, predictions.prob, predictions.outcome
    rows = [(mp.index, p, y) for mp in predictions for _i, _j, p, y in mp.pairs]
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    cols = list(zip(*rows, strict=True))
    return (
        np.asarray(cols[0], np.int64),
        np.asarray(cols[1], np.float64),
        np.asarray(cols[2], np.float64),
    )


def score_predictions(
    predictions: Iterable[MatchPrediction],
    start: int = 0,
    bins: int = 10,
    *,
    train_end: int | None = None,
) -> Metrics:
    """Metrics of the predictions of matches with index ``>= start``; the three-way scores'
    draw parameter (for a model without draw probabilities) is fitted on the matches before
    ``train_end`` (default ``start``; see :func:`mindsport.history.threeway.three_way`)."""
    if bins < 1:
        raise MindsportError(f"bins must be >= 1, got {bins!r}")
    if not isinstance(predictions, Predictions):
        predictions = Predictions.of(predictions)
    tw = three_way(predictions, start, bins, train_end=train_end)
    index, p_all, y_all = _columns(predictions)
    keep = (index >= start) & (y_all != 0.5)
    p, y = p_all[keep], y_all[keep]
    n_pairs = len(p)
    n_matches = len(np.unique(index[keep]))
    if n_pairs == 0:
        nan = float("nan")
        return Metrics(n_matches, 0, nan, nan, nan, nan, (), tw)
    won = y == 1.0
    pc = np.clip(p, _EPS, 1.0 - _EPS)
    ll = -float(np.sum(np.log(np.where(won, pc, 1.0 - pc))))
    brier = float(np.sum((p - y) ** 2))
    even = p == 0.5
    right = (p > 0.5) == won
    correct = float(np.sum(~even & right))
    err = float(np.sum(np.where(even, 0.5, np.where(right, 0.0, 1.0))))
    # each pair in both orientations
    cal = calibration(np.concatenate([p, 1.0 - p]), np.concatenate([y, 1.0 - y]), bins)
    return Metrics(
        n_matches, n_pairs, ll / n_pairs, brier / n_pairs, correct / n_pairs, err / n_pairs, cal, tw
    )


#: the name of the constant baseline's row in :meth:`Evaluation.table`
BASELINE = "constant"


@dataclass(frozen=True)
class Evaluation:
    """Per-model metrics and replays of :func:`evaluate` (replays of the online models only: a
    whole-history model is refitted block by block, not replayed), and the constant baseline's
    three-way scores (None without two-team matches on both sides of ``start``)."""

    metrics: dict[str, Metrics]
    replays: dict[str, Replay]
    start: int
    baseline: ThreeWay | None = None

    def table(self) -> list[dict[str, Any]]:
        """One row per model: name and scalar metrics; then the constant baseline's row
        (named :data:`BASELINE`; its pairwise metrics None), if there is one."""
        rows = [{"model": name, **m.as_dict()} for name, m in self.metrics.items()]
        if self.baseline is not None:
            pairwise = dict.fromkeys(
                ("matches", "pairs", "log_loss", "brier", "accuracy", "prediction_error")
            )
            rows.append({"model": BASELINE, **pairwise, **self.baseline.as_dict()})
        return rows

    def to_frame(self) -> Any:
        """The rows of :meth:`table` as a pandas DataFrame indexed by ``model`` (None shown as
        NaN)."""
        rows = self.table()
        return frame(rows, list(rows[0]), index="model")


def _start_index(start: int | float, n: int) -> int:
    if isinstance(start, bool):
        raise MindsportError(f"start must be an index or a fraction, got {start!r}")
    if isinstance(start, float) and 0 <= start < 1:
        return math.floor(start * n)
    if isinstance(start, int) and 0 <= start <= n:
        return start
    raise MindsportError(
        f"start must be an index in [0, {n}] or a fraction in [0, 1), got {start!r}"
    )


def _built(model: Any) -> Any:
    """A model, or the registered model of that name at its default settings."""
    if isinstance(model, str):
        from mindsport.rating.registry import build_model

        return build_model(model)
    return model


def _named(models: Mapping[str, Any] | Sequence[Any] | Any) -> dict[str, Any]:
    if isinstance(models, Mapping):
        return {k: _built(m) for k, m in models.items()}
    if isinstance(models, str):
        return {models: _built(models)}
    if isinstance(models, Sequence):
        out: dict[str, Any] = {}
        for m in models:
            name = m if isinstance(m, str) else type(m).__name__
            k, i = name, 2
            while k in out:
                k, i = f"{name}#{i}", i + 1
            out[k] = _built(m)
        return out
    return {type(models).__name__: models}


def evaluate(
    models: Mapping[str, Any] | Sequence[Any] | Any,
    matches: Iterable[Match],
    *,
    start: int | float = 0,
    bins: int = 10,
    keep_history: bool = False,
    progress: Callable[[str, int], None] | None = None,
) -> Evaluation:
    """One-step-ahead evaluation of each model on ``matches`` (in the given, chronological order).

    ``models``: a dict name -> model, a list of models, or one model; a model may be given by
    its registered name (every name :func:`mindsport.history.fit` accepts, see
    :mod:`mindsport.rating.registry`; built at its default settings). ``start``: score only
    matches from this index (int) or fraction (float in [0, 1)) on. ``progress(name, done)`` is
    called during each replay. A whole-history model
    (:class:`~mindsport.history.rolling.WholeHistoryModel`) predicts the scored matches by
    rolling refits instead (:func:`~mindsport.history.rolling.rolling_predictions`).
    """
    ms = list(matches)
    s = _start_index(start, len(ms))
    named = _named(models)
    if not named:
        raise MindsportError("evaluate: no models given")
    metrics: dict[str, Metrics] = {}
    replays: dict[str, Replay] = {}
    for name, model in named.items():
        if isinstance(model, WholeHistoryModel):
            preds = rolling_predictions(model, ms, start=s)
            metrics[name] = score_predictions(preds, s, bins)
            continue
        cb = None if progress is None else (lambda done, _n=name: progress(_n, done))
        r = replay(model, ms, keep_history=keep_history, progress=cb)
        replays[name] = r
        metrics[name] = score_predictions(r.predictions, s, bins)
    return Evaluation(metrics, replays, s, constant_baseline(ms, s, bins))
