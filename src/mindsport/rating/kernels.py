"""Compiled TrueSkill (numba): the one update of a match, and the replay of many.

:func:`update_match` rates one game: teams ordered by rank (stable, unranked last), two teams in
closed form (:func:`two_teams`, the graph's single truncation), more teams by the patent's
message-passing schedule over the chain of team differences (forward and backward sweeps until
no truncation message moves a difference marginal by more than the tolerance), partial play
(weights), ties and partial rankings. :meth:`mindsport.rating.TrueSkill.rate` calls it for one
game (:func:`rate_game`), :func:`replay_trueskill` for every match of a block, and
:class:`mindsport.rating.PairwiseTrueSkill` repeats :func:`two_teams` pair by pair
(:func:`pairwise_update`). The explicit factor graph of :mod:`mindsport.rating.factors` is the
readable form of the same schedule; the tests hold the two together.

The scalar maths (normal distribution, truncated moments, drift, draw margin, predictions) are
the plain functions of :mod:`.gaussian`, :mod:`.truncation`, :mod:`.formulas` and
:mod:`mindsport.match`, compiled as written (:mod:`mindsport.rating.compiled`).

Matches arrive as flat arrays (CSR layout, :class:`mindsport.rating.batch.MatchBlock`): no Python
object per match, no allocation per match.

The update of a game of three or more teams is a chain of dependent divisions, square roots and
error functions: one game alone leaves most of the processor idle. The replay therefore lays
out up to :data:`LANES` consecutive games that share no player (:func:`_setup`), runs their
sweeps in lockstep (:func:`_sweeps`: each game's steps in its own order, so its numbers are
exactly those of :func:`update_match` alone) and writes them back in match order
(:func:`_finish`, :func:`_flush`). ``update_match`` is the same three steps with one lane.
"""

from __future__ import annotations

import math

import numpy as np

