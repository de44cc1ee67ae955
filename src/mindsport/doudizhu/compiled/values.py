# mypy: allow-untyped-defs
"""AIVAT's action terms of the built-in bots, compiled: the value features of a position and,
for each decision of a bot whose move distribution is known, ``phi(s, a_played) -
sum_a pi(a | s) phi(s, a)``.

:func:`features` reads a whole position (every hand: the terms are computed after the game,
with all cards known) from the landlord's side; :data:`N_FEATURES` numbers, named in
:data:`FEATURE_NAMES`:

==  ==========================  ====================================================
 0  ``landlord_won``            the game is over and the landlord went out
 1  ``farmers_won``             the game is over and a farmer went out
 2  ``terminal_score``          over: ``+-(1 + bombs and rockets played)`` (linear rule)
 3  ``landlord_plan``           the strong bot's plan cost of the landlord's hand
 4  ``farmer_plan_min``         the lower plan cost of the two farmers
 5  ``farmer_plan_sum``         the two farmers' plan costs added
 6  ``landlord_cards``          cards left in the landlord's hand
 7  ``farmer_cards_min``        the fewer cards left in a farmer's hand
 8  ``landlord_holds``          the landlord made the play to beat (holds the lead)
 9  ``landlord_next``           the landlord moves next
10  ``bombs_played``            bombs and rockets played so far
11  ``landlord_bombs``          bombs (and the rocket) in the landlord's hand
12  ``farmer_bombs``            bombs (and the rocket) in the farmers' hands
13  ``plan_advantage``          ``farmer_plan_min - landlord_plan`` clipped to [-3, 3]
14  ``landlord_nearly_out``     the landlord's plan cost is at most 1
15  ``farmer_nearly_out``       a farmer's plan cost is at most 1
==  ==========================  ====================================================

Features 3 to 15 are zero once the game is over, features 0 to 2 zero before. A value
function is any linear combination of them; the cross-fitted regression of
:mod:`mindsport.games.compare.variates` chooses it.

:func:`decision_terms` replays recorded games and, for each decision of a seat whose policy is
known (``random``: uniform over the legal moves and the pass when allowed; ``level:N`` with
``N < 100``: that uniform choice with probability ``1 - N/100``, the strong bot's move
otherwise; :func:`~mindsport.doudizhu.compiled.bots.decide` draws exactly so), adds
``phi(after the played move) - E_pi[phi(after the move)]`` to the game's terms. The strong
bot's move is computed by the same kernel the bots play with. Deterministic bots (``greedy``,
``strong``, ``level:100``) add nothing: their term is zero.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mindsport.doudizhu.cards import BIG_JOKER, N_RANKS, SMALL_JOKER
from mindsport.doudizhu.compiled.bots import (
    BOT_STRONG,
    Turn,
    decide,
    decision_buffers,
    unseen_cards,
)
from mindsport.doudizhu.compiled.movegen import legal
from mindsport.doudizhu.compiled.planner import new_frames, search
from mindsport.doudizhu.compiled.policy import add_term, move_index, strong_share
from mindsport.doudizhu.kinds import BOMB, PASS

__all__ = [
    "FEATURE_NAMES",
    "N_FEATURES",
    "Seats",
    "Table",
    "decision_terms",
    "features",
]

FEATURE_NAMES: tuple[str, ...] = (
    "landlord_won",
    "farmers_won",
    "terminal_score",
    "landlord_plan",
    "farmer_plan_min",
    "farmer_plan_sum",
    "landlord_cards",
    "farmer_cards_min",
    "landlord_holds",
    "landlord_next",
    "bombs_played",
    "landlord_bombs",
    "farmer_bombs",
    "plan_advantage",
    "landlord_nearly_out",
    "farmer_nearly_out",
)
N_FEATURES = 16


@njit(cache=True)
def _bombs_held(hand):  # pragma: no cover - compiled
    n = 0
    for r in range(SMALL_JOKER):
        if hand[r] == 4:
            n += 1
    if hand[SMALL_JOKER] > 0 and hand[BIG_JOKER] > 0:
        n += 1
    return n


class Seats(NamedTuple):
    """What the features read of each seat's hand (arrays of 3, by seat)."""

    #: the strong bot's plan cost of the hand (float64)
    costs: np.ndarray
    #: cards left (int64)
    left: np.ndarray
    #: bombs (and the rocket) held (int64)
    held: np.ndarray


class Table(NamedTuple):
    """What the features read of the table (scalars)."""

    #: the seat that made the play to beat (-1: none)
    holder: int
    #: the seat to move
    nxt: int
    #: bombs and rockets played so far
    bombs: int
    #: the seat that went out (-1: the game goes on)
    winner: int


@njit(cache=True)
def features(seats, table, out):  # pragma: no cover - compiled
    """The features of a position (see the module) into ``out``: the hands' :class:`Seats`
    and the :class:`Table`."""
    costs, left, held = seats
    for k in range(N_FEATURES):
        out[k] = 0.0
    if table.winner >= 0:
        won = 1.0 if table.winner == 0 else 0.0
        out[0] = won
        out[1] = 1.0 - won
        out[2] = (2.0 * won - 1.0) * (1.0 + table.bombs)
        return
    lc = costs[0]
    fmin = min(costs[1], costs[2])
    out[3] = lc
    out[4] = fmin
    out[5] = costs[1] + costs[2]
    out[6] = left[0]
    out[7] = min(left[1], left[2])
    out[8] = 1.0 if table.holder == 0 else 0.0
    out[9] = 1.0 if table.nxt == 0 else 0.0
    out[10] = table.bombs
    out[11] = held[0]
    out[12] = held[1] + held[2]
    out[13] = max(-3.0, min(3.0, fmin - lc))
    out[14] = 1.0 if lc <= 1.0 else 0.0
    out[15] = 1.0 if fmin <= 1.0 else 0.0


