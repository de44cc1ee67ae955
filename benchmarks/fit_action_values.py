"""Fit the Dou Dizhu value functions of the action correction
(:data:`mindsport.doudizhu.action_terms.VALUE_WEIGHTS`) on games no comparison plays.

Each pair of graded bots plays ``--sets`` duplicate sets whose deals and games are drawn on
spawn keys under stream 9 (``(9, 0, set)`` the deal, ``(9, 1, set, lineup)`` the game) of
``--seed``: a comparison draws its deals and games on streams 0 to 4 only
(:mod:`mindsport.games.compare.schedule`), so these games are none of any comparison's,
whatever its seed. Per set, the action terms of every feature
(:func:`mindsport.doudizhu.action_terms.feature_terms`) are oriented to the first bot's
margin and summed over the line-ups and sides; the weights are the least-squares slopes of the
set's mean win score (and mean margin) on them, within each pair (pair means removed). Prints
the weights as the Python constant and the in-sample effective-sample gain.

    python benchmarks/fit_action_values.py
"""

from __future__ import annotations

import argparse

import numpy as np

from mindsport.doudizhu.action_terms import FEATURE_NAMES, feature_terms
from mindsport.games import Table, get_game, play_many
from mindsport.games.compare.schedule import rotation, win_scores
from mindsport.games.many import Seeding

STREAM = 9


def pair_data(a: str, b: str, sets: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per set: the oriented feature terms, the mean win score and the mean margin."""
    game = get_game("doudizhu")
    rot = rotation(game.info)
    deals = [game.sample_chance(Seeding.SPAWN.rng(seed, (STREAM, 0, s))) for s in range(sets)]
    tables = [
        Table(d, rot.seating(m, a, b), (STREAM, 1, s, m))
        for s, d in enumerate(deals)
        for m in range(len(rot))
    ]
    records = play_many(game, tables, seed, records=True)
    terms, _ = feature_terms(records, [t.bots for t in tables])
    orient = np.array([2.0 if rot.holder(m)[0] == 0 else -2.0 for m in range(len(rot))])
    x = (terms.sum(axis=1).reshape(sets, len(rot), -1) * orient[None, :, None]).mean(axis=1)
    returns = np.array([r.scores for r in records]).reshape(sets, len(rot), 3)
    margins = rot.margins(returns)
    return x, win_scores(margins).mean(axis=1), margins.mean(axis=1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", default="level:90/level:70,level:90/level:30,level:70/level:50,"
                   "level:50/level:20")  # fmt: skip
    p.add_argument("--sets", type=int, default=1500)
    p.add_argument("--seed", type=int, default=777)
    args = p.parse_args()
    xs, wins, margins = [], [], []
    for pair in args.pairs.split(","):
        a, b = pair.split("/")
        x, w, m = pair_data(a, b, args.sets, args.seed)
        xs.append(x - x.mean(axis=0))
        wins.append(w - w.mean())
        margins.append(m - m.mean())
    x = np.concatenate(xs)
    rows = []
    for name, y in (("win", np.concatenate(wins)), ("score", np.concatenate(margins))):
        weights, *_ = np.linalg.lstsq(x, y, rcond=None)
        gain = y.var() / (y - x @ weights).var()
        print(f"{name}: in-sample gain x{gain:.3f}")
        rows.append(weights)
    print("VALUE_WEIGHTS = (")
    for row in rows:
        print("    (" + ", ".join(f"{v:.6g}" for v in row) + "),")
    print(")")
    print("# features:", ", ".join(FEATURE_NAMES))


if __name__ == "__main__":
    main()
