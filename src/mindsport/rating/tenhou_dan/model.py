"""The Tenhou dan ladder (段位) as a rating model: what Tenhou players see and chase.

A player's rating is his level on the ladder and his points there (:class:`TenhouDan`); after
each four-player game his points change by his place, the table's room and the game's length,
and he is promoted, demoted or kept at his level by the published rules
(:mod:`mindsport.rating.tenhou_dan.ladder`, cited in docs/models.md):

* first and second gain the room's points (東南: 一般 +30/+15, 上級 +60/+15, 特上 +75/+30, 鳳凰
  +90/+45; 東風 two thirds of these), third nothing, fourth loses the points of his level (0 up
  to 3級, 2級 -15, 1級 -30, dan ``n`` ``-(30 + 15 n)``; 東風 two thirds);
* reaching the level's target promotes to the next level at its base points; below 0 a dan is
  demoted to the previous level at its base points, a kyu rank stays at 0; 天鳳位 never moves.

``room``: the room every table plays in, or ``"auto"``: the highest room the table's
lowest-ranked player may enter by his level (上級 from 1級, 特上 from 四段, 鳳凰 from 七段;
Tenhou's further conditions on the rating R, 1800 and 2000, are not modelled). ``length``:
``"hanchan"`` (東南) or ``"tonpuu"`` (東風).

The leaderboard sorts by (level, points): :meth:`TenhouDanLadder.expose` is the ladder position
``level + points / target``, whose whole part is the level. The ladder defines no win
probabilities; :meth:`TenhouDanLadder.win_probability` is a logistic curve in the positions'
difference, ``1 / (1 + 10 ** (-(pos_A - pos_B) / prob_scale))``, which
:func:`mindsport.history.fit` may tune.

Only the four-player game has these tables: a match of another size, a team of several players
or an unranked player is refused. Tenhou breaks ties by seat; tied players here share the mean of
the points of the places they cover.

>>> ladder = TenhouDanLadder(room="houou")
>>> a = ladder.rating(13, 1590.0)  # 四段, 10 points from 五段
>>> table = [(a,), (ladder.rating(13),), (ladder.rating(),), (ladder.rating(),)]
>>> for team in ladder.rate(table, [1, 2, 3, 4]):
...     print(team[0])
TenhouDan(level=14, points=1000.0)
TenhouDan(level=13, points=845.0)
TenhouDan(level=0, points=0.0)
TenhouDan(level=0, points=0.0)
>>> ladder.rating(14, 1000.0).name
'五段'
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
from mindsport.rating.params import MIN_SCALE, Kind, Param, check_settings
from mindsport.rating.replay.blocks import MatchBlock
from mindsport.rating.replay.replayers import (
    ArrayReplayer,
    compiled_unless_changed,
    refusal,
    refuse_teams,
)
from mindsport.rating.teams import ShapeError, check_ranks, join_teams, split_single_players
from mindsport.rating.tenhou_dan import ladder as tables

__all__ = ["PARAMS", "DanReplayer", "LadderArrays", "TenhouDan", "TenhouDanLadder"]

#: players at a table: the ladder's tables are those of four-player mahjong
TABLE = 4


@functools.cache
def _kernels() -> Any:
    from mindsport.rating.tenhou_dan import dan_kernel

    return dan_kernel


@dataclass(frozen=True, slots=True)
class TenhouDan:
    """A place on the Tenhou dan ladder: the level (0 新人 .. 20 天鳳位, see
    :data:`~mindsport.rating.tenhou_dan.ladder.LEVEL_NAMES`) and the points held there."""

    level: int = 0
    points: float = 0.0

    def __post_init__(self) -> None:
        level, points = self.level, self.points
        if isinstance(level, bool) or not isinstance(level, int):
            raise MindsportError(f"TenhouDan: level must be an integer, got {level!r}")
        if not 0 <= level <= tables.TENHOU_I:
            raise MindsportError(
                f"TenhouDan: level must be 0..{tables.TENHOU_I} "
                f"({tables.LEVEL_NAMES[0]}..{tables.LEVEL_NAMES[-1]}), got {level!r}"
            )
        if isinstance(points, bool) or not isinstance(points, int | float):
            raise MindsportError(f"TenhouDan: points must be a number, got {points!r}")
        target = tables.TARGET[level]
        if not math.isfinite(points) or points < 0 or (target > 0 and points >= target):
            held = f"[0, {target:g})" if target > 0 else "0"
            raise MindsportError(
                f"TenhouDan: points at {tables.LEVEL_NAMES[level]} must be in {held}, "
                f"got {points!r}"
            )
        if level == tables.TENHOU_I and points != 0:
            raise MindsportError(f"TenhouDan: {tables.LEVEL_NAMES[level]} holds no points")

    @property
    def name(self) -> str:
        """The level's name (``"四段"``)."""
        return tables.LEVEL_NAMES[self.level]


class LadderArrays(NamedTuple):
    """The ladder as the compiled update reads it: per level its base and target points, the
    fourth place's points and whether it may be lost; per room the first and second places'
    points (``top[room]``) and the least level that may enter (``room_from``); the room every
    table plays in (-1: automatic) and the scale of the win probability."""

    base: NDArray[np.float64]
    target: NDArray[np.float64]
    last: NDArray[np.float64]
    demotes: NDArray[np.bool_]
    top: NDArray[np.float64]
    room_from: NDArray[np.float64]
    room: int
    prob_scale: float


