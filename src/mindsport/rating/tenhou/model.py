"""Tenhou R (天鳳レート), the rating of the Tenhou online mahjong server.

After a game a player rated R changes by

    dR = adj * (bonus(place) + (table average R - R) / 40)

* ``bonus``: +30/+10/-10/-30 for places 1-4 of a 4-player table, +30/0/-30 at a 3-player table.
  Other table sizes (not part of Tenhou) use the same straight line from +30 to -30, which
  reproduces both official tables: ``bonus(p, n) = 30 - 60 (p - 1) / (n - 1)``.
  Tied places (Tenhou breaks ties by seat, so only other games have them) share the mean bonus
  of the places they cover.
* ``adj = 1 - 0.002 * games`` while fewer than 400 games have been played, then 0.2 (``games``
  counts games before this one).
* the table average includes the player himself; everyone starts at 1500.

Tenhou R defines no win probabilities. :meth:`TenhouRating.win_probability` uses a logistic curve
``1 / (1 + 10 ** (-(R_A - R_B) / prob_scale))`` whose slope at equal ratings matches the rule's own
equilibrium in a two-player game (expected change zero when ``P(win) = 1/2 + (R_A - R_B)/4800``),
i.e. ``prob_scale = 1200 ln 10 = 2763``; :func:`mindsport.history.fit` may tune it.

The update is compiled (:mod:`.tenhou_kernel`, loaded on first use) with the formulas of
:mod:`.formulas`, which Python code runs as they are.

>>> TenhouRating().delta(2000, [2000, 2000, 2000, 2000], place=4, games=400)
-6.0
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.rating.elo.formulas import logistic10
from mindsport.rating.params import (
    MAX_COUNT,
    MAX_LOCATION,
    MAX_SCALE,
    MIN_SCALE,
    Kind,
    Param,
    check_settings,
)
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
from mindsport.rating.tenhou.formulas import tenhou_adjustment, tenhou_change

__all__ = ["SETTINGS", "TenhouR", "TenhouRating", "TenhouSettings"]

#: the settings as the compiled update and replay read them: one record, fields by name
SETTINGS = np.dtype(
    [
        ("divisor", np.float64),
        ("adjust_games", np.float64),
        ("adjust_step", np.float64),
        ("adjust_floor", np.float64),
        ("prob_scale", np.float64),
    ],
    align=True,
)


class TenhouSettings(NamedTuple):
    """What the compiled replay takes as its settings: the model's (:data:`SETTINGS`, one
    record) and the placement bonuses (:meth:`TenhouRating.bonus_table`) of the block's
    tables."""

    record: NDArray[np.void]
    bonus: NDArray[np.float64]


@functools.cache
def _kernels() -> Any:
    from mindsport.rating.tenhou import tenhou_kernel

    return tenhou_kernel


@dataclass(frozen=True, slots=True)
class TenhouR:
    """A Tenhou rating and the number of games played before it."""

    rating: float = 1500.0
    games: int = 0

    def __float__(self) -> float:
        return float(self.rating)


#: the settings of :class:`TenhouRating` (checked when it is built; read by the model registry).
#: A game moves a rating by ``adj (bonus + (average - R) / divisor)``: places (the initial
#: rating, bonuses) within MAX_LOCATION, a divisor in [MIN_SCALE, MAX_SCALE] and an adjustment
#: in [0, 1] (it starts at 1 and falls by ``adjust_step`` a game to ``adjust_floor``) keep every
#: change finite.
PARAMS = (
    Param("initial", Kind.REAL, 1500.0, "rating of a new player", -MAX_LOCATION, MAX_LOCATION),
    Param(
        "bonuses",
        Kind.TABLE,
        ((30.0, 10.0, -10.0, -30.0), (30.0, 0.0, -30.0)),
        "placement bonuses, one row per table size",
        -MAX_LOCATION,
        MAX_LOCATION,
        rows_min=2,
    ),
    Param(
        "top_bonus",
        Kind.REAL,
        30.0,
        "first place's bonus at tables without a row",
        -MAX_LOCATION,
        MAX_LOCATION,
    ),
    Param(
        "divisor",
        Kind.REAL,
        40.0,
        "weight of the table average: (avg - R) / divisor",
        MIN_SCALE,
        MAX_SCALE,
    ),
    Param(
        "adjust_games",
        Kind.INTEGER,
        400,
        "games after which the adjustment stays at its floor",
        0.0,
        MAX_COUNT,
    ),
    Param("adjust_step", Kind.REAL, 0.002, "adjustment lost per game played", 0.0, 1.0),
    Param("adjust_floor", Kind.REAL, 0.2, "least adjustment", 0.0, 1.0),
    Param(
        "prob_scale",
        Kind.REAL,
        1200.0 * math.log(10.0),
        "logistic scale of the win probability",
        MIN_SCALE,
        MAX_SCALE,
    ),
)


@dataclass(frozen=True)
class TenhouRating:
    """Tenhou R settings (defaults are Tenhou's; see the module docstring)."""

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    initial: float = 1500.0
    bonuses: tuple[tuple[float, ...], ...] = ((30.0, 10.0, -10.0, -30.0), (30.0, 0.0, -30.0))
    top_bonus: float = 30.0
    divisor: float = 40.0
    adjust_games: int = 400
    adjust_step: float = 0.002
    adjust_floor: float = 0.2
    prob_scale: float = 1200.0 * math.log(10.0)

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "TenhouRating", MindsportError)

    @functools.cached_property
    def _settings(self) -> NDArray[np.void]:
        """The settings as the compiled update takes them (:data:`SETTINGS`, one record)."""
        return np.array(
            [
                (
                    self.divisor,
                    self.adjust_games,
                    self.adjust_step,
                    self.adjust_floor,
                    self.prob_scale,
                )
            ],
            dtype=SETTINGS,
        )

    def bonus_table(self, max_players: int) -> NDArray[np.float64]:
        """``T[n, place]``: :meth:`bonus` for tables of 2..``max_players`` (at least 8)."""
        size = max(max_players + 1, 9)
        cached = self._bonus_table
        if cached.shape[0] >= size:
            return cached
        tab = np.zeros((size, size))
        for n in range(2, size):
            for place in range(1, n + 1):
                tab[n, place] = self.bonus(place, n)
        return tab

    @functools.cached_property
    def _bonus_table(self) -> NDArray[np.float64]:
        tab = np.zeros((9, 9))
        for n in range(2, 9):
            for place in range(1, n + 1):
                tab[n, place] = self.bonus(place, n)
        return tab

    def rating(self, rating: float | None = None, games: int = 0) -> TenhouR:
        """A new rating (default 1500, no games)."""
        if games < 0:
            raise MindsportError(f"TenhouRating: games must be >= 0, got {games!r}")
        return TenhouR(float(self.initial if rating is None else rating), int(games))

    def adjustment(self, games: int) -> float:
        """``adj``: 1 - 0.002 x games below 400 games, then 0.2."""
        if games < 0:
            raise MindsportError(f"TenhouRating: games must be >= 0, got {games!r}")
        return tenhou_adjustment(games, self.adjust_games, self.adjust_step, self.adjust_floor)

    def bonus(self, place: int, players: int) -> float:
        """Placement bonus of 1-based ``place`` at a table of ``players``."""
        if players < 2 or not 1 <= place <= players:
            raise MindsportError(f"TenhouRating: place {place!r} at a table of {players!r}")
        for b in self.bonuses:
            if len(b) == players:
                return float(b[place - 1])
        return self.top_bonus - 2.0 * self.top_bonus * (place - 1) / (players - 1)

    def delta(self, own: float, table: Sequence[float], place: int, games: int) -> float:
        """The change of a player rated ``own`` finishing ``place`` (1-based) at ``table``.

        ``table`` lists every player's rating, his own included; ``games`` is the number of
        games he played before this one.
        """
        if isinstance(table, str | bytes) or len(table) < 2:
            raise MindsportError(f"TenhouRating: table needs >= 2 ratings, got {table!r}")
        if not any(math.isclose(float(own), float(t), rel_tol=0, abs_tol=1e-9) for t in table):
            raise MindsportError(
                f"TenhouRating: table {list(table)!r} must include the player's own rating {own!r}"
            )
        if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= len(table):
            raise MindsportError(f"TenhouRating: place must be 1..{len(table)}, got {place!r}")
        avg = sum(float(t) for t in table) / len(table)
        bonus = self.bonus(place, len(table))
        return tenhou_change(float(own), avg, bonus, self.adjustment(games), self.divisor)

    def replayer(self) -> Any:
        """The compiled replay (``rate`` match by match for a subclass that changes it)."""
        return compiled_unless_changed(self, TenhouRating, TenhouReplayer)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game of single players (lower rank is better; ties share bonus).

        Teams of several players, unranked players and partial-play weights are refused. The
        update is the compiled one the replay of long histories runs.
        """
        values, keys = split_single_players(teams, TenhouR, "TenhouRating", weights)
        rk = check_ranks(ranks, len(values), "TenhouRating")
        if any(r is None for r in rk):
            raise ShapeError(f"TenhouRating needs every player ranked: ranks {list(rk)!r}")
        players = [t[0] for t in values]
        n = len(players)
        packed: list[float] = [float(r) for r in rk if r is not None]
        packed += [float(p.rating) for p in players]
        packed += [float(p.games) for p in players]
        buf = np.array(packed)
        _kernels().tenhou_game(buf, self.bonus_table(n), self._settings, n)
        out = buf[n:].tolist()
        new = [[TenhouR(r, int(g))] for r, g in zip(out[:n], out[n:], strict=True)]
        return join_teams(new, keys)

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Logistic probability that A finishes ahead of B (see the module docstring)."""
        values, _ = split_teams([team_a, team_b], TenhouR, "TenhouRating")
        if len(values[0]) != 1 or len(values[1]) != 1:
            raise ShapeError("TenhouRating rates individual players only")
        d = values[0][0].rating - values[1][0].rating
        return logistic10(d / self.prob_scale)

    def expose(self, rating: TenhouR) -> float:
        """The leaderboard value: R itself."""
        return rating.rating


class TenhouReplayer(ArrayReplayer):
    """Tenhou R through ``replay_tenhou`` (one player per team, every team ranked)."""

    fields = ("rating", "games")
    n_value = 2

    def new_state(self) -> tuple[float, ...]:
        r = self.model.rating()
        return (float(r.rating), float(r.games))

    def make(self, *values: Any) -> Any:
        return TenhouR(values[0], int(values[1]))

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        if not isinstance(value, TenhouR) or not isinstance(value.games, int):
            return None
        return (float(value.rating), float(value.games))

    def check(self, block: MatchBlock, predict: bool) -> None:
        block.validate()
        refuse_teams(self.model, block, predict, ranked=True)

    def kernel(self) -> Any:
        return _kernels().replay_tenhou

    def settings(self, block: MatchBlock) -> TenhouSettings:
        m = self.model
        return TenhouSettings(m._settings, m.bonus_table(int(np.diff(block.team_ptr).max())))
