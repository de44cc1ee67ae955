"""Team shapes shared by the rating models: validation of teams, ranks and weights.

``rate(teams, ranks, weights)`` takes each team as a tuple of rating values or a dict
``{player: rating}``; these helpers check that shape (naming the model and what is wrong) and
rebuild the result in the same shape.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from mindsport.errors import MindsportError

__all__ = [
    "ShapeError",
    "check_ranks",
    "check_weights",
    "join_teams",
    "split_single_players",
    "split_teams",
]

V = TypeVar("V")


class ShapeError(MindsportError):
    """``rate``/``win_probability`` got teams, ranks or weights of a shape the model can't take."""


def split_teams(
    teams: Sequence[Any], cls: type | tuple[type, ...], model: str
) -> tuple[list[list[Any]], list[list[Hashable] | None]]:
    """Team values as lists, plus each team's keys (None for a tuple team)."""
    tt = type(teams)
    if (
        tt is not list
        and tt is not tuple
        and (isinstance(teams, str | bytes | Mapping) or not isinstance(teams, Sequence))
    ):
        raise ShapeError(f"{model}: teams must be a sequence of teams, got {teams!r}")
    if len(teams) < 2:
        raise ShapeError(f"{model}: need at least two teams, got {len(teams)}")
    values: list[list[Any]] = []
    keys: list[list[Hashable] | None] = []
    for i, team in enumerate(teams):
        kind = type(team)
        if kind is tuple or kind is list:
            v = list(team)
            keys.append(None)
        elif isinstance(team, Mapping):
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
