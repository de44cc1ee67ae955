"""DIH against independent references: brute force over outcome vectors, the seed's nested
sum over the values of the top places, Monte Carlo, and the seed's worked example."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindsport.errors import MindsportError
from mindsport.tournament import discrimination, log_discrimination, total_distribution
from mindsport.tournament.dih import discrimination_of_total


def brute_force(scores: list[float], probs: list[float], players: int, rounds: int, top: int):
    """Enumerate every outcome vector (one score per player and round)."""
    outcomes = list(range(len(scores)))
    total = 0.0
    for vector in itertools.product(outcomes, repeat=players * rounds):
        prob = math.prod(probs[i] for i in vector)
        if prob == 0.0:
            continue
        totals = sorted(
            (sum(scores[vector[pl * rounds + d]] for d in range(rounds)) for pl in range(players)),
            reverse=True,
        )
        if all(totals[i] > totals[i + 1] for i in range(top - 1)):
            total += prob
    return total


def seed_nested_sum(values: list[float], probs: list[float], players: int, top: int) -> float:
    """The DIH paper's method: sum over the values a_1 > ... > a_top of the top places."""
    pairs = sorted(zip(values, probs, strict=True), reverse=True)
    n = players
    cdf_le = {v: sum(p for w, p in pairs if w <= v) for v, _ in pairs}
    cdf_lt = {v: sum(p for w, p in pairs if w < v) for v, _ in pairs}
    coeff = math.factorial(n) // math.factorial(n - top + 1)
    total = 0.0
    for combo in itertools.combinations(range(len(pairs)), top):
        head = math.prod(pairs[i][1] for i in combo[:-1])
        a_r = pairs[combo[-1]][0]
        rest = n - top + 1
        total += coeff * head * (cdf_le[a_r] ** rest - cdf_lt[a_r] ** rest)
    return total


def test_worked_example_seed_001() -> None:
    assert discrimination([-2, -1, 1, 2], [0, 0.6, 0.4, 0], 9, 2, 2) == pytest.approx(
        0.35816, abs=5e-6
    )
    # closed form for top 2: sum over v of n p_v P(X < v)^(n-1)
    expected = 9 * 0.16 * 0.84**8 + 9 * 0.48 * 0.36**8
    assert discrimination([-2, -1, 1, 2], [0, 0.6, 0.4, 0], 9, 2, 2) == pytest.approx(
        expected, rel=1e-12
    )


def test_two_round_distribution_of_worked_example() -> None:
    values, probs = total_distribution([-2, -1, 1, 2], [0, 0.6, 0.4, 0], 2)
    assert values.tolist() == [-2.0, 0.0, 2.0]
    assert probs.tolist() == pytest.approx([0.36, 0.48, 0.16])


