"""Test-case selection by DIH and the DIH paper's Algorithm 1 (bucketed bot line-ups)."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.tournament.library import HandLibrary
from mindsport.tournament.selection import (
    cross_combinations,
    rank_by_discrimination,
    score_rates,
    select_discriminating_players,
    select_test_cases,
)


def dih_top2_one_round(scores, probs, n):
    """Closed form of P(X(1) > X(2)) for one round: sum_v n p_v P(X < v)^(n-1)."""
    pairs = sorted(zip(scores, probs, strict=True))
    total, below = 0.0, 0.0
    for _, p in pairs:
        total += n * p * below ** (n - 1)
        below += p
    return total


def test_ranking_by_dih_against_closed_form() -> None:
    library = {
        "flat": ([-1, 1], [0.5, 0.5]),
        "spread": ([-2, -1, 1, 2], [0.25, 0.25, 0.25, 0.25]),
        "skewed": ([-2, -1, 1, 2], [0.05, 0.05, 0.1, 0.8]),
        "rare-top": ([-1, 1, 6], [0.5, 0.45, 0.05]),
    }
    n = 6
    expected = {h: dih_top2_one_round(s, p, n) for h, (s, p) in library.items()}
    ranked = rank_by_discrimination(library, players=n, rounds=1, top=2)
    assert [r.hand for r in ranked] == sorted(expected, key=lambda h: -expected[h])
    for r in ranked:
        assert r.dih == pytest.approx(expected[r.hand], rel=1e-12)
    chosen = select_test_cases(library, players=n, rounds=1, top=2)
    assert [c.hand for c in chosen] == [ranked[0].hand]


def test_select_one_hand_per_round_from_library() -> None:
    recs = [("[a][b][c]", s) for s in (1, -1, 2, 1)] + [("[d][e][f]", s) for s in (1, 1, 1, -1)]
    recs += [("[g][h][i]", s) for s in (1, 1, 1, 1)]
    lib = HandLibrary.from_records(recs, min_plays=4)
    chosen = select_test_cases(lib, players=8, rounds=2, top=2)
    assert len(chosen) == 2
    assert "[g][h][i]" not in [c.hand for c in chosen]  # constant score: DIH 0
    assert rank_by_discrimination(lib, 8, 2, 2)[-1].dih == 0.0
    with pytest.raises(MindsportError, match="fewer than the 4 rounds"):
        select_test_cases(lib, players=8, rounds=4, top=2)


def test_cross_combinations_counts() -> None:
    combos = cross_combinations(["L1", "L2", "L3"], ["a", "b"], ["x", "y"])
    assert len(combos) == 12 and combos[0] == ("L1", "a", "x")
    with pytest.raises(MindsportError, match="farmers2 is empty"):
        cross_combinations(["L"], ["a"], [])


def test_score_rates_and_buckets() -> None:
    results = {f"g{i}": float(i) for i in range(11)}  # rates 0, 0.1, ..., 1
    rates = score_rates(results)
    assert rates["g0"] == 0.0 and rates["g10"] == 1.0 and rates["g5"] == pytest.approx(0.5)
    rng = np.random.default_rng(7)
    picks = select_discriminating_players(results, w=5, rng=rng)
    # buckets (0, .2], (.2, .4], ... with 0 in the first: {0,1,2}, {3,4}, {5,6}, {7,8}, {9,10}
    assert len(picks) == 5
    buckets = [{"g0", "g1", "g2"}, {"g3", "g4"}, {"g5", "g6"}, {"g7", "g8"}, {"g9", "g10"}]
    for pick, bucket in zip(picks, buckets, strict=True):
        assert pick in bucket


def test_empty_buckets_are_skipped_and_totals_from_sequences() -> None:
    results = {"a": [0, 0], "b": [1, 0], "c": [5, 5]}  # totals 0, 1, 10 -> rates 0, .1, 1
    picks = select_discriminating_players(results, w=4, rng=np.random.default_rng(0))
    assert picks[-1] == "c" and picks[0] in {"a", "b"} and len(picks) == 2


def test_picks_are_reproducible_and_uniform_within_a_bucket() -> None:
    results = {"a": 0.0, "b": 0.0, "c": 1.0}
    first = [select_discriminating_players(results, 1, np.random.default_rng(s)) for s in range(3)]
    again = [select_discriminating_players(results, 1, np.random.default_rng(s)) for s in range(3)]
    assert first == again
    rng = np.random.default_rng(1)
    counts = {"a": 0, "b": 0, "c": 0}
    for _ in range(3000):
        counts[select_discriminating_players(results, 1, rng)[0]] += 1
    assert all(abs(c - 1000) < 120 for c in counts.values())


def test_algorithm_1_errors() -> None:
    with pytest.raises(MindsportError, match="same total"):
        score_rates({"a": 1.0, "b": 1.0})
    with pytest.raises(MindsportError, match="w must be a positive integer"):
        select_discriminating_players({"a": 0.0, "b": 1.0}, 0, np.random.default_rng(0))
