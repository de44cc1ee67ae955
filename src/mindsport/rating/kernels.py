"""Compiled TrueSkill kernels for replaying long histories (numba).

The kernels compute exactly the updates of :class:`mindsport.rating.trueskill.TrueSkill.rate`
(two teams in closed form, more teams by the same message-passing schedule over team
differences, partial rankings, ties, partial play, drift, sigma floor) on arrays of ``mu`` and
``sigma`` indexed by player, one match after the other. Matches arrive as flat arrays (CSR
layout, see :class:`mindsport.rating.batch.MatchBlock`), so no Python object is created per
match on the hot path.

Everything here is compiled lazily on first use (``cache=True`` keeps the machine code on disk).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)

jit = nb.njit(cache=True, fastmath=False, nogil=True)


@jit
def erfcx(z: float) -> float:
    """Scaled complementary error function ``exp(z^2) erfc(z)`` for ``z >= 0``."""
    if z < 25.0:
        return math.exp(z * z) * math.erfc(z)
    # continued fraction (Laplace), converges fast for large z
    f = z
    for k in range(60, 0, -1):
        f = z + (k / 2.0) / f
    return _INV_SQRT_PI / f


@jit
def mills(x: float) -> float:
    """``pdf(x) / cdf(x)`` for every real ``x``."""
    if x > -5.0:
        return _INV_SQRT_2PI * math.exp(-0.5 * x * x) / (0.5 * math.erfc(-x / _SQRT2))
    return 2.0 * _INV_SQRT_2PI / erfcx(-x / _SQRT2)


@jit
def log_cdf(x: float) -> float:
    if x > -5.0:
        return math.log(0.5 * math.erfc(-x / _SQRT2))
    return math.log(0.5 * erfcx(-x / _SQRT2)) - 0.5 * x * x


@jit
def v_plus_x(x: float) -> float:
    if x > -30.0:
        return mills(x) + x
    u = -x
    u2 = 1.0 / (u * u)
    s = 1.0 + u2 * (-1.0 + u2 * (3.0 + u2 * (-15.0 + u2 * (105.0 - 945.0 * u2))))
    one_minus_s = u2 * (1.0 + u2 * (-3.0 + u2 * (15.0 + u2 * (-105.0 + 945.0 * u2))))
    return u * one_minus_s / s


@jit
def vw(t: float, e: float, draw: bool) -> tuple[float, float]:
    """``(v, w)`` of the truncation: win ``d > e`` or draw ``|d| <= e`` (standardised)."""
    if not draw:
        x = t - e
        v = mills(x)
        w = v * (v + x) if x > -30.0 else v * v_plus_x(x)
    else:
        sign = 1.0
        if t < 0:
            t = -t
            sign = -1.0
        a = e - t
        b = -e - t
        r_a = mills(a)
        r_b = mills(b)
        lq = log_cdf(b) - log_cdf(a)
        q = math.exp(lq)
        one_minus_q = -math.expm1(lq)
        v = (r_b * q - r_a) / one_minus_q
        w = v * v + (a * r_a - b * r_b * q) / one_minus_q
        v = sign * v
    if w < 1e-300:
        w = 1e-300
    if w > 1.0 - 1e-16:
        w = 1.0 - 1e-16
    return v, w


@jit
def _sum_message(tp: float, tt: float, op: float, ot: float, sign: float) -> tuple[float, float]:
    """Natural parameters of ``other + sign * d`` (precisions ``op`` and ``tp``)."""
    if tp > 0.0 and op > 0.0:
        return tp * op / (tp + op), (tp * ot + sign * op * tt) / (tp + op)
    return 0.0, 0.0


@jit
def _down_and_truncate(
    j: int,
    left: int,
    right: int,
    mar_pi: np.ndarray,
    mar_tau: np.ndarray,
    to_l: np.ndarray,
    to_r: np.ndarray,
    down: np.ndarray,
    trunc: np.ndarray,
    link_e: np.ndarray,
    link_draw: np.ndarray,
    delta: float,
) -> float:
    """Difference factor down, then the truncation's message up; returns the running change."""
    lp = mar_pi[left] - to_l[j, 0]
    lt = mar_tau[left] - to_l[j, 1]
    rp = mar_pi[right] - to_r[j, 0]
    rt = mar_tau[right] - to_r[j, 1]
    var = 1.0 / lp + 1.0 / rp
    down[j, 0] = 1.0 / var
    down[j, 1] = (lt / lp - rt / rp) / var
    cav_pi = down[j, 0]
    cav_tau = down[j, 1]
    old_pi = cav_pi + trunc[j, 0]
    old_tau = cav_tau + trunc[j, 1]
    sqrt_pi = math.sqrt(cav_pi)
    v, w_ = vw(cav_tau / sqrt_pi, link_e[j] * sqrt_pi, link_draw[j])
    new_pi = cav_pi / (1.0 - w_)
    new_tau = (cav_tau + sqrt_pi * v) / (1.0 - w_)
    trunc[j, 0] = new_pi - cav_pi
    trunc[j, 1] = new_tau - cav_tau
    if old_pi <= 0.0:
        return math.inf
    dm = abs(new_tau / new_pi - old_tau / old_pi)
    ds = abs(math.sqrt(1.0 / new_pi) - math.sqrt(1.0 / old_pi))
    return max(delta, dm, ds)


