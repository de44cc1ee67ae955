"""The shape every rating model shares.

A model is an immutable settings object; ratings are immutable values. ``rate`` takes a sequence
of teams (each a sequence of ratings or a mapping ``player -> rating``) and returns new teams of
the same shape; it never changes its inputs or the model.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

R = TypeVar("R")

#: One team: a tuple of ratings, or a mapping from player key to rating.
Team = Sequence[R] | Mapping[Hashable, R]

__all__ = ["RatingModel", "Team"]


@runtime_checkable
class RatingModel(Protocol):
    """What :func:`mindsport.history.replay` and the store need from a model."""

    def rating(self, *args: Any, **kwargs: Any) -> Any:
        """A new player's rating (with optional overrides)."""
        ...

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game; same shape as ``teams``."""
        ...

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Probability that ``team_a`` finishes ahead of ``team_b``."""
        ...
