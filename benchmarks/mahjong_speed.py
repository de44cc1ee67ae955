"""Games a second through the game contract against riichienv's own loop, with the same bots.

Usage (about seven minutes on a loaded two-core machine; the results file is this run):

    .venv/bin/python benchmarks/mahjong_speed.py --games 120 --workers 2

The baseline is the engine's gym loop (``obs = env.step({seat: action})`` until ``env.done()``)
with the bots deciding through their ``choose(obs, actions, rng)``. The bots make the same
decisions on both paths: in the engine loop each seat chooses among the engine's actions with
copies of one tile counted once (the moves the contract lists, :func:`legal_moves`), seats in
seat order, from the table's generator, so both paths play the same games (checked: every game's
final points agree). The contract is the tournament runner
(:func:`mindsport.tournament.runner.play_tables`: the referee, one seat at a time, moves as
values, observations) on the same walls with the same bots. Both run on one core, then on the
process executor (``--workers`` processes: the runner's :class:`ProcessExecutor` for the
contract, a process pool of the same size for the engine loop, the same tables per worker).

``raw engine`` is the loop without counting copies once (each seat chooses among the engine's
listed actions, as a bare riichienv program would): other games, so its decisions per game are
shown beside the contract's. The paths take turns so that the machine's load falls on all alike:
on one core game by game, on processes ``--round`` games per worker at a time; ratios are
contract / engine games a second.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import time
from collections.abc import Sequence

import numpy as np

from mindsport.games.many import Table
from mindsport.mahjong import MahjongGame, Walls
from mindsport.mahjong.bots import make_bot
from mindsport.mahjong.state import legal_moves
from mindsport.tournament.executors import ProcessExecutor, SerialExecutor, task_rng
from mindsport.tournament.runner import play_tables

LINEUPS = {
    "random x4": ("random",) * 4,
    "level:100 x4": ("level:100",) * 4,
    "levels 100,60,30,0": ("level:100", "level:60", "level:30", "level:0"),
}

#: (length, bot specs, tables as (walls seed, key), run seed, copies counted once)
Task = tuple[str, tuple[str, ...], Sequence[tuple[int, tuple[int, ...]]], int, bool]


def engine_games(task: Task) -> tuple[list[list[int]], int]:
    """The engine's own loop over ``tables``: each game's final points, and the decisions."""
    from riichienv import GameRule, RiichiEnv

    length, specs, tables, seed, distinct = task
    mode = MahjongGame(length).mode
    bots = [make_bot(s) for s in specs]
    out = []
    decisions = 0
    for walls, key in tables:
        rng = task_rng(seed, *key)  # the table's generator, as the runner's
        env = RiichiEnv(game_mode=mode, seed=walls, rule=GameRule.default_tenhou())
        obs = env.reset()
        while not env.done():
            chosen = {}
            for seat in sorted(obs):
                o = obs[seat]
                actions = legal_moves(o).kept if distinct else o.legal_actions()
                chosen[seat] = actions[bots[seat].choose(o, actions, rng)]
            decisions += len(chosen)
            obs = env.step(chosen)
        out.append(list(env.scores()))
    return out, decisions


def _points(returns: np.ndarray) -> list[list[int]]:
    return [[round(25_000 + 1000 * r) for r in row] for row in returns.tolist()]


def _chunks(items: Sequence[Table], parts: int) -> list[Sequence[Table]]:
    size = -(-len(items) // parts)
    return [items[i : i + size] for i in range(0, len(items), size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per line-up and path")
    parser.add_argument("--length", default="east", choices=("east", "south"))
    parser.add_argument("--round", type=int, default=2, help="processes: games per worker a turn")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    seeds = [int(x) for x in np.random.default_rng(args.seed).integers(0, 2**63, args.games)]
    name = "mahjong-east" if args.length == "east" else "mahjong"
    print(f"{args.games} {args.length} games per line-up and path")
    print("load average at the start: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(
        f"{'line-up':<20} {'where':<12} {'engine g/s':>10} {'contract g/s':>12} {'ratio':>6}"
        f" {'raw engine g/s':>14} {'ratio':>6} {'decisions/game':>15}"
    )
    with (
        concurrent.futures.ProcessPoolExecutor(args.workers) as pool,
        ProcessExecutor(args.workers) as executor,
    ):
        for label, specs in LINEUPS.items():
            tables = [Table(Walls(w), specs, (i,)) for i, w in enumerate(seeds)]
            for where in ("one core", f"{args.workers} processes"):
                parallel = where != "one core"
                spent = {"engine": 0.0, "contract": 0.0, "raw": 0.0}
                decisions = {"engine": 0, "raw": 0}
                if parallel:  # start the workers before timing
                    list(pool.map(engine_games, [_task(args, specs, tables[:1], True)] * 2))
                    play_tables(name, tables[: args.workers], args.seed, executor, chunk=1)
                size = args.round * args.workers if parallel else 1
                for part in [tables[i : i + size] for i in range(0, len(tables), size)]:
                    parts = _chunks(part, args.workers) if parallel else [part]
                    for path in ("engine", "contract", "raw"):
                        start = time.perf_counter()
                        if path == "contract":
                            runner = executor if parallel else SerialExecutor()
                            chunk = len(parts[0])
                            returns = play_tables(name, part, args.seed, runner, chunk=chunk)
                        else:
                            tasks = [_task(args, specs, p, path == "engine") for p in parts]
                            done = list(
                                pool.map(engine_games, tasks)
                                if parallel
                                else [engine_games(tasks[0])]
                            )
                        spent[path] += time.perf_counter() - start
                        if path == "contract":
                            contract_points = _points(returns)
                        else:
                            decisions[path] += sum(d for _, d in done)
                            if path == "engine":
                                engine_points = [p for points, _ in done for p in points]
                    if engine_points != contract_points:
                        raise SystemExit(
                            f"{label}: the engine loop and the contract played other games"
                        )
                _line(label, where, args.games, spent, decisions)
    print("load average at the end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def _task(
    args: argparse.Namespace, specs: tuple[str, ...], tables: Sequence[Table], distinct: bool
) -> Task:
    pairs = [(t.chance.seed, t.key) for t in tables]
    return (args.length, specs, pairs, args.seed, distinct)


def _line(
    label: str, where: str, games: int, spent: dict[str, float], decisions: dict[str, int]
) -> None:
    engine, contract, raw = (games / spent[k] for k in ("engine", "contract", "raw"))
    per_game = f"{decisions['engine'] / games:.0f} / {decisions['raw'] / games:.0f}"
    print(
        f"{label:<20} {where:<12} {engine:>10.2f} {contract:>12.2f} {contract / engine:>6.2f}"
        f" {raw:>14.2f} {contract / raw:>6.2f} {per_game:>15}"
    )


if __name__ == "__main__":
    main()
