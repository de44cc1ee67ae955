"""Glicko-2's scalar formulas, written once in plain Python on floats.

:class:`~mindsport.rating.glicko2.model.Glicko2` runs them as they are (``win_probability``);
the compiled update compiles these very functions (:mod:`.glicko2_kernel`), so ``rate``, the
replay of a long history and the predictions share one implementation.

>>> round(glicko2_expectation(1600.0, 50.0, 1500.0, 50.0), 6)
0.63684
"""

from __future__ import annotations

import math

__all__ = ["SCALE", "g_factor", "glicko2_expectation", "logistic"]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = ("logistic", "g_factor", "glicko2_expectation")

#: Glicko-2 scale factor between the Glicko scale (1500 +- RD) and the internal (mu, phi).
SCALE = 173.7178


def logistic(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


def g_factor(phi: float) -> float:
    """Glickman's ``g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)``."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def glicko2_expectation(rating_a: float, rd_a: float, rating_b: float, rd_b: float) -> float:
    """Symmetric expected score of A against B (Glicko scale values), both deviations combined:
    ``1/(1+exp(-g(sqrt(phi_A^2+phi_B^2)) (mu_A-mu_B)))``."""
    g = g_factor(math.hypot(rd_a / SCALE, rd_b / SCALE))
    return logistic(g * ((rating_a - 1500.0) / SCALE - (rating_b - 1500.0) / SCALE))
