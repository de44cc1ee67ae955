"""The level of the skills through time in whole-history TrueSkill, compiled (numba).

Games say how players compare, not how strong everybody is: shifting every player of a time step
leaves each game's messages shifted alike. The overall level of the skills through time is held
only by the priors of first steps and by the links between steps, so sweeps alone settle it
slowly. Between sweeps :func:`~mindsport.rating.through_time.sweep_kernel.sweep` moves it as a
whole, piecewise linear on a few time nodes (:class:`~mindsport.rating.through_time.graph.Level`):
to the balance of the priors and the drift (:func:`level_balance`), then by an extrapolation of
its own convergence (:func:`level_of` the change of a sweep), moving every message with it
(:func:`shift_level`).
"""

from __future__ import annotations

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.through_time.chain_kernel import link
from mindsport.rating.through_time.graph import Chains, Games, Level, Steps

__all__ = ["level_balance", "level_of", "means", "shift_level"]


@jit
def means(chains: Chains, out: np.ndarray) -> None:
    """Every variable's marginal mean (0 where it has no information)."""
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    for v in range(out.shape[0]):
        pi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
        out[v] = (fwd[v, 1] + bwd[v, 1] + lik[v, 1]) / pi if pi > 0.0 else 0.0


@jit
def _at(c: np.ndarray, node: np.ndarray, frac: np.ndarray, v: int) -> float:
    """The piecewise linear level ``c`` at variable ``v``'s time."""
    n = c.shape[0]
    return (1.0 - frac[v]) * c[node[v]] + frac[v] * c[min(node[v] + 1, n - 1)]


@jit
def level_balance(
    level: Level, chains: Chains, mean: np.ndarray, drift2: float, tau2: float
) -> np.ndarray:
    """The level shift that best restores the balance of the prior and drift factors.

    Games say nothing about the level of the skills through time (shifting every player of a
    time step leaves each game's messages shifted alike), only the priors of players' first steps
    and the drift between steps do. Their linear-Gaussian balance for a shift ``c(t)``, piecewise
    linear between the time nodes of ``level``, given the current means, is a small linear
    system.
    """
    node = level.node
    frac = level.frac
    n_nodes = level.n_nodes
    prev = chains.prev
    prior = chains.prior
    v_time = chains.v_time
    v_games = chains.v_games
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
            gap = link(v_time[v] - v_time[p], v_games[p], drift2, tau2)
            if gap <= 0.0:
                continue
            idx[2] = node[p]
            idx[3] = min(node[p] + 1, n_nodes - 1)
            coef[2] = frac[p] - 1.0
            coef[3] = -frac[p]
            k = 4
            weight = 1.0 / gap
            force = -weight * (mean[v] - mean[p])
        for x in range(k):
            r[idx[x]] += coef[x] * force
            for y in range(k):
                a[idx[x], idx[y]] += weight * coef[x] * coef[y]
    for x in range(n_nodes):
        a[x, x] += 1e-12
    return np.linalg.solve(a, r)


@jit
def level_of(change: np.ndarray, level: Level) -> np.ndarray:
    """The piecewise linear level closest (least squares) to a change of every variable."""
    node = level.node
    frac = level.frac
    n_nodes = level.n_nodes
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
def shift_level(
    c: np.ndarray, level: Level, chains: Chains, games: Games, steps: Steps, tolerance: float
) -> None:
    """Move every message with the level ``c`` at the variable it comes from (the priors stay).

    The games of a step stay consistent with their players, the chains nearly so: the next sweep
    refreshes every chain message and revisits the games only where the shift moved players
    unevenly (a first step, held back by its prior; teams of unequal total weight); those are
    flagged stale in ``steps.flags``. A shift of at most ``tolerance`` everywhere is left out.
    """
    node = level.node
    frac = level.frac
    prev = chains.prev
    next_ = chains.next_
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    s_var = games.s_var
    s_weight = games.s_weight
    msg = games.msg
    team_ptr = games.team_ptr
    slot_ptr = games.slot_ptr
    v_step = steps.v_step
    flags = steps.flags
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
