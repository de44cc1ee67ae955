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
a safety limit of ``max_sweeps`` raises :class:`~mindsport.rating.trueskill.ConvergenceError`
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

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import NotFoundError
from mindsport.match import Match
from mindsport.rating.gaussian import norm_ppf
from mindsport.rating.params import Kind, Param, check_settings
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.trueskill.margins import MARGIN_NOISE, MARGIN_PARAMS, observed_margin
from mindsport.rating.trueskill.model import (
    BETA,
    DRAW_PROBABILITY,
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

_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)
_DAY = 86400.0
#: Time nodes of the level correction between sweeps (see ``through_time_kernels.sweep``).
LEVEL_NODES = 32


class _Clock(enum.Enum):
    """What the match times of a history are."""

    DATETIME = "datetime"
    NUMBER = "number"


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


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
        "drift", Kind.REAL, TAU, "random walk of the skill per day or time unit (deviation)", 0.0
    ),
    Param("tau", Kind.REAL, 0.0, "change of the skill per game played (deviation)", 0.0),
    _SAME["draw_probability"],
    Param(
        "time_step",
        Kind.REAL,
        1.0,
        "width of a time step (days, or time units)",
        0.0,
        low_open=True,
    ),
    Param(
        "tolerance",
        Kind.REAL,
        TOLERANCE,
        "convergence of the message passing (largest move of a marginal in the last sweep)",
        0.0,
        low_open=True,
    ),
    Param("max_sweeps", Kind.INTEGER, 1000, "safety limit on forward-backward sweeps", 1.0),
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
        :class:`~mindsport.rating.trueskill.ConvergenceError`.
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


class _Column:
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


