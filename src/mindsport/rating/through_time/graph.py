"""The arrays of a whole-history graph, and the named views the compiled message passing reads.

:class:`Graph` holds the graph of a :class:`~mindsport.rating.through_time.model.SkillHistory` in
growable columns (:class:`Column`) and hands the kernels named views of them:

* :class:`Chains`: the **variables** ``v`` (one per player per time step): ``v_time`` (the step's
  time), ``prev`` and ``next_`` (the player's chain, -1 at the ends), ``prior`` (the player's
  prior, used by the first variable of a chain), ``v_games`` (games the player played at the
  step), and three incoming messages in natural parameters ``(pi, tau)``: ``fwd`` (from the
  previous variable through the drift, or the prior), ``bwd`` (from the next variable through
  the drift) and ``lik`` (the product of every game message); the marginal is their product;
* :class:`Games`: the **slots** ``s`` (one per player per game: ``s_var``, ``s_weight`` for
  partial play and ``msg``, the game's message to the variable), the **teams**
  ``slot_ptr[t]:slot_ptr[t + 1]`` with ``rank[t]`` (NaN: unranked) and the **games**
  ``team_ptr[g]:team_ptr[g + 1]`` with ``g_margin[g]`` (a two-team game's observed score margin
  on the performance scale; NaN: none);
* :class:`Steps`: the **time steps** ``k``: their variables and games as runs of the time orders
  ``order_v`` and ``order_g``, each variable's step, and per step three flags of what is stale
  (messages from the past, from the future, games), so that sweeps after new results only redo
  what moved;
* :class:`Level`: the time nodes of the correction of the level of the skills through time.

The settings the kernels read are one record (:data:`SETTINGS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["LEVEL_NODES", "SETTINGS", "Chains", "Column", "Games", "Graph", "Level", "Steps"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

#: Time nodes of the level correction between sweeps (see
#: :func:`~mindsport.rating.through_time.sweep_kernel.sweep`).
LEVEL_NODES = 32

#: the settings as the compiled message passing reads them: one record, fields by name
SETTINGS = np.dtype(
    [
        ("z", np.float64),  # the normal quantile of the draw margin
        ("beta", np.float64),
        ("margin_s2", np.float64),  # the variance of an observed score margin
        ("drift2", np.float64),  # the skill's random walk per day or unit (variance)
        ("tau2", np.float64),  # the skill's change per game played (variance)
        ("tolerance", np.float64),
        ("max_inner", np.int64),  # safety limit on the message passing within one game
        ("max_sweeps", np.int64),  # safety limit on the sweeps through time
    ],
    align=True,
)


class Chains(NamedTuple):
    """The variables and their chains through time (see the module docstring)."""

    v_time: F64
    prev: I64
    next_: I64
    prior: F64
    v_games: F64
    fwd: F64
    bwd: F64
    lik: F64


class Games(NamedTuple):
    """The games, their teams and their player slots (see the module docstring)."""

    team_ptr: I64
    slot_ptr: I64
    rank: F64
    s_var: I64
    s_weight: F64
    msg: F64
    g_margin: F64


class Steps(NamedTuple):
    """The time steps: ``v_ptr[k]:v_ptr[k + 1]`` of ``order_v`` (variables sorted by time) and
    ``g_ptr[k]:g_ptr[k + 1]`` of ``order_g`` (games sorted by time, a step's games in the order
    they were added) are step ``k``'s; ``v_step`` is each variable's step; ``flags[k]`` what is
    stale at step ``k`` (messages from the past, from the future, games)."""

    order_v: I64
    v_ptr: I64
    order_g: I64
    g_ptr: I64
    v_step: I64
    flags: NDArray[np.bool_]


class Level(NamedTuple):
    """The time nodes of the level correction: variable ``v`` lies a fraction ``frac[v]`` of the
    way from node ``node[v]`` to the next (of ``n_nodes``)."""

    node: I64
    frac: F64
    n_nodes: int


class Column:
    """A growable numpy array (capacity doubles), for appending batches of rows."""

    def __init__(self, dtype: Any, width: int = 0) -> None:
        self._shape_tail = (width,) if width else ()
        self._a = np.zeros((16, *self._shape_tail), dtype=dtype)
        self.n = 0

    def reserve(self, extra: int) -> Any:
        """Room for ``extra`` more rows; returns the whole buffer (rows past ``n`` are free)."""
        need = self.n + extra
        if need > len(self._a):
            grown = np.zeros((max(need, 2 * len(self._a)), *self._shape_tail), self._a.dtype)
            grown[: self.n] = self._a[: self.n]
            self._a = grown
        return self._a

    def extend(self, values: Any) -> None:
        vals = np.asarray(values, dtype=self._a.dtype).reshape(-1, *self._shape_tail)
        self.reserve(len(vals))[self.n : self.n + len(vals)] = vals
        self.n += len(vals)

    @property
    def view(self) -> Any:
        return self._a[: self.n]


class Graph:
    """The columns of a whole-history graph: players, variables, slots, teams and games, and the
    orders of variables and games by time (see the module docstring for what each holds)."""

    def __init__(self) -> None:
        # players
        self.player_prior = Column(np.float64, 2)
        self.last_var = Column(np.int64)
        # variables
        self.v_player = Column(np.int64)
        self.v_time = Column(np.float64)
        self.prev = Column(np.int64)
        self.next = Column(np.int64)
        self.v_prior = Column(np.float64, 2)
        self.v_games = Column(np.float64)  # games played at the variable's step
        self.fwd = Column(np.float64, 2)
        self.bwd = Column(np.float64, 2)
        self.lik = Column(np.float64, 2)
        # slots, teams, games
        self.s_var = Column(np.int64)
        self.s_weight = Column(np.float64)
        self.msg = Column(np.float64, 2)
        self.slot_ptr = Column(np.int64)
        self.slot_ptr.extend([0])
        self.rank = Column(np.float64)
        self.team_ptr = Column(np.int64)
        self.team_ptr.extend([0])
        self.g_time = Column(np.float64)
        self.g_margin = Column(np.float64)  # observed score margin (NaN: none)
        self.order_v = Column(np.int64)  # variables sorted by time
        self.order_g = Column(np.int64)  # games sorted by time (ties: order added)
        # the named views, made once between appends (which may move the arrays)
        self._chains: Chains | None = None
        self._games: Games | None = None

    @property
    def n_games(self) -> int:
        return self.g_time.n

    def add_player(self, prior: Any) -> None:
        """A new player with ``prior`` (natural parameters) and no variable yet."""
        self.player_prior.extend(prior)
        self.last_var.extend([-1])

    def append(
        self,
        slot_player: I64,
        slot_time: F64,
        weights: list[float],
        slot_ptr: list[int],
        ranks: list[float],
        team_ptr: list[int],
        games: tuple[list[float], list[float]],
        assign_vars: Callable[..., int],
    ) -> None:
        """Append games: per slot its player, time step and weight; per team the end of its
        slots and its rank; per game the end of its teams; ``games``: each game's time step and
        observed score margin. New variables are spliced into their players' chains (at most
        one per slot) by ``assign_vars``
        (:func:`~mindsport.rating.through_time.chain_kernel.assign_vars`)."""
        g_time, g_margin = games
        self._chains = self._games = None
        nv0, ng0 = self.v_time.n, self.n_games
        ns = len(slot_player)
        slot_var = np.empty(ns, np.int64)
        nv = assign_vars(  # at most one new variable per slot
            slot_player,
            slot_time,
            nv0,
            self.v_player.reserve(ns),
            self.v_time.reserve(ns),
            self.prev.reserve(ns),
            self.next.reserve(ns),
            self.last_var.view,
            slot_var,
        )
        for col in (self.v_player, self.v_time, self.prev, self.next):
            col.n = nv
        self.v_prior.extend(self.player_prior.view[self.v_player.view[nv0:nv]])
        self.v_games.extend(np.zeros(nv - nv0))
        np.add.at(self.v_games.view, slot_var[np.asarray(weights) > 0.0], 1.0)
        for col in (self.fwd, self.bwd, self.lik):
            col.extend(np.zeros((nv - nv0, 2)))
        self.s_var.extend(slot_var)
        self.s_weight.extend(weights)
        self.msg.extend(np.zeros((ns, 2)))
        self.slot_ptr.extend(slot_ptr)
        self.rank.extend(ranks)
        self.team_ptr.extend(team_ptr)
        self.g_time.extend(g_time)
        self.g_margin.extend(g_margin)
        self._extend_order(self.order_v, self.v_time.view, nv0)
        self._extend_order(self.order_g, self.g_time.view, ng0)

    @staticmethod
    def _extend_order(order: Column, times: F64, old: int) -> None:
        """Keep ``order`` (indices sorted by time, ties in insertion order) up to date after
        items ``old..`` were appended: appended in order when they all come at or after the
        last time, else sorted anew."""
        if len(times) == old:  # nothing new (e.g. games at steps whose variables exist)
            return
        new = old + np.argsort(times[old:], kind="stable").astype(np.int64)
        if old == 0 or times[old:].min() >= times[order.view[-1]]:
            order.extend(new)
        else:
            order.n = 0
            order.extend(np.argsort(times, kind="stable").astype(np.int64))

    def clear_messages(self) -> None:
        """Every message back to uniform (a convergence from scratch)."""
        for col in (self.fwd, self.bwd, self.lik, self.msg):
            col.view[:] = 0.0

    def chains(self) -> Chains:
        """The variables and their messages (views of the columns)."""
        if self._chains is None:
            self._chains = Chains(
                self.v_time.view,
                self.prev.view,
                self.next.view,
                self.v_prior.view,
                self.v_games.view,
                self.fwd.view,
                self.bwd.view,
                self.lik.view,
            )
        return self._chains

    def games(self) -> Games:
        """The games, teams and slots (views of the columns)."""
        if self._games is None:
            self._games = Games(
                self.team_ptr.view,
                self.slot_ptr.view,
                self.rank.view,
                self.s_var.view,
                self.s_weight.view,
                self.msg.view,
                self.g_margin.view,
            )
        return self._games

    def steps(self) -> tuple[I64, I64, I64]:
        """The time steps: where each starts in the variable and game orders, and each
        variable's step."""
        v_sorted = self.v_time.view[self.order_v.view]
        steps = np.unique(v_sorted)
        v_ptr = np.searchsorted(v_sorted, steps, side="left")
        g_ptr = np.searchsorted(self.g_time.view[self.order_g.view], steps, side="left")
        v_step = np.searchsorted(steps, self.v_time.view)
        return (
            np.append(v_ptr, len(v_sorted)).astype(np.int64),
            np.append(g_ptr, self.n_games).astype(np.int64),
            v_step.astype(np.int64),
        )

    def level(self, moves: bool) -> Level:
        """Time nodes of the level correction: each variable's node and fraction to the next.

        Up to :data:`LEVEL_NODES` nodes at quantiles of the variables' times (one node when
        the skills cannot change, ``moves`` False: the level is then one number).
        """
        vt = self.v_time.view
        if not moves or len(vt) < 2:
            return Level(np.zeros(len(vt), np.int64), np.zeros(len(vt)), 1)
        nodes = np.unique(np.quantile(vt, np.linspace(0.0, 1.0, LEVEL_NODES)))
        if len(nodes) < 2:
            return Level(np.zeros(len(vt), np.int64), np.zeros(len(vt)), 1)
        node = np.clip(np.searchsorted(nodes, vt, side="right") - 1, 0, len(nodes) - 2)
        frac = np.clip((vt - nodes[node]) / (nodes[node + 1] - nodes[node]), 0.0, 1.0)
        return Level(node.astype(np.int64), frac, len(nodes))
