"""The plain-Python move generator: the independent reference the compiled one is checked with.

This is the package's former pure-Python enumeration, kept here only as a test oracle: every
chain window is tried, every kicker multiset enumerated and de-duplicated through a dict, then
sorted. It works on count tuples and returns ``(kind, counts, main)`` triples, so it shares
nothing with the engine but the card ranks and kind names.
"""

from __future__ import annotations

from collections.abc import Iterator

from mindsport.doudizhu.kinds import Kind

N_RANKS = 15
ACE, TWO, SMALL_JOKER, BIG_JOKER = 11, 12, 13, 14
Counts = tuple[int, ...]
Ref = tuple[Kind, Counts, int]

_CHAIN_UNIT = {
    Kind.STRAIGHT: 1,
    Kind.PAIR_STRAIGHT: 2,
    Kind.PLANE: 3,
    Kind.PLANE_SINGLE: 4,
    Kind.PLANE_PAIR: 5,
}
_CHAIN_LENGTHS = {
    Kind.STRAIGHT: range(5, 13),
    Kind.PAIR_STRAIGHT: range(3, 11),
    Kind.PLANE: range(2, 7),
    Kind.PLANE_SINGLE: range(2, 6),
    Kind.PLANE_PAIR: range(2, 5),
}
_CHAIN_WIDTH = {
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


def _moves_of(c: Counts, kind: Kind, length: int | None, above: int) -> list[Ref]:
    found = _gen_kind(c, kind, length, above)
    # by size, main rank, then lower kickers first (more cards of the lowest differing rank)
    moves = sorted(found.items(), key=lambda cm: (sum(cm[0]), cm[1], tuple(-n for n in cm[0])))
    return [(kind, counts, main) for counts, main in moves]


def _bombs(c: Counts, above: int) -> list[Ref]:
    out: list[Ref] = []
    for r in range(above + 1, TWO + 1):
        if c[r] == 4:
            out.append((Kind.BOMB, tuple(4 if q == r else 0 for q in range(N_RANKS)), r))
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        rocket = tuple(1 if q >= SMALL_JOKER else 0 for q in range(N_RANKS))
        out.append((Kind.ROCKET, rocket, BIG_JOKER))
    return out


def reference_legal(c: Counts, previous: Ref | None = None) -> list[Ref]:
    """Every move of hand ``c`` that leads (``previous`` None) or beats ``previous``, in the
    engine's documented order: kinds in ``Kind`` order (answers: same kind, then bombs and the
    rocket), within a kind by size, main rank, then more cards of the lowest differing rank."""
    if previous is None:
        out: list[Ref] = []
        for kind in Kind:
            out.extend(_moves_of(c, kind, None, -1))
        return out
    kind, counts, main = previous
    size = sum(counts)
    if kind is Kind.ROCKET:
        return []
    if kind is Kind.BOMB:
        return _bombs(c, main)
    if kind in (Kind.SINGLE, Kind.PAIR, Kind.TRIO):
        same = [
            (kind, tuple(size if q == r else 0 for q in range(N_RANKS)), r)
            for r in range(main + 1, N_RANKS if size == 1 else TWO + 1)
            if c[r] >= size
        ]
        return same + _bombs(c, -1)
    unit = _CHAIN_UNIT.get(kind)
    if unit is None and size != _FIXED_SIZE[kind]:
        return []
    length = None if unit is None else size // unit
    return _moves_of(c, kind, length, main) + _bombs(c, -1)


def reference_reading(c: Counts, kind: Kind) -> int | None:
    """Main rank of the move of ``kind`` made of exactly the cards ``c`` (highest reading)."""
    size = sum(c)
    unit = _CHAIN_UNIT.get(kind)
    if unit is None:
        if size != _FIXED_SIZE[kind]:
            return None
        length = None
    else:
        if size % unit:
            return None
        length = size // unit
    return _gen_kind(c, kind, length, -1).get(c)
