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

>>> elo = Elo(k=32)
>>> a, b = elo.rate_1vs1(elo.rating(1500), elo.rating(1500))
>>> a.rating, b.rating
(1516.0, 1484.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from mindsport.errors import MindsportError
from mindsport.match import pair_outcome

__all__ = ["Elo", "EloRating", "FideK", "ShapeError"]

V = TypeVar("V")


class ShapeError(MindsportError):
    """``rate``/``win_probability`` got teams, ranks or weights of a shape the model can't take."""


# --------------------------------------------------------------------------------------------
# Team shape helpers shared by the Elo, Glicko-2, Tenhou and pairwise models (not public API).


def split_teams(
    teams: Sequence[Any], cls: type | tuple[type, ...], model: str
) -> tuple[list[list[Any]], list[list[Hashable] | None]]:
    """Team values as lists, plus each team's keys (None for a tuple team)."""
    if isinstance(teams, str | bytes | Mapping) or not isinstance(teams, Sequence):
        raise ShapeError(f"{model}: teams must be a sequence of teams, got {teams!r}")
    if len(teams) < 2:
        raise ShapeError(f"{model}: need at least two teams, got {len(teams)}")
    values: list[list[Any]] = []
    keys: list[list[Hashable] | None] = []
    for i, team in enumerate(teams):
        if isinstance(team, Mapping):
            k = list(team.keys())
            v = [team[x] for x in k]
            keys.append(k)
        elif isinstance(team, Iterable) and not isinstance(team, str | bytes):
            v = list(team)
            keys.append(None)
        else:
            raise ShapeError(
                f"{model}: team {i} must be a tuple of ratings or a dict player -> rating, "
                f"got {team!r}"
            )
        if not v:
            raise ShapeError(f"{model}: team {i} is empty")
        for j, r in enumerate(v):
            if not isinstance(r, cls):
                name = (
                    cls.__name__ if isinstance(cls, type) else " or ".join(c.__name__ for c in cls)
                )
                raise ShapeError(f"{model}: team {i} member {j}: expected {name}, got {r!r}")
        values.append(v)
    return values, keys


def join_teams(values: list[list[V]], keys: list[list[Hashable] | None]) -> list[Any]:
    """Inverse of :func:`split_teams`: tuples stay tuples, dicts stay dicts (same keys)."""
    out: list[Any] = []
    for v, k in zip(values, keys, strict=True):
        out.append(tuple(v) if k is None else dict(zip(k, v, strict=True)))
    return out


def split_single_players(
    teams: Sequence[Any], cls: type, model: str, weights: Sequence[Any] | None
) -> tuple[list[list[Any]], list[list[Hashable] | None]]:
    """:func:`split_teams` for models that rate individual players without partial play."""
    values, keys = split_teams(teams, cls, model)
    for i, t in enumerate(values):
        if len(t) != 1:
            raise ShapeError(
                f"{model} rates individual players only: team {i} has {len(t)} players"
            )
    if weights is not None:
        flat = [x for w in weights for x in (w.values() if isinstance(w, dict) else w)]
        if any(x != 1 for x in flat):
            raise ShapeError(f"{model} has no partial play: weights {weights!r}")
    return values, keys


def check_ranks(ranks: Sequence[int | None] | None, n: int, model: str) -> tuple[int | None, ...]:
    """Validated ranks (default: input order)."""
    if ranks is None:
        return tuple(range(n))
    if isinstance(ranks, str | bytes) or len(ranks) != n:
        raise ShapeError(f"{model}: {len(ranks)} ranks for {n} teams: {ranks!r}")
    for r in ranks:
        if r is not None and (
            isinstance(r, bool) or not isinstance(r, int | float) or not math.isfinite(r)
        ):
            raise ShapeError(f"{model}: ranks are numbers (lower is better) or None, got {r!r}")
    if all(r is None for r in ranks):
        raise ShapeError(f"{model}: at least one team must be ranked: {ranks!r}")
    return tuple(ranks)


def check_weights(
    weights: Sequence[Any] | None,
    values: list[list[Any]],
    keys: list[list[Hashable] | None],
    model: str,
) -> list[list[float]]:
    """Partial-play weights in the shape of the teams (default 1)."""
    if weights is None:
        return [[1.0] * len(v) for v in values]
    if isinstance(weights, str | bytes) or len(weights) != len(values):
        raise ShapeError(f"{model}: weights must have one entry per team, got {weights!r}")
    out: list[list[float]] = []
    for i, (w, v, k) in enumerate(zip(weights, values, keys, strict=True)):
        if isinstance(w, Mapping):
            if k is None:
                raise ShapeError(f"{model}: weights of team {i} are a dict but the team is not")
            try:
                wl = [w[x] for x in k]
            except KeyError as exc:
                raise ShapeError(f"{model}: weights of team {i} miss player {exc}") from None
        else:
            wl = list(w)
        if len(wl) != len(v):
            raise ShapeError(f"{model}: {len(wl)} weights for team {i} of {len(v)} players")
        for x in wl:
            if isinstance(x, bool) or not isinstance(x, int | float) or not 0 <= x <= 1:
                raise ShapeError(f"{model}: weights lie in [0, 1], got {x!r} (team {i})")
        out.append([float(x) for x in wl])
    return out


def logistic10(x: float) -> float:
    """``1 / (1 + 10 ** -x)`` without overflow for any finite ``x``."""
    z = x * math.log(10.0)
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


# --------------------------------------------------------------------------------------------


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
        if rating.games < self.new_games:
            return float(self.new_k)
        if rating.reached_2400 or rating.rating >= self.threshold:
            return float(self.top_k)
        return float(self.k)


@dataclass(frozen=True)
class Elo:
    """Elo rating model (immutable settings; see the module docstring for the rules)."""

    initial: float = 1500.0
    k: float | Callable[[EloRating], float] = 20.0
    scale: float = 400.0
    team_strength: Literal["average", "sum"] = "average"
    multi_team: Literal["mean", "sum"] = "mean"

    def __post_init__(self) -> None:
        if not callable(self.k) and (not isinstance(self.k, int | float) or self.k < 0):
            raise MindsportError(
                f"Elo: k must be a non-negative number or a callable, got {self.k!r}"
            )
        if not self.scale > 0:
            raise MindsportError(f"Elo: scale must be positive, got {self.scale!r}")
        if self.team_strength not in ("average", "sum"):
            raise MindsportError(
                f"Elo: team_strength is 'average' or 'sum', got {self.team_strength!r}"
            )
        if self.multi_team not in ("mean", "sum"):
            raise MindsportError(f"Elo: multi_team is 'mean' or 'sum', got {self.multi_team!r}")

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

    def _strength(self, team: list[EloRating], w: list[float]) -> float:
        total = sum(x * r.rating for r, x in zip(team, w, strict=True))
        if self.team_strength == "sum":
            return total
        sw = sum(w)
        return total / sw if sw > 0 else sum(r.rating for r in team) / len(team)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game (same shape as ``teams``; lower rank is better)."""
        values, keys = split_teams(teams, EloRating, "Elo")
        rk = check_ranks(ranks, len(values), "Elo")
        ws = check_weights(weights, values, keys, "Elo")
        strengths = [self._strength(t, w) for t, w in zip(values, ws, strict=True)]
        n = len(values)
        out: list[list[EloRating]] = []
        for i in range(n):
            diff = 0.0
            count = 0
            for j in range(n):
                if i == j:
                    continue
                s = pair_outcome(rk[i], rk[j])
                if s is None:
                    continue
                diff += s - self.expected_score(strengths[i], strengths[j])
                count += 1
            if self.multi_team == "mean" and count:
                diff /= count
            new_team = []
            for r, w in zip(values[i], ws[i], strict=True):
                if count == 0 or w == 0:
                    new_team.append(r)
                    continue
                nr = r.rating + self.k_factor(r) * w * diff
                new_team.append(EloRating(nr, r.games + 1, r.reached_2400 or nr >= 2400))
            out.append(new_team)
        return join_teams(out, keys)

    def rate_1vs1(
        self, a: EloRating, b: EloRating, drawn: bool = False
    ) -> tuple[EloRating, EloRating]:
        """``a`` beat ``b`` (or drew with him)."""
        (na,), (nb,) = self.rate([(a,), (b,)], [0, 0] if drawn else [0, 1])
        return na, nb

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Expected score of ``team_a`` against ``team_b`` (draws count half)."""
        values, _ = split_teams([team_a, team_b], EloRating, "Elo")
        sa, sb = (self._strength(t, [1.0] * len(t)) for t in values)
        return self.expected_score(sa, sb)

    def expose(self, rating: EloRating) -> float:
        """The leaderboard value: the rating itself."""
        return rating.rating
