"""Elo ratings: constant K or a K schedule (FIDE), teams, multi-player games by pairs.

The expected score of A against B is ``1 / (1 + 10 ** ((R_B - R_A) / scale))`` (scale 400), and
a game moves a rating by ``K * (S - E)`` (S = 1 win, 0.5 draw, 0 loss).

* **Teams.** A team's strength is the *average* of its members' ratings (``team_strength=
  "average"``, the default) or their *sum* (``"sum"``); with partial-play ``weights`` the average
  is weighted and the sum counts each member by his weight. Every member of a team receives the
  team's change ``K_member * weight * (S - E)`` with his own K (so a schedule can differ within a
  team).
* **More than two teams.** Pairwise decomposition: team *i* plays a virtual game against every
  other team *j*; with ``multi_team="mean"`` (default) the change is ``K * mean_j (S_ij - E_ij)``
  so a game moves a rating as much as one two-player game, with ``"sum"`` every pair counts as a
  full game. All changes are computed from the pre-game ratings (simultaneous update).
* **Unranked teams** (rank ``None``) finish below every ranked team; two unranked teams are not
  compared.
* **K schedules.** ``k`` is a number or a callable ``EloRating -> K``. :class:`FideK` is the FIDE
  rule: K = 40 until 30 games have been played, 20 while below 2400, 10 once 2400 has been reached
  (for good: the rating value carries ``games`` and the flag ``reached_2400``).

The update of a game is compiled (:mod:`.elo_kernel`, loaded on first use) from the formulas of
:mod:`.formulas`, which Python code runs as they are.

>>> elo = Elo(k=32)
>>> a, b = elo.rate_1vs1(elo.rating(1500), elo.rating(1500))
>>> a.rating, b.rating
(1516.0, 1484.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.rating.elo.formulas import fide_k, logistic10
from mindsport.rating.params import (
    MAX_COUNT,
    MAX_LOCATION,
    MAX_SCALE,
    MIN_SCALE,
    Kind,
    Param,
    check_settings,
)
from mindsport.rating.replay.replayers import ArrayReplayer, ObjectReplayer, compiled_unless_changed
from mindsport.rating.teams import (
    ShapeError,
    check_ranks,
    check_weights,
    join_teams,
    split_teams,
)

__all__ = ["SETTINGS", "Elo", "EloRating", "FideK", "ShapeError"]

#: the settings as the compiled update and replay read them: one record, fields by name
SETTINGS = np.dtype(
    [
        ("k_mode", np.int64),  # 0 a constant K, 1 the FIDE schedule, 2 K per player given
        ("k", np.float64),  # the constant K
        ("new_k", np.float64),  # the FIDE schedule (FideK's fields)
        ("new_games", np.float64),
        ("regular_k", np.float64),
        ("top_k", np.float64),
        ("threshold", np.float64),
        ("scale", np.float64),
        ("team_sum", np.bool_),  # a team's strength: the sum of its ratings (else the mean)
        ("multi_sum", np.bool_),  # more than two teams: the sum over the pairs (else the mean)
    ],
    align=True,
)


@functools.cache
def _kernels() -> Any:
    from mindsport.rating.elo import elo_kernel

    return elo_kernel


@dataclass(frozen=True, slots=True)
class EloRating:
    """An Elo rating with the number of games played and whether it ever reached 2400."""

    rating: float = 1500.0
    games: int = 0
    reached_2400: bool = False

    def __float__(self) -> float:
        return float(self.rating)


@dataclass(frozen=True, slots=True)
class FideK:
    """The FIDE K-factor schedule (a callable ``EloRating -> K``).

    K = ``new_k`` (40) while fewer than ``new_games`` (30) games have been played; otherwise
    ``top_k`` (10) once the rating has ever reached ``threshold`` (2400), else ``k`` (20).

    >>> k = FideK()
    >>> k(EloRating(1500, games=3)), k(EloRating(2390, 31)), k(EloRating(2390, 31, True))
    (40.0, 20.0, 10.0)
    """

    new_k: float = 40.0
    new_games: int = 30
    k: float = 20.0
    top_k: float = 10.0
    threshold: float = 2400.0

    def __call__(self, rating: EloRating) -> float:
        return float(
            fide_k(
                rating.games,
                rating.reached_2400,
                rating.rating,
                self.new_k,
                self.new_games,
                self.k,
                self.top_k,
                self.threshold,
            )
        )


#: the settings of :class:`Elo` (checked when it is built; read by the model registry). A game
#: moves a rating by at most K (the surprise lies in [-1, 1]; with ``multi_team="sum"`` by K
#: per opponent), so ratings stay finite for any K up to MAX_SCALE; the expected score
#: (:func:`~mindsport.rating.elo.formulas.logistic10`) is finite for any finite difference, and
#: a scale of at least MIN_SCALE keeps the difference in scales finite.
PARAMS = (
    Param("initial", Kind.REAL, 1500.0, "rating of a new player", -MAX_LOCATION, MAX_LOCATION),
    Param(
        "k",
        Kind.REAL,
        20.0,
        "K factor: rating change per unit of surprise",
        0.0,
        MAX_SCALE,
        callable_ok=True,
    ),
    Param("scale", Kind.REAL, 400.0, "rating difference for 10:1 odds", MIN_SCALE, MAX_SCALE),
    Param(
        "team_strength",
        Kind.CHOICE,
        "average",
        "a team's strength: mean or sum of its ratings",
        choices=("average", "sum"),
    ),
    Param(
        "multi_team",
        Kind.CHOICE,
        "mean",
        "more than two teams: mean or sum over the pairs",
        choices=("mean", "sum"),
    ),
)

#: the settings of the FIDE schedule (the ``fide`` model of the registry)
FIDE_PARAMS = (
    Param(
        "new_k", Kind.REAL, 40.0, "K of a player with fewer than new_games games", 0.0, MAX_SCALE
    ),
    Param(
        "new_games",
        Kind.INTEGER,
        30,
        "games played before the regular K applies",
        0.0,
        MAX_COUNT,
    ),
    Param("regular_k", Kind.REAL, 20.0, "K below the threshold", 0.0, MAX_SCALE),
    Param("top_k", Kind.REAL, 10.0, "K once the threshold was ever reached", 0.0, MAX_SCALE),
    Param(
        "threshold",
        Kind.REAL,
        2400.0,
        "rating from which top_k applies",
        -MAX_LOCATION,
        MAX_LOCATION,
    ),
)


@dataclass(frozen=True)
class Elo:
    """Elo rating model (immutable settings; see the module docstring for the rules)."""

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    initial: float = 1500.0
    k: float | Callable[[EloRating], float] = 20.0
    scale: float = 400.0
    team_strength: Literal["average", "sum"] = "average"
    multi_team: Literal["mean", "sum"] = "mean"

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "Elo", MindsportError)

    @functools.cached_property
    def _k_per_player(self) -> bool:
        """K from a schedule the compiled update does not know (any callable but FideK)."""
        return callable(self.k) and not isinstance(self.k, FideK)

    @functools.cached_property
    def _settings(self) -> NDArray[np.void]:
        """The settings as the compiled update takes them (:data:`SETTINGS`, one record)."""
        k = self.k
        fide: tuple[float, ...]
        if isinstance(k, FideK):
            mode, const = 1, 0.0
            fide = (k.new_k, k.new_games, k.k, k.top_k, k.threshold)
        elif callable(k):
            mode, const, fide = 2, 0.0, (0.0,) * 5
        else:
            mode, const, fide = 0, float(k), (0.0,) * 5
        return np.array(
            [
                (
                    mode,
                    const,
                    *fide,
                    self.scale,
                    self.team_strength == "sum",
                    self.multi_team == "sum",
                )
            ],
            dtype=SETTINGS,
        )

    def rating(
        self, rating: float | None = None, games: int = 0, reached_2400: bool | None = None
    ) -> EloRating:
        """A new rating (default: ``initial``, no games)."""
        r = float(self.initial if rating is None else rating)
        flag = r >= 2400 if reached_2400 is None else reached_2400
        return EloRating(r, games, flag)

    def k_factor(self, rating: EloRating) -> float:
        """The K used for this player's next game."""
        return float(self.k(rating)) if callable(self.k) else float(self.k)

    def expected_score(self, a: float, b: float) -> float:
        """Expected score of strength ``a`` against strength ``b``."""
        return logistic10((a - b) / self.scale)

    def _strength(self, team: list[EloRating]) -> float:
        total = sum(r.rating for r in team)
        return total if self.team_strength == "sum" else total / len(team)

    def replayer(self) -> Any:
        """The compiled replay (constant K or :class:`FideK`); ``rate`` match by match for any
        other K schedule or a subclass that changes ``rate``."""
        if self._k_per_player:
            return ObjectReplayer(self)
        return compiled_unless_changed(self, Elo, EloReplayer)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game (same shape as ``teams``; lower rank is better).

        The update is the compiled one of :mod:`mindsport.rating.elo.elo_kernel` (the same
        the replay of long histories runs).
        """
        values, keys = split_teams(teams, EloRating, "Elo")
        rk = check_ranks(ranks, len(values), "Elo")
        ws = check_weights(weights, values, keys, "Elo")
        flat = [r for t in values for r in t]
        n, n_teams = len(flat), len(values)
        nan = math.nan
        buf: list[float] = list(map(len, values))  # team sizes
        buf += [nan if r is None else float(r) for r in rk]
        buf += [float(r.rating) for r in flat]
        buf += [float(r.games) for r in flat]
        buf += [1.0 if r.reached_2400 else 0.0 for r in flat]
        buf += [x for w in ws for x in w]
        buf += [self.k_factor(r) for r in flat] if self._k_per_player else [0.0] * n
        arr = np.array(buf, np.float64)
        _kernels().elo_game(arr, self._settings, n_teams, n)
        at = 2 * n_teams
        out = arr[at : at + 3 * n].tolist()
        new = [
            r if (x == r.rating and g == r.games) else EloRating(x, int(g), c != 0.0)
            for r, x, g, c in zip(flat, out[:n], out[n : 2 * n], out[2 * n :], strict=True)
        ]
        rows, at = [], 0
        for t in values:
            rows.append(new[at : at + len(t)])
            at += len(t)
        return join_teams(rows, keys)

    def rate_1vs1(
        self, a: EloRating, b: EloRating, drawn: bool = False
    ) -> tuple[EloRating, EloRating]:
        """``a`` beat ``b`` (or drew with him)."""
        (na,), (nb,) = self.rate([(a,), (b,)], [0, 0] if drawn else [0, 1])
        return na, nb

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Expected score of ``team_a`` against ``team_b`` (draws count half)."""
        values, _ = split_teams([team_a, team_b], EloRating, "Elo")
        sa, sb = (self._strength(t) for t in values)
        return self.expected_score(sa, sb)

    def expose(self, rating: EloRating) -> float:
        """The leaderboard value: the rating itself."""
        return rating.rating


class EloReplayer(ArrayReplayer):
    """Elo (constant K or :class:`~mindsport.rating.FideK`) through ``replay_elo``."""

    fields = ("rating", "games", "reached_2400")
    n_value = 3

    def new_state(self) -> tuple[float, ...]:
        r = self.model.rating()
        return (float(r.rating), float(r.games), 1.0 if r.reached_2400 else 0.0)

    def make(self, *values: Any) -> Any:
        return EloRating(values[0], int(values[1]), bool(values[2]))

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        if not isinstance(value, EloRating) or not isinstance(value.games, int):
            return None
        return (float(value.rating), float(value.games), 1.0 if value.reached_2400 else 0.0)

    def kernel(self) -> Any:
        return _kernels().replay_elo
