"""Compiled message passing for whole-history TrueSkill (numba).

The graph (built by :class:`mindsport.rating.through_time.SkillHistory`) is held in flat arrays:

* **variables** ``v`` (one per player per time step): ``v_time`` (the step's time), ``prev`` and
  ``next`` (the player's chain, -1 at the ends), ``prior`` (the player's prior, used by the first
  variable of a chain), and three incoming messages in natural parameters ``(pi, tau)``:
  ``fwd`` (from the previous variable through the drift, or the prior), ``bwd`` (from the next
  variable through the drift) and ``lik`` (the product of every game message); the marginal is
  their product.
* **slots** ``s`` (one per player per game): ``s_var``, ``s_weight`` (partial play) and ``msg``
  (the game's message to the variable);
* **teams** ``slot_ptr[t]:slot_ptr[t + 1]`` with ``rank[t]`` (NaN: unranked), **games**
  ``team_ptr[g]:team_ptr[g + 1]`` with ``g_margin[g]`` (a two-team game's observed score margin
  on the performance scale, seen with variance ``margin_s2``; NaN: none);
* **time steps** ``k``: their variables and games as runs of the time orders ``order_v`` and
  ``order_g``, and per step three flags of what is stale (messages from the past, from the
  future, games), so that sweeps after new results only redo what moved.

A game's message to its players is the online TrueSkill update (the patent's factor graph for
one game: teams, ties, partial play, partial rankings) computed from the players' *cavities*
(their marginals without this game's message) and divided by them, so running the games forward
in time once, with nothing coming back from the future, is exactly online TrueSkill filtering.
That update is the one of :func:`mindsport.rating.trueskill.trueskill_kernel.update_match`,
shared with online TrueSkill.

Everything is compiled lazily on first use (``cache=True`` keeps the machine code on disk).
"""

from __future__ import annotations

import math

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.trueskill.trueskill_kernel import update_match, workspace

#: Status of the inner (multi-team) message passing of one game that did not settle.
GAME_FAILED = -1.0


@jit
def _forget(pi: float, tau: float, extra: float) -> tuple[float, float]:
    """A Gaussian message widened by ``extra`` variance (the random walk); uniform stays so."""
    if pi <= 0.0:
        return 0.0, 0.0
    var = 1.0 / pi + extra
    return 1.0 / var, tau / pi / var


@jit
def _change(pi0: float, tau0: float, pi1: float, tau1: float) -> float:
    """How far a marginal moved: the larger change of its mean and standard deviation."""
    if pi0 <= 0.0 or pi1 <= 0.0:
        return math.inf
    return max(abs(tau1 / pi1 - tau0 / pi0), abs(math.sqrt(1.0 / pi1) - math.sqrt(1.0 / pi0)))


@jit
def _link(elapsed: float, games: float, drift2: float, tau2: float) -> float:
    """Variance of a skill's change over ``elapsed`` time from a step where the player played
    ``games`` games: the drift over the time and the per-game dynamics of those games."""
    return drift2 * elapsed + tau2 * games


@jit
def _set_forward(
    v: int,
    v_time: np.ndarray,
    prev: np.ndarray,
    prior: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    drift2: float,
    v_games: np.ndarray,
    tau2: float,
) -> float:
    """Recompute the message into ``v`` from its past; return the change of ``v``'s marginal."""
    p = prev[v]
    if p < 0:
        npi = prior[v, 0]
        ntau = prior[v, 1]
    else:
        npi, ntau = _forget(
            fwd[p, 0] + lik[p, 0],
            fwd[p, 1] + lik[p, 1],
            _link(v_time[v] - v_time[p], v_games[p], drift2, tau2),
        )
    opi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
    otau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    d = _change(opi, otau, opi - fwd[v, 0] + npi, otau - fwd[v, 1] + ntau)
    fwd[v, 0] = npi
    fwd[v, 1] = ntau
    return d


@jit
def _set_backward(
    v: int,
    v_time: np.ndarray,
    next_: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    drift2: float,
    v_games: np.ndarray,
    tau2: float,
) -> float:
    """Recompute the message into ``v`` from its future; return the change of its marginal."""
    n = next_[v]
    if n < 0:
        npi = 0.0
        ntau = 0.0
    else:
        npi, ntau = _forget(
            bwd[n, 0] + lik[n, 0],
            bwd[n, 1] + lik[n, 1],
            _link(v_time[n] - v_time[v], v_games[v], drift2, tau2),
        )
    opi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
    otau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    d = _change(opi, otau, opi - bwd[v, 0] + npi, otau - bwd[v, 1] + ntau)
    bwd[v, 0] = npi
    bwd[v, 1] = ntau
    return d


