"""TrueSkill's update of one game, compiled (numba): the one implementation of the arithmetic.

:func:`update_match` rates one game: teams ordered by rank (stable, unranked last), two teams in
closed form (:func:`two_teams`, the graph's single truncation), more teams by the patent's
message-passing schedule over the chain of team differences (forward and backward sweeps until
no truncation message moves a difference marginal by more than the tolerance), partial play
(weights), ties and partial rankings. The explicit factor graph of
:mod:`mindsport.rating.trueskill.factors` is the readable form of the same schedule; the tests
hold the two together. The callers: ``rate()`` of one game (:func:`rate_game`), the replay of
many (:mod:`mindsport.rating.trueskill.replay_kernel`), the pairwise model, the card-play
model's replay and the whole-history model.

The update of a game of three or more teams is a chain of dependent divisions, square roots and
error functions: one game alone leaves most of the processor idle. So the update is three steps that
can take several games ("lanes") at once: :func:`setup_game` lays out a game in a lane of the
scratch arrays, :func:`sweep_lanes` runs the lanes' schedules in lockstep and :func:`finish_game`
passes a settled game's messages back to its players. The sweep is written once, generically
(:mod:`mindsport._jit.lanes`): ``update_match`` compiles it for one game on floats; the replay
(:func:`mindsport.rating.trueskill.replay_kernel.replay_trueskill`) compiles it for vectors and
sweeps :data:`~mindsport._jit.lanes.WIDTH` games that share no player with one instruction per step.
Each game's steps are those of the game alone, whatever its lane and its neighbours; the vector
error function and exponential agree with the C library's to a few units in the last place, so a
game rated alone and rated in the replay agree to about 1e-14 (not bit for bit), and every replay of
the same games gives the same bits.

The scalar maths (normal distribution, truncated moments, draw margin) are the plain functions
of :mod:`.gaussian`, :mod:`.truncation` and :mod:`.formulas`, compiled as written
(:mod:`mindsport.rating.compiled`).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from mindsport._jit.compiling import inline, jit
from mindsport._jit.lanes import (
    all_lanes,
    any_lane,
    gather,
    invert,
    lane,
    lanewise,
    load,
    scatter,
    store,
    where,
    width,
    with_lane,
)
from mindsport.rating.compiled import (
    clip_margin,
    difference_moments,
    drifted_sigma,
    margin_from_quantile,
    margin_moments,
    norm_cdf,
    truncated,
    win_main,
    win_moments,
)
from mindsport.rating.gaussian import TAIL
from mindsport.rating.replay.block_kernel import team_pointers
from mindsport.rating.truncation import W_HIGH, W_LOW

# the truncation of the lanes that the vector formula does not cover, lane by lane
_retruncate = lanewise(truncated)

__all__ = [
    "Known",
    "Rules",
    "Slots",
    "Workspace",
    "duel",
    "finish_game",
    "lane_settled",
    "rate_game",
    "setup_game",
    "skill_after",
    "sweep_lanes",
    "two_teams",
    "update_match",
    "workspace",
]


class Rules(NamedTuple):
    """What the update of one game reads of the model's settings."""

    #: normal quantile of the draw margin (0: no draws)
    z: float
    #: performance noise
    beta: float
    #: least sigma after a game (0: none)
    sigma_floor: float
    #: the message passing stops when no difference marginal moves by more
    tolerance: float
    #: safety limit on its sweeps
    max_iterations: int


class Known(NamedTuple):
    """What is known of a game besides its result (the teams ``t`` hold the slots
    ``ptr[t]:ptr[t+1]`` of :class:`Slots`, ``rank[t]`` their ranks, NaN: unranked)."""

    #: a known amount added to each team's performance (a deal's luck)
    offset: np.ndarray
    #: ``(y, s2)``: for two teams, the performance difference of team 0 over team 1 observed
    #: as ``N(y, s2)`` (NaN ``y``: not observed); for more teams, optionally followed by each
    #: team's score on the performance scale (``margin[2 + t]``, NaN: none): the difference of
    #: two teams adjacent in the finishing order, both ranked and both with a score, is
    #: observed as ``N(score_left - score_right, s2)`` (clipped as
    #: :func:`~mindsport.rating.formulas.clip_margin` says)
    margin: np.ndarray


