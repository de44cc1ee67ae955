"""``rate()`` on one game: mindsport's TrueSkill beside the peers, in one run.

Shapes: 1v1, 1v2 (Dou Dizhu: landlord against two farmers), a four-player free-for-all
(mahjong) and 8 teams of one. Peers: ``trueskill`` 0.4.5 (the reference implementation, same
model) and ``openskill`` (Plackett-Luce, a cheaper approximation). Each library rates the same 256
games over and over for about ``--seconds``; the three are interleaved ``--rounds`` times and the
best round of each is kept. Reports updates per second, the ratios mindsport / peer and the load
average.

    python benchmarks/bench_rate.py [--seconds 1.0] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
from rich.console import Console
from rich.table import Table

from mindsport.rating import Rating, TrueSkill

SHAPES = {"1v1": (1, 1), "1v2": (1, 2), "ffa4": (1, 1, 1, 1), "8 teams": (1,) * 8}


def rate_per_second(fn: Callable[[int], object], seconds: float) -> float:
    """Run ``fn(i)`` for game ``i`` repeatedly for about ``seconds``; return calls per second."""
    fn(0)  # warm-up (loads compiled code)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i in range(100):
            fn(done + i)
        done += 100
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per shape and library")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    import trueskill
    from openskill.models import PlackettLuce

    rng = np.random.default_rng(0)
    env = TrueSkill()
    ref = trueskill.TrueSkill()
    pl = PlackettLuce()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    table = Table(title=f"rate(): updates per second (one core; load average {load})")
    for col in ("shape", "mindsport", "trueskill", "openskill PL", "vs trueskill", "vs openskill"):
        table.add_column(col, justify="right")
    for name, shape in SHAPES.items():
        pool = [
            [(float(rng.normal(25, 5)), float(rng.uniform(1, 8))) for _ in shape]
            for _ in range(256)
        ]
        ours = [
            [
                tuple(Rating(m, s) for m, s in game[sum(shape[:k]) : sum(shape[: k + 1])])
                for k in range(len(shape))
            ]
            for game in pool
        ]
        theirs = [[tuple(trueskill.Rating(r.mu, r.sigma) for r in t) for t in g] for g in ours]
        opens = [[[pl.rating(mu=r.mu, sigma=r.sigma) for r in t] for t in g] for g in ours]
        best = [0.0, 0.0, 0.0]
        for _ in range(args.rounds):
            runs = (
                lambda i, g=ours: env.rate(g[i % 256]),
                lambda i, g=theirs: ref.rate(g[i % 256]),
                lambda i, g=opens: pl.rate(g[i % 256]),
            )
            for k, fn in enumerate(runs):
                best[k] = max(best[k], rate_per_second(fn, args.seconds))
        a, b, c = best
        table.add_row(name, f"{a:,.0f}", f"{b:,.0f}", f"{c:,.0f}", f"{a / b:.1f}x", f"{a / c:.2f}x")
    Console().print(table)
    end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    Console().print(f"load average at the end: {end}")


if __name__ == "__main__":
    main()
