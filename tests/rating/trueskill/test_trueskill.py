"""TrueSkill against independent references.

* published test vectors of the reference implementation (``trueskill`` 0.4.5 documentation and
  test suite: 1v1, draw, 2v2, 1v2, 1v3, 4- and 8-player free-for-all, 8-player draw);
* the reference implementation itself (``trueskill`` with its exact ``scipy`` backend), as an
  oracle on randomized games;
* a 60-digit ``mpmath`` evaluation of the closed-form two-player update for extreme upsets;
* Monte Carlo sampling of the performance model for predictions;
* properties that hold by theory (hypothesis).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import trueskill as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.trueskill.model import InvalidGameError, TrueSkill

ENV = TrueSkill()
REF = ref.TrueSkill(backend="scipy")


def to_ref(teams):
    return [tuple(ref.Rating(r.mu, r.sigma) for r in t) for t in teams]


def flat(teams):
    return [(r.mu, r.sigma) for t in teams for r in t]


def assert_close(ours, theirs, tol):
    a, b = flat(ours), flat(theirs)
    assert len(a) == len(b)
    for (m1, s1), (m2, s2) in zip(a, b, strict=True):
        assert abs(m1 - m2) <= tol, (a, b)
        assert abs(s1 - s2) <= tol, (a, b)


# ---------------------------------------------------------------- published vectors

R0 = Rating(25.0, 25 / 3)


@pytest.mark.parametrize(
    ("teams", "ranks", "expected"),
    [
        ([(R0,), (R0,)], None, [(29.396, 7.171), (20.604, 7.171)]),
        ([(R0,), (R0,)], [0, 0], [(25.000, 6.458), (25.000, 6.458)]),
        ([(R0, R0), (R0, R0)], None, [(28.108, 7.774)] * 2 + [(21.892, 7.774)] * 2),
        ([(R0,), (R0, R0)], None, [(33.730, 7.317)] + [(16.270, 7.317)] * 2),
        ([(R0,), (R0, R0, R0)], None, [(36.337, 7.528)] + [(13.663, 7.528)] * 3),
        (
            [(R0,)] * 4,
            None,
            [(33.207, 6.348), (27.401, 5.787), (22.599, 5.787), (16.793, 6.348)],
        ),
        (
            [(R0,)] * 8,
            None,
            [
                (36.771, 5.749),
                (32.242, 5.133),
                (29.074, 4.943),
                (26.322, 4.874),
                (23.678, 4.874),
                (20.926, 4.943),
                (17.758, 5.133),
                (13.229, 5.749),
            ],
        ),
        (
            [(R0,)] * 8,
            [0] * 8,
            [
                (25.000, 4.592),
                (25.000, 4.583),
                (25.000, 4.576),
                (25.000, 4.573),
                (25.000, 4.573),
                (25.000, 4.576),
                (25.000, 4.583),
                (25.000, 4.592),
            ],
        ),
    ],
    ids=["1v1", "1v1-draw", "2v2", "1v2", "1v3", "ffa4", "ffa8-msr", "ffa8-draw"],
)
def test_published_vectors(teams, ranks, expected):
    got = flat(ENV.rate(teams, ranks=ranks))
    for (m, s), (em, es) in zip(got, expected, strict=True):
        assert abs(m - em) < 1.5e-3 and abs(s - es) < 1.5e-3, (got, expected)


def test_quality_published():
    # reference documentation: a fresh 1v1 has quality 0.447
    assert ENV.quality([(R0,), (R0,)]) == pytest.approx(0.4472, abs=1e-4)


# ---------------------------------------------------------------- reference as an oracle


def random_team(rng, size):
    return tuple(
        Rating(float(rng.uniform(5, 45)), float(rng.uniform(0.5, 9.0))) for _ in range(size)
    )


def test_two_teams_match_reference_to_1e6():
    rng = np.random.default_rng(7)
    for _ in range(400):
        teams = [random_team(rng, int(rng.integers(1, 4))) for _ in range(2)]
        env = TrueSkill(draw_probability=float(rng.choice([0.0, 0.1, 0.3])))
        tie = env.draw_probability > 0 and rng.random() < 0.3
        ranks = [0, 0] if tie else [int(x) for x in rng.permutation(2)]
        weights = [tuple(float(rng.uniform(0.1, 1.0)) for _ in t) for t in teams]
        if rng.random() < 0.5:
            weights = None
        oracle = ref.TrueSkill(draw_probability=env.draw_probability, backend="scipy")
        ours = env.rate(teams, ranks=ranks, weights=weights)
        theirs = oracle.rate(to_ref(teams), ranks=ranks, weights=weights)
        assert_close(ours, theirs, 1e-6)


def test_many_teams_with_ties_and_weights_match_reference():
    rng = np.random.default_rng(11)
    for _ in range(150):
        n = int(rng.integers(3, 7))
        teams = [random_team(rng, int(rng.integers(1, 4))) for _ in range(n)]
        ranks = [int(x) for x in rng.integers(0, n - 1, size=n)]
        weights = [tuple(float(rng.uniform(0.2, 1.0)) for _ in t) for t in teams]
        ours = ENV.rate(teams, ranks=ranks, weights=weights)
        theirs = REF.rate(to_ref(teams), ranks=ranks, weights=weights, min_delta=1e-9)
        assert_close(ours, theirs, 1e-4)


def test_two_team_closed_form_equals_the_factor_graph():
    """The compiled two-team closed form is the factor graph's own result, not an approximation
    of it (with drift and partial play)."""
    rng = np.random.default_rng(3)
    env = TrueSkill(drift=0.3, sigma_floor=0.7)
    for _ in range(100):
        teams = [random_team(rng, int(rng.integers(1, 4))) for _ in range(2)]
        ranks = [0, 0] if rng.random() < 0.3 else [int(x) for x in rng.permutation(2)]
        weights = [tuple(float(rng.choice([0.0, 0.5, 1.0])) for _ in t) for t in teams]
        weights = [w if any(w) else (1.0,) * len(w) for w in weights]
        elapsed = [tuple(float(rng.choice([0.0, 3.0, 40.0])) for _ in t) for t in teams]
        assert_close(
            env.rate(teams, ranks=ranks, weights=weights, elapsed=elapsed),
            env.factor_graph(teams, ranks=ranks, weights=weights, elapsed=elapsed),
            1e-9,
        )


def test_compiled_chain_equals_factor_objects():
    """``rate`` (the compiled update) and ``factor_graph`` (factor objects in plain Python) pass
    the same messages."""
    rng = np.random.default_rng(9)
    for _ in range(60):
        n = int(rng.integers(2, 7))
        teams = [random_team(rng, int(rng.integers(1, 4))) for _ in range(n)]
        ranks = [None if rng.random() < 0.2 else int(x) for x in rng.integers(0, n, size=n)]
        if all(r is None for r in ranks):
            ranks[0] = 0
        weights = [tuple(float(rng.choice([0.0, 0.5, 1.0])) for _ in t) for t in teams]
        weights = [w if any(w) else (1.0,) * len(w) for w in weights]
        assert_close(
            ENV.rate(teams, ranks=ranks, weights=weights),
            ENV.factor_graph(teams, ranks=ranks, weights=weights),
            1e-9,
        )


def test_quality_matches_reference():
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(2, 5))
        teams = [random_team(rng, int(rng.integers(1, 4))) for _ in range(n)]
        assert ENV.quality(teams) == pytest.approx(REF.quality(to_ref(teams)), rel=1e-9)


# ---------------------------------------------------------------- extreme upsets


def exact_1vs1(winner: Rating, loser: Rating, env: TrueSkill):
    """Closed-form two-player update evaluated with 60 significant digits."""
    mp = mpmath.mp
    mp.dps = 60
    tau, beta = mpmath.mpf(env.tau), mpmath.mpf(env.beta)
    s1 = mpmath.sqrt(mpmath.mpf(winner.sigma) ** 2 + tau**2)
    s2 = mpmath.sqrt(mpmath.mpf(loser.sigma) ** 2 + tau**2)
    c = mpmath.sqrt(2 * beta**2 + s1**2 + s2**2)
    p = mpmath.mpf(env.draw_probability)
    eps = mpmath.sqrt(2) * mpmath.erfinv(p) * mpmath.sqrt(2) * beta
    x = (mpmath.mpf(winner.mu) - mpmath.mpf(loser.mu)) / c - eps / c
    v = mpmath.npdf(x) / mpmath.ncdf(x)
    w = v * (v + x)
    return (
        (float(winner.mu + s1**2 / c * v), float(mpmath.sqrt(s1**2 * (1 - s1**2 / c**2 * w)))),
        (float(loser.mu - s2**2 / c * v), float(mpmath.sqrt(s2**2 * (1 - s2**2 / c**2 * w)))),
    )


@pytest.mark.parametrize(
    ("winner", "loser"),
    [
        (Rating(-323.263, 2.965), Rating(-48.441, 2.190)),
        (Rating(25.0, 25 / 3), Rating(1000.0, 25 / 3)),
        (Rating(0.0, 1.0), Rating(400.0, 1.0)),
    ],
)
def test_extreme_upsets_are_finite_and_exact(winner, loser):
    a, b = ENV.rate_1vs1(winner, loser)
    (em1, es1), (em2, es2) = exact_1vs1(winner, loser, ENV)
    assert a.mu == pytest.approx(em1, abs=1e-6) and a.sigma == pytest.approx(es1, abs=1e-6)
    assert b.mu == pytest.approx(em2, abs=1e-6) and b.sigma == pytest.approx(es2, abs=1e-6)


def test_issue_vector_at_reference_precision():
    # The reference's test suite checks (-273.361, 2.683), (-75.683, 2.080) with 0 decimals.
    a, b = ENV.rate_1vs1(Rating(-323.263, 2.965), Rating(-48.441, 2.190))
    assert round(a.mu) == round(-273.361) and round(b.mu) == round(-75.683)
    assert round(a.sigma, 3) == 2.683 and round(b.sigma, 3) == 2.080


def test_extreme_draw_is_finite():
    a, b = ENV.rate_1vs1(Rating(0.0, 1.0), Rating(300.0, 1.0), drawn=True)
    assert math.isfinite(a.mu) and math.isfinite(b.mu)
    assert a.mu > 0 and b.mu < 300


# ---------------------------------------------------------------- partial play and rankings


def test_weight_zero_means_no_update_and_absence():
    a, b, c = Rating(30, 4), Rating(20, 5), Rating(26, 3)
    with_absent = ENV.rate([(a, b), (c,)], weights=[(1, 0), (1,)])
    without = ENV.rate([(a,), (c,)])
    assert with_absent[0][1] == b
    assert_close([with_absent[0][:1], with_absent[1]], without, 1e-12)


def test_partial_play_matches_reference():
    teams = [(R0, R0), (R0, R0)]
    weights = [(0.75, 1.0), (1.0, 1.0)]
    assert_close(ENV.rate(teams, weights=weights), REF.rate(to_ref(teams), weights=weights), 1e-6)


def test_unranked_two_teams_is_a_plain_win():
    assert_close(ENV.rate([(R0,), (R0,)], ranks=[0, None]), ENV.rate([(R0,), (R0,)]), 0)


def test_identical_unranked_teams_get_identical_updates():
    teams = [(Rating(27, 3),), (Rating(22, 6),), (R0, R0), (R0, R0), (R0, R0)]
    out = ENV.rate(teams, ranks=[0, 1, None, None, None])
    for t in out[3:]:
        assert_close([t], [out[2]], 1e-7)
    # unranked teams are below every ranked one: they lose mu
    assert all(r.mu < 25 for t in out[2:] for r in t)


def test_unranked_order_does_not_matter():
    a, b, c, d = Rating(30, 5), Rating(20, 6), Rating(24, 2), Rating(26, 7)
    one = ENV.rate([(a,), (b,), (c,), (d,)], ranks=[0, 1, None, None])
    two = ENV.rate([(a,), (b,), (d,), (c,)], ranks=[0, 1, None, None])
    assert_close([one[2], one[3]], [two[3], two[2]], 1e-7)


def test_top_three_of_a_race():
    env = TrueSkill(draw_probability=0.0)
    field = [(env.rating(),) for _ in range(8)]
    out = env.rate(field, ranks=[0, 1, 2, None, None, None, None, None])
    mus = [t[0].mu for t in out]
    assert mus[0] > mus[1] > mus[2] > mus[3]
    assert max(mus[3:]) - min(mus[3:]) < 1e-6


# ---------------------------------------------------------------- shapes, values, validation


def test_dict_teams_keep_keys_and_inputs_are_not_mutated():
    teams = [{"ann": R0, "bob": R0}, {"cy": R0}]
    snapshot = [dict(t) for t in teams]
    out = ENV.rate(teams, ranks=[1, 0])
    assert teams == snapshot
    assert set(out[0]) == {"ann", "bob"} and set(out[1]) == {"cy"}
    assert out[1]["cy"].mu > 25 > out[0]["ann"].mu


def test_dict_weights():
    teams = [{"ann": R0, "bob": R0}, {"cy": R0}]
    by_dict = ENV.rate(teams, weights=[{"bob": 0.5, "ann": 1.0}, {"cy": 1.0}])
    by_list = ENV.rate([(R0, R0), (R0,)], weights=[(1.0, 0.5), (1.0,)])
    assert by_dict[0]["bob"] == by_list[0][1]


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: ENV.rate([(R0,)]), "at least two teams"),
        (lambda: ENV.rate([(R0,), (R0,)], ranks=[0]), "ranks"),
        (lambda: ENV.rate([(R0,), (R0,)], ranks=[0, float("nan")]), "ranks[1]"),
        (lambda: ENV.rate([(R0,), (R0,)], weights=[(1,)]), "weights"),
        (lambda: ENV.rate([(R0,), (R0,)], weights=[(1, 1), (1,)]), "weights[0]"),
        (lambda: ENV.rate([(R0,), (R0,)], weights=[(1.5,), (1,)]), "weights[0][0]"),
        (lambda: ENV.rate([(R0,), (R0,)], weights=[(0,), (1,)]), "weight 0"),
        (lambda: ENV.rate([(R0,), ()]), "teams[1] is empty"),
        (lambda: ENV.rate([(R0,), (3.0,)]), "teams[1][0]"),
        (lambda: ENV.rate([(R0,), (R0,)], ranks=[None, None]), "at least one team"),
        (
            lambda: TrueSkill(draw_probability=0.0).rate([(R0,), (R0,)], ranks=[0, 0]),
            "draw_probability is 0",
        ),
    ],
)
def test_invalid_games_name_the_argument(call, needle):
    with pytest.raises(InvalidGameError) as err:
        call()
    assert needle in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_invalid_sigma(bad):
    with pytest.raises(InvalidRatingError, match="sigma"):
        Rating(25.0, bad)
    with pytest.raises(InvalidRatingError, match="sigma"):
        TrueSkill(sigma=bad)


def test_rating_is_a_hashable_value():
    assert {Rating(1.0, 2.0): 1}[Rating(1.0, 2.0)] == 1


# ---------------------------------------------------------------- predictions


def test_win_probability_by_sampling():
    env = TrueSkill(draw_probability=0.0)
    a, b = (Rating(28, 3), Rating(20, 6)), (Rating(25, 2), Rating(24, 4))
    rng = np.random.default_rng(0)
    n = 400_000

    def perf(team):
        return sum(
            rng.normal(r.mu, math.sqrt(r.sigma**2 + env.tau**2), n) + rng.normal(0, env.beta, n)
            for r in team
        )

    sampled = float(np.mean(perf(a) > perf(b)))
    assert env.win_probability(a, b) == pytest.approx(sampled, abs=4e-3)


def test_outcome_probabilities_sum_to_one_and_draw_rate():
    env = TrueSkill(draw_probability=0.25, tau=0.0)
    # two equal players known exactly (tiny sigma) draw with the configured probability
    sure = Rating(25.0, 1e-9)
    win, draw, loss = env.outcome_probabilities([sure], [sure])
    assert win + draw + loss == pytest.approx(1.0)
    assert draw == pytest.approx(0.25, abs=1e-9)


def test_rank_probabilities_by_sampling():
    env = TrueSkill()
    teams = [(Rating(30, 3),), (Rating(25, 5),), (Rating(25, 1), Rating(1, 1)), (Rating(20, 8),)]
    probs = env.rank_probabilities(teams)
    assert np.allclose(probs.sum(axis=0), 1.0, atol=1e-6)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-9)
    rng = np.random.default_rng(1)
    n = 200_000
    perfs = np.stack(
        [
            sum(rng.normal(r.mu, math.sqrt(r.sigma**2 + env.tau**2 + env.beta**2), n) for r in team)
            for team in teams
        ]
    )
    places = np.argsort(np.argsort(-perfs, axis=0), axis=0)  # 0 = first
    sampled = np.stack([(places == k).mean(axis=1) for k in range(len(teams))], axis=1)
    assert np.abs(probs - sampled).max() < 5e-3


def test_rank_probabilities_two_teams_equal_win_probability():
    env = TrueSkill(draw_probability=0.0)
    a, b = (Rating(27, 4),), (Rating(23, 2),)
    p = env.rank_probabilities([a, b])
    assert p[0, 0] == pytest.approx(env.win_probability(a, b), abs=1e-7)


# ---------------------------------------------------------------- drift and display


def test_decay_is_a_random_walk_capped_at_the_prior():
    env = TrueSkill(drift=0.5)
    r = Rating(30.0, 2.0)
    assert env.decay(r, 4.0).sigma == pytest.approx(math.sqrt(4 + 0.25 * 4))
    assert env.decay(r, 1e9).sigma == env.sigma
    assert env.decay(r, 0.0) == r


def test_rate_with_elapsed_equals_rate_after_decay():
    env = TrueSkill(drift=0.3)
    a, b = Rating(30.0, 2.0), Rating(25.0, 3.0)
    direct = env.rate([(a,), (b,)], elapsed=[(10.0,), (0.0,)])
    manual = env.rate([(env.decay(a, 10.0),), (b,)])
    assert_close(direct, manual, 1e-12)


def test_sigma_floor():
    env = TrueSkill(sigma_floor=2.0, tau=0.0)
    a, b = Rating(25, 2.05), Rating(25, 2.05)
    a2, b2 = env.rate_1vs1(a, b)
    assert a2.sigma == 2.0 and b2.sigma == 2.0


def test_expose_and_levels():
    assert ENV.expose(Rating(30.0, 2.0)) == 24.0
    # with mu0=3, sigma0=1 the patent scales by 50/6: a skill of 3 sigma0 above is level 50
    small = TrueSkill(mu=3.0, sigma=1.0, beta=0.5, tau=0.01)
    assert small.level(Rating(6.0, 1e-9)) == 50
    assert small.level(Rating(3.0, 1e-9)) == 25


# ---------------------------------------------------------------- properties

ratings = st.builds(
    Rating,
    st.floats(min_value=0.0, max_value=50.0),
    st.floats(min_value=0.5, max_value=10.0),
)
teams_st = st.lists(ratings, min_size=1, max_size=3).map(tuple)


@settings(max_examples=150, deadline=None)
@given(st.lists(teams_st, min_size=2, max_size=5), st.data())
def test_sigma_never_grows_without_dynamics(teams, data):
    env = TrueSkill(tau=0.0)
    ranks = data.draw(st.lists(st.integers(0, 3), min_size=len(teams), max_size=len(teams)))
    out = env.rate(teams, ranks=ranks)
    for before, after in zip(teams, out, strict=True):
        for r0, r1 in zip(before, after, strict=True):
            assert r1.sigma <= r0.sigma + 1e-9


@settings(max_examples=150, deadline=None)
@given(ratings, st.integers(2, 6))
def test_winner_never_loses_mu_against_equal_opponents(r, n):
    out = ENV.rate([(r,)] * n)
    assert out[0][0].mu >= r.mu
    assert out[-1][0].mu <= r.mu


@settings(max_examples=100, deadline=None)
@given(st.lists(teams_st, min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_symmetry_under_reordering_teams(teams, random):
    ranks = list(range(len(teams)))
    perm = list(range(len(teams)))
    random.shuffle(perm)
    base = ENV.rate(teams, ranks=ranks)
    shuffled = ENV.rate([teams[i] for i in perm], ranks=[ranks[i] for i in perm])
    for j, i in enumerate(perm):
        assert_close([shuffled[j]], [base[i]], 1e-6)


@settings(max_examples=100, deadline=None)
@given(teams_st, teams_st)
def test_zero_none_equals_zero_one(a, b):
    assert_close(ENV.rate([a, b], ranks=[0, None]), ENV.rate([a, b], ranks=[0, 1]), 0)