@jit
def _workspace(team_ptr: np.ndarray, slot_ptr: np.ndarray) -> tuple:
    """Scratch arrays sized for the largest game."""
    max_teams = 2
    max_slots = 2
    for g in range(team_ptr.shape[0] - 1):
        k = team_ptr[g + 1] - team_ptr[g]
        if k > max_teams:
            max_teams = k
        s = slot_ptr[team_ptr[g + 1]] - slot_ptr[team_ptr[g]]
        if s > max_slots:
            max_slots = s
    iw, fw, lw = workspace(max_teams)
    return (
        np.empty(max_slots),  # 0 cavity means
        np.empty(max_slots),  # 1 cavity variances
        np.empty(max_slots),  # 2 change of each slot's marginal
        np.empty(max_slots),  # 3 weights
        np.empty(max_slots),  # 4 posterior means
        np.empty(max_slots),  # 5 posterior standard deviations
        np.empty(max_teams + 1, np.int64),  # 6 team pointers within the game
        np.empty(max_teams),  # 7 ranks
        iw,
        fw,
        lw,
        np.ones(max_slots),  # 11 each slot's share of beta^2 (every slot a player)
        np.zeros(max_teams),  # 12 no known offset of a team's performance
        np.array([np.nan, 1.0]),  # 13 the game's observed score margin (y, s2); NaN y: none
    )


@jit
def _send(
    s: int,
    npi: float,
    ntau: float,
    s0: int,
    s_var: np.ndarray,
    msg: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    moved: np.ndarray,
) -> None:
    """Replace slot ``s``'s game message; record how far its variable's marginal moved."""
    v = s_var[s]
    opi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
    otau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    lik[v, 0] += npi - msg[s, 0]
    lik[v, 1] += ntau - msg[s, 1]
    msg[s, 0] = npi
    msg[s, 1] = ntau
    moved[s - s0] = _change(
        opi, otau, fwd[v, 0] + bwd[v, 0] + lik[v, 0], fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    )


@jit
def update_game(
    g: int,
    team_ptr: np.ndarray,
    slot_ptr: np.ndarray,
    rank: np.ndarray,
    s_var: np.ndarray,
    s_weight: np.ndarray,
    msg: np.ndarray,
    g_margin: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    z: float,
    beta: float,
    margin_s2: float,
    tolerance: float,
    max_inner: int,
    ws: tuple,
) -> float:
    """Recompute game ``g``'s messages to its players from their cavities.

    The online update of one game (:func:`mindsport.rating.trueskill.trueskill_kernel.update_match`)
    from the players' cavities (their marginals without this game's message), divided by the
    cavities; ``g_margin[g]`` is the game's observed performance difference of team 0 over team 1,
    seen with variance ``margin_s2`` (NaN: none, see :mod:`mindsport.rating.trueskill.margins`).
    Returns the largest change of a player's marginal, or :data:`GAME_FAILED` if the inner message
    passing of a game of three or more teams did not settle within ``max_inner`` sweeps. ``ws[2]``
    holds each slot's change (slots in game order).
    """
    cm, cv, moved, wl, out_mu, out_sd, ptr, rk, iw, fw, lw, noise, offset, margin = ws
    margin[0] = g_margin[g]
    margin[1] = margin_s2
    t0 = team_ptr[g]
    n = team_ptr[g + 1] - t0
    s0 = slot_ptr[t0]
    for t in range(n + 1):
        ptr[t] = slot_ptr[t0 + t] - s0
    for t in range(n):
        rk[t] = rank[t0 + t]
    for i in range(slot_ptr[t0 + n] - s0):
        s = s0 + i
        moved[i] = 0.0
        w = s_weight[s]
        wl[i] = w
        if w == 0.0:
            cm[i] = 0.0
            cv[i] = 1.0
            continue
        v = s_var[s]
        pi = fwd[v, 0] + bwd[v, 0] + lik[v, 0] - msg[s, 0]
        cm[i] = (fwd[v, 1] + bwd[v, 1] + lik[v, 1] - msg[s, 1]) / pi
        cv[i] = 1.0 / pi
    ok = update_match(
        ptr[: n + 1], cm, cv, wl, rk[:n], z, beta, 0.0, tolerance, max_inner,
        iw, fw, lw, out_mu, out_sd, noise, offset[:n], margin,
    )  # fmt: skip
    if not ok:
        return GAME_FAILED
    worst = 0.0
    for i in range(slot_ptr[t0 + n] - s0):
        if wl[i] == 0.0:
            continue
        post_pi = 1.0 / (out_sd[i] * out_sd[i])
        _send(
            s0 + i, post_pi - 1.0 / cv[i], post_pi * out_mu[i] - cm[i] / cv[i], s0, s_var, msg,
            fwd, bwd, lik, moved,
        )  # fmt: skip
        worst = max(worst, moved[i])
    return worst


