# mypy: allow-untyped-defs

"""The built-in bots, compiled: random, greedy, strong and ``level:N``, deciding over counts.

One decision kernel, :func:`decide`, serves both the compiled game loop
(:func:`~mindsport.doudizhu.compiled.engine.run_games`) and the Python bot classes of
:mod:`mindsport.doudizhu.bots` (through :func:`decide_one`), so a bot plays the same move
whichever loop asks it. A bot sees only its seat's knowledge: its hand, the cards it has not
seen (the two other hands together), the cards left per seat and the play to beat.

Random draws come from the game's PCG64 state (:mod:`.rng`): ``random`` draws one
``integers(n)`` per decision (none when ``n == 1``), ``level:N`` with ``0 < N < 100`` one
``random()`` first, then ``integers(n)`` when it plays at random; ``greedy`` and ``strong``
draw nothing.

The strong bot (plan-based heuristic):

* Go out at once when the whole hand is one legal move.
* Leading: when at most one group of the plan is not unbeatable (no combination of the unseen
  cards beats it; checked with three groups or fewer left, or an opponent nearly out), play the
  biggest unbeatable group first and keep the lead to the end. Otherwise lead the plan's
  lowest group (more cards on ties), bombs last; when an opponent has one card, do not lead a
  single unless nothing else is left (then the highest single); with two cards left, avoid
  pairs likewise. A farmer whose partner has one card left leads his lowest single.
* Responding: to the partner's play, pass (unless going out). To an opponent's play, score
  every legal answer by how much it raises the plan cost of the remaining hand; bombs cost
  extra unless the game is urgent or the hand is nearly out; play the best answer when it does
  not break the plan too much. When the opponent who played (or, for the landlord, any farmer)
  holds one or two cards, passing is heavily penalised and bigger answers are preferred; a
  single (pair) when an opponent has one (two) cards left is answered with the smallest
  single (pair) that no unseen card can beat, else the biggest: a farmer with one or two cards
  is not let go out cheaply.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mindsport.doudizhu.cards import N_RANKS
from mindsport.doudizhu.compiled.movegen import MAX_MOVES, MoveBuffer, can_beat, legal, reading
from mindsport.doudizhu.compiled.planner import new_frames, plan_groups, search
from mindsport.doudizhu.compiled.rng import bounded, next_double
from mindsport.doudizhu.kinds import BOMB, N_KINDS, PAIR, PASS, SINGLE

__all__ = [
    "BOT_GREEDY",
    "BOT_LEVEL",
    "BOT_RANDOM",
    "BOT_STRONG",
    "MAX_GROUPS",
    "Turn",
    "decide",
    "decide_one",
    "decision_buffers",
    "unseen_cards",
]

BOT_RANDOM, BOT_GREEDY, BOT_STRONG, BOT_LEVEL = 0, 1, 2, 3
MAX_GROUPS = 24

_PASS_MARGIN = 0.4  # play an answer whose plan-cost change is below this
_URGENT_PASS = 5.0  # pass score when an opponent is about to go out
_BOMB_PENALTY = 0.8
_ONE_MOVE_GROUPS = 5  # a hand that is one move splits into at most this many plan groups
_NEARLY_OUT = 1.6  # plan cost of a hand that goes out in about two plays


@njit(cache=True)
def unseen_cards(hands, seat, unseen):  # pragma: no cover - compiled
    """The cards ``seat`` has not seen (the two other hands of ``hands``, 3 x 15) into
    ``unseen``."""
    for r in range(N_RANKS):
        unseen[r] = 0
    for other in range(3):
        if other != seat:
            for r in range(N_RANKS):
                unseen[r] += hands[other, r]


class Turn(NamedTuple):
    """Who decides and what is to beat (scalars only, so numba passes it for free): the bot's
    kernel ``code`` and ``level`` (``level:N``), the ``seat``, and the play to beat: its kind
    ``pk`` (< 0: the seat leads), main rank ``lmain`` and size ``lsize``, made by seat
    ``pplayer``."""

    code: int
    level: int
    seat: int
    pk: int
    lmain: int
    lsize: int
    pplayer: int


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
    """Fewest cards held by an opponent."""
    return min(left[1], left[2]) if seat == 0 else left[0]


@njit(cache=True)
def _plan_buffer():  # pragma: no cover - compiled
    """A plan buffer (kind, main, size, counts per group)."""
    return (
        np.zeros(MAX_GROUPS, np.int64),
        np.zeros(MAX_GROUPS, np.int64),
        np.zeros(MAX_GROUPS, np.int64),
        np.zeros((MAX_GROUPS, N_RANKS), np.int64),
    )


@njit(cache=True)
def _lead(turn, hand, unseen, left, mc, mk, mm, ms, out):  # pragma: no cover - compiled
    seat = turn.seat
    gk, gm, gs, gc = _plan_buffer()
    ng = plan_groups(hand, gk, gm, gs, gc)
    if ng == 1:
        _take(gc, 0, out)
        return gk[0], gm[0]
    if ng <= _ONE_MOVE_GROUPS and hand.max() >= 3:
        # the whole hand may still be one move with kickers (e.g. a four with two)
        for kind in range(N_KINDS):
            main = reading(hand, kind, mc, mk, mm, ms)
            if main >= 0:
                for r in range(N_RANKS):
                    out[r] = hand[r]
                return kind, main
    # (a plan's plane_single takes distinct single kickers, so its highest reading is its own
    # main rank)
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
def _respond(turn, hand, unseen, left, n, mc, mk, mm, ms):  # pragma: no cover - compiled
    """The strong bot's answer among the n legal moves (index, -1: pass)."""
    seat, pk, pplayer = turn.seat, turn.pk, turn.pplayer
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
        for i in range(n):
            if mk[i] != pk:
                continue
            last_same = i
            if not can_beat(unseen, mk[i], mm[i], ms[i]) and (bi < 0 or mm[i] < mm[bi]):
                bi = i
        if last_same >= 0:
            return bi if bi >= 0 else last_same
    urgent = danger <= 2 or left[pplayer] <= 2
    c = np.empty(N_RANKS, np.int64)
    for r in range(N_RANKS):
        c[r] = hand[r]
    f_bst, f_s, f_kind, f_end, f_len = new_frames()
    before = search(c, 0, f_bst, f_s, f_kind, f_end, f_len)
    bi = -1
    best_score = _URGENT_PASS if urgent else _PASS_MARGIN
    for i in range(n):
        for r in range(N_RANKS):
            c[r] = hand[r] - mc[i, r]
        after = search(c, 0, f_bst, f_s, f_kind, f_end, f_len)
        score = after - before
        if mk[i] >= BOMB and not urgent and after > _NEARLY_OUT:
            score += _BOMB_PENALTY
        if urgent:
            score -= 0.01 * mm[i]
        if score < best_score:
            bi = i
            best_score = score
    return bi


