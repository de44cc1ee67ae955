"""Glicko-2's update, compiled (numba): one rating period, one game, and the replay of many.

:func:`glicko2_period` is steps 2-8 of Glickman's paper for one player (the volatility by the
Illinois algorithm, :func:`_volatility`); :func:`glicko2_update` rates one game as one rating
period for every player. :class:`~mindsport.rating.glicko2.model.Glicko2` calls them through
:func:`glicko2_rate_period`, :func:`glicko2_idle` and :func:`glicko2_game`, the replay
(:func:`replay_glicko2`) for every match of a block, carrying each player's state row
``(rating, RD, volatility, last time)`` (:class:`~mindsport.rating.glicko2.model.Glicko2Replayer`).
The formulas are those of :mod:`mindsport.rating.glicko2.formulas`, compiled as written.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindsport._jit.compiling import compile_functions, jit
from mindsport.rating.compiled import pair_outcome
from mindsport.rating.glicko2 import formulas
from mindsport.rating.glicko2.formulas import SCALE
from mindsport.rating.replay.block_kernel import block_sizes, load_match, store_slots
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs

#: Glicko-2's formulas, compiled
F = compile_functions(formulas)
g_factor = F.g_factor
glicko2_expectation = F.glicko2_expectation
logistic = F.logistic

_SCALE = SCALE


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
    model: Any,
) -> tuple[float, float, float]:
    """One rating period (Glickman 2013, steps 2-8) against ``m`` games ``(opponent rating,
    opponent RD, score)``: the new rating, RD and volatility (Glicko scale). No games, or
    expected scores that are exactly 0 or 1 (ratings thousands of points apart, no
    information): one idle period. ``model``: the settings record
    (:data:`mindsport.rating.glicko2.model.SETTINGS`: tau, epsilon, the RD cap)."""
    tau = model.tau
    eps = model.epsilon
    max_phi = model.max_phi
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
    buf: np.ndarray, m: int, settings: np.ndarray
) -> tuple[float, float, float]:
    """:func:`glicko2_period` for ``buf`` = player (rating, RD, volatility), then the ``m``
    opponents' ratings, RDs and scores; ``settings``: the model's, one record."""
    return glicko2_period(
        buf[0], buf[1], buf[2], buf[3 : 3 + m], buf[3 + m : 3 + 2 * m],
        buf[3 + 2 * m : 3 + 3 * m], m, settings[0],
    )  # fmt: skip


@jit
def glicko2_update(
    state: np.ndarray,
    elapsed: np.ndarray,
    rank: np.ndarray,
    model: Any,
    opp: np.ndarray,
    out: np.ndarray,
) -> None:
    """Glicko-2's update of one game (:class:`mindsport.rating.Glicko2`): one player per team,
    ``state`` rows (rating, RD, volatility); players away ``elapsed > 0`` first go through
    ``elapsed / period`` idle periods (``period`` > 0), then every player has one rating period
    against every other player of the game (score from the ranks). ``model``: the settings
    record (:data:`mindsport.rating.glicko2.model.SETTINGS`). ``opp``: scratch."""
    n = rank.shape[0]
    max_phi = model.max_phi
    period = model.period
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
            opp[t, 0], opp[t, 1], state[t, 2], opp[:m, 2], opp[:m, 3], opp[:m, 4], m, model
        )
        out[t, 0] = r
        out[t, 1] = d
        out[t, 2] = v


@jit
def glicko2_game(buf: np.ndarray, settings: np.ndarray, n: int) -> None:
    """:func:`glicko2_update` for one game packed in ``buf``: ranks, ratings, RDs, volatilities
    and elapsed times (``n`` each); the new ratings, RDs and volatilities overwrite the old.
    ``settings``: the model's, one record."""
    state = np.empty((n, 3))
    for s in range(n):
        for c in range(3):
            state[s, c] = buf[(c + 1) * n + s]
    out = np.empty((n, 3))
    glicko2_update(state, buf[4 * n : 5 * n], buf[:n], settings[0], np.empty((n, 5)), out)
    for s in range(n):
        for c in range(3):
            buf[(c + 1) * n + s] = out[s, c]


@jit
def replay_glicko2(
    table: np.ndarray,
    block: BlockArrays,
    settings: np.ndarray,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """:func:`glicko2_update` for every match of a block (one player per team), rows
    ``(rating, RD, volatility, last time)`` of ``table`` carried forward: elapsed time since a
    player's previous game (0 for his first) gives the idle periods when ``period`` is set.
    Predictions: the symmetric ``win_probability`` of :class:`~mindsport.rating.Glicko2`."""
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    ranks = block.ranks
    times = block.times
    model = settings[0]
    n_matches = team_ptr.shape[0] - 1
    max_teams, _ = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_teams, 4))  # rating, RD, volatility, last time
    new = np.empty((max_teams, 4))
    opp = np.empty((max_teams, 5))
    elapsed = np.empty(max_teams)
    period = model.period
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
                        out.pair_a[k] = a
                        out.pair_b[k] = b
                        out.prob[k] = glicko2_expectation(
                            state[a, 0], state[a, 1], state[b, 0], state[b, 1]
                        )
                        out.outcome[k] = o
                        k += 1
        glicko2_update(state[:n], elapsed, rank, model, opp, new)
        for q in range(n):
            new[q, 3] = now
        store_slots(table, players, s0, n, new[:n], keep, out.post)
    return -1