@jit
def _games_of_step(
    k: int,
    order_g: np.ndarray,
    g_ptr: np.ndarray,
    v_step: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    team_ptr: np.ndarray,
    slot_ptr: np.ndarray,
    rank: np.ndarray,
    s_var: np.ndarray,
    s_weight: np.ndarray,
    msg: np.ndarray,
    g_margin: np.ndarray,
    z: float,
    beta: float,
    margin_s2: float,
    tolerance: float,
    max_inner: int,
    ws: tuple,
    flags: np.ndarray,
    count: np.ndarray,
) -> tuple[float, int]:
    """Update the games of time step ``k``; flag what their moves make stale.

    A player moved by more than ``tolerance`` makes stale the other games of the step, the
    message into his next variable and the one into his previous variable.
    """
    moved = ws[2]
    delta = 0.0
    for j in range(g_ptr[k], g_ptr[k + 1]):
        g = order_g[j]
        d = update_game(
            g, team_ptr, slot_ptr, rank, s_var, s_weight, msg, g_margin, fwd, bwd, lik, z, beta,
            margin_s2, tolerance, max_inner, ws,
        )  # fmt: skip
        count[0] += 1
        if d == GAME_FAILED:
            return delta, g
        if d > tolerance:
            delta = max(delta, d)
            s0 = slot_ptr[team_ptr[g]]
            for s in range(s0, slot_ptr[team_ptr[g + 1]]):
                if moved[s - s0] > tolerance:
                    v = s_var[s]
                    flags[k, 2] = True
                    if next_[v] >= 0:
                        flags[v_step[next_[v]], 0] = True
                    if prev[v] >= 0:
                        flags[v_step[prev[v]], 1] = True
    return delta, -1


