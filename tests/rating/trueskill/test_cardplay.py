"""TrueSkill with roles and deal luck (``cardplay``) against independent references.

* without roles, deals, luck or margins: the ``trueskill`` 0.4.5 reference implementation;
* virtual players (a role's advantage): the exact posterior moments of a two-team game written
  out with numpy and ``scipy.stats.truncnorm`` (the joint Gaussian of the skills, conditioned on
  the truncated performance difference), not through mindsport's kernels;
* a known offset: the closed-form truncation of the shifted difference;
* score margins: the posterior mean and variance of a skill by numerical integration
  (``scipy.integrate.dblquad``) over the skill and the performance difference;
* a simulated four-player free-for-all with a known dealer edge: the seat's learned advantage
  lies within a few posterior deviations of the edge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trueskill as ref
from scipy import integrate, stats

from mindsport.match import Match
from mindsport.rating.rating import Rating
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.rating.trueskill.cardplay import CardPlay
from mindsport.rating.trueskill.model import InvalidGameError, TrueSkill, draw_margin

BETA = 25 / 6
TAU = 25 / 300


def _replay(model: CardPlay, matches: list[Match]) -> tuple[object, PlayerIndex]:
    replayer = model.replayer()
    index = PlayerIndex()
    replayer.feed(replayer.encode(matches, index, None), predict=False, keep=False)
    return replayer, index


def test_plain_matches_equal_the_reference_trueskill() -> None:
    rng = np.random.default_rng(5)
    players = [f"p{i}" for i in range(8)]
    matches = []
    for k in range(150):
        a, b, c = rng.choice(players, 3, replace=False).tolist()
        teams = [[a], [b]] if k % 2 else [[a], [b, c]]
        ranks = [0, 1] if rng.random() < 0.6 else [1, 0]
        if rng.random() < 0.1:
            ranks = [0, 0]
        matches.append(Match(f"m{k}", k, teams, ranks))
    replayer, index = _replay(CardPlay(), matches)
    env = ref.TrueSkill(
        mu=25.0, sigma=25 / 3, beta=BETA, tau=TAU, draw_probability=0.1, backend="scipy"
    )
    ratings = {p: env.create_rating() for p in players}
    for m in matches:
        groups = [tuple(ratings[p] for p in t) for t in m.teams]
        new = env.rate(groups, ranks=list(m.ranks))
        for t, g in zip(m.teams, new, strict=True):
            for p, r in zip(t, g, strict=True):
                ratings[p] = r
    for p in players:
        ours = replayer.value(index.get(p))  # type: ignore[attr-defined]
        assert ours.mu == pytest.approx(ratings[p].mu, abs=1e-7)
        assert ours.sigma == pytest.approx(ratings[p].sigma, abs=1e-7)


def test_free_for_all_without_extras_equals_the_reference() -> None:
    model = CardPlay(draw_probability=0.0)
    teams = [(Rating(30, 4),), (Rating(25, 6),), (Rating(22, 3),), (Rating(27, 5),)]
    ours = model.rate(teams, ranks=[2, 0, 3, 1])
    env = ref.TrueSkill(beta=BETA, tau=TAU, draw_probability=0.0, backend="scipy")
    theirs = env.rate([(ref.Rating(r.mu, r.sigma),) for (r,) in teams], ranks=[2, 0, 3, 1])
    for (a,), (b,) in zip(ours, theirs, strict=True):
        assert (a.mu, a.sigma) == pytest.approx((b.mu, b.sigma), abs=2e-3)


def test_free_for_all_offsets_are_shifted_skills_of_the_reference() -> None:
    # a known offset on a one-player team is that player's skill shifted for this game only
    model = CardPlay(draw_probability=0.0)
    teams = [(Rating(30, 4),), (Rating(25, 6),), (Rating(22, 3),), (Rating(27, 5),)]
    offsets = [-3.0, 2.0, 6.5, 0.0]
    ranks = [1, 3, 0, 2]
    ours = model.rate_with(teams, ranks, offsets=offsets)[0]
    env = ref.TrueSkill(beta=BETA, tau=TAU, draw_probability=0.0, backend="scipy")
    shifted = [(ref.Rating(r.mu + o, r.sigma),) for (r,), o in zip(teams, offsets, strict=True)]
    theirs = env.rate(shifted, ranks=ranks)
    for (a,), (b,), o in zip(ours, theirs, offsets, strict=True):
        assert (a.mu + o, a.sigma) == pytest.approx((b.mu, b.sigma), abs=2e-3)


def exact_two_teams(
    mus: list[float],
    variances: list[float],
    coeffs: list[float],
    noise_var: float,
    offset: float,
    margin: float,
    observed: tuple[float, float] | None = None,
    draw: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior means and variances of skills ``s`` (independent Gaussians) after
    ``d = coeffs . s + offset + noise > margin`` (noise ``N(0, noise_var)``) and, with
    ``observed = (y, s2)``, ``y ~ N(d, s2)`` (with ``draw``: ``|d| <= margin`` instead of the
    win): the joint Gaussian conditioned on ``d``'s
    posterior, whose moments come from ``scipy.stats.truncnorm``."""
    mu = np.asarray(mus)
    var = np.asarray(variances)
    c = np.asarray(coeffs)
    md = float(c @ mu) + offset
    vd = float(c * c @ var) + noise_var
    m1, v1 = md, vd
    if observed is not None:
        y, s2 = observed
        v1 = vd * s2 / (vd + s2)
        m1 = v1 * (md / vd + y / s2)
    sd = math.sqrt(v1)
    lo, hi = ((-margin - m1) / sd, (margin - m1) / sd) if draw else ((margin - m1) / sd, np.inf)
    post = stats.truncnorm(lo, hi, loc=m1, scale=sd)
    ed, vard = float(post.mean()), float(post.var())
    cov = c * var
    return mu + cov / vd * (ed - md), var - cov * cov / vd**2 * (vd - vard)