class Slots(NamedTuple):
    """Per player slot, what the update reads and what it writes."""

    #: skill mean
    mu: np.ndarray
    #: prior variance: sigma^2, drift and the dynamics tau^2
    pv: np.ndarray
    #: weight (partial play; 0: no update)
    w: np.ndarray
    #: the slot's share of the performance noise beta^2: 1 a player, 0 a virtual player (skill
    #: without noise of its own, not counted in the draw margin)
    noise: np.ndarray
    #: the new mean and sigma (the closed form of two teams leaves the variance in ``out_sigma``
    #: for its caller to take the root of)
    out_mu: np.ndarray
    out_sigma: np.ndarray


class Workspace(NamedTuple):
    """The scratch of :func:`sweep_lanes`, shaped (rows, fields, lanes) (see the layout below)."""

    #: integer fields: team order, present players, a link's left team row, the lane's links
    iw: np.ndarray
    #: float fields per team row
    fw: np.ndarray
    #: float fields per link row
    lw: np.ndarray


# Scratch, shaped (rows, fields, lanes): lane k is game k. A game of n teams has m = n - 1 links
# (difference factors); with top = rows - 1 its teams in finishing order sit in the rows
# top - m .. top and its links in the rows top - m .. top - 1, link r joining the teams of rows
# r (left, ahead; for an unranked team, the lowest ranked one) and r + 1 (right). Games of
# different sizes are aligned at the bottom, so the sweeps of all lanes visit the same rows.
# integer fields: a team's place in the order (rows 0..n-1), a team's present players (by team
# index), a link's left team row; _LINKS, in rows 0 and 1: the lane's links, settled (1) or not
_ORDER, _PRESENT, _LEFT, _LINKS = 0, 1, 2, 3
# float fields per team row: performance prior and marginal (natural parameters)
_TPI, _TTAU, _MPI, _MTAU = 0, 1, 2, 3
# float fields per link row: margin, draw flag, messages to the left/right team, truncation,
# the observed score margin's natural parameters (precision 1 / s2 and y / s2; 0: none)
_E, _DRAW, _LPI, _LTAU, _RPI, _RTAU, _XPI, _XTAU, _YPI, _YTAU = range(10)


@jit
def workspace(max_teams: int, lanes: int = 1) -> Workspace:
    """Scratch arrays for ``lanes`` games of up to ``max_teams`` teams each (allocated once per
    block; see the layout above)."""
    rows = max(max_teams, 2)
    return Workspace(
        np.zeros((rows, 4, lanes), np.int64),
        np.zeros((rows, 4, lanes)),
        np.zeros((rows, 10, lanes)),
    )


@inline
def duel(d: float, c: float, e: float, tied: bool, y: float, s2: float, tail: float) -> Any:
    """The closed form of two teams: ``(v, w)`` of the truncation of their performance
    difference ``N(d, c^2)`` (left minus right) to a win of the left team (``> e``) or, when
    ``tied``, a draw (``|.| <= e``); with a finite ``y`` the difference was observed as
    ``y ~ N(d, s2)`` as well (:func:`~mindsport.rating.truncation.margin_moments`). ``tail``:
    ``norm_cdf((d - e) / c)`` when the caller has it already (NaN: computed here).

    A skill then moves by its covariance with the difference (:func:`skill_after`). The one
    closed form of two teams: :func:`two_teams` for teams of any size (and every update of two
    teams), the replay's path for two single players (:func:`~.replay_kernel.replay_trueskill`).
    """
    if not math.isnan(y):
        return margin_moments(d, c, e, tied, y, s2)
    if tied:
        return difference_moments(d, c, e, True)
    x = (d - e) / c
    return win_moments(x, norm_cdf(x) if math.isnan(tail) else tail)


@inline
def skill_after(mu: float, p: float, sw: float, c: float, c2: float, v: float, wt: float) -> Any:
    """The new mean and variance of a skill ``N(mu, p)`` in a team that the difference of
    :func:`duel` (variance ``c2 = c^2``, truncation ``v``, ``wt``) counts with the signed weight
    ``sw`` (the player's weight on the left team, minus it on the right one)."""
    return mu + sw * p / c * v, p * (1.0 - sw * sw * p / c2 * wt)


