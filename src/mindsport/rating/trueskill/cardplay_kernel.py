"""Compiled replay of the role- and luck-aware TrueSkill (numba).

:func:`replay_cardplay` rates a block of matches in order with TrueSkill's one update
(:func:`mindsport.rating.trueskill.trueskill_kernel.update_match`): each team's players (rows of the
players' table) are joined by the team's *virtual players* (rows of a second table: a role's
advantage, a duplicate deal's luck), which add skill but no performance noise and no dynamics, and
each team's performance is shifted by a known offset (a deal's expected result); a two-team match
may carry its observed score margin, a match of more teams its teams' scores (the differences of
teams adjacent in the finishing order observed). Predictions are TrueSkill's
(:func:`predict_pairs`) with the virtual players and the offsets included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.replay.block_kernel import block_sizes
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs
from mindsport.rating.trueskill.replay_kernel import (
    predict_pairs,
    prediction_scratch,
    prior_variance,
)
from mindsport.rating.trueskill.seats_kernel import add_sides, side_teams
from mindsport.rating.trueskill.trueskill_kernel import (
    Known,
    Slots,
    rules_of,
    update_match,
    workspace,
)


@jit
def replay_cardplay(
    table: np.ndarray,
    block: BlockArrays,
    vtable: np.ndarray,
    virtual: Any,
    seats: np.ndarray,
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """Rate matches ``0..n-1`` of ``block`` in order, players' rows ``(mu, sigma, last time)``
    of ``table`` and virtual players' rows ``(mu, sigma)`` of ``vtable`` updated in place.

    ``virtual`` (:class:`~mindsport.rating.trueskill.cardplay.VirtualArrays`): team ``t`` of
    the block is joined by the virtual players ``virtual.players[virtual.ptr[t]:virtual.ptr[t +
    1]]`` (rows of ``vtable``) and its performance is shifted by ``virtual.offset[t]``;
    ``virtual.margin[i] = (y, s2)`` is match ``i``'s observed performance difference of team 0
    over team 1 (NaN ``y``: none), ``virtual.score[t]`` team ``t``'s score on the performance
    scale in a match of more teams (NaN: none). ``settings``, ``predict``, ``keep``, ``out``
    and the return value as for :func:`mindsport.rating.trueskill.replay_kernel.replay_trueskill`.
    """
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    weights = block.weights
    ranks = block.ranks
    times = block.times
    vptr = virtual.ptr
    vplayers = virtual.players
    offset = virtual.offset
    margin = virtual.margin
    vside = virtual.side
    vrole = virtual.role
    post = out.post
    model = settings[0]
    tau, drift, sigma0 = model.tau, model.drift, model.sigma0
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    max_virtual = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        t1 = team_ptr[i + 1]
        nv = vptr[t1] - vptr[t0]
        if nv > max_virtual:
            max_virtual = nv
    width = max_slots + max_virtual
    work = workspace(max_teams)
    ptr = np.empty(max_teams + 1, np.int64)
    smu = np.empty(width)
    ssig = np.empty(width)
    pv = np.empty(width)
    sw = np.empty(width)
    noise = np.empty(width)
    src = np.empty(width, np.int64)  # >= 0: a player's row; < 0: virtual row -1 - src
    is_role = np.zeros(width, np.bool_)
    sides = side_teams(max_teams)
    out_mu = np.empty(width)
    out_sigma = np.empty(width)
    scratch = prediction_scratch(max_teams)
    # this match's offsets, margin and (more teams) scores
    known = Known(np.empty(max_teams), np.empty(2 + max_teams))
    score = virtual.score
    slots = Slots(smu, pv, sw, noise, out_mu, out_sigma)
    rules = rules_of(settings)
    tau2 = tau * tau
    with_time = post.shape[1] > 2
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        now = times[i]
        q = 0
        with_sides = False
        for t in range(n):
            ptr[t] = q
            sides.side[t] = vside[t0 + t]
            if vside[t0 + t] >= 0:
                with_sides = True
            known.offset[t] = offset[t0 + t]
            known.margin[2 + t] = score[t0 + t]
            for s in range(player_ptr[t0 + t], player_ptr[t0 + t + 1]):
                p = players[s]
                smu[q] = table[p, 0]
                ssig[q] = table[p, 1]
                sw[q] = weights[s]
                noise[q] = 1.0
                src[q] = p
                is_role[q] = False
                pv[q] = prior_variance(ssig[q], table[p, 2], now, drift, sigma0, tau2)
                q += 1
            for v in range(vptr[t0 + t], vptr[t0 + t + 1]):
                r = vplayers[v]
                smu[q] = vtable[r, 0]
                ssig[q] = vtable[r, 1]
                sw[q] = 1.0
                noise[q] = 0.0
                src[q] = -1 - r
                is_role[q] = vrole[v] != 0
                pv[q] = ssig[q] * ssig[q]
                q += 1
        ptr[n] = q
        if with_sides:
            _side_terms(ptr[: n + 1], known.offset, smu, pv, noise, is_role, sides, model.beta)
            add_sides(ranks[t0 : t0 + n], sides, seats, model.z, model.beta)
        for s in range(q):
            out_mu[s] = smu[s]
            out_sigma[s] = ssig[s]
        known.margin[0] = margin[i, 0]
        known.margin[1] = margin[i, 1]
        game = ptr[: n + 1]
        rank = ranks[t0 : t0 + n]
        if predict:
            k = predict_pairs(game, rank, known.offset, smu, ssig, noise, model, scratch, out, k)
        if not update_match(game, rank, known, slots, rules, work):
            return i
        for s in range(q):
            p = src[s]
            if p < 0:
                vtable[-1 - p, 0] = out_mu[s]
                vtable[-1 - p, 1] = out_sigma[s]
                continue
            if sw[s] > 0.0:
                table[p, 0] = out_mu[s]
                table[p, 1] = out_sigma[s]
                table[p, 2] = now
        if keep:
            for s in range(player_ptr[t0], player_ptr[t0 + n]):
                p = players[s]
                post[s, 0] = table[p, 0]
                post[s, 1] = table[p, 1]
                if with_time:
                    post[s, 2] = table[p, 2]
    return -1


@jit
def _side_terms(
    ptr: np.ndarray,
    offset: np.ndarray,
    mu: np.ndarray,
    pv: np.ndarray,
    noise: np.ndarray,
    is_role: np.ndarray,
    sides: Any,
    beta: float,
) -> None:
    """Fill ``sides`` (:class:`.seats_kernel.SideTeams`) for one match laid out in slots
    (team ``t``: ``ptr[t]:ptr[t+1]``): players (``noise`` 1) centred on the table's mean
    rating, roles (``is_role``) as the side's value, deal sides as known offsets with their
    variance."""
    n = ptr.shape[0] - 1
    total = 0.0
    count = 0
    for s in range(ptr[n]):
        if noise[s] > 0.0:
            total += mu[s]
            count += 1
    mean = total / count if count > 0 else 0.0
    beta2 = beta * beta
    for t in range(n):
        rated = 0.0
        known = offset[t]
        lin = 0.0
        var = 0.0
        size = 0
        for s in range(ptr[t], ptr[t + 1]):
            if noise[s] > 0.0:
                rated += mu[s] - mean
                var += pv[s] + noise[s] * beta2
                size += 1
            elif is_role[s]:
                lin += mu[s]
            else:
                known += mu[s]
                var += pv[s]
        sides.rated[t] = rated
        sides.level[t] = size * mean
        sides.known[t] = known
        sides.lin[t] = lin
        sides.var[t] = var
        sides.size[t] = size