def test_role_virtual_players_give_the_exact_two_team_posterior() -> None:
    model = CardPlay()
    lord, f1, f2 = Rating(28, 3), Rating(24, 5), Rating(21, 2.5)
    role_l, role_1, role_2 = Rating(4.0, 2.0), Rating(-1.0, 3.0), Rating(0.5, 1.5)
    for ranks, sign in (([0, 1], 1.0), ([1, 0], -1.0)):
        (new_l,), (new_1, new_2) = model.rate_with(
            [(lord,), (f1, f2)], ranks, virtual=[(role_l,), (role_1, role_2)]
        )[0]
        v_roles = model.rate_with(
            [(lord,), (f1, f2)], ranks, virtual=[(role_l,), (role_1, role_2)]
        )[1]
        pv = [r.sigma**2 + TAU**2 for r in (lord, f1, f2)]
        pv += [r.sigma**2 for r in (role_l, role_1, role_2)]
        mus = [lord.mu, f1.mu, f2.mu, role_l.mu, role_1.mu, role_2.mu]
        coeffs = [sign * x for x in (1.0, -1.0, -1.0, 1.0, -1.0, -1.0)]
        margin = draw_margin(0.1, 3, BETA)  # three players: the roles carry no noise
        mean, var = exact_two_teams(mus, pv, coeffs, 3 * BETA**2, 0.0, margin)
        got = [new_l, new_1, new_2, *v_roles[0], *v_roles[1]]
        for r, m, v in zip(got, mean, var, strict=True):
            assert r.mu == pytest.approx(m, abs=1e-9)
            assert r.sigma == pytest.approx(math.sqrt(v), abs=1e-9)


