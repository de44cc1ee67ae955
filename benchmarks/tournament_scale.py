"""Games per second of the GDI library workload, and the projected cost of seed 004's library.

Workload (seed 004, experiment 2): one-bomb deals, each played at ``--tables`` tables whose
landlords are graded bots (levels 10, 20, ..., 100) with the same two farmer bots. The same games
run serially (1 worker), on local worker processes (``--workers``, default all cores) and
optionally on a local Ray instance (``--ray``); the scores must be identical on all of them.

Projection: seed 004 graded 200,000 hands at 70 tables = 14,000,000 games. Time = games / rate;
on a cluster of N cores we assume N times this machine's 1-worker rate (an idle core) or N
times its per-core rate with all local workers busy (a loaded machine), i.e. linear scaling:
tasks are independent chunks of 40 games, so scheduling overhead is small against ~10-30 ms
per game (the ``--ray`` run shows Ray's start-up and per-task overhead on this machine).

    .venv/bin/python benchmarks/tournament_scale.py --hands 40 --cluster-cores 256
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from mindsport.tournament.executors import make_executor, task_rng
from mindsport.tournament.games import landlord_table, random_deals, warm_engine

SEED_004_GAMES = 200_000 * 70


def _run(
    kind: str, workers: int, deals: list[str], tables: list[str], farmer: str
) -> tuple[np.ndarray, float]:
    with make_executor(kind, workers, warmup=warm_engine) as ex:
        # start the workers (processes fork, Ray workers import and compile) outside the clock
        landlord_table(deals[:1], tables[: ex.workers], (farmer, farmer), 99, 0, ex, chunk=1)
        start = time.perf_counter()
        scores = landlord_table(deals, tables, (farmer, farmer), 0, 1, ex)
        seconds = time.perf_counter() - start
    return scores, seconds


def _hours(games: float, rate: float) -> float:
    return games / rate / 3600.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40, help="one-bomb deals to grade")
    parser.add_argument("--tables", type=int, default=10, help="graded landlord bots per hand")
    parser.add_argument("--farmer", default="level:0", help="bot spec of both farmers")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes")
    parser.add_argument("--ray", action="store_true", help="also time a local Ray instance")
    parser.add_argument("--cluster-cores", type=int, default=256, help="N for the projection")
    parser.add_argument("--json", help="write the numbers here as JSON")
    args = parser.parse_args(argv)

    levels = np.linspace(10, 100, args.tables).round().astype(int)
    tables = [f"level:{x}" for x in levels]
    deals = random_deals(args.hands, task_rng(0, 0), one_bomb=True)
    games = len(deals) * len(tables)
    warm_engine()
    out: dict[str, object] = {"games": games, "tables": tables, "farmer": args.farmer}
    serial, t1 = _run("serial", 1, deals, tables, args.farmer)
    local, tn = _run("local", args.workers, deals, tables, args.farmer)
    if not np.array_equal(serial, local):
        print("error: scores differ between 1 and several workers", file=sys.stderr)
        return 1
    rate1, raten = games / t1, games / tn
    out.update(
        games_per_second_1_worker=round(rate1, 1),
        **{f"games_per_second_{args.workers}_workers": round(raten, 1)},
        parallel_efficiency=round(raten / (rate1 * args.workers), 3),
    )
    if args.ray:
        ray_scores, tr = _run("ray", args.workers, deals, tables, args.farmer)
        if not np.array_equal(serial, ray_scores):
            print("error: Ray scores differ from the serial ones", file=sys.stderr)
            return 1
        out[f"games_per_second_ray_{args.workers}_cpus"] = round(games / tr, 1)
    per_core = raten / args.workers
    out.update(
        seed_004_games=SEED_004_GAMES,
        projected_hours_1_worker=round(_hours(SEED_004_GAMES, rate1), 1),
        **{f"projected_hours_{args.workers}_workers": round(_hours(SEED_004_GAMES, raten), 1)},
        cluster_cores=args.cluster_cores,
        projected_hours_cluster_at_1_worker_rate=round(
            _hours(SEED_004_GAMES, rate1 * args.cluster_cores), 2
        ),
        projected_hours_cluster_at_parallel_rate=round(
            _hours(SEED_004_GAMES, per_core * args.cluster_cores), 2
        ),
        assumption=(
            "cluster rate = cores x (this machine's 1-worker rate, or its per-core rate with all "
            "local workers busy); independent 40-game tasks, linear scaling, same CPU speed; "
            "grading games only, no I/O"
        ),
    )
    for key, value in out.items():
        if key != "tables":
            print(f"{key:>34}: {value}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
