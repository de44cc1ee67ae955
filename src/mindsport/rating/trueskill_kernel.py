"""TrueSkill's update of one game, compiled (numba): the one implementation of the arithmetic.

:func:`update_match` rates one game: teams ordered by rank (stable, unranked last), two teams in
closed form (:func:`two_teams`, the graph's single truncation), more teams by the patent's
message-passing schedule over the chain of team differences (forward and backward sweeps until
no truncation message moves a difference marginal by more than the tolerance), partial play
(weights), ties and partial rankings. The explicit factor graph of
:mod:`mindsport.rating.factors` is the readable form of the same schedule; the tests hold the
two together. The callers: :mod:`mindsport.rating.kernels` (``rate()`` of one game, the replay
of many, the pairwise model), the card-play model's replay and the whole-history model.

The update of a game of three or more teams is a chain of dependent divisions, square roots and
error functions: one game alone leaves most of the processor idle. So the update is three
steps that can take several games ("lanes") at once: :func:`setup_game` lays out a game in a
lane of the scratch arrays, :func:`sweep_lanes` runs the lanes' schedules in lockstep (each
game's steps in its own order, so its numbers are exactly those of the game alone) and
:func:`finish_game` passes a settled game's messages back to its players. ``update_match`` is
the three steps with one lane; the replay (:func:`mindsport.rating.kernels.replay_trueskill`)
runs two games that share no player side by side.

The scalar maths (normal distribution, truncated moments, draw margin) are the plain functions
of :mod:`.gaussian`, :mod:`.truncation` and :mod:`.formulas`, compiled as written
(:mod:`mindsport.rating.compiled`).
"""

from __future__ import annotations

import math

import numpy as np

from mindsport.rating.compiled import (
    difference_moments,
    margin_from_quantile,
    margin_moments,
    truncated,
)
from mindsport.rating.jit import inline, jit

__all__ = [
    "finish_game",
    "lane_settled",
    "setup_game",
    "sweep_lanes",
    "two_teams",
    "update_match",
    "workspace",
]

# integer scratch per team: order, present players; per link: left team, right team (rows);
# per lane, in its first two rows: the links to sweep, settled (1) or not (0)
_ORDER, _PRESENT, _LEFT, _RIGHT, _LINKS = 0, 1, 2, 3, 4
# float scratch per team: performance prior and marginal (natural parameters); per lane, in its
# first row: 1 once a truncation of the sweep has moved by more than the tolerance, else 0
_TPI, _TTAU, _MPI, _MTAU, _MOVED = 0, 1, 2, 3, 4
# float scratch per link: margin, draw flag, messages to the left/right team, truncation
_E, _DRAW, _LPI, _LTAU, _RPI, _RTAU, _XPI, _XTAU = range(8)


