"""Rating models side by side on real match data, one step ahead in time.

Data sets (public, read by path from ``--data``): ATP singles 1968-2024 (195k
matches, 1 vs 1, no draws), Halo 2 beta head-to-head (6.2k games, 1 vs 1, with draws; the data
set of the TrueSkill paper), Twilight Imperium 4 (4.8k free-for-all games of 3-6 players).

Models, online (one match ahead): mindsport's TrueSkill (factor graph; ``trueskill-drift`` also
fits its skill drift over idle days; ``trueskill-margin`` also observes each two-team match's
score margin, ATP sets or Halo kills: the ``cardplay`` model, which without roles, deals or luck
is TrueSkill with score margins, fitting ``margin_scale``, ``margin_noise`` and the skill drift
over idle days too), Elo (fitted
constant K), Elo with the FIDE K schedule (not fitted), Glicko-2 (one game per rating period),
Tenhou R (fitted: only the probability scale of its win curve), the naive pairwise TrueSkill, and
as peers the reference ``trueskill`` package (PyPI, 0.4.5; on ATP it takes mindsport's fitted
settings, ``--reuse``, since it is the same model and ~3x slower), ``openskill``'s Plackett-Luce
model and ``elo-mmr-py`` (2.0.0, Elo-MMR).

Models, whole history (refitted before each block, see ``benchmarks/rolling.py``):
mindsport's whole-history TrueSkill (``trueskill-history``; ``trueskill-history-margin`` with
score margins; ``trueskill-history-dynamics`` also fits the per-game dynamics ``tau``, skill
that moves with each game played as well as with time), ``trueskillthroughtime`` (1.1.0, the
same model in the peer's code; it takes ``trueskill-history``'s fitted settings, since a search
through its pure-Python convergence would take hours, and converges with the same tolerance, at
most 30 iterations as by its default) and ``whr`` (2.2.0, Whole-History Rating).

Protocol: matches in time order; settings chosen on the first 70% by predictive log-likelihood
(coordinate descent over a coarse grid: :func:`mindsport.history.fit` for the online models, the
same search in ``rolling.search`` for the others; on ATP the search uses the last
``--fit-window`` training matches only, to keep the run short); the chosen model then runs over
the whole history and is scored on the last 30% only, on the same pairs for every model (every
pair of teams with distinct ranks: log-loss, accuracy, Brier). Online models predict each match
from the ratings before it; whole-history models are refitted on everything before each block
(a calendar month on ATP and TI4, 100 games on Halo 2, whose 6,227 games span four days) and
predict the block. ``--blocks DATASET=step`` refits them after every distinct match time instead
(on ATP a tournament's start date, on Halo 2 each game), as a platform that adds every result as
it arrives would use them; those results are kept apart, under ``DATASET-per-step``.

Run (from the repository root; each data set is a separate, resumable step; results are merged
into the JSON file and the table shows everything recorded so far):

    .venv/bin/python benchmarks/evaluate_real.py --datasets ti4
    .venv/bin/python benchmarks/evaluate_real.py --datasets halo
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp \
        --models trueskill,trueskill-drift,elo,fide,glicko2,tenhou,pairwise,openskill-pl
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp --models pypi-trueskill \
        --reuse pypi-trueskill=trueskill
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp \
        --models trueskill-history,trueskill-history-margin,whr,elo-mmr
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp --models trueskill-margin
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp --since 2019-01-01 \
        --fit-window 0 --models trueskill,glicko2,elo-mmr,trueskill-history,trueskill-history-margin
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp --since 2019-01-01 \
        --fit-window 0 --models trueskillthroughtime
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp --blocks atp=10000 \
        --models trueskill-history,trueskill-history-margin
    .venv/bin/python benchmarks/evaluate_real.py --datasets atp --blocks atp=10000 \
        --models trueskillthroughtime --jobs 2
    .venv/bin/python benchmarks/evaluate_real.py --datasets halo --blocks halo=step \
        --models trueskill,trueskill-history-dynamics
    .venv/bin/python benchmarks/evaluate_real.py --datasets halo --blocks halo=step \
        --models trueskill-history --fixed 'trueskill-history={"sigma": 4, "drift": 1, \
        "beta": 4.166666666666667, "draw_probability": 0.2, "time_step": 0.041666666666666664}'
    .venv/bin/python benchmarks/evaluate_real.py --datasets halo --blocks halo=step \
        --models trueskillthroughtime --jobs 2
    .venv/bin/python benchmarks/evaluate_real.py --table-only

(The online models take about 12 minutes of one core, 7 of them on ATP; the whole-history
ones on TI4 and Halo a few minutes plus the peer ``trueskillthroughtime``'s refits; mindsport's
whole-history models on ATP 4 minutes without margins and 8 with. Each step can be re-run alone,
and runs of different steps may share the JSON file. ``--since`` keeps a recent stretch, e.g. ATP
from 2019 on, 15,900 matches, where ``trueskillthroughtime`` refits in about 40 seconds each;
``--blocks atp=10000`` refits the whole-history models on all of ATP every 10,000 matches, six
refits, which take the peer 34 minutes of CPU (18 of wall clock with ``--jobs 2``).
``trueskillthroughtime`` takes the settings ``trueskill-history`` has under the same key, the
same model's (above: those of the fit per 100 games); on Halo 2 refitted per game it rebuilds
the history 1,869 times, about 2.3 hours of CPU, which ``--jobs 2`` shares between two processes.)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from mindsport.history import Match, fit, read_matches
from mindsport.history.evaluate import score_predictions
from mindsport.history.rolling import rolling_predictions
from mindsport.rating.registry import MODELS, build_model
from mindsport.rating.through_time.model import TrueSkillThroughTime

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rolling  # the rolling-origin protocol beside this script

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SOURCES = {"atp": "tennis_atp", "halo": "halo2/HeadToHead.csv", "ti4": "ti4/ti4.csv"}
ALL_MODELS = (
    "trueskill",
    "trueskill-drift",
    "trueskill-margin",
    "elo",
    "fide",
    "glicko2",
    "tenhou",
    "pairwise",
    "pypi-trueskill",
    "openskill-pl",
    "elo-mmr",
    "trueskill-history",
    "trueskill-history-dynamics",
    "trueskill-history-margin",
    "trueskillthroughtime",
    "whr",
)
#: Models refitted on the whole history before each block, and how blocks are cut per data set.
ROLLING = (
    "trueskill-history",
    "trueskill-history-dynamics",
    "trueskill-history-margin",
    "trueskillthroughtime",
    "whr",
)
#: mindsport's whole-history models (the others are peers in ``benchmarks/rolling.py``)
OURS_HISTORY = ("trueskill-history", "trueskill-history-dynamics", "trueskill-history-margin")
#: The per-game dynamics searched by ``trueskill-history-dynamics`` (skill change per game).
DYNAMICS_GRID = {"tau": (0.0, 0.1, 0.2, 0.4, 0.7, 1.0, 1.5)}
#: Models that observe score margins, and the margin settings searched per data set: the score
#: difference in sets (ATP) or kills (Halo 2) times ``margin_scale`` is the observed performance
#: difference, seen with deviation ``margin_noise``.
MARGIN_MODELS = ("trueskill-margin", "trueskill-history-margin")
MARGIN_GRIDS: dict[str, dict[str, tuple[Any, ...]]] = {
    "atp": {
        "margin_scale": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0),
        "margin_noise": (2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0),
    },
    "halo": {
        "margin_scale": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0),
        "margin_noise": (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
    },
}
BLOCKS: dict[str, str | int] = {"atp": "month", "halo": 100, "ti4": "month"}
#: The peer computing the same model as ours takes our fitted settings.
SAME_MODEL = {"trueskillthroughtime": "trueskill-history"}
#: Runs left out on every protocol: the model has nothing to observe in the data set.
LEFT_OUT = {
    ("ti4", "trueskill-margin"): "free-for-all games only: no two-team score margin to observe",
    ("ti4", "trueskill-history-margin"): "free-for-all games only: no two-team score margin",
}
#: Runs left out on a data set's default protocol (all of it, default blocks) for their cost,
#: and why; ``--since`` or ``--blocks`` runs them.
TOO_SLOW = {
    ("atp", "trueskillthroughtime"): "at this benchmark's tolerance one refit of the ATP history "
    "takes the peer about 5.7 minutes of CPU (21 to 23 of its iterations; at tolerance 1e-6, 16 "
    "minutes: benchmarks/bench_through_time.py), so the protocol's 227 monthly refits would take "
    "about 21 hours; --since runs it on a recent stretch and --blocks atp=10000 on the whole "
    "history refitted every 10,000 matches (6 refits, 34 minutes of CPU)",
}
#: Convergence tolerance of the whole-history models in the benchmark (predictions agree with
#: 1e-6 to the fifth decimal of the log-loss on TI4; 1e-3 keeps the refits cheap).
HISTORY_TOLERANCE = 1e-3

GRIDS: dict[str, dict[str, tuple[Any, ...]]] = {
    **{name: dict(spec.grid) for name, spec in MODELS.items()},
    "pypi-trueskill": dict(MODELS["trueskill"].grid),
    # mindsport's TrueSkill with skill drift over idle time (variance += drift^2 x days away)
    "trueskill-drift": {**MODELS["trueskill"].grid, "drift": (0.0, 0.02, 0.05, 0.1, 0.2)},
    # mindsport's TrueSkill with score margins and drift (the margin settings per data set:
    # MARGIN_GRIDS)
    "trueskill-margin": {**MODELS["trueskill"].grid, "drift": (0.0, 0.02, 0.05, 0.1, 0.2)},
    "openskill-pl": {
        "beta": (3.0, 25 / 6, 6.0, 9.0, 13.0, 18.0),
        "tau": (0.0, 0.04, 25 / 300, 0.2, 0.4),
    },
    "elo-mmr": {
        "sig_noob": (50.0, 100.0, 150.0, 250.0, 350.0),
        "weight_limit": (0.05, 0.1, 0.2, 0.4),
        "drift_per_day": (0.0, 1.0, 10.0, 100.0),
        "scale": (100.0, 150.0, 200.0, 300.0, 400.0),
    },
}

#: Whole-history grids per data set (drift per day; Halo 2's four days in hourly steps).
HISTORY_GRIDS: dict[str, dict[str, dict[str, tuple[Any, ...]]]] = {
    "trueskill-history": {
        "atp": {
            "sigma": (4.0, 6.0, 25 / 3, 11.0),
            "beta": (2.0, 3.0, 25 / 6, 6.0, 9.0),
            "drift": (0.005, 0.01, 0.02, 0.04, 0.08, 0.16),
            "draw_probability": (0.0, 0.1),
        },
        "ti4": {
            "sigma": (1.0, 2.0, 3.0, 4.0, 6.0),
            "beta": (4.0, 6.0, 9.0, 13.0, 18.0),
            "drift": (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5),
            "draw_probability": (0.0, 0.1),
        },
        "halo": {
            "sigma": (4.0, 6.0, 25 / 3, 11.0),
            "beta": (2.0, 3.0, 25 / 6, 6.0, 9.0),
            "drift": (0.05, 0.2, 0.5, 1.0, 2.0, 5.0),
            "draw_probability": (0.05, 0.1, 0.2, 0.3),
            "time_step": (1 / 24,),
        },
    },
    "whr": {
        "atp": {"w2": (1.0, 3.0, 10.0, 30.0, 100.0, 300.0), "virtual_games": (1, 2, 4)},
        "ti4": {"w2": (1.0, 3.0, 10.0, 30.0, 100.0, 300.0), "virtual_games": (1, 2, 4)},
        "halo": {
            "w2": (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0),
            "virtual_games": (1, 2, 4),
            "time_step": (1 / 24,),
        },
    },
}


# ------------------------------------------------------------------------------------ peers


@dataclass(frozen=True)
class PyPITrueSkill:
    """The reference ``trueskill`` package behind the mindsport model API."""

    mu: float = 25.0
    sigma: float = 25 / 3
    beta: float = 25 / 6
    tau: float = 25 / 300
    draw_probability: float = 0.1
    env: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        import trueskill

        env = trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
            backend=None,
        )
        object.__setattr__(self, "env", env)

    def _env(self) -> Any:
        return self.env

    def rating(self) -> Any:
        return self._env().create_rating()

    def rate(self, teams: Sequence[Any], ranks: Any = None, weights: Any = None) -> list[Any]:
        return list(self._env().rate(list(teams), ranks=ranks, weights=weights))

    def outcome_probabilities(
        self, a: Sequence[Any], b: Sequence[Any]
    ) -> tuple[float, float, float]:
        import trueskill

        env = self._env()
        d = sum(r.mu for r in a) - sum(r.mu for r in b)
        c = math.sqrt(sum(r.sigma**2 + self.tau**2 + self.beta**2 for r in (*a, *b)))
        e = trueskill.calc_draw_margin(self.draw_probability, len(a) + len(b), env)
        win, loss = env.cdf((d - e) / c), env.cdf((-d - e) / c)
        return win, max(0.0, 1 - win - loss), loss

    def win_probability(self, a: Sequence[Any], b: Sequence[Any]) -> float:
        return self.outcome_probabilities(a, b)[0]


@dataclass(frozen=True)
class OpenSkillPL:
    """``openskill``'s Plackett-Luce model behind the mindsport model API."""

    mu: float = 25.0
    sigma: float = 25 / 3
    beta: float = 25 / 6
    tau: float = 25 / 300
    model: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from openskill.models import PlackettLuce

        pl = PlackettLuce(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)
        object.__setattr__(self, "model", pl)

    def _model(self) -> Any:
        return self.model

    def rating(self) -> Any:
        return self._model().rating()

    def rate(self, teams: Sequence[Any], ranks: Any = None, weights: Any = None) -> list[Any]:
        keys = [list(t) if isinstance(t, dict) else None for t in teams]
        lists = [
            [t[k] for k in ks] if ks is not None else list(t)
            for t, ks in zip(teams, keys, strict=True)
        ]
        new = self._model().rate(lists, ranks=None if ranks is None else list(ranks))
        return [
            dict(zip(ks, nt, strict=True)) if ks is not None else tuple(nt)
            for ks, nt in zip(keys, new, strict=True)
        ]

    def win_probability(self, a: Sequence[Any], b: Sequence[Any]) -> float:
        return float(self._model().predict_win([list(a), list(b)])[0])


