"""Round robin of graded Dou Dizhu bots (``level`` 0..100), rated by TrueSkill.

Ten levels play every pair on duplicate deals: level a as landlord against two level-b farmers,
and level b as landlord against two level-a farmers on the same deal. Each game is a 1-vs-1
result (landlord side vs farmer side) fed to TrueSkill (mindsport.rating.TrueSkill when it is
available, else the reference ``trueskill`` package), in a shuffled order. A graded family is
monotone when the ratings increase with the level.

    .venv/bin/python benchmarks/ddz_levels.py --deals 40
"""

from __future__ import annotations

import argparse
import itertools
import time
from typing import Any

import numpy as np

from mindsport.doudizhu import deal, play
from mindsport.doudizhu.bots import LevelBot


def trueskill_model() -> tuple[Any, str]:
    try:
        from mindsport.rating import TrueSkill

        return TrueSkill(draw_probability=0.0), "mindsport.rating.TrueSkill"
    except Exception:  # the in-house model is being written: fall back to the reference
        import trueskill

        return trueskill.TrueSkill(draw_probability=0.0), "trueskill 0.4.5"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="duplicate deals per pair")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    levels = [round(100 * i / 9) for i in range(10)]
    bots = {lv: LevelBot(lv) for lv in levels}
    games: list[tuple[int, int, bool, float]] = []  # landlord level, farmer level, won, score
    start = time.perf_counter()
    for pair_index, (a, b) in enumerate(itertools.combinations(levels, 2)):
        for i in range(args.deals):
            the_deal = deal(np.random.default_rng([args.seed, pair_index, i]))
            for lord, farm in ((a, b), (b, a)):
                rng = np.random.default_rng([args.seed, pair_index, i, lord])
                rec = play(the_deal, [bots[lord], bots[farm], bots[farm]], rng=rng)
                games.append((lord, farm, rec.landlord_won, rec.landlord_score))
    elapsed = time.perf_counter() - start
    model, model_name = trueskill_model()
    ratings = {
        lv: model.create_rating() if hasattr(model, "create_rating") else model.rating()
        for lv in levels
    }
    order = np.random.default_rng(args.seed).permutation(len(games))
    for k in order:
        lord, farm, won, _ = games[int(k)]
        winner, loser = (lord, farm) if won else (farm, lord)
        ratings[winner], ratings[loser] = model.rate_1vs1(ratings[winner], ratings[loser])
    points = dict.fromkeys(levels, 0.0)
    played = dict.fromkeys(levels, 0)
    for lord, farm, _, score in games:
        points[lord] += score
        points[farm] -= score
        played[lord] += 1
        played[farm] += 1
    print(
        f"{len(games)} games ({args.deals} duplicate deals per pair), {elapsed:.0f} s, "
        f"rated with {model_name}"
    )
    print(f"{'level':>5s} {'mu':>7s} {'sigma':>6s} {'mean side score':>16s}")
    for lv in levels:
        r = ratings[lv]
        print(f"{lv:5d} {r.mu:7.2f} {r.sigma:6.2f} {points[lv] / played[lv]:+16.3f}")
    mus = [ratings[lv].mu for lv in levels]
    ranks = np.argsort(np.argsort(mus))
    rho = np.corrcoef(ranks, np.arange(len(levels)))[0, 1]
    print(f"Spearman rank correlation of mu with level: {rho:.3f}")


if __name__ == "__main__":
    main()