def test_known_offset_is_the_shifted_truncation() -> None:
    model = CardPlay(draw_probability=0.0)
    a, b = Rating(25, 6), Rating(27, 4)
    pa, pb = a.sigma**2 + TAU**2, b.sigma**2 + TAU**2
    c = math.sqrt(pa + pb + 2 * BETA**2)
    for offset in (-3.0, 0.0, 2.5, 9.0):
        (a2,), (b2,) = model.rate_with([(a,), (b,)], [0, 1], offsets=[offset, 0.0])[0]
        x = (a.mu - b.mu + offset) / c
        v = stats.norm.pdf(x) / stats.norm.cdf(x)
        w = v * (v + x)
        assert a2.mu == pytest.approx(a.mu + pa / c * v, abs=1e-10)
        assert b2.mu == pytest.approx(b.mu - pb / c * v, abs=1e-10)
        assert a2.sigma == pytest.approx(math.sqrt(pa * (1 - pa / c**2 * w)), abs=1e-10)
        # the offset of team 1 enters with the opposite sign
        (a3,), _ = model.rate_with([(a,), (b,)], [0, 1], offsets=[0.0, -offset])[0]
        assert a3.mu == pytest.approx(a2.mu, abs=1e-12)


def test_offset_moves_the_draw_window() -> None:
    model = CardPlay(draw_probability=0.25)
    a, b, c = Rating(25, 6), Rating(27, 4), Rating(22, 3)
    pv = [r.sigma**2 + TAU**2 for r in (a, b, c)]
    e = draw_margin(0.25, 3, BETA)
    for offset in (-4.0, 1.5, 7.0):
        (a2,), (b2, c2) = model.rate_with([(a,), (b, c)], [0, 0], offsets=[offset, 0.0])[0]
        mean, var = exact_two_teams(
            [25, 27, 22], pv, [1, -1, -1], 3 * BETA**2, offset, e, draw=True
        )
        for r, m, v in zip((a2, b2, c2), mean, var, strict=True):
            assert r.mu == pytest.approx(m, abs=1e-9)
            assert r.sigma == pytest.approx(math.sqrt(v), abs=1e-9)


def test_score_margin_posterior_matches_numerical_integration() -> None:
    s2 = 3.0**2
    model = CardPlay(draw_probability=0.0, margin_scale=1.5, margin_noise=3.0)
    a, b = Rating(24, 5), Rating(26, 3)
    pa, pb = a.sigma**2 + TAU**2, b.sigma**2 + TAU**2
    rest = pb + 2 * BETA**2
    for scores in ((2.0, -2.0), (1.0, -1.0), (-4.0, 4.0)):
        y = model.margin(scores)
        assert y == pytest.approx(1.5 * (scores[0] - scores[1]))
        ranks = [0, 1] if scores[0] > scores[1] else [1, 0]
        (a2,), _ = model.rate_with([(a,), (b,)], ranks, margin=y)[0]
        win = 1.0 if ranks[0] == 0 else -1.0

        # the joint density of (skill, difference) on a grid, integrated by Simpson's rule
        sg = np.linspace(a.mu - 10 * math.sqrt(pa), a.mu + 10 * math.sqrt(pa), 801)
        dg = np.linspace(0.0, 90.0, 1601) * win
        s_, d_ = np.meshgrid(sg, dg, indexing="ij")
        dens = stats.norm.pdf(s_, a.mu, math.sqrt(pa))
        dens *= stats.norm.pdf(d_, s_ - b.mu, math.sqrt(rest))
        dens *= stats.norm.pdf(y, d_, math.sqrt(s2))

        def moment(
            k: int,
            dens: np.ndarray = dens,
            s_: np.ndarray = s_,
            dg: np.ndarray = dg,
            sg: np.ndarray = sg,
        ) -> float:
            inner = integrate.simpson(s_**k * dens, x=dg, axis=1)
            return float(integrate.simpson(inner, x=sg))

        z = moment(0)
        m1 = moment(1) / z
        m2 = moment(2) / z
        assert a2.mu == pytest.approx(m1, abs=1e-6)
        assert a2.sigma == pytest.approx(math.sqrt(m2 - m1 * m1), abs=1e-6)


def test_margin_in_a_team_game_is_the_exact_posterior() -> None:
    model = CardPlay(margin_scale=2.0, margin_noise=5.0)
    lord, f1, f2 = Rating(27, 2), Rating(25, 3), Rating(23, 4)
    y = model.margin((3.0, -3.0))
    assert y is not None
    (n_l,), (n_1, n_2) = model.rate_with([(lord,), (f1, f2)], [0, 1], margin=y)[0]
    pv = [r.sigma**2 + TAU**2 for r in (lord, f1, f2)]
    mean, var = exact_two_teams(
        [27, 25, 23], pv, [1, -1, -1], 3 * BETA**2, 0.0, draw_margin(0.1, 3, BETA), (y, 25.0)
    )
    for r, m, v in zip((n_l, n_1, n_2), mean, var, strict=True):
        assert r.mu == pytest.approx(m, abs=1e-9)
        assert r.sigma == pytest.approx(math.sqrt(v), abs=1e-9)


