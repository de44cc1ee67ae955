"""Converging the whole ATP history: whole-history TrueSkill beside ``trueskillthroughtime``.

Both compute the same model (TrueSkill Through Time: one skill per player per day, a Gaussian
random walk between days, every match a TrueSkill factor) with the same settings on the same
195,000 ATP singles matches (1968-2024, read by path from the shared data folder). Reported: the
time to converge from scratch (wall clock and CPU time of this process), the sweeps it took, the
time of an incremental add of the last month against a recompute, and how far the two
implementations' smoothed skills end up apart. The peer's convergence runs its own forward pass
and then at most ``--ttt-iterations`` iterations (30, its default) or until its ``epsilon``.
``--margin-scale S`` also converges mindsport's model with score margins (each match's sets won:
``S`` performance points per set of difference, deviation ``--margin-noise``), which the peer
does not have.

    python benchmarks/bench_through_time.py [--data DATA_FOLDER] [--ttt-iterations 30]
        [--skip-ttt] [--matches N] [--margin-scale 4 --margin-noise 16]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import time
from pathlib import Path

from mindsport.history import read_matches
from mindsport.rating.through_time.model import TrueSkillThroughTime

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SETTINGS = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "drift": 0.02, "draw_probability": 0.0}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--ttt-iterations", type=int, default=30)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--skip-ttt", action="store_true")
    ap.add_argument("--matches", type=int, default=0, help="only the first N matches (0: all)")
    ap.add_argument("--margin-scale", type=float, default=None, help="also with score margins")
    ap.add_argument("--margin-noise", type=float, default=16.0)
    args = ap.parse_args()
    matches = read_matches(args.data / "tennis_atp")
    if args.matches:
        matches = matches[: args.matches]
    print(f"ATP: {len(matches)} matches; settings {SETTINGS}, tolerance {args.tolerance:g}")
    model = TrueSkillThroughTime(tolerance=args.tolerance, **SETTINGS)
    model.history(matches[:200])  # compile the kernels (cached on disk after the first run)

    print(f"\nmindsport (load average {load()})")
    w, c = time.perf_counter(), time.process_time()
    h = model.history(matches)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    conv = h.convergence
    print(
        f"  converge from scratch: {wall:.2f} s wall, {cpu:.2f} s CPU; {conv.sweeps} sweeps, "
        f"{conv.updates} game updates, {h.variables} skill variables"
    )
    month = max(i for i, m in enumerate(matches) if (m.time.year, m.time.month) != (2024, 12))
    inc = model.history(matches[: month + 1])
    w = time.perf_counter()
    inc.add(matches[month + 1 :])
    t_add = time.perf_counter() - w
    print(
        f"  add the last month ({len(matches) - month - 1} matches) to the rest: {t_add:.2f} s "
        f"({inc.convergence.sweeps} sweeps, {inc.convergence.updates} game updates)"
    )
    if args.margin_scale is not None:
        margins = {"margin_scale": args.margin_scale, "margin_noise": args.margin_noise}
        with_margins = TrueSkillThroughTime(tolerance=args.tolerance, **SETTINGS, **margins)
        w, c = time.perf_counter(), time.process_time()
        hm = with_margins.history(matches)
        conv = hm.convergence
        print(
            f"  with score margins ({margins}): {time.perf_counter() - w:.2f} s wall, "
            f"{time.process_time() - c:.2f} s CPU; {conv.sweeps} sweeps, {conv.updates} game "
            "updates"
        )
    print(f"  peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    if args.skip_ttt:
        return

    import trueskillthroughtime as ttt

    print(f"\ntrueskillthroughtime 1.1.0 (load average {load()})")
    comp = [[list(t) for t in m.teams] for m in matches]
    results = [[-float(r) for r in m.ranks] for m in matches]  # type: ignore[arg-type]
    days = [float(m.time.toordinal() - 719163) for m in matches]  # days since 1970-01-01
    w, c = time.perf_counter(), time.process_time()
    peer = ttt.History(
        comp,
        results,
        days,
        mu=SETTINGS["mu"],
        sigma=SETTINGS["sigma"],
        beta=SETTINGS["beta"],
        gamma=SETTINGS["drift"],
        p_draw=SETTINGS["draw_probability"],
    )
    first, first_cpu = time.perf_counter() - w, time.process_time() - c
    print(
        f"  forward pass (its History constructor): {first:.1f} s wall, {first_cpu:.1f} s CPU",
        flush=True,
    )
    step = (math.inf, math.inf)
    done = 0
    for i in range(args.ttt_iterations):
        t, tc = time.perf_counter(), time.process_time()
        step = peer.iteration()
        done = i + 1
        print(
            f"  iteration {done}: {time.perf_counter() - t:.1f} s wall, "
            f"{time.process_time() - tc:.1f} s CPU, step {step}",
            flush=True,
        )
        if step[0] <= args.tolerance and step[1] <= args.tolerance:
            break
    wall_p, cpu_p = time.perf_counter() - w, time.process_time() - c
    print(
        f"  converge from scratch: {wall_p:.1f} s wall, {cpu_p:.1f} s CPU; {done} iterations, "
        f"last step {step} ({'settled' if max(step) <= args.tolerance else 'not settled'})"
    )
    worst = 0.0
    for p, pts in peer.learning_curves().items():
        c_ = h.curve(p)
        for (_, g), mu, sd in zip(pts, c_.mu, c_.sigma, strict=True):
            worst = max(worst, abs(g.mu - mu), abs(g.sigma - sd))
    print(f"  largest difference of a smoothed skill (mean or sd) from mindsport's: {worst:.2g}")
    print(
        f"\nratio (CPU time, peer / mindsport): {cpu_p / cpu:.0f}x for the peer's {done} "
        f"iterations against mindsport settled to {args.tolerance:g}; load average {load()}"
    )


if __name__ == "__main__":
    main()
