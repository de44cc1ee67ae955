# mypy: allow-untyped-defs

"""The strong bot's hand planner: the one planner of the package (compiled).

A *plan* splits a hand into groups that are each one legal move: straights and pair straights
(searched exhaustively, chain starts non-decreasing), then bombs, the rocket, planes and trios
(which take the lowest single or pair kickers up to a king), pairs and singles. Its *cost* is
the sum over groups of about one play each, less for high main ranks (a 2 or a joker wins
tricks), negative for bombs (-0.3) and the rocket (-0.4): they win the lead back. Lower is
better.

* :func:`best`: the best plan's cost (the search over chains runs on an explicit stack, so the
  kernel is cached and called from the other cached kernels);
* :func:`plan_groups`: the groups of the best plan: its chains in search order, then the split
  of the rest (:func:`_base_cost` scores that split without listing it).

The tests check both against an exhaustive enumeration of chain sets written in plain Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mindsport.doudizhu.cards import ACE, BIG_JOKER, KING, N_RANKS, SMALL_JOKER, TWO
from mindsport.doudizhu.kinds import (
    BOMB,
    PAIR,
    PAIR_STRAIGHT,
    PLANE,
    PLANE_PAIR,
    PLANE_SINGLE,
    ROCKET,
    SINGLE,
    STRAIGHT,
    TRIO,
    TRIO_PAIR,
    TRIO_SINGLE,
)

__all__ = ["best", "group_cost", "new_frames", "plan_groups", "search"]

#: ranks above ``T`` lower a group's cost by 0.07 each
_HIGH = 7
_ROCKET_COST = -0.4
_BOMB_COST = -0.3


@njit(cache=True)
def _g(main: int) -> float:  # pragma: no cover - compiled
    return 1.0 - 0.07 * max(0, main - _HIGH)


@njit(cache=True)
def _next_free(c, r, width):  # pragma: no cover - compiled
    """The next rank from ``r`` up to a king holding exactly ``width`` cards (a king + 1 when
    there is none): the free singles (pairs) that kickers are taken from, lowest first."""
    while r <= KING and c[r] != width:
        r += 1
    return r


@njit(cache=True)
def _base_cost(c: np.ndarray) -> float:  # pragma: no cover - compiled
    """Cost of the split of ``c`` without chains of singles or pairs (no allocation)."""
    cost = 0.0
    nfs = 0
    nfp = 0
    if c[SMALL_JOKER] > 0 and c[BIG_JOKER] > 0:
        cost += _ROCKET_COST
    else:
        if c[SMALL_JOKER] > 0:
            cost += _g(SMALL_JOKER)
        if c[BIG_JOKER] > 0:
            cost += _g(BIG_JOKER)
    for r in range(TWO + 1):
        n = c[r]
        if n == 4:
            cost += _BOMB_COST
        elif n == 2:
            cost += _g(r)
            if r <= KING:
                nfp += 1
        elif n == 1:
            cost += _g(r)
            if r <= KING:
                nfs += 1
    i_s = 0
    i_p = 0
    ps = _next_free(c, 0, 1)
    pp = _next_free(c, 0, 2)
    r = 0
    while r <= TWO:
        if c[r] != 3:
            r += 1
            continue
        n = 1
        if r <= ACE:
            while r + n <= ACE and c[r + n] == 3 and n < 5:
                n += 1
        end = r + n - 1
        cost += _g(end)
        if n >= 2:
            if nfs - i_s >= n:
                for _ in range(n):
                    cost -= _g(ps)
                    ps = _next_free(c, ps + 1, 1)
                i_s += n
            elif nfp - i_p >= n:
                for _ in range(n):
                    cost -= _g(pp)
                    pp = _next_free(c, pp + 1, 2)
                i_p += n
        elif i_s < nfs:
            cost -= _g(ps)
            ps = _next_free(c, ps + 1, 1)
            i_s += 1
        elif i_p < nfp:
            cost -= _g(pp)
            pp = _next_free(c, pp + 1, 2)
            i_p += 1
        r = end + 1
    return cost


_MAX_DEPTH = 16


@njit(cache=True)
def new_frames():  # pragma: no cover - compiled
    """Stack frames for :func:`search` (cost, start, kind, end, length per depth)."""
    return (
        np.empty(_MAX_DEPTH, np.float64),
        np.empty(_MAX_DEPTH, np.int64),
        np.empty(_MAX_DEPTH, np.int64),
        np.empty(_MAX_DEPTH, np.int64),
        np.empty(_MAX_DEPTH, np.int64),
    )


@njit(cache=True)
def best(c: np.ndarray, start: int) -> float:  # pragma: no cover - compiled
    """Best plan cost of ``c`` (chains starting at ``start`` or later); ``c`` is restored."""
    f_bst, f_s, f_kind, f_end, f_len = new_frames()
    return search(c, start, f_bst, f_s, f_kind, f_end, f_len)


@njit(cache=True)
def search(c, start, f_bst, f_s, f_kind, f_end, f_len):  # pragma: no cover - compiled
    """:func:`best` on the given stack frames (:func:`new_frames`): no allocation.

    A depth-first search over chains (start rank non-decreasing, every length) kept on an
    explicit stack of frames: numba caches no recursive kernel called by other cached ones.
    """
    d = 0
    f_bst[0] = _base_cost(c)
    f_s[0] = start
    f_kind[0] = 0
    f_len[0] = -1
    while True:
        # frame d scans (s, kind) from (f_s, f_kind) for the next chain to take
        s = f_s[d]
        kind = f_kind[d]
        pushed = False
        while s < ACE - 1:
            if c[s] == 0 or kind >= 2:
                s += 1
                kind = 0
                continue
            width = 1 if kind == 0 else 2
            min_len = 5 if kind == 0 else 3
            max_len = 12 if kind == 0 else 10
            if c[s] < width:
                kind += 1
                continue
            end = s
            while end <= ACE and c[end] >= width and end - s < max_len:
                end += 1
            if end - s < min_len:
                kind += 1
                continue
            for r in range(s, s + min_len - 1):
                c[r] -= width
            c[s + min_len - 1] -= width
            f_s[d] = s
            f_kind[d] = kind
            f_end[d] = end
            f_len[d] = min_len
            d += 1
            f_bst[d] = _base_cost(c)
            f_s[d] = s
            f_kind[d] = 0
            f_len[d] = -1
            pushed = True
            break
        if pushed:
            continue
        # frame d is done: its parent adds it, then tries the next length or moves on
        while True:
            result = f_bst[d]
            if d == 0:
                return result
            d -= 1
            s = f_s[d]
            kind = f_kind[d]
            width = 1 if kind == 0 else 2
            length = f_len[d]
            end = f_end[d]
            cost = result + _g(s + length - 1)
            if cost < f_bst[d]:
                f_bst[d] = cost
            if length + 1 <= end - s:
                length += 1
                c[s + length - 1] -= width
                f_len[d] = length
                d += 1
                f_bst[d] = _base_cost(c)
                f_s[d] = s
                f_kind[d] = 0
                f_len[d] = -1
                break
            for r in range(s, end):
                c[r] += width
            f_len[d] = -1
            f_kind[d] = kind + 1
            break


@njit(cache=True)
def _first_chain(c: np.ndarray, start: int) -> tuple[int, int, int]:  # pragma: no cover
    f_bst, f_s, f_kind, f_end, f_len = new_frames()
    bst = _base_cost(c)
    choice = (0, 0, 0)
    for s in range(start, ACE - 1):
        if c[s] == 0:
            continue
        for kind in range(2):
            width = 1 if kind == 0 else 2
            min_len = 5 if kind == 0 else 3
            max_len = 12 if kind == 0 else 10
            if c[s] < width:
                continue
            end = s
            while end <= ACE and c[end] >= width and end - s < max_len:
                end += 1
            if end - s < min_len:
                continue
            for r in range(s, s + min_len - 1):
                c[r] -= width
            for length in range(min_len, end - s + 1):
                c[s + length - 1] -= width
                cost = search(c, s, f_bst, f_s, f_kind, f_end, f_len) + _g(s + length - 1)
                if cost < bst:
                    bst = cost
                    choice = (s, width, length)
            for r in range(s, end):
                c[r] += width
    return choice


@njit(cache=True)
def _group(gk, gm, gc, ng, kind, main):  # pragma: no cover - compiled
    gk[ng] = kind
    gm[ng] = main
    return ng + 1


@njit(cache=True)
def plan_groups(hand, gk, gm, gs, gc):  # pragma: no cover - compiled
    """Groups of the best plan of ``hand`` (kind, main, size, counts rows); returns the count."""
    c = hand.copy()
    ng = 0
    for i in range(gc.shape[0]):
        for r in range(N_RANKS):
            gc[i, r] = 0
    start = 0
    while True:
        s, width, length = _first_chain(c, start)
        if width == 0:
            break
        for r in range(s, s + length):
            gc[ng, r] = width
            c[r] -= width
        ng = _group(gk, gm, gc, ng, STRAIGHT if width == 1 else PAIR_STRAIGHT, s + length - 1)
        start = s
    # base plan of the rest
    rocket = c[SMALL_JOKER] > 0 and c[BIG_JOKER] > 0
    if rocket:
        gc[ng, SMALL_JOKER] = 1
        gc[ng, BIG_JOKER] = 1
        ng = _group(gk, gm, gc, ng, ROCKET, BIG_JOKER)
    trios = np.empty(N_RANKS, np.int64)
    pairs = np.empty(N_RANKS, np.int64)
    singles = np.empty(N_RANKS, np.int64)
    nt = 0
    npr = 0
    ns = 0
    for r in range(TWO + 1):
        if c[r] == 3:
            trios[nt] = r
            nt += 1
        elif c[r] == 2:
            pairs[npr] = r
            npr += 1
        elif c[r] == 1:
            singles[ns] = r
            ns += 1
    if not rocket:
        for r in (SMALL_JOKER, BIG_JOKER):
            if c[r] > 0:
                singles[ns] = r
                ns += 1
    for r in range(TWO + 1):
        if c[r] == 4:
            gc[ng, r] = 4
            ng = _group(gk, gm, gc, ng, BOMB, r)
    n_free_s = 0
    for i in range(ns):
        if singles[i] <= KING:
            n_free_s += 1
    n_free_p = 0
    for i in range(npr):
        if pairs[i] <= KING:
            n_free_p += 1
    used_s = 0
    used_p = 0
    i = 0
    while i < nt:
        j = i + 1
        while j < nt and trios[j] <= ACE and trios[j] == trios[j - 1] + 1 and j - i < 5:
            j += 1
        n = j - i
        for k in range(i, j):
            gc[ng, trios[k]] = 3
        if n >= 2 and n_free_s - used_s >= n:
            for k in range(used_s, used_s + n):
                gc[ng, singles[k]] += 1
            used_s += n
            kind = PLANE_SINGLE
        elif n >= 2 and n_free_p - used_p >= n:
            for k in range(used_p, used_p + n):
                gc[ng, pairs[k]] = 2
            used_p += n
            kind = PLANE_PAIR
        elif n >= 2:
            kind = PLANE
        elif used_s < n_free_s:
            gc[ng, singles[used_s]] += 1
            used_s += 1
            kind = TRIO_SINGLE
        elif used_p < n_free_p:
            gc[ng, pairs[used_p]] = 2
            used_p += 1
            kind = TRIO_PAIR
        else:
            kind = TRIO
        ng = _group(gk, gm, gc, ng, kind, trios[j - 1])
        i = j
    for k in range(used_p, npr):
        gc[ng, pairs[k]] = 2
        ng = _group(gk, gm, gc, ng, PAIR, pairs[k])
    for k in range(used_s, ns):
        gc[ng, singles[k]] = 1
        ng = _group(gk, gm, gc, ng, SINGLE, singles[k])
    for i in range(ng):
        size = 0
        for r in range(N_RANKS):
            size += gc[i, r]
        gs[i] = size
    return ng


@njit(cache=True)
def group_cost(kind, main):  # pragma: no cover - compiled
    """Approximate plays a group costs: 1 for low groups, less for high ones, < 0 for bombs."""
    if kind == ROCKET:
        return _ROCKET_COST
    if kind == BOMB:
        return _BOMB_COST
    return _g(main)
