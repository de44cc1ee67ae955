"""Move kinds, the rules of which plays beat which, and legal-move generation.

Rules (the competition interpretation, 竞技二打一):

* ``single`` any card; ``pair`` two cards of one rank (the jokers are never a pair);
  ``trio`` three of one rank; ``bomb`` four of one rank; ``rocket`` the two jokers.
* ``trio_single`` / ``trio_pair``: a trio with one single / one pair as kicker.
* ``straight``: 5-12 consecutive single ranks; ``pair_straight``: 3-10 consecutive pairs;
  ``plane``: 2-6 consecutive trios. All chains lie within ``3..A`` (no ``2``, no jokers).
* ``plane_single`` / ``plane_pair``: a plane of n trios with n single / n pair kickers.
* ``four_two_single`` / ``four_two_pair``: four of one rank with two single / two pair kickers.
  Four-with-two is *not* a bomb.
* Kickers are of ranks other than the main ranks (the trio, chain or four ranks); single kickers
  may repeat a rank (``333444`` + ``55``); the kickers may not contain both jokers and may not
  contain four cards of one rank; a pair kicker is two cards of one non-joker rank (so two pair
  kickers never share a rank). Hence ``33334444`` is no move at all: as ``3333`` + ``44`` + ``44``
  its kickers hold four 4s, and as plane ``333444`` its kickers would be of main ranks.
* A play beats the previous one if it has the same kind, the same number of cards and a higher
  main rank; any bomb beats any non-bomb, a higher bomb beats a lower one, the rocket beats
  everything.

Main rank: the rank of a single/pair/trio/bomb or of the trio/four of a combination, the highest
rank of a chain. When the same cards can be read as one kind in several ways, the move's main
rank is the *highest* reading:

* ``333444555666`` as ``plane_single`` is ``444555666`` with kickers ``333`` (main rank 6), not
  ``333444555`` + ``666`` (main rank 5), so it beats ``333444555`` + ``789``;
* ``3334445555`` (10 cards) is no ``plane_single``: 2 trios take 2 kickers (8 cards), and
  ``444555`` + ``3335`` would put a main rank among the kickers; ``33344455`` + nothing is
  ``333444`` + ``55`` (main rank 4);
* ``3334445556`` (10 cards) is no move: as ``plane_pair`` it lacks pairs, and 10 is no multiple
  of 4; ``333444555`` is only a 3-trio ``plane``;
* ``333444555666`` is at the same time a 4-trio ``plane`` and a 3-trio ``plane_single``: a move
  is the pair ``(kind, cards)``, and both are listed. When cards are typed without a kind
  (:func:`parse_move`), the kind of the play to beat is used, else the first kind in
  :class:`Kind` order.

Chain lengths count ranks: a ``plane_single`` of n trios has 4n cards and only beats another of
the same n.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum

from mindsport.doudizhu.cards import (
    ACE,
    BIG_JOKER,
    N_RANKS,
    RANKS,
    SMALL_JOKER,
    TWO,
    Counts,
    format_counts,
    parse_counts,
)
from mindsport.errors import MindsportError

__all__ = [
    "Kind",
    "Move",
    "MoveError",
    "beats",
    "can_beat",
    "kind_named",
    "legal_moves",
    "moves_of_cards",
    "parse_move",
]


class MoveError(MindsportError):
    """Cards that do not form a move of the given kind (or of any kind)."""


class Kind(Enum):
    """The kind of a play; the value is the public name."""

    SINGLE = "single"
    PAIR = "pair"
    TRIO = "trio"
    TRIO_SINGLE = "trio_single"
    TRIO_PAIR = "trio_pair"
    STRAIGHT = "straight"
    PAIR_STRAIGHT = "pair_straight"
    PLANE = "plane"
    PLANE_SINGLE = "plane_single"
    PLANE_PAIR = "plane_pair"
    FOUR_TWO_SINGLE = "four_two_single"
    FOUR_TWO_PAIR = "four_two_pair"
    BOMB = "bomb"
    ROCKET = "rocket"


_KIND_ORDER = {k: i for i, k in enumerate(Kind)}

# (trios per unit, kicker cards per unit) of the chained kinds: card count = length * unit size.
_CHAIN_UNIT = {
    Kind.STRAIGHT: 1,
    Kind.PAIR_STRAIGHT: 2,
    Kind.PLANE: 3,
    Kind.PLANE_SINGLE: 4,
    Kind.PLANE_PAIR: 5,
}
# Allowed chain lengths (number of ranks in the chain).
_CHAIN_LENGTHS = {
    Kind.STRAIGHT: range(5, 13),
    Kind.PAIR_STRAIGHT: range(3, 11),
    Kind.PLANE: range(2, 7),
    Kind.PLANE_SINGLE: range(2, 6),
    Kind.PLANE_PAIR: range(2, 5),
}
_CHAIN_WIDTH = {  # copies of each chain rank
    Kind.STRAIGHT: 1,
    Kind.PAIR_STRAIGHT: 2,
    Kind.PLANE: 3,
    Kind.PLANE_SINGLE: 3,
    Kind.PLANE_PAIR: 3,
}
_FIXED_SIZE = {
    Kind.SINGLE: 1,
    Kind.PAIR: 2,
    Kind.TRIO: 3,
    Kind.TRIO_SINGLE: 4,
    Kind.TRIO_PAIR: 5,
    Kind.FOUR_TWO_SINGLE: 6,
    Kind.FOUR_TWO_PAIR: 8,
    Kind.BOMB: 4,
    Kind.ROCKET: 2,
}


@dataclass(frozen=True, slots=True)
class Move:
    """One play: its kind and its cards (sorted by rank). Pass is ``None``, never a Move.

    ``Move("pair", "55")`` checks that the cards form that kind and fills in ``main`` (the main
    rank index, 0 = ``3`` ... 14 = ``D``) and ``counts`` (the 15-length count vector). Passing
    ``main`` and ``counts`` too skips the check: that is the move generator's fast path, and
    :meth:`GameState.apply_action <mindsport.doudizhu.state.GameState.apply_action>` checks
    such moves again.

    >>> Move("plane_single", "333444555666")
    Move(kind=<Kind.PLANE_SINGLE: 'plane_single'>, cards='333444555666')
    >>> Move("plane_single", "333444555666").main  # read as 444555666 + 333: rank of 6
    3
    """

    kind: Kind
    cards: str
    main: int = field(default=-1, compare=False, repr=False)
    counts: Counts = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.main >= 0:
            return
        kind = kind_named(self.kind)
        counts = parse_counts(self.cards)
        found = _reading(counts, kind)
        if found is None:
            raise MoveError(f'"{self.cards}" is not a {kind.value}')
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "cards", found.cards)
        object.__setattr__(self, "main", found.main)
        object.__setattr__(self, "counts", found.counts)

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.cards)

    @property
    def is_bomb(self) -> bool:
        """True for bombs and the rocket."""
        return self.kind is Kind.BOMB or self.kind is Kind.ROCKET

    def __str__(self) -> str:
        return f"{self.kind.value} {self.cards}"


def kind_named(name: Kind | str) -> Kind:
    """The :class:`Kind` called ``name`` (its value, e.g. ``"pair"``)."""
    try:
        return Kind(name)
    except ValueError:
        names = ", ".join(k.value for k in Kind)
        raise MoveError(f"unknown move kind {name!r}; kinds are {names}") from None


def _make(kind: Kind, counts: Sequence[int], main: int) -> Move:
    t = tuple(counts)
    return Move(kind, format_counts(t), main, t)


def beats(move: Move, previous: Move) -> bool:
    """True when ``move`` may be played on ``previous``.

    >>> beats(Move("bomb", "3333"), Move("straight", "9TJQKA"))
    True
    >>> beats(Move("four_two_single", "AAAA34"), Move("four_two_single", "KKKK56"))
    True
    """
    if move.kind is Kind.ROCKET:
        return previous.kind is not Kind.ROCKET
    if previous.kind is Kind.ROCKET:
        return False
    if move.kind is Kind.BOMB:
        return previous.kind is not Kind.BOMB or move.main > previous.main
    return move.kind is previous.kind and move.size == previous.size and move.main > previous.main


def _kicker_sets(avail: list[int], n: int, start: int) -> Iterator[list[int]]:
    """Multisets of ``n`` ranks from ``start`` on, at most ``avail[r]`` copies of rank r."""
    if n == 0:
        yield []
        return
    for r in range(start, N_RANKS):
        top = min(avail[r], n)
        for k in range(top, 0, -1):
            for rest in _kicker_sets(avail, n - k, r + 1):
                yield [r] * k + rest


def _pair_sets(ranks: list[int], n: int, start: int) -> Iterator[list[int]]:
    """n distinct ranks out of ``ranks`` (sorted), as combinations."""
    if n == 0:
        yield []
        return
    for i in range(start, len(ranks) - n + 1):
        for rest in _pair_sets(ranks, n - 1, i + 1):
            yield [ranks[i], *rest]


def _gen_kind(c: Counts, kind: Kind, length: int | None, above: int) -> dict[Counts, int]:
    """Card sets (as counts) of ``kind`` in hand ``c`` with main rank > ``above`` -> main rank.

    ``length`` is the chain length for chained kinds (None: every allowed length); for other
    kinds it is ignored. The main rank kept is the highest reading found.
    """
    out: dict[Counts, int] = {}

    def add(counts: list[int], main: int) -> None:
        key = tuple(counts)
        if out.get(key, -1) < main:
            out[key] = main

    lo = above + 1
    if kind is Kind.SINGLE:
        for r in range(lo, N_RANKS):
            if c[r]:
                m = [0] * N_RANKS
                m[r] = 1
                add(m, r)
    elif kind in (Kind.PAIR, Kind.TRIO, Kind.BOMB):
        width = {Kind.PAIR: 2, Kind.TRIO: 3, Kind.BOMB: 4}[kind]
        for r in range(lo, TWO + 1):
            if c[r] >= width:
                m = [0] * N_RANKS
                m[r] = width
                add(m, r)
    elif kind is Kind.ROCKET:
        if c[SMALL_JOKER] and c[BIG_JOKER]:
            m = [0] * N_RANKS
            m[SMALL_JOKER] = m[BIG_JOKER] = 1
            add(m, BIG_JOKER)
    elif kind in (Kind.TRIO_SINGLE, Kind.TRIO_PAIR):
        for r in range(lo, TWO + 1):
            if c[r] < 3:
                continue
            if kind is Kind.TRIO_SINGLE:
                for k in range(N_RANKS):
                    if k != r and c[k]:
                        m = [0] * N_RANKS
                        m[r] = 3
                        m[k] = 1
                        add(m, r)
            else:
                for k in range(TWO + 1):
                    if k != r and c[k] >= 2:
                        m = [0] * N_RANKS
                        m[r] = 3
                        m[k] = 2
                        add(m, r)
    elif kind in (Kind.FOUR_TWO_SINGLE, Kind.FOUR_TWO_PAIR):
        for r in range(lo, TWO + 1):
            if c[r] < 4:
                continue
            if kind is Kind.FOUR_TWO_SINGLE:
                avail = [min(x, 2) for x in c]
                avail[r] = 0
                for ks in _kicker_sets(avail, 2, 0):
                    if ks == [SMALL_JOKER, BIG_JOKER]:
                        continue
                    m = [0] * N_RANKS
                    m[r] = 4
                    for k in ks:
                        m[k] += 1
                    add(m, r)
            else:
                ranks = [k for k in range(TWO + 1) if k != r and c[k] >= 2]
                for ks in _pair_sets(ranks, 2, 0):
                    m = [0] * N_RANKS
                    m[r] = 4
                    for k in ks:
                        m[k] = 2
                    add(m, r)
    else:
        width = _CHAIN_WIDTH[kind]
        lengths = _CHAIN_LENGTHS[kind] if length is None else (length,)
        for n in lengths:
            if n not in _CHAIN_LENGTHS[kind]:
                continue
            for end in range(max(lo, n - 1), ACE + 1):
                first = end - n + 1
                if any(c[r] < width for r in range(first, end + 1)):
                    continue
                base = [0] * N_RANKS
                for r in range(first, end + 1):
                    base[r] = width
                if kind in (Kind.STRAIGHT, Kind.PAIR_STRAIGHT, Kind.PLANE):
                    add(base, end)
                elif kind is Kind.PLANE_SINGLE:
                    avail = [min(x, 3) for x in c]
                    for r in range(first, end + 1):
                        avail[r] = 0
                    for ks in _kicker_sets(avail, n, 0):
                        if SMALL_JOKER in ks and BIG_JOKER in ks:
                            continue
                        m = base.copy()
                        for k in ks:
                            m[k] += 1
                        add(m, end)
                else:
                    ranks = [k for k in range(TWO + 1) if not first <= k <= end and c[k] >= 2]
                    for ks in _pair_sets(ranks, n, 0):
                        m = base.copy()
                        for k in ks:
                            m[k] = 2
                        add(m, end)
    return out


def _moves_of(c: Counts, kind: Kind, length: int | None, above: int) -> list[Move]:
    found = _gen_kind(c, kind, length, above)
    moves = [_make(kind, counts, main) for counts, main in found.items()]
    # by size, main rank, then lower kickers first (more cards of the lowest differing rank)
    moves.sort(key=lambda m: (m.size, m.main, tuple(-n for n in m.counts)))
    return moves


def _chain_length(kind: Kind, size: int) -> int | None:
    unit = _CHAIN_UNIT.get(kind)
    return None if unit is None else size // unit


def _size_fits(kind: Kind, size: int) -> bool:
    unit = _CHAIN_UNIT.get(kind)
    if unit is None:
        return size == _FIXED_SIZE[kind]
    return size % unit == 0 and size // unit in _CHAIN_LENGTHS[kind]


def _reading(counts: Counts, kind: Kind) -> Move | None:
    """The move of ``kind`` made of exactly these cards (highest reading), if any."""
    size = sum(counts)
    unit = _CHAIN_UNIT.get(kind)
    if unit is None:
        if size != _FIXED_SIZE[kind]:
            return None
        length = None
    else:
        if size % unit:
            return None
        length = size // unit
    main = _gen_kind(counts, kind, length, -1).get(counts)
    return None if main is None else _make(kind, counts, main)


def legal_moves(hand: str | Counts, previous: Move | str | None = None) -> list[Move]:
    """Every distinct move (kind, cards) from ``hand`` that may lead or that beats ``previous``.

    ``hand`` is a card string or a 15-length count vector; ``previous`` a :class:`Move`, its
    text (read by :func:`parse_move`: ``"55"``, ``"plane_single:33344456"``) or ``None`` to
    lead. Pass is not listed.

    >>> [str(m) for m in legal_moves("3345", Move("single", "4"))]
    ['single 5']
    >>> [str(m) for m in legal_moves("XD2")]
    ['single 2', 'single X', 'single D', 'rocket XD']
    >>> [m.cards for m in legal_moves("34567889TTJQ", "56789")]
    ['6789T', '789TJ', '89TJQ']
    """
    c = parse_counts(hand) if isinstance(hand, str) else tuple(hand)
    if isinstance(previous, str):
        previous = parse_move(previous)
    elif previous is not None and not isinstance(previous, Move):
        raise MoveError(f"previous must be a Move, its text or None, got {previous!r}")
    if previous is None:
        out: list[Move] = []
        for kind in Kind:
            out.extend(_moves_of(c, kind, None, -1))
        return out
    kind = previous.kind
    if kind is Kind.ROCKET:
        return []
    if kind is Kind.BOMB:
        return _bombs(c, previous.main)
    if kind is Kind.SINGLE or kind is Kind.PAIR or kind is Kind.TRIO:
        width = previous.size
        same = [
            _make_simple(kind, r, width) for r in range(previous.main + 1, N_RANKS) if c[r] >= width
        ]
        if width > 1:  # jokers never pair
            same = [m for m in same if m.main <= TWO]
        return same + _bombs(c, -1)
    unit = _CHAIN_UNIT.get(kind)
    if unit is None and previous.size != _FIXED_SIZE[kind]:
        return []
    length = None if unit is None else previous.size // unit
    return _moves_of(c, kind, length, previous.main) + _bombs(c, -1)


def can_beat(hand: str | Counts, previous: Move) -> bool:
    """True when ``hand`` holds some move that beats ``previous`` (= ``legal_moves`` non-empty,
    with shortcuts).

    >>> can_beat("3333", Move("straight", "34567")), can_beat("XD2", Move("rocket", "XD"))
    (True, False)
    """
    c = parse_counts(hand) if isinstance(hand, str) else tuple(hand)
    kind = previous.kind
    if kind is Kind.ROCKET:
        return False
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        return True
    if kind is Kind.BOMB:
        return any(c[r] == 4 for r in range(previous.main + 1, TWO + 1))
    if any(c[r] == 4 for r in range(TWO + 1)):
        return True
    if kind is Kind.SINGLE or kind is Kind.PAIR or kind is Kind.TRIO:
        width = previous.size
        top = N_RANKS if width == 1 else TWO + 1
        return any(c[r] >= width for r in range(previous.main + 1, top))
    return bool(legal_moves(c, previous))


def _make_simple(kind: Kind, rank: int, width: int) -> Move:
    counts = [0] * N_RANKS
    counts[rank] = width
    return Move(kind, RANKS[rank] * width, rank, tuple(counts))


def _bombs(c: Counts, above: int) -> list[Move]:
    """Bombs above rank ``above`` and the rocket."""
    out = [_make_simple(Kind.BOMB, r, 4) for r in range(above + 1, TWO + 1) if c[r] == 4]
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        counts = [0] * N_RANKS
        counts[SMALL_JOKER] = counts[BIG_JOKER] = 1
        out.append(Move(Kind.ROCKET, "XD", BIG_JOKER, tuple(counts)))
    return out


def moves_of_cards(cards: str | Counts) -> list[Move]:
    """Every move made of exactly these cards (several kinds are possible, e.g. plane and
    plane_single for ``333444555666``), in kind order."""
    c = parse_counts(cards) if isinstance(cards, str) else tuple(cards)
    size = sum(c)
    found = (_reading(c, kind) for kind in Kind if _size_fits(kind, size))
    return [m for m in found if m is not None]


def parse_move(text: str, previous: Move | None = None) -> Move | None:
    """Read a move written ``cards`` or ``kind:cards``; ``pass`` (or empty) is ``None``.

    Bare cards that form several kinds take the kind of ``previous`` when they can (or bomb /
    rocket), else the first kind in :class:`Kind` order (e.g. ``plane`` before ``plane_single``).
    Raises :class:`MoveError` when the cards form no move.

    >>> parse_move("33344456", None)
    Move(kind=<Kind.PLANE_SINGLE: 'plane_single'>, cards='33344456')
    """
    text = text.strip()
    if text.lower() in ("", "pass", "-"):
        return None
    if ":" in text:
        name, _, cards = text.partition(":")
        return Move(kind_named(name.strip()), cards.strip())
    options = moves_of_cards(text)
    if not options:
        raise MoveError(f'"{text}" is not a move of any kind')
    if previous is not None:
        for m in options:
            if m.kind is previous.kind:
                return m
    return options[0]
