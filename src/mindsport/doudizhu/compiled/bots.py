# mypy: allow-untyped-defs

"""The bots, compiled: random, greedy, strong and ``level:N``, deciding over count arrays.

Each mirrors its Python class move for move (same candidate order, same tie-breaking, same
floating-point scores) and draws on the game's PCG64 state exactly as the Python bot draws on
its ``np.random.Generator``: ``random`` one ``integers(n)`` per decision (none when ``n == 1``),
``level:N`` with ``0 < N < 100`` one ``random()`` first, then ``integers(n)`` when it plays at
random; ``greedy`` and ``strong`` draw nothing.

The game kernel (:func:`~mindsport.doudizhu.compiled.engine.run_games`) dispatches on the bot
code: the strong bot's lead (:func:`_lead`, no legal-move list needed), else the legal moves
and :func:`_greedy`, :func:`_respond` (strong) or a uniform draw (random).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mindsport.doudizhu.compiled.movegen import (
    BOMB,
    N_KINDS,
    N_RANKS,
    PAIR,
    SINGLE,
    can_beat,
    reading,
)
from mindsport.doudizhu.compiled.planner import best, plan_groups

__all__ = ["BOT_GREEDY", "BOT_LEVEL", "BOT_RANDOM", "BOT_STRONG"]

BOT_RANDOM, BOT_GREEDY, BOT_STRONG, BOT_LEVEL = 0, 1, 2, 3
MAX_GROUPS = 24

_PASS_MARGIN = 0.4
_URGENT_PASS = 5.0
_BOMB_PENALTY = 0.8
_ONE_MOVE_GROUPS = 5
_NEARLY_OUT = 1.6


@njit(cache=True)
def _take(mc, i, out):  # pragma: no cover - compiled
    for r in range(N_RANKS):
        out[r] = mc[i, r]


@njit(cache=True)
def _greedy(n, mk, mm, ms):  # pragma: no cover - compiled
    """Index of the lowest main rank (most cards on ties), bombs last; first on ties."""
    bi = 0
    for i in range(1, n):
        b_i = 1 if mk[i] >= BOMB else 0
        b_b = 1 if mk[bi] >= BOMB else 0
        if b_i < b_b or (b_i == b_b and (mm[i] < mm[bi] or (mm[i] == mm[bi] and ms[i] > ms[bi]))):
            bi = i
    return bi


@njit(cache=True)
def _danger(seat, left):  # pragma: no cover - compiled
    return min(left[1], left[2]) if seat == 0 else left[0]


@njit(cache=True)
def _unseen(hands, seat):  # pragma: no cover - compiled
    u = np.zeros(N_RANKS, np.int64)
    for s in range(3):
        if s != seat:
            for r in range(N_RANKS):
                u[r] += hands[s, r]
    return u


@njit(cache=True)
def _lead(seat, hands, left, mc, mk, mm, ms, gk, gm, gs, gc, out):  # pragma: no cover
    hand = hands[seat]
    ng = plan_groups(hand, gk, gm, gs, gc)
    if ng == 1:
        _take(gc, 0, out)
        return gk[0], gm[0]
    if ng <= _ONE_MOVE_GROUPS and hand.max() >= 3:
        for kind in range(N_KINDS):  # moves_of_cards(hand)[0]
            main = reading(hand, kind, mc, mk, mm, ms)
            if main >= 0:
                for r in range(N_RANKS):
                    out[r] = hand[r]
                return kind, main
    # (a plan's plane_single takes distinct single kickers, so its highest reading is its own
    # main rank: no main to correct, unlike the Python bot that re-reads it)
    danger = _danger(seat, left)
    if seat != 0 and left[3 - seat] == 1:
        bi = -1
        for i in range(ng):
            if gk[i] == SINGLE and (bi < 0 or gm[i] < gm[bi]):
                bi = i
        if bi >= 0:
            _take(gc, bi, out)
            return gk[bi], gm[bi]
    if ng <= 3 or danger <= 2:
        unseen = _unseen(hands, seat)
        nsafe = 0
        bi = -1
        for i in range(ng):
            if gk[i] >= BOMB or can_beat(unseen, gk[i], gm[i], gs[i]):
                continue
            nsafe += 1
            if bi < 0 or gs[i] > gs[bi] or (gs[i] == gs[bi] and gm[i] > gm[bi]):
                bi = i
        if nsafe > 0 and ng - nsafe <= 1:
            _take(gc, bi, out)
            return gk[bi], gm[bi]
    any_normal = False
    for i in range(ng):
        if gk[i] < BOMB:
            any_normal = True
            break
    bi = -1  # options: min (main, -size)
    for i in range(ng):
        if any_normal and gk[i] >= BOMB:
            continue
        if (danger == 1 and gk[i] == SINGLE) or (danger == 2 and gk[i] == PAIR):
            continue
        if bi < 0 or gm[i] < gm[bi] or (gm[i] == gm[bi] and gs[i] > gs[bi]):
            bi = i
    if bi < 0:
        for i in range(ng):
            if any_normal and gk[i] >= BOMB:
                continue
            if danger == 1:  # only singles left: the highest first
                if bi < 0 or gm[i] > gm[bi]:
                    bi = i
            elif bi < 0 or gm[i] < gm[bi] or (gm[i] == gm[bi] and gs[i] > gs[bi]):
                bi = i
    _take(gc, bi, out)
    return gk[bi], gm[bi]


@njit(cache=True)
def _respond(seat, hands, left, pk, n, pplayer, mc, mk, mm, ms):  # pragma: no cover - compiled
    """StrongBot's answer among the n legal moves (index, -1: pass)."""
    hand = hands[seat]
    if n == 0:
        return -1
    size = left[seat]
    for i in range(n):
        if ms[i] == size:
            return i
    if seat != 0 and pplayer == 3 - seat:
        return -1
    danger = _danger(seat, left)
    if (danger == 1 and pk == SINGLE) or (danger <= 2 and pk == PAIR):
        last_same = -1
        bi = -1
        unseen = _unseen(hands, seat)
        for i in range(n):
            if mk[i] != pk:
                continue
            last_same = i
            if not can_beat(unseen, mk[i], mm[i], ms[i]) and (bi < 0 or mm[i] < mm[bi]):
                bi = i
        if last_same >= 0:
            return bi if bi >= 0 else last_same
    urgent = danger <= 2 or left[pplayer] <= 2
    c = hand.copy()
    before = best(c, 0)
    bi = -1
    best_score = _URGENT_PASS if urgent else _PASS_MARGIN
    for i in range(n):
        for r in range(N_RANKS):
            c[r] = hand[r] - mc[i, r]
        after = best(c, 0)
        score = after - before
        if mk[i] >= BOMB and not urgent and after > _NEARLY_OUT:
            score += _BOMB_PENALTY
        if urgent:
            score -= 0.01 * mm[i]
        if score < best_score:
            bi = i
            best_score = score
    return bi
