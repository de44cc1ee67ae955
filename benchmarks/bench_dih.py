"""DIH speed: mindsport's polynomial DP against a direct implementation of the DIH paper's method.

The DIH paper sums, for the values a_1 > a_2 > ... > a_r of the top r places, the probability of
that configuration: C(K, r) terms for K possible totals, so exponential in r. Both are exact;
the script checks they agree and reports the time ratio. Run:

    .venv/bin/python benchmarks/bench_dih.py
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from mindsport.tournament import discrimination, total_distribution


def seed_method(scores, probs, players: int, rounds: int, top: int) -> float:
    """Direct nested sum over the top places' values (the DIH paper, section 1.1.2)."""
    values, p = total_distribution(scores, probs, rounds)
    order = np.argsort(-values)
    values, p = values[order].tolist(), p[order].tolist()
    k = len(values)
    le = [sum(p[i:]) for i in range(k)]  # P(X <= v_i), values descending
    lt = [sum(p[i + 1 :]) for i in range(k)]  # P(X < v_i)
    coeff = math.factorial(players) // math.factorial(players - top + 1)
    rest = players - top + 1
    total = 0.0
    for combo in itertools.combinations(range(k), top):
        head = math.prod(p[i] for i in combo[:-1])
        last = combo[-1]
        total += coeff * head * (le[last] ** rest - lt[last] ** rest)
    return total


def timed(fn, *args, repeat: int = 3) -> tuple[float, float]:
    best = math.inf
    value = float("nan")
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn(*args)
        best = min(best, time.perf_counter() - start)
    return value, best


def main() -> None:
    scores = [s for s in range(-6, 7) if s != 0]  # the DIH paper: scores -6..6 without 0
    probs = np.array([1, 2, 3, 5, 8, 20, 30, 12, 8, 5, 3, 2], dtype=float)
    probs /= probs.sum()
    print(
        f"{'players':>8} {'rounds':>6} {'top':>4} {'DIH':>12} {'ours (s)':>10} "
        f"{'seed (s)':>10} {'ratio':>8}"
    )
    for players, rounds, top in [
        (30, 2, 1),
        (30, 2, 2),
        (30, 4, 3),
        (108, 6, 3),
        (108, 6, 4),
        (2016, 8, 3),
    ]:
        ours, t_ours = timed(discrimination, scores, probs, players, rounds, top)
        seed, t_seed = timed(seed_method, scores, probs, players, rounds, top, repeat=1)
        assert math.isclose(ours, seed, rel_tol=1e-9, abs_tol=1e-15), (ours, seed)
        print(
            f"{players:>8} {rounds:>6} {top:>4} {ours:>12.6g} {t_ours:>10.5f} "
            f"{t_seed:>10.5f} {t_seed / t_ours:>7.0f}x"
        )
    for players, rounds, top in [(100_000, 20, 100), (2016, 18, 108)]:
        value, t = timed(discrimination, scores, probs, players, rounds, top)
        k = total_distribution(scores, probs, rounds)[0].size
        print(
            f"{players:>8} {rounds:>6} {top:>4} {value:>12.6g} {t:>10.5f} "
            f"{'C(' + str(k) + ',' + str(top) + ') terms':>19}"
        )


if __name__ == "__main__":
    main()
