"""Compiled Elo, Glicko-2 and Tenhou R (numba): each model's one update of a game, and replays.

Each model has one update of one game on the game's player slots (:func:`elo_update`,
:func:`glicko2_update` with :func:`glicko2_period`, :func:`tenhou_update`). The model's ``rate``
(and Glicko-2's ``rate_period``) call it through the ``*_game`` entry points for one game; the
``replay_*`` kernels call it for every match of a block, carrying the players' state rows in a
table (:class:`mindsport.rating.replayers.ArrayReplayer`) and computing the pre-game predictions
from the same scalar functions the models' ``win_probability`` use (:mod:`mindsport.rating.
formulas`, compiled as written).

State rows: Elo ``(rating, games, reached 2400)``, Glicko-2 ``(rating, rd, volatility, last
time)``, Tenhou ``(rating, games)``; slot state arrays have those columns per player slot.
"""

from __future__ import annotations

import math

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.blockkernels import block_sizes, load_match, team_pointers
from mindsport.rating.compiled import (
    fide_k,
    g_factor,
    glicko2_expectation,
    logistic,
    logistic10,
    pair_outcome,
    tenhou_adjustment,
    tenhou_change,
)
from mindsport.rating.formulas import SCALE

_SCALE = SCALE

# Elo settings: K mode (0 constant, 1 FIDE schedule, 2 K per slot given), constant K, the FIDE
# schedule (new K, new games, K, top K, threshold), scale, sum of team strengths, sum over teams
_KMODE, _KCONST, _NEWK, _NEWGAMES, _K, _TOPK, _THRESHOLD, _SCALE_E, _TEAMSUM, _MULTISUM = range(10)