@inline
def two_teams(
    span: tuple[int, int, int, int],
    slots: Slots,
    e: float,
    tied: bool,
    beta2: float,
    observed: tuple[float, float, float],
) -> None:
    """Two teams of a game: the left one, slots ``l0:l1`` of ``span = (l0, l1, r0, r1)``, ahead
    of or, when ``tied``, tied with the right one, slots ``r0:r1`` (draw margin ``e``).

    The team difference ``d = offset + sum w_i p_i - sum w_j p_j`` has variance ``c^2`` (each
    slot's prior variance and its share of the performance noise ``beta2``); its truncation
    (:func:`duel`) gives ``v`` and ``w``, and each skill moves by its covariance with ``d``
    (:func:`skill_after`). ``observed = (offset, y, s2)``: the known performance offset of the
    left team over the right one, and the difference observed as ``y ~ N(d, s2)`` (NaN ``y``:
    not observed). Writes the new mean and variance of every slot with a positive weight to
    ``out_mu`` and ``out_sigma``.
    """
    l0, l1, r0, r1 = span
    offset, y, s2 = observed
    mu = slots.mu
    pv = slots.pv
    w = slots.w
    noise = slots.noise
    out_mu = slots.out_mu
    out_var = slots.out_sigma
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
    v, wt = duel(mean_l - mean_r, c, e, tied, y, s2, math.nan)
    for side in range(2):
        s0 = l0 if side == 0 else r0
        s1 = l1 if side == 0 else r1
        sign = 1.0 if side == 0 else -1.0
        for s in range(s0, s1):
            ws = w[s]
            if ws == 0.0:
                continue
            new_mu, new_var = skill_after(mu[s], pv[s], sign * ws, c, c2, v, wt)
            out_mu[s] = new_mu
            out_var[s] = new_var


@inline
def _sum_message(tp: Any, tt: Any, op: Any, ot: Any, sign: float) -> tuple[Any, Any]:
    """Natural parameters of ``other + sign * d`` (precisions ``op`` and ``tp``); nothing (0, 0)
    unless both are positive."""
    ok = (tp > 0.0) & (op > 0.0)
    np_ = tp * op / (tp + op)
    nt = (tp * ot + sign * op * tt) / (tp + op)
    if all_lanes(ok):  # as a rule (and a plain branch for one game)
        return np_, nt
    return where(ok, np_, 0.0), where(ok, nt, 0.0)


@inline
def _left(proto: Any, r: int, f: int, k: int, iw: np.ndarray, fw: np.ndarray, chain: bool) -> Any:
    """Field ``f`` of the left team of link row ``r`` (row ``r`` itself in a ``chain``), lanes
    from ``k``."""
    if chain:
        return load(proto, fw, r, f, k)
    return gather(proto, fw, iw, r, _LEFT, f, k)