def history_engine(name: str, params: dict[str, Any]) -> Any:
    """A whole-history engine of ``benchmarks/rolling.py`` with these settings."""
    if name == "trueskillthroughtime":
        return rolling.PeerTTT(tolerance=HISTORY_TOLERANCE, **params)
    if name == "whr":
        return rolling.PeerWHR(**params)
    raise SystemExit(f"unknown whole-history model {name!r}")


def history_predictions(
    name: str,
    params: dict[str, Any],
    matches: Sequence[Match],
    start: int,
    bounds: Sequence[tuple[int, int]],
    jobs: int = 1,
) -> tuple[Any, Any]:
    """Rolling-origin predictions of a whole-history model from ``start`` on, refitted before
    each block of ``bounds``; and the peer's engine (None for mindsport's model). A peer's
    refits, each a rebuild of the whole history, are shared among ``jobs`` processes."""
    if name in OURS_HISTORY:
        model = TrueSkillThroughTime(tolerance=HISTORY_TOLERANCE, **params)
        return rolling_predictions(model, matches, start=start, bounds=bounds), None
    if jobs > 1 and len(bounds) > 1:
        return _shared_refits(name, params, matches, start, bounds, jobs)
    engine = history_engine(name, params)
    return rolling.rolling(engine, matches, start, bounds), engine


