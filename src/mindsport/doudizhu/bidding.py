"""Bidding (叫分) and doubling (加倍) before play: our reading of the 2016 competition rules.

* Deal 17 cards to each of three players (the DIH paper's Algorithm 2 without a landlord: card i of
  the shuffled deck, i = 1..51, goes to player ``(first + i - 1) mod 3``); the last three cards
  are the kitty.
* Starting with player ``first``, each player bids once in turn: a call of 1, 2 or 3 points
  higher than every earlier call, or 0 (pass). A call of 3 ends the bidding at once.
* The highest caller becomes the landlord, takes the kitty and leads; the call is the ``call``
  of :data:`~mindsport.doudizhu.scoring.CCPC2016` (the ``bid`` of ``CLASSIC``). When all three
  pass the cards are dealt again (a fresh shuffle from the same generator).
* Then each farmer (下家 first) may double (加倍) his own stake once; against each farmer who
  doubled, the landlord may redouble (反加倍) once. ``doubles`` counts, per farmer, the doublings
  on his stake (0, 1 or 2; each a factor 2 of that farmer's score under ``CCPC2016``), so the
  two farmers' scores differ when only one of them doubled (the rules' worked example: farmer 1
  doubles, the landlord redoubles: farmer 1's stake is 4 times farmer 2's).

Players are renumbered for play so that the landlord is seat 0 (see :class:`BiddingResult`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mindsport.doudizhu.cards import DECK_COUNTS, N_RANKS, Counts
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.game import play
from mindsport.doudizhu.planning import Planner
from mindsport.doudizhu.player import Bot
from mindsport.doudizhu.record import GameRecord
from mindsport.doudizhu.scoring import CCPC2016, ScoringRule
from mindsport.errors import MindsportError

__all__ = [
    "Bidder",
    "BiddingError",
    "BiddingResult",
    "PlanBidder",
    "auction",
    "deal_for_bidding",
    "play_with_bidding",
]

_MAX_REDEALS = 100


class BiddingError(MindsportError):
    """A bid that breaks the bidding rules."""


class Bidder(Protocol):
    """Decides calls and doublings from its own 17 (or 20) cards."""

    def bid(self, hand: Counts, calls: tuple[int, ...], rng: np.random.Generator) -> int:
        """0 (pass) or a call 1-3 above every call in ``calls`` (the earlier players' bids)."""
        ...

    def double(self, hand: Counts, landlord: bool, call: int, rng: np.random.Generator) -> bool:
        """Whether to double: a farmer (``landlord`` False) his own stake; the landlord
        (``landlord`` True) asked once for each farmer who doubled, farmer 1 first."""
        ...


@dataclass(frozen=True, slots=True)
class PlanBidder:
    """Calls by the best-plan cost of the hand (lower is stronger); doubles strong hands.

    Calls 3 below ``thresholds[0]`` plays-equivalents, 2 below ``thresholds[1]``, 1 below
    ``thresholds[2]`` (when that beats the earlier calls), else passes.
    """

    thresholds: tuple[float, float, float] = (4.0, 5.0, 6.0)
    double_below: float = 3.5

    def bid(self, hand: Counts, calls: tuple[int, ...], rng: np.random.Generator) -> int:
        cost = Planner().cost(hand)
        want = next((3 - i for i, t in enumerate(self.thresholds) if cost < t), 0)
        return want if want > max(calls, default=0) else 0

    def double(self, hand: Counts, landlord: bool, call: int, rng: np.random.Generator) -> bool:
        return Planner().cost(hand) < self.double_below


@dataclass(frozen=True, slots=True)
class BiddingResult:
    """Outcome of the auction: who (original player number) became landlord, with what."""

    landlord: int  # original player number 0..2
    call: int
    calls: tuple[int, ...]  # in bidding order, starting with ``first``
    doubles: tuple[int, int]  # per farmer (farmer 1, farmer 2): his double, the redouble
    deal: Deal  # renumbered: seat 0 is the landlord, seat 1 the player after him
    redeals: int = 0

    def seat_of(self, player: int) -> int:
        """Seat (0 landlord, 1 farmer1, 2 farmer2) of original player ``player``."""
        return (player - self.landlord) % 3


def deal_for_bidding(rng: np.random.Generator, first: int = 0) -> tuple[list[Counts], Counts]:
    """Three 17-card hands (by original player number) and the 3-card kitty."""
    deck = np.repeat(np.arange(N_RANKS), DECK_COUNTS)
    order = deck[rng.permutation(deck.size)].tolist()
    hands = [[0] * N_RANKS for _ in range(3)]
    for i in range(51):
        hands[(first + i) % 3][order[i]] += 1
    kitty = [0] * N_RANKS
    for i in range(51, 54):
        kitty[order[i]] += 1
    return [tuple(h) for h in hands], tuple(kitty)


def auction(
    hands: Sequence[Counts],
    kitty: Counts,
    bidders: Sequence[Bidder],
    first: int,
    rng: np.random.Generator,
) -> BiddingResult | None:
    """Run one auction; ``None`` when all three pass."""
    calls: list[int] = []
    best, landlord = 0, -1
    for k in range(3):
        player = (first + k) % 3
        call = int(bidders[player].bid(hands[player], tuple(calls), rng))
        if call != 0 and not (best < call <= 3):
            raise BiddingError(
                f"player {player} called {call}: a call is 0 (pass) or 1-3 above {best}"
            )
        calls.append(call)
        if call:
            best, landlord = call, player
        if call == 3:
            break
    if landlord < 0:
        return None
    lord_hand = tuple(a + b for a, b in zip(hands[landlord], kitty, strict=True))
    f1, f2 = (landlord + 1) % 3, (landlord + 2) % 3
    doubled = [bool(bidders[f].double(hands[f], False, best, rng)) for f in (f1, f2)]
    redoubled = [d and bool(bidders[landlord].double(lord_hand, True, best, rng)) for d in doubled]
    doubles = (int(doubled[0]) + int(redoubled[0]), int(doubled[1]) + int(redoubled[1]))
    deal = Deal._trusted([list(lord_hand), list(hands[f1]), list(hands[f2])])
    return BiddingResult(landlord, best, tuple(calls), doubles, deal)


def play_with_bidding(
    players: Sequence[Bot],
    bidders: Sequence[Bidder],
    rng: np.random.Generator,
    scoring: ScoringRule = CCPC2016,
    first: int = 0,
) -> tuple[BiddingResult, GameRecord]:
    """Deal, bid, double and play; ``players``/``bidders`` are indexed by original player.

    The record's seats are the renumbered ones (seat 0 = landlord); use
    :meth:`BiddingResult.seat_of` to map players to seats.
    """
    if len(players) != 3 or len(bidders) != 3:
        raise BiddingError("bidding needs 3 players and 3 bidders")
    for redeal in range(_MAX_REDEALS):
        hands, kitty = deal_for_bidding(rng, first)
        result = auction(hands, kitty, bidders, first, rng)
        if result is None:
            continue
        seated = [players[(result.landlord + s) % 3] for s in range(3)]
        record = play(
            result.deal, seated, scoring=scoring, rng=rng, call=result.call, doubles=result.doubles
        )
        return (
            BiddingResult(
                result.landlord, result.call, result.calls, result.doubles, result.deal, redeal
            ),
            record,
        )
    raise BiddingError(f"all players passed {_MAX_REDEALS} deals in a row")
