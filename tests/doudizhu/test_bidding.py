"""Bidding and doubling with scripted bidders (results derived by hand from the rules)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from mindsport.doudizhu.bidding import (
    BiddingError,
    PlanBidder,
    auction,
    deal_for_bidding,
    play_with_bidding,
)
from mindsport.doudizhu.bots import GreedyBot, StrongBot
from mindsport.doudizhu.cards import Counts


@dataclass
class Scripted:
    call: int
    doubles: bool = False

    def bid(self, hand: Counts, calls: tuple[int, ...], rng: np.random.Generator) -> int:
        return self.call

    def double(self, hand: Counts, landlord: bool, call: int, rng: np.random.Generator) -> bool:
        return self.doubles


def test_deal_for_bidding_splits_the_deck() -> None:
    hands, kitty = deal_for_bidding(np.random.default_rng(2), first=1)
    assert [sum(h) for h in hands] == [17, 17, 17] and sum(kitty) == 3
    total = [sum(x) for x in zip(*hands, kitty, strict=True)]
    assert total == [4] * 13 + [1, 1]


def test_auction_rules() -> None:
    rng = np.random.default_rng(0)
    hands, kitty = deal_for_bidding(rng)
    # first = 1: players bid in the order 1, 2, 0
    res = auction(hands, kitty, [Scripted(2), Scripted(1), Scripted(0)], 1, rng)
    assert res is not None
    assert res.calls == (1, 0, 2) and res.landlord == 0 and res.call == 2
    assert res.deal.counts()[0] == tuple(a + b for a, b in zip(hands[0], kitty, strict=True))
    assert res.deal.counts()[1] == hands[1] and res.seat_of(2) == 2
    # a 3 ends the bidding at once
    res = auction(hands, kitty, [Scripted(3), Scripted(3), Scripted(3)], 0, rng)
    assert res is not None and res.calls == (3,) and res.landlord == 0
    assert auction(hands, kitty, [Scripted(0)] * 3, 0, rng) is None
    with pytest.raises(BiddingError, match="player 1 called 2"):
        auction(hands, kitty, [Scripted(2), Scripted(2), Scripted(0)], 0, rng)


def test_doubling() -> None:
    rng = np.random.default_rng(0)
    hands, kitty = deal_for_bidding(rng)
    res = auction(hands, kitty, [Scripted(1, True), Scripted(0, True), Scripted(0, True)], 0, rng)
    # both farmers double, the landlord redoubles against each
    assert res is not None and res.doubles == (2, 2)
    res = auction(hands, kitty, [Scripted(1, True), Scripted(0), Scripted(0)], 0, rng)
    assert res is not None and res.doubles == (0, 0)  # the landlord only doubles back
    # only farmer 1 (the player after the landlord) doubles: the redouble is against him alone
    res = auction(hands, kitty, [Scripted(1, True), Scripted(0, True), Scripted(0)], 0, rng)
    assert res is not None and res.doubles == (2, 0)
    res = auction(hands, kitty, [Scripted(1, False), Scripted(0), Scripted(0, True)], 0, rng)
    assert res is not None and res.doubles == (0, 1)


def test_play_with_bidding_scores() -> None:
    rng = np.random.default_rng(5)
    for _ in range(5):
        result, record = play_with_bidding(
            [StrongBot(), GreedyBot(), GreedyBot()], [PlanBidder()] * 3, rng
        )
        power = record.bombs + record.rockets + int(record.spring)
        sign = -1 if record.landlord_won else 1
        f1, f2 = (result.call * sign * 2 ** (power + d) for d in result.doubles)
        assert record.scores == (-(f1 + f2), f1, f2)
        assert record.doubles == result.doubles
        assert record.call == result.call and len(record.deal.landlord) == 20