@inline
def _down_and_truncate(
    proto: Any, r: int, k: int, on: Any, moved: Any, iw: np.ndarray, fw: np.ndarray,
    lw: np.ndarray, tolerance: float, chain: bool,
) -> Any:  # fmt: skip
    """Difference factor of link row ``r`` down, then its truncation's message up, in the lanes
    ``on`` (from lane ``k``). Returns ``moved`` with the lanes added whose difference marginal
    moved (in mean or in standard deviation) by more than ``tolerance`` (measured only while
    some lane of ``on`` has not moved yet in this sweep).

    A link whose difference was also observed as ``y ~ N(d, s2)`` (a score margin) has one
    factor ``1[win or draw] N(y; d, s2)``: the Gaussian is absorbed into the cavity exactly
    (precisions add), the result is truncated and moment-matched, and the message sent is the
    matched marginal over the cavity without the observation (as
    :func:`~mindsport.rating.truncation.margin_moments` does for two teams)."""
    lpi = load(proto, lw, r, _LPI, k)
    ltau = load(proto, lw, r, _LTAU, k)
    rpi = load(proto, lw, r, _RPI, k)
    rtau = load(proto, lw, r, _RTAU, k)
    lp = _left(proto, r, _MPI, k, iw, fw, chain) - lpi
    lt = _left(proto, r, _MTAU, k, iw, fw, chain) - ltau
    rp = load(proto, fw, r + 1, _MPI, k) - rpi
    rt = load(proto, fw, r + 1, _MTAU, k) - rtau
    # the difference of the two teams' cavities: precision lp rp / (lp + rp)
    total = lp + rp
    cav_pi = lp * rp / total
    cav_tau = (lt * rp - rt * lp) / total
    xpi = load(proto, lw, r, _XPI, k)
    xtau = load(proto, lw, r, _XTAU, k)
    old_pi = cav_pi + xpi
    old_tau = cav_tau + xtau
    # the cavity with the observed margin absorbed (0 and 0 without one: the cavity itself)
    obs_pi = cav_pi + load(proto, lw, r, _YPI, k)
    obs_tau = cav_tau + load(proto, lw, r, _YTAU, k)
    sqrt_pi = math.sqrt(obs_pi)
    t = obs_tau / sqrt_pi
    e = load(proto, lw, r, _E, k) * sqrt_pi
    draw = load(proto, lw, r, _DRAW, k) != 0.0
    # a win in the main range on every lane at once; draws, far tails and w at its bounds by the
    # scalar truncation, lane by lane (the scalar path gives the same numbers as truncated())
    x = t - e
    v, wt = win_main(x)
    bad = on & (draw | invert(x > TAIL) | invert(wt >= W_LOW) | (wt > W_HIGH))
    if any_lane(bad):
        v, wt = _retruncate(bad, t, e, draw, v, wt)
    shrink = 1.0 / (1.0 - wt)
    new_pi = obs_pi * shrink
    new_tau = (obs_tau + sqrt_pi * v) * shrink
    store(proto, lw, r, _XPI, k, where(on, new_pi - cav_pi, xpi))
    store(proto, lw, r, _XTAU, k, where(on, new_tau - cav_tau, xtau))
    if all_lanes(moved | invert(on)):
        return moved
    dm = abs(new_tau / new_pi - old_tau / old_pi)
    big = (old_pi <= 0.0) | (dm > tolerance)
    # the standard deviation decides where the mean did not (a change that cannot be measured,
    # NaN, does not hold the sweeps)
    if any_lane(on & invert(moved | big) & (dm == dm)):
        sd = abs(math.sqrt(1.0 / new_pi) - math.sqrt(1.0 / old_pi))
        big = big | ((dm == dm) & (sd > tolerance))
    return moved | (on & big)


@inline
def _diff_up(
    proto: Any, r: int, k: int, to_right: bool, on: Any, iw: np.ndarray, fw: np.ndarray,
    lw: np.ndarray, chain: bool,
) -> None:  # fmt: skip
    """Difference factor of link row ``r`` up, in the lanes ``on`` (from lane ``k``): to its
    right team (``right = left - d``) or its left team (``left = d + right``)."""
    tp = load(proto, lw, r, _XPI, k)
    tt = load(proto, lw, r, _XTAU, k)
    if to_right:
        lpi = load(proto, lw, r, _LPI, k)
        ltau = load(proto, lw, r, _LTAU, k)
        op = _left(proto, r, _MPI, k, iw, fw, chain) - lpi
        ot = _left(proto, r, _MTAU, k, iw, fw, chain) - ltau
        np_, nt = _sum_message(tp, tt, op, ot, -1.0)
        rpi = load(proto, lw, r, _RPI, k)
        rtau = load(proto, lw, r, _RTAU, k)
        mp = load(proto, fw, r + 1, _MPI, k)
        mt = load(proto, fw, r + 1, _MTAU, k)
        store(proto, fw, r + 1, _MPI, k, where(on, mp + (np_ - rpi), mp))
        store(proto, fw, r + 1, _MTAU, k, where(on, mt + (nt - rtau), mt))
        store(proto, lw, r, _RPI, k, where(on, np_, rpi))
        store(proto, lw, r, _RTAU, k, where(on, nt, rtau))
        return
    rpi = load(proto, lw, r, _RPI, k)
    rtau = load(proto, lw, r, _RTAU, k)
    op = load(proto, fw, r + 1, _MPI, k) - rpi
    ot = load(proto, fw, r + 1, _MTAU, k) - rtau
    np_, nt = _sum_message(tp, tt, op, ot, 1.0)
    lpi = load(proto, lw, r, _LPI, k)
    ltau = load(proto, lw, r, _LTAU, k)
    mp = _left(proto, r, _MPI, k, iw, fw, chain)
    mt = _left(proto, r, _MTAU, k, iw, fw, chain)
    mp = where(on, mp + (np_ - lpi), mp)
    mt = where(on, mt + (nt - ltau), mt)
    if chain:
        store(proto, fw, r, _MPI, k, mp)
        store(proto, fw, r, _MTAU, k, mt)
    else:
        scatter(proto, fw, iw, r, _LEFT, _MPI, k, mp)
        scatter(proto, fw, iw, r, _LEFT, _MTAU, k, mt)
    store(proto, lw, r, _LPI, k, where(on, np_, lpi))
    store(proto, lw, r, _LTAU, k, where(on, nt, ltau))