@jit
def workspace(max_teams: int, lanes: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for ``lanes`` games of up to ``max_teams`` teams each (allocated once per
    block): lane ``L`` owns the rows from ``L * max(max_teams, 2)`` on."""
    rows = lanes * max(max_teams, 2)
    return np.empty((rows, 5), np.int64), np.zeros((rows, 5)), np.zeros((rows, 8))


@jit
def two_teams(
    l0: int,
    l1: int,
    r0: int,
    r1: int,
    mu: np.ndarray,
    pv: np.ndarray,
    w: np.ndarray,
    e: float,
    tied: bool,
    beta2: float,
    out_mu: np.ndarray,
    out_var: np.ndarray,
    noise: np.ndarray,
    offset: float,
    y: float,
    s2: float,
) -> None:
    """Two teams (left slots ``l0:l1`` ahead of or tied with right slots ``r0:r1``).

    The team difference ``d = offset + sum w_i p_i - sum w_j p_j`` has variance ``c^2``; its
    truncation (draw margin ``e``) gives ``v`` and ``w``, and each skill moves by its covariance
    with ``d``. ``pv`` is each slot's prior variance (dynamics and drift included), ``noise``
    its share of the performance noise ``beta2`` (1 a player, 0 a virtual player: a skill with
    no noise of its own), ``offset`` the known performance offset of the left team over the
    right one. With a finite ``y`` the difference was observed as ``y ~ N(d, s2)`` as well
    (:func:`margin_moments`). Writes the new mean and variance of every slot with a positive
    weight.
    """
    mean_l = offset
    mean_r = 0.0
    c2 = 0.0
    for s in range(l0, l1):
        mean_l += w[s] * mu[s]
        c2 += w[s] * w[s] * (pv[s] + noise[s] * beta2)
    for s in range(r0, r1):
        mean_r += w[s] * mu[s]
        c2 += w[s] * w[s] * (pv[s] + noise[s] * beta2)
    c = math.sqrt(c2)
    if math.isnan(y):
        v, wt = difference_moments(mean_l - mean_r, c, e, tied)
    else:
        v, wt = margin_moments(mean_l - mean_r, c, e, tied, y, s2)
    for side in range(2):
        s0 = l0 if side == 0 else r0
        s1 = l1 if side == 0 else r1
        sign = 1.0 if side == 0 else -1.0
        for s in range(s0, s1):
            ws = w[s]
            if ws == 0.0:
                continue
            p = pv[s]
            out_mu[s] = mu[s] + sign * ws * p / c * v
            out_var[s] = p * (1.0 - ws * ws * p / c2 * wt)


@inline
def _sum_message(tp: float, tt: float, op: float, ot: float, sign: float) -> tuple[float, float]:
    """Natural parameters of ``other + sign * d`` (precisions ``op`` and ``tp``)."""
    if tp > 0.0 and op > 0.0:
        return tp * op / (tp + op), (tp * ot + sign * op * tt) / (tp + op)
    return 0.0, 0.0


@inline
def _down_and_truncate(
    j: int, iw: np.ndarray, fw: np.ndarray, lw: np.ndarray, check: bool, tolerance: float
) -> bool:
    """Difference factor ``j`` down, then its truncation's message up. With ``check``, returns
    whether the difference marginal moved (in mean or in standard deviation) by more than
    ``tolerance``; without, ``False`` (the sweep already moved something, so the change need not
    be measured)."""
    left = iw[j, _LEFT]
    right = iw[j, _RIGHT]
    lp = fw[left, _MPI] - lw[j, _LPI]
    lt = fw[left, _MTAU] - lw[j, _LTAU]
    rp = fw[right, _MPI] - lw[j, _RPI]
    rt = fw[right, _MTAU] - lw[j, _RTAU]
    # the difference of the two teams' cavities: precision lp rp / (lp + rp)
    total = lp + rp
    cav_pi = lp * rp / total
    cav_tau = (lt * rp - rt * lp) / total
    old_pi = cav_pi + lw[j, _XPI]
    old_tau = cav_tau + lw[j, _XTAU]
    sqrt_pi = math.sqrt(cav_pi)
    v, wt = truncated(cav_tau / sqrt_pi, lw[j, _E] * sqrt_pi, lw[j, _DRAW] != 0.0)
    shrink = 1.0 / (1.0 - wt)
    new_pi = cav_pi * shrink
    new_tau = (cav_tau + sqrt_pi * v) * shrink
    lw[j, _XPI] = new_pi - cav_pi
    lw[j, _XTAU] = new_tau - cav_tau
    if not check:
        return False
    if old_pi <= 0.0:
        return True
    dm = abs(new_tau / new_pi - old_tau / old_pi)
    if dm > tolerance:
        return True
    if math.isnan(dm):  # a change that cannot be measured does not hold the sweeps
        return False
    return abs(math.sqrt(1.0 / new_pi) - math.sqrt(1.0 / old_pi)) > tolerance


@inline
def _diff_up(j: int, to_right: bool, iw: np.ndarray, fw: np.ndarray, lw: np.ndarray) -> None:
    """Difference factor ``j`` up: to its right team (``right = left - d``) or its left team
    (``left = d + right``)."""
    left = iw[j, _LEFT]
    right = iw[j, _RIGHT]
    tp = lw[j, _XPI]
    tt = lw[j, _XTAU]
    if to_right:
        op = fw[left, _MPI] - lw[j, _LPI]
        ot = fw[left, _MTAU] - lw[j, _LTAU]
        np_, nt = _sum_message(tp, tt, op, ot, -1.0)
        fw[right, _MPI] += np_ - lw[j, _RPI]
        fw[right, _MTAU] += nt - lw[j, _RTAU]
        lw[j, _RPI] = np_
        lw[j, _RTAU] = nt
    else:
        op = fw[right, _MPI] - lw[j, _RPI]
        ot = fw[right, _MTAU] - lw[j, _RTAU]
        np_, nt = _sum_message(tp, tt, op, ot, 1.0)
        fw[left, _MPI] += np_ - lw[j, _LPI]
        fw[left, _MTAU] += nt - lw[j, _LTAU]
        lw[j, _LPI] = np_
        lw[j, _LTAU] = nt


@inline
def setup_game(
    b: int,
    ptr: np.ndarray,
    mu: np.ndarray,
    pv: np.ndarray,
    w: np.ndarray,
    rank: np.ndarray,
    z: float,
    beta: float,
    sigma_floor: float,
    iw: np.ndarray,
    fw: np.ndarray,
    lw: np.ndarray,
    out_mu: np.ndarray,
    out_sigma: np.ndarray,
    noise: np.ndarray,
    offset: np.ndarray,
    margin: np.ndarray,
) -> None:
    """Lay out one game in the lane whose scratch rows start at ``b``: its teams' order and
    performance priors and its chain of difference factors, the number of links in
    ``iw[b, _LINKS]``. Two teams are rated here in closed form (no links)."""
    n = rank.shape[0]
    beta2 = beta * beta
    # order: ranked teams by rank (stable insertion sort), unranked last
    n_ranked = 0
    for t in range(n):
        r = rank[t]
        if not math.isnan(r):
            j = n_ranked
            while j > 0 and rank[iw[b + j - 1, _ORDER]] > r:
                iw[b + j, _ORDER] = iw[b + j - 1, _ORDER]
                j -= 1
            iw[b + j, _ORDER] = t
            n_ranked += 1
    k = n_ranked
    for t in range(n):
        if math.isnan(rank[t]):
            iw[b + k, _ORDER] = t
            k += 1
    for t in range(n):
        cnt = 0
        for s in range(ptr[t], ptr[t + 1]):
            if w[s] > 0.0 and noise[s] > 0.0:
                cnt += 1
        iw[b + t, _PRESENT] = cnt
    if n == 2:  # one truncation: the closed form is exact
        left = iw[b, _ORDER]
        right = iw[b + 1, _ORDER]
        tied = (not math.isnan(rank[right])) and rank[left] == rank[right]
        e = margin_from_quantile(z, iw[b + left, _PRESENT] + iw[b + right, _PRESENT], beta)
        y = margin[0] if left == 0 else -margin[0]
        two_teams(
            ptr[left], ptr[left + 1], ptr[right], ptr[right + 1],
            mu, pv, w, e, tied, beta2, out_mu, out_sigma,
            noise, offset[left] - offset[right], y, margin[1],
        )  # fmt: skip
        for s in range(ptr[0], ptr[2]):
            if w[s] != 0.0:
                sg = math.sqrt(out_sigma[s])
                out_sigma[s] = sg if sg >= sigma_floor else sigma_floor
        iw[b, _LINKS] = 0
        return
    # team performance priors (sum of weighted performances)
    for t in range(n):
        mean = offset[t]
        var = 0.0
        for s in range(ptr[t], ptr[t + 1]):
            mean += w[s] * mu[s]
            var += w[s] * w[s] * (pv[s] + noise[s] * beta2)
        fw[b + t, _TPI] = 1.0 / var
        fw[b + t, _TTAU] = mean / var
        fw[b + t, _MPI] = fw[b + t, _TPI]
        fw[b + t, _MTAU] = fw[b + t, _TTAU]
    # the difference factors: adjacent ranked teams, each unranked team below the lowest ranked
    m = n - 1
    for j in range(m):
        left = iw[b + j, _ORDER] if j < n_ranked - 1 else iw[b + n_ranked - 1, _ORDER]
        right = iw[b + j + 1, _ORDER]
        iw[b + j, _LEFT] = b + left
        iw[b + j, _RIGHT] = b + right
        lw[b + j, :] = 0.0
        lw[b + j, _E] = margin_from_quantile(
            z, iw[b + left, _PRESENT] + iw[b + right, _PRESENT], beta
        )
        tied = (not math.isnan(rank[right])) and rank[left] == rank[right]
        lw[b + j, _DRAW] = 1.0 if tied else 0.0
    iw[b, _LINKS] = m


@jit
def sweep_lanes(
    lanes: int, rows: int, tolerance: float, max_iterations: int, iw: np.ndarray,
    fw: np.ndarray, lw: np.ndarray,
) -> None:  # fmt: skip
    """The message-passing schedule of every lane's game (lane ``L``'s rows start at ``L *
    rows``), run in lockstep: each game's own steps in their order, the lanes' steps
    interleaved so that the processor overlaps their chains of dependent arithmetic.

    Each game sweeps forward and backward until no truncation message of a sweep moves its
    difference marginal by more than ``tolerance`` (once one has, the sweep's other changes
    are not measured). ``iw[b + 1, _LINKS]`` becomes 1 for a game that settled (or had nothing
    to sweep) and stays 0 for one that did not within ``max_iterations`` sweeps."""
    longest = 0
    for lane in range(lanes):
        b = lane * rows
        m = iw[b, _LINKS]
        iw[b + 1, _LINKS] = 0 if m > 0 else 1
        longest = max(longest, m)
    if longest == 0:
        return
    for sweep in range(max_iterations):
        for lane in range(lanes):
            fw[lane * rows, _MOVED] = 0.0
        # forward: each difference's evidence to its right team
        for j in range(longest):
            for lane in range(lanes):
                b = lane * rows
                if iw[b + 1, _LINKS] != 0 or j >= iw[b, _LINKS]:
                    continue
                # at each turn of the sweep the link was just processed and nothing it depends
                # on has changed since: its truncation message stands
                if (j > 0 or sweep == 0) and _down_and_truncate(
                    b + j, iw, fw, lw, fw[b, _MOVED] == 0.0, tolerance
                ):
                    fw[b, _MOVED] = 1.0
                _diff_up(b + j, True, iw, fw, lw)
        # backward: to its left team
        for step in range(longest):
            for lane in range(lanes):
                b = lane * rows
                m = iw[b, _LINKS]
                j = m - 1 - step
                if iw[b + 1, _LINKS] != 0 or j < 0:
                    continue
                if j < m - 1 and _down_and_truncate(
                    b + j, iw, fw, lw, fw[b, _MOVED] == 0.0, tolerance
                ):
                    fw[b, _MOVED] = 1.0
                _diff_up(b + j, False, iw, fw, lw)
        moving = False
        for lane in range(lanes):
            b = lane * rows
            if iw[b + 1, _LINKS] == 0:
                if fw[b, _MOVED] == 0.0:
                    iw[b + 1, _LINKS] = 1
                else:
                    moving = True
        if not moving:
            return


@inline
def finish_game(
    b: int,
    ptr: np.ndarray,
    mu: np.ndarray,
    pv: np.ndarray,
    w: np.ndarray,
    beta: float,
    sigma_floor: float,
    iw: np.ndarray,
    fw: np.ndarray,
    lw: np.ndarray,
    out_mu: np.ndarray,
    out_sigma: np.ndarray,
    noise: np.ndarray,
    offset: np.ndarray,
) -> None:
    """The settled game of the lane at rows ``b``: the final message to every right team, then
    from each team's performance back to its players' skills."""
    m = iw[b, _LINKS]
    if m == 0:  # rated in closed form by setup_game
        return
    n = m + 1
    beta2 = beta * beta
    for j in range(m):  # final message to every right team
        _diff_up(b + j, True, iw, fw, lw)
    for t in range(n):
        g_pi = fw[b + t, _MPI] - fw[b + t, _TPI]
        g_tau = fw[b + t, _MTAU] - fw[b + t, _TTAU]
        if g_pi <= 0.0:  # the outcome says nothing about this team: priors stand
            for s in range(ptr[t], ptr[t + 1]):
                if w[s] != 0.0:
                    out_mu[s] = mu[s]
                    sg = math.sqrt(pv[s])
                    out_sigma[s] = sg if sg >= sigma_floor else sigma_floor
            continue
        g_mu = g_tau / g_pi
        g_var = 1.0 / g_pi
        total_mean = offset[t]
        total_var = 0.0
        for s in range(ptr[t], ptr[t + 1]):
            total_mean += w[s] * mu[s]
            total_var += w[s] * w[s] * (pv[s] + noise[s] * beta2)
        for s in range(ptr[t], ptr[t + 1]):
            ws = w[s]
            if ws == 0.0:
                continue
            p = pv[s]
            nb2 = noise[s] * beta2
            # performance message (team - the others) / w, then through the performance noise
            p_mean = (g_mu - (total_mean - ws * mu[s])) / ws
            p_var = (g_var + total_var - ws * ws * (p + nb2)) / (ws * ws)
            s_var = p_var + nb2
            post_pi = 1.0 / p + 1.0 / s_var
            post_tau = mu[s] / p + p_mean / s_var
            out_mu[s] = post_tau / post_pi
            sg = math.sqrt(1.0 / post_pi)
            out_sigma[s] = sg if sg >= sigma_floor else sigma_floor


@jit
def update_match(
    ptr: np.ndarray,
    mu: np.ndarray,
    pv: np.ndarray,
    w: np.ndarray,
    rank: np.ndarray,
    z: float,
    beta: float,
    sigma_floor: float,
    tolerance: float,
    max_iterations: int,
    iw: np.ndarray,
    fw: np.ndarray,
    lw: np.ndarray,
    out_mu: np.ndarray,
    out_sigma: np.ndarray,
    noise: np.ndarray,
    offset: np.ndarray,
    margin: np.ndarray,
) -> bool:
    """TrueSkill's update of one game; ``False`` if message passing did not converge.

    Team ``t`` holds the slots ``ptr[t]:ptr[t+1]`` of ``mu`` (mean), ``pv`` (prior variance:
    sigma^2, drift and tau^2), ``w`` (weight) and ``noise`` (the slot's share of ``beta^2``: 1
    for a player, 0 for a virtual player such as a role's advantage, which adds skill but no
    performance noise and does not count towards the draw margin); ``offset[t]`` is a known
    amount added to team ``t``'s performance (a deal's luck); ``margin`` is ``(y, s2)``: for two
    teams, the performance difference of team 0 over team 1 observed as ``N(y, s2)`` (NaN
    ``y``: not observed); ``rank`` is NaN for an unranked team; ``z`` is the draw margin's
    normal quantile. The new mean and sigma (at least ``sigma_floor``) of
    every slot with a positive weight go to ``out_mu``/``out_sigma``; other slots are left as
    they are. ``iw``/``fw``/``lw``: scratch from :func:`workspace` (one lane).

    The same three steps rate several games at once in the replay (:func:`replay_trueskill`):
    :func:`setup_game` per game, :func:`sweep_lanes` over all of them, :func:`finish_game` per game.
    """
    if rank.shape[0] == 2:
        # two teams, rated in closed form by setup_game: a branch of their own, with no call that
        # takes the arrays after it, is ~25% faster (numba then drops the reference counting)
        setup_game(
            0, ptr, mu, pv, w, rank, z, beta, sigma_floor, iw, fw, lw, out_mu, out_sigma,
            noise, offset, margin,
        )  # fmt: skip
        return True
    setup_game(
        0, ptr, mu, pv, w, rank, z, beta, sigma_floor, iw, fw, lw, out_mu, out_sigma,
        noise, offset, margin,
    )  # fmt: skip
    sweep_lanes(1, iw.shape[0], tolerance, max_iterations, iw, fw, lw)
    if not lane_settled(iw, 0):
        return False
    finish_game(0, ptr, mu, pv, w, beta, sigma_floor, iw, fw, lw, out_mu, out_sigma, noise, offset)
    return True


@inline
def lane_settled(iw: np.ndarray, b: int) -> bool:
    """Whether the game of the lane at rows ``b`` settled in :func:`sweep_lanes` (or was rated
    in closed form)."""
    return iw[b + 1, _LINKS] != 0