@njit(cache=True)
def _after(seats, seat, hand, frames):  # pragma: no cover - compiled
    """Set ``seat``'s entries of ``seats`` for its ``hand`` (counts; the plan search works
    on it and restores it: pass a copy)."""
    t = 0
    for r in range(N_RANKS):
        t += hand[r]
    seats.left[seat] = t
    seats.held[seat] = _bombs_held(hand)
    f_bst, f_s, f_kind, f_end, f_len = frames
    seats.costs[seat] = search(hand, 0, f_bst, f_s, f_kind, f_end, f_len) if t > 0 else 0.0


@njit(cache=True)
def _child(seat, kind, move, hand, seats, before, work, frames, out):  # pragma: no cover
    """The features after ``seat`` plays ``move`` (counts) of ``kind`` (PASS: passes) from
    ``hand``, at a table ``before`` the move (its ``nxt`` is the seat moving: unused);
    ``work`` and ``frames`` are scratch."""
    nxt = (seat + 1) % 3
    if kind == PASS:
        features(seats, Table(before.holder, nxt, before.bombs, -1), out)
        return
    for r in range(N_RANKS):
        work[r] = hand[r] - move[r]
    c_old, l_old, h_old = seats.costs[seat], seats.left[seat], seats.held[seat]
    _after(seats, seat, work, frames)
    winner = seat if seats.left[seat] == 0 else -1
    bombs = before.bombs + (1 if kind >= BOMB else 0)
    features(seats, Table(seat, nxt, bombs, winner), out)
    seats.costs[seat], seats.left[seat], seats.held[seat] = c_old, l_old, h_old


@njit(cache=True)
def decision_terms(deals, rows, starts, codes, levels, terms, valued):  # pragma: no cover
    """Add the action terms of the decisions of seat ``s`` in game ``g`` to ``terms[g, s]``
    (``N_FEATURES`` each) and count them in ``valued[g, s]``.

    ``deals[g]`` (3 x 15 counts) is game ``g``'s deal, its turns are ``rows[starts[g] :
    starts[g + 1]]`` (seat, kind (-1: pass), main, 15 counts: the engine's record rows), and
    ``codes[g, seat]`` / ``levels[g, seat]`` the seat's bot (code < 0: its policy is unknown).
    """
    mc, mk, mm, ms = decision_buffers()
    sc, sk, sm, ss = decision_buffers()
    frames = new_frames()
    st = np.zeros(6, np.uint64)  # the strong bot draws nothing
    hands = np.zeros((3, N_RANKS), np.int64)
    unseen = np.zeros(N_RANKS, np.int64)
    work = np.zeros(N_RANKS, np.int64)
    move = np.zeros(N_RANKS, np.int64)
    strong_move = np.zeros(N_RANKS, np.int64)
    seats = Seats(np.zeros(3, np.float64), np.zeros(3, np.int64), np.zeros(3, np.int64))
    values = np.zeros((mc.shape[0] + 1, N_FEATURES), np.float64)  # legal moves, the pass
    for g in range(deals.shape[0]):
        for s in range(3):
            for r in range(N_RANKS):
                hands[s, r] = deals[g, s, r]
                work[r] = deals[g, s, r]
            _after(seats, s, work, frames)
        last_player = -1
        lk = -1
        lmain = -1
        lsize = 0
        bombs = 0
        for row in range(starts[g], starts[g + 1]):
            seat = rows[row, 0]
            kind = rows[row, 1]
            for r in range(N_RANKS):
                move[r] = rows[row, 3 + r] if kind != PASS else 0
            pk = -1 if (last_player == -1 or last_player == seat) else lk
            p = strong_share(codes[g, seat], levels[g, seat])
            if p >= 0.0:
                valued[g, seat] += 1
                hand = hands[seat]
                n = legal(hand, pk, lmain, lsize, mc, mk, mm, ms)
                before = Table(last_player, seat, bombs, -1)
                for i in range(n):
                    _child(seat, mk[i], mc[i], hand, seats, before, work, frames, values[i])
                if pk >= 0:
                    _child(seat, PASS, move, hand, seats, before, work, frames, values[n])
                best = -1  # the strong bot's move, when it may play it
                if p > 0.0:
                    unseen_cards(hands, seat, unseen)
                    turn = Turn(BOT_STRONG, 0, seat, pk, lmain, lsize, last_player)
                    skind, smain = decide(
                        turn, hand, unseen, seats.left, st, sc, sk, sm, ss, strong_move
                    )
                    best = move_index(skind, smain, strong_move, n, mk, mm, mc)
                i = move_index(kind, rows[row, 2], move, n, mk, mm, mc)
                add_term(values, n, pk >= 0, p, best, i, terms[g, seat])
            if kind != PASS:
                size = 0
                for r in range(N_RANKS):
                    hands[seat, r] -= move[r]
                    work[r] = hands[seat, r]
                    size += move[r]
                _after(seats, seat, work, frames)
                lk = kind
                lmain = rows[row, 2]
                lsize = size
                last_player = seat
                if kind >= BOMB:
                    bombs += 1
