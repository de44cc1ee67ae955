# mypy: allow-untyped-defs
"""AIVAT's action terms with value functions that play the game out, compiled.

:mod:`.values` values a position by a linear function of cheap features; here the value of the
position after a move is the mean result of ``k`` **playouts**: the game finished from there by
the very bots of the game (each seat's ``level:N``, ``random``, ``greedy`` or ``strong``, a seat
whose bot has no engine code by the strong bot), every card known, their random draws taken
from generators of their own. Two value functions, in the units of the comparison's
orientation (:class:`~mindsport.games.contract.DecisionTerms`: the landlord +1, each farmer
-1/2, so that a bot's side counts the game's value twice): half the landlord's win score (1/2
when he goes out first), and his score under the linear rule (``+-(1 + bombs and rockets
played)``), whose double is the margin.

**Common random numbers.** For each valued decision ``k`` generator states are derived from
the game's playout generator (:func:`_derive`), and every move of the decision (the legal
moves and the pass; the strong bot's move and the move played are among them and take their
values, :mod:`.policy`) is played out from the same ``k`` states: the values of two moves
differ by what the moves change, not by different luck after them. The playout generator is
keyed apart from the game's own (see :meth:`mindsport.doudizhu.game.DouDizhuGame.play_valued`),
so the values are independent of the move drawn at the decision, which keeps each term
``V(s, a_played) - E_pi V(s, .)`` at expectation zero given ``s`` (whatever the values are:
noisy or not, close to the truth or not); with many playouts the value approaches the expected
result of the game's own bots from that position, the value for which AIVAT's terms remove all
the variance of the bots' own draws.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mindsport.doudizhu.cards import N_RANKS
from mindsport.doudizhu.compiled.bots import (
    BOT_STRONG,
    Turn,
    decide,
    decision_buffers,
    unseen_cards,
)
from mindsport.doudizhu.compiled.movegen import legal
from mindsport.doudizhu.compiled.policy import add_term, move_index, strong_share
from mindsport.doudizhu.compiled.rng import next_uint64
from mindsport.doudizhu.kinds import BOMB, PASS

__all__ = ["N_VALUES", "playout_terms"]

#: the value functions: half the landlord's win score, his score under the linear rule
N_VALUES = 2
#: the longest playout (turns); a Dou Dizhu game has fewer than 200
_MAX_TURNS = 1000


class Play(NamedTuple):
    """The table before a move: the play to beat (made by seat ``last``, -1: none; its
    ``kind``, ``main`` rank and ``size``) and the bombs and rockets played so far."""

    last: int
    kind: int
    main: int
    size: int
    bombs: int


class Move(NamedTuple):
    """A move: its ``kind`` (PASS: a pass), ``main`` rank and card ``counts`` (15)."""

    kind: int
    main: int
    counts: np.ndarray


class Bots(NamedTuple):
    """The bots of a game's seats: engine ``codes`` (< 0: none, played out by the strong bot)
    and ``levels`` (3 each)."""

    codes: np.ndarray
    levels: np.ndarray


class Scratch(NamedTuple):
    """Working arrays: the hands after a move (``after``) and during a playout (``hands``),
    cards left, unseen cards, a move's counts, a move buffer, a generator state."""

    after: np.ndarray
    hands: np.ndarray
    left: np.ndarray
    unseen: np.ndarray
    out: np.ndarray
    mc: np.ndarray
    mk: np.ndarray
    mm: np.ndarray
    ms: np.ndarray
    st: np.ndarray


@njit(cache=True)
def _scratch():  # pragma: no cover - compiled
    mc, mk, mm, ms = decision_buffers()
    return Scratch(
        np.zeros((3, N_RANKS), np.int64),
        np.zeros((3, N_RANKS), np.int64),
        np.zeros(3, np.int64),
        np.zeros(N_RANKS, np.int64),
        np.zeros(N_RANKS, np.int64),
        mc,
        mk,
        mm,
        ms,
        np.zeros(6, np.uint64),
    )


@njit(cache=True)
def _derive(base, out):  # pragma: no cover - compiled
    """A fresh generator state in ``out`` (128-bit state, odd increment) drawn from the PCG64
    state ``base``: every such pair is a valid PCG64 generator, on its own stream."""
    out[0] = next_uint64(base)
    out[1] = next_uint64(base)
    out[2] = next_uint64(base)
    out[3] = next_uint64(base) | np.uint64(1)
    out[4] = 0
    out[5] = 0


@njit(cache=True)
def _play_out(nxt, play, bots, w):  # pragma: no cover - compiled
    """Finish the game from the hands ``w.after`` (not changed) with seat ``nxt`` to move at
    the table ``play`` (:class:`Play`), each seat played by its bot (:class:`Bots`) drawing on
    ``w.st``. Returns (the landlord went out, bombs and rockets played at the end)."""
    hands, left = w.hands, w.left
    last, lk, lmain, lsize, bombs = play
    for s in range(3):
        t = 0
        for r in range(N_RANKS):
            hands[s, r] = w.after[s, r]
            t += w.after[s, r]
        left[s] = t
        if t == 0:
            return s == 0, bombs
    seat = nxt
    for _ in range(_MAX_TURNS):
        pk = -1 if (last == -1 or last == seat) else lk
        code = bots.codes[seat] if bots.codes[seat] >= 0 else BOT_STRONG
        unseen_cards(hands, seat, w.unseen)
        turn = Turn(code, bots.levels[seat], seat, pk, lmain, lsize, last)
        kind, main = decide(turn, hands[seat], w.unseen, left, w.st, w.mc, w.mk, w.mm, w.ms, w.out)
        if kind != PASS:
            size = 0
            for r in range(N_RANKS):
                hands[seat, r] -= w.out[r]
                size += w.out[r]
            left[seat] -= size
            lk, lmain, lsize, last = kind, main, size, seat
            if kind >= BOMB:
                bombs += 1
            if left[seat] == 0:
                return seat == 0, bombs
        seat = (seat + 1) % 3
    raise RuntimeError("a playout did not end")


