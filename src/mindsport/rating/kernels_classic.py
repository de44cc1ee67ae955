"""Compiled Elo, Glicko-2 and Tenhou R kernels for replaying long histories (numba).

Each kernel computes exactly the updates of the object model's ``rate`` (:class:`~mindsport.
rating.elo.Elo`, :class:`~mindsport.rating.glicko2.Glicko2`, :class:`~mindsport.rating.tenhou.
TenhouRating`) on arrays of rating state indexed by player, one match after the other, in the
same order of floating-point operations, so the results agree with the object path to rounding
(in practice bit for bit). Matches arrive in CSR layout (:class:`mindsport.rating.batch.
MatchBlock`); the pre- and post-game state of every player slot is written to output arrays.

Everything here is compiled lazily on first use (``cache=True`` keeps the machine code on disk).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

jit = nb.njit(cache=True, fastmath=False, nogil=True)

_LN10 = math.log(10.0)
#: Glicko-2 scale factor (the same constant as :data:`mindsport.rating.glicko2.SCALE`).
_SCALE = 173.7178


@jit
def logistic10(x: float) -> float:
    """``1 / (1 + 10 ** -x)`` as :func:`mindsport.rating.elo.logistic10` computes it."""
    z = x * _LN10
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


@jit
def _pair_score(ri: float, rj: float) -> float:
    """Score of i against j from ranks (NaN = unranked); NaN when both are unranked."""
    if math.isnan(ri):
        if math.isnan(rj):
            return math.nan
        return 0.0
    if math.isnan(rj):
        return 1.0
    if ri < rj:
        return 1.0
    if ri == rj:
        return 0.5
    return 0.0


@jit
def _max_teams(match_team_ptr: np.ndarray) -> int:
    out = 2
    for i in range(match_team_ptr.shape[0] - 1):
        k = match_team_ptr[i + 1] - match_team_ptr[i]
        if k > out:
            out = k
    return out


# ------------------------------------------------------------------------------------- Elo


@jit
def replay_elo(
    rating: np.ndarray,
    games: np.ndarray,
    reached: np.ndarray,
    match_team_ptr: np.ndarray,
    team_player_ptr: np.ndarray,
    players: np.ndarray,
    weights: np.ndarray,
    team_rank: np.ndarray,
    k_mode: int,
    k_const: float,
    fide: np.ndarray,
    scale: float,
    team_sum: bool,
    multi_sum: bool,
    pre_rating: np.ndarray,
    pre_games: np.ndarray,
    pre_reached: np.ndarray,
    post_rating: np.ndarray,
    post_games: np.ndarray,
    post_reached: np.ndarray,
) -> None:
    """Rate every match with :meth:`Elo.rate`'s rules, updating the state arrays in place.

    ``k_mode`` 0: constant ``k_const``; 1: FIDE schedule with
    ``fide = [new_k, new_games, k, top_k, threshold]``.
    """
    n_matches = match_team_ptr.shape[0] - 1
    max_teams = _max_teams(match_team_ptr)
    strength = np.empty(max_teams)
    diffs = np.empty(max_teams)
    counts = np.empty(max_teams, np.int64)
    for i in range(n_matches):
        t0 = match_team_ptr[i]
        n = match_team_ptr[i + 1] - t0
        for t in range(n):
            s0 = team_player_ptr[t0 + t]
            s1 = team_player_ptr[t0 + t + 1]
            total = 0.0
            sw = 0.0
            plain = 0.0
            for s in range(s0, s1):
                p = players[s]
                pre_rating[s] = rating[p]
                pre_games[s] = games[p]
                pre_reached[s] = reached[p]
                total += weights[s] * rating[p]
                sw += weights[s]
                plain += rating[p]
            if team_sum:
                strength[t] = total
            elif sw > 0:
                strength[t] = total / sw
            else:
                strength[t] = plain / (s1 - s0)
        for t in range(n):
            diff = 0.0
            count = 0
            rt = team_rank[t0 + t]
            for u in range(n):
                if u == t:
                    continue
                sc = _pair_score(rt, team_rank[t0 + u])
                if math.isnan(sc):
                    continue
                diff += sc - logistic10((strength[t] - strength[u]) / scale)
                count += 1
            if not multi_sum and count:
                diff /= count
            diffs[t] = diff
            counts[t] = count
        for t in range(n):
            if counts[t] == 0:
                continue
            for s in range(team_player_ptr[t0 + t], team_player_ptr[t0 + t + 1]):
                w = weights[s]
                if w == 0:
                    continue
                p = players[s]
                r = pre_rating[s]
                if k_mode == 0:
                    k = k_const
                elif pre_games[s] < fide[1]:
                    k = fide[0]
                elif pre_reached[s] or r >= fide[4]:
                    k = fide[3]
                else:
                    k = fide[2]
                nr = r + k * w * diffs[t]
                rating[p] = nr
                games[p] = pre_games[s] + 1
                reached[p] = pre_reached[s] or nr >= 2400
        for s in range(team_player_ptr[t0], team_player_ptr[t0 + n]):
            p = players[s]
            post_rating[s] = rating[p]
            post_games[s] = games[p]
            post_reached[s] = reached[p]


# ---------------------------------------------------------------------------------- Tenhou R


@jit
def replay_tenhou(
    rating: np.ndarray,
    games: np.ndarray,
    match_team_ptr: np.ndarray,
    team_player_ptr: np.ndarray,
    players: np.ndarray,
    team_rank: np.ndarray,
    bonus: np.ndarray,
    divisor: float,
    adjust_games: float,
    adjust_step: float,
    adjust_floor: float,
    pre_rating: np.ndarray,
    pre_games: np.ndarray,
    post_rating: np.ndarray,
    post_games: np.ndarray,
) -> None:
    """Rate every match with :meth:`TenhouRating.rate`'s rules (one player per team, all ranked).

    ``bonus[n, place]`` is the placement bonus of 1-based ``place`` at a table of ``n``.
    """
    n_matches = match_team_ptr.shape[0] - 1
    for i in range(n_matches):
        t0 = match_team_ptr[i]
        n = match_team_ptr[i + 1] - t0
        s0 = team_player_ptr[t0]
        total = 0.0
        for t in range(n):
            s = team_player_ptr[t0 + t]
            p = players[s]
            pre_rating[s] = rating[p]
            pre_games[s] = games[p]
            total += rating[p]
        avg = total / n
        for t in range(n):
            s = team_player_ptr[t0 + t]
            rt = team_rank[t0 + t]
            ahead = 0
            tied = 0
            for u in range(n):
                ru = team_rank[t0 + u]
                if ru < rt:
                    ahead += 1
                elif ru == rt:
                    tied += 1
            b = 0.0
            for k in range(1, tied + 1):
                b += bonus[n, ahead + k]
            b = b / tied
            g = pre_games[s]
            if g < adjust_games:
                adj = 1.0 - adjust_step * g
                if adjust_floor > adj:  # max(floor, 1 - step * games), floor on a tie
                    adj = adjust_floor
            else:
                adj = adjust_floor
            own = pre_rating[s]
            d = adj * (b + (avg - own) / divisor)
            p = players[s]
            rating[p] = own + d
            games[p] = g + 1
        for s in range(s0, team_player_ptr[t0 + n]):
            p = players[s]
            post_rating[s] = rating[p]
            post_games[s] = games[p]


# ---------------------------------------------------------------------------------- Glicko-2


@jit
def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


@jit
def _logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


@jit
def _vol_f(x: float, a: float, tau2: float, phi2: float, v: float, d2: float) -> float:
    if x > 700.0:
        first = -0.5
    else:
        ex = math.exp(x)
        s = phi2 + v + ex
        first = 0.5 * (ex / s) * ((d2 - phi2 - v - ex) / s)
    return first - (x - a) / tau2


@jit
def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float, eps: float) -> float:
    """Step 5 of Glicko-2 by the Illinois algorithm, as :meth:`Glicko2._volatility`."""
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
def replay_glicko2(
    rating: np.ndarray,
    rd: np.ndarray,
    vol: np.ndarray,
    last_time: np.ndarray,
    match_team_ptr: np.ndarray,
    team_player_ptr: np.ndarray,
    players: np.ndarray,
    team_rank: np.ndarray,
    times: np.ndarray,
    units: np.ndarray,
    tau: float,
    eps: float,
    max_phi: float,
    period: float,
    two: float,
    pre_rating: np.ndarray,
    pre_rd: np.ndarray,
    pre_vol: np.ndarray,
    post_rating: np.ndarray,
    post_rd: np.ndarray,
    post_vol: np.ndarray,
) -> None:
    """Rate every match with :meth:`Glicko2.rate`'s rules (one game = one rating period).

    One player per team. ``period`` > 0: idle periods ``elapsed / period`` first, with
    ``elapsed = max(0, (times[i] - last_time[p]) / units[i])`` (0 for a player not seen yet,
    ``last_time`` NaN); ``period`` <= 0: no idle periods. ``max_phi``: the RD cap on the
    internal scale (``inf`` for none). ``two`` is 2.0: a run-time exponent keeps ``x ** two``
    a call of ``pow`` as in CPython (a constant 2 would become ``x * x``, which differs from
    ``pow(x, 2)`` in the last bit now and then).
    """
    n_matches = match_team_ptr.shape[0] - 1
    max_teams = _max_teams(match_team_ptr)
    # the players' values as rated in this match (after idle periods)
    r_ = np.empty(max_teams)
    d_ = np.empty(max_teams)
    v_ = np.empty(max_teams)
    for i in range(n_matches):
        t0 = match_team_ptr[i]
        n = match_team_ptr[i + 1] - t0
        now = times[i]
        for t in range(n):
            s = team_player_ptr[t0 + t]
            p = players[s]
            pre_rating[s] = rating[p]
            pre_rd[s] = rd[p]
            pre_vol[s] = vol[p]
            r_[t] = rating[p]
            d_[t] = rd[p]
            v_[t] = vol[p]
            if period > 0:
                x = 0.0
                if not math.isnan(last_time[p]):
                    x = (now - last_time[p]) / units[i]
                    if not x > 0.0:  # max(0.0, x)
                        x = 0.0
                last_time[p] = now
                if x > 0:
                    periods = x / period
                    ph = d_[t] / _SCALE
                    ph = math.sqrt(ph**two + periods * v_[t] ** two)
                    if ph > max_phi:
                        ph = max_phi
                    d_[t] = ph * _SCALE
        for t in range(n):
            s = team_player_ptr[t0 + t]
            p = players[s]
            mu = (r_[t] - 1500.0) / _SCALE
            phi = d_[t] / _SCALE
            sigma = v_[t]
            inv_v = 0.0
            total = 0.0
            n_games = 0
            rt = team_rank[t0 + t]
            for u in range(n):
                if u == t:
                    continue
                sc = _pair_score(rt, team_rank[t0 + u])
                if math.isnan(sc):
                    continue
                n_games += 1
                g = _g(d_[u] / _SCALE)
                e = _logistic(g * (mu - (r_[u] - 1500.0) / _SCALE))
                inv_v += g * g * e * (1.0 - e)
                total += g * (sc - e)
            if n_games == 0 or inv_v < 1e-100:  # idle: one period without information
                ph = math.sqrt(phi**two + 1 * sigma**two)
                if ph > max_phi:
                    ph = max_phi
                rating[p] = r_[t]
                rd[p] = ph * _SCALE
                vol[p] = sigma
                continue
            v = 1.0 / inv_v
            delta = v * total
            new_sigma = _volatility(phi, sigma, v, delta, tau, eps)
            phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
            new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
            new_mu = mu + new_phi * new_phi * total
            if new_phi > max_phi:
                new_phi = max_phi
            rating[p] = 1500.0 + _SCALE * new_mu
            rd[p] = _SCALE * new_phi
            vol[p] = new_sigma
        for t in range(n):
            s = team_player_ptr[t0 + t]
            p = players[s]
            post_rating[s] = rating[p]
            post_rd[s] = rd[p]
            post_vol[s] = vol[p]
