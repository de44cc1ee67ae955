"""Numba kernel of :mod:`mindsport.doudizhu.bots.plan`: the best plan's cost, no groups.

Same algorithm as :class:`~mindsport.doudizhu.bots.plan.Planner` (chains of singles and pairs
searched exhaustively with non-decreasing start ranks, then bombs, rocket, planes and trios with
their lowest kickers up to a king, pairs and singles), written over a count array so the strong
bot can score every candidate answer in microseconds. The tests check both agree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["best_chains", "best_cost", "costs_after"]

_SMALL_JOKER = 13
_BIG_JOKER = 14
_TWO = 12
_ACE = 11
_KING = 10


@njit(cache=False)
def _g(main: int) -> float:
    return 1.0 - 0.07 * max(0, main - 7)


@njit(cache=False)
def _base_cost(c: np.ndarray) -> float:  # pragma: no cover - compiled
    cost = 0.0
    fs = np.empty(16, np.int64)
    fp = np.empty(16, np.int64)
    nfs = 0
    nfp = 0
    if c[_SMALL_JOKER] > 0 and c[_BIG_JOKER] > 0:
        cost -= 0.4
    else:
        if c[_SMALL_JOKER] > 0:
            cost += _g(_SMALL_JOKER)
        if c[_BIG_JOKER] > 0:
            cost += _g(_BIG_JOKER)
    for r in range(_TWO + 1):
        n = c[r]
        if n == 4:
            cost -= 0.3
        elif n == 2:
            cost += _g(r)
            if r <= _KING:
                fp[nfp] = r
                nfp += 1
        elif n == 1:
            cost += _g(r)
            if r <= _KING:
                fs[nfs] = r
                nfs += 1
    i_s = 0
    i_p = 0
    r = 0
    while r <= _TWO:
        if c[r] != 3:
            r += 1
            continue
        n = 1
        if r <= _ACE:
            while r + n <= _ACE and c[r + n] == 3 and n < 5:
                n += 1
        end = r + n - 1
        cost += _g(end)
        if n >= 2:
            if nfs - i_s >= n:
                for k in range(n):
                    cost -= _g(fs[i_s + k])
                i_s += n
            elif nfp - i_p >= n:
                for k in range(n):
                    cost -= _g(fp[i_p + k])
                i_p += n
        elif i_s < nfs:
            cost -= _g(fs[i_s])
            i_s += 1
        elif i_p < nfp:
            cost -= _g(fp[i_p])
            i_p += 1
        r = end + 1
    return cost


@njit(cache=False)
def _best(c: np.ndarray, start: int) -> float:  # pragma: no cover - compiled
    best = _base_cost(c)
    for s in range(start, _ACE - 1):
        if c[s] == 0:
            continue
        for kind in range(2):
            width = 1 if kind == 0 else 2
            min_len = 5 if kind == 0 else 3
            max_len = 12 if kind == 0 else 10
            if c[s] < width:
                continue
            end = s
            while end <= _ACE and c[end] >= width and end - s < max_len:
                end += 1
            if end - s < min_len:
                continue
            for r in range(s, s + min_len - 1):
                c[r] -= width
            for length in range(min_len, end - s + 1):
                c[s + length - 1] -= width
                cost = _best(c, s) + _g(s + length - 1)
                if cost < best:
                    best = cost
            for r in range(s, end):
                c[r] += width
    return best


def best_cost(counts: np.ndarray) -> float:
    """Cost of the best plan of a hand (int64 count array of length 15; left unchanged)."""
    return float(_best(counts.copy(), 0))


@njit(cache=False)
def _first_chain(c: np.ndarray, start: int) -> tuple[int, int, int]:  # pragma: no cover
    """The first chain (start, width, length) of a best plan; width 0 when it has none."""
    best = _base_cost(c)
    choice = (0, 0, 0)
    for s in range(start, _ACE - 1):
        if c[s] == 0:
            continue
        for kind in range(2):
            width = 1 if kind == 0 else 2
            min_len = 5 if kind == 0 else 3
            max_len = 12 if kind == 0 else 10
            if c[s] < width:
                continue
            end = s
            while end <= _ACE and c[end] >= width and end - s < max_len:
                end += 1
            if end - s < min_len:
                continue
            for r in range(s, s + min_len - 1):
                c[r] -= width
            for length in range(min_len, end - s + 1):
                c[s + length - 1] -= width
                cost = _best(c, s) + _g(s + length - 1)
                if cost < best:
                    best = cost
                    choice = (s, width, length)
            for r in range(s, end):
                c[r] += width
    return choice


def best_chains(counts: np.ndarray) -> list[tuple[int, int, int]]:
    """The chains ``(start rank, width 1 or 2, length)`` of the best plan, in search order."""
    c = counts.copy()
    out: list[tuple[int, int, int]] = []
    start = 0
    while True:
        s, width, length = _first_chain(c, start)
        if width == 0:
            return out
        out.append((int(s), int(width), int(length)))
        c[s : s + length] -= width
        start = s


@njit(cache=False)
def _costs_after(hand: np.ndarray, moves: np.ndarray) -> np.ndarray:  # pragma: no cover
    out = np.empty(moves.shape[0] + 1)
    c = hand.copy()
    out[0] = _best(c, 0)
    for i in range(moves.shape[0]):
        for r in range(c.shape[0]):
            c[r] = hand[r] - moves[i, r]
        out[i + 1] = _best(c, 0)
    return out


def costs_after(hand: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """Best-plan cost of ``hand`` (entry 0) and of ``hand - moves[i]`` (entry i + 1)."""
    return _costs_after(hand, moves)
