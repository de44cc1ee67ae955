"""Formats over a score oracle: plans, events, places and place probabilities."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.tournament.formats import (
    duplicate_plan,
    equal_strength_plan,
    event_places,
    place_probabilities,
    play_event,
    random_plan,
    rotated_seatings,
    simulate_format,
)


def test_plans_shapes_and_contents() -> None:
    assert duplicate_plan(["x", "y"], 2) == [["x", "x"], ["y", "y"]]
    rng = np.random.default_rng(0)
    pool = [f"h{i}" for i in range(6)]
    plan = equal_strength_plan(pool, 4, 3, rng)
    assert len(plan) == 3
    for row in plan:
        assert len(set(row)) == 4 and set(row) <= set(pool)
    counter = itertools.count()
    plan = random_plan(3, 2, rng, lambda g: f"deal{next(counter)}")
    assert plan == [["deal0", "deal1", "deal2"], ["deal3", "deal4", "deal5"]]
    with pytest.raises(MindsportError, match="holds 2 hands, fewer than the 3 entrants"):
        equal_strength_plan(["a", "b"], 3, 1, rng)


def test_play_event_uses_oracle_per_cell() -> None:
    def oracle(entrant: int, hand: str, rng: np.random.Generator) -> float:
        return entrant * 10 + int(hand[1:])

    scores = play_event([1, 2], [["h1", "h2"], ["h3", "h3"]], oracle, np.random.default_rng(0))
    assert scores.tolist() == [[11.0, 22.0], [13.0, 23.0]]
    with pytest.raises(MindsportError, match="plan round 0 deals 1 hands for 2 entrants"):
        play_event([1, 2], [["h1"]], oracle, np.random.default_rng(0))


def test_places_and_probabilities() -> None:
    scores = [[2, 1, 1], [0, 1, 1]]  # totals 2, 2, 2
    assert event_places(scores).tolist() == [1, 1, 1]
    table = place_probabilities([[1, 2, 3], [2, 1, 3], [1, 1, 3]])
    expected = [[2 / 3, 1 / 3, 0], [2 / 3, 1 / 3, 0], [0, 0, 1]]
    assert np.allclose(table, expected)
    with pytest.raises(MindsportError, match="ranking must be"):
        event_places(scores, "elo")  # type: ignore[arg-type]


def test_duplicate_cancels_deal_luck() -> None:
    """Three entrants of strictly ordered skill; hands differ wildly in value.

    With the same hand on every table the stronger entrant always finishes ahead (the oracle
    adds skill to the hand's value), so duplicate play ranks them perfectly; random deals do
    not. This is the theory behind the equal-strength paper's comparison.
    """
    skills = {"strong": 2.0, "middle": 1.0, "weak": 0.0}
    hand_value = {f"h{i}": v for i, v in enumerate(np.linspace(-20, 20, 41))}

    def oracle(entrant: str, hand: str, rng: np.random.Generator) -> float:
        return hand_value[hand] + skills[entrant]

    hands = list(hand_value)
    entrants = list(skills)
    rng = np.random.default_rng(5)
    dup = simulate_format(
        entrants,
        lambda g: duplicate_plan([hands[i] for i in g.integers(41, size=3)], 3),
        oracle,
        200,
        rng,
    )
    assert dup.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    rnd = simulate_format(
        entrants,
        lambda g: random_plan(3, 3, g, lambda gg: hands[int(gg.integers(41))]),
        oracle,
        200,
        rng,
    )
    assert rnd[0, 0] < 0.9  # deal luck blurs the ranking
    assert rnd.sum(axis=1) == pytest.approx([1, 1, 1])


def test_rotations() -> None:
    seats = rotated_seatings(("a", "b", "c"))
    for player in "abc":
        assert sorted(s.index(player) for s in seats) == [0, 1, 2]
    with pytest.raises(MindsportError, match="seats three"):
        rotated_seatings(["a", "b"])
