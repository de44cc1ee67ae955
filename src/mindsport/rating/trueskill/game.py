"""A game as TrueSkill's ``rate`` takes it: the checks of its teams, ranks, weights and elapsed
times, and the errors of rating one.

:func:`validate_game` turns what ``rate`` was given into a :class:`Game` (or says what is wrong
with an :class:`InvalidGameError`), :func:`rank_order` orders the teams by rank. The models built
on TrueSkill (:mod:`.cardplay`, :mod:`.pairwise` through :mod:`mindsport.rating.teams`, the
whole-history model) raise the same errors.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from mindsport.errors import InternalError, MindsportError
from mindsport.rating.rating import InvalidRatingError, Rating

__all__ = [
    "ConvergenceError",
    "Game",
    "InvalidGameError",
    "is_number",
    "rank_order",
    "ratings_of",
    "validate_game",
]


class InvalidGameError(MindsportError):
    """The teams, ranks, weights or elapsed times given to ``rate`` do not describe a game."""


class ConvergenceError(InternalError):
    """Message passing did not settle within the safety limit (never seen in practice): a
    failure of the algorithm, not of the input."""


def is_number(x: object) -> bool:
    """A finite real number (Python or NumPy), not a bool."""
    t = type(x)
    if t is float:
        return math.isfinite(x)  # type: ignore[arg-type]
    if t is int:
        return True
    return (
        not isinstance(x, bool | np.bool_)
        and isinstance(x, numbers.Real)
        and math.isfinite(float(x))
    )


class Game(NamedTuple):
    """A validated game: per team, the dict keys (None for a tuple team), ratings, weights and
    time away (for drift). (A named tuple: built on every ``rate`` call, it costs little.)"""

    keys: list[list[Hashable] | None]
    ratings: list[Sequence[Rating]]
    weights: list[list[float]] | None  # None: every player played fully
    elapsed: list[list[float]] | None  # None: no time away

    def weight_rows(self) -> list[list[float]]:
        return self.weights if self.weights is not None else [[1.0] * len(r) for r in self.ratings]

    def present(self, team: int) -> int:
        """Players of a team who took part (weight > 0); they set the draw margin."""
        return sum(1 for w in self.weight_rows()[team] if w > 0)


def validate_game(
    teams: Sequence[Any], weights: Sequence[Any] | None, elapsed: Sequence[Any] | None
) -> Game:
    """The game ``rate`` was given, checked: teams of ratings (tuples, lists or dicts, at least
    two, none empty), and weights and elapsed times in their shape (each a number in range);
    :class:`InvalidGameError` names what is wrong."""
    if type(teams) is not list and (
        isinstance(teams, str | bytes | Mapping) or not isinstance(teams, Sequence)
    ):
        raise InvalidGameError(f"teams must be a list of teams, got {teams!r}")
    if len(teams) < 2:
        raise InvalidGameError(f"teams: a game needs at least two teams, got {len(teams)}")
    keys: list[list[Hashable] | None] = []
    ratings: list[Sequence[Rating]] = []
    for i, team in enumerate(teams):
        k: list[Hashable] | None = None
        tt = type(team)
        if tt is tuple or tt is list:
            rs = team
        elif isinstance(team, Mapping):
            k = list(team.keys())
            rs = list(team.values())
        elif isinstance(team, Sequence) and not isinstance(team, str | bytes):
            rs = list(team)
        else:
            raise InvalidGameError(
                f"teams[{i}] must be a tuple of ratings or a dict of ratings, got {team!r}"
            )
        if not rs:
            raise InvalidGameError(f"teams[{i}] is empty")
        for r in rs:
            if type(r) is not Rating:
                rs = ratings_of(rs, i)
                break
        keys.append(k)
        ratings.append(rs)
    if weights is None and elapsed is None:
        return Game(keys, ratings, None, None)

    def per_player(name: str, given: Sequence[Any], default: float) -> list[list[float]]:
        if isinstance(given, str | bytes) or len(given) != len(ratings):
            raise InvalidGameError(
                f"{name} must have one entry per team ({len(ratings)}), got {given!r}"
            )
        out = []
        for i, (g, rs, k) in enumerate(zip(given, ratings, keys, strict=True)):
            if isinstance(g, Mapping):
                if k is None or set(g) != set(k):
                    raise InvalidGameError(
                        f"{name}[{i}] must have the same players as teams[{i}], got {g!r}"
                    )
                vals = [g[key] for key in k]
            elif g is None:
                vals = [default] * len(rs)
            else:
                vals = list(g)
                if len(vals) != len(rs):
                    raise InvalidGameError(
                        f"{name}[{i}] has {len(vals)} values for {len(rs)} players"
                    )
            out.append(vals)
        return out

    w: list[list[float]] | None = None
    if weights is not None:
        w = per_player("weights", weights, 1.0)
        for i, ws in enumerate(w):
            for j, x in enumerate(ws):
                if not is_number(x) or not 0 <= x <= 1:
                    raise InvalidGameError(f"weights[{i}][{j}] must be in [0, 1], got {x!r}")
            if all(x == 0 for x in ws):
                raise InvalidGameError(f"weights[{i}]: every player of team {i} has weight 0")
        w = [[float(x) for x in ws] for ws in w]
    e: list[list[float]] | None = None
    if elapsed is not None:
        e = per_player("elapsed", elapsed, 0.0)
        for i, es in enumerate(e):
            for j, x in enumerate(es):
                if not is_number(x) or x < 0:
                    raise InvalidGameError(f"elapsed[{i}][{j}] must be a number >= 0, got {x!r}")
        e = [[float(x) for x in es] for es in e]
    return Game(keys, ratings, w, e)


def ratings_of(members: Sequence[Any], i: int) -> list[Rating]:
    """Team ``i``'s members as :class:`Rating` values (anything with ``mu`` and ``sigma``)."""
    out = []
    for j, r in enumerate(members):
        if isinstance(r, Rating):
            out.append(r)
        elif hasattr(r, "mu") and hasattr(r, "sigma"):
            try:
                out.append(Rating(r.mu, r.sigma))
            except InvalidRatingError as exc:
                raise InvalidGameError(f"teams[{i}][{j}]: {exc}") from None
        else:
            raise InvalidGameError(f"teams[{i}][{j}] is not a Rating: {r!r}")
    return out


def rank_order(
    ranks: Sequence[Any] | None, n: int, draw_probability: float
) -> tuple[list[int], int, list[Any]]:
    """The ``n`` team indices sorted by rank (stable), unranked last; how many are ranked; and
    the ranks (input order when ``ranks`` is None). A tie is refused when ``draw_probability``
    is 0 (the model cannot describe one)."""
    if ranks is None:
        return list(range(n)), n, list(range(n))
    if isinstance(ranks, str | bytes) or len(ranks) != n:
        raise InvalidGameError(f"ranks must have one entry per team ({n}), got {ranks!r}")
    for i, r in enumerate(ranks):
        if r is not None and not is_number(r):
            raise InvalidGameError(f"ranks[{i}] must be a number or None, got {r!r}")
    ranked = [i for i in range(n) if ranks[i] is not None]
    if not ranked:
        raise InvalidGameError("ranks: at least one team must be ranked")
    ranked.sort(key=lambda i: ranks[i])
    if draw_probability == 0:
        for x, y in itertools.pairwise(ranked):
            if ranks[x] == ranks[y]:
                raise InvalidGameError(
                    f"ranks: teams {x} and {y} tie, but draw_probability is 0 so a tie "
                    "is impossible under this model"
                )
    unranked = [i for i in range(n) if ranks[i] is None]
    return ranked + unranked, len(ranked), list(ranks)
