"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013), exactly as the paper states it.

A rating period collects several games; :meth:`Glicko2.rate_period` rates one player over one
period (steps 2-8 of the paper, volatility by the Illinois algorithm of step 5). A period without
games only widens the deviation: ``phi' = sqrt(phi**2 + sigma**2)`` (:meth:`Glicko2.idle`).

:meth:`Glicko2.rate` treats one game as one rating period: every player is rated against every
other player of the game at once (score 1 / 0.5 / 0 from the ranks; unranked players finish below
ranked ones). Glicko-2 has no notion of teams: a team of more than one player is refused.

Note on a common bug: the volatility function is
``f(x) = e^x (D^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2``; some
implementations (e.g. the ``glicko2`` PyPI package) write ``mu^2`` where ``phi^2`` belongs, which
only goes unnoticed for players rated exactly 1500 (``mu = 0``).

>>> g = Glicko2(tau=0.5)
>>> p = g.rating(1500, 200, 0.06)
>>> games = [(g.rating(1400, 30), 1), (g.rating(1550, 100), 0), (g.rating(1700, 300), 0)]
>>> new = g.rate_period(p, games)
>>> round(new.rating, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)

The update is compiled (:mod:`.glicko2_kernel`, loaded on first use) with the formulas of
:mod:`.formulas`, which Python code runs as they are.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.rating.glicko2.formulas import SCALE, glicko2_expectation
from mindsport.rating.params import MAX_LOCATION, MAX_SCALE, Kind, Param, check_settings
from mindsport.rating.replay.blocks import MatchBlock
from mindsport.rating.replay.replayers import (
    ArrayReplayer,
    compiled_unless_changed,
    refuse_teams,
)
from mindsport.rating.teams import (
    ShapeError,
    check_ranks,
    join_teams,
    split_single_players,
    split_teams,
)

__all__ = ["SCALE", "SETTINGS", "Glicko2", "Glicko2Rating"]

#: the settings as the compiled update and replay read them: one record, fields by name
SETTINGS = np.dtype(
    [
        ("tau", np.float64),
        ("epsilon", np.float64),
        ("max_phi", np.float64),  # the RD cap on the internal scale (inf: none)
        ("period", np.float64),  # the length of a rating period (0: none)
    ],
    align=True,
)


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    """A Glicko-2 rating on the Glicko scale: ``rating`` (1500 average), ``rd``, ``volatility``."""

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06

    @property
    def mu(self) -> float:
        """Internal Glicko-2 scale mean."""
        return (self.rating - 1500.0) / SCALE

    @property
    def phi(self) -> float:
        """Internal Glicko-2 scale deviation."""
        return self.rd / SCALE


@functools.cache
def _kernels() -> Any:
    from mindsport.rating.glicko2 import glicko2_kernel

    return glicko2_kernel


#: the largest rating deviation (an RD, its cap)
MAX_RD = 1e4

#: the settings of :class:`Glicko2` (checked when it is built; read by the model registry).
#: The volatility search works on ``ln(volatility^2)`` and divides by ``tau^2``: a volatility
#: in [1e-4, 10] keeps the logarithm finite (a volatility of 1e-300 squares to 0), a ``tau``
#: in [0.01, 10] (Glickman: 0.3 to 1.2) keeps ``1 / tau^2`` finite; the search stops when its
#: bracket is narrower than ``epsilon``, which rounding lets it reach only if ``epsilon`` is
#: at least 1e-12. Deviations (RD) in [1, 1e4] on the 1500 scale (350 for a new player): an
#: RD of 1e4 already says nothing; the length of a period at least 1e-6 time units keeps the
#: number of idle periods (the time axis spans at most 1.3e10) finite.
PARAMS = (
    Param("tau", Kind.REAL, 0.5, "system constant: how fast volatility may change", 0.01, 10.0),
    Param(
        "initial_rating",
        Kind.REAL,
        1500.0,
        "rating of a new player",
        -MAX_LOCATION,
        MAX_LOCATION,
    ),
    Param("initial_rd", Kind.REAL, 350.0, "rating deviation of a new player", 1.0, MAX_RD),
    Param("initial_volatility", Kind.REAL, 0.06, "volatility of a new player", 1e-4, 10.0),
    Param("epsilon", Kind.REAL, 1e-6, "convergence of the volatility search", 1e-12, 0.1),
    Param(
        "max_rd",
        Kind.REAL,
        None,
        "cap on the rating deviation (None: no cap)",
        1.0,
        MAX_RD,
        optional=True,
    ),
    Param(
        "period",
        Kind.REAL,
        None,
        "length of a rating period in time units; idle periods widen the deviation (None: off)",
        1e-6,
        MAX_SCALE,
        optional=True,
    ),
)


@dataclass(frozen=True)
class Glicko2:
    """Glicko-2 settings: system constant ``tau``, new-player defaults, convergence ``epsilon``.

    ``max_rd``: if set, deviations never grow above it (a common practical cap; the paper has
    none, so the default is ``None``).

    ``period``: the length of a rating period in the time units of ``rate(..., elapsed=...)``.
    When set, a player away for ``elapsed`` first goes through ``elapsed / period`` idle periods
    (RD grows, :meth:`idle`) before the game is rated; ``None`` (default) ignores ``elapsed``.
    """

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    tau: float = 0.5
    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    epsilon: float = 1e-6
    max_rd: float | None = None
    period: float | None = None

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "Glicko2", MindsportError)

    @functools.cached_property
    def _settings(self) -> NDArray[np.void]:
        """The settings as the compiled update takes them (:data:`SETTINGS`, one record)."""
        return np.array(
            [
                (
                    self.tau,
                    self.epsilon,
                    math.inf if self.max_rd is None else self.max_rd / SCALE,
                    0.0 if self.period is None else self.period,
                )
            ],
            dtype=SETTINGS,
        )

    def rating(
        self,
        rating: float | None = None,
        rd: float | None = None,
        volatility: float | None = None,
    ) -> Glicko2Rating:
        """A rating value (defaults: the model's new-player values)."""
        r = Glicko2Rating(
            float(self.initial_rating if rating is None else rating),
            float(self.initial_rd if rd is None else rd),
            float(self.initial_volatility if volatility is None else volatility),
        )
        if not (math.isfinite(r.rating) and r.rd > 0 and r.volatility > 0):
            raise MindsportError(f"Glicko2: invalid rating {r!r} (rd and volatility must be > 0)")
        return r

    def idle(self, player: Glicko2Rating, periods: float = 1) -> Glicko2Rating:
        """The rating after ``periods`` rating periods without games (RD grows)."""
        if periods < 0:
            raise MindsportError(f"Glicko2: idle periods must be >= 0, got {periods!r}")
        rd = _kernels().glicko2_idle(
            float(player.rd), float(player.volatility), float(periods), self._settings["max_phi"][0]
        )
        return Glicko2Rating(player.rating, rd, player.volatility)

    def replayer(self) -> Any:
        """The compiled replay (``rate`` match by match for a subclass that changes it)."""
        return compiled_unless_changed(self, Glicko2, Glicko2Replayer)

    def rate_period(
        self, player: Glicko2Rating, results: Iterable[tuple[Glicko2Rating, float]]
    ) -> Glicko2Rating:
        """The player's rating after one rating period of games ``(opponent, score)``.

        Scores are 1 (win), 0.5 (draw) or 0 (loss); opponents are their ratings at the start of
        the period. No games: only the deviation grows. The update is the compiled one the
        per-game :meth:`rate` and the replay of long histories run.
        """
        if not isinstance(player, Glicko2Rating):
            raise ShapeError(f"Glicko2: player must be a Glicko2Rating, got {player!r}")
        games = list(results)
        for item in games:
            self._check_result(item)
        m = len(games)
        buf = [float(player.rating), float(player.rd), float(player.volatility)]
        buf += [float(o.rating) for o, _ in games]
        buf += [float(o.rd) for o, _ in games]
        buf += [float(x) for _, x in games]
        r, d, v = _kernels().glicko2_rate_period(np.array(buf), m, self._settings)
        return Glicko2Rating(r, d, v)

    @staticmethod
    def _check_result(item: Any) -> None:
        """Raise the error that says what is wrong with one ``(opponent, score)`` result."""
        try:
            o, score = item
        except (TypeError, ValueError):
            raise ShapeError(
                f"Glicko2: a result is a pair (opponent, score), got {item!r}"
            ) from None
        if not isinstance(o, Glicko2Rating):
            raise ShapeError(f"Glicko2: opponent must be a Glicko2Rating, got {o!r}")
        if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
            raise ShapeError(f"Glicko2: score must lie in [0, 1], got {score!r}")

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
        elapsed: Sequence[Any] | None = None,
    ) -> list[Any]:
        """One game as one rating period for every player (teams of one player only).

        ``weights`` (partial play) are not part of Glicko-2 and are refused unless all are 1.
        ``elapsed``: time since each player's previous game, in the shape of ``teams``; used only
        when ``period`` is set (idle periods before this one).
        """
        values, keys = split_single_players(teams, Glicko2Rating, "Glicko2", weights)
        rk = check_ranks(ranks, len(values), "Glicko2")
        players = [t[0] for t in values]
        n = len(players)
        away = [0.0] * n
        if elapsed is not None and self.period is not None:
            if isinstance(elapsed, str | bytes) or len(elapsed) != n:
                raise ShapeError(f"Glicko2: elapsed needs one entry per team, got {elapsed!r}")
            for i, e in enumerate(elapsed):
                vals = list(e.values()) if isinstance(e, dict) else list(e)
                if len(vals) != 1:
                    raise ShapeError(f"Glicko2: elapsed[{i}] must hold one value, got {e!r}")
                x = vals[0]
                if isinstance(x, bool) or not isinstance(x, int | float) or not x >= 0:
                    raise ShapeError(f"Glicko2: elapsed[{i}] must be a number >= 0, got {x!r}")
                away[i] = float(x)
        buf = np.array(
            [math.nan if r is None else float(r) for r in rk]
            + [float(p.rating) for p in players]
            + [float(p.rd) for p in players]
            + [float(p.volatility) for p in players]
            + away
        )
        _kernels().glicko2_game(buf, self._settings, n)
        out = buf[n : 4 * n].tolist()
        new = [
            [Glicko2Rating(r, d, v)]
            for r, d, v in zip(out[:n], out[n : 2 * n], out[2 * n :], strict=True)
        ]
        return join_teams(new, keys)

    def rate_1vs1(
        self, a: Glicko2Rating, b: Glicko2Rating, drawn: bool = False
    ) -> tuple[Glicko2Rating, Glicko2Rating]:
        """``a`` beat ``b`` (or drew) in a one-game rating period."""
        s = 0.5 if drawn else 1.0
        return self.rate_period(a, [(b, s)]), self.rate_period(b, [(a, 1.0 - s)])

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Expected score of A against B, ``1/(1+exp(-g(sqrt(phi_A^2+phi_B^2)) (mu_A-mu_B)))``.

        (Glickman's E uses only the opponent's deviation; for a symmetric prediction both
        deviations are combined, as in Glicko-1's match prediction.)
        """
        values, _ = split_teams([team_a, team_b], Glicko2Rating, "Glicko2")
        if len(values[0]) != 1 or len(values[1]) != 1:
            raise ShapeError("Glicko2 rates individual players only: teams must have one player")
        a, b = values[0][0], values[1][0]
        return glicko2_expectation(a.rating, a.rd, b.rating, b.rd)

    def expose(self, rating: Glicko2Rating) -> float:
        """Conservative leaderboard value ``rating - 2 RD``."""
        return rating.rating - 2.0 * rating.rd


class Glicko2Replayer(ArrayReplayer):
    """Glicko-2 through ``replay_glicko2`` (one player per team, one game one rating period;
    with ``period`` set, idle periods from the match times, ``last_played``)."""

    fields = ("rating", "rd", "volatility", "last_played")
    n_value = 3

    def __init__(self, model: Any, capacity: int = 1024) -> None:
        super().__init__(model, capacity)
        if model.period is not None:
            self.stored = self.fields

    def new_state(self) -> tuple[float, ...]:
        r = self.model.rating()
        return (float(r.rating), float(r.rd), float(r.volatility), math.nan)

    def make(self, *values: Any) -> Any:
        return Glicko2Rating(*values)

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        if not isinstance(value, Glicko2Rating):
            return None
        return (float(value.rating), float(value.rd), float(value.volatility))

    def check(self, block: MatchBlock, predict: bool) -> None:
        block.validate(times=self.model.period is not None)
        refuse_teams(self.model, block, predict, ranked=False)

    def kernel(self) -> Any:
        return _kernels().replay_glicko2