def test_replay_assembles_roles_luck_deals_and_margins_like_rate_with() -> None:
    model = CardPlay(deal_sigma=2.0, margin_scale=1.0, luck_scale=5.0)
    rng = np.random.default_rng(2)
    names = ["a", "b", "c", "d"]
    matches = []
    for k in range(40):
        lord, f1, f2 = rng.choice(names, 3, replace=False).tolist()
        s = float(rng.choice([-3, -2, -1, 1, 2, 3]))
        luck = [float(rng.normal()), 0.0] if k % 3 else None
        deal = f"deal{k // 4}" if k % 5 else None
        matches.append(
            Match(
                f"m{k}",
                k,
                [[lord], [f1, f2]],
                scores=[s, -s],
                roles=[["landlord"], ["farmer1", "farmer2"]],
                deal=deal,
                luck=luck,
            )
        )
    replayer, index = _replay(model, matches)
    ratings: dict[str, Rating] = {}
    virtual: dict[str, Rating] = {}
    for m in matches:
        assert m.roles is not None
        luck = m.luck or (0.0, 0.0)
        vs: list[list[str]] = [[f"role:{r}" for r in rs] for rs in m.roles]
        offsets = [5.0 * x for x in luck]
        if m.deal is not None:
            for t, rs in enumerate(m.roles):
                key = f"deal:{m.deal}/{'+'.join(sorted(rs))}"
                virtual.setdefault(key, Rating(offsets[t], 2.0))
                vs[t].append(key)
            offsets = [0.0, 0.0]
        for t in vs:
            for key in t:
                virtual.setdefault(key, Rating(0.0, model.role_sigma))
        teams = [tuple(ratings.get(p, model.rating()) for p in t) for t in m.teams]
        new, new_v = model.rate_with(
            teams,
            list(m.ranks),
            virtual=[[virtual[k] for k in t] for t in vs],
            offsets=offsets,
            margin=model.margin(m.scores),
        )
        for t, g in zip(m.teams, new, strict=True):
            ratings.update(zip(t, g, strict=True))
        for t, g in zip(vs, new_v, strict=True):
            virtual.update(zip(t, g, strict=True))
    for p in names:
        r = replayer.value(index.get(p))  # type: ignore[attr-defined]
        assert (r.mu, r.sigma) == pytest.approx((ratings[p].mu, ratings[p].sigma), abs=1e-9)
    for role, r in replayer.roles().items():  # type: ignore[attr-defined]
        want = virtual[f"role:{role}"]
        assert (r.mu, r.sigma) == pytest.approx((want.mu, want.sigma), abs=1e-9)
    assert len(replayer.deals()) == 2 * len({m.deal for m in matches if m.deal})  # type: ignore[attr-defined]


def test_dealer_edge_is_recovered_in_a_four_player_free_for_all() -> None:
    rng = np.random.default_rng(11)
    n_players, edge = 12, 4.0
    skills = rng.normal(25.0, 4.0, n_players)
    seats = ("East", "South", "West", "North")
    advantage = {"East": edge, "South": 0.0, "West": 0.0, "North": 0.0}
    matches = []
    for k in range(1500):
        table = rng.choice(n_players, 4, replace=False)
        perf = [
            skills[p] + advantage[s] + rng.normal(0, BETA)
            for p, s in zip(table, seats, strict=True)
        ]
        order = np.argsort(-np.asarray(perf))
        ranks = [0] * 4
        for place, i in enumerate(order):
            ranks[i] = place
        matches.append(
            Match(f"m{k}", k, [[f"p{p}"] for p in table], ranks, roles=[[s] for s in seats])
        )
    replayer, _ = _replay(CardPlay(draw_probability=0.0), matches)
    roles = replayer.roles()  # type: ignore[attr-defined]
    others = [roles[s] for s in seats[1:]]
    learned = roles["East"].mu - sum(r.mu for r in others) / 3
    sd = math.sqrt(roles["East"].sigma ** 2 + sum(r.sigma**2 for r in others) / 9)
    assert abs(learned - edge) < 4 * sd
    assert abs(learned) > 4 * sd  # the edge is seen, not just allowed
    # without the seats the edge is charged to nobody: the plain model has no such term
    assert set(roles) == set(seats)


