# mypy: allow-untyped-defs
# ruff: noqa: SIM109, SIM110  (numba kernels: plain loops and comparisons compile best)
"""Legal-move generation over count vectors, in numba: the same moves in the same order as
:func:`mindsport.doudizhu.moves.legal_moves`.

A move is a row of a move buffer: kind code (``Kind`` order: 0 ``single`` ... 13 ``rocket``),
main rank, size and the 15 counts. :func:`legal` fills the buffer from row 0 and returns the
number of moves. No sorting is needed: every loop runs in the order of the Python generator's
sort key (size, main rank, then more cards of the lowest differing rank first) -- chain length,
then main rank, then kicker multisets in decreasing lexicographic order of their counts. A card
set that reads several ways as a ``plane_single`` appears once, with its highest main rank.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MAX_MOVES", "can_beat", "legal", "new_buffers", "reading"]

SINGLE, PAIR, TRIO, TRIO_SINGLE, TRIO_PAIR = 0, 1, 2, 3, 4
STRAIGHT, PAIR_STRAIGHT, PLANE, PLANE_SINGLE, PLANE_PAIR = 5, 6, 7, 8, 9
FOUR_TWO_SINGLE, FOUR_TWO_PAIR, BOMB, ROCKET = 10, 11, 12, 13
N_KINDS = 14
TWO, ACE, KING, SMALL_JOKER, BIG_JOKER = 12, 11, 10, 13, 14
N_RANKS = 15
PASS = -1

#: Rows of a move buffer. A hand of at most 20 cards has far fewer moves (the most prolific
#: kinds: plane_single <= 5 * 91 + 4 * 165 + 3 * 70 + 1, four_two_single <= 5 * 120); moves are
#: only listed for hands, never for the 34 unseen cards (:func:`can_beat` counts without
#: listing). An overflow would raise, never write past the buffer.
MAX_MOVES = 4096

# per kind: chain unit (0 = fixed size), fixed size, chain width, min / max chain length
_UNIT = np.array([0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0], dtype=np.int64)
_FIXED = np.array([1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 6, 8, 4, 2], dtype=np.int64)
_WIDTH = np.array([1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 4, 4, 1], dtype=np.int64)
_MIN_LEN = np.array([0, 0, 0, 0, 0, 5, 3, 2, 2, 2, 0, 0, 0, 0], dtype=np.int64)
_MAX_LEN = np.array([0, 0, 0, 0, 0, 12, 10, 6, 5, 4, 0, 0, 0, 0], dtype=np.int64)


def new_buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Empty move buffer: counts (MAX_MOVES x 15), kind, main, size."""
    return (
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
def _kickers(avail, rem, m, first, end, mc, mk, mm, ms, n):  # pragma: no cover - compiled
    """plane_single: every multiset of ``rem`` kicker ranks within ``avail`` (the hand's
    cards, at most 3 a rank, none of the chain), never both jokers; each card set once."""
    suffix = np.zeros(N_RANKS + 1, np.int64)
    for r in range(N_RANKS - 1, -1, -1):
        suffix[r] = suffix[r + 1] + avail[r]
    if suffix[0] < rem:
        return n
    cnt = np.zeros(N_RANKS, np.int64)
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
def _pairs(ranks, nr, rem, m, kind, main, mc, mk, mm, ms, n):  # pragma: no cover - compiled
    """Every choice of ``rem`` distinct pair ranks out of ranks[:nr] (2 cards each)."""
    if rem > nr:
        return n
    idx = np.empty(max(rem, 1), np.int64)
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
def gen_kind(c, kind, length, above, mc, mk, mm, ms, n):  # pragma: no cover - compiled
    """Append the moves of ``kind`` from hand ``c`` with main rank > ``above`` (unsorted).

    ``length``: chain length for chained kinds, -1 for every allowed length.
    """
    lo = above + 1
    m = np.zeros(N_RANKS, np.int64)
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
        ranks = np.empty(N_RANKS, np.int64)
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
                n = _pairs(ranks, nr, 2, m, kind, r, mc, mk, mm, ms, n)
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
        avail = np.empty(N_RANKS, np.int64)
        ranks = np.empty(N_RANKS, np.int64)
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
                    n = _kickers(avail, ln, m, first, end, mc, mk, mm, ms, n)
                elif kind == PLANE_PAIR:
                    nr = 0
                    for k in range(TWO + 1):
                        if (k < first or k > end) and c[k] >= 2:
                            ranks[nr] = k
                            nr += 1
                    n = _pairs(ranks, nr, ln, m, kind, end, mc, mk, mm, ms, n)
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
    for kind in range(k0, k1):  # one call site: keeps the compiled code small
        n = gen_kind(c, kind, length, above, mc, mk, mm, ms, n)
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
    n = _checked(gen_kind(c, kind, length, -1, mc, mk, mm, ms, 0), mc)
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
