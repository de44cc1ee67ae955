"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013), exactly as the paper states it.

A rating period collects several games; :meth:`Glicko2.rate_period` rates one player over one
period (steps 2-8 of the paper, volatility by the Illinois algorithm of step 5). A period without
games only widens the deviation: ``phi' = sqrt(phi**2 + sigma**2)`` (:meth:`Glicko2.idle`).

:meth:`Glicko2.rate` treats one game as one rating period: every player is rated against every
other player of the game at once (score 1 / 0.5 / 0 from the ranks; unranked players finish below
ranked ones). Glicko-2 has no notion of teams: a team of more than one player is refused.

Note on a common bug: the volatility function is
``f(x) = e^x (D^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2``; some
implementations (e.g. the ``glicko2`` PyPI package) write ``mu^2`` where ``phi^2`` belongs, which
only goes unnoticed for players rated exactly 1500 (``mu = 0``).

>>> g = Glicko2(tau=0.5)
>>> p = g.rating(1500, 200, 0.06)
>>> games = [(g.rating(1400, 30), 1), (g.rating(1550, 100), 0), (g.rating(1700, 300), 0)]
>>> new = g.rate_period(p, games)
>>> round(new.rating, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mindsport.errors import MindsportError
from mindsport.match import pair_outcome
from mindsport.rating.elo import (
    ShapeError,
    check_ranks,
    join_teams,
    split_single_players,
    split_teams,
)

__all__ = ["SCALE", "Glicko2", "Glicko2Rating"]

#: Glicko-2 scale factor between the Glicko scale (1500 +- RD) and the internal (mu, phi).
SCALE = 173.7178


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    """A Glicko-2 rating on the Glicko scale: ``rating`` (1500 average), ``rd``, ``volatility``."""

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06

    @property
    def mu(self) -> float:
        """Internal Glicko-2 scale mean."""
        return (self.rating - 1500.0) / SCALE

    @property
    def phi(self) -> float:
        """Internal Glicko-2 scale deviation."""
        return self.rd / SCALE


def _logistic(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


@dataclass(frozen=True)
class Glicko2:
    """Glicko-2 settings: system constant ``tau``, new-player defaults, convergence ``epsilon``.

    ``max_rd``: if set, deviations never grow above it (a common practical cap; the paper has
    none, so the default is ``None``).

    ``period``: the length of a rating period in the time units of ``rate(..., elapsed=...)``.
    When set, a player away for ``elapsed`` first goes through ``elapsed / period`` idle periods
    (RD grows, :meth:`idle`) before the game is rated; ``None`` (default) ignores ``elapsed``.
    """

    tau: float = 0.5
    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    epsilon: float = 1e-6
    max_rd: float | None = None
    period: float | None = None

    def __post_init__(self) -> None:
        if self.period is not None and not self.period > 0:
            raise MindsportError(f"Glicko2: period must be positive or None, got {self.period!r}")
        for name in ("tau", "initial_rd", "initial_volatility", "epsilon"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0:
                raise MindsportError(f"Glicko2: {name} must be a positive number, got {v!r}")
        if self.max_rd is not None and not self.max_rd > 0:
            raise MindsportError(f"Glicko2: max_rd must be positive or None, got {self.max_rd!r}")

    def rating(
        self,
        rating: float | None = None,
        rd: float | None = None,
        volatility: float | None = None,
    ) -> Glicko2Rating:
        """A rating value (defaults: the model's new-player values)."""
        r = Glicko2Rating(
            float(self.initial_rating if rating is None else rating),
            float(self.initial_rd if rd is None else rd),
            float(self.initial_volatility if volatility is None else volatility),
        )
        if not (math.isfinite(r.rating) and r.rd > 0 and r.volatility > 0):
            raise MindsportError(f"Glicko2: invalid rating {r!r} (rd and volatility must be > 0)")
        return r

    def _cap(self, phi: float) -> float:
        if self.max_rd is not None:
            return min(phi, self.max_rd / SCALE)
        return phi

    def idle(self, player: Glicko2Rating, periods: float = 1) -> Glicko2Rating:
        """The rating after ``periods`` rating periods without games (RD grows)."""
        if periods < 0:
            raise MindsportError(f"Glicko2: idle periods must be >= 0, got {periods!r}")
        phi = self._cap(math.sqrt(player.phi**2 + periods * player.volatility**2))
        return Glicko2Rating(player.rating, phi * SCALE, player.volatility)

    def _volatility(self, phi: float, sigma: float, v: float, delta: float) -> float:
        """Step 5: the new volatility by the Illinois (regula falsi) algorithm."""
        a = math.log(sigma * sigma)
        tau2 = self.tau * self.tau
        phi2 = phi * phi

        d2 = delta * delta

        def f(x: float) -> float:
            # e^x (D^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2, written as
            # a product of two bounded ratios so that nothing overflows for large x
            if x > 700.0:
                first = -0.5
            else:
                ex = math.exp(x)
                s = phi2 + v + ex
                first = 0.5 * (ex / s) * ((d2 - phi2 - v - ex) / s)
            return first - (x - a) / tau2

        big_a = a
        if d2 > phi2 + v:
            big_b = math.log(d2 - phi2 - v)
        else:
            k = 1
            while f(a - k * self.tau) < 0:
                k += 1
            big_b = a - k * self.tau
        fa, fb = f(big_a), f(big_b)
        while abs(big_b - big_a) > self.epsilon:
            c = big_a + (big_a - big_b) * fa / (fb - fa)
            fc = f(c)
            if fc * fb <= 0:
                big_a, fa = big_b, fb
            else:
                fa /= 2.0
            big_b, fb = c, fc
        return math.exp(big_a / 2.0)

    def rate_period(
        self, player: Glicko2Rating, results: Iterable[tuple[Glicko2Rating, float]]
    ) -> Glicko2Rating:
        """The player's rating after one rating period of games ``(opponent, score)``.

        Scores are 1 (win), 0.5 (draw) or 0 (loss); opponents are their ratings at the start of
        the period. No games: only the deviation grows.
        """
        if not isinstance(player, Glicko2Rating):
            raise ShapeError(f"Glicko2: player must be a Glicko2Rating, got {player!r}")
        games = list(results)
        if not games:
            return self.idle(player)
        mu, phi, sigma = player.mu, player.phi, player.volatility
        inv_v = 0.0
        total = 0.0
        for item in games:
            try:
                opp, score = item
            except (TypeError, ValueError):
                raise ShapeError(
                    f"Glicko2: a result is a pair (opponent, score), got {item!r}"
                ) from None
            if not isinstance(opp, Glicko2Rating):
                raise ShapeError(f"Glicko2: opponent must be a Glicko2Rating, got {opp!r}")
            if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
                raise ShapeError(f"Glicko2: score must lie in [0, 1], got {score!r}")
            g = _g(opp.phi)
            e = _logistic(g * (mu - opp.mu))
            inv_v += g * g * e * (1.0 - e)
            total += g * (score - e)
        if inv_v < 1e-100:
            # every expected score is exactly 0 or 1 in floating point (ratings thousands of
            # points apart): the games carry no information, the period counts as idle
            return self.idle(player)
        v = 1.0 / inv_v
        delta = v * total
        new_sigma = self._volatility(phi, sigma, v, delta)
        phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
        new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        new_mu = mu + new_phi * new_phi * total
        new_phi = self._cap(new_phi)
        return Glicko2Rating(1500.0 + SCALE * new_mu, SCALE * new_phi, new_sigma)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
        elapsed: Sequence[Any] | None = None,
    ) -> list[Any]:
        """One game as one rating period for every player (teams of one player only).

        ``weights`` (partial play) are not part of Glicko-2 and are refused unless all are 1.
        ``elapsed``: time since each player's previous game, in the shape of ``teams``; used only
        when ``period`` is set (idle periods before this one).
        """
        values, keys = split_single_players(teams, Glicko2Rating, "Glicko2", weights)
        rk = check_ranks(ranks, len(values), "Glicko2")
        players = [t[0] for t in values]
        if elapsed is not None and self.period is not None:
            if isinstance(elapsed, str | bytes) or len(elapsed) != len(players):
                raise ShapeError(f"Glicko2: elapsed needs one entry per team, got {elapsed!r}")
            for i, e in enumerate(elapsed):
                vals = list(e.values()) if isinstance(e, dict) else list(e)
                if len(vals) != 1:
                    raise ShapeError(f"Glicko2: elapsed[{i}] must hold one value, got {e!r}")
                x = vals[0]
                if isinstance(x, bool) or not isinstance(x, int | float) or not x >= 0:
                    raise ShapeError(f"Glicko2: elapsed[{i}] must be a number >= 0, got {x!r}")
                if x > 0:
                    players[i] = self.idle(players[i], x / self.period)
        out = []
        for i, p in enumerate(players):
            res = []
            for j, q in enumerate(players):
                if i != j:
                    s = pair_outcome(rk[i], rk[j])
                    if s is not None:
                        res.append((q, s))
            out.append([self.rate_period(p, res)])
        return join_teams(out, keys)

    def rate_1vs1(
        self, a: Glicko2Rating, b: Glicko2Rating, drawn: bool = False
    ) -> tuple[Glicko2Rating, Glicko2Rating]:
        """``a`` beat ``b`` (or drew) in a one-game rating period."""
        s = 0.5 if drawn else 1.0
        return self.rate_period(a, [(b, s)]), self.rate_period(b, [(a, 1.0 - s)])

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Expected score of A against B, ``1/(1+exp(-g(sqrt(phi_A^2+phi_B^2)) (mu_A-mu_B)))``.

        (Glickman's E uses only the opponent's deviation; for a symmetric prediction both
        deviations are combined, as in Glicko-1's match prediction.)
        """
        values, _ = split_teams([team_a, team_b], Glicko2Rating, "Glicko2")
        if len(values[0]) != 1 or len(values[1]) != 1:
            raise ShapeError("Glicko2 rates individual players only: teams must have one player")
        a, b = values[0][0], values[1][0]
        g = _g(math.hypot(a.phi, b.phi))
        return _logistic(g * (a.mu - b.mu))

    def expose(self, rating: Glicko2Rating) -> float:
        """Conservative leaderboard value ``rating - 2 RD``."""
        return rating.rating - 2.0 * rating.rd
