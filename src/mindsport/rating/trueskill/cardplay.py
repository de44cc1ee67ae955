"""TrueSkill with roles and deal luck: a rating that sees through the cards.

In a card game or mahjong the result of one deal says as much about the cards and the seat as
about the players. :class:`CardPlay` is TrueSkill (the same settings, the same compiled update,
:func:`mindsport.rating.trueskill.trueskill_kernel.update_match`) with four additions, each
optional and each switched on by what a :class:`~mindsport.match.Match` carries:

* **Role advantage.** A match's ``roles`` (``landlord``, ``farmer1``, ``farmer2``; ``East`` ...
  ``North``) bring one *virtual player* per role into the player's team, the way home advantage
  is rated in sports: the role's advantage is a skill with prior ``N(0, role_sigma^2)`` that sits
  in every game of its role and is learned like any player's. A virtual player adds its skill
  (and its uncertainty) to the team's performance but no performance noise of its own, takes
  no dynamics (``tau``) and does not count towards the draw margin.
* **Deal luck as a known offset.** A match's ``luck`` (one number per team, the deal's
  expected result in standard-normal units, see :class:`~mindsport.match.Match`) shifts team
  ``t``'s performance by ``luck_scale * luck[t]`` before the teams are compared. On the
  performance scale: two teams whose performances differ by ``N(delta, c^2)`` are ahead with
  probability ``Phi(delta / c)``; a deal that reference players of equal skill win with
  probability ``p`` has ``luck = probit(p)``, and with ``luck_scale = c`` (the deviation of the
  performance difference of a settled table: ``sqrt(n) beta`` for ``n`` players) the model
  predicts exactly ``p`` for equal players. ``luck_scale`` is fitted (``mindsport fit``).
* **Duplicate deals.** With ``deal_sigma`` set, a match's ``deal`` id brings one virtual player
  per team for that deal's luck on that side (keyed by the deal id and the team's roles, or its
  position without roles), with prior mean ``luck_scale * luck[t]`` (0 without luck) and
  deviation ``deal_sigma``. When the same deal is played at several tables, its virtual players
  sit in every one of them: the results on the same cards are compared with each other and the
  deal's luck cancels, whether or not it was estimated.
* **Score margins.** With ``margin_scale`` set, a two-team match with scores also observes the
  size of its performance difference: ``y = margin_scale * (score_0 - score_1)`` with the
  likelihood ``N(y; d, margin_noise^2)`` on the performance difference ``d``, multiplied with
  the win/draw truncation (:func:`mindsport.rating.truncation.margin_moments`: the Gaussian is
  absorbed exactly, then the truncation is moment-matched; see
  :mod:`mindsport.rating.trueskill.margins`). The observed margin is clipped to 100 ``beta``
  either way (:func:`~mindsport.rating.trueskill.margins.bounded_margin`).
  A match of more teams with scores (a mahjong table's final points) observes the difference of
  every two teams adjacent in its finishing order the same way (see
  :mod:`mindsport.rating.trueskill.margins`); matches without scores are rated by their order
  only.

Without roles, deal, luck or margins the update is TrueSkill's, number for number. So on data
without roles, deals and luck (tennis, Halo, chess), ``CardPlay(margin_scale=...)`` is
**TrueSkill with score margins**: online TrueSkill whose two-team matches also observe their
score difference (ATP sets, Halo kills); ``mindsport fit`` fits ``margin_scale`` and
``margin_noise`` like any setting. The
match-level terms live in the compiled replay (:class:`CardPlayReplayer`, what ``replay``,
``evaluate`` and ``fit`` use) and in :meth:`CardPlay.rate_with`; the model protocol's ``rate``
and ``win_probability`` see teams of ratings only, so they (and ``replay(..., fast=False)``,
which goes through ``rate``) rate as plain TrueSkill.

>>> from mindsport.match import Match
>>> ms = [Match(f"g{i}", i, [["ann"], ["bob", "cy"]], [0, 1],
...             roles=[["landlord"], ["farmer1", "farmer2"]]) for i in range(3)]
>>> replayer = CardPlay().replayer()
>>> _ = replayer.feed(replayer.encode(ms, PlayerIndex(), None), predict=False, keep=False)
>>> sorted(replayer.roles())
['farmer1', 'farmer2', 'landlord']
>>> replayer.roles()["landlord"].mu > 0 > replayer.roles()["farmer1"].mu
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mindsport.match import Match
from mindsport.rating.formulas import margin_from_quantile, win_loss
from mindsport.rating.params import MAX_SCALE, MIN_SCALE, Kind, Param, check_settings
from mindsport.rating.rating import InvalidRatingError, Rating, trusted_rating
from mindsport.rating.replay.blocks import MatchBlock, PlayerIndex, encode_matches
from mindsport.rating.replay.replayers import Fed, with_match_index
from mindsport.rating.trueskill.game import InvalidGameError, ratings_of, validate_game
from mindsport.rating.trueskill.margins import (
    MARGIN_NOISE,
    MARGIN_PARAMS,
    bounded_margin,
    observed_margin,
    observed_scores,
)
from mindsport.rating.trueskill.model import (
    BETA,
    TrueSkill,
    TrueSkillReplayer,
)
from mindsport.rating.trueskill.model import (
    PARAMS as TRUESKILL_PARAMS,
)
from mindsport.rating.trueskill.predictions import place_probabilities, quality
from mindsport.rating.trueskill.seats import KIND as SEAT_KIND
from mindsport.rating.trueskill.seats import SeatEdge, SeatStatistics, side_name

__all__ = ["PARAMS", "CardBlock", "CardPlay", "CardPlayReplayer", "VirtualArrays"]

#: the default ``luck_scale``: the performance deviation of a settled three-player table
LUCK_SCALE = BETA * math.sqrt(3.0)

#: the settings of :class:`CardPlay`: TrueSkill's and the role, luck and margin terms
PARAMS = (
    *TRUESKILL_PARAMS,
    Param(
        "role_sigma",
        Kind.REAL,
        BETA * 2.0,
        "prior deviation of a role's (seat's) advantage, a virtual player of mean 0",
        MIN_SCALE,
        MAX_SCALE,
    ),
    Param(
        "luck_scale",
        Kind.REAL,
        LUCK_SCALE,
        "performance points per unit of a match's luck (0: luck ignored)",
        0.0,
        MAX_SCALE,
    ),
    Param(
        "deal_sigma",
        Kind.REAL,
        None,
        "prior deviation of a deal's luck per side, learned across tables (None: off)",
        MIN_SCALE,
        MAX_SCALE,
        optional=True,
    ),
    *MARGIN_PARAMS,
)


@dataclass(frozen=True)
class CardPlay(TrueSkill):
    """TrueSkill with roles and deal luck (see the module docstring). Immutable.

    Parameters: those of :class:`~mindsport.rating.TrueSkill`, and ``role_sigma``,
    ``luck_scale``, ``deal_sigma``, ``margin_scale``, ``margin_noise`` (:data:`PARAMS`).
    """

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    role_sigma: float = BETA * 2.0
    luck_scale: float = LUCK_SCALE
    deal_sigma: float | None = None
    margin_scale: float | None = None
    margin_noise: float = MARGIN_NOISE

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "CardPlay", InvalidRatingError)

    def role_rating(self) -> Rating:
        """A role's advantage before any game: ``N(0, role_sigma^2)``."""
        return Rating(0.0, self.role_sigma)

    def _virtual(
        self, virtual: Sequence[Sequence[Any]] | None, n_teams: int
    ) -> list[tuple[Rating, ...]]:
        if virtual is None:
            return [()] * n_teams
        if isinstance(virtual, str) or len(virtual) != n_teams:
            raise InvalidGameError(
                f"virtual must have one list per team ({n_teams}), got {virtual!r}"
            )
        return [tuple(ratings_of(list(v), i)) for i, v in enumerate(virtual)]

    def outcome_probabilities(
        self, team_a: Any, team_b: Any, virtual: Sequence[Sequence[Any]] | None = None
    ) -> tuple[float, float, float]:
        """``(P(a ahead), P(draw), P(b ahead))`` as TrueSkill's; ``virtual``: the two teams'
        virtual players (role advantages, e.g. ``[[home], [away]]`` from
        :meth:`CardPlayReplayer.roles`), whose skill and uncertainty join their team's
        performance without noise (as in the replay's predictions)."""
        vs = self._virtual(virtual, 2)
        mu_a, var_a = self._team_perf(team_a)
        mu_b, var_b = self._team_perf(team_b)
        mu_a += sum(v.mu for v in vs[0])
        var_a += sum(v.sigma**2 for v in vs[0])
        mu_b += sum(v.mu for v in vs[1])
        var_b += sum(v.sigma**2 for v in vs[1])
        e = margin_from_quantile(self._quantile, len(team_a) + len(team_b), self.beta)
        win, loss = win_loss(mu_a - mu_b, math.sqrt(var_a + var_b), e)
        return win, max(0.0, 1.0 - win - loss), loss

    def win_probability(
        self, team_a: Any, team_b: Any, virtual: Sequence[Sequence[Any]] | None = None
    ) -> float:
        """Probability that ``team_a`` finishes ahead of ``team_b`` (a draw is not a win),
        ``virtual`` as in :meth:`outcome_probabilities`."""
        return self.outcome_probabilities(team_a, team_b, virtual)[0]

    def quality(
        self,
        teams: Sequence[Any],
        weights: Sequence[Any] | None = None,
        virtual: Sequence[Sequence[Any]] | None = None,
    ) -> float:
        """TrueSkill's match quality with each team's virtual players (``virtual``, one list
        per team) in its performance, without noise."""
        game = validate_game(teams, weights, None)
        return quality(game, self.beta, self._virtual(virtual, len(game.ratings)))

    def rank_probabilities(
        self,
        teams: Sequence[Any],
        weights: Sequence[Any] | None = None,
        points: int = 4001,
        virtual: Sequence[Sequence[Any]] | None = None,
    ) -> NDArray[np.float64]:
        """TrueSkill's place probabilities with each team's virtual players (``virtual``)."""
        game = validate_game(teams, weights, None)
        vs = self._virtual(virtual, len(game.ratings))
        return place_probabilities(game, self.tau, self.beta, points, vs)

    def margin(self, scores: Sequence[float] | None) -> float | None:
        """The observed performance difference of team 0 over team 1 that ``scores`` of a
        two-team match stand for (None: margins off, no scores or more teams; see
        :func:`mindsport.rating.trueskill.margins.observed_margin`)."""
        return observed_margin(self.margin_scale, scores, self.beta)

    def scores(self, scores: Sequence[float] | None) -> tuple[float, ...] | None:
        """The scores of a match of more than two teams on the performance scale (None:
        margins off, no scores or two teams; see
        :func:`mindsport.rating.trueskill.margins.observed_scores`)."""
        return observed_scores(self.margin_scale, scores)

    def rate_with(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | float | None] | None = None,
        weights: Sequence[Any] | None = None,
        elapsed: Sequence[Any] | None = None,
        *,
        virtual: Sequence[Sequence[Rating]] | None = None,
        offsets: Sequence[float] | None = None,
        margin: float | Sequence[float] | None = None,
    ) -> tuple[list[Any], list[tuple[Rating, ...]]]:
        """New ratings of the teams and of their virtual players after one game.

        ``virtual``: per team, the ratings of its virtual players (role advantages, deal
        luck: skill without performance noise or dynamics); ``offsets``: per team, a known
        amount added to its performance (``luck_scale * luck``); ``margin``: the observed
        performance difference of team 0 over team 1 (two teams, see :meth:`margin`;
        clipped to 100 ``beta`` by :func:`~mindsport.rating.trueskill.margins.bounded_margin`),
        or, for any number of teams, every team's score on the performance scale (see
        :meth:`scores`): the differences of teams adjacent in the finishing order are observed.
        Returns the teams in their input shape (as :meth:`rate`) and the virtual players'
        new ratings, team by team.
        """
        game = validate_game(teams, weights, elapsed)
        n_teams = len(game.ratings)
        vs: list[tuple[Rating, ...]] = [() for _ in range(n_teams)]
        if virtual is not None:
            if isinstance(virtual, str) or len(virtual) != n_teams:
                raise InvalidGameError(
                    f"virtual must have one list per team ({n_teams}), got {virtual!r}"
                )
            vs = [tuple(ratings_of(list(v), i)) for i, v in enumerate(virtual)]
        off = [0.0] * n_teams
        if offsets is not None:
            if isinstance(offsets, str) or len(offsets) != n_teams:
                raise InvalidGameError(
                    f"offsets must have one number per team ({n_teams}), got {offsets!r}"
                )
            for x in offsets:
                if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
                    raise InvalidGameError(f"offsets must be finite numbers, got {offsets!r}")
            off = [float(x) for x in offsets]
        y = math.nan
        per_team: list[float] = []
        if margin is not None and not isinstance(margin, int | float):
            if isinstance(margin, str) or len(margin) != n_teams:
                raise InvalidGameError(
                    f"margin must be one number or one score per team ({n_teams}), got {margin!r}"
                )
            for x in margin:
                if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
                    raise InvalidGameError(f"margin scores must be finite numbers, got {margin!r}")
            if n_teams == 2:
                margin = float(margin[0]) - float(margin[1])
            else:
                per_team = [float(x) for x in margin]
                margin = None
        if margin is not None:
            if n_teams != 2:
                raise InvalidGameError(f"a margin needs two teams, got {n_teams}")
            if isinstance(margin, bool) or not math.isfinite(margin):
                raise InvalidGameError(f"margin must be a finite number, got {margin!r}")
            y = bounded_margin(margin, self.beta)
        rows = game.weight_rows()
        away = game.elapsed or [[0.0] * len(r) for r in game.ratings]
        joined = type(game)(
            [None] * n_teams,
            [[*r, *v] for r, v in zip(game.ratings, vs, strict=True)],
            [[*w, *([1.0] * len(v))] for w, v in zip(rows, vs, strict=True)],
            [[*e, *([0.0] * len(v))] for e, v in zip(away, vs, strict=True)],
        )
        flags = [
            x
            for r, v in zip(game.ratings, vs, strict=True)
            for x in [1.0] * len(r) + [0.0] * len(v)
        ]
        aux = np.array([*flags, *flags, *off, y, self.margin_noise**2, *per_team])
        new = self._update(joined, ranks, aux)
        out: list[Any] = []
        new_virtual: list[tuple[Rating, ...]] = []
        at = 0
        for k, r, v in zip(game.keys, game.ratings, vs, strict=True):
            part = new[at : at + len(r)]
            out.append(tuple(part) if k is None else dict(zip(k, part, strict=True)))
            new_virtual.append(tuple(new[at + len(r) : at + len(r) + len(v)]))
            at += len(r) + len(v)
        return out, new_virtual

    def replayer(self) -> Any:
        """The compiled replay with roles, luck, duplicate deals and margins
        (:class:`CardPlayReplayer`)."""
        return CardPlayReplayer(self)


