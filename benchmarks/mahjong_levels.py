"""The strength ladder of the graded mahjong bots: mean placement by level.

Usage (2,000 east-only games on two worker processes take about ten minutes on a shared
two-core machine):

    .venv/bin/python benchmarks/mahjong_levels.py --games 2000 --workers 2
    .venv/bin/python benchmarks/mahjong_levels.py --games 200 --levels 0,50,100

Each game seats four different levels drawn at random from ``--levels`` in a random order,
on random walls (east-only games unless ``--length south``), through the tournament runner
(the game contract, the referee, the process executor). The table gives each level's games,
mean placement (1 best, 4 worst) with its standard error and mean final points; the ladder is
monotone when the mean placement falls with every step up in level. Every game's generator is
named by (seed, game), so a run is reproduced by its command line whatever the workers.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections import defaultdict

import numpy as np

from mindsport.games.many import Table
from mindsport.mahjong import placements
from mindsport.tournament.executors import ProcessExecutor, SerialExecutor, task_rng
from mindsport.tournament.runner import GameSpec, play_tables


def _tables(levels: list[int], games: int, seed: int) -> list[Table]:
    rng = task_rng(seed, 1)
    out = []
    for g in range(games):
        seated = rng.choice(levels, size=4, replace=False)
        out.append(Table(None, tuple(f"level:{int(x)}" for x in seated), (0, g)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--levels", default="0,20,40,60,80,100")
    parser.add_argument("--length", default="east", choices=("east", "south"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=25)
    args = parser.parse_args()
    levels = sorted(int(x) for x in args.levels.split(","))
    if len(levels) < 4:
        parser.error("--levels: give at least four levels (four seats of different levels)")
    tables = _tables(levels, args.games, args.seed)
    name = "mahjong-east" if args.length == "east" else "mahjong"
    points = play_game_set(GameSpec(name), tables, args)
    by_level: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for table, pts in zip(tables, points, strict=True):
        # returns are points / 1000 - 25: places by points, ties to the lower seat (no built-in
        # bot forfeits)
        places = placements([round(25_000 + 1000 * p) for p in pts])
        for seat, spec in enumerate(table.bots):
            by_level[int(str(spec).split(":")[1])].append((places[seat], pts[seat]))
    print(f"{args.games} {args.length} games, levels {levels}, seed {args.seed}")
    print(f"{'level':>6} {'seats':>6} {'mean place':>11} {'s.e.':>6} {'mean points':>12}")
    means = []
    for level in levels:
        rows = np.array(by_level[level])
        place = rows[:, 0]
        se = place.std(ddof=1) / math.sqrt(len(place))
        means.append(place.mean())
        print(
            f"{level:>6} {len(place):>6} {place.mean():>11.3f} {se:>6.3f} "
            f"{25_000 + 1000 * rows[:, 1].mean():>12.0f}"
        )
    monotone = all(a > b for a, b in itertools.pairwise(means))
    print("monotone (mean place falls with every level step):", monotone)


def play_game_set(spec: GameSpec, tables: list[Table], args: argparse.Namespace) -> np.ndarray:
    """The returns of ``tables`` under ``spec``, timed."""
    start = time.perf_counter()
    if args.workers > 1:
        with ProcessExecutor(args.workers) as pool:
            out = play_tables(spec, tables, args.seed, executor=pool, chunk=args.chunk)
    else:
        out = play_tables(spec, tables, args.seed, executor=SerialExecutor(), chunk=args.chunk)
    took = time.perf_counter() - start
    print(f"{spec.name} {dict(spec.params)}: {len(tables)} games in {took:.1f} s")
    return out


if __name__ == "__main__":
    main()
