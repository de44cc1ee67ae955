r"""Whole-history TrueSkill: each player's skill is a chain through time, smoothed by EP.

The model of "TrueSkill Through Time: Revisiting the History of Chess" (Dangauthier, Herbrich,
Minka, Graepel, 2007). Online TrueSkill keeps one belief per player and moves it game after game;
it never revises the past, so a player's early games are judged from a belief that later games
proved wrong, and a returning player's rating is whatever it was when he left. Here every player
has **one skill variable per time step** in which he played, and all the games of the whole
history are evidence about all the variables at once::

    prior      drift          drift               drift
     [P]--s(a,1)--[D]--s(a,4)--[D]--s(a,5)  ...   s(b,1)--[D]--s(b,5)   ...
             \                   \                  /             /
              [game 1: a beats b]  [game 7: b beats a]-----------

* a **time step** is a calendar day for ``datetime`` times (``time_step`` days: 1 by default,
  1/24 for hours) and a bucket of ``time_step`` units for numeric times (1 by default: every
  distinct integer time is a step); all the games of one step see the same skill;
* the **drift** links a player's consecutive variables: ``s(t2) = s(t1) + N(0, drift^2 (t2 - t1))``
  with the elapsed time in days (datetimes) or units (numbers): a Gaussian random walk. With
  per-game dynamics ``tau`` (0 by default, as in the paper) the link also widens by ``tau^2``
  for each game the player played at the earlier step: skill moves with play, not only with
  time (online TrueSkill's ``tau``). The first variable has the prior ``N(mu, sigma^2)``;
* every **game** is the factor graph of online TrueSkill (performance = skill + ``N(0, beta^2)``,
  team performance = weighted sum, adjacent teams by rank linked by a truncation: wins, ties
  within the draw margin, partial play, partial rankings with ``None`` ranks linked to the
  lowest ranked team) between the variables of its players at its time step. With
  ``margin_scale`` set, a two-team game with scores also observes its performance difference
  (score margins, :mod:`mindsport.rating.trueskill.margins`: ATP sets, Halo kills), in the same
  update.

Expectation propagation: each game sends each of its players a Gaussian message, the online
update computed from the player's *cavity* (his marginal without this game's message) divided by
the cavity. Sweeps go forward in time (messages from the past, then the step's games) and back
(messages from the future, then the games) until no marginal moves by more than ``tolerance``;
a safety limit of ``max_sweeps`` raises :class:`~mindsport.rating.trueskill.game.ConvergenceError`
instead of stopping short. The very first forward sweep, with nothing yet from the future, is
online TrueSkill filtering (drift over elapsed time, and ``tau`` added after a step's games
rather than before each game; with margins, the online TrueSkill with margins of
:class:`~mindsport.rating.trueskill.cardplay.CardPlay`); the later sweeps let each game's
evidence reach the past.

Games say how players compare, not how strong everybody is: the overall level of the skills
through time is held only by the priors of first steps and by the links, so sweeps alone would
settle it slowly; between sweeps a coarse correction moves that level as a whole (see
:func:`~mindsport.rating.through_time.sweep_kernel.sweep`). On the whole ATP tour history (195,000
matches) the graph settles in about 30 sweeps at the default tolerance.

A :class:`SkillHistory` holds the settled graph. :meth:`SkillHistory.add` takes new results (a
day's games, or late results from the past) and re-converges from the messages as they stand:
the sweeps start at the new games and variables and redo only what moves by more than
``tolerance``. On a long history a day's results move nearly every variable a little, and not
only by a shift of the overall level (on ATP, 99.9% of the player-days by more than 1e-6, 86%
even with the best level shift taken out), so the tolerance sets how much an add redoes: about
two thirds of a recompute's game updates at the default 1e-7, half at 1e-6, a fifth at 1e-4.

>>> from mindsport.match import Match
>>> model = TrueSkillThroughTime(draw_probability=0.0, drift=0.5)
>>> h = model.history([Match("g1", 1, [["a"], ["b"]], [0, 1]),
...                    Match("g2", 5, [["b"], ["a"]], [0, 1]),
...                    Match("g3", 9, [["b"], ["a"]], [0, 1])])
>>> round(h.rating("a", at=1).mu, 2), round(h.rating("a", at=9).mu, 2)
(23.79, 23.48)
>>> model.rate([(model.rating(),), (model.rating(),)])[0][0].mu > 25  # game 1 on its own
True

Later results revise the past: seen alone, game 1 makes ``a`` better than average; the two later
losses say that ``a`` was weaker than that at the time as well.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import NotFoundError
from mindsport.match import Match
from mindsport.rating.gaussian import norm_ppf
from mindsport.rating.params import MAX_COUNT, MAX_SCALE, Kind, Param, check_settings
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.through_time.clock import Clock
from mindsport.rating.through_time.graph import SETTINGS, Graph, Steps
from mindsport.rating.trueskill.margins import MARGIN_NOISE, MARGIN_PARAMS, observed_margin
from mindsport.rating.trueskill.model import (
    BETA,
    DRAW_PROBABILITY,
    MIN_TOLERANCE,
    MU,
    SIGMA,
    TAU,
    ConvergenceError,
    InvalidGameError,
    TrueSkill,
)
from mindsport.rating.trueskill.model import PARAMS as TRUESKILL_PARAMS

__all__ = ["PARAMS", "Convergence", "SkillCurve", "SkillHistory", "TrueSkillThroughTime"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

_SAME = {p.name: p for p in TRUESKILL_PARAMS}  # the settings it shares with online TrueSkill

#: Default convergence tolerance: the message passing stops when a sweep over everything that
#: moved moves no marginal by more. Slow, smooth modes (the level of a whole era) go on moving
#: by less than that for many sweeps, so the estimates settle within a few times the tolerance
#: of the exact fixed point; at this default an incremental :meth:`SkillHistory.add` and a
#: :meth:`SkillHistory.recompute` agree to 1e-6 (on the ATP tour history to 4e-7; at 1e-6 they
#: are 2e-6 apart there).
TOLERANCE = 1e-7

PARAMS = (
    _SAME["mu"],
    _SAME["sigma"],
    _SAME["beta"],
    Param(
        "drift",
        Kind.REAL,
        TAU,
        "random walk of the skill per day or time unit (deviation)",
        0.0,
        MAX_SCALE,
    ),
    Param("tau", Kind.REAL, 0.0, "change of the skill per game played (deviation)", 0.0, MAX_SCALE),
    _SAME["draw_probability"],
    # the time axis spans at most 1.3e10 (POSIX seconds of 1800-2199): at least a millionth of
    # a unit a step keeps the number of steps (and drift^2 times it) finite and exact
    Param(
        "time_step",
        Kind.REAL,
        1.0,
        "width of a time step (days, or time units)",
        1e-6,
        MAX_SCALE,
    ),
    Param(
        "tolerance",
        Kind.REAL,
        TOLERANCE,
        "convergence of the message passing (largest move of a marginal in the last sweep)",
        MIN_TOLERANCE,
        MAX_SCALE,
    ),
    Param(
        "max_sweeps",
        Kind.INTEGER,
        1000,
        "safety limit on forward-backward sweeps",
        1.0,
        MAX_COUNT,
    ),
    *MARGIN_PARAMS,
)


@dataclass(frozen=True)
class TrueSkillThroughTime:
    """Whole-history TrueSkill settings. Immutable; see the module docstring for the model.

    Parameters
    ----------
    mu, sigma:
        Prior belief about a player's skill at his first time step.
    beta:
        Performance noise, as in TrueSkill.
    drift:
        Standard deviation of the skill's random walk per day (``datetime`` times) or per unit
        (numeric times): between two time steps ``elapsed`` apart, the variance grows by
        ``drift**2 * elapsed``.
    tau:
        Per-game dynamics, as online TrueSkill's ``tau``: playing moves the skill too (players
        learn by playing), so the variance from a time step to the player's next one grows by
        ``tau**2`` for each game he played in it. 0 (the default) is the model of the paper.
    draw_probability:
        How often two equal players draw; sets the draw margin as in TrueSkill.
    time_step:
        Width of a time step, in days for ``datetime`` times and in units for numbers.
    tolerance:
        Message passing stops when a sweep over everything that moved moves no marginal (mean or
        standard deviation) by more. The estimates then lie within a few times this of the exact
        fixed point; the default (:data:`TOLERANCE`) keeps an incremental run and a recompute
        within 1e-6 of each other. Larger values make adds much cheaper (see the module
        docstring).
    max_sweeps:
        Safety limit on forward-backward sweeps (of a history from scratch or of an incremental
        :meth:`SkillHistory.add`); reaching it raises
        :class:`~mindsport.rating.trueskill.game.ConvergenceError`.
    margin_scale, margin_noise:
        Score margins (None: off): a two-team game with scores also observes its performance
        difference ``margin_scale * (score_0 - score_1)`` with deviation ``margin_noise``, in the
        same update as online TrueSkill's (:mod:`mindsport.rating.trueskill.margins`).
    """

    mu: float = MU
    sigma: float = SIGMA
    beta: float = BETA
    drift: float = TAU
    tau: float = 0.0
    draw_probability: float = DRAW_PROBABILITY
    time_step: float = 1.0
    tolerance: float = TOLERANCE
    max_sweeps: int = field(default=1000, repr=False)
    margin_scale: float | None = None
    margin_noise: float = MARGIN_NOISE

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "TrueSkillThroughTime", InvalidRatingError)

    @cached_property
    def one_game(self) -> TrueSkill:
        """The online model of a single game: a history of one game gives its update."""
        return TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=0.0,
            draw_probability=self.draw_probability,
            tolerance=self.tolerance,
        )

    def rating(self, mu: float | None = None, sigma: float | None = None) -> Rating:
        """A new player's rating (the prior), or one with the given ``mu``/``sigma``."""
        return self.one_game.rating(mu, sigma)

    @staticmethod
    def expose(rating: Rating) -> float:
        """Conservative skill ``mu - 3 sigma`` for leaderboards, as in TrueSkill."""
        return rating.mu - 3.0 * rating.sigma

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | float | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """Ratings after one game seen on its own: the posterior of a one-game history.

        With a single game there is nothing to smooth, so this is the online TrueSkill update
        without per-game dynamics (see :meth:`mindsport.rating.TrueSkill.rate` for the shapes).
        Whole histories go through :meth:`history`.
        """
        return self.one_game.rate(teams, ranks, weights)

    def outcome_probabilities(self, team_a: Any, team_b: Any) -> tuple[float, float, float]:
        """``(P(a ahead), P(draw), P(b ahead))`` for a game between teams of these ratings."""
        return self.one_game.outcome_probabilities(team_a, team_b)

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Probability that ``team_a`` finishes ahead of ``team_b`` (a draw is not a win)."""
        return self.one_game.win_probability(team_a, team_b)

    def history(
        self, matches: Iterable[Match] = (), priors: Mapping[str, Rating] | None = None
    ) -> SkillHistory:
        """The settled whole-history graph of ``matches`` (any order; time decides).

        ``priors``: beliefs about players at their first time step that replace the model's
        prior (e.g. ratings known from before the history).
        """
        h = SkillHistory(self, priors)
        h.add(matches)
        return h


@dataclass(frozen=True)
class Convergence:
    """How the last :meth:`SkillHistory.add` (or :meth:`SkillHistory.recompute`) settled.

    ``sweeps``: forward-backward sweeps (each over the stale parts only); ``updates``: game
    message updates; ``change``: the largest move of a marginal above the tolerance in the last
    sweep (0: none, settled).
    """

    sweeps: int
    updates: int
    change: float


@dataclass(frozen=True)
class SkillCurve:
    """A player's smoothed skill through time: one point per time step he played in."""

    player: str
    times: tuple[datetime | float, ...]
    mu: F64
    sigma: F64

    def __len__(self) -> int:
        return len(self.times)


