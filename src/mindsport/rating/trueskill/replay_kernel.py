"""TrueSkill's replay of many matches, compiled (numba).

:func:`replay_trueskill` rates every match of a block (CSR layout,
:class:`mindsport.rating.replay.blocks.MatchBlock`: no Python object per match, no allocation per
match) with TrueSkill's one update (:mod:`mindsport.rating.trueskill.trueskill_kernel`), each
match's pre-game predictions first (:func:`predict_pairs`). A game of two single players playing
fully takes the closed form of two teams written for that shape
(:func:`~mindsport.rating.trueskill.trueskill_kernel.duel`); the replay lays out up to
:data:`LANES` consecutive games of three or more teams that share no player and rates them side
by side (:func:`~mindsport.rating.trueskill.trueskill_kernel.sweep_lanes`), then writes them back
in match order (:func:`_flush`). The card-play and pairwise replays predict with
:func:`predict_pairs` too.

The scalar maths (normal distribution, truncated moments, drift, draw margin, predictions) are
the plain functions of :mod:`mindsport.rating.gaussian`, :mod:`mindsport.rating.truncation`,
:mod:`mindsport.rating.formulas` and :mod:`mindsport.match`, compiled as written
(:mod:`mindsport.rating.compiled`).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from mindsport._jit import lanes as simd
from mindsport._jit.compiling import inline, jit
from mindsport._jit.lanes import PART, WIDTH, load, part_zeros, zeros
from mindsport.rating.compiled import (
    ahead_given,
    drifted_sigma,
    margin_from_quantile,
    norm_cdf,
    pair_outcome,
    win_loss,
)
from mindsport.rating.replay.block_kernel import block_sizes
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs
from mindsport.rating.trueskill.trueskill_kernel import (
    Known,
    Slots,
    Workspace,
    duel,
    finish_game,
    lane_settled,
    rules_of,
    setup_game,
    skill_after,
    sweep_lanes,
    workspace,
)


class PredictionScratch(NamedTuple):
    """The scratch of :func:`predict_pairs` (:func:`prediction_scratch`)."""

    #: each team's performance mean and variance
    team_mu: np.ndarray
    team_var: np.ndarray
    #: the decided pairs laid out for lanes: difference, its variance, draw margin
    pairs: np.ndarray


@jit
def predict_pairs(
    ptr: np.ndarray,
    rank: np.ndarray,
    offset: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    noise: np.ndarray,
    model: Any,
    scratch: PredictionScratch,
    out: Outputs,
    k: int,
) -> int:
    """Pre-game predictions of every decided pair ``a < b`` of one match (team ``t`` holds the
    slots ``ptr[t]:ptr[t+1]`` of ``mu``/``sigma`` and has the rank ``rank[t]``), written to
    ``out`` from position ``k`` on: ``P(a ahead of b)`` with the draw taken out (and the
    probability of a draw, ``out.draw``), under
    TrueSkill's performance model (every player counts fully; ``noise`` and the teams' known
    ``offset`` as in :class:`~.trueskill_kernel.Slots` and :class:`~.trueskill_kernel.Known`: a
    virtual player, noise 0, adds its skill and its uncertainty but neither noise nor dynamics).
    ``model``: the settings record (its ``z``, ``beta`` and ``tau``). Returns the next
    position."""
    team_mu = scratch.team_mu
    team_var = scratch.team_var
    pairs = scratch.pairs
    z = model.z
    beta = model.beta
    tau = model.tau
    n = rank.shape[0]
    beta2 = beta * beta
    tau2 = tau * tau
    for t in range(n):
        m_ = offset[t]
        v_ = 0.0
        for s in range(ptr[t], ptr[t + 1]):
            m_ += mu[s]
            if noise[s] > 0.0:
                v_ += sigma[s] * sigma[s] + tau2 + noise[s] * beta2
            else:
                v_ += sigma[s] * sigma[s]
        team_mu[t] = m_
        team_var[t] = v_
    # the decided pairs, PART at a time: their two tail probabilities on lanes
    filled = 0
    for a in range(n):
        for b in range(a + 1, n):
            o = pair_outcome(rank[a], rank[b])
            if o is None:
                continue
            size = 0
            for s in range(ptr[a], ptr[a + 1]):
                if noise[s] > 0.0:
                    size += 1
            for s in range(ptr[b], ptr[b + 1]):
                if noise[s] > 0.0:
                    size += 1
            pairs[0, 0, filled] = team_mu[a] - team_mu[b]
            pairs[0, 1, filled] = team_var[a] + team_var[b]
            pairs[0, 2, filled] = margin_from_quantile(z, size, beta)
            out.pair_a[k] = a
            out.pair_b[k] = b
            out.outcome[k] = o
            k += 1
            filled += 1
            if filled == PART:
                _ahead(pairs, filled, out.prob, out.draw, k)
                filled = 0
    if filled > 0:
        _ahead(pairs, filled, out.prob, out.draw, k)
    return k


@inline
def _ahead(pairs: np.ndarray, filled: int, prob: np.ndarray, draw: np.ndarray, k: int) -> None:
    """``prob[k - filled + q]`` for the pairs ``q < filled`` laid out in ``pairs`` (difference,
    its variance, draw margin): :func:`ahead_probability` with the tails on lanes (the lanes
    beyond ``filled`` hold stale values, computed and dropped); ``draw[...]`` the probability
    of a draw (:func:`draw_given`)."""
    proto = part_zeros()
    c = math.sqrt(load(proto, pairs, 0, 1, 0))
    win, loss = win_loss(load(proto, pairs, 0, 0, 0), c, load(proto, pairs, 0, 2, 0))
    for q in range(filled):
        w = simd.lane(win, q)
        lo = simd.lane(loss, q)
        prob[k - filled + q] = ahead_given(w, lo)
        draw[k - filled + q] = draw_given(w, lo)


@inline
def draw_given(win: float, loss: float) -> float:
    """The probability of a draw from the two tails of :func:`win_loss` (never negative)."""
    d = 1.0 - win - loss
    return d if d > 0.0 else 0.0


@jit
def prediction_scratch(max_teams: int) -> PredictionScratch:
    """The scratch of :func:`predict_pairs` for games of up to ``max_teams`` teams."""
    pairs = np.ones((1, 3, PART))  # finite values in the lanes no pair has filled yet
    return PredictionScratch(np.empty(max_teams), np.empty(max_teams), pairs)


@inline
def prior_variance(
    sigma: float, last: float, now: float, drift: float, sigma0: float, tau2: float
) -> float:
    """A player's variance before a match at ``now``: drift since ``last`` (NaN: never played)
    and the dynamics ``tau2``."""
    elapsed = 0.0
    if drift > 0.0 and not math.isnan(last):
        elapsed = now - last
    sg = drifted_sigma(sigma, elapsed, drift, sigma0)
    return sg * sg + tau2


#: games of more than two players that the replay rates side by side, one per lane of a vector
#: (see :func:`~.trueskill_kernel.sweep_lanes` and :mod:`mindsport._jit.lanes`)
LANES = WIDTH


class LaneGames(NamedTuple):
    """The games waiting in the lanes of :func:`replay_trueskill`: lane ``L``'s slots are
    ``L * max_slots + 0, 1, ...`` of each array of ``slots``; its team pointers, ``ptr[L]``,
    count from there."""

    #: team pointers per lane
    ptr: np.ndarray
    #: the match in each lane
    match: np.ndarray
    slots: Slots
    #: no known offsets, no observed margin
    known: Known


@inline
def _slot(p: int, waiting: np.ndarray) -> int:
    """The slot of player ``p`` in the open-addressing set ``waiting`` (empty slots hold -1; the
    size is a power of two): where ``p`` is, or the empty slot where it would go."""
    mask = waiting.shape[0] - 1
    h = (p * 2654435761) & mask  # Knuth's multiplicative hash
    while waiting[h] != -1 and waiting[h] != p:
        h = (h + 1) & mask
    return h


@inline
def _shares_player(s0: int, ns: int, players: np.ndarray, waiting: np.ndarray) -> bool:
    """Whether the slots ``s0:s0+ns`` name a player of a match waiting in a lane (the players of
    those matches are the set ``waiting``)."""
    for q in range(s0, s0 + ns):
        p = players[q]
        if waiting[_slot(p, waiting)] == p:
            return True
    return False


@jit
def _flush(
    pending: int,
    lanes: LaneGames,
    block: BlockArrays,
    table: np.ndarray,
    settings: np.ndarray,
    work: Workspace,
    keep: bool,
    post: np.ndarray,
) -> int:
    """Rate the ``pending`` matches laid out in the lanes (:func:`sweep_lanes` over all of them),
    then write each one's players back to ``table`` (and ``post`` with ``keep``) in match
    order. Returns -1, or the index of the first match that did not converge (the matches
    before it are written, the others not)."""
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    times = block.times
    slots = lanes.slots
    lane_ptr = lanes.ptr
    lane_match = lanes.match
    known = lanes.known
    sw = slots.w
    out_mu = slots.out_mu
    out_sigma = slots.out_sigma
    rules = rules_of(settings)
    width = sw.shape[0] // lane_ptr.shape[0]
    if pending <= PART:  # one vector of the library: each lane's numbers are the same
        sweep_lanes(part_zeros(), pending, rules, work)
    else:
        sweep_lanes(zeros(), pending, rules, work)
    with_time = post.shape[1] > 2
    for lane in range(pending):
        i = lane_match[lane]
        if not lane_settled(work.iw, lane):
            return i
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        ns = player_ptr[t0 + n] - s0
        now = times[i]
        finish_game(lane, lane_ptr[lane, : n + 1], known, slots, rules, work)
        o = lane * width
        for q in range(ns):
            p = players[s0 + q]
            if sw[o + q] > 0.0:
                table[p, 0] = out_mu[o + q]
                table[p, 1] = out_sigma[o + q]
                table[p, 2] = now
            if keep:
                post[s0 + q, 0] = table[p, 0]
                post[s0 + q, 1] = table[p, 1]
                if with_time:
                    post[s0 + q, 2] = table[p, 2]
    return -1


@jit
def replay_trueskill(
    table: np.ndarray,
    block: BlockArrays,
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """Rate the block's matches in order with :func:`~.trueskill_kernel.update_match`, updating
    the players' rows ``(mu, sigma, last time)`` of ``table`` in place (last time NaN: not seen
    yet; it moves only when the player plays with a positive weight). ``settings``: the model's
    settings record (:data:`mindsport.rating.trueskill.model.SETTINGS`).

    With ``keep`` the post-game row of every slot goes to ``out.post`` (mu, sigma, and the time
    when ``post`` has a third column); with ``predict`` the pre-game prediction of every decided
    pair goes to ``out.pair_a``/``pair_b`` (team indices within the match), ``prob``,
    ``outcome`` (positions from :func:`~mindsport.rating.replay.block_kernel.count_pairs`).
    Returns -1, or the index of the first match that did not converge.

    A game of two single players playing fully takes the closed form of two teams
    (:func:`~.trueskill_kernel.duel` and :func:`~.trueskill_kernel.skill_after`) on the players'
    rows, its prediction's tail reused. Larger games wait in lanes (see the module docstring)
    until :data:`LANES` of them are laid out, the next game shares a player with one of them or
    is a lean one, or the block ends.
    """
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    weights = block.weights
    ranks = block.ranks
    times = block.times
    post = out.post
    model = settings[0]
    z = model.z
    beta = model.beta
    tau = model.tau
    drift = model.drift
    sigma0 = model.sigma0
    sigma_floor = model.sigma_floor
    rules = rules_of(settings)
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    work = workspace(max_teams, LANES)
    smu = np.empty(LANES * max_slots)
    ssig = np.empty(LANES * max_slots)
    pv = np.empty(LANES * max_slots)
    sw = np.empty(LANES * max_slots)
    out_mu = np.empty(LANES * max_slots)
    out_sigma = np.empty(LANES * max_slots)
    scratch = prediction_scratch(max_teams)
    players_only = np.ones(LANES * max_slots)
    lanes = LaneGames(
        np.empty((LANES, max_teams + 1), np.int64),
        np.empty(LANES, np.int64),
        Slots(smu, pv, sw, players_only, out_mu, out_sigma),
        Known(np.zeros(max_teams), np.array([math.nan, 1.0])),
    )
    lane_ptr = lanes.ptr
    lane_match = lanes.match
    lane_slots = lanes.slots
    known = lanes.known
    pair_a = out.pair_a
    pair_b = out.pair_b
    prob = out.prob
    outcome = out.outcome
    draw = out.draw
    pending = 0  # matches laid out in the lanes, not yet rated
    # the players of the matches in the lanes: a set with room for twice as many as they hold
    room = 16
    while room < 2 * LANES * max_slots:
        room *= 2
    waiting = np.full(room, -1, np.int64)
    workspace_sink = np.empty(1)
    tau2 = tau * tau
    beta2 = beta * beta
    e2 = margin_from_quantile(z, 2, beta)
    with_time = post.shape[1] > 2
    k = 0
    ahead = 0.0  # rows of (up to four) players of the match four ahead, read early: their cache
    # misses overlap
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        ns = player_ptr[t0 + n] - s0
        now = times[i]
        if i + 4 < n_matches:
            s2 = player_ptr[team_ptr[i + 4]]
            for q in range(s2, min(player_ptr[team_ptr[i + 5]], s2 + 4)):
                ahead += table[players[q], 0]
        lean = n == 2 and ns == 2 and weights[s0] == 1.0 and weights[s0 + 1] == 1.0
        # the waiting matches are rated first when the lanes are full, when this match is a lean
        # one (a failure must leave no later match rated) or when it shares a player with them
        if pending == LANES or (pending > 0 and (lean or _shares_player(s0, ns, players, waiting))):
            bad = _flush(pending, lanes, block, table, settings, work, keep, post)
            pending = 0
            waiting[:] = -1
            if bad >= 0:
                return bad
        if lean:
            pa = players[s0]
            pb = players[s0 + 1]
            ra = ranks[t0]
            rb = ranks[t0 + 1]
            mu_a = table[pa, 0]
            sg_a = table[pa, 1]
            mu_b = table[pb, 0]
            sg_b = table[pb, 1]
            d = mu_a - mu_b
            if drift > 0.0:
                last = table[pa, 2]
                sg = drifted_sigma(sg_a, 0.0 if math.isnan(last) else now - last, drift, sigma0)
                pv_a = sg * sg + tau2
                last = table[pb, 2]
                sg = drifted_sigma(sg_b, 0.0 if math.isnan(last) else now - last, drift, sigma0)
                pv_b = sg * sg + tau2
            else:
                pv_a = sg_a * sg_a + tau2
                pv_b = sg_b * sg_b + tau2
            b_ahead = rb < ra or (math.isnan(ra) and not math.isnan(rb))
            tied = ra == rb
            # the prediction's variance (listed order) is the update's (rank order) unless drift
            # widened a player: then the update computes its tail afresh
            c2 = (pv_b + beta2) + (pv_a + beta2) if b_ahead else (pv_a + beta2) + (pv_b + beta2)
            c = math.sqrt(c2)
            tail = math.nan  # the update's tail, norm_cdf((difference in rank order - e2) / c)
            if predict:
                cp = c
                if drift > 0.0:
                    cp = math.sqrt((sg_a * sg_a + tau2 + beta2) + (sg_b * sg_b + tau2 + beta2))
                win = norm_cdf((d - e2) / cp)
                loss = norm_cdf((-d - e2) / cp)
                pair_a[k] = 0
                pair_b[k] = 1
                prob[k] = ahead_given(win, loss)
                draw[k] = draw_given(win, loss)
                outcome[k] = 0.5 if tied else (0.0 if b_ahead else 1.0)
                k += 1
                if cp == c:
                    tail = loss if b_ahead else win
            if b_ahead:  # b is the left (better) team
                pa, pb = pb, pa
                mu_a, mu_b = mu_b, mu_a
                pv_a, pv_b = pv_b, pv_a
            v, wt = duel(mu_a - mu_b, c, e2, tied, math.nan, 1.0, tail)
            mu_new, var = skill_after(mu_a, pv_a, 1.0, c, c2, v, wt)
            table[pa, 0] = mu_new
            sg = math.sqrt(var)
            table[pa, 1] = sg if sg >= sigma_floor else sigma_floor
            mu_new, var = skill_after(mu_b, pv_b, -1.0, c, c2, v, wt)
            table[pb, 0] = mu_new
            sg = math.sqrt(var)
            table[pb, 1] = sg if sg >= sigma_floor else sigma_floor
            table[pa, 2] = now
            table[pb, 2] = now
            if keep:
                for q in range(2):
                    p = players[s0 + q]
                    post[s0 + q, 0] = table[p, 0]
                    post[s0 + q, 1] = table[p, 1]
                    if with_time:
                        post[s0 + q, 2] = now
            continue
        # a larger match waits in a lane
        lane = pending
        o = lane * max_slots
        lp = lane_ptr[lane, : n + 1]
        for t in range(n + 1):
            lp[t] = o + player_ptr[t0 + t] - s0
        for q in range(ns):
            p = players[s0 + q]
            smu[o + q] = table[p, 0]
            ssig[o + q] = table[p, 1]
            sw[o + q] = weights[s0 + q]
            pv[o + q] = prior_variance(table[p, 1], table[p, 2], now, drift, sigma0, tau2)
            out_mu[o + q] = table[p, 0]
            out_sigma[o + q] = table[p, 1]
        rank = ranks[t0 : t0 + n]
        if predict:
            k = predict_pairs(
                lp, rank, known.offset, smu, ssig, players_only, model, scratch, out, k
            )
        setup_game(lane, lp, rank, known, lane_slots, rules, work)
        lane_match[lane] = i
        pending += 1
        for q in range(s0, s0 + ns):
            p = players[q]
            waiting[_slot(p, waiting)] = p
    workspace_sink[0] = ahead
    if pending > 0:
        return _flush(pending, lanes, block, table, settings, work, keep, post)
    return -1
