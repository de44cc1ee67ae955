# mypy: allow-untyped-defs
"""The move distribution of the built-in bots whose policy is known, and AIVAT's action term
of one decision under it, compiled.

``random`` plays uniformly over the legal moves and the pass when it may pass; ``level:N``
with ``N < 100`` plays that uniform choice with probability ``1 - N/100`` and the strong bot's
move otherwise (:func:`~mindsport.doudizhu.compiled.bots.decide` draws exactly so). Given the
values of every move of a decision, the term of the move played is ``V(s, a_played) -
sum_a pi(a | s) V(s, a)`` (:func:`add_term`). The value functions differ
(:mod:`.values`: linear features; :mod:`.playouts`: the game played out); both value the legal
moves and the pass once each, and the strong bot's move and the move played, each one of them,
take its values (:func:`move_index`).
"""

from __future__ import annotations

from numba import njit

from mindsport.doudizhu.cards import N_RANKS
from mindsport.doudizhu.compiled.bots import BOT_LEVEL, BOT_RANDOM
from mindsport.doudizhu.kinds import PASS

__all__ = ["add_term", "move_index", "strong_share"]


@njit(cache=True)
def strong_share(code, level):  # pragma: no cover - compiled
    """The probability that bot ``code`` / ``level`` plays the strong bot's move, or -1 when
    its policy is not a known random one (deterministic, or unknown: ``code < 0``)."""
    if code == BOT_RANDOM:
        return 0.0
    if code == BOT_LEVEL and 0 <= level < 100:
        return level / 100.0
    return -1.0


@njit(cache=True)
def move_index(kind, main, counts, n, kinds, mains, moves):  # pragma: no cover - compiled
    """The index of the move (``kind``, ``main``, 15 ``counts``) among the ``n`` legal moves
    (``kinds``, ``mains``, ``moves`` (n x 15)); ``n`` for the pass. Every move a bot plays is
    legal, so it is found."""
    if kind == PASS:
        return n
    for i in range(n):
        if kinds[i] == kind and mains[i] == main:
            same = True
            for r in range(N_RANKS):
                if moves[i, r] != counts[r]:
                    same = False
                    break
            if same:
                return i
    raise RuntimeError("a move played is not among the legal moves")


@njit(cache=True)
def add_term(values, n, may_pass, p, strong, played, out):  # pragma: no cover - compiled
    """Add ``values[played] - E_pi[values]`` to ``out``: ``values`` (rows 0..n-1: the ``n``
    legal moves, row ``n``: the pass, valued when ``may_pass``), ``p`` the strong share
    (:func:`strong_share`, >= 0), ``strong`` the row of the strong bot's move (read when
    ``p > 0``), ``played`` the row of the move played."""
    uniform = (1.0 - p) / (n + (1 if may_pass else 0))
    for q in range(out.shape[0]):
        expect = 0.0
        for i in range(n):
            expect += uniform * values[i, q]
        if may_pass:
            expect += uniform * values[n, q]
        if p > 0.0:
            expect += p * values[strong, q]
        out[q] += values[played, q] - expect