@jit
def _sweep_once(
    order_v: np.ndarray,
    v_ptr: np.ndarray,
    order_g: np.ndarray,
    g_ptr: np.ndarray,
    v_step: np.ndarray,
    v_time: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    prior: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    team_ptr: np.ndarray,
    slot_ptr: np.ndarray,
    rank: np.ndarray,
    s_var: np.ndarray,
    s_weight: np.ndarray,
    msg: np.ndarray,
    g_margin: np.ndarray,
    z: float,
    beta: float,
    margin_s2: float,
    drift2: float,
    v_games: np.ndarray,
    tau2: float,
    tolerance: float,
    max_inner: int,
    forward_only: bool,
    ws: tuple,
    flags: np.ndarray,
    touched: np.ndarray,
    count: np.ndarray,
) -> tuple[float, int]:
    """One forward sweep (and, unless ``forward_only``, one backward sweep) over the stale parts;
    every step it works on is marked in ``touched``.

    Forward: each time step ``k`` in turn, the messages from the past into its variables (if
    ``flags[k, 0]``), then its games (if ``flags[k, 2]``); backward: the same from the end, with
    the messages from the future (``flags[k, 1]``). Whatever moves a marginal by more than
    ``tolerance`` flags what depends on it. Returns the largest such move and the index of a game
    whose inner message passing did not settle (-1: none).
    """
    n_steps = v_ptr.shape[0] - 1
    delta = 0.0
    for k in range(n_steps):
        if flags[k, 0] or flags[k, 2]:
            touched[k] = True
        if flags[k, 0]:
            flags[k, 0] = False
            for i in range(v_ptr[k], v_ptr[k + 1]):
                v = order_v[i]
                d = _set_forward(v, v_time, prev, prior, fwd, bwd, lik, drift2, v_games, tau2)
                if d > tolerance:
                    delta = max(delta, d)
                    flags[k, 2] = True
                    if next_[v] >= 0:
                        flags[v_step[next_[v]], 0] = True
        if flags[k, 2]:
            flags[k, 2] = False
            d, bad = _games_of_step(
                k, order_g, g_ptr, v_step, prev, next_, fwd, bwd, lik, team_ptr, slot_ptr, rank,
                s_var, s_weight, msg, g_margin, z, beta, margin_s2, tolerance, max_inner, ws,
                flags, count,
            )  # fmt: skip
            delta = max(delta, d)
            if bad >= 0:
                return delta, bad
    if forward_only:
        return delta, -1
    for k in range(n_steps - 1, -1, -1):
        if flags[k, 1] or flags[k, 2]:
            touched[k] = True
        if flags[k, 1]:
            flags[k, 1] = False
            for i in range(v_ptr[k], v_ptr[k + 1]):
                v = order_v[i]
                d = _set_backward(v, v_time, next_, fwd, bwd, lik, drift2, v_games, tau2)
                if d > tolerance:
                    delta = max(delta, d)
                    flags[k, 2] = True
                    if prev[v] >= 0:
                        flags[v_step[prev[v]], 1] = True
        if flags[k, 2]:
            flags[k, 2] = False
            d, bad = _games_of_step(
                k, order_g, g_ptr, v_step, prev, next_, fwd, bwd, lik, team_ptr, slot_ptr, rank,
                s_var, s_weight, msg, g_margin, z, beta, margin_s2, tolerance, max_inner, ws,
                flags, count,
            )  # fmt: skip
            delta = max(delta, d)
            if bad >= 0:
                return delta, bad
    return delta, -1


@jit
def _flag_to_check(
    touched: np.ndarray,
    v_ptr: np.ndarray,
    order_v: np.ndarray,
    v_step: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    flags: np.ndarray,
) -> None:
    """Flag for recomputation everything the sweeps so far may have left behind: every part of
    each touched step and the chain messages its variables send to their neighbours' steps.

    A move of at most ``tolerance`` flags nothing, so small moves can add up where no sweep
    looks again; recomputing what reads a touched variable catches them. Resets ``touched``.
    """
    for k in range(touched.shape[0]):
        if not touched[k]:
            continue
        touched[k] = False
        flags[k, 0] = True
        flags[k, 1] = True
        flags[k, 2] = True
        for i in range(v_ptr[k], v_ptr[k + 1]):
            v = order_v[i]
            if next_[v] >= 0:
                flags[v_step[next_[v]], 0] = True
            if prev[v] >= 0:
                flags[v_step[prev[v]], 1] = True


@jit
def _means(fwd: np.ndarray, bwd: np.ndarray, lik: np.ndarray, out: np.ndarray) -> None:
    for v in range(out.shape[0]):
        pi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
        out[v] = (fwd[v, 1] + bwd[v, 1] + lik[v, 1]) / pi if pi > 0.0 else 0.0


@jit
def _at(c: np.ndarray, node: np.ndarray, frac: np.ndarray, v: int) -> float:
    """The piecewise linear level ``c`` at variable ``v``'s time."""
    n = c.shape[0]
    return (1.0 - frac[v]) * c[node[v]] + frac[v] * c[min(node[v] + 1, n - 1)]