@inline
def setup_game(
    k: int,
    ptr: np.ndarray,
    rank: np.ndarray,
    known: Known,
    slots: Slots,
    rules: Rules,
    work: Workspace,
) -> None:
    """Lay out one game in lane ``k`` of the scratch arrays: its teams' order and performance
    priors and its chain of difference factors, the number of links in ``iw[0, _LINKS, k]``.
    Two teams are rated here in closed form (no links)."""
    offset = known.offset
    mu, pv, w, noise = slots.mu, slots.pv, slots.w, slots.noise
    out_sigma = slots.out_sigma
    z, beta, sigma_floor = rules.z, rules.beta, rules.sigma_floor
    iw, fw, lw = work.iw, work.fw, work.lw
    n = rank.shape[0]
    beta2 = beta * beta
    # order: ranked teams by rank (stable insertion sort), unranked last
    n_ranked = 0
    for t in range(n):
        r = rank[t]
        if not math.isnan(r):
            j = n_ranked
            while j > 0 and rank[iw[j - 1, _ORDER, k]] > r:
                iw[j, _ORDER, k] = iw[j - 1, _ORDER, k]
                j -= 1
            iw[j, _ORDER, k] = t
            n_ranked += 1
    q = n_ranked
    for t in range(n):
        if math.isnan(rank[t]):
            iw[q, _ORDER, k] = t
            q += 1
    for t in range(n):
        cnt = 0
        for s in range(ptr[t], ptr[t + 1]):
            if w[s] > 0.0 and noise[s] > 0.0:
                cnt += 1
        iw[t, _PRESENT, k] = cnt
    if n == 2:  # one truncation: the closed form is exact
        left = iw[0, _ORDER, k]
        right = iw[1, _ORDER, k]
        tied = (not math.isnan(rank[right])) and rank[left] == rank[right]
        e = margin_from_quantile(z, iw[left, _PRESENT, k] + iw[right, _PRESENT, k], beta)
        margin = known.margin
        y = margin[0] if left == 0 else -margin[0]
        observed = (offset[left] - offset[right], y, margin[1])
        span = (ptr[left], ptr[left + 1], ptr[right], ptr[right + 1])
        two_teams(span, slots, e, tied, beta2, observed)
        for s in range(ptr[0], ptr[2]):
            if w[s] != 0.0:
                sg = math.sqrt(out_sigma[s])
                out_sigma[s] = sg if sg >= sigma_floor else sigma_floor
        iw[0, _LINKS, k] = 0
        return
    m = n - 1
    base = iw.shape[0] - 1 - m
    margin = known.margin
    scored = margin.shape[0] >= 2 + n  # the teams' scores on the performance scale
    # team performance priors (sum of weighted performances), in finishing order
    for p in range(n):
        t = iw[p, _ORDER, k]
        mean = offset[t]
        var = 0.0
        for s in range(ptr[t], ptr[t + 1]):
            mean += w[s] * mu[s]
            var += w[s] * w[s] * (pv[s] + noise[s] * beta2)
        fw[base + p, _TPI, k] = 1.0 / var
        fw[base + p, _TTAU, k] = mean / var
        fw[base + p, _MPI, k] = fw[base + p, _TPI, k]
        fw[base + p, _MTAU, k] = fw[base + p, _TTAU, k]
    # the difference factors: adjacent ranked teams, each unranked team below the lowest ranked
    for j in range(m):
        lp = j if j < n_ranked - 1 else n_ranked - 1
        left = iw[lp, _ORDER, k]
        right = iw[j + 1, _ORDER, k]
        r = base + j
        iw[r, _LEFT, k] = base + lp
        for f in range(_LPI, _XTAU + 1):  # no messages yet
            lw[r, f, k] = 0.0
        lw[r, _E, k] = margin_from_quantile(z, iw[left, _PRESENT, k] + iw[right, _PRESENT, k], beta)
        tied = (not math.isnan(rank[right])) and rank[left] == rank[right]
        lw[r, _DRAW, k] = 1.0 if tied else 0.0
        y = math.nan  # the observed score margin of two ranked teams with scores
        if scored and not math.isnan(rank[right]):
            y = margin[2 + left] - margin[2 + right]
        if math.isnan(y):
            lw[r, _YPI, k] = 0.0
            lw[r, _YTAU, k] = 0.0
        else:
            lw[r, _YPI, k] = 1.0 / margin[1]
            lw[r, _YTAU, k] = clip_margin(y, beta) / margin[1]
    iw[0, _LINKS, k] = m


