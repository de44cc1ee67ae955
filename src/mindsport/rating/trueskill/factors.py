r"""The TrueSkill factor graph: variables, one small class per factor, messages down and up.

The graph of one game (TrueSkill patent, Fig. 7), drawn for three teams of 1, 2 and 1 players::

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
(TrueSkill patent, claim 12, Fig. 19) every unranked team hangs off the lowest ranked team through
its own difference and a win truncation, so unranked teams are below every ranked team and
unordered among themselves. The graph stays a tree.

Each factor keeps the message it last sent to each of its variables; a variable keeps its
marginal (the product of all incoming messages). ``down()`` sends towards the truncations,
``up()`` back towards the skills. The truncation's ``up()`` returns how much the difference
marginal moved (in mean and standard deviation), which the schedule uses to decide convergence.

:func:`run_graph` wires the factors of one game as drawn and runs the patent's schedule (the
chain of differences forward then backward until the truncation messages settle): the readable
form of the compiled update (:mod:`mindsport.rating.trueskill.trueskill_kernel`), behind
:meth:`TrueSkill.factor_graph <mindsport.rating.trueskill.model.TrueSkill.factor_graph>`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from mindsport.rating.formulas import drifted_sigma
from mindsport.rating.gaussian import Gaussian
from mindsport.rating.rating import Rating
from mindsport.rating.trueskill.game import ConvergenceError, Game
from mindsport.rating.truncation import truncated

__all__ = [
    "GraphSettings",
    "LikelihoodFactor",
    "PriorFactor",
    "SumFactor",
    "TruncateFactor",
    "Variable",
    "run_graph",
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


class GraphSettings(Protocol):
    """The settings :func:`run_graph` reads (those of
    :class:`~mindsport.rating.trueskill.model.TrueSkill`)."""

    @property
    def sigma(self) -> float: ...
    @property
    def beta(self) -> float: ...
    @property
    def tau(self) -> float: ...
    @property
    def drift(self) -> float: ...
    @property
    def sigma_floor(self) -> float | None: ...
    @property
    def tolerance(self) -> float: ...
    @property
    def max_iterations(self) -> int: ...


def run_graph(
    game: Game, links: Sequence[tuple[int, int, float, bool]], settings: GraphSettings
) -> list[list[Rating]]:
    """Every player's new rating, team by team, from the factor graph of ``game`` run with the
    patent's schedule: ``links`` are the difference factors ``(left team, right team, draw
    margin, tied)``; a player of weight 0 keeps his rating. Raises
    :class:`~mindsport.rating.trueskill.game.ConvergenceError` when the truncation messages do
    not settle within ``settings.max_iterations`` sweeps."""
    tau2 = settings.tau**2
    beta2 = settings.beta**2
    skills: list[list[Variable | None]] = []
    priors: list[PriorFactor] = []
    likelihoods: list[LikelihoodFactor] = []
    team_sums: dict[int, SumFactor] = {}
    team_vars: dict[int, Variable] = {}
    elapsed = game.elapsed or [[0.0] * len(rs) for rs in game.ratings]
    for t, (rs, ws, el) in enumerate(zip(game.ratings, game.weight_rows(), elapsed, strict=True)):
        row: list[Variable | None] = []
        perfs: list[Variable] = []
        coeffs: list[float] = []
        for r, w, x in zip(rs, ws, el, strict=True):
            if w == 0:  # absent: not in the graph, rating returned as it was
                row.append(None)
                continue
            s, p = Variable(), Variable()
            sigma = drifted_sigma(r.sigma, x, settings.drift, settings.sigma)
            priors.append(PriorFactor(s, r.mu, math.sqrt(sigma * sigma + tau2)))
            likelihoods.append(LikelihoodFactor(s, p, beta2))
            perfs.append(p)
            coeffs.append(w)
            row.append(s)
        skills.append(row)
        team_vars[t] = Variable()
        team_sums[t] = SumFactor(team_vars[t], perfs, coeffs)

    for f in priors:
        f.down()
    for lf in likelihoods:
        lf.down()
    for sf in team_sums.values():
        sf.down()

    diffs: list[SumFactor] = []
    truncs: list[TruncateFactor] = []
    for left, right, margin, tied in links:
        d = Variable()
        diffs.append(SumFactor(d, [team_vars[left], team_vars[right]], [1.0, -1.0]))
        truncs.append(TruncateFactor(d, tied, margin))

    # chain: a forward sweep sends each difference's evidence to its right team, a backward
    # sweep to its left team, until the truncation messages settle
    m = len(diffs)
    for _ in range(settings.max_iterations):
        delta = 0.0
        for i in range(m):
            diffs[i].down()
            delta = max(delta, truncs[i].up())
            diffs[i].up(1)
        for i in range(m - 1, -1, -1):
            diffs[i].down()
            delta = max(delta, truncs[i].up())
            diffs[i].up(0)
        if delta <= settings.tolerance:
            break
    else:
        raise ConvergenceError(
            f"message passing did not converge within {settings.max_iterations} sweeps "
            f"(last change {delta:.3g})"
        )
    for diff in diffs:
        diff.up(1)
    for sf in team_sums.values():
        for j in range(len(sf.terms)):
            sf.up(j)
    for lf in likelihoods:
        lf.up()

    floor = settings.sigma_floor
    result: list[list[Rating]] = []
    for rs, row in zip(game.ratings, skills, strict=True):
        new_row = []
        for r, skill in zip(rs, row, strict=True):
            if skill is None:
                new_row.append(r)
                continue
            g = skill.marginal
            sigma = g.sigma
            if floor is not None and sigma < floor:
                sigma = floor
            new_row.append(Rating(g.mu, sigma))
        result.append(new_row)
    return result
