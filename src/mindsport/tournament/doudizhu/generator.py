"""Deals of a requested difficulty on demand (the equal-strength paper's future work), in
milliseconds.

The equal-strength paper grades every deal by simulation (70 tables per deal) and stores the
equal-strength hands in advance. Here a linear model predicts the GDI from the cards alone:

* :func:`deal_features`: per seat (landlord, farmer 1, farmer 2) the bombs, rocket, 2s, jokers,
  aces, control cards (2s + jokers + aces), longest straight potential, and the engine planner's
  fewest plays and plan cost (:class:`mindsport.doudizhu.planning.Planner`); plus landlord-minus-
  best-farmer differences of the plan cost and the control cards;
* :class:`GdiModel`: ridge regression (standardised features, one output per GDI component),
  fitted on a simulated, graded hand library; :meth:`GdiModel.r2` on held-out hands;
* :func:`propose_deals`: rejection sampling of (one-bomb) deals whose predicted GDI lies within
  epsilon of the target; the proposals are then verified by simulation
  (:func:`mindsport.tournament.doudizhu.games.landlord_table` and
  :func:`mindsport.tournament.gdi.grade_difficulty`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu import Deal, deal
from mindsport.doudizhu.planning import Planner
from mindsport.files import write_atomically
from mindsport.tournament.doudizhu.games import bomb_count
from mindsport.tournament.errors import TournamentError

__all__ = [
    "FEATURE_NAMES",
    "GdiModel",
    "Proposal",
    "cross_validated_r2",
    "deal_features",
    "feature_matrix",
    "propose_deals",
    "split_half_ceiling",
]

_SEATS = ("L", "F1", "F2")
_PER_SEAT = (
    "bombs",
    "rocket",
    "twos",
    "jokers",
    "aces",
    "control",
    "straight",
    "plays",
    "plan_cost",
)
FEATURE_NAMES: tuple[str, ...] = (
    *(f"{seat}_{name}" for seat in _SEATS for name in _PER_SEAT),
    "cost_gap",
    "control_gap",
    "bomb_with_landlord",
)
_MODEL_FORMAT = "mindsport.gdi_model"


def _longest_run(counts: Sequence[int]) -> int:
    best = run = 0
    for n in counts[:12]:  # 3..A
        run = run + 1 if n > 0 else 0
        best = max(best, run)
    return best


def deal_features(hand: Deal, planner: Planner | None = None) -> npt.NDArray[np.float64]:
    """Feature vector of a deal, in the order of :data:`FEATURE_NAMES`.

    >>> d = Deal.parse("[333344455566677788XD][4567889999TTTJJJQ][TJQQQKKKKAAAA2222]")
    >>> x = deal_features(d)
    >>> features = dict(zip(FEATURE_NAMES, x.tolist()))
    >>> features["L_bombs"], features["L_rocket"], features["F2_twos"]
    (1.0, 1.0, 4.0)
    """
    d = hand
    plan = planner or Planner()
    rows = []
    for counts in d.counts():
        p = plan.plan(counts)
        bombs = sum(1 for n in counts[:13] if n == 4)
        rocket = 1 if counts[13] and counts[14] else 0
        control = counts[11] + counts[12] + counts[13] + counts[14]
        rows.append(
            [
                bombs,
                rocket,
                counts[12],
                counts[13] + counts[14],
                counts[11],
                control,
                _longest_run(counts),
                p.plays,
                p.cost,
            ]
        )
    lord, f1, f2 = rows
    cost = _PER_SEAT.index("plan_cost")
    control = _PER_SEAT.index("control")
    extra = [
        lord[cost] - min(f1[cost], f2[cost]),
        lord[control] - max(f1[control], f2[control]),
        1.0 if lord[0] + lord[1] > 0 else 0.0,
    ]
    return np.array([*lord, *f1, *f2, *extra], dtype=np.float64)


def feature_matrix(hands: Sequence[Deal]) -> npt.NDArray[np.float64]:
    """Rows of :func:`deal_features`."""
    planner = Planner()
    if len(hands) == 0:
        return np.zeros((0, len(FEATURE_NAMES)))
    return np.stack([deal_features(h, planner) for h in hands])


@dataclass(frozen=True)
class GdiModel:
    """Ridge regression from :func:`deal_features` to the GDI (predictions clipped to [0, 1])."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[tuple[float, ...], ...]  # components x features
    intercept: tuple[float, ...]
    alpha: float
    levels: tuple[float, ...] | None = None

    @classmethod
    def fit(
        cls,
        features: npt.ArrayLike,
        gdis: npt.ArrayLike,
        alpha: float = 1.0,
        levels: Sequence[float] | None = None,
    ) -> GdiModel:
        """Least squares with an L2 penalty ``alpha`` on standardised features.

        >>> x = np.arange(20.0)[:, None]
        >>> m = GdiModel.fit(x, 0.02 * x + 0.1, alpha=0.0)
        >>> round(float(m.predict([[5.0]])[0, 0]), 6)
        0.2
        """
        x = np.asarray(features, dtype=np.float64)
        y = np.asarray(gdis, dtype=np.float64)
        if y.ndim == 1:
            y = y[:, None]
        if x.ndim != 2 or x.shape[0] != y.shape[0] or x.shape[0] < 2:
            raise TournamentError(
                f"features {x.shape} and gdis {y.shape} need one row per hand (at least two)"
            )
        if not np.isfinite(alpha) or alpha < 0:
            raise TournamentError(f"alpha must be a non-negative number, got {alpha!r}")
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale == 0] = 1.0
        z = (x - mean) / scale
        ym = y.mean(axis=0)
        gram = z.T @ z + alpha * np.eye(z.shape[1])
        beta = np.linalg.lstsq(gram, z.T @ (y - ym), rcond=None)[0]
        return cls(
            tuple(mean.tolist()),
            tuple(scale.tolist()),
            tuple(tuple(col) for col in beta.T.tolist()),
            tuple(ym.tolist()),
            float(alpha),
            None if levels is None else tuple(float(v) for v in levels),
        )

    def predict(self, features: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Predicted GDI per row, clipped to [0, 1]."""
        x = np.atleast_2d(np.asarray(features, dtype=np.float64))
        if x.shape[1] != len(self.mean):
            raise TournamentError(f"features have {x.shape[1]} columns; the model {len(self.mean)}")
        z = (x - np.array(self.mean)) / np.array(self.scale)
        out = z @ np.array(self.coef).T + np.array(self.intercept)
        return np.clip(out, 0.0, 1.0)

    def r2(self, features: npt.ArrayLike, gdis: npt.ArrayLike) -> tuple[float, ...]:
        """Coefficient of determination per component, then over all components pooled."""
        y = np.asarray(gdis, dtype=np.float64)
        y = y[:, None] if y.ndim == 1 else y
        pred = self.predict(features)
        res = ((y - pred) ** 2).sum(axis=0)
        tot = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
        per = [float(1 - r / t) if t > 0 else float("nan") for r, t in zip(res, tot, strict=True)]
        pooled = float(1 - res.sum() / tot.sum()) if tot.sum() > 0 else float("nan")
        return (*per, pooled)

    # -- storage -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": _MODEL_FORMAT,
            "features": list(FEATURE_NAMES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": [list(c) for c in self.coef],
            "intercept": list(self.intercept),
            "alpha": self.alpha,
            "levels": None if self.levels is None else list(self.levels),
        }

    def save(self, path: str | Path) -> Path:
        """Write the model as JSON, atomically."""
        text = json.dumps(self.to_json(), indent=1)

        def write(tmp: Path) -> None:
            tmp.write_text(text, encoding="utf-8")

        return write_atomically(path, write)

    @classmethod
    def load(cls, path: str | Path) -> GdiModel:
        source = Path(path)
        try:
            obj = json.loads(source.read_text(encoding="utf-8"))
        except OSError as exc:
            raise TournamentError(f"{source}: cannot read the model ({exc.strerror})") from None
        except json.JSONDecodeError as exc:
            raise TournamentError(f"{source}: invalid JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or obj.get("format") != _MODEL_FORMAT:
            raise TournamentError(f"{source}: not a {_MODEL_FORMAT} file")
        if obj.get("features") != list(FEATURE_NAMES):
            raise TournamentError(f"{source}: the model was fitted on other features")
        return cls(
            tuple(obj["mean"]),
            tuple(obj["scale"]),
            tuple(tuple(c) for c in obj["coef"]),
            tuple(obj["intercept"]),
            float(obj["alpha"]),
            None if obj.get("levels") is None else tuple(obj["levels"]),
        )


@dataclass(frozen=True)
class Proposal:
    """Accepted deals with their predicted GDI, plus the sampling effort."""

    deals: tuple[Deal, ...]
    predicted: npt.NDArray[np.float64]
    tried: int
    seconds: float

    @property
    def acceptance(self) -> float:
        return len(self.deals) / self.tried if self.tried else 0.0

    @property
    def seconds_per_deal(self) -> float:
        return self.seconds / len(self.deals) if self.deals else float("inf")


def propose_deals(
    model: GdiModel,
    target: Sequence[float],
    epsilon: float,
    count: int,
    rng: np.random.Generator,
    *,
    one_bomb: bool = True,
    max_tries: int = 200_000,
) -> Proposal:
    """Rejection sampling: Algorithm 2 deals (kept only with exactly one bomb when ``one_bomb``)
    whose predicted GDI lies strictly within ``epsilon`` of ``target``; stops at ``count``
    accepted deals or ``max_tries`` deals dealt. ``tried`` counts every deal dealt."""
    goal = np.asarray(target, dtype=np.float64)
    if goal.size != len(model.coef):
        raise TournamentError(
            f"target has {goal.size} values; the model predicts {len(model.coef)}"
        )
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise TournamentError(f"epsilon must be a positive number, got {epsilon!r}")
    planner = Planner()
    start = time.perf_counter()
    accepted: list[Deal] = []
    predicted: list[npt.NDArray[np.float64]] = []
    tried = 0
    while len(accepted) < count and tried < max_tries:
        tried += 1
        d = deal(rng)
        if one_bomb and bomb_count(d) != 1:
            continue
        g = model.predict(deal_features(d, planner))[0]
        if float(np.linalg.norm(g - goal)) < epsilon:
            accepted.append(d)
            predicted.append(g)
    return Proposal(
        tuple(accepted),
        np.array(predicted).reshape(len(accepted), goal.size),
        tried,
        time.perf_counter() - start,
    )


def split_half_ceiling(first: npt.ArrayLike, second: npt.ArrayLike) -> tuple[float, ...]:
    """Noise ceiling of R^2 for GDIs measured on the two halves pooled.

    ``first`` and ``second`` are hands x components GDIs from two independent sets of games at
    the same tables. Their per-component correlation r is the reliability of one half; the
    pooled measurement has reliability 2r / (1 + r) (Spearman-Brown), which bounds the share of
    its variance any predictor from the cards can explain.

    >>> a = np.array([[0.1], [0.5], [0.9], [0.3]])
    >>> split_half_ceiling(a, a)
    (1.0,)
    """
    x = np.asarray(first, dtype=np.float64)
    y = np.asarray(second, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2 or x.shape[0] < 3:
        raise TournamentError(f"halves must be equal hands x components tables, got {x.shape}")
    out = []
    for k in range(x.shape[1]):
        if x[:, k].std() == 0 or y[:, k].std() == 0:
            out.append(float("nan"))
            continue
        r = float(np.corrcoef(x[:, k], y[:, k])[0, 1])
        out.append(round(2 * r / (1 + r), 12) if r > -1 else float("nan"))
    return tuple(out)


def cross_validated_r2(
    features: npt.ArrayLike,
    gdis: npt.ArrayLike,
    rng: np.random.Generator,
    *,
    folds: int = 5,
    alpha: float = 1.0,
) -> tuple[float, ...]:
    """K-fold cross-validated R^2 (per component, then pooled) of :meth:`GdiModel.fit`.

    Every hand is predicted once by the model fitted on the other folds; R^2 is computed over
    all these out-of-fold predictions (steadier than one held-out split).
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(gdis, dtype=np.float64)
    y = y[:, None] if y.ndim == 1 else y
    if isinstance(folds, bool) or int(folds) != folds or not 2 <= folds <= x.shape[0] // 2:
        raise TournamentError(f"folds must be between 2 and half the hands, got {folds!r}")
    order = rng.permutation(x.shape[0])
    pred = np.empty_like(y)
    for part in np.array_split(order, int(folds)):
        train = np.setdiff1d(order, part)
        pred[part] = GdiModel.fit(x[train], y[train], alpha=alpha).predict(x[part])
    res = ((y - pred) ** 2).sum(axis=0)
    tot = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
    per = [float(1 - r / t) if t > 0 else float("nan") for r, t in zip(res, tot, strict=True)]
    return (*per, float(1 - res.sum() / tot.sum()) if tot.sum() > 0 else float("nan"))