@jit
def _level_balance(
    node: np.ndarray,
    frac: np.ndarray,
    n_nodes: int,
    v_time: np.ndarray,
    prev: np.ndarray,
    prior: np.ndarray,
    mean: np.ndarray,
    drift2: float,
    v_games: np.ndarray,
    tau2: float,
) -> np.ndarray:
    """The level shift that best restores the balance of the prior and drift factors.

    Games say nothing about the level of the skills through time (shifting every player of a
    time step leaves each game's messages shifted alike), only the priors of players' first steps
    and the drift between steps do. Their linear-Gaussian balance for a shift ``c(t)``, piecewise
    linear between ``n_nodes`` time nodes (variable ``v`` lies a fraction ``frac[v]`` of the way
    from node ``node[v]`` to the next), given the current means, is a small linear system.
    """
    a = np.zeros((n_nodes, n_nodes))
    r = np.zeros(n_nodes)
    idx = np.empty(4, np.int64)
    coef = np.empty(4)
    for v in range(mean.shape[0]):
        idx[0] = node[v]
        idx[1] = min(node[v] + 1, n_nodes - 1)
        coef[0] = 1.0 - frac[v]
        coef[1] = frac[v]
        p = prev[v]
        if p < 0:  # the prior pulls the first step towards its mean
            k = 2
            weight = prior[v, 0]
            force = prior[v, 1] - weight * mean[v]
        else:  # the link from the previous step resists a change of level (if it can widen)
            link = _link(v_time[v] - v_time[p], v_games[p], drift2, tau2)
            if link <= 0.0:
                continue
            idx[2] = node[p]
            idx[3] = min(node[p] + 1, n_nodes - 1)
            coef[2] = frac[p] - 1.0
            coef[3] = -frac[p]
            k = 4
            weight = 1.0 / link
            force = -weight * (mean[v] - mean[p])
        for x in range(k):
            r[idx[x]] += coef[x] * force
            for y in range(k):
                a[idx[x], idx[y]] += weight * coef[x] * coef[y]
    for x in range(n_nodes):
        a[x, x] += 1e-12
    return np.linalg.solve(a, r)


@jit
def _level_of(change: np.ndarray, node: np.ndarray, frac: np.ndarray, n_nodes: int) -> np.ndarray:
    """The piecewise linear level closest (least squares) to a change of every variable."""
    a = np.zeros((n_nodes, n_nodes))
    r = np.zeros(n_nodes)
    for v in range(change.shape[0]):
        i = node[v]
        j = min(i + 1, n_nodes - 1)
        f = frac[v]
        a[i, i] += (1.0 - f) * (1.0 - f)
        a[i, j] += (1.0 - f) * f
        a[j, i] += (1.0 - f) * f
        a[j, j] += f * f
        r[i] += (1.0 - f) * change[v]
        r[j] += f * change[v]
    for x in range(n_nodes):
        a[x, x] += 1e-9
    return np.linalg.solve(a, r)


@jit
def _shift_level(
    c: np.ndarray,
    node: np.ndarray,
    frac: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    s_var: np.ndarray,
    s_weight: np.ndarray,
    msg: np.ndarray,
    team_ptr: np.ndarray,
    slot_ptr: np.ndarray,
    v_step: np.ndarray,
    tolerance: float,
    flags: np.ndarray,
) -> None:
    """Move every message with the level ``c`` at the variable it comes from (the priors stay).

    The games of a step stay consistent with their players, the chains nearly so: the next sweep
    refreshes every chain message and revisits the games only where the shift moved players
    unevenly (a first step, held back by its prior; teams of unequal total weight). A shift of at
    most ``tolerance`` everywhere is left out.
    """
    nv = fwd.shape[0]
    biggest = 0.0
    for v in range(nv):
        biggest = max(biggest, abs(_at(c, node, frac, v)))
    if biggest <= tolerance:
        return
    for s in range(s_var.shape[0]):
        msg[s, 1] += msg[s, 0] * _at(c, node, frac, s_var[s])
    for v in range(nv):
        shift = _at(c, node, frac, v)
        pi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
        lik[v, 1] += lik[v, 0] * shift
        if next_[v] >= 0:
            bwd[v, 1] += bwd[v, 0] * _at(c, node, frac, next_[v])
        if prev[v] >= 0:
            fwd[v, 1] += fwd[v, 0] * _at(c, node, frac, prev[v])
        elif abs(shift) * fwd[v, 0] / pi > tolerance:
            flags[v_step[v], 2] = True
    for g in range(team_ptr.shape[0] - 1):
        total = -1.0
        for t in range(team_ptr[g], team_ptr[g + 1]):
            w = 0.0
            for q in range(slot_ptr[t], slot_ptr[t + 1]):
                w += s_weight[q]
            if total >= 0.0 and w != total:
                v = s_var[slot_ptr[team_ptr[g]]]
                if abs(_at(c, node, frac, v)) > tolerance:
                    flags[v_step[v], 2] = True
                break
            total = w
    flags[:, 0] = True
    flags[:, 1] = True