def _refit_share(
    task: tuple[str, dict[str, Any], Sequence[Match], int, Sequence[tuple[int, int]], int, int],
) -> tuple[list[Any], tuple[float, list[int]] | None]:
    """One process's share of a peer's refits: blocks ``k``, ``k + jobs``, ...; and, for
    ``trueskillthroughtime``, its time converging and the sweeps of each refit."""
    name, params, matches, start, bounds, k, jobs = task
    engine = history_engine(name, params)
    preds = rolling.rolling(engine, matches, start, bounds, only=range(k, len(bounds), jobs))
    if isinstance(engine, rolling.PeerTTT):
        return preds, (engine.seconds, engine.sweeps)
    return preds, None


@dataclass
class SharedRefits:
    """What the ``trueskillthroughtime`` processes of :func:`_shared_refits` report, in place of
    one engine: the time spent converging (summed over processes) and the sweeps of every
    refit."""

    seconds: float
    sweeps: list[int]


def _shared_refits(
    name: str,
    params: dict[str, Any],
    matches: Sequence[Match],
    start: int,
    bounds: Sequence[tuple[int, int]],
    jobs: int,
) -> tuple[list[Any], SharedRefits | None]:
    import multiprocessing

    tasks = [(name, params, matches, start, bounds, k, jobs) for k in range(jobs)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        shares = pool.map(_refit_share, tasks)
    preds = sorted((p for share, _ in shares for p in share), key=lambda p: p.index)
    stats = [s for _, s in shares if s is not None]
    if len(stats) < len(shares):  # an engine that does not time its refits
        return preds, None
    return preds, SharedRefits(sum(s for s, _ in stats), [n for _, sweeps in stats for n in sweeps])


def run_elo_mmr(
    matches: list[Match], fit_window: int | None, grid: dict[str, tuple[Any, ...]] | None
) -> dict[str, Any]:
    """Elo-MMR (online, one match ahead), fitted by the same search."""
    t0 = time.perf_counter()
    n_train = math.floor(0.7 * len(matches))
    train = matches[:n_train][-fit_window:] if fit_window else matches[:n_train]

    def objective(p: dict[str, Any]) -> float:
        return rolling.log_loss(rolling.elo_mmr_predictions(train, **p))

    best, train_ll, tried = rolling.search(
        GRIDS["elo-mmr"] if grid is None else grid, objective, _progress("elo-mmr")
    )
    preds = rolling.elo_mmr_predictions(matches, **best)
    m = score_predictions(preds, start=n_train)
    return _row("elo-mmr", best, train_ll, m, matches, n_train, fit_window, tried, t0)


def _progress(name: str, log: Any = sys.stderr) -> Any:
    def progress(params: dict[str, Any], ll: float) -> None:
        shown = ", ".join(f"{k}={v:.4g}" for k, v in params.items())
        print(f"    {name}: {shown} -> train log-loss {ll:.4f}", file=log, flush=True)

    return progress


def _row(
    name: str,
    params: dict[str, Any],
    train_ll: float,
    m: Any,
    matches: list[Match],
    n_train: int,
    fit_window: int | None,
    tried: int,
    t0: float,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "model": name,
        "params": dict(params),
        "train_log_loss": train_ll,
        "log_loss": m.log_loss,
        "accuracy": m.accuracy,
        "brier": m.brier,
        "prediction_error": m.prediction_error,
        "pairs": m.pairs,
        "matches": len(matches),
        "n_train": n_train,
        "fit_window": fit_window,
        "candidates": tried,
        "seconds": time.perf_counter() - t0,
        **extra,
    }


def run_history(
    name: str,
    ds: str,
    matches: list[Match],
    fit_window: int | None,
    fixed: dict[str, Any] | None,
    rule: str | int,
    grid: dict[str, tuple[Any, ...]] | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """A whole-history model: settings searched (or ``fixed``), then the rolling protocol with
    blocks cut by ``rule`` (a peer's refits shared among ``jobs`` processes)."""
    t0 = time.perf_counter()
    n_train = math.floor(0.7 * len(matches))
    tried = 0
    train_ll = math.nan
    if fixed is None:
        train = matches[:n_train][-fit_window:] if fit_window else matches[:n_train]
        train_blocks = rolling.blocks(train, 0, rule)

        def objective(p: dict[str, Any]) -> float:
            return rolling.log_loss(history_predictions(name, p, train, 0, train_blocks)[0])

        space = history_grid(name, ds) if grid is None else grid
        fixed, train_ll, tried = rolling.search(space, objective, _progress(name))
    t1 = time.perf_counter()
    bounds = rolling.blocks(matches, n_train, rule)
    preds, engine = history_predictions(name, fixed, matches, n_train, bounds, jobs)
    m = score_predictions(preds, start=n_train)
    per = rule if isinstance(rule, str) else f"{rule} games"
    extra: dict[str, Any] = {"protocol": f"refit per {per}"}
    extra["run_seconds"] = time.perf_counter() - t1
    if isinstance(engine, rolling.PeerTTT | SharedRefits):
        extra["converge_seconds"] = engine.seconds
        extra["iterations"] = engine.sweeps
    return _row(name, fixed, train_ll, m, matches, n_train, fit_window, tried, t0, **extra)


def history_grid(name: str, ds: str) -> dict[str, tuple[Any, ...]]:
    """The settings a whole-history model searches on data set ``ds``."""
    if name == "trueskill-history-margin":
        return {**HISTORY_GRIDS["trueskill-history"][ds], **MARGIN_GRIDS[ds]}
    if name == "trueskill-history-dynamics":
        return {**HISTORY_GRIDS["trueskill-history"][ds], **DYNAMICS_GRID}
    return HISTORY_GRIDS[name][ds]


def factory(name: str) -> Any:
    if name == "trueskill-margin":  # cardplay without roles, deals or luck
        return lambda **p: build_model("cardplay", **p)
    if name == "pypi-trueskill":
        return PyPITrueSkill
    if name == "openskill-pl":
        return OpenSkillPL
    if name == "trueskill-drift":
        return lambda **p: build_model("trueskill", **p)
    return lambda **p: build_model(name, **p)


# ------------------------------------------------------------------------------------ running


def run_one(
    name: str,
    matches: list[Match],
    fit_window: int | None,
    grid: dict[str, tuple[Any, ...]] | None = None,
    log: Any = sys.stderr,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    tried = 0

    def progress(params: dict[str, Any], ll: float) -> None:
        nonlocal tried
        tried += 1
        shown = ", ".join(f"{k}={v:.4g}" for k, v in params.items())
        print(f"    {name}: {shown} -> train log-loss {ll:.4f}", file=log, flush=True)

    res = fit(
        factory(name),
        matches,
        0.7,
        GRIDS[name] if grid is None else grid,
        fit_window=fit_window,
        progress=progress,
    )
    m = res.test
    return {
        "model": name,
        "params": {k: v for k, v in res.params.items()},
        "train_log_loss": res.train_log_loss,
        "log_loss": m.log_loss,
        "accuracy": m.accuracy,
        "brier": m.brier,
        "prediction_error": m.prediction_error,
        "pairs": m.pairs,
        "matches": len(matches),
        "n_train": res.n_train,
        "fit_window": fit_window,
        "candidates": tried,
        "seconds": time.perf_counter() - t0,
    }


def record(
    path: Path, ds: str, name: str, row: dict[str, Any]
) -> dict[str, dict[str, dict[str, Any]]]:
    """Merge one result into the JSON file as it is now (runs of other data sets or models may
    have written to it meanwhile), written whole or not at all; returns the merged results."""
    results: dict[str, dict[str, dict[str, Any]]] = (
        json.loads(path.read_text()) if path.exists() else {}
    )
    results.setdefault(ds, {})[name] = row
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(results, indent=1))
    os.replace(tmp, path)
    return results


def print_table(results: dict[str, dict[str, dict[str, Any]]]) -> None:
    shown = ("atp", "halo", "ti4")
    for ds in (*shown, *sorted(k for k in results if k not in shown)):
        rows = results.get(ds)
        if not rows:
            continue
        best = min(r["log_loss"] for r in rows.values())
        any_row = next(iter(rows.values()))
        print(
            f"\n{ds}: {any_row['matches']} matches, fitted on the first {any_row['n_train']}"
            + (f" (search on the last {any_row['fit_window']})" if any_row["fit_window"] else "")
            + f", scored on {any_row['pairs']} pairs of the last 30%"
        )
        print(
            f"  {'model':<24} {'log-loss':>9} {'x best':>7} {'accuracy':>9} {'Brier':>7} "
            f"{'pred.err':>8} {'secs':>6}  settings"
        )
        order = sorted(rows.values(), key=lambda r: r["log_loss"])
        for r in order:
            settings = f"[{r['protocol']}] " if r.get("protocol") else ""
            settings += f"(settings of {r['reused_from']}) " if r.get("reused_from") else ""
            settings += ", ".join(
                f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                for k, v in r["params"].items()
            )
            print(
                f"  {r['model']:<24} {r['log_loss']:>9.4f} {r['log_loss'] / best:>7.3f} "
                f"{r['accuracy']:>9.4f} {r['brier']:>7.4f} {r['prediction_error']:>8.4f} "
                f"{r['seconds']:>6.0f}  {settings}"
            )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    ap.add_argument("--datasets", default="ti4,halo,atp")
    ap.add_argument("--models", default=",".join(ALL_MODELS))
    ap.add_argument(
        "--fit-window",
        type=int,
        default=30000,
        help="ATP: search settings on the last N training matches only (0: all)",
    )
    ap.add_argument(
        "--json",
        type=Path,
        default=Path(os.environ.get("TMPDIR", "/tmp")) / "mindsport_evaluate_real.json",
        help="results file (merged across runs)",
    )
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument(
        "--reuse",
        default="",
        help="MODEL=OTHER,...: MODEL skips the search and takes OTHER's fitted settings on the "
        "same data set (e.g. pypi-trueskill=trueskill: same model, 5x slower code)",
    )
    ap.add_argument(
        "--fixed",
        action="append",
        default=[],
        help="MODEL=JSON: MODEL skips the search and takes these settings, e.g. "
        'trueskill-history=\'{"sigma": 6, "beta": 9, "drift": 0.08, "draw_probability": 0}\'',
    )
    ap.add_argument(
        "--since",
        type=date.fromisoformat,
        default=None,
        help="YYYY-MM-DD: only the matches from that day on (results kept apart, under "
        "DATASET-since-DAY), e.g. a recent stretch of ATP on which trueskillthroughtime's refits "
        "are affordable",
    )
    ap.add_argument(
        "--blocks",
        default="",
        help="DATASET=RULE,...: how the whole-history models' blocks are cut (month, step: each "
        f"distinct match time, or a number of matches); default {BLOCKS}; results of another "
        "rule are kept apart, under DATASET-per-RULE",
    )
    ap.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes that share a peer whole-history model's refits (trueskillthroughtime, "
        "whr): each rebuilds the history before its share of the blocks; the scores do not "
        "change, converge_seconds sums the processes' time",
    )
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs {args.jobs}: must be at least 1")
    reuse = dict(x.split("=", 1) for x in args.reuse.split(",") if "=" in x)
    given = {k: json.loads(v) for k, v in (x.split("=", 1) for x in args.fixed)}
    blocks_of: dict[str, str | int] = {}
    for x in args.blocks.split(","):
        if "=" in x:
            ds_, rule_ = x.split("=", 1)
            blocks_of[ds_] = rule_ if rule_ in ("month", "step") else int(rule_)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    if args.json.exists():
        results = json.loads(args.json.read_text())
    if not args.table_only:
        for ds in [d.strip() for d in args.datasets.split(",") if d.strip()]:
            t0 = time.perf_counter()
            matches = read_matches(args.data / SOURCES[ds])
            key = ds
            if args.since is not None:
                key = f"{ds}-since-{args.since.isoformat()}"
                start = rolling.days(datetime.combine(args.since, datetime.min.time()))
                matches = [m for m in matches if rolling.days(m.time) >= start]
            rule = blocks_of.get(ds, BLOCKS[ds])
            if rule != BLOCKS[ds]:  # another protocol for the whole-history models: kept apart
                key = f"{key}-per-{rule}"
            print(
                f"{key}: {len(matches)} matches loaded in {time.perf_counter() - t0:.1f}s",
                file=sys.stderr,
            )
            window = args.fit_window if (ds == "atp" and args.fit_window > 0) else None
            for name in [m.strip() for m in args.models.split(",") if m.strip()]:
                why = LEFT_OUT.get((ds, name))
                if why is None and args.since is None and rule == BLOCKS[ds]:
                    why = TOO_SLOW.get((ds, name))
                if why is not None:
                    print(f"  {ds} / {name}: left out: {why}", file=sys.stderr)
                    continue
                print(f"  {key} / {name} ...", file=sys.stderr, flush=True)
                grid = None
                if name == "trueskill-margin":
                    grid = {**GRIDS[name], **MARGIN_GRIDS[ds]}
                if name in given:
                    grid = {
                        k: tuple(v) if isinstance(v, list) else (v,) for k, v in given[name].items()
                    }
                source = reuse.get(name)
                if source is not None:
                    found = results.get(key, {}).get(source)
                    if found is None:
                        raise SystemExit(f"--reuse {name}={source}: no {source} result for {key}")
                    grid = {k: (v,) for k, v in found["params"].items()}
                    print(f"    {name}: settings of {source}: {found['params']}", file=sys.stderr)
                if name in SAME_MODEL and source is None:
                    source = SAME_MODEL[name]
                    found = results.get(key, {}).get(source)
                    if found is None:
                        raise SystemExit(f"{name} takes {source}'s settings: run {source} first")
                    grid = {k: (v,) for k, v in found["params"].items()}
                if name in ROLLING:
                    one = grid is not None and all(len(v) == 1 for v in grid.values())
                    fixed = {k: v[0] for k, v in grid.items()} if grid and one else None
                    row = run_history(name, ds, matches, window, fixed, rule, grid, args.jobs)
                elif name == "elo-mmr":
                    row = run_elo_mmr(matches, window, grid)
                else:
                    row = run_one(name, matches, window, grid)
                if source is not None:
                    row["reused_from"] = source
                results = record(args.json, key, name, row)
                print(
                    f"  {key} / {name}: log-loss {row['log_loss']:.4f} ({row['seconds']:.0f}s)",
                    file=sys.stderr,
                    flush=True,
                )
    print_table(results)


if __name__ == "__main__":
    main()