@jit
def sweep_lanes(proto: Any, lanes: int, rules: Rules, work: Workspace) -> None:
    """The message-passing schedule of the games in lanes ``0..lanes-1``, in lockstep (the other
    lanes are idle): with a float ``proto`` one game (one lane), with a
    :class:`~mindsport._jit.lanes.Lanes` zero one game per lane of the vector (``lanes`` at
    most its width), each step on all of them at once. Each game sweeps forward and backward
    until no truncation message of a sweep moves its difference marginal by more than
    ``tolerance``; a game's steps are those of the game alone (a settled lane keeps its state
    while the others go on).

    ``iw[1, _LINKS, k]`` becomes 1 for a game that settled (or had nothing to sweep) and stays 0
    for one that did not within ``max_iterations`` sweeps."""
    iw, fw, lw = work.iw, work.fw, work.lw
    tolerance = rules.tolerance
    max_iterations = rules.max_iterations
    top = iw.shape[0] - 1
    longest = 0
    chain = True  # no unranked team: every link's left team is the row above its right one
    start = proto + float(top)  # each lane's first link row (top: no links)
    for k in range(min(iw.shape[2], width(proto))):
        m = iw[0, _LINKS, k] if k < lanes else 0
        iw[1, _LINKS, k] = 0 if m > 0 else 1
        longest = max(longest, m)
        start = with_lane(start, k, float(top - m))
        for r in range(top - m, top):
            if iw[r, _LEFT, k] != r:
                chain = False
    if longest == 0:
        return
    first = top - longest
    active = start < float(top)
    for sweep in range(max_iterations):
        moved = proto != proto  # nothing yet
        # forward: each difference's evidence to its right team
        for r in range(first, top):
            on = active & (start <= float(r))
            # a lane's first link was just processed (the backward sweep's last step) and
            # nothing it depends on has changed since: its truncation message stands
            trunc = on if sweep == 0 else on & (start < float(r))
            if any_lane(trunc):
                moved = _down_and_truncate(proto, r, 0, trunc, moved, iw, fw, lw, tolerance, chain)
            _diff_up(proto, r, 0, True, on, iw, fw, lw, chain)
        # backward: to its left team (the last link's truncation stands as well)
        for r in range(top - 1, first - 1, -1):
            on = active & (start <= float(r))
            if r < top - 1 and any_lane(on):
                moved = _down_and_truncate(proto, r, 0, on, moved, iw, fw, lw, tolerance, chain)
            _diff_up(proto, r, 0, False, on, iw, fw, lw, chain)
        settled = active & invert(moved)
        for k in range(min(iw.shape[2], width(proto))):
            if lane(settled, k):
                iw[1, _LINKS, k] = 1
        active = active & moved
        if not any_lane(active):
            return


