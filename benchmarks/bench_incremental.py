"""Keeping whole-history ratings current: day-by-day adds against recomputes, on ATP.

A :class:`~mindsport.rating.through_time.model.SkillHistory` takes new results with ``add`` and
re-converges from the messages as they stand, redoing only what moves by more than the model's
``tolerance``. This measures, on the ATP tour history (195,000 matches, read by path from the
shared data folder), what that costs and how exact it is:

1. **Reach**: how much of the settled graph one day of results moves. The history up to a day
   and the history with that day are both converged tightly (tolerance 1e-9); reported is the
   share of the skill variables (one per player per day) whose smoothed mean moved by more than
   1e-6 ... 1e-2, and the same after taking out the best overall level through time (a
   piecewise linear shift of everybody, least squares on ``--level-nodes`` time nodes). No
   incremental method can agree with a recompute to ``x`` while leaving untouched the
   variables that move by more than ``x``.
2. **Adds**: for each tolerance, the history up to ``--days`` days before the end of the chosen
   stretch, converged from scratch (its game updates and time: one recompute), then those days
   added one at a time: game updates per add as a share of the recompute's, seconds per add, the
   sweeps of each add, and the largest difference of any smoothed mean or deviation after the
   last add from the tight reference and from a recompute of the same matches at the same
   tolerance (the agreement a store league's ``recompute`` shows).

    python benchmarks/bench_incremental.py [--data DATA_FOLDER] [--days 10] [--end-offset 30]
        [--tolerances 1e-3,1e-4,1e-5,1e-6,1e-7,5e-8] [--level-nodes 64]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from mindsport.history import Match, read_matches
from mindsport.rating.through_time.model import SkillHistory, TrueSkillThroughTime

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rolling  # the benchmarks' time helpers, beside this script

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: settings near those fitted on ATP by ``benchmarks/evaluate_real.py`` (trueskill-history)
SETTINGS = {"sigma": 6.0, "beta": 25 / 6, "drift": 0.04, "draw_probability": 0.0}
EXACT = 1e-9
THRESHOLDS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def means(h: SkillHistory) -> dict[tuple[str, Any], tuple[float, float]]:
    """Every variable's smoothed (mean, deviation), by (player, time)."""
    out: dict[tuple[str, Any], tuple[float, float]] = {}
    for p in h.players:
        c = h.curve(p)
        for t, mu, sd in zip(c.times, c.mu.tolist(), c.sigma.tolist(), strict=True):
            out[(p, t)] = (mu, sd)
    return out


def level_removed(times: np.ndarray, change: np.ndarray, n_nodes: int) -> np.ndarray:
    """``change`` less its least-squares piecewise linear fit in time (``n_nodes`` nodes at
    quantiles of ``times``)."""
    nodes = np.unique(np.quantile(times, np.linspace(0.0, 1.0, n_nodes)))
    i = np.clip(np.searchsorted(nodes, times, side="right") - 1, 0, len(nodes) - 2)
    f = np.clip((times - nodes[i]) / (nodes[i + 1] - nodes[i]), 0.0, 1.0)
    a = np.zeros((len(times), len(nodes)))
    rows = np.arange(len(times))
    a[rows, i] = 1.0 - f
    a[rows, i + 1] += f
    coef, *_ = np.linalg.lstsq(a, change, rcond=None)
    return change - a @ coef


def reach_table(before: list[Match], day: list[Match], n_nodes: int) -> Table:
    model = TrueSkillThroughTime(tolerance=EXACT, **SETTINGS)
    a = means(model.history(before))
    b = means(model.history(before + day))
    keys = [k for k in a if k in b]
    change = np.array([b[k][0] - a[k][0] for k in keys])
    times = np.array([rolling.days(k[1]) for k in keys])
    rest = level_removed(times, change, n_nodes)
    table = Table(
        title=f"Reach of one day ({len(day)} matches) over {len(keys):,} skill variables: "
        "share whose smoothed mean moves by more than"
    )
    table.add_column("")
    for x in THRESHOLDS:
        table.add_column(f"{x:g}", justify="right")
    table.add_row("as it is", *(f"{np.mean(np.abs(change) > x):.1%}" for x in THRESHOLDS))
    table.add_row(
        f"overall level taken out ({n_nodes} nodes)",
        *(f"{np.mean(np.abs(rest) > x):.1%}" for x in THRESHOLDS),
    )
    return table


def largest_difference(
    a: dict[tuple[str, Any], tuple[float, float]], b: dict[tuple[str, Any], tuple[float, float]]
) -> float:
    return max(max(abs(a[k][0] - v[0]), abs(a[k][1] - v[1])) for k, v in b.items())


def adds_table(
    before: list[Match], days: list[list[Match]], tolerances: list[float], console: Console
) -> Table:
    everything = before + [m for d in days for m in d]
    exact = means(TrueSkillThroughTime(tolerance=EXACT, **SETTINGS).history(everything))
    table = Table(
        title=f"{len(days)} days added one at a time, against a recompute (per add: the mean; "
        "max error: against the tight reference after the last add)"
    )
    cols = (
        "tolerance", "recompute updates", "recompute s", "add updates", "add / recompute",
        "add s", "add sweeps", "max error", "add vs recompute",
    )  # fmt: skip
    for c in cols:
        table.add_column(c, justify="right")
    for tol in tolerances:
        model = TrueSkillThroughTime(tolerance=tol, **SETTINGS)
        t0 = time.perf_counter()
        h = model.history(before)
        full_s = time.perf_counter() - t0
        full_u = h.convergence.updates
        updates, seconds, sweeps = 0, 0.0, []
        for d in days:
            t0 = time.perf_counter()
            conv = h.add(d)
            seconds += time.perf_counter() - t0
            updates += conv.updates
            sweeps.append(conv.sweeps)
        got = means(h)
        err = largest_difference(got, exact)
        apart = largest_difference(got, means(model.history(everything)))
        n = len(days)
        table.add_row(
            f"{tol:g}", f"{full_u:,}", f"{full_s:.2f}", f"{updates // n:,}",
            f"{updates / n / full_u:.1%}", f"{seconds / n:.2f}",
            f"{min(sweeps)}-{max(sweeps)}", f"{err:.2g}", f"{apart:.2g}",
        )  # fmt: skip
        console.print(f"  tolerance {tol:g}: done (load {load()})")
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    ap.add_argument("--days", type=int, default=10, help="days added one at a time")
    ap.add_argument(
        "--end-offset", type=int, default=30, help="the added days end this many days from the last"
    )
    ap.add_argument("--tolerances", default="1e-3,1e-4,1e-5,1e-6,1e-7,5e-8")
    ap.add_argument("--level-nodes", type=int, default=64)
    args = ap.parse_args()
    console = Console(width=max(Console().width, 110))
    matches = read_matches(args.data / "tennis_atp")
    times = sorted({m.time for m in matches})
    chosen = times[-(args.end_offset + args.days) : -args.end_offset]
    first = chosen[0]
    before = [m for m in matches if m.time < first]
    by_day = [[m for m in matches if m.time == t] for t in chosen]
    console.print(
        f"ATP: {len(matches):,} matches; settings {SETTINGS}; adding {len(chosen)} days from "
        f"{first} ({sum(map(len, by_day))} matches); load average {load()}"
    )
    TrueSkillThroughTime(**SETTINGS).history(matches[:200])  # compile the kernels
    console.print(reach_table(before, by_day[0], args.level_nodes))
    tolerances = [float(x) for x in args.tolerances.split(",") if x.strip()]
    console.print(adds_table(before, by_day, tolerances, console))
    console.print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
