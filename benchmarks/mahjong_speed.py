"""Games a second through the game contract against riichienv's own loop, with the same bots.

Usage (about three minutes on a shared two-core machine):

    .venv/bin/python benchmarks/mahjong_speed.py --games 40 --workers 2

The baseline is the engine's gym loop (``obs = env.step({seat: action})`` until ``env.done()``)
with the bots deciding through their ``choose(obs, actions, rng)``; the contract is
:func:`mindsport.games.many.play_many` (the referee: one seat at a time, moves as values,
observations) on the same walls with the same bots. Both run on one core, then on the process
executor (``--workers`` processes, the tournament runner for the contract, a process pool of
the same size for the engine loop). Each line-up's two paths alternate in ``--rounds`` rounds
so that the machine's load falls on both alike; the ratio is contract / engine games a second.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import time
from collections.abc import Sequence

import numpy as np

from mindsport.games.many import Table, play_many
from mindsport.mahjong import MahjongGame, Walls
from mindsport.mahjong.bots import make_bot
from mindsport.tournament.executors import ProcessExecutor
from mindsport.tournament.runner import play_tables

LINEUPS = {
    "random x4": ("random",) * 4,
    "level:100 x4": ("level:100",) * 4,
    "levels 100,60,30,0": ("level:100", "level:60", "level:30", "level:0"),
}


def engine_games(task: tuple[str, tuple[str, ...], Sequence[int], int]) -> list[list[int]]:
    """The engine's own loop: games on walls ``seeds`` between ``specs``; final points."""
    from riichienv import GameRule, RiichiEnv

    length, specs, seeds, seed = task
    mode = MahjongGame(length).mode
    bots = [make_bot(s) for s in specs]
    out = []
    for i, walls in enumerate(seeds):
        rng = np.random.default_rng([seed, i])
        env = RiichiEnv(game_mode=mode, seed=int(walls), rule=GameRule.default_tenhou())
        obs = env.reset()
        while not env.done():
            chosen = {}
            for seat, o in obs.items():
                actions = o.legal_actions()
                chosen[seat] = actions[bots[seat].choose(o, actions, rng)]
            obs = env.step(chosen)
        out.append(list(env.scores()))
    return out


def contract_games(length: str, specs: tuple[str, ...], seeds: Sequence[int], seed: int) -> None:
    tables = [Table(Walls(int(w)), specs, (i,)) for i, w in enumerate(seeds)]
    play_many(MahjongGame(length), tables, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per line-up and path")
    parser.add_argument("--length", default="east", choices=("east", "south"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    seeds = [int(x) for x in np.random.default_rng(args.seed).integers(0, 2**63, args.games)]
    name = "mahjong-east" if args.length == "east" else "mahjong"
    per_round = [seeds[r :: args.rounds] for r in range(args.rounds)]
    print(f"{args.games} {args.length} games per line-up and path, {args.rounds} rounds")
    print(f"{'line-up':<20} {'where':<12} {'engine g/s':>10} {'contract g/s':>12} {'ratio':>6}")
    for label, specs in LINEUPS.items():
        spent = {"engine": 0.0, "contract": 0.0}
        for part in per_round:
            start = time.perf_counter()
            engine_games((args.length, specs, part, args.seed))
            spent["engine"] += time.perf_counter() - start
            start = time.perf_counter()
            contract_games(args.length, specs, part, args.seed)
            spent["contract"] += time.perf_counter() - start
        _line(label, "one core", args.games, spent)
        spent = {"engine": 0.0, "contract": 0.0}
        chunks = [seeds[w :: args.workers] for w in range(args.workers)]
        tables = [Table(Walls(w), specs, (i,)) for i, w in enumerate(seeds)]
        chunk = -(-len(tables) // args.workers)
        with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
            list(pool.map(engine_games, [(args.length, specs, c[:1], 0) for c in chunks]))
            start = time.perf_counter()
            list(pool.map(engine_games, [(args.length, specs, c, args.seed) for c in chunks]))
            spent["engine"] = time.perf_counter() - start
        with ProcessExecutor(args.workers) as executor:
            play_tables(name, tables[: args.workers], args.seed, executor=executor, chunk=1)
            start = time.perf_counter()
            play_tables(name, tables, args.seed, executor=executor, chunk=chunk)
            spent["contract"] = time.perf_counter() - start
        _line(label, f"{args.workers} processes", args.games, spent)


def _line(label: str, where: str, games: int, spent: dict[str, float]) -> None:
    engine = games / spent["engine"]
    contract = games / spent["contract"]
    print(f"{label:<20} {where:<12} {engine:>10.2f} {contract:>12.2f} {contract / engine:>6.2f}")


if __name__ == "__main__":
    main()
