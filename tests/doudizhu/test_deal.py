"""Deals: notation, deck checks, the DIH paper's Algorithm 2."""

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


def test_kitty_is_the_last_three_shuffled_cards_and_is_public() -> None:
    """Algorithm 2 gives cards 52..54 to the landlord: the deal records them as the kitty."""
    import numpy as np

    from mindsport.doudizhu import GameState, deal
    from mindsport.doudizhu.cards import DECK_COUNTS, RANKS

    rng = np.random.default_rng(11)
    state = rng.bit_generator.state
    d = deal(rng)
    rng2 = np.random.default_rng()
    rng2.bit_generator.state = state
    deck = np.repeat(np.arange(len(RANKS)), DECK_COUNTS)[rng2.permutation(54)]
    assert sorted(d.kitty) == sorted(RANKS[i] for i in deck[51:])
    view = GameState(d).view(1)  # a farmer sees the kitty
    assert view.kitty is not None and sum(view.kitty) == 3


def test_bad_kitty_is_refused() -> None:
    from mindsport.doudizhu import Deal, DealError

    hands = ("33334444555566667777", "88889999TTTTJJJJQ", "QQQKKKKAAAA2222XD")
    assert Deal(*hands, kitty="345").kitty == "345"
    assert Deal(*hands, kitty="345") == Deal(*hands)  # the kitty is not part of the identity
    with pytest.raises(DealError, match="bad kitty"):
        Deal(*hands, kitty="88K")
