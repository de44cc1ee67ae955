"""The rating value: a Gaussian belief about one player's skill."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from mindsport.errors import MindsportError

__all__ = ["InvalidRatingError", "Rating", "trusted_rating"]


class InvalidRatingError(MindsportError):
    """A rating or a model setting is not a usable number."""


@dataclass(frozen=True, slots=True)
class Rating:
    """Belief ``N(mu, sigma^2)`` about a player's skill. Immutable and hashable.

    >>> Rating(25.0, 25 / 3)
    Rating(mu=25.000, sigma=8.333)
    >>> Rating(25.0, 0.0)
    Traceback (most recent call last):
    ...
    mindsport.rating.rating.InvalidRatingError: Rating sigma must be a finite number > 0, got 0.0
    """

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if (  # the common case first, fast
            type(self.mu) is float
            and type(self.sigma) is float
            and math.isfinite(self.mu)
            and math.isfinite(self.sigma)
            and self.sigma > 0
        ):
            return
        if isinstance(self.mu, bool) or not isinstance(self.mu, numbers.Real):
            raise InvalidRatingError(f"Rating mu must be a number, got {self.mu!r}")
        if not math.isfinite(self.mu):
            raise InvalidRatingError(f"Rating mu must be finite, got {self.mu!r}")
        if (
            isinstance(self.sigma, bool)
            or not isinstance(self.sigma, numbers.Real)
            or not math.isfinite(self.sigma)
            or self.sigma <= 0
        ):
            raise InvalidRatingError(
                f"Rating sigma must be a finite number > 0, got {self.sigma!r}"
            )

    def __repr__(self) -> str:
        return f"Rating(mu={self.mu:.3f}, sigma={self.sigma:.3f})"


_SET_MU = Rating.__dict__["mu"].__set__
_SET_SIGMA = Rating.__dict__["sigma"].__set__


def trusted_rating(mu: float, sigma: float) -> Rating:
    """A :class:`Rating` of floats already known to be valid (a finite ``mu``, a finite
    ``sigma > 0``: what an update computes from valid ratings), built without checking them
    again.

    >>> trusted_rating(25.0, 8.0) == Rating(25.0, 8.0)
    True
    """
    r = object.__new__(Rating)
    _SET_MU(r, mu)
    _SET_SIGMA(r, sigma)
    return r
