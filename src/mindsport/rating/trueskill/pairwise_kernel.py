"""The pairwise TrueSkill of the mahjong article, compiled (numba): one game, and the replay.

:func:`pairwise_update` repeats TrueSkill's closed form for two teams
(:func:`mindsport.rating.trueskill.trueskill_kernel.two_teams`) pair by pair;
:class:`~mindsport.rating.trueskill.pairwise.PairwiseTrueSkill` calls it through
:func:`pairwise_game` for one game and :func:`replay_pairwise` for every match of a block, whose
predictions are TrueSkill's (:func:`~mindsport.rating.trueskill.replay_kernel.predict_pairs`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.compiled import margin_from_quantile, pair_outcome
from mindsport.rating.replay.block_kernel import block_sizes, load_match, team_pointers
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs
from mindsport.rating.trueskill.replay_kernel import predict_pairs, prediction_scratch
from mindsport.rating.trueskill.trueskill_kernel import Known, Slots, two_teams


@jit
def pairwise_update(ptr: np.ndarray, rank: np.ndarray, slots: Slots, model: Any) -> None:
    """The mahjong article's pairwise update of one game (team ``t`` holds the slots
    ``ptr[t]:ptr[t+1]`` and has the rank ``rank[t]``), in place on the slots' means
    (``slots.mu``, which is ``slots.out_mu``) and variances (``slots.out_sigma``): every decided
    pair of teams (ordered pairs, or each pair once), ``iterations`` times in sequence, gets
    TrueSkill's :func:`~.trueskill_kernel.two_teams` update of the current values, with the
    dynamics ``tau^2`` added before each (into ``slots.pv``, scratch). ``model``: the settings
    record (:data:`mindsport.rating.trueskill.pairwise.SETTINGS`)."""
    var = slots.out_sigma
    pv = slots.pv
    w = slots.w
    z, beta, tau = model.z, model.beta, model.tau
    iterations = model.iterations
    both = model.both_orders
    n = rank.shape[0]
    beta2 = beta * beta
    tau2 = tau * tau
    for _ in range(iterations):
        for i in range(n):
            for j in range(n):
                if i == j or (not both and j < i):
                    continue
                s = pair_outcome(rank[i], rank[j])
                if s is None:
                    continue
                a, b = (i, j) if s >= 0.5 else (j, i)
                size = 0
                for t in (a, b):
                    for q in range(ptr[t], ptr[t + 1]):
                        pv[q] = var[q] + tau2
                        if w[q] > 0.0:
                            size += 1
                e = margin_from_quantile(z, size, beta)
                _pair((ptr[a], ptr[a + 1], ptr[b], ptr[b + 1]), slots, e, s == 0.5, beta2)


@jit
def _pair(
    span: tuple[int, int, int, int], slots: Slots, e: float, tied: bool, beta2: float
) -> None:
    """One pairwise update: :func:`~.trueskill_kernel.two_teams` without offsets or margins (a
    call of its own: the loops of :func:`pairwise_update` stay small)."""
    two_teams(span, slots, e, tied, beta2, (0.0, math.nan, 1.0))


@jit
def pairwise_game(buf: np.ndarray, settings: np.ndarray, teams: int, n: int) -> None:
    """:func:`pairwise_update` for one game packed in ``buf``: team sizes, ranks, then the
    mu, sigma and weight of each player; the new mu and sigma overwrite the old. ``settings``:
    the model's settings, one record."""
    ptr = team_pointers(buf, teams)
    rank = buf[teams : 2 * teams]
    at = 2 * teams
    mu = buf[at : at + n]
    sigma = buf[at + n : at + 2 * n]
    var = sigma * sigma
    w = buf[at + 2 * n : at + 3 * n]
    slots = Slots(mu, np.empty(n), w, np.ones(n), mu, var)
    pairwise_update(ptr, rank, slots, settings[0])
    for s in range(n):
        sigma[s] = math.sqrt(var[s])


@jit
def replay_pairwise(
    table: np.ndarray,
    block: BlockArrays,
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """:func:`pairwise_update` for every match of a block, rows ``(mu, sigma)`` of ``table``
    carried forward; predictions as TrueSkill's
    (:func:`~mindsport.rating.trueskill.replay_kernel.predict_pairs`)."""
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    weights = block.weights
    ranks = block.ranks
    post = out.post
    model = settings[0]
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    rows = np.empty((max_slots, 2))
    smu = np.empty(max_slots)
    ssig = np.empty(max_slots)
    var = np.empty(max_slots)
    pv = np.empty(max_slots)
    scratch = prediction_scratch(max_teams)
    players_only = np.ones(max_slots)
    known = Known(np.zeros(max_teams), np.array([math.nan, 1.0]))  # no offsets, no margin
    sw = np.empty(max_slots)
    slots = Slots(smu, pv, sw, players_only, smu, var)
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        ns = load_match(t0, n, s0, player_ptr, players, table, ptr, rows)
        for q in range(ns):
            smu[q] = rows[q, 0]
            ssig[q] = rows[q, 1]
            var[q] = ssig[q] * ssig[q]
            sw[q] = weights[s0 + q]
        game = ptr[: n + 1]
        rank = ranks[t0 : t0 + n]
        if predict:
            k = predict_pairs(
                game, rank, known.offset, smu, ssig, players_only, model, scratch, out, k
            )
        pairwise_update(game, rank, slots, model)
        for q in range(ns):
            p = players[s0 + q]
            if weights[s0 + q] > 0.0:
                table[p, 0] = smu[q]
                table[p, 1] = math.sqrt(var[q])
            if keep:
                post[s0 + q, 0] = table[p, 0]
                post[s0 + q, 1] = table[p, 1]
    return -1
