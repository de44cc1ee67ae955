# mypy: allow-untyped-defs
# ruff: noqa: SIM108  (numba kernels: plain loops and comparisons compile best)
"""The compiled game loop: deal (optional), play, outcome, and optionally every move.

:func:`run_games` plays a batch. Game ``g`` starts from the PCG64 state ``states[g]`` (the
state of the Python engine's ``np.random.Generator`` for that game); when ``deals`` is empty
the kernel deals from that state first exactly like :func:`mindsport.doudizhu.deal.deal`,
otherwise it plays ``deals[g]`` (3 x 15 counts). Then the bots draw on the same state as in
:func:`mindsport.doudizhu.game.play`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mindsport.doudizhu.cards import DECK_COUNTS, N_RANKS
from mindsport.doudizhu.compiled.bots import Turn, decide, decision_buffers, unseen_cards
from mindsport.doudizhu.compiled.rng import permutation
from mindsport.doudizhu.kinds import BOMB, PASS, ROCKET

__all__ = ["MAX_TURNS", "REC_WIDTH", "Games", "Played", "run_games"]

MAX_TURNS = 1000
#: A recorded turn: seat, kind (-1 pass), main, then the 15 counts.
REC_WIDTH = 3 + N_RANKS
_DECK = np.repeat(np.arange(N_RANKS), DECK_COUNTS).astype(np.int64)


class Games(NamedTuple):
    """A batch of ``G`` games to play (arrays, which numba passes as one typed tuple)."""

    #: G x 6 PCG64 states (uint64), one per game, advanced as the game draws
    states: np.ndarray
    #: G x 3 x 15 counts to play, or empty (0 x 3 x 15): deal from the state first
    deals: np.ndarray
    #: G x 3 bot codes per seat (:mod:`~mindsport.doudizhu.compiled.bots`)
    codes: np.ndarray
    #: G x 3 levels per seat (``level:N``)
    levels: np.ndarray
    #: the deck as ranks (54): :func:`deck`
    deck: np.ndarray


class Played(NamedTuple):
    """Where :func:`run_games` writes (an empty array: not wanted)."""

    #: G x 8: winner seat, bombs, rockets, spring, plays of seats 0, 1, 2, turns
    results: np.ndarray
    #: G x 3 x 15 receives the deals, or empty
    deals: np.ndarray
    #: turns appended here (seat, kind (-1 pass), main, 15 counts), or empty: no records
    rec: np.ndarray
    #: one int64: the rows of ``rec`` used
    rec_count: np.ndarray
    #: G: each game's number of turns (when recording)
    game_turns: np.ndarray


@njit(cache=True)
def _deal(st, deck, hands):  # pragma: no cover - compiled
    order = permutation(st, 54)
    for s in range(3):
        for r in range(N_RANKS):
            hands[s, r] = 0
    for i in range(51):
        hands[i % 3, deck[order[i]]] += 1
    for i in range(51, 54):
        hands[0, deck[order[i]]] += 1


@njit(cache=True)
def run_games(games, played):  # pragma: no cover - compiled
    """Play games 0.. of ``games`` (:class:`Games`) into ``played`` (:class:`Played`); returns
    how many were played. When recording, the batch stops early (returning fewer games) when
    the next game might not fit in ``played.rec``."""
    states, deals, codes, levels, deck = games
    results, out_deals, rec, rec_count, game_turns = played
    mc, mk, mm, ms = decision_buffers()
    out = np.zeros(N_RANKS, np.int64)
    unseen = np.zeros(N_RANKS, np.int64)
    hands = np.zeros((3, N_RANKS), np.int64)
    left = np.zeros(3, np.int64)
    plays = np.zeros(3, np.int64)
    recording = rec.shape[0] > 0
    dealing = deals.shape[0] == 0
    n_games = states.shape[0]
    for g in range(n_games):
        if recording and rec_count[0] + MAX_TURNS > rec.shape[0] and g > 0:
            return g
        st = states[g]
        if dealing:
            _deal(st, deck, hands)
        else:
            for s in range(3):
                for r in range(N_RANKS):
                    hands[s, r] = deals[g, s, r]
        if out_deals.shape[0] > 0:
            for s in range(3):
                for r in range(N_RANKS):
                    out_deals[g, s, r] = hands[s, r]
        for s in range(3):
            t = 0
            for r in range(N_RANKS):
                t += hands[s, r]
            left[s] = t
            plays[s] = 0
        current = 0
        last_player = -1
        lk = -1
        lmain = -1
        lsize = 0
        bombs = 0
        rockets = 0
        winner = -1
        turns = 0
        while winner < 0 and turns < MAX_TURNS:
            seat = current
            if last_player == -1 or last_player == seat:
                pk = -1
            else:
                pk = lk
            unseen_cards(hands, seat, unseen)
            turn = Turn(codes[g, seat], levels[g, seat], seat, pk, lmain, lsize, last_player)
            kind, main = decide(turn, hands[seat], unseen, left, st, mc, mk, mm, ms, out)
            if recording:
                row = rec_count[0]
                rec[row, 0] = seat
                rec[row, 1] = kind
                rec[row, 2] = main
                for r in range(N_RANKS):
                    rec[row, 3 + r] = out[r] if kind != PASS else 0
                rec_count[0] = row + 1
            turns += 1
            if kind != PASS:
                size = 0
                for r in range(N_RANKS):
                    hands[seat, r] -= out[r]
                    size += out[r]
                left[seat] -= size
                lk = kind
                lmain = main
                lsize = size
                last_player = seat
                plays[seat] += 1
                if kind == BOMB:
                    bombs += 1
                elif kind == ROCKET:
                    rockets += 1
                if left[seat] == 0:
                    winner = seat
                    break
            current = (seat + 1) % 3
        if winner < 0:
            raise ValueError("a game did not end in MAX_TURNS turns")
        if winner == 0:
            spring = plays[1] == 0 and plays[2] == 0
        else:
            spring = plays[0] == 1
        results[g, 0] = winner
        results[g, 1] = bombs
        results[g, 2] = rockets
        results[g, 3] = 1 if spring else 0
        results[g, 4] = plays[0]
        results[g, 5] = plays[1]
        results[g, 6] = plays[2]
        results[g, 7] = turns
        if recording:
            game_turns[g] = turns
    return n_games


def deck() -> np.ndarray:
    """The deck as ranks (54), in the order :func:`mindsport.doudizhu.deal.deal` indexes it."""
    return _DECK
