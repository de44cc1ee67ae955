"""The chains of whole-history TrueSkill, compiled (numba): a player's skill through time.

Each player's variables (one per time step he played in) form a chain linked by the drift: the
message into a variable from its past (:func:`set_forward`) and from its future
(:func:`set_backward`) are the neighbour's evidence widened by the variance of the skill's change
between the steps (:func:`link`: the random walk over the elapsed time and the per-game dynamics
of the earlier step's games). :func:`marginals_at` reads a player's skill at any time from the
chain; :func:`assign_vars` splices new variables into it. The arrays are those of
:class:`~mindsport.rating.through_time.graph.Chains`.
"""

from __future__ import annotations

import math

import numpy as np

from mindsport._jit.compiling import inline, jit
from mindsport.rating.through_time.graph import Chains

__all__ = ["assign_vars", "change", "forget", "link", "marginals_at", "set_backward", "set_forward"]


@jit
def forget(pi: float, tau: float, extra: float) -> tuple[float, float]:
    """A Gaussian message widened by ``extra`` variance (the random walk); uniform stays so."""
    if pi <= 0.0:
        return 0.0, 0.0
    var = 1.0 / pi + extra
    return 1.0 / var, tau / pi / var


@jit
def change(pi0: float, tau0: float, pi1: float, tau1: float) -> float:
    """How far a marginal moved: the larger change of its mean and standard deviation."""
    if pi0 <= 0.0 or pi1 <= 0.0:
        return math.inf
    return max(abs(tau1 / pi1 - tau0 / pi0), abs(math.sqrt(1.0 / pi1) - math.sqrt(1.0 / pi0)))


@jit
def link(elapsed: float, games: float, drift2: float, tau2: float) -> float:
    """Variance of a skill's change over ``elapsed`` time from a step where the player played
    ``games`` games: the drift over the time and the per-game dynamics of those games."""
    return drift2 * elapsed + tau2 * games


@inline
def set_forward(v: int, chains: Chains, drift2: float, tau2: float) -> float:
    """Recompute the message into ``v`` from its past; return the change of ``v``'s marginal."""
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    p = chains.prev[v]
    if p < 0:
        npi = chains.prior[v, 0]
        ntau = chains.prior[v, 1]
    else:
        npi, ntau = forget(
            fwd[p, 0] + lik[p, 0],
            fwd[p, 1] + lik[p, 1],
            link(chains.v_time[v] - chains.v_time[p], chains.v_games[p], drift2, tau2),
        )
    opi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
    otau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    d = change(opi, otau, opi - fwd[v, 0] + npi, otau - fwd[v, 1] + ntau)
    fwd[v, 0] = npi
    fwd[v, 1] = ntau
    return d


@inline
def set_backward(v: int, chains: Chains, drift2: float, tau2: float) -> float:
    """Recompute the message into ``v`` from its future; return the change of its marginal."""
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    n = chains.next_[v]
    if n < 0:
        npi = 0.0
        ntau = 0.0
    else:
        npi, ntau = forget(
            bwd[n, 0] + lik[n, 0],
            bwd[n, 1] + lik[n, 1],
            link(chains.v_time[n] - chains.v_time[v], chains.v_games[v], drift2, tau2),
        )
    opi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
    otau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    d = change(opi, otau, opi - bwd[v, 0] + npi, otau - bwd[v, 1] + ntau)
    bwd[v, 0] = npi
    bwd[v, 1] = ntau
    return d


@jit
def marginals_at(
    players: np.ndarray,
    times: np.ndarray,
    last_var: np.ndarray,
    player_prior: np.ndarray,
    default_prior: np.ndarray,
    chain_arrays: tuple[np.ndarray, ...],
    settings: np.ndarray,
    out_mu: np.ndarray,
    out_var: np.ndarray,
) -> None:
    """Each player's skill at the given time given all the evidence (mean and variance).

    At a time step of the player's chain this is the variable's marginal; between two steps it
    is what a variable placed there would hold without games of its own (the message from the
    past, widened by the drift up to then and the dynamics of the past step's games, times the
    message from the future, widened from there); before the first step the prior takes the
    place of the past, after the last the future says nothing. ``players[k] < 0`` (unknown
    player): ``default_prior``. ``chain_arrays``: the arrays of
    :class:`~mindsport.rating.through_time.graph.Chains` as a plain tuple (it crosses into
    compiled code faster than a named one: this runs once per query). ``settings``: the
    settings, one record (its ``drift2`` and ``tau2``).
    """
    chains = Chains(*chain_arrays)
    v_time = chains.v_time
    prev = chains.prev
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    v_games = chains.v_games
    model = settings[0]
    drift2 = model.drift2
    tau2 = model.tau2
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
                    pi, tau = forget(
                        fwd[v, 0] + lik[v, 0],
                        fwd[v, 1] + lik[v, 1],
                        link(t - v_time[v], v_games[v], drift2, tau2),
                    )
                else:
                    pi = player_prior[p, 0]
                    tau = player_prior[p, 1]
                if after >= 0:
                    bpi, btau = forget(
                        bwd[after, 0] + lik[after, 0],
                        bwd[after, 1] + lik[after, 1],
                        link(v_time[after] - t, 0.0, drift2, tau2),  # no games at t
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