# ------------------------------------------------------------------------------------- Elo


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
    settings: np.ndarray,
    strength: np.ndarray,
    out: np.ndarray,
) -> None:
    """Elo's update of one game (:class:`mindsport.rating.Elo`): team ``t`` holds the slots
    ``ptr[t]:ptr[t+1]`` of ``state`` (rating, games, reached 2400) and ``w``; ``out`` receives
    the new state of every slot (unchanged for weight 0 or a team compared with nobody)."""
    n = rank.shape[0]
    team_sum = settings[_TEAMSUM] != 0.0
    scale = settings[_SCALE_E]
    k_mode = int(settings[_KMODE])
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
        if settings[_MULTISUM] == 0.0 and count:
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
                k = settings[_KCONST]
            elif k_mode == 1:
                k = fide_k(
                    state[s, 1], state[s, 2] != 0.0, r, settings[_NEWK], settings[_NEWGAMES],
                    settings[_K], settings[_TOPK], settings[_THRESHOLD],
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
    new rating, games and reached overwrite the old."""
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
    elo_update(ptr, state, w, rank, kvals, settings, np.empty(teams), out)
    for s in range(n):
        for c in range(3):
            buf[at + c * n + s] = out[s, c]


@jit
def replay_elo(
    table: np.ndarray,
    block: tuple[np.ndarray, ...],
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    results: tuple[np.ndarray, ...],
) -> int:
    """:func:`elo_update` for every match of a block, rows ``(rating, games, reached)`` of
    ``table`` carried forward; predictions: ``win_probability`` of the unweighted strengths."""
    team_ptr, player_ptr, players, weights, ranks, _ = block
    post, pair_a, pair_b, prob, outcome = results
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_slots, 3))
    out = np.empty((max_slots, 3))
    ones = np.ones(max_slots)
    strength = np.empty(max_teams)
    scale = settings[_SCALE_E]
    team_sum = settings[_TEAMSUM] != 0.0
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
                        pair_a[k] = a
                        pair_b[k] = b
                        prob[k] = logistic10((strength[a] - strength[b]) / scale)
                        outcome[k] = o
                        k += 1
        elo_update(ptr[: n + 1], state, weights[s0 : s0 + ns], rank, ones, settings, strength, out)
        _scatter(table, players, s0, ns, out, keep, post)
    return -1


@jit
def _scatter(
    table: np.ndarray,
    players: np.ndarray,
    s0: int,
    ns: int,
    out: np.ndarray,
    keep: bool,
    post: np.ndarray,
) -> None:
    """New slot rows to the players' rows (and to ``post``)."""
    width = out.shape[1]
    for q in range(ns):
        p = players[s0 + q]
        for c in range(width):
            table[p, c] = out[q, c]
        if keep:
            for c in range(post.shape[1]):
                post[s0 + q, c] = out[q, c]


# ---------------------------------------------------------------------------------- Tenhou R


@jit
def tenhou_update(
    state: np.ndarray,
    rank: np.ndarray,
    bonus: np.ndarray,
    settings: np.ndarray,
    out: np.ndarray,
) -> None:
    """Tenhou R's update of one table (:class:`mindsport.rating.TenhouRating`): one player per
    team, all ranked; ``state`` rows (rating, games); ``bonus[n, place]`` the placement bonus of
    1-based ``place`` at a table of ``n``; ``settings``: divisor, adjustment games, step, floor.
    Tied places share the mean bonus of the places they cover."""
    n = rank.shape[0]
    divisor, adjust_games, step, floor = settings[0], settings[1], settings[2], settings[3]
    total = 0.0
    for t in range(n):
        total += state[t, 0]
    avg = total / n
    for t in range(n):
        rt = rank[t]
        ahead = 0
        tied = 0
        for u in range(n):
            if rank[u] < rt:
                ahead += 1
            elif rank[u] == rt:
                tied += 1
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
    each); the new ratings and games overwrite the old."""
    state = np.empty((n, 2))
    for s in range(n):
        state[s, 0] = buf[n + s]
        state[s, 1] = buf[2 * n + s]
    out = np.empty((n, 2))
    tenhou_update(state, buf[:n], bonus, settings, out)
    for s in range(n):
        buf[n + s] = out[s, 0]
        buf[2 * n + s] = out[s, 1]


@jit
def replay_tenhou(
    table: np.ndarray,
    block: tuple[np.ndarray, ...],
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    results: tuple[np.ndarray, ...],
) -> int:
    """:func:`tenhou_update` for every match of a block (one player per team); predictions:
    the logistic ``win_probability`` of :class:`~mindsport.rating.TenhouRating`.
    ``settings``: those of :func:`tenhou_update`, the logistic scale, the size ``m`` of the
    bonus table, then the table (``m x m``, row ``n`` for tables of ``n``)."""
    team_ptr, player_ptr, players, _, ranks, _ = block
    post, pair_a, pair_b, prob, outcome = results
    prob_scale = settings[4]
    size = int(settings[5])
    bonus = settings[6 : 6 + size * size].reshape((size, size))
    n_matches = team_ptr.shape[0] - 1
    max_teams, _ = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_teams, 2))
    out = np.empty((max_teams, 2))
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        load_match(t0, n, s0, player_ptr, players, table, ptr, state)
        rank = ranks[t0 : t0 + n]
        if predict:
            for a in range(n):
                for b in range(a + 1, n):
                    pair_a[k] = a
                    pair_b[k] = b
                    prob[k] = logistic10((state[a, 0] - state[b, 0]) / prob_scale)
                    o = pair_outcome(rank[a], rank[b])
                    outcome[k] = 0.5 if o is None else o
                    k += 1
        tenhou_update(state[:n], rank, bonus, settings, out)
        _scatter(table, players, s0, n, out, keep, post)
    return -1


# ---------------------------------------------------------------------------------- Glicko-2


@jit
def _vol_f(x: float, a: float, tau2: float, phi2: float, v: float, d2: float) -> float:
    # e^x (D^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2, written as a
    # product of two bounded ratios so that nothing overflows for large x
    if x > 700.0:
        first = -0.5
    else:
        ex = math.exp(x)
        s = phi2 + v + ex
        first = 0.5 * (ex / s) * ((d2 - phi2 - v - ex) / s)
    return first - (x - a) / tau2


@jit
def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float, eps: float) -> float:
    """Step 5 of Glicko-2: the new volatility by the Illinois (regula falsi) algorithm."""
    a = math.log(sigma * sigma)
    tau2 = tau * tau
    phi2 = phi * phi
    d2 = delta * delta
    big_a = a
    if d2 > phi2 + v:
        big_b = math.log(d2 - phi2 - v)
    else:
        k = 1
        while _vol_f(a - k * tau, a, tau2, phi2, v, d2) < 0:
            k += 1
        big_b = a - k * tau
    fa = _vol_f(big_a, a, tau2, phi2, v, d2)
    fb = _vol_f(big_b, a, tau2, phi2, v, d2)
    while abs(big_b - big_a) > eps:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = _vol_f(c, a, tau2, phi2, v, d2)
        if fc * fb <= 0:
            big_a = big_b
            fa = fb
        else:
            fa /= 2.0
        big_b = c
        fb = fc
    return math.exp(big_a / 2.0)


@jit
def glicko2_idle(rd: float, volatility: float, periods: float, max_phi: float) -> float:
    """The RD after ``periods`` rating periods without games: ``phi' = sqrt(phi^2 + periods
    sigma^2)``, capped at ``max_phi`` (internal scale)."""
    phi = rd / _SCALE
    ph = math.sqrt(phi * phi + periods * volatility * volatility)
    if ph > max_phi:
        ph = max_phi
    return ph * _SCALE


@jit
def glicko2_period(
    rating: float,
    rd: float,
    volatility: float,
    opp_rating: np.ndarray,
    opp_rd: np.ndarray,
    scores: np.ndarray,
    m: int,
    tau: float,
    eps: float,
    max_phi: float,
) -> tuple[float, float, float]:
    """One rating period (Glickman 2013, steps 2-8) against ``m`` games ``(opponent rating,
    opponent RD, score)``: the new rating, RD and volatility (Glicko scale). No games, or
    expected scores that are exactly 0 or 1 (ratings thousands of points apart, no
    information): one idle period."""
    mu = (rating - 1500.0) / _SCALE
    phi = rd / _SCALE
    inv_v = 0.0
    total = 0.0
    for j in range(m):
        g = g_factor(opp_rd[j] / _SCALE)
        e = logistic(g * (mu - (opp_rating[j] - 1500.0) / _SCALE))
        inv_v += g * g * e * (1.0 - e)
        total += g * (scores[j] - e)
    if m == 0 or inv_v < 1e-100:
        return rating, glicko2_idle(rd, volatility, 1.0, max_phi), volatility
    v = 1.0 / inv_v
    new_sigma = _volatility(phi, volatility, v, v * total, tau, eps)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * total
    if new_phi > max_phi:
        new_phi = max_phi
    return 1500.0 + _SCALE * new_mu, _SCALE * new_phi, new_sigma


@jit
def glicko2_rate_period(
    buf: np.ndarray, m: int, tau: float, eps: float, max_phi: float
) -> tuple[float, float, float]:
    """:func:`glicko2_period` for ``buf`` = player (rating, RD, volatility), then the ``m``
    opponents' ratings, RDs and scores."""
    return glicko2_period(
        buf[0], buf[1], buf[2], buf[3 : 3 + m], buf[3 + m : 3 + 2 * m],
        buf[3 + 2 * m : 3 + 3 * m], m, tau, eps, max_phi,
    )  # fmt: skip