class VirtualArrays(NamedTuple):
    """What :class:`CardPlay` adds to a block per team and match (as the compiled replay reads
    it): team ``t``'s virtual players are ``players[ptr[t]:ptr[t+1]]`` (rows of the replayer's
    table of virtual players), ``offset[t]`` its known performance offset; ``margin[i] = (y,
    s2)`` is match ``i``'s observed performance difference (NaN ``y``: none); ``score[t]``,
    in a match of more than two teams, team ``t``'s score on the performance scale (NaN:
    none); ``side[t]`` team ``t``'s side (its roles) as a row of the replayer's seat statistics
    (-1: no roles, or beyond :data:`~mindsport.rating.trueskill.seats.MAX_SIDES`);
    ``role[v]`` 1 when virtual player ``players[v]`` is a role (0: a deal side)."""

    ptr: NDArray[np.int64]
    players: NDArray[np.int64]
    offset: NDArray[np.float64]
    margin: NDArray[np.float64]
    score: NDArray[np.float64]
    side: NDArray[np.int64]
    role: NDArray[np.int8]

    @classmethod
    def none(cls, block: MatchBlock) -> VirtualArrays:
        """No virtual players, offsets or margins for the matches of ``block``."""
        n_teams = len(block.ranks)
        return cls(
            np.zeros(n_teams + 1, np.int64),
            np.zeros(0, np.int64),
            np.zeros(n_teams),
            np.tile([math.nan, 1.0], (len(block), 1)),
            np.full(n_teams, math.nan),
            np.full(n_teams, -1, np.int64),
            np.zeros(0, np.int8),
        )


