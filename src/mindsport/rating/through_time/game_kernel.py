"""A game's messages in whole-history TrueSkill, compiled (numba).

A game's message to its players is the online TrueSkill update (the patent's factor graph for
one game: teams, ties, partial play, partial rankings, and an observed score margin) computed
from the players' *cavities* (their marginals without this game's message) and divided by
them, so running the games forward in time once, with nothing coming back from the future, is
exactly online TrueSkill filtering. That update is the one of
:func:`mindsport.rating.trueskill.trueskill_kernel.update_match`, shared with online TrueSkill.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mindsport._jit.compiling import inline, jit
from mindsport.rating.through_time.chain_kernel import change
from mindsport.rating.through_time.graph import Chains, Games
from mindsport.rating.trueskill.trueskill_kernel import (
    Known,
    Rules,
    Slots,
    Workspace,
    update_match,
    workspace,
)

__all__ = ["GAME_FAILED", "GameScratch", "game_scratch", "update_game"]

#: Status of the inner (multi-team) message passing of one game that did not settle.
GAME_FAILED = -1.0


class GameScratch(NamedTuple):
    """Scratch for :func:`update_game`, sized for the largest game (:func:`game_scratch`)."""

    #: per slot of the game: the cavities' means and variances (``slots.mu``, ``slots.pv``),
    #: the weights, every slot a player (noise 1), the posterior means and deviations
    slots: Slots
    #: per slot: the change of its variable's marginal
    moved: np.ndarray
    #: the game's team pointers and ranks (from 0); no known offsets, its observed margin
    ptr: np.ndarray
    rank: np.ndarray
    known: Known
    work: Workspace


@jit
def game_scratch(team_ptr: np.ndarray, slot_ptr: np.ndarray) -> GameScratch:
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
    slots = Slots(
        np.empty(max_slots),
        np.empty(max_slots),
        np.empty(max_slots),
        np.ones(max_slots),  # each slot's share of beta^2 (every slot a player)
        np.empty(max_slots),
        np.empty(max_slots),
    )
    return GameScratch(
        slots,
        np.empty(max_slots),
        np.empty(max_teams + 1, np.int64),
        np.empty(max_teams),
        # no known offset of a team's performance; the game's observed score margin (y, s2)
        Known(np.zeros(max_teams), np.array([np.nan, 1.0])),
        workspace(max_teams),
    )


@inline
def _send(
    s: int, npi: float, ntau: float, s0: int, games: Games, chains: Chains, moved: Any
) -> None:
    """Replace slot ``s``'s game message; record how far its variable's marginal moved."""
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    msg = games.msg
    v = games.s_var[s]
    opi = fwd[v, 0] + bwd[v, 0] + lik[v, 0]
    otau = fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    lik[v, 0] += npi - msg[s, 0]
    lik[v, 1] += ntau - msg[s, 1]
    msg[s, 0] = npi
    msg[s, 1] = ntau
    moved[s - s0] = change(
        opi, otau, fwd[v, 0] + bwd[v, 0] + lik[v, 0], fwd[v, 1] + bwd[v, 1] + lik[v, 1]
    )


@inline
def update_game(g: int, games: Games, chains: Chains, model: Any, scratch: GameScratch) -> float:
    """Recompute game ``g``'s messages to its players from their cavities.

    The online update of one game
    (:func:`mindsport.rating.trueskill.trueskill_kernel.update_match`) from the players'
    cavities (their marginals without this game's message), divided by the cavities;
    ``games.g_margin[g]`` is the game's observed performance difference of team 0 over team 1,
    seen with variance ``model.margin_s2`` (NaN: none, see
    :mod:`mindsport.rating.trueskill.margins`). ``model``: the settings record. Returns the
    largest change of a player's marginal, or :data:`GAME_FAILED` if the inner message passing
    of a game of three or more teams did not settle within ``model.max_inner`` sweeps.
    ``scratch.moved`` holds each slot's change (slots in game order).
    """
    fwd = chains.fwd
    bwd = chains.bwd
    lik = chains.lik
    slot_ptr = games.slot_ptr
    s_var = games.s_var
    s_weight = games.s_weight
    msg = games.msg
    slots = scratch.slots
    cm = slots.mu
    cv = slots.pv
    wl = slots.w
    out_mu = slots.out_mu
    out_sd = slots.out_sigma
    moved = scratch.moved
    ptr = scratch.ptr
    rk = scratch.rank
    margin = scratch.known.margin
    margin[0] = games.g_margin[g]
    margin[1] = model.margin_s2
    t0 = games.team_ptr[g]
    n = games.team_ptr[g + 1] - t0
    s0 = slot_ptr[t0]
    for t in range(n + 1):
        ptr[t] = slot_ptr[t0 + t] - s0
    for t in range(n):
        rk[t] = games.rank[t0 + t]
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
    rules = Rules(model.z, model.beta, 0.0, model.tolerance, model.max_inner)
    if not update_match(ptr[: n + 1], rk[:n], scratch.known, slots, rules, scratch.work):
        return GAME_FAILED
    worst = 0.0
    for i in range(slot_ptr[t0 + n] - s0):
        if wl[i] == 0.0:
            continue
        post_pi = 1.0 / (out_sd[i] * out_sd[i])
        npi = post_pi - 1.0 / cv[i]
        ntau = post_pi * out_mu[i] - cm[i] / cv[i]
        _send(s0 + i, npi, ntau, s0, games, chains, moved)
        worst = max(worst, moved[i])
    return worst
