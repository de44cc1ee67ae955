"""Gaussian densities in natural parameters, and the standard normal functions.

A :class:`Gaussian` is stored as precision ``pi = 1/sigma**2`` and precision-adjusted mean
``tau = mu/sigma**2``. In this form multiplying two densities adds their parameters and dividing
subtracts them, which is all message passing on a factor graph needs; a uniform "no information"
message is ``Gaussian(0, 0)``.
"""

from __future__ import annotations

import math

from scipy.special import erfcx as _erfcx
from scipy.special import ndtri as _ndtri

__all__ = [
    "Gaussian",
    "log_norm_cdf",
    "mills_ratio",
    "norm_cdf",
    "norm_pdf",
    "norm_ppf",
]

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


class Gaussian:
    """A (possibly improper) Gaussian density ``N(mu, sigma^2)`` in natural parameters.

    >>> g = Gaussian.from_mu_sigma(25.0, 5.0)
    >>> round(g.mu, 12), round(g.sigma, 12)
    (25.0, 5.0)
    >>> h = g * g  # product of two densities: precisions add
    >>> round(h.sigma ** 2, 12)
    12.5
    >>> (h / g).mu == g.mu
    True
    """

    __slots__ = ("pi", "tau")

    def __init__(self, pi: float = 0.0, tau: float = 0.0) -> None:
        self.pi = pi
        self.tau = tau

    @classmethod
    def from_mu_sigma(cls, mu: float, sigma: float) -> Gaussian:
        """The density with mean ``mu`` and standard deviation ``sigma`` (> 0)."""
        pi = 1.0 / (sigma * sigma)
        return cls(pi, pi * mu)

    @property
    def mu(self) -> float:
        """Mean (0 for the uniform message)."""
        return self.tau / self.pi if self.pi else 0.0

    @property
    def sigma(self) -> float:
        """Standard deviation (infinite for the uniform message)."""
        return math.sqrt(1.0 / self.pi) if self.pi > 0 else math.inf

    def __mul__(self, other: Gaussian) -> Gaussian:
        return Gaussian(self.pi + other.pi, self.tau + other.tau)

    def __truediv__(self, other: Gaussian) -> Gaussian:
        return Gaussian(self.pi - other.pi, self.tau - other.tau)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Gaussian) and self.pi == other.pi and self.tau == other.tau

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Gaussian(mu={self.mu:.6g}, sigma={self.sigma:.6g})"


def norm_pdf(x: float) -> float:
    """Standard normal density."""
    return _INV_SQRT_2PI * math.exp(-0.5 * x * x)


def norm_cdf(x: float) -> float:
    """Standard normal distribution function, accurate in both tails."""
    return 0.5 * math.erfc(-x / _SQRT2)


def norm_ppf(p: float) -> float:
    """Inverse of :func:`norm_cdf` for ``0 < p < 1``."""
    return float(_ndtri(p))


def log_norm_cdf(x: float) -> float:
    """``log(norm_cdf(x))`` without underflow for very negative ``x``."""
    if x > -5.0:
        return math.log(norm_cdf(x))
    # Phi(x) = erfc(-x/sqrt2)/2 = erfcx(-x/sqrt2) * exp(-x^2/2) / 2
    return math.log(0.5 * float(_erfcx(-x / _SQRT2))) - 0.5 * x * x


def mills_ratio(x: float) -> float:
    """``norm_pdf(x) / norm_cdf(x)``, finite and accurate for every real ``x``.

    For ``x`` far in the left tail both numerator and denominator underflow; the ratio tends
    to ``-x`` and is computed through the scaled complementary error function.
    """
    if x > -5.0:
        return norm_pdf(x) / norm_cdf(x)
    return 2.0 * _INV_SQRT_2PI / float(_erfcx(-x / _SQRT2))
