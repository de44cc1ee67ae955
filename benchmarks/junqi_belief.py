"""Luzhanqi belief benchmark: identification accuracy, fitted vs exact, bot strength, speed.

Usage (each part can run alone; the whole run takes ~5 minutes on one core):

    .venv/bin/python benchmarks/junqi_belief.py --games 1000 --match-games 100 --exact-states 24
    .venv/bin/python benchmarks/junqi_belief.py --parts accuracy --games 200

Parts:
* ``accuracy``: greedy vs greedy games; player 0 tracks player 1's pieces with four estimators
  (fitted matrix = Sinkhorn/IPF, seed 003's one-pass update, row-only, uniform roster prior);
  after the k-th collision: top-1 accuracy over the enemy's pieces still on the board, and the
  mean probability given to each piece's true kind.
* ``exact``: at collision counts 5, 10, 15, 20, ... of the first games, the exact marginals
  (dynamic programming over the consistent assignments) vs the fitted matrix and the patent's.
* ``match``: win/draw/loss of belief vs random, belief vs greedy, greedy vs random (colours
  alternate), with 95% Wilson intervals, and the time per move of each bot.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict

import numpy as np

from mindsport.belief import exact_marginals
from mindsport.junqi import BeliefMethod, EnemyTracker, State, make_bot, play_game

CHECKPOINTS = (0, 1, 2, 3, 5, 8, 10, 15, 20, 25, 30, 35, 40)
METHODS = (BeliefMethod.FITTED, BeliefMethod.PATENT, BeliefMethod.ROWWISE, BeliefMethod.UNIFORM)


def _truth(state: State, tracker: EnemyTracker) -> np.ndarray:
    return np.array([int(state.kind_of(pid)) for pid in tracker.ids])


def _top1_agreement(p: np.ndarray, exact: np.ndarray) -> float:
    """Share of rows whose most likely kind under ``p`` is a most likely kind under ``exact``
    (ties in the exact marginals count as agreement)."""
    picked = exact[np.arange(len(p)), p.argmax(axis=1)]
    return float(np.mean(picked >= exact.max(axis=1) - 1e-9))


def _record(
    k: int,
    state: State,
    trackers: dict[BeliefMethod, EnemyTracker],
    truth: np.ndarray,
    sums: dict[int, dict[BeliefMethod, list[float]]],
    reached: dict[int, int],
) -> None:
    """Score every estimator on the enemy pieces still on the board."""
    obs = state.observation(0)
    alive = np.array([pid in obs.enemy for pid in trackers[BeliefMethod.FITTED].ids])
    rows = np.flatnonzero(alive)
    reached[k] += 1
    for m, tr in trackers.items():
        tr.update(obs)
        p = tr.probabilities
        pred = p[rows].argmax(axis=1)
        s = sums[k][m]
        s[0] += float(np.sum(pred == truth[rows]))
        s[1] += len(rows)
        s[2] += float(np.sum(p[rows, truth[rows]]))


def accuracy_part(games: int, seed: int, exact_states: int) -> None:
    rng = np.random.default_rng(seed)
    # sums[checkpoint][method] -> [correct, pieces, p_true_sum]
    sums: dict[int, dict[BeliefMethod, list[float]]] = defaultdict(
        lambda: {m: [0.0, 0.0, 0.0] for m in METHODS}
    )
    reached: dict[int, int] = defaultdict(int)
    exact_rows: list[tuple[int, float, float, float, float, float, float]] = []
    t0 = time.perf_counter()
    total_collisions = 0
    for _ in range(games):
        state = State.new_game(rng)
        bots = [make_bot("greedy"), make_bot("greedy")]
        trackers = {m: EnemyTracker(0, m) for m in METHODS}
        truth = _truth(state, trackers[BeliefMethod.FITTED])

        _record(0, state, trackers, truth, sums, reached)
        collisions = 0
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            state.apply_action(bots[player].act(state.observation(player), legal, rng))
            if state.events[-1].outcome is not None:
                collisions += 1
                if collisions in CHECKPOINTS:
                    _record(collisions, state, trackers, truth, sums, reached)
                    if collisions % 5 == 0 and len(exact_rows) < exact_states:
                        fitted = trackers[BeliefMethod.FITTED]
                        assert fitted.matrix is not None
                        ex = exact_marginals(fitted.matrix)
                        pf = fitted.probabilities
                        pp = trackers[BeliefMethod.PATENT].probabilities
                        exact_rows.append(
                            (
                                collisions,
                                float(np.abs(pf - ex).mean()),
                                float(np.abs(pf - ex).max()),
                                _top1_agreement(pf, ex),
                                float(np.abs(pp - ex).mean()),
                                float(np.abs(pp - ex).max()),
                                _top1_agreement(pp, ex),
                            )
                        )
        total_collisions += collisions
    elapsed = time.perf_counter() - t0
    print(f"\n## Identification accuracy (greedy vs greedy, {games} games, seed {seed})")
    print(f"{elapsed:.0f} s incl. exact marginals; {total_collisions / games:.1f} collisions/game")
    print("top-1 accuracy over the enemy's pieces on the board after k collisions")
    print("(in brackets: mean probability given to the true kind)\n")
    header = f"{'k':>3} {'games':>6} " + " ".join(f"{m.value:>16}" for m in METHODS)
    print(header)
    print("-" * len(header))
    for k in CHECKPOINTS:
        if reached[k] == 0:
            continue
        cells = []
        for m in METHODS:
            c, n, pt = sums[k][m]
            cells.append(f"{c / n:7.3f} ({pt / n:6.3f})")
        print(f"{k:>3} {reached[k]:>6} " + " ".join(f"{x:>16}" for x in cells))
    if exact_rows:
        print(
            f"\n## Fitted (IPF) and patent matrices vs exact marginals ({len(exact_rows)} states)"
        )
        print("25 enemy rows x 12 kinds; |P - exact| per cell; top1= : share of rows whose")
        print("most likely kind is also most likely under the exact marginals\n")
        print(
            f"{'k':>3} {'IPF mean':>9} {'IPF max':>8} {'IPF top1=':>9} "
            f"{'patent mean':>11} {'patent max':>10} {'patent top1=':>12}"
        )
        by_k: dict[int, list[tuple[float, ...]]] = defaultdict(list)
        for row in exact_rows:
            by_k[row[0]].append(row[1:])
        for k in sorted(by_k):
            a = np.array(by_k[k])
            print(
                f"{k:>3} {a[:, 0].mean():9.4f} {a[:, 1].max():8.4f} {a[:, 2].mean():9.3f} "
                f"{a[:, 3].mean():11.4f} {a[:, 4].max():10.4f} {a[:, 5].mean():12.3f}"
            )
        a = np.array([r[1:] for r in exact_rows])
        print(
            f"all {a[:, 0].mean():9.4f} {a[:, 1].max():8.4f} {a[:, 2].mean():9.3f} "
            f"{a[:, 3].mean():11.4f} {a[:, 4].max():10.4f} {a[:, 5].mean():12.3f}"
        )


def _wilson(wins: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


PAIRINGS = (
    ("belief", "random"),
    ("belief", "greedy"),
    ("greedy", "random"),
    ("belief-nolook", "greedy"),
    ("belief-rowonly", "greedy"),
    ("belief-patent", "greedy"),
    ("belief", "belief-patent"),
)


def match_part(games: int, seed: int, pairings: tuple[tuple[str, str], ...] = PAIRINGS) -> None:
    rng = np.random.default_rng(seed + 1)
    print(f"\n## Bot strength ({games} games per pairing, colours alternate, seed {seed + 1})\n")
    print(
        f"{'pairing':<29} {'win':>5} {'draw':>5} {'loss':>5} {'score':>6} {'win 95% CI':>15} "
        f"{'plies':>6} {'ms/move A':>10} {'ms/move B':>10}"
    )
    for a, b in pairings:
        w = d = lo = 0
        plies = 0
        spent = {a: 0.0, b: 0.0}
        moves = {a: 0, b: 0}
        for g in range(games):
            seat_a = g % 2
            bots = [make_bot(a), make_bot(b)]
            if seat_a == 1:
                bots.reverse()
            rec = play_game(bots, rng)
            plies += rec.plies
            for seat, name in enumerate(rec.bot_names):
                spent[name] += rec.move_seconds[seat]
                moves[name] += rec.moves[seat]
            if rec.winner is None:
                d += 1
            elif rec.winner == seat_a:
                w += 1
            else:
                lo += 1
        low, high = _wilson(w, games)
        score = (w + 0.5 * d) / games
        print(
            f"{a + ' vs ' + b:<29} {w:>5} {d:>5} {lo:>5} {score:>6.3f} "
            f"{f'[{low:.2f}, {high:.2f}]':>15} {plies / games:>6.0f} "
            f"{1e3 * spent[a] / max(1, moves[a]):>10.2f} {1e3 * spent[b] / max(1, moves[b]):>10.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="accuracy games")
    parser.add_argument("--match-games", type=int, default=100, help="games per pairing")
    parser.add_argument("--exact-states", type=int, default=24, help="states checked exactly")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--parts", default="accuracy,match", help="accuracy,match")
    parser.add_argument(
        "--pairings",
        default=",".join(f"{a}:{b}" for a, b in PAIRINGS),
        help="bot pairings a:b, comma separated",
    )
    args = parser.parse_args()
    parts = {p.strip() for p in args.parts.split(",")}
    start = time.perf_counter()
    if "accuracy" in parts:
        accuracy_part(args.games, args.seed, args.exact_states)
    if "match" in parts:
        pairings = tuple((x.split(":")[0], x.split(":")[1]) for x in args.pairings.split(",") if x)
        match_part(args.match_games, args.seed, pairings)
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
