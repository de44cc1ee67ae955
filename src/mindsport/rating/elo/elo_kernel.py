"""Elo's update of one game, compiled (numba), and the replay of many.

:func:`elo_update` is the one update of a game on the game's player slots; :meth:`Elo.rate
<mindsport.rating.elo.model.Elo.rate>` calls it through :func:`elo_game` for one game and
:func:`replay_elo` for every match of a block, carrying each player's state row ``(rating, games,
reached 2400)`` in a table (:class:`~mindsport.rating.elo.model.EloReplayer`) and computing the
pre-game predictions from the same formulas ``win_probability`` uses
(:mod:`mindsport.rating.elo.formulas`, compiled as written).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindsport._jit.compiling import compile_functions, jit
from mindsport.rating.compiled import pair_outcome
from mindsport.rating.elo import formulas
from mindsport.rating.replay.block_kernel import block_sizes, load_match, store_slots, team_pointers
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs

#: Elo's formulas, compiled
F = compile_functions(formulas)
fide_k = F.fide_k
logistic10 = F.logistic10


@jit
def _elo_strength(s0: int, s1: int, rating: np.ndarray, w: np.ndarray, team_sum: bool) -> float:
    total = 0.0
    sw = 0.0
    plain = 0.0
    for s in range(s0, s1):
        total += w[s] * rating[s]
        sw += w[s]
        plain += rating[s]
    if team_sum:
        return total
    if sw > 0:
        return total / sw
    return plain / (s1 - s0)


@jit
def elo_update(
    ptr: np.ndarray,
    state: np.ndarray,
    w: np.ndarray,
    rank: np.ndarray,
    kvals: np.ndarray,
    model: Any,
    strength: np.ndarray,
    out: np.ndarray,
) -> None:
    """Elo's update of one game (:class:`mindsport.rating.Elo`): team ``t`` holds the slots
    ``ptr[t]:ptr[t+1]`` of ``state`` (rating, games, reached 2400) and ``w``; ``out`` receives
    the new state of every slot (unchanged for weight 0 or a team compared with nobody).
    ``model``: the settings record (:data:`mindsport.rating.elo.model.SETTINGS`); ``kvals``:
    each slot's K in K mode 2 (a schedule the kernel does not know)."""
    n = rank.shape[0]
    team_sum = model.team_sum
    scale = model.scale
    k_mode = model.k_mode
    rating = state[:, 0]
    for t in range(n):
        strength[t] = _elo_strength(ptr[t], ptr[t + 1], rating, w, team_sum)
    for t in range(n):
        diff = 0.0
        count = 0
        for u in range(n):
            if u == t:
                continue
            sc = pair_outcome(rank[t], rank[u])
            if sc is None:
                continue
            diff += sc - logistic10((strength[t] - strength[u]) / scale)
            count += 1
        if not model.multi_sum and count:
            diff /= count
        for s in range(ptr[t], ptr[t + 1]):
            out[s, 0] = state[s, 0]
            out[s, 1] = state[s, 1]
            out[s, 2] = state[s, 2]
            ws = w[s]
            if count == 0 or ws == 0:
                continue
            r = state[s, 0]
            if k_mode == 0:
                k = model.k
            elif k_mode == 1:
                k = fide_k(
                    state[s, 1], state[s, 2] != 0.0, r, model.new_k, model.new_games,
                    model.regular_k, model.top_k, model.threshold,
                )  # fmt: skip
            else:
                k = kvals[s]
            nr = r + k * ws * diff
            out[s, 0] = nr
            out[s, 1] = state[s, 1] + 1.0
            out[s, 2] = 1.0 if (state[s, 2] != 0.0 or nr >= 2400) else 0.0


@jit
def elo_game(buf: np.ndarray, settings: np.ndarray, teams: int, n: int) -> None:
    """:func:`elo_update` for one game packed in ``buf``: team sizes (``teams``), ranks
    (``teams``), then per player rating, games, reached, weight and K (used in K mode 2); the
    new rating, games and reached overwrite the old. ``settings``: the model's, one record."""
    ptr = team_pointers(buf, teams)
    rank = buf[teams : 2 * teams]
    at = 2 * teams
    state = np.empty((n, 3))
    for s in range(n):
        for c in range(3):
            state[s, c] = buf[at + c * n + s]
    w = buf[at + 3 * n : at + 4 * n]
    kvals = buf[at + 4 * n : at + 5 * n]
    out = np.empty((n, 3))
    elo_update(ptr, state, w, rank, kvals, settings[0], np.empty(teams), out)
    for s in range(n):
        for c in range(3):
            buf[at + c * n + s] = out[s, c]


@jit
def replay_elo(
    table: np.ndarray,
    block: BlockArrays,
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """:func:`elo_update` for every match of a block, rows ``(rating, games, reached)`` of
    ``table`` carried forward; predictions: ``win_probability`` of the unweighted strengths."""
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    weights = block.weights
    ranks = block.ranks
    model = settings[0]
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_slots, 3))
    new = np.empty((max_slots, 3))
    ones = np.ones(max_slots)
    strength = np.empty(max_teams)
    scale = model.scale
    team_sum = model.team_sum
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        ns = load_match(t0, n, s0, player_ptr, players, table, ptr, state)
        rank = ranks[t0 : t0 + n]
        if predict:
            for t in range(n):
                strength[t] = _elo_strength(ptr[t], ptr[t + 1], state[:, 0], ones, team_sum)
            for a in range(n):
                for b in range(a + 1, n):
                    o = pair_outcome(rank[a], rank[b])
                    if o is not None:
                        out.pair_a[k] = a
                        out.pair_b[k] = b
                        out.prob[k] = logistic10((strength[a] - strength[b]) / scale)
                        out.outcome[k] = o
                        k += 1
        elo_update(ptr[: n + 1], state, weights[s0 : s0 + ns], rank, ones, model, strength, new)
        store_slots(table, players, s0, ns, new, keep, out.post)
    return -1
