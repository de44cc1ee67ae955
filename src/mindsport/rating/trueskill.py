"""TrueSkill: Bayesian skill rating by message passing on a factor graph (seed 000).

The environment :class:`TrueSkill` holds the settings and nothing else; ratings are values.
``rate`` builds the factor graph of one game (see :mod:`mindsport.rating.factors` for the drawing),
runs the patent's schedule and returns new ratings in the shape of its input:

1. *pre-processing*: priors down to skills, performances and team performances;
2. *chain*: over the team differences, forward then backward, repeated until no truncation
   message moves the difference marginals by more than ``tolerance`` (there is no iteration cap
   that stops short of convergence; a safety limit raises :class:`ConvergenceError`);
3. *post-processing*: back up from team performances to the skills.

Beyond the reference implementation: partial rankings (``None`` ranks), partial play with weight 0
meaning "no update at all", skill drift with elapsed time and a floor on sigma, finite answers for
extreme upsets, and exact place probabilities.

>>> env = TrueSkill()
>>> alice, bob = env.rating(), env.rating()
>>> alice, bob = env.rate_1vs1(alice, bob)
>>> alice
Rating(mu=29.396, sigma=7.171)
>>> bob
Rating(mu=20.604, sigma=7.171)
>>> round(env.quality([(alice,), (bob,)]), 3)
0.379
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.rating.factors import (
    LikelihoodFactor,
    PriorFactor,
    SumFactor,
    TruncateFactor,
    Variable,
)
from mindsport.rating.gaussian import norm_cdf, norm_ppf
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.truncation import v_draw, v_win, w_draw, w_win

__all__ = ["ConvergenceError", "InvalidGameError", "TrueSkill", "draw_margin"]

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = SIGMA / 100
DRAW_PROBABILITY = 0.10


class InvalidGameError(MindsportError):
    """The teams, ranks, weights or elapsed times given to ``rate`` do not describe a game."""


class ConvergenceError(MindsportError):
    """Message passing did not settle within the safety limit (never seen in practice)."""


def draw_margin(draw_probability: float, n_players: int, beta: float) -> float:
    """Draw margin ``e`` such that two equal teams of ``n_players`` in all draw that often.

    The performance difference of two equal teams is ``N(0, n_players * beta^2)``, so
    ``P(|d| <= e) = draw_probability`` gives ``e = Phi^-1((p + 1) / 2) * sqrt(n) * beta``.
    """
    return norm_ppf((draw_probability + 1.0) / 2.0) * math.sqrt(n_players) * beta


def _is_number(x: object) -> bool:
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


@dataclass(frozen=True, slots=True)
class _Game:
    """A validated game: flattened players, their team, weights and prior widening."""

    keys: list[list[Hashable] | None]  # per team: dict keys, or None for tuple teams
    ratings: list[list[Rating]]
    weights: list[list[float]]
    extra_var: list[list[float]]  # drift variance from elapsed time, per player

    def present(self, team: int) -> int:
        """Players of a team who took part (weight > 0); they set the draw margin."""
        return sum(1 for w in self.weights[team] if w > 0)


@dataclass(frozen=True)
class TrueSkill:
    """TrueSkill settings. Immutable: ``rate`` never changes them (nor its inputs).

    Parameters
    ----------
    mu, sigma:
        Prior belief about a new player's skill.
    beta:
        Performance noise: a skill difference of ``beta`` means about a 76% chance to win.
    tau:
        Dynamics added to sigma (in quadrature) before every game.
    draw_probability:
        How often two equal players draw; sets the draw margin.
    drift:
        Extra skill drift per unit of elapsed time for players who were away: before a game, a
        player's variance grows by ``drift**2 * elapsed`` (a random walk), never beyond ``sigma``.
        Pass the elapsed times to :meth:`rate` (or use :meth:`decay`). Default 0 (off).
    sigma_floor:
        Lower bound on the posterior sigma (keeps ratings responsive). Default ``None`` (off).
    tolerance:
        The chain is repeated until no difference marginal moves by more than this.
    """

    mu: float = MU
    sigma: float = SIGMA
    beta: float = BETA
    tau: float = TAU
    draw_probability: float = DRAW_PROBABILITY
    drift: float = 0.0
    sigma_floor: float | None = None
    tolerance: float = 1e-6
    max_iterations: int = field(default=10_000, repr=False)

    def __post_init__(self) -> None:
        def check(name: str, ok: bool, what: str) -> None:
            if not ok:
                raise InvalidRatingError(
                    f"TrueSkill {name} must be {what}, got {getattr(self, name)!r}"
                )

        check("mu", _is_number(self.mu), "a finite number")
        check("sigma", _is_number(self.sigma) and self.sigma > 0, "a finite number > 0")
        check("beta", _is_number(self.beta) and self.beta > 0, "a finite number > 0")
        check("tau", _is_number(self.tau) and self.tau >= 0, "a finite number >= 0")
        check(
            "draw_probability",
            _is_number(self.draw_probability) and 0 <= self.draw_probability < 1,
            "in [0, 1)",
        )
        check("drift", _is_number(self.drift) and self.drift >= 0, "a finite number >= 0")
        check(
            "sigma_floor",
            self.sigma_floor is None or (_is_number(self.sigma_floor) and self.sigma_floor > 0),
            "None or a finite number > 0",
        )
        check("tolerance", _is_number(self.tolerance) and self.tolerance > 0, "a number > 0")

    # ------------------------------------------------------------------ ratings and display

    def rating(self, mu: float | None = None, sigma: float | None = None) -> Rating:
        """A new player's rating, or one with the given ``mu``/``sigma``."""
        return Rating(self.mu if mu is None else mu, self.sigma if sigma is None else sigma)

    @staticmethod
    def expose(rating: Rating) -> float:
        """Conservative skill ``mu - 3 sigma`` for leaderboards (about 99% sure to be below)."""
        return rating.mu - 3.0 * rating.sigma

    def level(self, rating: Rating, levels: int = 50) -> int:
        """Map a rating to a level ``0..levels`` as the patent describes.

        Nearly all skills lie within three initial sigmas of the initial mean, so the conservative
        skill ``mu - 3 sigma`` is mapped linearly from ``[mu0 - 3 sigma0, mu0 + 3 sigma0]`` onto
        ``[0, levels]`` and clamped (with the defaults, level = round(expose) within 0..50).

        >>> env = TrueSkill()
        >>> env.level(env.rating()), env.level(Rating(40.0, 1.0)), env.level(Rating(90.0, 1.0))
        (0, 37, 50)
        """
        low = self.mu - 3.0 * self.sigma
        span = 6.0 * self.sigma
        x = (self.expose(rating) - low) / span * levels
        return int(min(max(round(x), 0), levels))

    def decay(self, rating: Rating, elapsed: float) -> Rating:
        """The rating after ``elapsed`` time units away: variance grows by ``drift**2 * elapsed``.

        Sigma never grows beyond the new-player ``sigma`` through drift.
        """
        if not _is_number(elapsed) or elapsed < 0:
            raise InvalidGameError(f"elapsed must be a finite number >= 0, got {elapsed!r}")
        if self.drift == 0 or elapsed == 0 or rating.sigma >= self.sigma:
            return rating
        grown = math.sqrt(rating.sigma**2 + self.drift**2 * elapsed)
        return Rating(rating.mu, min(grown, self.sigma))

    # ------------------------------------------------------------------ validation

    def _validate(
        self,
        teams: Sequence[Any],
        weights: Sequence[Any] | None,
        elapsed: Sequence[Any] | None,
    ) -> _Game:
        if type(teams) is not list and (
            isinstance(teams, str | bytes | Mapping) or not isinstance(teams, Sequence)
        ):
            raise InvalidGameError(f"teams must be a list of teams, got {teams!r}")
        if len(teams) < 2:
            raise InvalidGameError(f"teams: a game needs at least two teams, got {len(teams)}")
        keys: list[list[Hashable] | None] = []
        ratings: list[list[Rating]] = []
        for i, team in enumerate(teams):
            k: list[Hashable] | None
            if type(team) is tuple or type(team) is list:
                k = None
                members = list(team)
            elif isinstance(team, Mapping):
                k = list(team.keys())
                members = list(team.values())
            elif isinstance(team, Sequence) and not isinstance(team, str | bytes):
                k = None
                members = list(team)
            else:
                raise InvalidGameError(
                    f"teams[{i}] must be a tuple of ratings or a dict of ratings, got {team!r}"
                )
            if not members:
                raise InvalidGameError(f"teams[{i}] is empty")
            rs = []
            for j, r in enumerate(members):
                if isinstance(r, Rating):
                    rs.append(r)
                elif hasattr(r, "mu") and hasattr(r, "sigma"):
                    try:
                        rs.append(Rating(r.mu, r.sigma))
                    except InvalidRatingError as exc:
                        raise InvalidGameError(f"teams[{i}][{j}]: {exc}") from None
                else:
                    raise InvalidGameError(f"teams[{i}][{j}] is not a Rating: {r!r}")
            keys.append(k)
            ratings.append(rs)

        def per_player(name: str, given: Sequence[Any] | None, default: float) -> list[list[float]]:
            if given is None:
                return [[default] * len(rs) for rs in ratings]
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

        w = per_player("weights", weights, 1.0)
        if weights is not None:
            for i, ws in enumerate(w):
                for j, x in enumerate(ws):
                    if not _is_number(x) or not 0 <= x <= 1:
                        raise InvalidGameError(f"weights[{i}][{j}] must be in [0, 1], got {x!r}")
                if all(x == 0 for x in ws):
                    raise InvalidGameError(f"weights[{i}]: every player of team {i} has weight 0")
            w = [[float(x) for x in ws] for ws in w]
        if elapsed is None:
            return _Game(keys, ratings, w, [[0.0] * len(rs) for rs in ratings])
        e = per_player("elapsed", elapsed, 0.0)
        extra: list[list[float]] = []
        for i, (es, rs) in enumerate(zip(e, ratings, strict=True)):
            row = []
            for j, (x, r) in enumerate(zip(es, rs, strict=True)):
                if not _is_number(x) or x < 0:
                    raise InvalidGameError(f"elapsed[{i}][{j}] must be a number >= 0, got {x!r}")
                row.append(self.decay(r, x).sigma ** 2 - r.sigma**2 if x else 0.0)
            extra.append(row)
        return _Game(keys, ratings, w, extra)

    def _order(self, ranks: Sequence[Any] | None, n: int) -> tuple[list[int], int, list[Any]]:
        """Team indices sorted by rank (stable), unranked last; and how many are ranked."""
        if ranks is None:
            return list(range(n)), n, list(range(n))
        if isinstance(ranks, str | bytes) or len(ranks) != n:
            raise InvalidGameError(f"ranks must have one entry per team ({n}), got {ranks!r}")
        for i, r in enumerate(ranks):
            if r is not None and not _is_number(r):
                raise InvalidGameError(f"ranks[{i}] must be a number or None, got {r!r}")
        ranked = [i for i in range(n) if ranks[i] is not None]
        if not ranked:
            raise InvalidGameError("ranks: at least one team must be ranked")
        ranked.sort(key=lambda i: ranks[i])
        if self.draw_probability == 0:
            for x, y in itertools.pairwise(ranked):
                if ranks[x] == ranks[y]:
                    raise InvalidGameError(
                        f"ranks: teams {x} and {y} tie, but draw_probability is 0 so a tie "
                        "is impossible under this model"
                    )
        unranked = [i for i in range(n) if ranks[i] is None]
        return ranked + unranked, len(ranked), list(ranks)

    # ------------------------------------------------------------------ rating a game

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | float | None] | None = None,
        weights: Sequence[Any] | None = None,
        elapsed: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game, in the shape of ``teams``.

        ``teams``: each a tuple of :class:`Rating` or a dict ``{player: Rating}``. ``ranks``: lower
        is better, equal ranks tie, ``None`` marks an unranked team (finished below every ranked
        team, order unknown); default: input order. ``weights``: partial-play fractions in [0, 1]
        in the shape of ``teams`` (weight 0: that player's rating is returned unchanged).
        ``elapsed``: time since each player's last game, in the shape of ``teams``, for
        ``drift``.

        >>> env = TrueSkill(draw_probability=0.0)
        >>> a, b, c = env.rating(), env.rating(), env.rating()
        >>> [(a2,), (b2,), (c2,)] = env.rate([(a,), (b,), (c,)], ranks=[0, None, None])
        >>> round(a2.mu, 3), round(b2.mu, 3), round(c2.mu, 3)
        (31.303, 21.848, 21.848)
        """
        game = self._validate(teams, weights, elapsed)
        order, n_ranked, rank_list = self._order(ranks, len(game.ratings))
        if len(order) == 2:
            new = self._run_two(game, order, rank_list)
        else:
            new = self._run_chain(game, order, n_ranked, rank_list)
        return self._shape(game, new)

    def rate_1vs1(self, a: Rating, b: Rating, drawn: bool = False) -> tuple[Rating, Rating]:
        """Ratings of ``a`` (the winner unless ``drawn``) and ``b`` after one game."""
        (a2,), (b2,) = self.rate([(a,), (b,)], ranks=[0, 0] if drawn else [0, 1])
        return a2, b2

    def _run_two(self, game: _Game, order: list[int], ranks: list[Any]) -> list[list[Rating]]:
        """Two teams: the graph has a single truncation, so one pass is exact (closed form).

        Identical to :meth:`_run_graph` on the same game (tested); this is the graph's message
        passing written out: the team difference ``d = sum w_i p_i - sum w_j p_j`` has
        variance ``c^2``, its truncation gives ``v`` and ``w``, and each skill moves by its
        covariance with ``d``.
        """
        left, right = order
        tau2, beta2 = self.tau**2, self.beta**2
        prior_var = [
            [r.sigma**2 + x + tau2 for r, x in zip(rs, ev, strict=True)]
            for rs, ev in zip(game.ratings, game.extra_var, strict=True)
        ]
        mean = [0.0, 0.0]
        c2 = 0.0
        for side, t in enumerate((left, right)):
            for r, w, pv in zip(game.ratings[t], game.weights[t], prior_var[t], strict=True):
                mean[side] += w * r.mu
                c2 += w * w * (pv + beta2)
        c = math.sqrt(c2)
        size = game.present(left) + game.present(right)
        e = draw_margin(self.draw_probability, size, self.beta) / c
        x = (mean[0] - mean[1]) / c
        tied = ranks[right] is not None and ranks[left] == ranks[right]
        v, w_ = (v_draw(x, e), w_draw(x, e)) if tied else (v_win(x, e), w_win(x, e))
        floor = self.sigma_floor
        result: list[list[Rating]] = [[] for _ in game.ratings]
        for sign, t in ((1.0, left), (-1.0, right)):
            for r, w, pv in zip(game.ratings[t], game.weights[t], prior_var[t], strict=True):
                if w == 0:
                    result[t].append(r)
                    continue
                mu = r.mu + sign * w * pv / c * v
                sigma = math.sqrt(pv * (1.0 - w * w * pv / c2 * w_))
                if floor is not None and sigma < floor:
                    sigma = floor
                result[t].append(Rating(mu, sigma))
        return result

    def _links(
        self, game: _Game, order: list[int], n_ranked: int, ranks: list[Any]
    ) -> list[tuple[int, int, float, bool]]:
        """The difference factors: ``(left team, right team, draw margin, tied)``.

        Adjacent ranked teams are linked in rank order (seed 000, Fig. 7); each unranked team is
        linked to the lowest ranked team (Fig. 19), which it lost to.
        """
        pairs = [(order[i], order[i + 1]) for i in range(n_ranked - 1)]
        pairs += [(order[n_ranked - 1], u) for u in order[n_ranked:]]
        links = []
        for left, right in pairs:
            size = game.present(left) + game.present(right)
            margin = draw_margin(self.draw_probability, size, self.beta)
            tied = ranks[right] is not None and ranks[left] == ranks[right]
            links.append((left, right, margin, tied))
        return links

    def _run_chain(
        self, game: _Game, order: list[int], n_ranked: int, ranks: list[Any]
    ) -> list[list[Rating]]:
        """The factor graph's schedule with every message held in local floats.

        Same messages, same order and same stopping rule as :meth:`_run_graph` (tested equal);
        the per-player layers are collapsed into each team's performance prior on the way down
        and expanded again on the way up, so only the chain over team differences iterates.
        Messages are natural parameters ``(pi, tau)``.
        """
        tau2, beta2 = self.tau**2, self.beta**2
        n = len(game.ratings)
        # pre-processing: team performance priors (sum of weighted performances)
        prior_var = [
            [r.sigma**2 + x + tau2 for r, x in zip(rs, ev, strict=True)]
            for rs, ev in zip(game.ratings, game.extra_var, strict=True)
        ]
        t_pi = [0.0] * n
        t_tau = [0.0] * n
        for t in range(n):
            mean = var = 0.0
            for r, w, pv in zip(game.ratings[t], game.weights[t], prior_var[t], strict=True):
                mean += w * r.mu
                var += w * w * (pv + beta2)
            t_pi[t] = 1.0 / var
            t_tau[t] = mean / var
        links = self._links(game, order, n_ranked, ranks)
        m = len(links)
        # marginals of the team performances, and per link: messages to left/right team,
        # down to the difference, and from the truncation
        mar_pi, mar_tau = t_pi[:], t_tau[:]
        to_l = [[0.0, 0.0] for _ in range(m)]
        to_r = [[0.0, 0.0] for _ in range(m)]
        down = [[0.0, 0.0] for _ in range(m)]
        trunc = [[0.0, 0.0] for _ in range(m)]
        funcs = [(v_draw, w_draw) if tied else (v_win, w_win) for _, _, _, tied in links]

        def diff_down(i: int) -> None:
            left, right = links[i][0], links[i][1]
            lp, lt = mar_pi[left] - to_l[i][0], mar_tau[left] - to_l[i][1]
            rp, rt = mar_pi[right] - to_r[i][0], mar_tau[right] - to_r[i][1]
            var = 1.0 / lp + 1.0 / rp
            down[i][0] = 1.0 / var
            down[i][1] = (lt / lp - rt / rp) / var

        def trunc_up(i: int) -> float:
            cav_pi, cav_tau = down[i]  # the difference's marginal without the truncation
            old_pi, old_tau = cav_pi + trunc[i][0], cav_tau + trunc[i][1]
            sqrt_pi = math.sqrt(cav_pi)
            v_f, w_f = funcs[i]
            x, e = cav_tau / sqrt_pi, links[i][2] * sqrt_pi
            v, w = v_f(x, e), w_f(x, e)
            new_pi = cav_pi / (1.0 - w)
            new_tau = (cav_tau + sqrt_pi * v) / (1.0 - w)
            trunc[i][0], trunc[i][1] = new_pi - cav_pi, new_tau - cav_tau
            if old_pi <= 0:
                return math.inf
            return max(
                abs(new_tau / new_pi - old_tau / old_pi),
                abs(math.sqrt(1.0 / new_pi) - math.sqrt(1.0 / old_pi)),
            )

        def diff_up(i: int, side: int) -> None:
            # right = left - d (side 1) or left = d + right (side 0); in natural parameters the
            # sum of two independent Gaussians with precisions a, b has precision ab/(a+b)
            left, right = links[i][0], links[i][1]
            tp, tt = trunc[i]  # the difference's marginal without the down message
            if side == 1:
                op, ot = mar_pi[left] - to_l[i][0], mar_tau[left] - to_l[i][1]
                msg, team, sign = to_r[i], right, -1.0
            else:
                op, ot = mar_pi[right] - to_r[i][0], mar_tau[right] - to_r[i][1]
                msg, team, sign = to_l[i], left, 1.0
            if tp > 0.0 and op > 0.0:
                new_pi = tp * op / (tp + op)
                new_tau = (tp * ot + sign * op * tt) / (tp + op)
            else:  # no information yet: the uniform message
                new_pi = new_tau = 0.0
            mar_pi[team] += new_pi - msg[0]
            mar_tau[team] += new_tau - msg[1]
            msg[0], msg[1] = new_pi, new_tau

        for sweep in range(self.max_iterations):
            delta = 0.0
            for i in range(m):
                # at each turn of the sweep (first link after the backward sweep, last link
                # after the forward one) nothing the link depends on has changed: skip the
                # recomputation, its messages stand
                if i > 0 or sweep == 0:
                    diff_down(i)
                    delta = max(delta, trunc_up(i))
                diff_up(i, 1)
            for i in range(m - 1, -1, -1):
                if i < m - 1:
                    diff_down(i)
                    delta = max(delta, trunc_up(i))
                diff_up(i, 0)
            if delta <= self.tolerance:
                break
        else:
            raise ConvergenceError(
                f"message passing did not converge within {self.max_iterations} sweeps "
                f"(last change {delta:.3g})"
            )
        for i in range(m):
            diff_up(i, 1)

        # post-processing: team message -> each performance -> each skill
        floor = self.sigma_floor
        result: list[list[Rating]] = []
        for t in range(n):
            g_pi, g_tau = mar_pi[t] - t_pi[t], mar_tau[t] - t_tau[t]  # evidence from the chain
            ws, pvs = game.weights[t], prior_var[t]
            if g_pi <= 0.0:  # the outcome says nothing about this team: priors stand
                result.append(
                    [
                        r if w == 0 else self._floored(r.mu, math.sqrt(pv))
                        for r, w, pv in zip(game.ratings[t], ws, pvs, strict=True)
                    ]
                )
                continue
            g_mu, g_var = g_tau / g_pi, 1.0 / g_pi
            total_mean = sum(w * r.mu for r, w in zip(game.ratings[t], ws, strict=True))
            total_var = sum(w * w * (pv + beta2) for w, pv in zip(ws, pvs, strict=True))
            row = []
            for r, w, pv in zip(game.ratings[t], ws, pvs, strict=True):
                if w == 0:
                    row.append(r)
                    continue
                # performance message: (team - sum of the others) / w
                p_mean = (g_mu - (total_mean - w * r.mu)) / w
                p_var = (g_var + total_var - w * w * (pv + beta2)) / (w * w)
                # through the performance noise to the skill
                s_var = p_var + beta2
                post_pi = 1.0 / pv + 1.0 / s_var
                post_tau = r.mu / pv + p_mean / s_var
                sigma = math.sqrt(1.0 / post_pi)
                if floor is not None and sigma < floor:
                    sigma = floor
                row.append(Rating(post_tau / post_pi, sigma))
            result.append(row)
        return result

    def _floored(self, mu: float, sigma: float) -> Rating:
        floor = self.sigma_floor
        return Rating(mu, sigma if floor is None or sigma >= floor else floor)

    def factor_graph(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | float | None] | None = None,
        weights: Sequence[Any] | None = None,
        elapsed: Sequence[Any] | None = None,
    ) -> list[Any]:
        """``rate`` computed on explicit factor and variable objects (slower, inspectable).

        This is the reference path: the factor classes of :mod:`mindsport.rating.factors` wired
        as in the module drawing and run with the patent's schedule. ``rate`` gives the same
        numbers through closed forms and local floats.
        """
        game = self._validate(teams, weights, elapsed)
        order, n_ranked, rank_list = self._order(ranks, len(game.ratings))
        new = self._run_graph(game, order, n_ranked, rank_list)
        return self._shape(game, new)

    @staticmethod
    def _shape(game: _Game, new: list[list[Rating]]) -> list[Any]:
        out: list[Any] = []
        for k, rs in zip(game.keys, new, strict=True):
            out.append(tuple(rs) if k is None else dict(zip(k, rs, strict=True)))
        return out

    def _run_graph(
        self, game: _Game, order: list[int], n_ranked: int, ranks: list[Any]
    ) -> list[list[Rating]]:
        tau2 = self.tau**2
        beta2 = self.beta**2
        skills: list[list[Variable | None]] = []
        priors: list[PriorFactor] = []
        likelihoods: list[LikelihoodFactor] = []
        team_sums: dict[int, SumFactor] = {}
        team_vars: dict[int, Variable] = {}
        for t, (rs, ws, ev) in enumerate(
            zip(game.ratings, game.weights, game.extra_var, strict=True)
        ):
            row: list[Variable | None] = []
            perfs: list[Variable] = []
            coeffs: list[float] = []
            for r, w, extra in zip(rs, ws, ev, strict=True):
                if w == 0:  # absent: not in the graph, rating returned as it was
                    row.append(None)
                    continue
                s, p = Variable(), Variable()
                priors.append(PriorFactor(s, r.mu, math.sqrt(r.sigma**2 + extra + tau2)))
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
        for left, right, margin, tied in self._links(game, order, n_ranked, ranks):
            d = Variable()
            diffs.append(SumFactor(d, [team_vars[left], team_vars[right]], [1.0, -1.0]))
            if tied:
                truncs.append(TruncateFactor(d, v_draw, w_draw, margin))
            else:
                truncs.append(TruncateFactor(d, v_win, w_win, margin))

        # chain: a forward sweep sends each difference's evidence to its right team, a backward
        # sweep to its left team, until the truncation messages settle
        m = len(diffs)
        for _ in range(self.max_iterations):
            delta = 0.0
            for i in range(m):
                diffs[i].down()
                delta = max(delta, truncs[i].up())
                diffs[i].up(1)
            for i in range(m - 1, -1, -1):
                diffs[i].down()
                delta = max(delta, truncs[i].up())
                diffs[i].up(0)
            if delta <= self.tolerance:
                break
        else:
            raise ConvergenceError(
                f"message passing did not converge within {self.max_iterations} sweeps "
                f"(last change {delta:.3g})"
            )
        for diff in diffs:
            diff.up(1)
        for sf in team_sums.values():
            for j in range(len(sf.terms)):
                sf.up(j)
        for lf in likelihoods:
            lf.up()

        floor = self.sigma_floor
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

    # ------------------------------------------------------------------ predictions

    def _team_perf(self, team: Any, weights: Sequence[float] | None = None) -> tuple[float, float]:
        """Mean and variance of a team's performance in the next game (tau included)."""
        game = self._validate([team, team], None if weights is None else [weights, weights], None)
        mu = var = 0.0
        for r, w in zip(game.ratings[0], game.weights[0], strict=True):
            mu += w * r.mu
            var += w * w * (r.sigma**2 + self.tau**2 + self.beta**2)
        return mu, var

    def outcome_probabilities(self, team_a: Any, team_b: Any) -> tuple[float, float, float]:
        """``(P(a ahead), P(draw), P(b ahead))`` for the next game between two teams.

        A draw is a performance difference within the draw margin for these team sizes.
        """
        mu_a, var_a = self._team_perf(team_a)
        mu_b, var_b = self._team_perf(team_b)
        size = len(team_a) + len(team_b)
        e = draw_margin(self.draw_probability, size, self.beta)
        c = math.sqrt(var_a + var_b)
        d = mu_a - mu_b
        win = norm_cdf((d - e) / c)
        loss = norm_cdf((-d - e) / c)
        return win, max(0.0, 1.0 - win - loss), loss

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Probability that ``team_a`` finishes ahead of ``team_b`` (a draw is not a win).

        >>> env = TrueSkill(draw_probability=0.0)
        >>> env.win_probability([env.rating()], [env.rating()])
        0.5
        """
        return self.outcome_probabilities(team_a, team_b)[0]

    def quality(self, teams: Sequence[Any], weights: Sequence[Any] | None = None) -> float:
        """Match quality: the draw probability relative to that of equal, certain teams.

        As in the reference implementation (Herbrich et al. 2007): with ``A`` the matrix of
        adjacent team differences, ``sqrt(det(b2 A'A) / det(b2 A'A + A'SA)) *
        exp(-mu'A (b2 A'A + A'SA)^-1 A'mu / 2)``. 1 is a perfectly balanced game.
        """
        game = self._validate(teams, weights, None)
        mus = np.array([r.mu for rs in game.ratings for r in rs])
        var = np.array([r.sigma**2 for rs in game.ratings for r in rs])
        ws = [w for ws in game.weights for w in ws]
        n_teams = len(game.ratings)
        a = np.zeros((len(mus), n_teams - 1))
        start = 0
        bounds = []
        for rs in game.ratings:
            bounds.append((start, start + len(rs)))
            start += len(rs)
        for k in range(n_teams - 1):
            s0, e0 = bounds[k]
            s1, e1 = bounds[k + 1]
            a[s0:e0, k] = ws[s0:e0]
            a[s1:e1, k] = [-x for x in ws[s1:e1]]
        ata = self.beta**2 * (a.T @ a)
        middle = ata + a.T @ (var[:, None] * a)
        e_arg = -0.5 * float(mus @ a @ np.linalg.solve(middle, a.T @ mus))
        s_arg = float(np.linalg.det(ata) / np.linalg.det(middle))
        return math.exp(e_arg) * math.sqrt(s_arg)

    def rank_probabilities(
        self, teams: Sequence[Any], weights: Sequence[Any] | None = None, points: int = 4001
    ) -> NDArray[np.float64]:
        """``P[i, k]``: probability that team ``i`` finishes in place ``k`` (0 = first).

        Team performances in the next game are independent Gaussians (tau and beta included);
        ``P[i, k]`` integrates, over team ``i``'s performance ``x``, the probability that exactly
        ``k`` other teams perform above ``x`` (a polynomial product), by quadrature on a fine grid.
        Draws are ignored (ties have probability zero among performances). Rows and columns sum
        to 1.
        """
        game = self._validate(teams, weights, None)
        mus_vars = []
        for rs, ws in zip(game.ratings, game.weights, strict=True):
            mu = sum(w * r.mu for r, w in zip(rs, ws, strict=True))
            var = sum(
                w * w * (r.sigma**2 + self.tau**2 + self.beta**2)
                for r, w in zip(rs, ws, strict=True)
            )
            mus_vars.append((mu, var))
        from scipy.special import ndtr

        mu_arr = np.array([m for m, _ in mus_vars])
        sd_arr = np.sqrt(np.array([v for _, v in mus_vars]))
        lo = float(np.min(mu_arr - 9 * sd_arr))
        hi = float(np.max(mu_arr + 9 * sd_arr))
        x = np.linspace(lo, hi, points)
        dx = x[1] - x[0]
        above = 1.0 - ndtr((x[None, :] - mu_arr[:, None]) / sd_arr[:, None])  # P(team j > x)
        n = len(mus_vars)
        out = np.zeros((n, n))
        for i in range(n):
            dens = np.exp(-0.5 * ((x - mu_arr[i]) / sd_arr[i]) ** 2) / (
                sd_arr[i] * math.sqrt(2 * math.pi)
            )
            poly = np.zeros((n, len(x)))  # poly[k] = P(exactly k of the others above x)
            poly[0] = 1.0
            for j in range(n):
                if j == i:
                    continue
                p = above[j]
                shifted = np.vstack([np.zeros((1, len(x))), poly[:-1]])
                poly = poly * (1.0 - p) + shifted * p
            # trapezoid rule on a grid wide enough that the ends carry no mass
            integrand = poly * dens[None, :]
            out[i] = (integrand.sum(axis=1) - 0.5 * (integrand[:, 0] + integrand[:, -1])) * dx
        return np.asarray(out / out.sum(axis=1, keepdims=True), dtype=np.float64)