class SkillHistory:
    """The whole-history graph of a :class:`TrueSkillThroughTime` model, kept settled.

    Build it with :meth:`TrueSkillThroughTime.history`; :meth:`add` more results at any time
    (late ones included). Queries: :meth:`ratings` (each player at his last step),
    :meth:`rating` (one player at any time), :meth:`ratings_at` (many players at many times,
    as arrays), :meth:`curve` (a player's smoothed skill through time).

    A history is a mutable engine (like a database of ratings): :meth:`add` changes it in place.
    Bad input raises before anything changes. Should message passing ever fail to settle
    (:class:`~mindsport.rating.trueskill.ConvergenceError`), the matches stay in and
    :meth:`recompute` starts over.
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
        self._player_prior = _Column(np.float64, 2)
        self._last_var = _Column(np.int64)
        # variables
        self._v_player = _Column(np.int64)
        self._v_time = _Column(np.float64)
        self._prev = _Column(np.int64)
        self._next = _Column(np.int64)
        self._v_prior = _Column(np.float64, 2)
        self._v_games = _Column(np.float64)  # games played at the variable's step
        self._fwd = _Column(np.float64, 2)
        self._bwd = _Column(np.float64, 2)
        self._lik = _Column(np.float64, 2)
        # slots, teams, games
        self._s_var = _Column(np.int64)
        self._s_weight = _Column(np.float64)
        self._msg = _Column(np.float64, 2)
        self._slot_ptr = _Column(np.int64)
        self._slot_ptr.extend([0])
        self._rank = _Column(np.float64)
        self._team_ptr = _Column(np.int64)
        self._team_ptr.extend([0])
        self._g_time = _Column(np.float64)
        self._g_margin = _Column(np.float64)  # observed score margin (NaN: none)
        self._order_v = _Column(np.int64)  # variables sorted by time
        self._order_g = _Column(np.int64)  # games sorted by time (ties: order added)
        self._match_ids: list[str] = []
        self._id_set: set[str] = set()
        self._clock: _Clock | None = None
        self._aware = False
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
        return self._v_time.n

    # ------------------------------------------------------------------ time

    def _units(self, t: datetime | float | int) -> float:
        """A time in days (datetimes) or raw units (numbers)."""
        if isinstance(t, datetime):
            if t.tzinfo is not None:
                return (t - _EPOCH_UTC).total_seconds() / _DAY
            return (t - _EPOCH).total_seconds() / _DAY
        return float(t)

    def _step_time(self, t: datetime | float | int) -> float:
        """The start of ``t``'s time step, in days or units."""
        w = self.model.time_step
        return math.floor(self._units(t) / w) * w

    def _clock_of(self, t: object, what: str) -> _Clock:
        if isinstance(t, datetime):
            clock = _Clock.DATETIME
        elif _number(t):
            clock = _Clock.NUMBER
        else:
            raise InvalidGameError(f"{what}: time must be a datetime or a number, got {t!r}")
        if self._clock is not None and clock is not self._clock:
            raise InvalidGameError(
                f"{what}: time {t!r} is a {clock.value}, but this history's times are "
                f"{self._clock.value}s"
            )
        return clock

    def _from_units(self, u: float) -> datetime | float:
        if self._clock is _Clock.DATETIME:
            return (_EPOCH_UTC if self._aware else _EPOCH) + timedelta(days=u)
        return u

    # ------------------------------------------------------------------ adding results

    def _player(self, p: str) -> int:
        i = self._index.get(p)
        if i is None:
            i = self._index[p] = len(self._ids)
            self._ids.append(p)
            r = self._priors.get(p)
            prior = self._default if r is None else (1.0 / r.sigma**2, r.mu / r.sigma**2)
            self._player_prior.extend(prior)
            self._last_var.extend([-1])
        return i

    def _check(self, matches: list[Any]) -> None:
        """Refuse bad input before anything changes."""
        clock = self._clock
        ids: set[str] = set()
        for k, m in enumerate(matches):
            if not isinstance(m, Match):
                raise InvalidGameError(f"item {k} is not a Match: {m!r}")
            what = f"match {m.id!r}"
            if m.id in ids or m.id in self._id_set:
                raise InvalidGameError(f"{what}: this match id is already in the history")
            ids.add(m.id)
            c = self._clock_of(m.time, what)
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
        from mindsport.rating.through_time.sweep_kernel import assign_vars

        ms = list(matches)
        self._check(ms)
        if not ms:
            return self.convergence
        if self._clock is None:
            self._clock = _Clock.DATETIME if isinstance(ms[0].time, datetime) else _Clock.NUMBER
            self._aware = isinstance(ms[0].time, datetime) and ms[0].time.tzinfo is not None
        first = len(self._match_ids) == 0
        nv0, ns0, ng0 = self._v_time.n, self._s_var.n, len(self._match_ids)
        step_cache: dict[Any, float] = {}
        players: list[str] = []
        weights: list[float] = []
        slot_time: list[float] = []
        slot_ptr: list[int] = []
        ranks: list[float] = []
        team_ptr: list[int] = []
        g_time: list[float] = []
        g_margin: list[float] = []
        n_teams = self._rank.n
        for m in ms:
            st = step_cache.get(m.time)
            if st is None:
                st = step_cache[m.time] = self._step_time(m.time)
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
            y = observed_margin(self.model.margin_scale, m.scores)
            g_margin.append(math.nan if y is None else y)
            self._match_ids.append(m.id)
            self._id_set.add(m.id)
        get = self._index.get
        slot_player = np.array([get(p, -1) for p in players], np.int64)
        for u in np.flatnonzero(slot_player < 0).tolist():
            slot_player[u] = self._player(players[u])
        ns = len(players)
        slot_var = np.empty(ns, np.int64)
        nv = assign_vars(  # at most one new variable per slot
            slot_player,
            np.asarray(slot_time),
            nv0,
            self._v_player.reserve(ns),
            self._v_time.reserve(ns),
            self._prev.reserve(ns),
            self._next.reserve(ns),
            self._last_var.view,
            slot_var,
        )
        for col in (self._v_player, self._v_time, self._prev, self._next):
            col.n = nv
        self._v_prior.extend(self._player_prior.view[self._v_player.view[nv0:nv]])
        self._v_games.extend(np.zeros(nv - nv0))
        np.add.at(self._v_games.view, slot_var[np.asarray(weights) > 0.0], 1.0)
        for col in (self._fwd, self._bwd, self._lik):
            col.extend(np.zeros((nv - nv0, 2)))
        self._s_var.extend(slot_var)
        self._s_weight.extend(weights)
        self._msg.extend(np.zeros((ns, 2)))
        self._slot_ptr.extend(slot_ptr)
        self._rank.extend(ranks)
        self._team_ptr.extend(team_ptr)
        self._g_time.extend(g_time)
        self._g_margin.extend(g_margin)
        self._extend_order(self._order_v, self._v_time.view, nv0)
        self._extend_order(self._order_g, self._g_time.view, ng0)
        if first:
            return self._sweeps()
        return self._settle(nv0, ng0)

    # ------------------------------------------------------------------ message passing

    def _graph(self) -> dict[str, Any]:
        return {
            "v_time": self._v_time.view,
            "prev": self._prev.view,
            "next_": self._next.view,
            "prior": self._v_prior.view,
            "fwd": self._fwd.view,
            "bwd": self._bwd.view,
            "lik": self._lik.view,
            "team_ptr": self._team_ptr.view,
            "slot_ptr": self._slot_ptr.view,
            "rank": self._rank.view,
            "s_var": self._s_var.view,
            "s_weight": self._s_weight.view,
            "msg": self._msg.view,
            "g_margin": self._g_margin.view,
            "v_games": self._v_games.view,
        }

    def _settings(self) -> dict[str, Any]:
        m = self.model
        return {
            "z": 0.0 if m.draw_probability == 0 else norm_ppf((m.draw_probability + 1.0) / 2.0),
            "beta": m.beta,
            "margin_s2": m.margin_noise**2,
            "drift2": m.drift**2,
            "tau2": m.tau**2,
            "tolerance": m.tolerance,
            "max_inner": m.one_game.max_iterations,
        }

    def _failed_game(self, g: int) -> ConvergenceError:
        return ConvergenceError(
            f"match {self._match_ids[g]!r}: message passing within the game did not settle "
            f"within {self.model.one_game.max_iterations} sweeps"
        )

    @staticmethod
    def _extend_order(order: _Column, times: F64, old: int) -> None:
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

    def _steps(self) -> tuple[I64, I64, I64]:
        """The time steps: where each starts in the variable and game orders, and each
        variable's step."""
        v_sorted = self._v_time.view[self._order_v.view]
        steps = np.unique(v_sorted)
        v_ptr = np.searchsorted(v_sorted, steps, side="left")
        g_ptr = np.searchsorted(self._g_time.view[self._order_g.view], steps, side="left")
        v_step = np.searchsorted(steps, self._v_time.view)
        return (
            np.append(v_ptr, len(v_sorted)).astype(np.int64),
            np.append(g_ptr, len(self)).astype(np.int64),
            v_step.astype(np.int64),
        )

    def _run(self, stale: Any, forward_only: bool = False) -> Convergence:
        """Sweep until settled, starting from the stale parts ``stale(v_step, n_steps)``
        returns (a boolean array: per step, messages from the past, from the future, games)."""
        from mindsport.rating.through_time.sweep_kernel import sweep

        v_ptr, g_ptr, v_step = self._steps()
        flags = stale(v_step, len(v_ptr) - 1)
        node, frac, n_nodes = self._level_nodes()
        n, change, bad, updates = sweep(
            self._order_v.view,
            v_ptr,
            self._order_g.view,
            g_ptr,
            v_step,
            node,
            frac,
            n_nodes,
            flags,
            max_sweeps=self.model.max_sweeps,
            forward_only=forward_only,
            **self._graph(),
            **self._settings(),
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

    def _level_nodes(self) -> tuple[I64, F64, int]:
        """Time nodes of the level correction: each variable's node and fraction to the next.

        Up to :data:`LEVEL_NODES` nodes at quantiles of the variables' times (one node when
        the skills cannot change: the level is then one number).
        """
        vt = self._v_time.view
        if (self.model.drift == 0 and self.model.tau == 0) or len(vt) < 2:
            return np.zeros(len(vt), np.int64), np.zeros(len(vt)), 1
        nodes = np.unique(np.quantile(vt, np.linspace(0.0, 1.0, LEVEL_NODES)))
        if len(nodes) < 2:
            return np.zeros(len(vt), np.int64), np.zeros(len(vt)), 1
        node = np.clip(np.searchsorted(nodes, vt, side="right") - 1, 0, len(nodes) - 2)
        frac = np.clip((vt - nodes[node]) / (nodes[node + 1] - nodes[node]), 0.0, 1.0)
        return node.astype(np.int64), frac, len(nodes)

    def _sweeps(self, forward_only: bool = False) -> Convergence:
        """Converge the whole graph from uniform messages."""
        for col in (self._fwd, self._bwd, self._lik, self._msg):
            col.view[:] = 0.0
        return self._run(lambda v_step, n: np.ones((n, 3), np.bool_), forward_only)

    def _settle(self, nv0: int, ng0: int) -> Convergence:
        """Re-converge from the messages as they stand after variables ``nv0..`` and games
        ``ng0..`` were added: the sweeps start from the new games and variables (and the chain
        neighbours of the new variables) and go on only where something moves by more than the
        tolerance."""

        def stale(v_step: I64, n: int) -> Any:
            flags = np.zeros((n, 3), np.bool_)
            new = np.arange(nv0, self._v_time.n)
            flags[v_step[new], 0] = True
            flags[v_step[new], 1] = True
            nxt = self._next.view[new]
            flags[v_step[nxt[nxt >= 0]], 0] = True
            prv = self._prev.view[new]
            flags[v_step[prv[prv >= 0]], 1] = True
            games = self._s_var.view[self._slot_ptr.view[self._team_ptr.view[ng0]] :]
            flags[v_step[games], 2] = True
            if self.model.tau > 0:  # more games at a step: its links to the next ones widen
                flags[v_step[games], 1] = True
                nxt = self._next.view[games]
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
        from mindsport.rating.through_time.sweep_kernel import marginals_at

        out_mu = np.empty(len(players))
        out_var = np.empty(len(players))
        marginals_at(
            players,
            times,
            self._last_var.view,
            self._player_prior.view,
            self._default,
            self._v_time.view,
            self._prev.view,
            self._next.view,
            self._fwd.view,
            self._bwd.view,
            self._lik.view,
            self.model.drift**2,
            self._v_games.view,
            self.model.tau**2,
            out_mu,
            out_var,
        )
        return out_mu, out_var

    def ratings_at(
        self, players: Sequence[str], times: Sequence[datetime | float | int]
    ) -> tuple[F64, F64]:
        """Skill means and standard deviations of ``players[k]`` at ``times[k]``, given all the
        evidence (see :func:`~mindsport.rating.through_time.sweep_kernel.marginals_at`). A player
        the history has not seen gets his prior."""
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
                self._clock_of(t, f"times[{k}]")
                st = cache[t] = self._step_time(t)
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
        if at is None:
            t = float(self._v_time.view[self._last_var.view[i]])
        else:
            self._clock_of(at, "at")
            t = self._step_time(at)
        mu, var = self._marginals(np.array([i], np.int64), np.array([t]))
        return Rating(float(mu[0]), math.sqrt(float(var[0])))

    def ratings(self) -> dict[str, Rating]:
        """Every player's skill at his last time step, given all games."""
        if not self._ids:
            return {}
        idx = np.arange(len(self._ids), dtype=np.int64)
        mu, var = self._marginals(idx, self._v_time.view[self._last_var.view])
        sd = np.sqrt(var)
        return {p: Rating(float(mu[i]), float(sd[i])) for i, p in enumerate(self._ids)}

    def curve(self, player: str) -> SkillCurve:
        """``player``'s smoothed skill at every time step he played in, oldest first."""
        i = self._index.get(player)
        if i is None:
            raise NotFoundError(f"player {player!r} has no games in this history")
        chain = []
        v = int(self._last_var.view[i])
        prev = self._prev.view
        while v >= 0:
            chain.append(v)
            v = int(prev[v])
        chain.reverse()
        vs = np.asarray(chain, np.int64)
        pi = self._fwd.view[vs, 0] + self._bwd.view[vs, 0] + self._lik.view[vs, 0]
        tau = self._fwd.view[vs, 1] + self._bwd.view[vs, 1] + self._lik.view[vs, 1]
        mu = tau / pi
        sigma = np.sqrt(1.0 / pi)
        mu.flags.writeable = False
        sigma.flags.writeable = False
        times = tuple(self._from_units(float(t)) for t in self._v_time.view[vs])
        return SkillCurve(player, times, mu, sigma)