@njit(cache=True)
def _value(hands, seat, move, play, bots, states, w, out):  # pragma: no cover - compiled
    """The two values (:data:`N_VALUES`, into ``out``) of ``seat`` playing ``move``
    (:class:`Move`) from the ``hands`` (3 x 15) at the table ``play`` (:class:`Play`): the mean
    of one playout from each generator state of ``states`` (k x 6)."""
    for s in range(3):
        for r in range(N_RANKS):
            w.after[s, r] = hands[s, r]
    if move.kind != PASS:
        size = 0
        for r in range(N_RANKS):
            w.after[seat, r] -= move.counts[r]
            size += move.counts[r]
        bombs = play.bombs + (1 if move.kind >= BOMB else 0)
        play = Play(seat, move.kind, move.main, size, bombs)
    win = 0.0
    score = 0.0
    k = states.shape[0]
    for j in range(k):
        for q in range(6):
            w.st[q] = states[j, q]
        won, end_bombs = _play_out((seat + 1) % 3, play, bots, w)
        win += 1.0 if won else 0.0
        score += (1.0 if won else -1.0) * (1.0 + end_bombs)
    out[0] = 0.5 * win / k
    out[1] = score / k


@njit(cache=True)
def playout_terms(deals, rows, starts, bots, bases, k, terms, valued):  # pragma: no cover
    """Add the action terms of the decisions of seat ``s`` in game ``g`` to ``terms[g, s]``
    (:data:`N_VALUES` each, the landlord's side) and count them in ``valued[g, s]``, each value
    the mean of ``k`` playouts (see the module).

    The games as :func:`mindsport.doudizhu.compiled.values.decision_terms` takes them
    (``deals``, ``rows``, ``starts``); ``bots`` = (codes, levels), G x 3 each; ``bases[g]``:
    game ``g``'s playout generator state (6 words; drawn on)."""
    mc, mk, mm, ms = decision_buffers()
    sc, sk, sm, ss = decision_buffers()
    w = _scratch()
    hands = np.zeros((3, N_RANKS), np.int64)
    left = np.zeros(3, np.int64)
    unseen = np.zeros(N_RANKS, np.int64)
    played = np.zeros(N_RANKS, np.int64)
    strong = np.zeros(N_RANKS, np.int64)
    values = np.zeros((mc.shape[0] + 1, N_VALUES), np.float64)  # the legal moves, the pass
    states = np.zeros((k, 6), np.uint64)
    none = np.zeros(6, np.uint64)  # the strong bot draws nothing
    codes, levels = bots
    for g in range(deals.shape[0]):
        seats = Bots(codes[g], levels[g])
        for s in range(3):
            for r in range(N_RANKS):
                hands[s, r] = deals[g, s, r]
        play = Play(-1, -1, -1, 0, 0)
        for row in range(starts[g], starts[g + 1]):
            seat, kind, main = rows[row, 0], rows[row, 1], rows[row, 2]
            for r in range(N_RANKS):
                played[r] = rows[row, 3 + r] if kind != PASS else 0
            pk = -1 if (play.last == -1 or play.last == seat) else play.kind
            p = strong_share(codes[g, seat], levels[g, seat])
            if p >= 0.0:
                valued[g, seat] += 1
                for j in range(k):
                    _derive(bases[g], states[j])
                n = legal(hands[seat], pk, play.main, play.size, mc, mk, mm, ms)
                for i in range(n):  # the playouts and the strong bot use buffers of their own
                    _value(
                        hands, seat, Move(mk[i], mm[i], mc[i]), play, seats, states, w, values[i]
                    )
                if pk >= 0:
                    _value(hands, seat, Move(PASS, -1, played), play, seats, states, w, values[n])
                best = -1  # the strong bot's move, when it may play it
                if p > 0.0:
                    for s in range(3):
                        left[s] = 0
                        for r in range(N_RANKS):
                            left[s] += hands[s, r]
                    unseen_cards(hands, seat, unseen)
                    turn = Turn(BOT_STRONG, 0, seat, pk, play.main, play.size, play.last)
                    skind, smain = decide(
                        turn, hands[seat], unseen, left, none, sc, sk, sm, ss, strong
                    )
                    best = move_index(skind, smain, strong, n, mk, mm, mc)
                i = move_index(kind, main, played, n, mk, mm, mc)
                add_term(values, n, pk >= 0, p, best, i, terms[g, seat])
            if kind != PASS:
                size = 0
                for r in range(N_RANKS):
                    hands[seat, r] -= played[r]
                    size += played[r]
                play = Play(seat, kind, main, size, play.bombs + (1 if kind >= BOMB else 0))