@jit
def sweep(
    order_v: np.ndarray,
    v_ptr: np.ndarray,
    order_g: np.ndarray,
    g_ptr: np.ndarray,
    v_step: np.ndarray,
    node: np.ndarray,
    frac: np.ndarray,
    n_nodes: int,
    flags: np.ndarray,
    v_time: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    prior: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    team_ptr: np.ndarray,
    slot_ptr: np.ndarray,
    rank: np.ndarray,
    s_var: np.ndarray,
    s_weight: np.ndarray,
    msg: np.ndarray,
    g_margin: np.ndarray,
    z: float,
    beta: float,
    margin_s2: float,
    drift2: float,
    v_games: np.ndarray,
    tau2: float,
    tolerance: float,
    max_inner: int,
    max_sweeps: int,
    forward_only: bool,
) -> tuple[int, float, int, int]:
    """Sweep forward and backward in time until no marginal moves by more than ``tolerance``.

    The time steps are ``v_ptr[k]:v_ptr[k + 1]`` of ``order_v`` (variables sorted by time) and
    ``g_ptr[k]:g_ptr[k + 1]`` of ``order_g`` (games sorted by time, a step's games in the order
    they were added); ``v_step`` is each variable's step. ``flags[k]`` say which parts of step
    ``k`` are stale (messages from the past, from the future, games): all of them for a history
    converged from scratch, those the new games touch for an update. Between sweeps the level of
    the skills through time, which sweeps alone settle slowly, is moved as a whole (a coarse-grid
    correction on the time nodes ``node``/``frac``): to the balance of priors and drift
    (:func:`_level_balance`), then by Aitken's extrapolation of its geometric convergence. This
    shortens the way to the fixed point without moving it. Should a sweep move the marginals more
    than twice as much as the one before, the extrapolation starts afresh; should five sweeps in a
    row do no better than the best so far, the correction is dropped for good. ``forward_only``:
    one forward sweep and stop (online filtering when the messages start uniform).

    A move of at most ``tolerance`` flags nothing, so many small moves of a variable can add up
    to more while what reads it is never recomputed. So the first sweep that moves nothing by
    more than ``tolerance`` is followed by a closing check (:func:`_flag_to_check`): one more
    sweep over every step the sweeps touched and the chain messages out of them. The passing
    stops only when such a check moves nothing by more; otherwise the sweeps go on. (Without it,
    on a league of 20,000 games over 5,000 days, adds and a recompute at tolerance 1e-7 ended
    2e-6 apart; with it, 1e-7.)

    Returns ``(sweeps, last change, failed game, game updates)``: ``sweeps`` is -1 when
    ``max_sweeps`` passed without settling, or when the inner message passing of game ``failed
    game`` did not settle (else that is -1).
    """
    ws = _workspace(team_ptr, slot_ptr)
    count = np.zeros(1, np.int64)
    delta = math.inf
    correct = n_nodes > 0
    before_sweep = np.empty(fwd.shape[0])
    after = np.empty(fwd.shape[0])
    last = np.zeros(max(n_nodes, 1))
    best = math.inf
    stalled = 0
    touched = np.zeros(v_ptr.shape[0] - 1, np.bool_)
    checking = False
    for it in range(max_sweeps):
        before = delta
        if correct and it > 0:
            _means(fwd, bwd, lik, before_sweep)
        delta, bad = _sweep_once(
            order_v, v_ptr, order_g, g_ptr, v_step, v_time, prev, next_, prior, fwd, bwd, lik,
            team_ptr, slot_ptr, rank, s_var, s_weight, msg, g_margin, z, beta, margin_s2, drift2,
            v_games, tau2, tolerance, max_inner, forward_only, ws, flags, touched, count,
        )  # fmt: skip
        if bad >= 0:
            return -1, delta, bad, count[0]
        if forward_only:
            return 1, delta, -1, count[0]
        if delta <= tolerance:
            if checking:  # a sweep over all that moved, and nothing moved by more
                return it + 1, delta, -1, count[0]
            _flag_to_check(touched, v_ptr, order_v, v_step, prev, next_, flags)
            checking = True
            continue
        checking = False
        if delta < best:
            best, stalled = delta, 0
        else:
            stalled += 1
        if stalled >= 5:
            correct = False
        jumped = it > 1 and delta > 2.0 * before
        if correct and it > 0:
            # the balance of priors and drift, then the level's own convergence extrapolated
            # (its change shrinks about geometrically from sweep to sweep: Aitken's step)
            _means(fwd, bwd, lik, after)
            c = _level_balance(
                node, frac, n_nodes, v_time, prev, prior, after, drift2, v_games, tau2
            )
            _shift_level(
                c, node, frac, prev, next_, fwd, bwd, lik, s_var, s_weight, msg, team_ptr,
                slot_ptr, v_step, tolerance, flags,
            )  # fmt: skip
            _means(fwd, bwd, lik, after)
            level = _level_of(after - before_sweep, node, frac, n_nodes)
            norm = 0.0
            for x in range(n_nodes):
                norm += last[x] * last[x]
            if jumped:  # an extrapolation overshot: start its estimate afresh
                norm = 0.0
                level[:] = 0.0
            if norm > 0.0:
                rho = 0.0
                for x in range(n_nodes):
                    rho += level[x] * last[x]
                rho /= norm
                if 0.0 < rho < 0.95:
                    _shift_level(
                        level * (rho / (1.0 - rho)), node, frac, prev, next_, fwd, bwd, lik,
                        s_var, s_weight, msg, team_ptr, slot_ptr, v_step, tolerance, flags,
                    )  # fmt: skip
            last[:] = level
    return -1, delta, -1, count[0]


