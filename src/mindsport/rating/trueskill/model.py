"""TrueSkill: Bayesian skill rating by message passing on a factor graph (TrueSkill patent).

The environment :class:`TrueSkill` holds the settings and nothing else; ratings are values.
``rate`` builds the factor graph of one game (see :mod:`mindsport.rating.trueskill.factors` for
the drawing), runs the patent's schedule and returns new ratings in the shape of its input:

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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mindsport.rating.formulas import drifted_sigma, margin_from_quantile, win_loss
from mindsport.rating.gaussian import norm_ppf
from mindsport.rating.params import (
    MAX_COUNT,
    MAX_LOCATION,
    MAX_SCALE,
    MIN_SCALE,
    Kind,
    Param,
    check_settings,
)
from mindsport.rating.rating import InvalidRatingError, Rating, trusted_rating
from mindsport.rating.replay.blocks import MatchBlock
from mindsport.rating.replay.replayers import ArrayReplayer, block_kernels, refusal
from mindsport.rating.trueskill.factors import run_graph
from mindsport.rating.trueskill.game import (
    ConvergenceError,
    Game,
    InvalidGameError,
    is_number,
    rank_order,
    validate_game,
)
from mindsport.rating.trueskill.predictions import place_probabilities, quality

__all__ = [
    "SETTINGS",
    "ConvergenceError",
    "InvalidGameError",
    "TrueSkill",
    "TrueSkillReplayer",
    "draw_margin",
]

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = SIGMA / 100
DRAW_PROBABILITY = 0.10


#: no virtual players, offsets or margin (see :func:`.trueskill_kernel.rate_game`)
_NO_AUX = np.zeros(0)

#: the settings as the compiled update and replay read them: one record, fields by name
SETTINGS = np.dtype(
    [
        ("z", np.float64),  # the normal quantile of the draw margin
        ("beta", np.float64),
        ("tau", np.float64),
        ("drift", np.float64),
        ("sigma0", np.float64),  # a new player's sigma, the bound of drift
        ("sigma_floor", np.float64),  # 0: none
        ("tolerance", np.float64),
        ("max_iterations", np.int64),
    ],
    align=True,
)


def draw_margin(draw_probability: float, n_players: int, beta: float) -> float:
    """Draw margin ``e`` such that two equal teams of ``n_players`` in all draw that often.

    The performance difference of two equal teams is ``N(0, n_players * beta^2)``, so
    ``P(|d| <= e) = draw_probability`` gives ``e = Phi^-1((p + 1) / 2) * sqrt(n) * beta``.
    """
    return margin_from_quantile(norm_ppf((draw_probability + 1.0) / 2.0), n_players, beta)


@functools.cache
def _kernels() -> Any:
    """The compiled update (numba is loaded on the first rating, not at import)."""
    from mindsport.rating.trueskill import trueskill_kernel

    return trueskill_kernel


@functools.cache
def _replay_kernels() -> Any:
    """The compiled replay (numba is loaded on the first replay, not at import)."""
    from mindsport.rating.trueskill import replay_kernel

    return replay_kernel


#: the largest draw probability: the draw margin is ``Phi^-1((p + 1) / 2)`` scales, which is
#: infinite once ``(p + 1) / 2`` rounds to 1 (``p`` within 1e-16 of 1); at 0.999 it is 3.3
MAX_DRAW_PROBABILITY = 0.999
#: the least convergence tolerance: a marginal's mean at the largest places (1e6) moves by
#: rounding alone by about 1e-10, so a smaller tolerance could never be met
MIN_TOLERANCE = 1e-12

#: the settings of :class:`TrueSkill` (checked when it is built; read by the model registry).
#: Places within MAX_LOCATION, scales (sigma, beta, the floor) in [MIN_SCALE, MAX_SCALE], so
#: that every variance of the factor graph is at least 1e-6 and at most a few 1e12 (never 0
#: or infinite; see :mod:`mindsport.rating.params`); tau and drift add variance, bounded alike.
PARAMS = (
    Param("mu", Kind.REAL, MU, "prior mean of a new player's skill", -MAX_LOCATION, MAX_LOCATION),
    Param(
        "sigma",
        Kind.REAL,
        SIGMA,
        "prior deviation of a new player's skill",
        MIN_SCALE,
        MAX_SCALE,
    ),
    Param(
        "beta",
        Kind.REAL,
        BETA,
        "performance noise (one beta: about 76% to win)",
        MIN_SCALE,
        MAX_SCALE,
    ),
    Param("tau", Kind.REAL, TAU, "dynamics added to sigma before every game", 0.0, MAX_SCALE),
    Param(
        "draw_probability",
        Kind.REAL,
        DRAW_PROBABILITY,
        "how often two equal players draw",
        0.0,
        MAX_DRAW_PROBABILITY,
    ),
    Param(
        "drift",
        Kind.REAL,
        0.0,
        "skill drift per unit of time away (variance drift^2 t)",
        0.0,
        MAX_SCALE,
    ),
    Param(
        "sigma_floor",
        Kind.REAL,
        None,
        "lower bound on sigma after a game (None: off)",
        MIN_SCALE,
        MAX_SCALE,
        optional=True,
    ),
    Param(
        "tolerance",
        Kind.REAL,
        1e-6,
        "convergence of the message passing",
        MIN_TOLERANCE,
        MAX_SCALE,
    ),
    Param(
        "max_iterations",
        Kind.INTEGER,
        10_000,
        "safety limit on the message passing",
        1.0,
        MAX_COUNT,
    ),
)


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

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

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
        check_settings(self, PARAMS, "TrueSkill", InvalidRatingError)

    @functools.cached_property
    def _settings(self) -> NDArray[np.void]:
        """The settings as the compiled update takes them (:data:`SETTINGS`, one record)."""
        floor = 0.0 if self.sigma_floor is None else self.sigma_floor
        return np.array(
            [
                (
                    self._quantile,
                    self.beta,
                    self.tau,
                    self.drift,
                    self.sigma,
                    floor,
                    self.tolerance,
                    self.max_iterations,
                )
            ],
            dtype=SETTINGS,
        )

    @functools.cached_property
    def _quantile(self) -> float:
        """The normal quantile of the draw margin (see :func:`draw_margin`)."""
        p = self.draw_probability
        return 0.0 if p == 0 else norm_ppf((p + 1.0) / 2.0)

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
        if not is_number(elapsed) or elapsed < 0:
            raise InvalidGameError(f"elapsed must be a finite number >= 0, got {elapsed!r}")
        sigma = drifted_sigma(rating.sigma, float(elapsed), float(self.drift), float(self.sigma))
        return rating if sigma == rating.sigma else Rating(rating.mu, sigma)

    def replayer(self) -> Any:
        """The compiled replay of long histories (see :mod:`mindsport.rating.replay.replayers`)."""
        return TrueSkillReplayer(self)

    # ------------------------------------------------------------------ validation

    def _order(self, ranks: Sequence[Any] | None, n: int) -> tuple[list[int], int, list[Any]]:
        """Team indices sorted by rank (stable), unranked last; how many are ranked; the ranks."""
        return rank_order(ranks, n, self.draw_probability)

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

        The update is the compiled one of :mod:`mindsport.rating.trueskill.trueskill_kernel` (the
        same the replay of long histories runs); :meth:`factor_graph` computes it on explicit factor
        objects.

        >>> env = TrueSkill(draw_probability=0.0)
        >>> a, b, c = env.rating(), env.rating(), env.rating()
        >>> [(a2,), (b2,), (c2,)] = env.rate([(a,), (b,), (c,)], ranks=[0, None, None])
        >>> round(a2.mu, 3), round(b2.mu, 3), round(c2.mu, 3)
        (31.303, 21.848, 21.848)
        """
        game = validate_game(teams, weights, elapsed)
        new = self._update(game, ranks, None)
        rs = game.ratings
        n_teams = len(rs)
        n = len(new)
        if n == n_teams and game.keys.count(None) == n_teams:  # teams of one player as tuples
            return [(r,) for r in new]
        result: list[Any] = []
        at = 0
        for k, team in zip(game.keys, rs, strict=True):
            end = at + len(team)
            part = new[at:end]
            result.append(tuple(part) if k is None else dict(zip(k, part, strict=True)))
            at = end
        return result

    def _update(
        self, game: Game, ranks: Sequence[Any] | None, aux: NDArray[np.float64] | None
    ) -> list[Rating]:
        """The compiled update of a validated game: every slot's new rating, team by team.
        ``aux``: the slots' noise shares and dynamics flags, the teams' offsets and the observed
        margin, as :func:`.trueskill_kernel.rate_game` takes them (None: players only)."""
        rs = game.ratings
        n_teams = len(rs)
        values: list[float] = list(map(len, rs))  # team sizes
        if ranks is None:  # input order: the kernel writes the ranks over a placeholder
            values *= 2
        else:
            rank_list = self._order(ranks, n_teams)[2]
            values += [math.nan if r is None else float(r) for r in rank_list]
        flat = [r for team in rs for r in team]
        n = len(flat)
        values += [r.mu for r in flat]
        values += [r.sigma for r in flat]
        extra = game.weights is not None or game.elapsed is not None
        if extra:
            values += [1.0] * n if game.weights is None else [x for w in game.weights for x in w]
            values += [0.0] * n if game.elapsed is None else [x for e in game.elapsed for x in e]
        buf = np.array(values, np.float64)
        packed = _NO_AUX if aux is None else aux
        ordered = ranks is None
        if not _kernels().rate_game(buf, self._settings, n_teams, n, extra, ordered, packed):
            raise ConvergenceError(
                f"message passing did not converge within {self.max_iterations} sweeps"
            )
        out = buf.tolist()
        at = 2 * n_teams
        return list(map(trusted_rating, out[at : at + n], out[at + n : at + 2 * n]))

    def rate_1vs1(self, a: Rating, b: Rating, drawn: bool = False) -> tuple[Rating, Rating]:
        """Ratings of ``a`` (the winner unless ``drawn``) and ``b`` after one game."""
        (a2,), (b2,) = self.rate([(a,), (b,)], ranks=[0, 0] if drawn else [0, 1])
        return a2, b2

    def _links(
        self, game: Game, order: list[int], n_ranked: int, ranks: list[Any]
    ) -> list[tuple[int, int, float, bool]]:
        """The difference factors: ``(left team, right team, draw margin, tied)``.

        Adjacent ranked teams are linked in rank order (patent, Fig. 7); each unranked team is
        linked to the lowest ranked team (Fig. 19), which it lost to.
        """
        pairs = [(order[i], order[i + 1]) for i in range(n_ranked - 1)]
        pairs += [(order[n_ranked - 1], u) for u in order[n_ranked:]]
        links = []
        for left, right in pairs:
            size = game.present(left) + game.present(right)
            margin = margin_from_quantile(self._quantile, size, self.beta)
            tied = ranks[right] is not None and ranks[left] == ranks[right]
            links.append((left, right, margin, tied))
        return links

    def factor_graph(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | float | None] | None = None,
        weights: Sequence[Any] | None = None,
        elapsed: Sequence[Any] | None = None,
    ) -> list[Any]:
        """``rate`` computed on explicit factor and variable objects (slower, inspectable).

        This is the readable form of the update: the factor classes of
        :mod:`mindsport.rating.trueskill.factors` wired as in the module drawing and run with the
        patent's schedule, in plain Python. ``rate`` gives the same numbers through the compiled
        update.
        """
        game = validate_game(teams, weights, elapsed)
        order, n_ranked, rank_list = self._order(ranks, len(game.ratings))
        new = run_graph(game, self._links(game, order, n_ranked, rank_list), self)
        out: list[Any] = []
        for k, rs in zip(game.keys, new, strict=True):
            out.append(tuple(rs) if k is None else dict(zip(k, rs, strict=True)))
        return out

    # ------------------------------------------------------------------ predictions

    def _team_perf(self, team: Any) -> tuple[float, float]:
        """Mean and variance of a team's performance in the next game (tau included)."""
        game = validate_game([team, team], None, None)
        mu = var = 0.0
        tau2, beta2 = self.tau * self.tau, self.beta * self.beta
        for r in game.ratings[0]:
            mu += r.mu
            var += r.sigma * r.sigma + tau2 + beta2
        return mu, var

    def outcome_probabilities(self, team_a: Any, team_b: Any) -> tuple[float, float, float]:
        """``(P(a ahead), P(draw), P(b ahead))`` for the next game between two teams.

        A draw is a performance difference within the draw margin for these team sizes.
        """
        mu_a, var_a = self._team_perf(team_a)
        mu_b, var_b = self._team_perf(team_b)
        e = margin_from_quantile(self._quantile, len(team_a) + len(team_b), self.beta)
        win, loss = win_loss(mu_a - mu_b, math.sqrt(var_a + var_b), e)
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
        return quality(validate_game(teams, weights, None), self.beta)

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
        return place_probabilities(validate_game(teams, weights, None), self.tau, self.beta, points)


