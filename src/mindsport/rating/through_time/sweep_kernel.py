"""The sweeps of whole-history TrueSkill, compiled (numba): message passing until it settles.

The graph (:mod:`mindsport.rating.through_time.graph`) is swept forward in time (each step's
messages from the past, then its games) and backward (messages from the future, then the
games), only where something is stale, until no marginal moves by more than the tolerance:
:func:`sweep` runs the sweeps (:func:`_sweep_once`), with a correction of the overall level of
the skills between them (:mod:`.level_kernel`) and a closing check (:func:`_flag_to_check`). The
chains' messages are those of :mod:`.chain_kernel`, the games' those of :mod:`.game_kernel`.

Everything is compiled lazily on first use (``cache=True`` keeps the machine code on disk).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindsport._jit.compiling import inline, jit
from mindsport.rating.through_time.chain_kernel import set_backward, set_forward
from mindsport.rating.through_time.game_kernel import (
    GAME_FAILED,
    GameScratch,
    game_scratch,
    update_game,
)
from mindsport.rating.through_time.graph import Chains, Games, Level, Steps
from mindsport.rating.through_time.level_kernel import level_balance, level_of, means, shift_level

__all__ = ["sweep"]


@inline
def _games_of_step(
    k: int,
    steps: Steps,
    chains: Chains,
    games: Games,
    model: Any,
    scratch: GameScratch,
    count: np.ndarray,
) -> tuple[float, int]:
    """Update the games of time step ``k``; flag what their moves make stale.

    A player moved by more than the tolerance makes stale the other games of the step, the
    message into his next variable and the one into his previous variable.
    """
    tolerance = model.tolerance
    flags = steps.flags
    v_step = steps.v_step
    prev = chains.prev
    next_ = chains.next_
    team_ptr = games.team_ptr
    slot_ptr = games.slot_ptr
    s_var = games.s_var
    moved = scratch.moved
    delta = 0.0
    for j in range(steps.g_ptr[k], steps.g_ptr[k + 1]):
        g = steps.order_g[j]
        d = update_game(g, games, chains, model, scratch)
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
    steps: Steps,
    chains: Chains,
    games: Games,
    model: Any,
    forward_only: bool,
    scratch: GameScratch,
    touched: np.ndarray,
    count: np.ndarray,
) -> tuple[float, int]:
    """One forward sweep (and, unless ``forward_only``, one backward sweep) over the stale parts;
    every step it works on is marked in ``touched``.

    Forward: each time step ``k`` in turn, the messages from the past into its variables (if
    ``flags[k, 0]``), then its games (if ``flags[k, 2]``); backward: the same from the end, with
    the messages from the future (``flags[k, 1]``). Whatever moves a marginal by more than the
    tolerance flags what depends on it. Returns the largest such move and the index of a game
    whose inner message passing did not settle (-1: none).
    """
    tolerance = model.tolerance
    drift2 = model.drift2
    tau2 = model.tau2
    order_v = steps.order_v
    v_ptr = steps.v_ptr
    v_step = steps.v_step
    flags = steps.flags
    prev = chains.prev
    next_ = chains.next_
    n_steps = v_ptr.shape[0] - 1
    delta = 0.0
    for k in range(n_steps):
        if flags[k, 0] or flags[k, 2]:
            touched[k] = True
        if flags[k, 0]:
            flags[k, 0] = False
            for i in range(v_ptr[k], v_ptr[k + 1]):
                v = order_v[i]
                d = set_forward(v, chains, drift2, tau2)
                if d > tolerance:
                    delta = max(delta, d)
                    flags[k, 2] = True
                    if next_[v] >= 0:
                        flags[v_step[next_[v]], 0] = True
        if flags[k, 2]:
            flags[k, 2] = False
            d, bad = _games_of_step(k, steps, chains, games, model, scratch, count)
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
                d = set_backward(v, chains, drift2, tau2)
                if d > tolerance:
                    delta = max(delta, d)
                    flags[k, 2] = True
                    if prev[v] >= 0:
                        flags[v_step[prev[v]], 1] = True
        if flags[k, 2]:
            flags[k, 2] = False
            d, bad = _games_of_step(k, steps, chains, games, model, scratch, count)
            delta = max(delta, d)
            if bad >= 0:
                return delta, bad
    return delta, -1


@jit
def _flag_to_check(touched: np.ndarray, steps: Steps, chains: Chains) -> None:
    """Flag for recomputation everything the sweeps so far may have left behind: every part of
    each touched step and the chain messages its variables send to their neighbours' steps.

    A move of at most the tolerance flags nothing, so small moves can add up where no sweep
    looks again; recomputing what reads a touched variable catches them. Resets ``touched``.
    """
    flags = steps.flags
    v_step = steps.v_step
    prev = chains.prev
    next_ = chains.next_
    for k in range(touched.shape[0]):
        if not touched[k]:
            continue
        touched[k] = False
        flags[k, 0] = True
        flags[k, 1] = True
        flags[k, 2] = True
        for i in range(steps.v_ptr[k], steps.v_ptr[k + 1]):
            v = steps.order_v[i]
            if next_[v] >= 0:
                flags[v_step[next_[v]], 0] = True
            if prev[v] >= 0:
                flags[v_step[prev[v]], 1] = True


@jit
def sweep(
    steps: Steps,
    level: Level,
    chains: Chains,
    games: Games,
    settings: np.ndarray,
    forward_only: bool,
) -> tuple[int, float, int, int]:
    """Sweep forward and backward in time until no marginal moves by more than the tolerance.

    ``steps`` are the time steps (:class:`~mindsport.rating.through_time.graph.Steps`), their
    ``flags[k]`` say which parts of step ``k`` are stale (messages from the past, from the
    future, games): all of them for a history converged from scratch, those the new games touch
    for an update. ``settings``: the settings record
    (:data:`~mindsport.rating.through_time.graph.SETTINGS`). Between sweeps the level of the
    skills through time, which sweeps alone settle slowly, is moved as a whole (a coarse-grid
    correction on the time nodes of ``level``): to the balance of priors and drift
    (:func:`~.level_kernel.level_balance`), then by Aitken's extrapolation of its geometric
    convergence. This shortens the way to the fixed point without moving it. Should a sweep move
    the marginals more than twice as much as the one before, the extrapolation starts afresh;
    should five sweeps in a row do no better than the best so far, the correction is dropped for
    good. ``forward_only``: one forward sweep and stop (online filtering when the messages start
    uniform).

    A move of at most the tolerance flags nothing, so many small moves of a variable can add up
    to more while what reads it is never recomputed. So the first sweep that moves nothing by
    more than the tolerance is followed by a closing check (:func:`_flag_to_check`): one more
    sweep over every step the sweeps touched and the chain messages out of them. The passing
    stops only when such a check moves nothing by more; otherwise the sweeps go on. (Without it,
    on a league of 20,000 games over 5,000 days, adds and a recompute at tolerance 1e-7 ended
    2e-6 apart; with it, 1e-7.)

    Returns ``(sweeps, last change, failed game, game updates)``: ``sweeps`` is -1 when
    ``max_sweeps`` passed without settling, or when the inner message passing of game ``failed
    game`` did not settle (else that is -1).
    """
    model = settings[0]
    tolerance = model.tolerance
    n_nodes = level.n_nodes
    n_vars = chains.fwd.shape[0]
    scratch = game_scratch(games.team_ptr, games.slot_ptr)
    count = np.zeros(1, np.int64)
    delta = math.inf
    correct = n_nodes > 0
    before_sweep = np.empty(n_vars)
    after = np.empty(n_vars)
    last = np.zeros(max(n_nodes, 1))
    best = math.inf
    stalled = 0
    touched = np.zeros(steps.v_ptr.shape[0] - 1, np.bool_)
    checking = False
    for it in range(model.max_sweeps):
        before = delta
        if correct and it > 0:
            means(chains, before_sweep)
        delta, bad = _sweep_once(steps, chains, games, model, forward_only, scratch, touched, count)
        if bad >= 0:
            return -1, delta, bad, count[0]
        if forward_only:
            return 1, delta, -1, count[0]
        if delta <= tolerance:
            if checking:  # a sweep over all that moved, and nothing moved by more
                return it + 1, delta, -1, count[0]
            _flag_to_check(touched, steps, chains)
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
            means(chains, after)
            c = level_balance(level, chains, after, model.drift2, model.tau2)
            shift_level(c, level, chains, games, steps, tolerance)
            means(chains, after)
            shift = level_of(after - before_sweep, level)
            norm = 0.0
            for x in range(n_nodes):
                norm += last[x] * last[x]
            if jumped:  # an extrapolation overshot: start its estimate afresh
                norm = 0.0
                shift[:] = 0.0
            if norm > 0.0:
                rho = 0.0
                for x in range(n_nodes):
                    rho += shift[x] * last[x]
                rho /= norm
                if 0.0 < rho < 0.95:
                    shift_level(shift * (rho / (1.0 - rho)), level, chains, games, steps, tolerance)
            last[:] = shift
    return -1, delta, -1, count[0]