@jit
def _fill_post(
    t0: int,
    t1: int,
    team_player_ptr: np.ndarray,
    players: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    post_mu: np.ndarray,
    post_sigma: np.ndarray,
) -> None:
    for s in range(team_player_ptr[t0], team_player_ptr[t1]):
        post_mu[s] = mu[players[s]]
        post_sigma[s] = sigma[players[s]]


@jit
def replay_trueskill(
    mu: np.ndarray,
    sigma: np.ndarray,
    last_time: np.ndarray,
    match_team_ptr: np.ndarray,
    team_player_ptr: np.ndarray,
    players: np.ndarray,
    weights: np.ndarray,
    team_rank: np.ndarray,
    times: np.ndarray,
    margins: np.ndarray,
    sigma0: float,
    beta: float,
    tau: float,
    drift: float,
    sigma_floor: float,
    tolerance: float,
    max_iterations: int,
    pre_mu: np.ndarray,
    pre_sigma: np.ndarray,
    post_mu: np.ndarray,
    post_sigma: np.ndarray,
) -> int:
    """Rate matches ``0..n-1`` in order, updating ``mu``/``sigma``/``last_time`` in place.

    ``team_rank`` is NaN for an unranked team. ``margins[k]`` is the draw margin for ``k``
    present players in the two teams. ``last_time`` is NaN for players not seen yet. The
    pre-game ``mu``/``sigma`` of every player slot go to ``pre_mu``/``pre_sigma``, the post-game
    ones to ``post_mu``/``post_sigma``. Returns 0, or
    ``-(i + 1)`` if match ``i`` did not converge.
    """
    n_matches = match_team_ptr.shape[0] - 1
    beta2 = beta * beta
    tau2 = tau * tau
    max_teams = 0
    for i in range(n_matches):
        k = match_team_ptr[i + 1] - match_team_ptr[i]
        if k > max_teams:
            max_teams = k
    order = np.empty(max_teams, np.int64)
    t_pi = np.empty(max_teams)
    t_tau = np.empty(max_teams)
    mar_pi = np.empty(max_teams)
    mar_tau = np.empty(max_teams)
    present = np.empty(max_teams, np.int64)
    m_max = max(max_teams - 1, 1)
    link_l = np.empty(m_max, np.int64)
    link_r = np.empty(m_max, np.int64)
    link_e = np.empty(m_max)
    link_draw = np.empty(m_max, np.bool_)
    to_l = np.zeros((m_max, 2))
    to_r = np.zeros((m_max, 2))
    down = np.zeros((m_max, 2))
    trunc = np.zeros((m_max, 2))
    slot_var = np.empty(players.shape[0])

    for i in range(n_matches):
        t0 = match_team_ptr[i]
        t1 = match_team_ptr[i + 1]
        n = t1 - t0
        now = times[i]
        # pre-game values, prior variances (dynamics and drift) and team performance priors
        for t in range(n):
            mean = 0.0
            var = 0.0
            cnt = 0
            for s in range(team_player_ptr[t0 + t], team_player_ptr[t0 + t + 1]):
                p = players[s]
                pre_mu[s] = mu[p]
                pre_sigma[s] = sigma[p]
                extra = 0.0
                if drift > 0.0 and not math.isnan(last_time[p]):
                    elapsed = now - last_time[p]
                    if elapsed > 0.0 and sigma[p] < sigma0:
                        grown = sigma[p] * sigma[p] + drift * drift * elapsed
                        if grown > sigma0 * sigma0:
                            grown = sigma0 * sigma0
                        extra = grown - sigma[p] * sigma[p]
                pv = sigma[p] * sigma[p] + extra + tau2
                slot_var[s] = pv
                w = weights[s]
                if w > 0.0:
                    cnt += 1
                    mean += w * mu[p]
                    var += w * w * (pv + beta2)
            t_pi[t] = 1.0 / var
            t_tau[t] = mean / var
            present[t] = cnt
        # order: ranked teams by rank (stable insertion sort), unranked last
        n_ranked = 0
        for t in range(n):
            if not math.isnan(team_rank[t0 + t]):
                r = team_rank[t0 + t]
                j = n_ranked
                while j > 0 and team_rank[t0 + order[j - 1]] > r:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = t
                n_ranked += 1
        k = n_ranked
        for t in range(n):
            if math.isnan(team_rank[t0 + t]):
                order[k] = t
                k += 1
        m = n - 1
        for j in range(m):
            if j < n_ranked - 1:
                left = order[j]
                right = order[j + 1]
            else:
                left = order[n_ranked - 1]
                right = order[j + 1]
            link_l[j] = left
            link_r[j] = right
            link_e[j] = margins[present[left] + present[right]]
            rl = team_rank[t0 + left]
            rr = team_rank[t0 + right]
            link_draw[j] = (not math.isnan(rr)) and rl == rr
        for t in range(n):
            mar_pi[t] = t_pi[t]
            mar_tau[t] = t_tau[t]
        if n == 2:
            # closed form: one truncation
            left = link_l[0]
            right = link_r[0]
            c2 = 1.0 / t_pi[left] + 1.0 / t_pi[right]
            c = math.sqrt(c2)
            x = (t_tau[left] / t_pi[left] - t_tau[right] / t_pi[right]) / c
            v, w_ = vw(x, link_e[0] / c, link_draw[0])
            for side in range(2):
                t = left if side == 0 else right
                sign = 1.0 if side == 0 else -1.0
                for s in range(team_player_ptr[t0 + t], team_player_ptr[t0 + t + 1]):
                    w = weights[s]
                    if w == 0.0:
                        continue
                    p = players[s]
                    pv = slot_var[s]
                    mu[p] = mu[p] + sign * w * pv / c * v
                    sg = math.sqrt(pv * (1.0 - w * w * pv / c2 * w_))
                    if sg < sigma_floor:
                        sg = sigma_floor
                    sigma[p] = sg
                    last_time[p] = now
            _fill_post(t0, t1, team_player_ptr, players, mu, sigma, post_mu, post_sigma)
            continue
        for j in range(m):
            to_l[j, 0] = 0.0
            to_l[j, 1] = 0.0
            to_r[j, 0] = 0.0
            to_r[j, 1] = 0.0
            trunc[j, 0] = 0.0
            trunc[j, 1] = 0.0
        converged = False
        for _it in range(max_iterations):
            delta = 0.0
            for sweep in range(2):
                for jj in range(m):
                    j = jj if sweep == 0 else m - 1 - jj
                    left = link_l[j]
                    right = link_r[j]
                    # at each turn of the sweep the link was just processed and nothing it
                    # depends on has changed since: its truncation message stands
                    turn = jj == 0 and (sweep == 1 or _it > 0)
                    if turn:
                        pass
                    else:
                        delta = _down_and_truncate(
                            j,
                            left,
                            right,
                            mar_pi,
                            mar_tau,
                            to_l,
                            to_r,
                            down,
                            trunc,
                            link_e,
                            link_draw,
                            delta,
                        )
                    # difference up: to the right team in the forward sweep, left in backward
                    tp = trunc[j, 0]
                    tt = trunc[j, 1]
                    if sweep == 0:
                        op = mar_pi[left] - to_l[j, 0]
                        ot = mar_tau[left] - to_l[j, 1]
                        np_, nt = _sum_message(tp, tt, op, ot, -1.0)
                        mar_pi[right] += np_ - to_r[j, 0]
                        mar_tau[right] += nt - to_r[j, 1]
                        to_r[j, 0] = np_
                        to_r[j, 1] = nt
                    else:
                        op = mar_pi[right] - to_r[j, 0]
                        ot = mar_tau[right] - to_r[j, 1]
                        np_, nt = _sum_message(tp, tt, op, ot, 1.0)
                        mar_pi[left] += np_ - to_l[j, 0]
                        mar_tau[left] += nt - to_l[j, 1]
                        to_l[j, 0] = np_
                        to_l[j, 1] = nt
            if delta <= tolerance:
                converged = True
                break
        if not converged:
            return -(i + 1)
        for j in range(m):  # final message to every right team
            left = link_l[j]
            right = link_r[j]
            tp = trunc[j, 0]
            tt = trunc[j, 1]
            op = mar_pi[left] - to_l[j, 0]
            ot = mar_tau[left] - to_l[j, 1]
            np_, nt = _sum_message(tp, tt, op, ot, -1.0)
            mar_pi[right] += np_ - to_r[j, 0]
            mar_tau[right] += nt - to_r[j, 1]
            to_r[j, 0] = np_
            to_r[j, 1] = nt
        for t in range(n):
            g_pi = mar_pi[t] - t_pi[t]
            g_tau = mar_tau[t] - t_tau[t]
            if g_pi <= 0.0:  # the outcome says nothing about this team: priors stand
                for s in range(team_player_ptr[t0 + t], team_player_ptr[t0 + t + 1]):
                    if weights[s] == 0.0:
                        continue
                    p = players[s]
                    sg = math.sqrt(slot_var[s])
                    sigma[p] = sg if sg >= sigma_floor else sigma_floor
                    last_time[p] = now
                continue
            g_mu = g_tau / g_pi
            g_var = 1.0 / g_pi
            total_mean = 0.0
            total_var = 0.0
            for s in range(team_player_ptr[t0 + t], team_player_ptr[t0 + t + 1]):
                w = weights[s]
                total_mean += w * pre_mu[s]
                total_var += w * w * (slot_var[s] + beta2)
            for s in range(team_player_ptr[t0 + t], team_player_ptr[t0 + t + 1]):
                w = weights[s]
                if w == 0.0:
                    continue
                p = players[s]
                pv = slot_var[s]
                p_mean = (g_mu - (total_mean - w * pre_mu[s])) / w
                p_var = (g_var + total_var - w * w * (pv + beta2)) / (w * w)
                s_var = p_var + beta2
                post_pi = 1.0 / pv + 1.0 / s_var
                post_tau = pre_mu[s] / pv + p_mean / s_var
                mu[p] = post_tau / post_pi
                sg = math.sqrt(1.0 / post_pi)
                if sg < sigma_floor:
                    sg = sigma_floor
                sigma[p] = sg
                last_time[p] = now
        _fill_post(t0, t1, team_player_ptr, players, mu, sigma, post_mu, post_sigma)
    return 0
