r"""The TrueSkill factor graph: variables, one small class per factor, messages down and up.

The graph of one game (seed 000, Fig. 7), drawn for three teams of 1, 2 and 1 players::

    PriorFactor            [P]     [P]   [P]     [P]      skill prior N(mu, sigma^2 + tau^2)
                            |       |     |       |
    skill variables         s1      s2    s3      s4
                            |       |     |       |
    LikelihoodFactor       [L]     [L]   [L]     [L]      performance = skill + N(0, beta^2)
                            |       |     |       |
    performance variables   p1      p2    p3      p4
                            |        \   /        |
    SumFactor (team)       [S]        [S]        [S]      team = sum of weight_i * p_i
                            |          |          |
    team performances       t1         t2         t3
                              \       /  \       /
    SumFactor (difference)      [D12]      [D23]           d = t_left - t_right
                                  |          |
    differences                  d12        d23
                                  |          |
    TruncateFactor              [T]        [T]             d > e (win) or |d| <= e (draw)

Teams are sorted by rank; each difference links two adjacent teams. For a *partial ranking*
(seed 000, claim 12 and Fig. 19) every unranked team hangs off the lowest ranked team through
its own difference and a win truncation, so unranked teams are below every ranked team and
unordered among themselves. The graph stays a tree.

Each factor keeps the message it last sent to each of its variables; a variable keeps its
marginal (the product of all incoming messages). ``down()`` sends towards the truncations,
``up()`` back towards the skills. The truncation's ``up()`` returns how much the difference
marginal moved (in mean and standard deviation), which the schedule uses to decide convergence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mindsport.rating.gaussian import Gaussian
from mindsport.rating.truncation import truncated

__all__ = [
    "LikelihoodFactor",
    "PriorFactor",
    "SumFactor",
    "TruncateFactor",
    "Variable",
]

_UNIFORM = Gaussian(0.0, 0.0)


class Variable:
    """A variable node: its marginal is the product of the messages sent to it."""

    __slots__ = ("marginal",)

    def __init__(self) -> None:
        self.marginal = _UNIFORM

    def replace_message(self, old: Gaussian, new: Gaussian) -> None:
        """Swap one incoming message for another in the marginal."""
        m = self.marginal
        self.marginal = Gaussian(m.pi - old.pi + new.pi, m.tau - old.tau + new.tau)


def _delta(a: Gaussian, b: Gaussian) -> float:
    """Change between two marginals, in mean and standard deviation."""
    if a.pi <= 0 or b.pi <= 0:
        return math.inf
    return max(abs(a.mu - b.mu), abs(a.sigma - b.sigma))


def _cavity(var: Variable, msg: Gaussian) -> Gaussian:
    """The variable's marginal without one factor's message."""
    m = var.marginal
    return Gaussian(m.pi - msg.pi, m.tau - msg.tau)


class PriorFactor:
    """Skill prior: the stored belief ``N(mu, sigma^2)`` widened by the dynamics ``tau``."""

    __slots__ = ("message", "mu", "sigma", "var")

    def __init__(self, var: Variable, mu: float, sigma: float) -> None:
        self.var, self.mu, self.sigma = var, mu, sigma
        self.message = _UNIFORM

    def down(self) -> None:
        new = Gaussian.from_mu_sigma(self.mu, self.sigma)
        old, self.message = self.message, new
        self.var.replace_message(old, new)


class LikelihoodFactor:
    """Performance noise: ``value ~ N(mean, variance)`` (here performance given skill)."""

    __slots__ = ("mean", "to_mean", "to_value", "value", "variance")

    def __init__(self, mean: Variable, value: Variable, variance: float) -> None:
        self.mean, self.value, self.variance = mean, value, variance
        self.to_mean = _UNIFORM
        self.to_value = _UNIFORM

    def _pass(self, source: Gaussian) -> Gaussian:
        a = 1.0 / (1.0 + self.variance * source.pi)
        return Gaussian(a * source.pi, a * source.tau)

    def down(self) -> None:
        new = self._pass(_cavity(self.mean, self.to_mean))
        old, self.to_value = self.to_value, new
        self.value.replace_message(old, new)

    def up(self) -> None:
        new = self._pass(_cavity(self.value, self.to_value))
        old, self.to_mean = self.to_mean, new
        self.mean.replace_message(old, new)


class SumFactor:
    """A weighted sum ``total = sum(c_i * term_i)``: team performance or team difference."""

    __slots__ = ("coeffs", "terms", "to_terms", "to_total", "total")

    def __init__(self, total: Variable, terms: Sequence[Variable], coeffs: Sequence[float]) -> None:
        self.total, self.terms, self.coeffs = total, list(terms), list(coeffs)
        self.to_total = _UNIFORM
        self.to_terms = [_UNIFORM] * len(self.terms)

    def down(self) -> None:
        """Message to the sum from the terms."""
        self._send(self.total, None, [(c, _cavity(v, msg)) for c, v, msg in self._others(-1)])

    def up(self, index: int) -> None:
        """Message to term ``index``: ``term = (total - sum_{j != index} c_j term_j) / c``."""
        c = self.coeffs[index]
        parts = [(1.0 / c, _cavity(self.total, self.to_total))]
        parts += [(-cj / c, _cavity(v, msg)) for cj, v, msg in self._others(index)]
        self._send(self.terms[index], index, parts)

    def _others(self, skip: int) -> list[tuple[float, Variable, Gaussian]]:
        return [
            (c, v, msg)
            for j, (c, v, msg) in enumerate(
                zip(self.coeffs, self.terms, self.to_terms, strict=True)
            )
            if j != skip
        ]

    def _send(
        self, target: Variable, index: int | None, parts: list[tuple[float, Gaussian]]
    ) -> None:
        """Send the density of ``sum(a * x)`` for independent ``x`` with the given cavities.

        A part without information (precision 0) makes the sum uninformative: the uniform
        message is sent.
        """
        mu = var = 0.0
        new = _UNIFORM
        if all(g.pi > 0 for _, g in parts):
            for a, g in parts:
                mu += a * g.tau / g.pi
                var += a * a / g.pi
            new = Gaussian(1.0 / var, mu / var)
        if index is None:
            old, self.to_total = self.to_total, new
        else:
            old, self.to_terms[index] = self.to_terms[index], new
        target.replace_message(old, new)


class TruncateFactor:
    """The outcome: a difference truncated to ``(margin, inf)`` (win) or ``[-margin, margin]``
    (``draw``).

    This is the only approximate factor: the truncated Gaussian is replaced by the Gaussian with
    the same mean and variance (moment matching through ``v`` and ``w``).
    """

    __slots__ = ("draw", "margin", "message", "var")

    def __init__(self, var: Variable, draw: bool, margin: float) -> None:
        self.var, self.draw, self.margin = var, draw, margin
        self.message = _UNIFORM

    def up(self) -> float:
        """Send the moment-matched message; return the change of the difference marginal."""
        cav = _cavity(self.var, self.message)
        sqrt_pi = math.sqrt(cav.pi)
        t = cav.tau / sqrt_pi
        e = self.margin * sqrt_pi
        v, w = truncated(t, e, self.draw)
        # moment-matched marginal: pi / (1 - w), (tau + sqrt(pi) v) / (1 - w)
        denom = 1.0 - w
        marginal = Gaussian(cav.pi / denom, (cav.tau + sqrt_pi * v) / denom)
        new = marginal / cav
        before = self.var.marginal
        old, self.message = self.message, new
        self.var.replace_message(old, new)
        return _delta(before, self.var.marginal)