from mindsport.rating.blockkernels import block_sizes, load_match, team_pointers
from mindsport.rating.compiled import (
    ahead_probability,
    difference_moments,
    drifted_sigma,
    margin_from_quantile,
    margin_moments,
    norm_cdf,
    pair_outcome,
    truncated,
    win_moments,
)
from mindsport.rating.jit import inline, jit

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
def _setup(
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
def _sweeps(
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
def _finish(
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
    if m == 0:  # rated in closed form by _setup
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
    :func:`_setup` per game, :func:`_sweeps` over all of them, :func:`_finish` per game.
    """
    if rank.shape[0] == 2:
        # two teams, rated in closed form by _setup: a branch of their own, with no call that
        # takes the arrays after it, is ~25% faster (numba then drops the reference counting)
        _setup(
            0, ptr, mu, pv, w, rank, z, beta, sigma_floor, iw, fw, lw, out_mu, out_sigma,
            noise, offset, margin,
        )  # fmt: skip
        return True
    _setup(
        0, ptr, mu, pv, w, rank, z, beta, sigma_floor, iw, fw, lw, out_mu, out_sigma,
        noise, offset, margin,
    )  # fmt: skip
    _sweeps(1, iw.shape[0], tolerance, max_iterations, iw, fw, lw)
    if iw[1, _LINKS] == 0:
        return False
    _finish(0, ptr, mu, pv, w, beta, sigma_floor, iw, fw, lw, out_mu, out_sigma, noise, offset)
    return True


@jit
def rate_game(
    buf: np.ndarray,
    settings: np.ndarray,
    teams: int,
    n: int,
    extra: bool,
    ordered: bool,
    aux: np.ndarray,
) -> bool:
    """:func:`update_match` for one game packed in ``buf``: the team sizes (``teams``), the
    ranks (``teams``, NaN unranked; with ``ordered``, input order: the kernel writes 0, 1, ...
    there), the mu and the sigma of the ``n`` players and, with ``extra``, their weights and
    elapsed times (else 1 and 0). The new mu and sigma overwrite the old. ``settings``: the
    quantile of the draw margin, beta, tau, drift, the new-player sigma, the sigma floor (0:
    none), the tolerance and the iteration limit. ``aux`` is empty (players only, no offsets, no
    margin) or holds each slot's noise share and ``tau`` flag (``n`` each; a virtual player,
    flags 0, has neither noise nor dynamics), each team's offset (``teams``) and the observed
    margin ``(y, s2)`` (see :func:`update_match`)."""
    z, beta, tau, drift, sigma0, floor, tolerance = settings[:7]
    max_iterations = int(settings[7])
    ptr = team_pointers(buf, teams)
    rank = buf[teams : 2 * teams]
    if ordered:
        for t in range(teams):
            rank[t] = t
    at = 2 * teams
    mu = buf[at : at + n]
    sigma = buf[at + n : at + 2 * n]
    # one scratch array for everything per slot and per team (this runs once per rate() call:
    # allocations count); its slices are the arrays update_match takes
    scratch = np.empty(5 * n + teams + 2)
    pv = scratch[:n]
    out_mu = scratch[n : 2 * n]
    out_sigma = scratch[2 * n : 3 * n]
    out_mu[:] = mu
    out_sigma[:] = sigma
    if extra:
        w = buf[at + 2 * n : at + 3 * n]
    else:
        w = scratch[3 * n : 4 * n]
        w[:] = 1.0
    if aux.shape[0] == 0:
        noise = scratch[4 * n : 5 * n]
        noise[:] = 1.0
        offset = scratch[5 * n : 5 * n + teams]
        offset[:] = 0.0
        margin = scratch[5 * n + teams : 5 * n + teams + 2]
        margin[0] = math.nan
        margin[1] = 1.0
    else:
        noise = aux[:n]
        offset = aux[2 * n : 2 * n + teams]
        margin = aux[2 * n + teams : 2 * n + teams + 2]
    tau2 = tau * tau
    for s in range(n):
        if aux.shape[0] != 0 and aux[n + s] == 0.0:  # no dynamics (a virtual player)
            pv[s] = sigma[s] * sigma[s]
            continue
        elapsed = buf[at + 3 * n + s] if extra else 0.0
        sg = drifted_sigma(sigma[s], elapsed, drift, sigma0)
        pv[s] = sg * sg + tau2
    iw, fw, lw = workspace(teams)
    ok = update_match(
        ptr, mu, pv, w, rank, z, beta, floor, tolerance, max_iterations,
        iw, fw, lw, out_mu, out_sigma, noise, offset, margin,
    )  # fmt: skip
    mu[:] = out_mu
    sigma[:] = out_sigma
    return ok


@jit
def predict_pairs(
    ptr: np.ndarray,
    rank: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    z: float,
    beta: float,
    tau: float,
    team_mu: np.ndarray,
    team_var: np.ndarray,
    k: int,
    pair_a: np.ndarray,
    pair_b: np.ndarray,
    prob: np.ndarray,
    outcome: np.ndarray,
    noise: np.ndarray,
    offset: np.ndarray,
) -> int:
    """Pre-game predictions of every decided pair ``a < b`` of one match (team ``t`` holds the
    slots ``ptr[t]:ptr[t+1]`` of ``mu``/``sigma``), written from position ``k`` on: ``P(a ahead
    of b)`` with the draw taken out, under TrueSkill's performance model (every player counts
    fully; ``noise`` and ``offset`` as in :func:`update_match`: a virtual player, noise 0, adds
    its skill and its uncertainty but neither noise nor dynamics). Returns the next position."""
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
            e = margin_from_quantile(z, size, beta)
            c = math.sqrt(team_var[a] + team_var[b])
            pair_a[k] = a
            pair_b[k] = b
            prob[k] = ahead_probability(team_mu[a] - team_mu[b], c, e)
            outcome[k] = o
            k += 1
    return k


@jit
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


@jit
def predict_and_update(
    ptr: np.ndarray,
    rank: np.ndarray,
    slots: tuple[np.ndarray, ...],
    team: tuple[np.ndarray, ...],
    settings: np.ndarray,
    work: tuple[np.ndarray, ...],
    k: int,
    predict: bool,
    results: tuple[np.ndarray, ...],
) -> tuple[bool, int]:
    """One loaded match of a replay: its pre-game predictions from position ``k`` (with
    ``predict``, :func:`predict_pairs`), then :func:`update_match`. ``slots = (mu, sigma,
    prior variance, weight, noise, out_mu, out_sigma)``, ``team = (offset, margin)``, ``work =
    (iw, fw, lw, team_mu, team_var)``; ``settings`` and ``results`` as for
    :func:`replay_trueskill`. Returns whether it converged and the next prediction position."""
    smu, ssig, pv, sw, noise, out_mu, out_sigma = slots
    offset, margin = team
    iw, fw, lw, team_mu, team_var = work
    _post, pair_a, pair_b, prob, outcome = results
    z, beta, tau = settings[0], settings[1], settings[2]
    sigma_floor, tolerance = settings[5], settings[6]
    max_iterations = int(settings[7])
    if predict:
        k = predict_pairs(
            ptr, rank, smu, ssig, z, beta, tau, team_mu, team_var,
            k, pair_a, pair_b, prob, outcome, noise, offset,
        )  # fmt: skip
    ok = update_match(
        ptr, smu, pv, sw, rank, z, beta, sigma_floor, tolerance, max_iterations,
        iw, fw, lw, out_mu, out_sigma, noise, offset, margin,
    )  # fmt: skip
    return ok, k


#: games of more than two players that the replay rates side by side (see :func:`_sweeps`)
LANES = 2


@jit
def _shares_player(
    s0: int, ns: int, players: np.ndarray, team_ptr: np.ndarray, player_ptr: np.ndarray,
    lane_match: np.ndarray, pending: int,
) -> bool:  # fmt: skip
    """Whether the slots ``s0:s0+ns`` name a player of a match waiting in a lane."""
    for lane in range(pending):
        i = lane_match[lane]
        a0 = player_ptr[team_ptr[i]]
        a1 = player_ptr[team_ptr[i + 1]]
        for q in range(s0, s0 + ns):
            p = players[q]
            for r in range(a0, a1):
                if players[r] == p:
                    return True
    return False


@jit
def _flush(
    pending: int,
    lane_match: np.ndarray,
    block: tuple[np.ndarray, ...],
    table: np.ndarray,
    lanes: tuple[np.ndarray, ...],
    work: tuple[np.ndarray, ...],
    settings: np.ndarray,
    keep: bool,
    post: np.ndarray,
) -> int:
    """Rate the ``pending`` matches laid out in the lanes (:func:`_sweeps` over all of them),
    then write each one's players back to ``table`` (and ``post`` with ``keep``) in match
    order. Returns -1, or the index of the first match that did not converge (the matches
    before it are written, the others not)."""
    team_ptr, player_ptr, players, _, _, times = block
    ptr, smu, pv, sw, out_mu, out_sigma, noise, offset = lanes
    iw, fw, lw = work
    beta, sigma_floor, tolerance = settings[1], settings[5], settings[6]
    rows = iw.shape[0] // ptr.shape[0]
    width = smu.shape[0] // ptr.shape[0]
    _sweeps(pending, rows, tolerance, int(settings[7]), iw, fw, lw)
    with_time = post.shape[1] > 2
    for lane in range(pending):
        i = lane_match[lane]
        b = lane * rows
        if iw[b + 1, _LINKS] == 0:
            return i
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        ns = player_ptr[t0 + n] - s0
        now = times[i]
        _finish(
            b, ptr[lane, : n + 1], smu, pv, sw, beta, sigma_floor, iw, fw, lw, out_mu,
            out_sigma, noise, offset,
        )  # fmt: skip
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
    block: tuple[np.ndarray, ...],
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    results: tuple[np.ndarray, ...],
) -> int:
    """Rate matches ``0..n-1`` in order with :func:`update_match`, updating the players' rows
    ``(mu, sigma, last time)`` of ``table`` in place (last time NaN: not seen yet; it moves only
    when the player plays with a positive weight). ``settings`` as for :func:`rate_game`.

    With ``keep`` the post-game row of every slot goes to ``post`` (mu, sigma, and the time when
    ``post`` has a third column); with ``predict`` the
    pre-game prediction of every decided pair goes to ``pair_a``/``pair_b`` (team indices within
    the match), ``prob``, ``outcome`` (positions from :func:`count_pairs`). Returns -1, or the
    index of the first match that did not converge.

    A game of two single players playing fully takes a lean path: :func:`two_teams` and
    :func:`predict_pairs` written out for that shape (the same operations, so the same numbers).
    Larger games wait in lanes (see the module docstring) until :data:`LANES` of them are laid
    out, the next game shares a player with one of them or is a lean one, or the block ends.
    """
    team_ptr, player_ptr, players, weights, ranks, times = block
    post, pair_a, pair_b, prob, outcome = results
    z, beta, tau, drift, sigma0, sigma_floor = settings[:6]
    n_matches = team_ptr.shape[0] - 1
    max_teams, max_slots = block_sizes(team_ptr, player_ptr)
    iw, fw, lw = workspace(max_teams, LANES)
    rows_per_lane = iw.shape[0] // LANES
    # lane L's slots are L * max_slots + 0, 1, ... of each slot array; its team pointers count
    # from there
    ptr = np.empty((LANES, max_teams + 1), np.int64)
    smu = np.empty(LANES * max_slots)
    ssig = np.empty(LANES * max_slots)
    pv = np.empty(LANES * max_slots)
    sw = np.empty(LANES * max_slots)
    out_mu = np.empty(LANES * max_slots)
    out_sigma = np.empty(LANES * max_slots)
    team_mu = np.empty(max_teams)
    team_var = np.empty(max_teams)
    players_only = np.ones(LANES * max_slots)
    no_offset = np.zeros(max_teams)
    no_margin = np.array([math.nan, 1.0])
    lanes = (ptr, smu, pv, sw, out_mu, out_sigma, players_only, no_offset)
    work = (iw, fw, lw)
    lane_match = np.empty(LANES, np.int64)
    pending = 0  # matches laid out in the lanes, not yet rated
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
        if n == 2 and ns == 2 and weights[s0] == 1.0 and weights[s0 + 1] == 1.0:
            if pending > 0:  # the waiting matches first: a failure leaves no later match rated
                bad = _flush(pending, lane_match, block, table, lanes, work, settings, keep, post)
                pending = 0
                if bad >= 0:
                    return bad
            pa = players[s0]
            pb = players[s0 + 1]
            ra = ranks[t0]
            rb = ranks[t0 + 1]
            win = 0.0
            loss = 0.0
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
            # widened a player: then both tails are computed afresh for the update
            c2 = (pv_b + beta2) + (pv_a + beta2) if b_ahead else (pv_a + beta2) + (pv_b + beta2)
            c = math.sqrt(c2)
            x_win = (d - e2) / c
            x_loss = (-d - e2) / c
            if predict:
                cp = c
                if drift > 0.0:
                    cp = math.sqrt((sg_a * sg_a + tau2 + beta2) + (sg_b * sg_b + tau2 + beta2))
                win = norm_cdf((d - e2) / cp)
                loss = norm_cdf((-d - e2) / cp)
                total = win + loss
                pair_a[k] = 0
                pair_b[k] = 1
                prob[k] = win / total if total > 0.0 else 0.5
                outcome[k] = 0.5 if tied else (0.0 if b_ahead else 1.0)
                k += 1
                if cp != c:
                    win = norm_cdf(x_win)
                    loss = norm_cdf(x_loss)
            if b_ahead:  # b is the left (better) team
                pa, pb = pb, pa
                mu_a, mu_b = mu_b, mu_a
                pv_a, pv_b = pv_b, pv_a
            if tied:
                v, wt = difference_moments(mu_a - mu_b, c, e2, True)
            elif b_ahead:
                v, wt = win_moments(x_loss, loss if predict else norm_cdf(x_loss))
            else:
                v, wt = win_moments(x_win, win if predict else norm_cdf(x_win))
            table[pa, 0] = mu_a + pv_a / c * v
            table[pb, 0] = mu_b - pv_b / c * v
            sg = math.sqrt(pv_a * (1.0 - pv_a / c2 * wt))
            table[pa, 1] = sg if sg >= sigma_floor else sigma_floor
            sg = math.sqrt(pv_b * (1.0 - pv_b / c2 * wt))
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
        # a larger match waits in a lane until the lanes are full or a match shares a player
        if pending > 0 and _shares_player(
            s0, ns, players, team_ptr, player_ptr, lane_match, pending
        ):
            bad = _flush(pending, lane_match, block, table, lanes, work, settings, keep, post)
            pending = 0
            if bad >= 0:
                return bad
        lane = pending
        o = lane * max_slots
        lp = ptr[lane, : n + 1]
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
                lp, rank, smu, ssig, z, beta, tau, team_mu, team_var,
                k, pair_a, pair_b, prob, outcome, players_only, no_offset,
            )  # fmt: skip
        _setup(
            lane * rows_per_lane, lp, smu, pv, sw, rank, z, beta, sigma_floor, iw, fw, lw,
            out_mu, out_sigma, players_only, no_offset, no_margin,
        )  # fmt: skip
        lane_match[lane] = i
        pending += 1
        if pending == LANES:
            bad = _flush(pending, lane_match, block, table, lanes, work, settings, keep, post)
            pending = 0
            if bad >= 0:
                return bad
    workspace_sink[0] = ahead
    if pending > 0:
        return _flush(pending, lane_match, block, table, lanes, work, settings, keep, post)
    return -1


# ------------------------------------------------------------------------------- pairwise


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
    team_mu = np.empty(max_teams)
    team_var = np.empty(max_teams)
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
                ptr[: n + 1], rank, smu, ssig, z, beta, tau, team_mu, team_var,
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