def test_rate_with_refuses_bad_extras() -> None:
    model = CardPlay()
    teams = [(Rating(25, 8),), (Rating(25, 8),)]
    with pytest.raises(InvalidGameError, match="offsets"):
        model.rate_with(teams, offsets=[1.0])
    with pytest.raises(InvalidGameError, match="margin"):
        model.rate_with([*teams, (Rating(25, 8),)], margin=1.0)
    with pytest.raises(InvalidGameError, match="virtual"):
        model.rate_with(teams, virtual=[[Rating(0, 1)]])


def test_plain_rate_is_trueskill() -> None:
    teams = [(Rating(29, 3), Rating(20, 5)), (Rating(24, 2),)]
    a = CardPlay().rate(teams, [1, 0])
    b = TrueSkill().rate(teams, [1, 0])
    assert a == b


def test_a_plain_block_is_rated_as_trueskill() -> None:
    from mindsport.rating.replay.blocks import encode_matches

    matches = [Match(f"m{k}", k, [["a"], ["b", "c"]], [k % 2, 1 - k % 2]) for k in range(6)]
    ours = CardPlay().replayer()
    theirs = TrueSkill().replayer()
    for r in (ours, theirs):
        r.feed(encode_matches(matches, PlayerIndex()), predict=False, keep=False)
    for i in range(3):
        assert ours.value(i) == theirs.value(i)


def test_a_huge_margin_moves_ratings_as_the_clip_bound_does() -> None:
    # issue 42: a margin of 1e200 gave mu 2.9e199; the observed margin is clipped to 100 beta
    from mindsport.history import Match as HMatch
    from mindsport.history import replay as hreplay
    from mindsport.rating.trueskill.margins import MARGIN_BOUND
    from mindsport.rating.trueskill.model import BETA

    model = CardPlay(margin_scale=1.0)
    a, b = model.rating(), model.rating()
    huge, _ = model.rate_with([[a], [b]], [0, 1], margin=1e200)
    edge, _ = model.rate_with([[a], [b]], [0, 1], margin=MARGIN_BOUND * BETA)
    inside, _ = model.rate_with([[a], [b]], [0, 1], margin=MARGIN_BOUND * BETA / 2)
    assert huge == edge != inside
    assert all(math.isfinite(r.mu) and r.sigma > 0 for t in huge for r in t)
    # the replay (scores as margins) bounds them the same way
    ms = [HMatch("g1", 0, [["a"], ["b"]], scores=[1e9, -1e9])]
    at_edge = [HMatch("g1", 0, [["a"], ["b"]], scores=[MARGIN_BOUND * BETA, 0.0])]
    got = hreplay(model, ms).ratings
    assert got == hreplay(model, at_edge).ratings
    assert got["a"].mu == pytest.approx(edge[0][0].mu, rel=1e-12)


def test_the_whole_history_model_clips_margins_too() -> None:
    from mindsport.rating.through_time.model import TrueSkillThroughTime
    from mindsport.rating.trueskill.margins import MARGIN_BOUND
    from mindsport.rating.trueskill.model import BETA

    model = TrueSkillThroughTime(margin_scale=1.0)
    huge = model.history([Match("g1", 0, [["a"], ["b"]], scores=[1e9, -1e9])])
    edge = model.history([Match("g1", 0, [["a"], ["b"]], scores=[MARGIN_BOUND * BETA, 0.0])])
    for p in ("a", "b"):
        assert huge.curve(p).mu.tolist() == edge.curve(p).mu.tolist()
        assert np.isfinite(huge.curve(p).mu).all()