#: the settings of :class:`TenhouDanLadder` (checked when it is built; read by the registry)
PARAMS = (
    Param(
        "room",
        Kind.CHOICE,
        "auto",
        "room of every table (auto: the highest the table's lowest level may enter)",
        choices=("auto", *tables.ROOMS),
    ),
    Param(
        "length",
        Kind.CHOICE,
        "hanchan",
        "game length: hanchan (east-south) or tonpuu (east only, 2/3 of the points)",
        choices=tables.LENGTHS,
    ),
    Param(
        "prob_scale",
        Kind.REAL,
        4.0,
        "logistic scale of the win probability, in ladder levels (not part of Tenhou)",
        MIN_SCALE,
        float(tables.TENHOU_I) * 100.0,
    ),
)


@dataclass(frozen=True)
class TenhouDanLadder:
    """The Tenhou dan ladder's settings (see the module docstring)."""

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    room: str = "auto"
    length: str = "hanchan"
    prob_scale: float = 4.0

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "TenhouDanLadder", MindsportError)

    @functools.cached_property
    def arrays(self) -> LadderArrays:
        """The tables of this room and length as the compiled update takes them."""
        top = tables.TOP[self.length]
        return LadderArrays(
            np.array(tables.BASE),
            np.array(tables.TARGET),
            np.array(tables.LAST[self.length]),
            np.array(tables.DEMOTES),
            np.array([top[r] for r in tables.ROOMS]),
            np.array(tables.ROOM_FROM, dtype=np.float64),
            -1 if self.room == "auto" else tables.ROOMS.index(self.room),
            float(self.prob_scale),
        )

    def rating(self, level: int = 0, points: float | None = None) -> TenhouDan:
        """A place on the ladder (default: a new player, 新人 at 0 points); ``points`` default
        to the level's base points."""
        if isinstance(level, int) and not isinstance(level, bool) and 0 <= level < len(tables.BASE):
            base = tables.BASE[level]
        else:
            base = 0.0
        return TenhouDan(level, float(base if points is None else points))

    def replayer(self) -> Any:
        """The compiled replay (``rate`` match by match for a subclass that changes it)."""
        return compiled_unless_changed(self, TenhouDanLadder, DanReplayer)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New places after one four-player game of single players (lower rank is better).

        Tables of another size, teams of several players, unranked players and partial-play
        weights are refused. The update is the compiled one the replay runs.
        """
        values, keys = split_single_players(teams, TenhouDan, "TenhouDanLadder", weights)
        if len(values) != TABLE:
            raise ShapeError(
                f"TenhouDanLadder rates four-player tables: this match has {len(values)} players"
            )
        rk = check_ranks(ranks, len(values), "TenhouDanLadder")
        if any(r is None for r in rk):
            raise ShapeError(f"TenhouDanLadder needs every player ranked: ranks {list(rk)!r}")
        players = [t[0] for t in values]
        packed: list[float] = [float(r) for r in rk if r is not None]
        packed += [float(p.points) for p in players]
        packed += [float(p.level) for p in players]
        buf = np.array(packed)
        _kernels().dan_game(buf, self.arrays, TABLE)
        out = buf[TABLE:].tolist()
        new = [[TenhouDan(int(lv), p)] for p, lv in zip(out[:TABLE], out[TABLE:], strict=True)]
        return join_teams(new, keys)

    def position(self, rating: TenhouDan) -> float:
        """The place on the ladder as one number: ``level + points / target`` (the level at
        the top), increasing in (level, points)."""
        target = tables.TARGET[rating.level]
        return rating.level + (rating.points / target if target > 0 else 0.0)

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Logistic probability that A finishes ahead of B (see the module docstring)."""
        values, _ = split_single_players([team_a, team_b], TenhouDan, "TenhouDanLadder", None)
        d = self.position(values[0][0]) - self.position(values[1][0])
        return logistic10(d / self.prob_scale)

    def expose(self, rating: TenhouDan) -> float:
        """The leaderboard value: the ladder position (its whole part is the level)."""
        return self.position(rating)


class DanReplayer(ArrayReplayer):
    """The ladder through ``replay_dan`` (four single players a match, every one ranked)."""

    fields = ("points", "level")
    n_value = 2

    def new_state(self) -> tuple[float, ...]:
        return (0.0, 0.0)

    def make(self, *values: Any) -> Any:
        return TenhouDan(int(values[1]), float(values[0]))

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        if not isinstance(value, TenhouDan):
            return None
        return (float(value.points), float(value.level))

    def check(self, block: MatchBlock, predict: bool) -> None:
        block.validate()
        refuse_teams(self.model, block, predict, ranked=True)
        other = np.flatnonzero(np.diff(block.team_ptr) != TABLE)
        if len(other):
            raise refusal(self.model, block, int(other[0]), predict, False)

    def kernel(self) -> Any:
        return _kernels().replay_dan

    def settings(self, block: MatchBlock) -> LadderArrays:
        arrays: LadderArrays = self.model.arrays
        return arrays
