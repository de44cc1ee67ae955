"""Card notation: ranks ``3456789TJQKA2XD`` and hands as 15-length count vectors.

Suits play no part in Dou Dizhu, so a hand is a multiset of ranks. Internally a hand is a tuple of
15 counts indexed by rank (0 = ``3`` ... 11 = ``A``, 12 = ``2``, 13 = ``X`` small joker,
14 = ``D`` big joker); the text form lists the cards sorted by rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mindsport.errors import MindsportError

__all__ = [
    "ACE",
    "ALIASES",
    "BIG_JOKER",
    "DECK_COUNTS",
    "KING",
    "N_RANKS",
    "RANKS",
    "SMALL_JOKER",
    "TWO",
    "CardError",
    "Counts",
    "format_counts",
    "parse_counts",
    "rank_of",
]

RANKS = "3456789TJQKA2XD"
N_RANKS = len(RANKS)
KING = RANKS.index("K")
ACE = RANKS.index("A")
TWO = RANKS.index("2")
SMALL_JOKER = RANKS.index("X")
BIG_JOKER = RANKS.index("D")
#: Copies of each rank in the 54-card deck.
DECK_COUNTS: tuple[int, ...] = (4,) * 13 + (1, 1)

Counts = tuple[int, ...]

#: Other ways to write a card: ``0`` for ``T``, lower-case letters.
ALIASES = {"0": "T", "x": "X", "d": "D", "t": "T", "j": "J", "q": "Q", "k": "K", "a": "A"}


class CardError(MindsportError):
    """A card string contains an unknown card or an impossible number of copies."""


def rank_of(card: str) -> int:
    """Rank index (0 for ``3`` ... 14 for ``D``) of one card character."""
    index = RANKS.find(ALIASES.get(card, card)) if len(card) == 1 else -1
    if index < 0:
        raise CardError(f"unknown card {card!r}: cards are written {RANKS!r}")
    return index


def parse_counts(text: str) -> Counts:
    """Count vector of a card string (spaces ignored); checks the deck's copies per rank.

    >>> parse_counts("33XD")[:3], parse_counts("33XD")[13:]
    ((2, 0, 0), (1, 1))
    """
    counts = [0] * N_RANKS
    for ch in text:
        if ch.isspace():
            continue
        counts[rank_of(ch)] += 1
    for rank, (have, limit) in enumerate(zip(counts, DECK_COUNTS, strict=True)):
        if have > limit:
            raise CardError(f"{text!r} has {have} copies of {RANKS[rank]!r}; the deck has {limit}")
    return tuple(counts)


def format_counts(counts: Sequence[int] | Iterable[int]) -> str:
    """Card string (sorted by rank) of a count vector.

    >>> format_counts(parse_counts("D3X33"))
    '333XD'
    """
    return "".join([RANKS[r] * n for r, n in enumerate(counts) if n])
