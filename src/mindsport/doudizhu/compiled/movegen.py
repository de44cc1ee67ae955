# mypy: allow-untyped-defs
# ruff: noqa: SIM109, SIM110  (numba kernels: plain loops and comparisons compile best)
"""Legal-move generation over count vectors, in numba: the one move generator of the package.

A move is a row of a move buffer (:class:`MoveBuffer`): kind code
(:data:`~mindsport.doudizhu.kinds.KIND_CODE`: 0 ``single`` ... 13 ``rocket``), main rank, size
and the 15 counts. :func:`legal` fills the buffer
from row 0 and returns the number of moves, in a fixed order: kinds in ``Kind`` order, and within
a kind by size, main rank, then kicker multisets with more cards of the lowest differing rank
first (chain length, then main rank, then kicker multisets in decreasing lexicographic order of
their counts: every loop runs in that order, no sorting). A card set that reads several ways as
a ``plane_single`` appears once, with its highest main rank.

Every move of the game is a move of the full deck, so :func:`universe` lists them all (the move
table of :mod:`mindsport.doudizhu.moves`); :func:`move_key` numbers a move by its kind and counts
(base 5), and :func:`legal_indices` answers with positions in the sorted table of keys. The
tests check the generator against an independent plain-Python generator and a brute-force
classifier of every sub-multiset of a hand.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mindsport.doudizhu.cards import ACE, BIG_JOKER, DECK_COUNTS, N_RANKS, SMALL_JOKER, TWO
from mindsport.doudizhu.kinds import (
    BOMB,
    CHAIN_UNIT,
    FIXED_SIZE,
    FOUR_TWO_PAIR,
    FOUR_TWO_SINGLE,
    MAX_CHAIN,
    MIN_CHAIN,
    N_KINDS,
    PAIR,
    PLANE_PAIR,
    PLANE_SINGLE,
    ROCKET,
    SINGLE,
    TRIO,
    TRIO_PAIR,
    TRIO_SINGLE,
    WIDTH,
)

__all__ = [
    "MAX_MOVES",
    "MoveBuffer",
    "can_beat",
    "legal",
    "legal_indices",
    "move_key",
    "new_buffers",
    "reading",
    "universe",
]

#: Rows of a move buffer. A hand of at most 20 cards has far fewer moves (the most prolific
#: kinds: plane_single <= 5 * 91 + 4 * 165 + 3 * 70 + 1, four_two_single <= 5 * 120); moves are
#: only listed for hands, never for the 34 unseen cards (:func:`can_beat` counts without
#: listing). An overflow would raise, never write past the buffer.
MAX_MOVES = 4096

#: rows of the generator's scratch (:func:`_workspace`): the move being built, kicker
#: availability, pair ranks, suffix sums, a kicker multiset, combination indices
_MOVE, _AVAIL, _RANKS, _SUFFIX, _MULTISET, _INDEX = 0, 1, 2, 3, 4, 5

_UNIT = CHAIN_UNIT
_FIXED = FIXED_SIZE
_WIDTH = WIDTH
_MIN_LEN = MIN_CHAIN
_MAX_LEN = MAX_CHAIN


class MoveBuffer(NamedTuple):
    """A buffer of moves, one row each: the counts (rows x 15), kind code, main rank and size.
    The generator's kernels take its four arrays (``mc, mk, mm, ms``); the bots' kernels carry
    it whole (:func:`~mindsport.doudizhu.compiled.bots.decision_buffers`)."""

    counts: np.ndarray
    kind: np.ndarray
    main: np.ndarray
    size: np.ndarray


def new_buffers() -> MoveBuffer:
    """Empty move buffer: counts (MAX_MOVES x 15), kind, main, size."""
    return MoveBuffer(
        np.zeros((MAX_MOVES, N_RANKS), np.int64),
        np.zeros(MAX_MOVES, np.int64),
        np.zeros(MAX_MOVES, np.int64),
        np.zeros(MAX_MOVES, np.int64),
    )


@njit(cache=True)
def _push(mc, mk, mm, ms, n, kind, main, m):  # pragma: no cover - compiled
    """Write move ``n`` (when it fits: callers check the returned count) and count it."""
    if n < mc.shape[0]:
        size = 0
        for r in range(N_RANKS):
            mc[n, r] = m[r]
            size += m[r]
        mk[n] = kind
        mm[n] = main
        ms[n] = size
    return n + 1


@njit(cache=True)
def _checked(n, mc):  # pragma: no cover - compiled
    if n > mc.shape[0]:
        raise ValueError("move buffer overflow")
    return n


@njit(cache=True)
def _higher_reading(m, first, end):  # pragma: no cover - compiled
    """A later run of trios of the same length in ``m`` (a higher plane_single reading)."""
    length = end - first + 1
    for e in range(end + 1, ACE + 1):
        ok = True
        for r in range(e - length + 1, e + 1):
            if m[r] != 3:
                ok = False
                break
        if ok:
            return True
    return False


@njit(cache=True)
def _kickers(rem, first, end, mc, mk, mm, ms, n, w):  # pragma: no cover - compiled
    """plane_single: every multiset of ``rem`` kicker ranks within the kicker availability
    ``w[_AVAIL]`` (the hand's cards, at most 3 a rank, none of the chain) added to the move
    being built (``w[_MOVE]``, the chain ``first .. end``), never both jokers; each card set
    once."""
    avail = w[_AVAIL]
    m = w[_MOVE]
    suffix = w[_SUFFIX]
    suffix[N_RANKS] = 0
    for r in range(N_RANKS - 1, -1, -1):
        suffix[r] = suffix[r + 1] + avail[r]
    if suffix[0] < rem:
        return n
    cnt = w[_MULTISET]
    amount = rem
    for j in range(N_RANKS):  # greedy fill: the first multiset in decreasing order
        cnt[j] = min(avail[j], amount)
        amount -= cnt[j]
    while True:
        if not (cnt[SMALL_JOKER] > 0 and cnt[BIG_JOKER] > 0):
            for r in range(N_RANKS):
                m[r] += cnt[r]
            if not _higher_reading(m, first, end):
                n = _push(mc, mk, mm, ms, n, PLANE_SINGLE, end, m)
            for r in range(N_RANKS):
                m[r] -= cnt[r]
        tail = 0
        i = N_RANKS - 1
        found = False
        while i >= 0:
            if cnt[i] > 0 and suffix[i + 1] >= tail + 1:
                cnt[i] -= 1
                amount = tail + 1
                for j in range(i + 1, N_RANKS):
                    cnt[j] = min(avail[j], amount)
                    amount -= cnt[j]
                found = True
                break
            tail += cnt[i]
            i -= 1
        if not found:
            return n


@njit(cache=True)
def _pairs(nr, rem, kind, main, mc, mk, mm, ms, n, w):  # pragma: no cover - compiled
    """Every choice of ``rem`` distinct pair ranks out of the pair ranks ``w[_RANKS][:nr]``
    (2 cards each) added to the move being built (``w[_MOVE]``)."""
    ranks = w[_RANKS]
    m = w[_MOVE]
    if rem > nr:
        return n
    idx = w[_INDEX]
    for i in range(rem):
        idx[i] = i
    while True:
        for i in range(rem):
            m[ranks[idx[i]]] += 2
        n = _push(mc, mk, mm, ms, n, kind, main, m)
        for i in range(rem):
            m[ranks[idx[i]]] -= 2
        i = rem - 1
        while i >= 0 and idx[i] == nr - rem + i:
            i -= 1
        if i < 0:
            return n
        idx[i] += 1
        for j in range(i + 1, rem):
            idx[j] = idx[j - 1] + 1


@njit(cache=True)
def _workspace():  # pragma: no cover - compiled
    """Scratch rows of the generator: the move being built (``_MOVE``), kicker availability
    (``_AVAIL``), pair ranks (``_RANKS``), suffix sums, a kicker multiset, combination indices
    (one allocation per listing)."""
    return np.empty((6, N_RANKS + 1), np.int64)


@njit(cache=True)
def gen_kind(c, kind, length, above, mc, mk, mm, ms, n, w):  # pragma: no cover - compiled
    """Append the moves of ``kind`` from hand ``c`` with main rank > ``above`` (unsorted).

    ``length``: chain length for chained kinds, -1 for every allowed length.
    """
    lo = above + 1
    m = w[_MOVE]
    for r in range(N_RANKS):
        m[r] = 0
    if kind == SINGLE:
        for r in range(lo, N_RANKS):
            if c[r] > 0:
                m[r] = 1
                n = _push(mc, mk, mm, ms, n, kind, r, m)
                m[r] = 0
    elif kind == PAIR or kind == TRIO or kind == BOMB:
        width = _WIDTH[kind]
        for r in range(lo, TWO + 1):
            if c[r] >= width:
                m[r] = width
                n = _push(mc, mk, mm, ms, n, kind, r, m)
                m[r] = 0
    elif kind == ROCKET:
        if c[SMALL_JOKER] > 0 and c[BIG_JOKER] > 0:
            m[SMALL_JOKER] = 1
            m[BIG_JOKER] = 1
            n = _push(mc, mk, mm, ms, n, kind, BIG_JOKER, m)
    elif kind == TRIO_SINGLE or kind == TRIO_PAIR:
        for r in range(lo, TWO + 1):
            if c[r] < 3:
                continue
            m[r] = 3
            if kind == TRIO_SINGLE:
                for k in range(N_RANKS):
                    if k != r and c[k] > 0:
                        m[k] = 1
                        n = _push(mc, mk, mm, ms, n, kind, r, m)
                        m[k] = 0
            else:
                for k in range(TWO + 1):
                    if k != r and c[k] >= 2:
                        m[k] = 2
                        n = _push(mc, mk, mm, ms, n, kind, r, m)
                        m[k] = 0
            m[r] = 0
    elif kind == FOUR_TWO_SINGLE or kind == FOUR_TWO_PAIR:
        ranks = w[_RANKS]
        for r in range(lo, TWO + 1):
            if c[r] < 4:
                continue
            m[r] = 4
            if kind == FOUR_TWO_SINGLE:
                for a in range(N_RANKS):
                    if a == r or c[a] == 0:
                        continue
                    for b in range(a, N_RANKS):
                        if b == r or c[b] == 0 or (b == a and c[a] < 2):
                            continue
                        if a == SMALL_JOKER and b == BIG_JOKER:
                            continue
                        m[a] += 1
                        m[b] += 1
                        n = _push(mc, mk, mm, ms, n, kind, r, m)
                        m[a] -= 1
                        m[b] -= 1
            else:
                nr = 0
                for k in range(TWO + 1):
                    if k != r and c[k] >= 2:
                        ranks[nr] = k
                        nr += 1
                n = _pairs(nr, 2, kind, r, mc, mk, mm, ms, n, w)
            m[r] = 0
    else:
        width = _WIDTH[kind]
        lmin = _MIN_LEN[kind]
        lmax = _MAX_LEN[kind]
        if length >= 0:
            if length < lmin or length > lmax:
                return n
            lmin = length
            lmax = length
        avail = w[_AVAIL]
        ranks = w[_RANKS]
        for ln in range(lmin, lmax + 1):
            for end in range(max(lo, ln - 1), ACE + 1):
                first = end - ln + 1
                ok = True
                for r in range(first, end + 1):
                    if c[r] < width:
                        ok = False
                        break
                if not ok:
                    continue
                for r in range(first, end + 1):
                    m[r] = width
                if kind == PLANE_SINGLE:
                    for r in range(N_RANKS):
                        avail[r] = min(c[r], 3)
                    for r in range(first, end + 1):
                        avail[r] = 0
                    n = _kickers(ln, first, end, mc, mk, mm, ms, n, w)
                elif kind == PLANE_PAIR:
                    nr = 0
                    for k in range(TWO + 1):
                        if (k < first or k > end) and c[k] >= 2:
                            ranks[nr] = k
                            nr += 1
                    n = _pairs(nr, ln, kind, end, mc, mk, mm, ms, n, w)
                else:
                    n = _push(mc, mk, mm, ms, n, kind, end, m)
                for r in range(first, end + 1):
                    m[r] = 0
    return n


@njit(cache=True)
def _bombs(c, above, mc, mk, mm, ms, n):  # pragma: no cover - compiled
    m = np.zeros(N_RANKS, np.int64)
    for r in range(above + 1, TWO + 1):
        if c[r] == 4:
            m[r] = 4
            n = _push(mc, mk, mm, ms, n, BOMB, r, m)
            m[r] = 0
    if c[SMALL_JOKER] > 0 and c[BIG_JOKER] > 0:
        m[SMALL_JOKER] = 1
        m[BIG_JOKER] = 1
        n = _push(mc, mk, mm, ms, n, ROCKET, BIG_JOKER, m)
    return n


@njit(cache=True)
def legal(c, pk, pmain, psize, mc, mk, mm, ms):  # pragma: no cover - compiled
    """Fill the buffer with the legal moves of hand ``c``: leading when ``pk < 0``, else
    beating the move (kind ``pk``, main ``pmain``, size ``psize``). Returns the count."""
    n = 0
    if pk == ROCKET:
        return 0
    if pk == BOMB:
        return _bombs(c, pmain, mc, mk, mm, ms, 0)
    if pk == SINGLE or pk == PAIR or pk == TRIO:
        m = np.zeros(N_RANKS, np.int64)
        for r in range(pmain + 1, N_RANKS):
            if c[r] >= psize and (psize == 1 or r <= TWO):
                m[r] = psize
                n = _push(mc, mk, mm, ms, n, pk, r, m)
                m[r] = 0
        return _bombs(c, -1, mc, mk, mm, ms, n)
    if pk < 0:  # leading: every kind, in Kind order
        k0, k1, length, above = 0, N_KINDS, -1, -1
    else:
        k0, k1, above = pk, pk + 1, pmain
        unit = _UNIT[pk]
        if unit == 0:
            if psize != _FIXED[pk]:
                return 0
            length = -1
        else:
            length = psize // unit
    w = _workspace()
    for kind in range(k0, k1):  # one call site: keeps the compiled code small
        n = gen_kind(c, kind, length, above, mc, mk, mm, ms, n, w)
    if pk < 0:
        return _checked(n, mc)
    return _checked(_bombs(c, -1, mc, mk, mm, ms, n), mc)


@njit(cache=True)
def reading(c, kind, mc, mk, mm, ms):  # pragma: no cover - compiled
    """Main rank of the move of ``kind`` made of exactly the cards ``c`` (-1: none)."""
    size = 0
    for r in range(N_RANKS):
        size += c[r]
    unit = _UNIT[kind]
    if unit == 0:
        if size != _FIXED[kind]:
            return -1
        length = -1
    else:
        if size % unit != 0:
            return -1
        length = size // unit
        if length < _MIN_LEN[kind] or length > _MAX_LEN[kind]:
            return -1
    n = _checked(gen_kind(c, kind, length, -1, mc, mk, mm, ms, 0, _workspace()), mc)
    best = -1
    for i in range(n):
        same = True
        for r in range(N_RANKS):
            if mc[i, r] != c[r]:
                same = False
                break
        if same and mm[i] > best:
            best = mm[i]
    return best


@njit(cache=True)
def _chain_at(c, first, end, width):  # pragma: no cover - compiled
    for r in range(first, end + 1):
        if c[r] < width:
            return False
    return True


@njit(cache=True)
def _exists(c, kind, main, size):  # pragma: no cover - compiled
    """Some move of ``kind`` (same size) with main rank > ``main`` in ``c`` (no bombs)."""
    lo = main + 1
    unit = _UNIT[kind]
    if unit == 0:
        if size != _FIXED[kind]:
            return False
        for r in range(lo, TWO + 1):
            if kind == TRIO_SINGLE or kind == TRIO_PAIR:
                if c[r] < 3:
                    continue
                for k in range(N_RANKS if kind == TRIO_SINGLE else TWO + 1):
                    if k != r and c[k] >= (1 if kind == TRIO_SINGLE else 2):
                        return True
            elif kind == FOUR_TWO_SINGLE or kind == FOUR_TWO_PAIR:
                if c[r] < 4:
                    continue
                have = 0
                jokers = 0
                for k in range(N_RANKS):
                    if k == r:
                        continue
                    if kind == FOUR_TWO_SINGLE:
                        if k >= SMALL_JOKER:
                            jokers += min(c[k], 1)
                        else:
                            have += min(c[k], 2)
                    elif k <= TWO and c[k] >= 2:
                        have += 1
                if have + min(jokers, 1) >= 2:
                    return True
        return False
    ln = size // unit
    width = _WIDTH[kind]
    for end in range(max(lo, ln - 1), ACE + 1):
        first = end - ln + 1
        if not _chain_at(c, first, end, width):
            continue
        if kind == PLANE_SINGLE:
            have = 0
            jokers = 0
            for k in range(N_RANKS):
                if first <= k <= end:
                    continue
                if k >= SMALL_JOKER:
                    jokers += min(c[k], 1)
                else:
                    have += min(c[k], 3)
            if have + min(jokers, 1) >= ln:
                return True
        elif kind == PLANE_PAIR:
            have = 0
            for k in range(TWO + 1):
                if (k < first or k > end) and c[k] >= 2:
                    have += 1
            if have >= ln:
                return True
        else:
            return True
    return False


@njit(cache=True)
def can_beat(c, kind, main, size):  # pragma: no cover - compiled
    """:func:`mindsport.doudizhu.moves.can_beat`: does ``c`` hold a move beating this one?"""
    if kind == ROCKET:
        return False
    if c[SMALL_JOKER] > 0 and c[BIG_JOKER] > 0:
        return True
    if kind == BOMB:
        for r in range(main + 1, TWO + 1):
            if c[r] == 4:
                return True
        return False
    for r in range(TWO + 1):
        if c[r] == 4:
            return True
    if kind == SINGLE or kind == PAIR or kind == TRIO:
        top = N_RANKS if size == 1 else TWO + 1
        for r in range(main + 1, top):
            if c[r] >= size:
                return True
        return False
    return _exists(c, kind, main, size)


#: Rows of the buffer that lists every move of the game (the full deck's moves).
UNIVERSE_ROWS = 65536
_KEY_BASE = 5  # at most 4 copies of a rank: counts are base-5 digits


@njit(cache=True)
def move_key(kind, m):  # pragma: no cover - compiled
    """The number of the move (kind, counts): ``kind * 5**15 + sum(m[r] * 5**r)``."""
    key = 0
    p = 1
    for r in range(N_RANKS):
        key += m[r] * p
        p *= _KEY_BASE
    return kind * p + key


@njit(cache=True)
def universe():  # pragma: no cover - compiled
    """Every move of the game (kind, main, size, counts), in :func:`legal`'s order for the deck."""
    deck = np.empty(N_RANKS, np.int64)
    for r in range(N_RANKS):
        deck[r] = DECK_COUNTS[r]
    mc = np.zeros((UNIVERSE_ROWS, N_RANKS), np.int64)
    mk = np.zeros(UNIVERSE_ROWS, np.int64)
    mm = np.zeros(UNIVERSE_ROWS, np.int64)
    ms = np.zeros(UNIVERSE_ROWS, np.int64)
    n = legal(deck, -1, -1, 0, mc, mk, mm, ms)
    return mc[:n].copy(), mk[:n].copy(), mm[:n].copy(), ms[:n].copy()


@njit(cache=True)
def _position(keys, key):  # pragma: no cover - compiled
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def legal_indices(c, pk, pmain, psize, keys):  # pragma: no cover - compiled
    """:func:`legal` as positions in ``keys`` (the sorted keys of every move of the game)."""
    mc = np.empty((MAX_MOVES, N_RANKS), np.int64)
    mk = np.empty(MAX_MOVES, np.int64)
    mm = np.empty(MAX_MOVES, np.int64)
    ms = np.empty(MAX_MOVES, np.int64)
    n = legal(c, pk, pmain, psize, mc, mk, mm, ms)
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = _position(keys, move_key(mk[i], mc[i]))
    return out


def _char_table() -> np.ndarray:
    """Rank of each byte of a card string (:data:`~mindsport.doudizhu.cards.RANKS` and its
    aliases), -2 for white space, -1 for anything else."""
    from mindsport.doudizhu.cards import ALIASES, RANKS

    table = np.full(256, -1, np.int64)
    for rank, ch in enumerate(RANKS):
        table[ord(ch)] = rank
    for alias, ch in ALIASES.items():
        table[ord(alias)] = RANKS.index(ch)
    for ch in " \t\n\r":
        table[ord(ch)] = -2
    return table


_CHARS = _char_table()


@njit(cache=True)
def parse_hand(text, c):  # pragma: no cover - compiled
    """Counts of a card string given as bytes into ``c``; False when a byte is no card or a
    rank has more copies than the deck (the caller then reads it again to say which)."""
    for r in range(N_RANKS):
        c[r] = 0
    for i in range(text.shape[0]):
        rank = _CHARS[text[i]]
        if rank == -1:
            return False
        if rank >= 0:
            c[rank] += 1
    for r in range(N_RANKS):
        if c[r] > DECK_COUNTS[r]:
            return False
    return True


@njit(cache=True)
def legal_text_indices(text, pk, pmain, psize, keys):  # pragma: no cover - compiled
    """:func:`legal_indices` of a hand given as the bytes of its card string; ``(False, [])``
    when the string is not a hand."""
    c = np.empty(N_RANKS, np.int64)
    if not parse_hand(text, c):
        return False, np.empty(0, np.int64)
    return True, legal_indices(c, pk, pmain, psize, keys)
