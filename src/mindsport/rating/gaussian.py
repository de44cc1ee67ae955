"""Gaussian densities in natural parameters, and the standard normal functions.

A :class:`Gaussian` is stored as precision ``pi = 1/sigma**2`` and precision-adjusted mean
``tau = mu/sigma**2``. In this form multiplying two densities adds their parameters and dividing
subtracts them, which is all message passing on a factor graph needs; a uniform "no information"
message is ``Gaussian(0, 0)``.

The scalar functions (:func:`norm_pdf`, :func:`norm_cdf`, :func:`log_norm_cdf`,
:func:`mills_ratio`, :func:`erfcx`) are written once, in plain Python on floats. Python callers
run them as they are; the compiled kernels compile these very functions with numba
(:func:`mindsport._jit.compiling.compile_functions`), so there is one implementation of each.
"""

from __future__ import annotations

import math

__all__ = [
    "Gaussian",
    "erfcx",
    "log_norm_cdf",
    "mills_given",
    "mills_ratio",
    "norm_cdf",
    "norm_pdf",
    "norm_ppf",
]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = ("erfcx", "norm_pdf", "norm_cdf", "log_norm_cdf", "mills_given", "mills_ratio")

_SQRT2 = 1.4142135623730951
_INV_SQRT_2PI = 0.3989422804014327
_INV_SQRT_PI = 0.5641895835477563
#: below this argument ``norm_cdf`` loses relative accuracy: the ratios go through ``erfcx``
TAIL = -5.0
_TAIL = TAIL


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


def erfcx(z: float) -> float:
    """Scaled complementary error function ``exp(z^2) erfc(z)`` for ``z >= 0``.

    Below 25 directly; beyond, where ``erfc`` underflows, by Laplace's continued fraction
    ``erfc(z) = exp(-z^2)/sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...))))``, whose 60 terms
    are exact to rounding there.

    >>> z = 30.0  # against the asymptotic series 1 - 1/(2z^2) + 3/(4z^4) - 15/(8z^6) + ...
    >>> abs(erfcx(z) * z * math.sqrt(math.pi) - (1 - 1 / (2 * z**2) + 3 / (4 * z**4))) < 3e-9
    True
    """
    if z < 25.0:
        return math.exp(z * z) * math.erfc(z)
    f = z
    for k in range(60, 0, -1):
        f = z + (k / 2.0) / f
    return _INV_SQRT_PI / f


def norm_pdf(x: float) -> float:
    """Standard normal density."""
    return _INV_SQRT_2PI * math.exp(-0.5 * x * x)


def norm_cdf(x: float) -> float:
    """Standard normal distribution function, accurate in both tails."""
    return 0.5 * math.erfc(-x / _SQRT2)


def log_norm_cdf(x: float) -> float:
    """``log(norm_cdf(x))`` without underflow for very negative ``x``."""
    if x > _TAIL:
        return math.log(norm_cdf(x))
    # Phi(x) = erfc(-x/sqrt2)/2 = erfcx(-x/sqrt2) * exp(-x^2/2) / 2
    return math.log(0.5 * erfcx(-x / _SQRT2)) - 0.5 * x * x


def mills_ratio(x: float) -> float:
    """``norm_pdf(x) / norm_cdf(x)``, finite and accurate for every real ``x``.

    For ``x`` far in the left tail both numerator and denominator underflow; the ratio tends
    to ``-x`` and is computed through the scaled complementary error function.
    """
    return mills_given(x, norm_cdf(x) if x > _TAIL else 1.0)


def mills_given(x: float, cdf: float) -> float:
    """:func:`mills_ratio` when ``cdf = norm_cdf(x)`` is known already (used for ``x > -5``;
    beyond, ``cdf`` is ignored)."""
    if x > _TAIL:
        return norm_pdf(x) / cdf
    return 2.0 * _INV_SQRT_2PI / erfcx(-x / _SQRT2)


def norm_ppf(p: float) -> float:
    """Inverse of :func:`norm_cdf` for ``0 < p < 1`` (SciPy's ``ndtri``, loaded on first use)."""
    from scipy.special import ndtri

    return float(ndtri(p))
