"""Games per second: RLCard's Dou Dizhu with its rule agents vs mindsport's engines and bots.

Everything runs in this one process, one core, one after the other; rates are games per CPU
second of this process (time.process_time), so other load on the machine does not skew the ratio:

* RLCard: ``rlcard.make("doudizhu")`` with three ``DouDizhuRuleAgentV1``, ``env.run``;
* mindsport python: ``play(deal(rng), bots)`` per game (the reference engine);
* mindsport compiled: ``simulate_fast`` (numba: deal, moves, bots and game loop; the same games
  as the Python engine for the same seeds), after a warm-up call that loads or compiles it.

    .venv/bin/pip install rlcard
    .venv/bin/python benchmarks/bench_ddz.py --games 1000 --fast-games 20000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mindsport.doudizhu import deal, play
from mindsport.doudizhu.bots import make_bots
from mindsport.doudizhu.compiled import simulate_fast

BOTS = ("strong", "level:100,level:50,level:50", "level:50", "greedy", "random")


def rlcard_rate(games: int, seed: int) -> float:
    import rlcard
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

    env = rlcard.make("doudizhu", config={"seed": seed})
    env.set_agents([DouDizhuRuleAgentV1() for _ in range(3)])
    np.random.seed(seed)
    env.run(is_training=False)  # warm-up (loads the action tables)
    start = time.process_time()
    for _ in range(games):
        env.run(is_training=False)
    return games / (time.process_time() - start)


def mindsport_rate(games: int, seed: int, bots: str) -> float:
    players = make_bots(bots)
    play(deal(np.random.default_rng(-1 % 2**32)), players, rng=np.random.default_rng(0))  # JIT
    start = time.process_time()
    for i in range(games):
        rng = np.random.default_rng([seed, i])
        play(deal(rng), players, rng=rng)
    return games / (time.process_time() - start)


def compiled_rate(games: int, seed: int, bots: str) -> float:
    simulate_fast(3, bots, seed=seed + 1)  # load (or compile) the kernels
    start = time.process_time()
    simulate_fast(games, bots, seed=seed)
    return games / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per Python-engine line")
    parser.add_argument("--fast-games", type=int, default=20000, help="games per compiled line")
    parser.add_argument("--rlcard-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    base = rlcard_rate(args.rlcard_games, args.seed)
    print(f"{'engine / bots':48s} {'games/s':>9s} {'vs RLCard':>10s}")
    print(f"{'rlcard doudizhu, 3 x DouDizhuRuleAgentV1':48s} {base:9.1f} {1.0:9.1f}x")
    for bots in BOTS:
        rate = mindsport_rate(args.games, args.seed, bots)
        print(f"{'mindsport python   ' + bots:48s} {rate:9.1f} {rate / base:9.1f}x")
        rate = compiled_rate(args.fast_games, args.seed, bots)
        print(f"{'mindsport compiled ' + bots:48s} {rate:9.1f} {rate / base:9.1f}x")


if __name__ == "__main__":
    main()