@jit
def glicko2_update(
    state: np.ndarray,
    elapsed: np.ndarray,
    rank: np.ndarray,
    settings: np.ndarray,
    opp: np.ndarray,
    out: np.ndarray,
) -> None:
    """Glicko-2's update of one game (:class:`mindsport.rating.Glicko2`): one player per team,
    ``state`` rows (rating, RD, volatility); players away ``elapsed > 0`` first go through
    ``elapsed / period`` idle periods (``period`` > 0), then every player has one rating period
    against every other player of the game (score from the ranks). ``settings``: tau, epsilon,
    the RD cap on the internal scale, period (0: none). ``opp``: scratch."""
    n = rank.shape[0]
    tau, eps, max_phi, period = settings[0], settings[1], settings[2], settings[3]
    for t in range(n):
        opp[t, 0] = state[t, 0]
        opp[t, 1] = state[t, 1]
        if period > 0 and elapsed[t] > 0:
            opp[t, 1] = glicko2_idle(state[t, 1], state[t, 2], elapsed[t] / period, max_phi)
    for t in range(n):
        m = 0
        for u in range(n):
            if u == t:
                continue
            sc = pair_outcome(rank[t], rank[u])
            if sc is None:
                continue
            opp[m, 2] = opp[u, 0]
            opp[m, 3] = opp[u, 1]
            opp[m, 4] = sc
            m += 1
        r, d, v = glicko2_period(
            opp[t, 0], opp[t, 1], state[t, 2], opp[:m, 2], opp[:m, 3], opp[:m, 4], m,
            tau, eps, max_phi,
        )  # fmt: skip
        out[t, 0] = r
        out[t, 1] = d
        out[t, 2] = v


