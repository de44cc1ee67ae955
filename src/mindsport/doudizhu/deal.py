"""Deals: the three starting hands, their ``[landlord][farmer1][farmer2]`` notation, dealing.

Seat 0 is the landlord (20 cards: 17 + the 3 kitty cards), seat 1 is farmer 1 (the landlord's
next player, 下家) and seat 2 is farmer 2 (the player after, 上家, who plays just before the
landlord).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from mindsport.doudizhu.cards import DECK_COUNTS, RANKS, CardError, Counts, format_counts, rank_of
from mindsport.errors import MindsportError

__all__ = ["SEAT_NAMES", "Deal", "DealError", "deal"]

SEAT_NAMES = ("landlord", "farmer1", "farmer2")
_HAND_SIZES = (20, 17, 17)
_DECK = np.repeat(np.arange(len(RANKS)), DECK_COUNTS)
_DECK.setflags(write=False)
_NOTATION = re.compile(r"^\s*\[([^\[\]]*)\]\s*\[([^\[\]]*)\]\s*\[([^\[\]]*)\]\s*$")


class DealError(MindsportError):
    """A deal that is not a split of the 54-card deck into hands of 20, 17 and 17 cards."""


def _count(text: str) -> list[int]:
    counts = [0] * len(RANKS)
    for ch in text:
        if not ch.isspace():
            counts[rank_of(ch)] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Deal:
    """The three starting hands (card strings, stored sorted by rank).

    >>> str(Deal("3333444455556666777D", "77888899TTTTJJJJQ", "99QQQKKKKAAAA2222X"))
    Traceback (most recent call last):
    ...
    mindsport.doudizhu.deal.DealError: bad deal ...: farmer2 has 18 cards, not 17; more ...: 7
    """

    landlord: str
    farmer1: str
    farmer2: str
    #: The three kitty cards (part of the landlord's 20), public once the landlord takes them;
    #: known for deals made by :func:`deal`, ``None`` when only the hands are known (the
    #: seeds' notation does not record it). Not part of a deal's identity.
    kitty: str | None = field(default=None, compare=False)
    _counts: tuple[Counts, Counts, Counts] = field(
        default=((), (), ()), init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        totals = [0] * len(RANKS)
        texts = (self.landlord, self.farmer1, self.farmer2)
        problems: list[str] = []
        try:
            counts = [_count(t) for t in texts]
        except CardError as exc:
            raise DealError(f"bad deal {self._notation(texts)}: {exc}") from None
        for name, c, size in zip(SEAT_NAMES, counts, _HAND_SIZES, strict=True):
            n = sum(c)
            if n != size:
                problems.append(f"{name} has {n} cards, not {size}")
            totals = [a + b for a, b in zip(totals, c, strict=True)]
            object.__setattr__(self, name, format_counts(c))
        object.__setattr__(self, "_counts", (tuple(counts[0]), tuple(counts[1]), tuple(counts[2])))
        pairs = list(zip(DECK_COUNTS, totals, strict=True))
        missing = "".join(RANKS[r] * max(0, d - t) for r, (d, t) in enumerate(pairs))
        extra = "".join(RANKS[r] * max(0, t - d) for r, (d, t) in enumerate(pairs))
        if missing:
            problems.append(f"missing from the deck: {missing}")
        if extra:
            problems.append(f"more copies than the deck has: {extra}")
        if problems:
            raise DealError(f"bad deal {self._notation(texts)}: " + "; ".join(problems))
        if self.kitty is not None:
            try:
                k = _count(self.kitty)
            except CardError as exc:
                raise DealError(f"bad kitty {self.kitty!r}: {exc}") from None
            if sum(k) != 3 or any(a > b for a, b in zip(k, counts[0], strict=True)):
                raise DealError(
                    f"bad kitty {self.kitty!r}: three cards of the landlord's hand "
                    f"{format_counts(counts[0])} expected"
                )
            object.__setattr__(self, "kitty", format_counts(k))

    @classmethod
    def _trusted(cls, hands: list[list[int]], kitty: list[int] | None = None) -> Deal:
        """A deal from count vectors known to split the deck (no checks: used by :func:`deal`)."""
        self = object.__new__(cls)
        for name, counts in zip(SEAT_NAMES, hands, strict=True):
            object.__setattr__(self, name, format_counts(counts))
        object.__setattr__(self, "kitty", None if kitty is None else format_counts(kitty))
        object.__setattr__(self, "_counts", (tuple(hands[0]), tuple(hands[1]), tuple(hands[2])))
        return self

    @staticmethod
    def _notation(texts: tuple[str, str, str]) -> str:
        return "".join(f"[{t}]" for t in texts)

    def __str__(self) -> str:
        return self._notation((self.landlord, self.farmer1, self.farmer2))

    @classmethod
    def parse(cls, text: str) -> Deal:
        """Read the seeds' notation ``[landlord][farmer1][farmer2]``.

        The example printed in the DIH paper is not a valid deal (a 4 is missing):

        >>> Deal.parse("[TTKA379Q2D69K5Q94J6][3JX8Q885TTK3265AK][29Q435J426787JA7A]")
        Traceback (most recent call last):
        ...
        mindsport.doudizhu.deal.DealError: ...: landlord has 19 cards, not 20; missing ...: 4
        """
        match = _NOTATION.match(text)
        if match is None:
            raise DealError(f"{text!r} is not in the notation [landlord][farmer1][farmer2]")
        return cls(*match.groups())

    @property
    def hands(self) -> tuple[str, str, str]:
        """The three hands in seat order (landlord, farmer1, farmer2)."""
        return (self.landlord, self.farmer1, self.farmer2)

    def counts(self) -> tuple[Counts, Counts, Counts]:
        """The three hands as 15-length count vectors."""
        return self._counts


def deal(rng: np.random.Generator) -> Deal:
    """Deal by the DIH paper's Algorithm 2.

    Shuffle the 54 cards into (c1..c54); card ci for i = 1..51 goes to the landlord when
    i mod 3 = 1, to farmer 1 when i mod 3 = 2 and to farmer 2 when i mod 3 = 0; the remaining
    c52, c53, c54 (the kitty) go to the landlord; the deal records them as ``kitty``.

    >>> d = deal(np.random.default_rng(7))
    >>> d.kitty, all(d.landlord.count(c) >= d.kitty.count(c) for c in d.kitty)
    ('58K', True)
    """
    order = _DECK[rng.permutation(_DECK.size)].tolist()
    hands: list[list[int]] = [[0] * len(RANKS) for _ in range(3)]
    for i in range(51):  # i is 0-based: (i + 1) mod 3 == 1 -> landlord
        hands[i % 3][order[i]] += 1
    kitty = [0] * len(RANKS)
    for i in range(51, 54):
        hands[0][order[i]] += 1
        kitty[order[i]] += 1
    return Deal._trusted(hands, kitty)