@dataclass(frozen=True)
class CardBlock(MatchBlock):
    """A :class:`~mindsport.rating.replay.blocks.MatchBlock` of the players, and what
    :class:`CardPlay` adds per team and match (:class:`VirtualArrays`)."""

    virtual: VirtualArrays

    @classmethod
    def of(cls, base: MatchBlock, virtual: VirtualArrays) -> CardBlock:
        """The players' block ``base`` with the virtual players, offsets and margins."""
        b = base
        return cls(b.team_ptr, b.player_ptr, b.players, b.weights, b.ranks, b.times, virtual)


@functools.cache
def _kernel() -> Any:
    from mindsport.rating.trueskill.cardplay_kernel import replay_cardplay

    return replay_cardplay


class CardPlayReplayer(TrueSkillReplayer):
    """The compiled replay of :class:`CardPlay` (:func:`kernels_cardplay.replay_cardplay`):
    the players' rows as TrueSkill's, and a second table of virtual players (roles and deal
    sides) that :meth:`encode` fills as they first appear. :meth:`roles` and :meth:`deals` read
    the learned advantages."""

    def __init__(self, model: Any, capacity: int = 1024) -> None:
        super().__init__(model, capacity)
        self._virtual: dict[tuple[str, ...], int] = {}
        self.vtable = np.zeros((16, 2))
        #: the seat statistics (:mod:`mindsport.rating.trueskill.seats`)
        self.seats = SeatStatistics()

    def _virtual_index(self, key: tuple[str, ...], mu: float, sigma: float) -> int:
        i = self._virtual.get(key)
        if i is None:
            i = len(self._virtual)
            self._virtual[key] = i
            if i >= len(self.vtable):
                grown = np.zeros((2 * len(self.vtable), 2))
                grown[: len(self.vtable)] = self.vtable
                self.vtable = grown
            self.vtable[i] = (mu, sigma)
        return i

    def _virtual_ratings(self, kind: str) -> dict[str, Rating]:
        return {
            "/".join(key[1:]): trusted_rating(*self.vtable[i].tolist())
            for key, i in self._virtual.items()
            if key[0] == kind
        }

    def roles(self) -> dict[str, Rating]:
        """Every role's learned advantage, by role name (skill points added to the team)."""
        return self._virtual_ratings("role")

    def deals(self) -> dict[str, Rating]:
        """Every duplicate deal side's learned luck, as ``"deal id/side"`` (side: the team's
        roles joined by ``+``, or ``#`` and its position)."""
        return self._virtual_ratings("deal")

    def seat_edges(self) -> tuple[SeatEdge, ...]:
        """Every side's (seat's) edge against the average side, with its interval
        (:mod:`mindsport.rating.trueskill.seats`): what the games identify about the roles."""
        return self.seats.edges()

    def virtual_states(self) -> dict[tuple[str, ...], tuple[float, float]]:
        """Every virtual player's state, by key (``("role", name)`` or ``("deal", deal id,
        side)``): ``(mu, sigma)``; and the seat statistics (kind ``"seats"``, see
        :meth:`~mindsport.rating.trueskill.seats.SeatStatistics.states`). What a store keeps
        between writes (:meth:`load_virtual`)."""
        out = {
            key: (float(self.vtable[i, 0]), float(self.vtable[i, 1]))
            for key, i in self._virtual.items()
        }
        out.update(self.seats.states())
        return out

    def load_virtual(self, states: Mapping[tuple[str, ...], tuple[float, float]]) -> None:
        """Set virtual players' states (as :meth:`virtual_states` gives them) before feeding:
        a key already known is overwritten, a new one is added (the seat statistics are
        added to the replayer's, which a fresh replayer holds none of)."""
        seat_states = {}
        for key, (mu, sigma) in states.items():
            key = tuple(key)
            if key and key[0] == SEAT_KIND:
                seat_states[key] = (mu, sigma)
                continue
            i = self._virtual_index(key, mu, sigma)
            self.vtable[i] = (mu, sigma)
        self.seats.load(seat_states)

    def encode(
        self, matches: list[Match], index: PlayerIndex, time_unit: float | None
    ) -> MatchBlock:
        return self.extend(
            encode_matches(matches, index, time_unit),
            [(len(m.teams), m.roles, m.deal, m.luck, m.scores) for m in matches],
        )

    def extend(
        self,
        base: MatchBlock,
        extras: Sequence[
            tuple[
                int,
                Sequence[Sequence[str]] | None,
                str | None,
                Sequence[float] | None,
                Sequence[float] | None,
            ]
        ],
    ) -> CardBlock:
        """The players' block ``base`` with what the model adds per match: ``extras`` holds,
        match by match, its number of teams, roles, deal, luck and scores (None: not given).
        Virtual players met for the first time enter the table at their priors."""
        model = self.model
        vptr = [0]
        vplayers: list[int] = []
        vrole: list[int] = []
        team_side: list[int] = []
        offset: list[float] = []
        margin: list[tuple[float, float]] = []
        score: list[float] = []
        s2 = model.margin_noise**2
        for n, match_roles, deal, match_luck, scores in extras:
            luck = match_luck if match_luck is not None else (0.0,) * n
            duplicate = deal is not None and model.deal_sigma is not None
            for t in range(n):
                roles = match_roles[t] if match_roles is not None else ()
                for r in roles:
                    vplayers.append(self._virtual_index(("role", r), 0.0, model.role_sigma))
                    vrole.append(1)
                team_side.append(self.seats.index(side_name(roles)) if roles else -1)
                prior = model.luck_scale * luck[t]
                if duplicate:
                    side = "+".join(sorted(roles)) if roles else f"#{t}"
                    key = ("deal", str(deal), side)
                    vplayers.append(self._virtual_index(key, prior, model.deal_sigma))
                    vrole.append(0)
                    offset.append(0.0)
                else:
                    offset.append(prior)
                vptr.append(len(vplayers))
            y = model.margin(scores)
            margin.append((math.nan if y is None else y, s2))
            per_team = model.scores(scores)
            score.extend(per_team if per_team is not None else (math.nan,) * n)
        return CardBlock.of(
            base,
            VirtualArrays(
                np.asarray(vptr, np.int64),
                np.asarray(vplayers, np.int64),
                np.asarray(offset, np.float64),
                np.asarray(margin, np.float64).reshape(-1, 2),
                np.asarray(score, np.float64),
                np.asarray(team_side, np.int64),
                np.asarray(vrole, np.int8),
            ),
        )

    def run(self, block: MatchBlock, fed: Fed, predict: bool, keep: bool) -> None:
        # a plain block: no roles, luck or margins
        virtual = block.virtual if isinstance(block, CardBlock) else VirtualArrays.none(block)
        settings = self.model._settings
        out = self.outputs(fed)
        kernel = _kernel()
        bad = int(
            kernel(
                self.table,
                block.arrays,
                self.vtable,
                virtual,
                self.seats.stats,
                settings,
                predict,
                keep,
                out,
            )
        )
        if bad >= 0:
            raise with_match_index(self.failure(bad), bad)
