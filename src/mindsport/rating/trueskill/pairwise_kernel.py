"""The pairwise TrueSkill of the mahjong article, compiled (numba): one game, and the replay.

:func:`pairwise_update` repeats TrueSkill's closed form for two teams
(:func:`mindsport.rating.trueskill.trueskill_kernel.two_teams`) pair by pair;
:class:`~mindsport.rating.trueskill.pairwise.PairwiseTrueSkill` calls it through
:func:`pairwise_game` for one game and :func:`replay_pairwise` for every match of a block, whose
predictions are TrueSkill's (:func:`~mindsport.rating.trueskill.replay_kernel.predict_pairs`).
"""

from __future__ import annotations

import math

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.compiled import margin_from_quantile, pair_outcome
from mindsport.rating.replay.block_kernel import block_sizes, load_match, team_pointers
from mindsport.rating.trueskill.replay_kernel import predict_pairs, prediction_scratch
from mindsport.rating.trueskill.trueskill_kernel import two_teams


@jit
def pairwise_update(
    ptr: np.ndarray,
    mu: np.ndarray,
    var: np.ndarray,
    w: np.ndarray,
    rank: np.ndarray,
    settings: np.ndarray,
    pv: np.ndarray,
) -> None:
    """The mahjong article's pairwise update of one game, in place on the slots' ``mu`` and variance
    ``var``: every decided pair of teams (ordered pairs, or each pair once), ``iterations``
    times in sequence, gets TrueSkill's :func:`two_teams` update of the current values, with
    the dynamics ``tau^2`` added before each. ``settings``: the quantile of the draw margin,
    beta, tau, iterations, both orders; ``pv``: scratch."""
    z, beta, tau = settings[0], settings[1], settings[2]
    iterations = int(settings[3])
    both = settings[4] != 0.0
    n = rank.shape[0]
    beta2 = beta * beta
    tau2 = tau * tau
    players_only = np.ones(pv.shape[0])
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
                two_teams(
                    ptr[a], ptr[a + 1], ptr[b], ptr[b + 1], mu, pv, w, e, s == 0.5, beta2, mu, var,
                    players_only, 0.0, math.nan, 1.0,
                )  # fmt: skip


@jit
def pairwise_game(buf: np.ndarray, settings: np.ndarray, teams: int, n: int) -> None:
    """:func:`pairwise_update` for one game packed in ``buf``: team sizes, ranks, then the
    mu, sigma and weight of each player; the new mu and sigma overwrite the old."""
    ptr = team_pointers(buf, teams)
    rank = buf[teams : 2 * teams]
    at = 2 * teams
    mu = buf[at : at + n]
    sigma = buf[at + n : at + 2 * n]
    var = sigma * sigma
    pairwise_update(ptr, mu, var, buf[at + 2 * n : at + 3 * n], rank, settings, np.empty(n))
    for s in range(n):
        sigma[s] = math.sqrt(var[s])


@jit
def replay_pairwise(
    table: np.ndarray,
    block: tuple[np.ndarray, ...],
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    results: tuple[np.ndarray, ...],
) -> int:
    """:func:`pairwise_update` for every match of a block, rows ``(mu, sigma)`` of ``table``
    carried forward; predictions as TrueSkill's (:func:`predict_pairs`)."""
    team_ptr, player_ptr, players, weights, ranks, _ = block
    post, pair_a, pair_b, prob, outcome = results
    z, beta, tau = settings[0], settings[1], settings[2]
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    rows = np.empty((max_slots, 2))
    smu = np.empty(max_slots)
    ssig = np.empty(max_slots)
    var = np.empty(max_slots)
    pv = np.empty(max_slots)
    team_mu, team_var, pairs = prediction_scratch(max_teams)
    players_only = np.ones(max_slots)
    no_offset = np.zeros(max_teams)
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
        rank = ranks[t0 : t0 + n]
        if predict:
            k = predict_pairs(
                ptr[: n + 1], rank, smu, ssig, z, beta, tau, team_mu, team_var, pairs,
                k, pair_a, pair_b, prob, outcome, players_only, no_offset,
            )  # fmt: skip
        pairwise_update(ptr[: n + 1], smu, var, weights[s0 : s0 + ns], rank, settings, pv)
        for q in range(ns):
            p = players[s0 + q]
            if weights[s0 + q] > 0.0:
                table[p, 0] = smu[q]
                table[p, 1] = math.sqrt(var[q])
            if keep:
                post[s0 + q, 0] = table[p, 0]
                post[s0 + q, 1] = table[p, 1]
    return -1