@jit
def marginals_at(
    players: np.ndarray,
    times: np.ndarray,
    last_var: np.ndarray,
    player_prior: np.ndarray,
    default_prior: np.ndarray,
    v_time: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    fwd: np.ndarray,
    bwd: np.ndarray,
    lik: np.ndarray,
    drift2: float,
    v_games: np.ndarray,
    tau2: float,
    out_mu: np.ndarray,
    out_var: np.ndarray,
) -> None:
    """Each player's skill at the given time given all the evidence (mean and variance).

    At a time step of the player's chain this is the variable's marginal; between two steps it
    is what a variable placed there would hold without games of its own (the message from the
    past, widened by the drift up to then and the dynamics of the past step's games, times the
    message from the future, widened from there); before the first step the prior takes the
    place of the past, after the last the future says nothing. ``players[k] < 0`` (unknown
    player): ``default_prior``.
    """
    for k in range(players.shape[0]):
        p = players[k]
        t = times[k]
        if p < 0:
            pi = default_prior[0]
            tau = default_prior[1]
        else:
            v = last_var[p]
            after = -1
            while v >= 0 and v_time[v] > t:
                after = v
                v = prev[v]
            if v >= 0 and v_time[v] == t:
                pi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
                tau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
            else:
                if v >= 0:
                    pi, tau = _forget(
                        fwd[v, 0] + lik[v, 0],
                        fwd[v, 1] + lik[v, 1],
                        _link(t - v_time[v], v_games[v], drift2, tau2),
                    )
                else:
                    pi = player_prior[p, 0]
                    tau = player_prior[p, 1]
                if after >= 0:
                    bpi, btau = _forget(
                        bwd[after, 0] + lik[after, 0],
                        bwd[after, 1] + lik[after, 1],
                        _link(v_time[after] - t, 0.0, drift2, tau2),  # no games at t
                    )
                    pi += bpi
                    tau += btau
        out_mu[k] = tau / pi
        out_var[k] = 1.0 / pi


@jit
def assign_vars(
    slot_player: np.ndarray,
    slot_time: np.ndarray,
    n_vars: int,
    v_player: np.ndarray,
    v_time: np.ndarray,
    prev: np.ndarray,
    next_: np.ndarray,
    last_var: np.ndarray,
    slot_var: np.ndarray,
) -> int:
    """Find or make each slot's variable (its player's at its time step); return the new count.

    A new variable is spliced into its player's chain where its time belongs (usually at the
    end; a late result walks back along the chain). The variable arrays must have room for one
    new variable per slot beyond ``n_vars``.
    """
    for s in range(slot_player.shape[0]):
        p = slot_player[s]
        t = slot_time[s]
        u = last_var[p]
        after = -1
        while u >= 0 and v_time[u] > t:
            after = u
            u = prev[u]
        if u >= 0 and v_time[u] == t:
            slot_var[s] = u
            continue
        v = n_vars
        n_vars += 1
        v_player[v] = p
        v_time[v] = t
        prev[v] = u
        next_[v] = after
        if u >= 0:
            next_[u] = v
        if after >= 0:
            prev[after] = v
        else:
            last_var[p] = v
        slot_var[s] = v
    return n_vars