@pytest.mark.parametrize(
    ("scores", "probs", "players", "rounds", "top"),
    [
        ([-2, -1, 1, 2], [0.1, 0.4, 0.3, 0.2], 3, 2, 2),
        ([-2, -1, 1, 2], [0.1, 0.4, 0.3, 0.2], 4, 2, 3),
        ([-2, -1, 1, 2], [0.25, 0.25, 0.25, 0.25], 4, 2, 4),
        ([-1, 1, 3], [0.5, 0.3, 0.2], 5, 2, 3),
        ([-1, 1, 3], [0.5, 0.3, 0.2], 5, 2, 5),
        ([-1, 1, 3], [0.5, 0.3, 0.2], 5, 1, 2),
        ([0, 1], [0.5, 0.5], 5, 2, 2),
        ([0.5, 1.25, 3], [0.2, 0.5, 0.3], 4, 2, 3),
        ([7], [1.0], 3, 2, 2),
        ([7], [1.0], 3, 2, 1),
    ],
)
def test_matches_brute_force(scores, probs, players, rounds, top) -> None:
    expected = brute_force(scores, probs, players, rounds, top)
    assert discrimination(scores, probs, players, rounds, top) == pytest.approx(
        expected, rel=1e-9, abs=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(
    weights=st.lists(st.integers(0, 9), min_size=2, max_size=6).filter(lambda w: sum(w) > 0),
    players=st.integers(1, 12),
    top_frac=st.floats(0, 1),
    rounds=st.integers(1, 4),
)
def test_matches_seed_nested_sum(weights, players, top_frac, rounds) -> None:
    scores = list(range(-len(weights) // 2, -len(weights) // 2 + len(weights)))
    probs = [w / sum(weights) for w in weights]
    top = max(1, min(players, 1 + int(top_frac * players)))
    values, tprobs = total_distribution(scores, probs, rounds)
    if math.comb(values.size, top) > 20_000:
        return
    expected = seed_nested_sum(values.tolist(), tprobs.tolist(), players, top)
    assert discrimination(scores, probs, players, rounds, top) == pytest.approx(
        expected, rel=1e-9, abs=1e-13
    )


def test_monte_carlo_medium_case() -> None:
    scores = np.array([-3, -2, -1, 1, 2, 3])
    probs = np.array([0.05, 0.15, 0.3, 0.3, 0.15, 0.05])
    players, rounds, top = 30, 5, 3
    rng = np.random.default_rng(20240601)
    sims = 40_000
    draws = rng.choice(scores, size=(sims, players, rounds), p=probs).sum(axis=2)
    best = -np.sort(-draws, axis=1)[:, :top]
    hits = np.all(best[:, :-1] > best[:, 1:], axis=1)
    estimate = hits.mean()
    exact = discrimination(scores, probs, players, rounds, top)
    se = math.sqrt(exact * (1 - exact) / sims)
    assert abs(estimate - exact) < 4.5 * se


def test_order_and_zero_probabilities_do_not_matter() -> None:
    a = discrimination([2, -1, 1, -2], [0.2, 0.3, 0.4, 0.1], 11, 3, 4)
    b = discrimination([-2, -1, 1, 2, 5], [0.1, 0.3, 0.4, 0.2, 0.0], 11, 3, 4)
    assert a == pytest.approx(b, rel=1e-12)


def test_top_one_is_certain_and_monotone_in_top() -> None:
    s, p = [-2, -1, 1, 2], [0.1, 0.4, 0.3, 0.2]
    assert discrimination(s, p, 50, 3, 1) == 1.0
    values = [discrimination(s, p, 50, 6, r) for r in range(1, 8)]
    assert all(x >= y for x, y in itertools.pairwise(values))


def test_national_event_is_a_probability_and_tail_is_accurate() -> None:
    scores = [s for s in range(-6, 7) if s != 0]
    probs = np.array([1, 2, 3, 5, 8, 20, 30, 12, 8, 5, 3, 2], dtype=float)
    probs /= probs.sum()
    d = discrimination(scores, probs, 100_000, 20, 100)
    assert 0.0 <= d <= 1.0
    # top 2 closed form (independent): sum_v n p_v P(X < v)^(n-1), in log space
    _, tp = total_distribution(scores, probs, 20)
    below = np.concatenate(([0.0], np.cumsum(tp)[:-1]))
    n = 100_000
    with np.errstate(divide="ignore"):
        expected = float(np.sum(n * tp * np.exp((n - 1) * np.log(below))))
    assert discrimination(scores, probs, n, 20, 2) == pytest.approx(expected, rel=1e-9)


def test_precomputed_total_entry_point() -> None:
    assert discrimination_of_total([2, 0, -2], [0.16, 0.48, 0.36], 9, 2) == pytest.approx(
        9 * 0.16 * 0.84**8 + 9 * 0.48 * 0.36**8
    )


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"probs": [0.5, 0.6]}, "sum to"),
        ({"probs": [1.2, -0.2]}, "negative"),
        ({"probs": [1.0]}, "differ in length"),
        ({"top": 4}, "top (4) exceeds players (3)"),
        ({"top": 0}, "top must be a positive integer"),
        ({"rounds": 0}, "rounds must be a positive integer"),
        ({"players": 2.5}, "players must be a positive integer"),
    ],
)
def test_bad_input_names_it(kwargs, fragment) -> None:
    args = {"scores": [-1, 1], "probs": [0.5, 0.5], "players": 3, "rounds": 2, "top": 2}
    args.update(kwargs)
    with pytest.raises(MindsportError) as info:
        discrimination(**args)
    assert fragment in str(info.value)


def test_log_dih_where_the_probability_underflows() -> None:
    # one round of a fair coin (0 or 1): the best is unique iff exactly one player scores 1,
    # so DIH = n / 2^n exactly; for n = 2000 that is about 1e-599
    n = 2000
    expected = math.log(n) - n * math.log(2)
    assert discrimination([0, 1], [0.5, 0.5], n, 1, 2) == 0.0
    assert log_discrimination([0, 1], [0.5, 0.5], n, 1, 2) == pytest.approx(expected, rel=1e-12)
    assert log_discrimination([0, 1], [0.5, 0.5], n, 1, 3) == -math.inf  # 2 values, 3 places


def test_log_dih_agrees_with_dih() -> None:
    s, p = [-2, -1, 1, 2], [0.1, 0.4, 0.3, 0.2]
    for top in (1, 2, 4, 7):
        assert math.exp(log_discrimination(s, p, 40, 5, top)) == pytest.approx(
            discrimination(s, p, 40, 5, top), rel=1e-12
        )
