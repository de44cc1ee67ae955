"""Deals: notation, deck checks, seed 001's Algorithm 2."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.doudizhu.deal import Deal, DealError, deal


def test_seed_001_example_is_refused_saying_a_4_is_missing() -> None:
    text = "[TTKA379Q2D69K5Q94J6][3JX8Q885TTK3265AK][29Q435J426787JA7A]"
    with pytest.raises(DealError, match="landlord has 19 cards, not 20") as info:
        Deal.parse(text)
    assert "missing from the deck: 4" in str(info.value)


def test_fixed_example_round_trips() -> None:
    text = "[TTKA379Q2D69K5Q94J64][3JX8Q885TTK3265AK][29Q435J426787JA7A]"
    d = Deal.parse(text)
    assert d.landlord == "3445667999TTJQQKKA2D"
    assert Deal.parse(str(d)) == d


def test_bad_input() -> None:
    with pytest.raises(DealError, match="unknown card"):
        Deal.parse("[Z][][]")
    with pytest.raises(DealError, match="notation"):
        Deal.parse("TTKA")
    good = "[TTKA379Q2D69K5Q94J64][3JX8Q885TTK3265AK][29Q435J426787JA7A]"
    with pytest.raises(
        DealError, match="missing from the deck: D; more copies than the deck has: 4"
    ):
        Deal.parse(good.replace("2D6", "246"))


def test_algorithm_2() -> None:
    # Algorithm 2 by hand: the permutation decides every card; redo it independently.
    seed = 11
    d = deal(np.random.default_rng(seed))
    deck = np.repeat(np.arange(15), [4] * 13 + [1, 1])
    order = deck[np.random.default_rng(seed).permutation(54)]
    ranks = "3456789TJQKA2XD"
    hands = ["", "", ""]
    for i in range(1, 52):
        hands[{1: 0, 2: 1, 0: 2}[i % 3]] += ranks[order[i - 1]]
    hands[0] += "".join(ranks[x] for x in order[51:])
    assert [sorted(h, key=ranks.index) for h in hands] == [list(h) for h in d.hands]
    assert [len(h) for h in d.hands] == [20, 17, 17]


def test_deals_are_uniform_enough() -> None:
    rng = np.random.default_rng(5)
    jokers_with_landlord = sum("D" in deal(rng).landlord for _ in range(3000))
    assert abs(jokers_with_landlord / 3000 - 20 / 54) < 0.03