@jit
def glicko2_game(buf: np.ndarray, settings: np.ndarray, n: int) -> None:
    """:func:`glicko2_update` for one game packed in ``buf``: ranks, ratings, RDs, volatilities
    and elapsed times (``n`` each); the new ratings, RDs and volatilities overwrite the old."""
    state = np.empty((n, 3))
    for s in range(n):
        for c in range(3):
            state[s, c] = buf[(c + 1) * n + s]
    out = np.empty((n, 3))
    glicko2_update(state, buf[4 * n : 5 * n], buf[:n], settings, np.empty((n, 5)), out)
    for s in range(n):
        for c in range(3):
            buf[(c + 1) * n + s] = out[s, c]


@jit
def replay_glicko2(
    table: np.ndarray,
    block: tuple[np.ndarray, ...],
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    results: tuple[np.ndarray, ...],
) -> int:
    """:func:`glicko2_update` for every match of a block (one player per team), rows
    ``(rating, RD, volatility, last time)`` of ``table`` carried forward: elapsed time since a
    player's previous game (0 for his first) gives the idle periods when ``period`` is set.
    Predictions: the symmetric ``win_probability`` of :class:`~mindsport.rating.Glicko2`."""
    team_ptr, player_ptr, players, _, ranks, times = block
    post, pair_a, pair_b, prob, outcome = results
    n_matches = team_ptr.shape[0] - 1
    max_teams, _ = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_teams, 4))  # rating, RD, volatility, last time
    out = np.empty((max_teams, 4))
    opp = np.empty((max_teams, 5))
    elapsed = np.empty(max_teams)
    period = settings[3]
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        now = times[i]
        load_match(t0, n, s0, player_ptr, players, table, ptr, state)
        for q in range(n):
            last = state[q, 3]
            x = 0.0
            if period > 0 and not math.isnan(last):
                x = now - last
                if not x > 0.0:
                    x = 0.0
            elapsed[q] = x
        rank = ranks[t0 : t0 + n]
        if predict:
            for a in range(n):
                for b in range(a + 1, n):
                    o = pair_outcome(rank[a], rank[b])
                    if o is not None:
                        pair_a[k] = a
                        pair_b[k] = b
                        prob[k] = glicko2_expectation(
                            state[a, 0], state[a, 1], state[b, 0], state[b, 1]
                        )
                        outcome[k] = o
                        k += 1
        glicko2_update(state[:n], elapsed, rank, settings, opp, out)
        for q in range(n):
            out[q, 3] = now
        _scatter(table, players, s0, n, out[:n], keep, post)
    return -1
