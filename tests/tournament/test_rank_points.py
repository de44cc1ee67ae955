"""Rank points (the DIH paper): R = 2 x (n - O + 1), standard competition ranking for ties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindsport.errors import MindsportError
from mindsport.tournament import competition_places, rank_points, total_rank_points


def test_distinct_scores() -> None:
    # n = 4: places 1..4 give 8, 6, 4, 2
    assert rank_points([10, 30, 20, 0]).tolist() == [4, 8, 6, 2]


def test_ties_share_the_best_place() -> None:
    # 5, 3, 3, 1 -> places 1, 2, 2, 4 -> points 8, 6, 6, 2
    assert competition_places([5, 3, 3, 1]).tolist() == [1, 2, 2, 4]
    assert rank_points([5, 3, 3, 1]).tolist() == [8, 6, 6, 2]
    assert rank_points([0, 0, 0]).tolist() == [6, 6, 6]


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=9))
def test_places_match_definition(scores: list[int]) -> None:
    expected = [1 + sum(other > s for other in scores) for s in scores]
    assert competition_places(scores).tolist() == expected
    n = len(scores)
    assert rank_points(scores).tolist() == [2 * (n - o + 1) for o in expected]


def test_totals_over_rounds() -> None:
    rounds = [[1, 5, 3, 3], [2, 2, 2, 0], [0, 1, 2, 3]]
    expected = np.zeros(4, dtype=int)
    for row in rounds:
        for i, s in enumerate(row):
            place = 1 + sum(o > s for o in row)
            expected[i] += 2 * (4 - place + 1)
    assert total_rank_points(rounds).tolist() == expected.tolist()


def test_sum_of_points_without_ties() -> None:
    for perm in itertools.permutations(range(5)):
        assert int(rank_points(perm).sum()) == 2 * sum(range(1, 6))


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: rank_points([]), "empty"),
        (lambda: rank_points([1, float("nan")]), "non-finite"),
        (lambda: rank_points([[1, 2]]), "one score per player"),
        (lambda: total_rank_points([1, 2, 3]), "rounds x players"),
    ],
)
def test_errors(call, fragment) -> None:
    with pytest.raises(MindsportError, match=fragment):
        call()
