"""Games per second of seed 004's grading workload, and the projected cost of its library.

Workload (seed 004, experiment 2): one-bomb deals, each played at ``--tables`` tables whose
landlords are graded bots (levels 10, 20, ..., 100) with the same two farmer bots, through the
tournament runner (:func:`mindsport.tournament.doudizhu.games.landlord_table`: deals as values,
per-game seeds, chunks on an executor). The same games run serially (1 worker), on local worker
processes (``--workers``) and optionally on a local Ray instance (``--ray``); the scores must be
identical on all of them, else the script fails.

Rates are games per second of wall time (the load average is printed with them: other work on
the machine slows them down); the serial run also reports games per CPU second of this process,
which other work does not change. Projection: seed 004 graded 200,000 hands at 70 tables =
14,000,000 games; time on this machine = games / (rate of the local workers); on a cluster of
N cores, N times the per-core rate (independent chunks of games, linear scaling).

    .venv/bin/python benchmarks/tournament_scale.py --hands 10000 --ray
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from mindsport.doudizhu import Deal
from mindsport.tournament.doudizhu.games import landlord_table, random_deals, warm_engine
from mindsport.tournament.executors import make_executor, task_rng

SEED_004_GAMES = 200_000 * 70


def _run(
    kind: str, workers: int, deals: list[Deal], tables: list[str], farmer: str
) -> tuple[np.ndarray, float, float]:
    """Scores, wall seconds and this process's CPU seconds of the grading run."""
    with make_executor(kind, workers, warmup=warm_engine) as ex:
        # start the workers (processes fork, Ray workers import and load) outside the clock
        landlord_table(deals[: ex.workers], tables[:1], (farmer, farmer), 99, 0, ex, chunk=1)
        start = time.perf_counter()
        cpu = time.process_time()
        scores = landlord_table(deals, tables, (farmer, farmer), 0, 1, ex)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
    return scores, seconds, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000, help="one-bomb deals to grade")
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
    out: dict[str, object] = {
        "games": games,
        "tables": tables,
        "farmer": args.farmer,
        "load_average_before": os.getloadavg(),
    }
    serial, t1, cpu1 = _run("serial", 1, deals, tables, args.farmer)
    local, tn, _ = _run("local", args.workers, deals, tables, args.farmer)
    if not np.array_equal(serial, local):
        print("error: scores differ between 1 and several workers", file=sys.stderr)
        return 1
    rate1, raten = games / t1, games / tn
    out.update(
        games_per_second_1_worker=round(rate1, 1),
        games_per_cpu_second_1_worker=round(games / cpu1, 1),
        **{f"games_per_second_{args.workers}_workers": round(raten, 1)},
        games_per_second_per_core=round(raten / args.workers, 1),
        parallel_efficiency=round(raten / (rate1 * args.workers), 3),
    )
    if args.ray:
        ray_scores, tr, _ = _run("ray", args.workers, deals, tables, args.farmer)
        if not np.array_equal(serial, ray_scores):
            print("error: Ray scores differ from the serial ones", file=sys.stderr)
            return 1
        out[f"games_per_second_ray_{args.workers}_cpus"] = round(games / tr, 1)
    out.update(
        scores_identical_on_all_executors=True,
        seed_004_games=SEED_004_GAMES,
        projected_minutes_1_worker=round(SEED_004_GAMES / rate1 / 60, 1),
        **{
            f"projected_minutes_{args.workers}_workers": round(SEED_004_GAMES / raten / 60, 1),
        },
        cluster_cores=args.cluster_cores,
        projected_minutes_cluster=round(
            SEED_004_GAMES / (raten / args.workers * args.cluster_cores) / 60, 2
        ),
        load_average_after=os.getloadavg(),
        assumption=(
            "cluster rate = cores x this machine's per-core rate with all local workers busy; "
            "independent chunks of games, linear scaling, same CPU speed; grading games only"
        ),
    )
    for key, value in out.items():
        if key != "tables":
            print(f"{key:>36}: {value}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