class SkillHistory:
    """The whole-history graph of a :class:`TrueSkillThroughTime` model, kept settled.

    Build it with :meth:`TrueSkillThroughTime.history`; :meth:`add` more results at any time
    (late ones included). Queries: :meth:`ratings` (each player at his last step),
    :meth:`rating` (one player at any time), :meth:`ratings_at` (many players at many times,
    as arrays), :meth:`curve` (a player's smoothed skill through time).

    A history is a mutable engine (like a database of ratings): :meth:`add` changes it in place.
    Bad input raises before anything changes. Should message passing ever fail to settle
    (:class:`~mindsport.rating.trueskill.game.ConvergenceError`), the matches stay in and
    :meth:`recompute` starts over. The graph's arrays are those of
    :class:`~mindsport.rating.through_time.graph.Graph`, its message passing the kernels of
    :mod:`mindsport.rating.through_time`.
    """

    def __init__(
        self, model: TrueSkillThroughTime, priors: Mapping[str, Rating] | None = None
    ) -> None:
        if not isinstance(model, TrueSkillThroughTime):
            raise InvalidGameError(f"SkillHistory needs a TrueSkillThroughTime, got {model!r}")
        self.model = model
        self._priors: dict[str, Rating] = {}
        for p, r in (priors or {}).items():
            if not isinstance(r, Rating):
                raise InvalidGameError(f"priors[{p!r}] is not a Rating: {r!r}")
            self._priors[p] = r
        self._default = np.array([1.0 / model.sigma**2, model.mu / model.sigma**2])
        self._ids: list[str] = []
        self._index: dict[str, int] = {}
        self._graph = Graph()
        self._match_ids: list[str] = []
        self._id_set: set[str] = set()
        self._clock = Clock(model.time_step)
        self.convergence = Convergence(0, 0, 0.0)

    # ------------------------------------------------------------------ sizes and names

    def __len__(self) -> int:
        """Number of matches."""
        return len(self._match_ids)

    @property
    def players(self) -> tuple[str, ...]:
        """Every player id, in order of first appearance."""
        return tuple(self._ids)

    @property
    def variables(self) -> int:
        """Number of skill variables (player-steps)."""
        return self._graph.v_time.n

    # ------------------------------------------------------------------ adding results

    def _player(self, p: str) -> int:
        i = self._index.get(p)
        if i is None:
            i = self._index[p] = len(self._ids)
            self._ids.append(p)
            r = self._priors.get(p)
            prior = self._default if r is None else (1.0 / r.sigma**2, r.mu / r.sigma**2)
            self._graph.add_player(prior)
        return i

    def _check(self, matches: list[Any]) -> None:
        """Refuse bad input before anything changes."""
        clock = self._clock.kind
        ids: set[str] = set()
        for k, m in enumerate(matches):
            if not isinstance(m, Match):
                raise InvalidGameError(f"item {k} is not a Match: {m!r}")
            what = f"match {m.id!r}"
            if m.id in ids or m.id in self._id_set:
                raise InvalidGameError(f"{what}: this match id is already in the history")
            ids.add(m.id)
            c = self._clock.kind_of(m.time, what)
            if clock is None:
                clock = c
            elif c is not clock:
                raise InvalidGameError(
                    f"{what}: time {m.time!r} is a {c.value}, but other matches use {clock.value}s"
                )
            if m.weights is not None:
                for i, ws in enumerate(m.weights):
                    if all(w == 0 for w in ws):
                        raise InvalidGameError(
                            f"{what}: weights[{i}]: every player of team {i} has weight 0"
                        )
            if self.model.draw_probability == 0:
                ranked = [r for r in m.ranks if r is not None]
                if len(set(ranked)) < len(ranked):
                    raise InvalidGameError(
                        f"{what}: ranks {list(m.ranks)} tie, but draw_probability is 0 so a "
                        "tie is impossible under this model"
                    )

    def add(self, matches: Iterable[Match]) -> Convergence:
        """Add results and re-converge; returns how it settled (also in ``convergence``).

        Matches may come in any order and from any time (late results are spliced into the
        chains). Into an empty history they are converged by sweeps from scratch; otherwise
        from the messages as they stand (see :meth:`_settle`).
        """
        from mindsport.rating.through_time.chain_kernel import assign_vars

        ms = list(matches)
        self._check(ms)
        if not ms:
            return self.convergence
        self._clock.start(ms[0].time)
        graph = self._graph
        first = len(self._match_ids) == 0
        nv0, ns0, ng0 = graph.v_time.n, graph.s_var.n, len(self._match_ids)
        step_cache: dict[Any, float] = {}
        players: list[str] = []
        weights: list[float] = []
        slot_time: list[float] = []
        slot_ptr: list[int] = []
        ranks: list[float] = []
        team_ptr: list[int] = []
        g_time: list[float] = []
        g_margin: list[float] = []
        n_teams = graph.rank.n
        for m in ms:
            st = step_cache.get(m.time)
            if st is None:
                st = step_cache[m.time] = self._clock.step(m.time)
            before = len(players)
            for i, team in enumerate(m.teams):
                players.extend(team)
                weights.extend(m.weights[i] if m.weights is not None else [1.0] * len(team))
                slot_ptr.append(ns0 + len(players))
                r = m.ranks[i]
                ranks.append(math.nan if r is None else float(r))
            slot_time.extend([st] * (len(players) - before))
            n_teams += len(m.teams)
            team_ptr.append(n_teams)
            g_time.append(st)
            y = observed_margin(self.model.margin_scale, m.scores, self.model.beta)
            g_margin.append(math.nan if y is None else y)
            self._match_ids.append(m.id)
            self._id_set.add(m.id)
        get = self._index.get
        slot_player = np.array([get(p, -1) for p in players], np.int64)
        for u in np.flatnonzero(slot_player < 0).tolist():
            slot_player[u] = self._player(players[u])
        graph.append(
            slot_player,
            np.asarray(slot_time),
            weights,
            slot_ptr,
            ranks,
            team_ptr,
            (g_time, g_margin),
            assign_vars,
        )
        if first:
            return self._sweeps()
        return self._settle(nv0, ng0)

    # ------------------------------------------------------------------ message passing

    @cached_property
    def _settings(self) -> NDArray[np.void]:
        """The settings as the kernels take them (one record, see
        :data:`~mindsport.rating.through_time.graph.SETTINGS`)."""
        m = self.model
        z = 0.0 if m.draw_probability == 0 else norm_ppf((m.draw_probability + 1.0) / 2.0)
        return np.array(
            [
                (
                    z,
                    m.beta,
                    m.margin_noise**2,
                    m.drift**2,
                    m.tau**2,
                    m.tolerance,
                    m.one_game.max_iterations,
                    m.max_sweeps,
                )
            ],
            dtype=SETTINGS,
        )

    def _failed_game(self, g: int) -> ConvergenceError:
        return ConvergenceError(
            f"match {self._match_ids[g]!r}: message passing within the game did not settle "
            f"within {self.model.one_game.max_iterations} sweeps"
        )

    def _run(self, stale: Callable[[I64, int], Any], forward_only: bool = False) -> Convergence:
        """Sweep until settled, starting from the stale parts ``stale(v_step, n_steps)``
        returns (a boolean array: per step, messages from the past, from the future, games)."""
        from mindsport.rating.through_time.sweep_kernel import sweep

        graph = self._graph
        v_ptr, g_ptr, v_step = graph.steps()
        flags = stale(v_step, len(v_ptr) - 1)
        steps = Steps(graph.order_v.view, v_ptr, graph.order_g.view, g_ptr, v_step, flags)
        level = graph.level(not (self.model.drift == 0 and self.model.tau == 0))
        n, change, bad, updates = sweep(
            steps, level, graph.chains(), graph.games(), self._settings, forward_only
        )
        if bad >= 0:
            raise self._failed_game(int(bad))
        if n < 0:
            raise ConvergenceError(
                f"whole-history message passing did not settle within {self.model.max_sweeps} "
                f"sweeps (last change {change:.3g}, tolerance {self.model.tolerance:g})"
            )
        self.convergence = Convergence(int(n), int(updates), float(change))
        return self.convergence

    def _sweeps(self, forward_only: bool = False) -> Convergence:
        """Converge the whole graph from uniform messages."""
        self._graph.clear_messages()
        return self._run(lambda v_step, n: np.ones((n, 3), np.bool_), forward_only)

    def _settle(self, nv0: int, ng0: int) -> Convergence:
        """Re-converge from the messages as they stand after variables ``nv0..`` and games
        ``ng0..`` were added: the sweeps start from the new games and variables (and the chain
        neighbours of the new variables) and go on only where something moves by more than the
        tolerance."""
        graph = self._graph

        def stale(v_step: I64, n: int) -> Any:
            flags = np.zeros((n, 3), np.bool_)
            new = np.arange(nv0, graph.v_time.n)
            flags[v_step[new], 0] = True
            flags[v_step[new], 1] = True
            nxt = graph.next.view[new]
            flags[v_step[nxt[nxt >= 0]], 0] = True
            prv = graph.prev.view[new]
            flags[v_step[prv[prv >= 0]], 1] = True
            games = graph.s_var.view[graph.slot_ptr.view[graph.team_ptr.view[ng0]] :]
            flags[v_step[games], 2] = True
            if self.model.tau > 0:  # more games at a step: its links to the next ones widen
                flags[v_step[games], 1] = True
                nxt = graph.next.view[games]
                flags[v_step[nxt[nxt >= 0]], 0] = True
            return flags

        return self._run(stale)

    def recompute(self) -> Convergence:
        """Converge the whole history again from scratch (the same fixed point as the
        incremental adds, to the tolerance)."""
        if not len(self):
            return self.convergence
        return self._sweeps()

    def _filter(self) -> Convergence:
        """One forward sweep from scratch: each step's estimate from the past only (online
        filtering). Leaves the graph unsettled until :meth:`recompute`."""
        return self._sweeps(forward_only=True)

    # ------------------------------------------------------------------ queries

    def _marginals(self, players: I64, times: F64) -> tuple[F64, F64]:
        from mindsport.rating.through_time.chain_kernel import marginals_at

        graph = self._graph
        out_mu = np.empty(len(players))
        out_var = np.empty(len(players))
        marginals_at(
            players,
            times,
            graph.last_var.view,
            graph.player_prior.view,
            self._default,
            tuple(graph.chains()),
            self._settings,
            out_mu,
            out_var,
        )
        return out_mu, out_var

    def ratings_at(
        self, players: Sequence[str], times: Sequence[datetime | float | int]
    ) -> tuple[F64, F64]:
        """Skill means and standard deviations of ``players[k]`` at ``times[k]``, given all the
        evidence (see :func:`~mindsport.rating.through_time.chain_kernel.marginals_at`). A
        player the history has not seen gets his prior."""
        if len(players) != len(times):
            raise InvalidGameError(f"{len(players)} players but {len(times)} times")
        idx = np.fromiter(
            (self._index.get(p, -1) for p in players), dtype=np.int64, count=len(players)
        )
        cache: dict[Any, float] = {}
        steps = np.empty(len(times))
        for k, t in enumerate(times):
            st = cache.get(t)
            if st is None:
                self._clock.kind_of(t, f"times[{k}]")
                st = cache[t] = self._clock.step(t)
            steps[k] = st
        mu, var = self._marginals(idx, steps)
        unseen = np.flatnonzero(idx < 0)
        for u in unseen.tolist():  # players known only by a given prior
            r = self._priors.get(players[u])
            if r is not None:
                mu[u], var[u] = r.mu, r.sigma**2
        return mu, np.sqrt(var)

    def rating(self, player: str, at: datetime | float | int | None = None) -> Rating:
        """``player``'s skill at time ``at`` (default: his last time step), given all games."""
        i = self._index.get(player)
        if i is None:
            raise NotFoundError(f"player {player!r} has no games in this history")
        graph = self._graph
        if at is None:
            t = float(graph.v_time.view[graph.last_var.view[i]])
        else:
            self._clock.kind_of(at, "at")
            t = self._clock.step(at)
        mu, var = self._marginals(np.array([i], np.int64), np.array([t]))
        return Rating(float(mu[0]), math.sqrt(float(var[0])))

    def ratings(self) -> dict[str, Rating]:
        """Every player's skill at his last time step, given all games."""
        if not self._ids:
            return {}
        graph = self._graph
        idx = np.arange(len(self._ids), dtype=np.int64)
        mu, var = self._marginals(idx, graph.v_time.view[graph.last_var.view])
        sd = np.sqrt(var)
        return {p: Rating(float(mu[i]), float(sd[i])) for i, p in enumerate(self._ids)}

    def curve(self, player: str) -> SkillCurve:
        """``player``'s smoothed skill at every time step he played in, oldest first."""
        i = self._index.get(player)
        if i is None:
            raise NotFoundError(f"player {player!r} has no games in this history")
        graph = self._graph
        chain = []
        v = int(graph.last_var.view[i])
        prev = graph.prev.view
        while v >= 0:
            chain.append(v)
            v = int(prev[v])
        chain.reverse()
        vs = np.asarray(chain, np.int64)
        fwd, bwd, lik = graph.fwd.view, graph.bwd.view, graph.lik.view
        pi = fwd[vs, 0] + bwd[vs, 0] + lik[vs, 0]
        tau = fwd[vs, 1] + bwd[vs, 1] + lik[vs, 1]
        mu = tau / pi
        sigma = np.sqrt(1.0 / pi)
        mu.flags.writeable = False
        sigma.flags.writeable = False
        times = tuple(self._clock.time(float(t)) for t in graph.v_time.view[vs])
        return SkillCurve(player, times, mu, sigma)