class TrueSkillReplayer(ArrayReplayer):
    """TrueSkill (:class:`~mindsport.rating.TrueSkill`) through
    :func:`.replay_kernel.replay_trueskill`: the compiled update of ``TrueSkill.rate``; drift from
    the match times (``last_played``)."""

    fields = ("mu", "sigma", "last_played")
    n_value = 2

    def __init__(self, model: Any, capacity: int = 1024) -> None:
        super().__init__(model, capacity)
        if model.drift > 0:
            self.stored = self.fields

    def new_state(self) -> tuple[float, ...]:
        return (float(self.model.mu), float(self.model.sigma), math.nan)

    def make(self, *values: Any) -> Any:
        return trusted_rating(*values)

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        return (value.mu, value.sigma) if isinstance(value, Rating) else None

    def check(self, block: MatchBlock, predict: bool) -> None:
        block.validate(present=True, times=self.model.drift > 0)
        if self.model.draw_probability == 0:
            at = block_kernels().first_tie(block.team_ptr, block.ranks)
            if at >= 0:
                raise refusal(self.model, block, at, False, False)

    def kernel(self) -> Any:
        return _replay_kernels().replay_trueskill

    def failure(self, k: int) -> Exception:
        return ConvergenceError(
            f"message passing did not converge within {self.model.max_iterations} sweeps"
        )
