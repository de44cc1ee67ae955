"""Tenhou R's update of one table, compiled (numba), and the replay of many.

:func:`tenhou_update` is the one update of a table; :meth:`TenhouRating.rate
<mindsport.rating.tenhou.model.TenhouRating.rate>` calls it through :func:`tenhou_game` for one
table and :func:`replay_tenhou` for every match of a block, carrying each player's state row
``(rating, games)`` (:class:`~mindsport.rating.tenhou.model.TenhouReplayer`). The formulas are
those of :mod:`mindsport.rating.tenhou.formulas`, compiled as written; the predictions are Elo's
logistic curve (:func:`mindsport.rating.elo.formulas.logistic10`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindsport._jit.compiling import compile_functions, jit
from mindsport.rating.compiled import pair_outcome
from mindsport.rating.elo.elo_kernel import logistic10
from mindsport.rating.replay.block_kernel import block_sizes, load_match, store_slots
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs
from mindsport.rating.tenhou import formulas

#: Tenhou R's formulas, compiled
F = compile_functions(formulas)
tenhou_adjustment = F.tenhou_adjustment
tenhou_change = F.tenhou_change


@jit
def place_span(rank: np.ndarray, t: int) -> tuple[int, int]:
    """Where team ``t`` finished at a table of ``rank``: the number of teams ahead of it and
    the number tied with it (itself included); it covers places ``ahead + 1 .. ahead + tied``."""
    rt = rank[t]
    ahead = 0
    tied = 0
    for u in range(rank.shape[0]):
        if rank[u] < rt:
            ahead += 1
        elif rank[u] == rt:
            tied += 1
    return ahead, tied


@jit
def logistic_pairs(
    position: np.ndarray, rank: np.ndarray, scale: float, out: Outputs, k: int
) -> int:
    """The pairwise predictions of a table of single players from one number each
    (``position``): Elo's logistic curve of the difference over ``scale``, with the observed
    outcome of the pair; written to ``out`` from row ``k``; returns the next row."""
    n = rank.shape[0]
    for a in range(n):
        for b in range(a + 1, n):
            out.pair_a[k] = a
            out.pair_b[k] = b
            out.prob[k] = logistic10((position[a] - position[b]) / scale)
            o = pair_outcome(rank[a], rank[b])
            out.outcome[k] = 0.5 if o is None else o
            k += 1
    return k


@jit
def unpack_table(buf: np.ndarray, n: int) -> np.ndarray:
    """The state rows ``(value, count)`` of a table packed in ``buf`` as ranks, values, counts
    (``n`` each): what the one-table calls of the placement ladders hand over."""
    state = np.empty((n, 2))
    for s in range(n):
        state[s, 0] = buf[n + s]
        state[s, 1] = buf[2 * n + s]
    return state


@jit
def pack_table(buf: np.ndarray, out: np.ndarray, n: int) -> None:
    """The new state rows ``out`` written over the old in ``buf`` (see :func:`unpack_table`)."""
    for s in range(n):
        buf[n + s] = out[s, 0]
        buf[2 * n + s] = out[s, 1]


@jit
def tenhou_update(
    state: np.ndarray,
    rank: np.ndarray,
    bonus: np.ndarray,
    model: Any,
    out: np.ndarray,
) -> None:
    """Tenhou R's update of one table (:class:`mindsport.rating.TenhouRating`): one player per
    team, all ranked; ``state`` rows (rating, games); ``bonus[n, place]`` the placement bonus of
    1-based ``place`` at a table of ``n``; ``model``: the settings record
    (:data:`mindsport.rating.tenhou.model.SETTINGS`: divisor, adjustment games, step, floor).
    Tied places share the mean bonus of the places they cover."""
    n = rank.shape[0]
    divisor = model.divisor
    adjust_games = model.adjust_games
    step = model.adjust_step
    floor = model.adjust_floor
    total = 0.0
    for t in range(n):
        total += state[t, 0]
    avg = total / n
    for t in range(n):
        ahead, tied = place_span(rank, t)
        b = 0.0
        for j in range(1, tied + 1):
            b += bonus[n, ahead + j]
        b = b / tied
        adj = tenhou_adjustment(state[t, 1], adjust_games, step, floor)
        own = state[t, 0]
        out[t, 0] = own + tenhou_change(own, avg, b, adj, divisor)
        out[t, 1] = state[t, 1] + 1.0


@jit
def tenhou_game(buf: np.ndarray, bonus: np.ndarray, settings: np.ndarray, n: int) -> None:
    """:func:`tenhou_update` for one table packed in ``buf``: ranks, ratings, games (``n``
    each); the new ratings and games overwrite the old. ``settings``: the model's, one record."""
    out = np.empty((n, 2))
    tenhou_update(unpack_table(buf, n), buf[:n], bonus, settings[0], out)
    pack_table(buf, out, n)


@jit
def replay_tenhou(
    table: np.ndarray,
    block: BlockArrays,
    settings: Any,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """:func:`tenhou_update` for every match of a block (one player per team); predictions:
    the logistic ``win_probability`` of :class:`~mindsport.rating.TenhouRating`.
    ``settings``: the model's settings record and its bonus table
    (:class:`~mindsport.rating.tenhou.model.TenhouSettings`)."""
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    ranks = block.ranks
    model = settings.record[0]
    bonus = settings.bonus
    prob_scale = model.prob_scale
    n_matches = team_ptr.shape[0] - 1
    max_teams, _ = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_teams, 2))
    new = np.empty((max_teams, 2))
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        load_match(t0, n, s0, player_ptr, players, table, ptr, state)
        rank = ranks[t0 : t0 + n]
        if predict:
            k = logistic_pairs(state[:n, 0], rank, prob_scale, out, k)
        tenhou_update(state[:n], rank, bonus, model, new)
        store_slots(table, players, s0, n, new, keep, out.post)
    return -1