@njit(cache=True)
def decide(turn, hand, unseen, left, st, mc, mk, mm, ms, out):  # pragma: no cover - compiled
    """One decision of bot ``turn.code`` (``turn.level`` for ``level:N``) in ``turn.seat``
    (:class:`Turn`), drawing on the PCG64 state ``st``: returns the kind
    (:data:`~mindsport.doudizhu.kinds.PASS` to pass) and main rank; ``out`` gets the counts.

    ``turn.pk < 0``: the seat leads; else it answers the play (kind ``pk``, main ``lmain``,
    size ``lsize``) made by seat ``pplayer``. ``hand``, ``unseen`` (the two other hands
    together) and ``left`` (cards per seat) are what the seat knows; ``mc .. ms`` is a move
    buffer (:class:`~mindsport.doudizhu.compiled.movegen.MoveBuffer`).
    """
    code, level, pk = turn.code, turn.level, turn.pk
    strong = code == BOT_STRONG
    if code == BOT_LEVEL:
        strong = level >= 100 or (level > 0 and next_double(st) * 100 < level)
    if strong and pk < 0:
        return _lead(turn, hand, unseen, left, mc, mk, mm, ms, out)
    n = legal(hand, pk, turn.lmain, turn.lsize, mc, mk, mm, ms)
    if code == BOT_GREEDY:
        i = _greedy(n, mk, mm, ms) if n > 0 else -1
    elif strong:
        i = _respond(turn, hand, unseen, left, n, mc, mk, mm, ms)
    else:  # random: uniform over the moves and (when allowed) the pass
        i = bounded(st, n + (0 if pk < 0 else 1))
        if i >= n:
            i = -1
    if i < 0:
        return PASS, -1
    _take(mc, i, out)
    return mk[i], mm[i]


@njit(cache=True)
def decision_buffers():  # pragma: no cover - compiled
    """The move buffer :func:`decide` works in (counts, kind, main, size)."""
    return MoveBuffer(
        np.zeros((MAX_MOVES, N_RANKS), np.int64),
        np.zeros(MAX_MOVES, np.int64),
        np.zeros(MAX_MOVES, np.int64),
        np.zeros(MAX_MOVES, np.int64),
    )


@njit(cache=True)
def decide_one(turn, hand, unseen, left, st, out):  # pragma: no cover - compiled
    """:func:`decide` with its own buffers (one decision asked from Python)."""
    mc, mk, mm, ms = decision_buffers()
    return decide(turn, hand, unseen, left, st, mc, mk, mm, ms, out)