@inline
def finish_game(
    k: int, ptr: np.ndarray, known: Known, slots: Slots, rules: Rules, work: Workspace
) -> None:
    """The settled game of lane ``k``: the final message to every right team, then from each
    team's performance back to its players' skills."""
    offset = known.offset
    mu, pv, w, noise = slots.mu, slots.pv, slots.w, slots.noise
    out_mu, out_sigma = slots.out_mu, slots.out_sigma
    beta, sigma_floor = rules.beta, rules.sigma_floor
    iw, fw, lw = work.iw, work.fw, work.lw
    m = iw[0, _LINKS, k]
    if m == 0:  # rated in closed form by setup_game
        return
    n = m + 1
    base = iw.shape[0] - 1 - m
    beta2 = beta * beta
    for j in range(m):  # final message to every right team
        _diff_up(0.0, base + j, k, True, True, iw, fw, lw, False)
    for p in range(n):
        t = iw[p, _ORDER, k]
        row = base + p
        g_pi = fw[row, _MPI, k] - fw[row, _TPI, k]
        g_tau = fw[row, _MTAU, k] - fw[row, _TTAU, k]
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
            p_ = pv[s]
            nb2 = noise[s] * beta2
            # performance message (team - the others) / w, then through the performance noise
            p_mean = (g_mu - (total_mean - ws * mu[s])) / ws
            p_var = (g_var + total_var - ws * ws * (p_ + nb2)) / (ws * ws)
            s_var = p_var + nb2
            post_pi = 1.0 / p_ + 1.0 / s_var
            post_tau = mu[s] / p_ + p_mean / s_var
            out_mu[s] = post_tau / post_pi
            sg = math.sqrt(1.0 / post_pi)
            out_sigma[s] = sg if sg >= sigma_floor else sigma_floor


@jit
def update_match(
    ptr: np.ndarray, rank: np.ndarray, known: Known, slots: Slots, rules: Rules, work: Workspace
) -> bool:
    """TrueSkill's update of one game; ``False`` if message passing did not converge.

    Team ``t`` holds the slots ``ptr[t]:ptr[t+1]`` of ``slots`` (see :class:`Slots`: a virtual
    player, noise 0, such as a role's advantage, adds skill but no performance noise and does
    not count towards the draw margin) and has the rank ``rank[t]`` (NaN: unranked); ``known``:
    the teams' known offsets and the observed margin; ``rules``: the draw margin's normal
    quantile, the performance noise, the sigma floor and the convergence of the message
    passing. The new mean and sigma (at least the floor) of every slot with a positive weight go
    to ``out_mu`` and ``out_sigma``; other slots are left as they are. ``work``: scratch from
    :func:`workspace` (one lane).

    The same three steps rate several games at once in the replay
    (:func:`~.replay_kernel.replay_trueskill`): :func:`setup_game` per game, :func:`sweep_lanes`
    over all of them, :func:`finish_game` per game.
    """
    if rank.shape[0] == 2:
        # two teams, rated in closed form by setup_game: a branch of their own, with no call that
        # takes the arrays after it, is ~25% faster (numba then drops the reference counting)
        setup_game(0, ptr, rank, known, slots, rules, work)
        return True
    setup_game(0, ptr, rank, known, slots, rules, work)
    sweep_lanes(0.0, 1, rules, work)
    if not lane_settled(work.iw, 0):
        return False
    finish_game(0, ptr, known, slots, rules, work)
    return True


@inline
def lane_settled(iw: np.ndarray, k: int) -> bool:
    """Whether the game of lane ``k`` settled in :func:`sweep_lanes` (or was rated in closed
    form)."""
    return iw[1, _LINKS, k] != 0


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
    model's settings, one record (:data:`mindsport.rating.trueskill.model.SETTINGS`). ``aux``
    is empty (players only, no offsets, no margin) or holds each slot's noise share and ``tau``
    flag (``n`` each; a virtual player, flags 0, has neither noise nor dynamics), each team's
    offset (``teams``) and the observed margin ``(y, s2)``, optionally followed by the teams'
    scores on the performance scale (``teams``; see :class:`Known`)."""
    model = settings[0]
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
        margin = aux[2 * n + teams :]
    tau2 = model.tau * model.tau
    for s in range(n):
        if aux.shape[0] != 0 and aux[n + s] == 0.0:  # no dynamics (a virtual player)
            pv[s] = sigma[s] * sigma[s]
            continue
        elapsed = buf[at + 3 * n + s] if extra else 0.0
        sg = drifted_sigma(sigma[s], elapsed, model.drift, model.sigma0)
        pv[s] = sg * sg + tau2
    ok = update_match(
        ptr,
        rank,
        Known(offset, margin),
        Slots(mu, pv, w, noise, out_mu, out_sigma),
        rules_of(settings),
        workspace(teams),
    )
    mu[:] = out_mu
    sigma[:] = out_sigma
    return ok


@inline
def rules_of(settings: np.ndarray) -> Rules:
    """The :class:`Rules` of a TrueSkill model's settings record."""
    model = settings[0]
    return Rules(model.z, model.beta, model.sigma_floor, model.tolerance, model.max_iterations)
