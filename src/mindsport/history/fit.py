"""Fitting model settings by predictive log-likelihood on a training prefix.

:func:`fit` splits the (chronological) matches at ``train_fraction``; for each candidate setting
it replays the training prefix and computes the one-step-ahead log-loss (minus the mean
log-likelihood) of its decisive pairs (:mod:`mindsport.history.evaluate`); a setting the model
refuses for this data (a :class:`~mindsport.errors.MindsportError`, e.g. draws impossible while
the data has ties) counts as infinitely bad. The best setting is
then replayed over the whole history and scored on the remaining matches only: the test score
never saw its own outcomes, neither in the ratings nor in the choice of settings.

Search: a grid per setting (``grid={"beta": [...], "tau": [...]}``), explored by coordinate
descent (each setting scanned in turn with the others fixed, sweeps repeated until nothing
changes; cheaper than the full product, ``search="product"`` tries every combination).
A whole-history model (:class:`~mindsport.history.rolling.WholeHistoryModel`) is scored the same
way, except that its predictions come from refits before each block of matches
(:func:`~mindsport.history.rolling.rolling_predictions`) instead of a replay.
Objective: with ``objective="auto"`` (the default) the log-loss is the **three-way** one
(win/draw/loss of the two-team matches, :mod:`mindsport.history.threeway`) when the training part
has drawn two-team matches, so that a model's draw setting (TrueSkill's ``draw_probability``) is
chosen by how well it predicts draws; else the pairwise log-loss of decisive pairs.
``objective="pairwise"`` or ``"three-way"`` choose one. A model that predicts no draw
probability of its own (Elo, Glicko-2) is scored three-way through Davidson's draw model, its
``nu`` fitted on the training part too (and reported in ``FitResult.test.three_way.nu``).
Models given by name are built from the model registry (:mod:`mindsport.rating.registry`:
``trueskill elo fide glicko2 tenhou pairwise`` and any model registered there), which also holds
each model's default grid.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mindsport.errors import MindsportError
from mindsport.history.evaluate import Metrics, score_predictions
from mindsport.history.rolling import model_predictions
from mindsport.history.threeway import three_way, two_team_outcomes
from mindsport.match import Match
from mindsport.rating.registry import default_grid, get_spec

__all__ = ["FitResult", "Objective", "fit", "train_log_loss"]

#: what :func:`fit` minimises (see the module docstring)
Objective = Literal["auto", "pairwise", "three-way"]


@dataclass(frozen=True)
class FitResult:
    """The chosen settings, the model built from them, and its scores."""

    params: dict[str, Any]
    model: Any
    train_log_loss: float
    test: Metrics
    n_train: int
    tried: tuple[tuple[tuple[tuple[str, Any], ...], float], ...]
    #: the log-loss minimised: "pairwise" or "three-way"
    objective: str = "pairwise"


def _factory(model_factory: Callable[..., Any] | str) -> Callable[..., Any]:
    if isinstance(model_factory, str):
        spec = get_spec(model_factory)  # fail early on unknown names
        return spec.build
    if not callable(model_factory):
        raise MindsportError(
            f"fit: model_factory must be callable or a name, got {model_factory!r}"
        )
    return model_factory


def train_log_loss(model: Any, matches: Sequence[Match], objective: str = "pairwise") -> float:
    """One-step-ahead log-loss of ``model`` on ``matches`` (all scored; a whole-history model
    refitted before each block, see :mod:`mindsport.history.rolling`): of the decisive pairs,
    or with ``objective="three-way"`` of the two-team matches' three outcomes (Davidson's
    ``nu``, for a model without draw probabilities, fitted on these same matches)."""
    preds = model_predictions(model, matches)
    if objective == "three-way":
        tw = three_way(preds, 0, train_end=len(matches))
        return math.inf if tw is None or not math.isfinite(tw.log_loss) else tw.log_loss
    ll = score_predictions(preds).log_loss
    return math.inf if math.isnan(ll) else ll


def _objective(objective: str, train: Sequence[Match]) -> str:
    if objective not in ("auto", "pairwise", "three-way"):
        raise MindsportError(
            f"fit: objective is 'auto', 'pairwise' or 'three-way', got {objective!r}"
        )
    _idx, cls = two_team_outcomes(train)
    if objective == "three-way" and len(cls) == 0:
        raise MindsportError(
            "fit: objective 'three-way' needs two-team matches in the training part"
        )
    if objective == "auto":
        return "three-way" if bool((cls == 1).any()) else "pairwise"
    return objective


def fit(
    model_factory: Callable[..., Any] | str,
    matches: Iterable[Match],
    train_fraction: float = 0.7,
    grid: Mapping[str, Sequence[Any]] | None = None,
    *,
    search: Literal["coordinate", "product"] = "coordinate",
    max_sweeps: int = 3,
    fixed: Mapping[str, Any] | None = None,
    fit_window: int | None = None,
    objective: Objective = "auto",
    progress: Callable[[dict[str, Any], float], None] | None = None,
) -> FitResult:
    """Choose settings by training log-likelihood, then score on the held-out rest.

    ``model_factory``: a callable ``(**settings) -> model`` (e.g. ``TrueSkill``) or a registered
    model name. ``grid``: candidate values per setting (default: the model's registered grid).
    ``fixed``: settings passed to every candidate. ``fit_window``: search on the last
    ``fit_window`` training matches only (replayed from fresh ratings), to bound the cost on long
    histories; the test score still replays everything. ``objective``: the log-loss minimised
    (see the module docstring). ``progress(params, log_loss)`` is called after each candidate.
    """
    ms = list(matches)
    if not 0 < train_fraction < 1:
        raise MindsportError(f"train_fraction must be in (0, 1), got {train_fraction!r}")
    n_train = math.floor(train_fraction * len(ms))
    if n_train < 1 or n_train >= len(ms):
        raise MindsportError(
            f"fit: {len(ms)} matches leave no training or no test part at {train_fraction}"
        )
    make = _factory(model_factory)
    g = {
        k: tuple(v) for k, v in (grid if grid is not None else default_grid(model_factory)).items()
    }
    for k, values in g.items():
        if not values:
            raise MindsportError(f"fit: grid for {k!r} is empty")
    base = dict(fixed or {})
    train = ms[:n_train]
    if fit_window is not None:
        if fit_window < 1:
            raise MindsportError(f"fit: fit_window must be >= 1, got {fit_window!r}")
        train = train[-fit_window:]
    goal = _objective(objective, train)
    cache: dict[tuple[tuple[str, Any], ...], float] = {}

    def loss(params: dict[str, Any]) -> float:
        key = tuple(sorted(params.items()))
        if key not in cache:
            try:
                cache[key] = train_log_loss(make(**base, **params), train, goal)
            except MindsportError:
                # settings that cannot describe the data (e.g. no draws while the data has
                # ties) are infeasible, not fatal
                cache[key] = math.inf
            if progress is not None:
                progress(dict(params), cache[key])
        return cache[key]

    names = list(g)
    if not names:
        best: dict[str, Any] = {}
        loss(best)
    elif search == "product":
        best = {}
        best_v = math.inf
        for combo in itertools.product(*(g[k] for k in names)):
            p = dict(zip(names, combo, strict=True))
            v = loss(p)
            if v < best_v:
                best, best_v = p, v
    elif search == "coordinate":
        best = {k: g[k][len(g[k]) // 2] for k in names}
        best_v = loss(best)
        for _ in range(max_sweeps):
            changed = False
            for k in names:
                for val in g[k]:
                    cand = {**best, k: val}
                    v = loss(cand)
                    if v < best_v - 1e-12:
                        best, best_v, changed = cand, v, True
            if not changed:
                break
    else:
        raise MindsportError(f"fit: search is 'coordinate' or 'product', got {search!r}")
    if not math.isfinite(cache[tuple(sorted(best.items()))]):
        # report why, using the best (infeasible) candidate
        train_log_loss(make(**base, **best), train, goal)
        raise MindsportError("fit: no candidate setting could be evaluated on the data")
    model = make(**base, **best)
    test = score_predictions(model_predictions(model, ms, start=n_train), start=n_train)
    return FitResult(
        {**base, **best},
        model,
        cache[tuple(sorted(best.items()))],
        test,
        n_train,
        tuple(cache.items()),
        goal,
    )
