"""Whole-history TrueSkill against independent references.

* the peer implementation ``trueskillthroughtime`` 1.1.0 (Landfried's TrueSkill Through Time),
  with its approximate ``erfc`` (relative error about 1e-7) swapped for the exact one so that
  agreement can be asserted tightly: same model, same fixed point;
* mindsport's online TrueSkill through :func:`mindsport.history.replay` (per-game dynamics
  ``tau = 0``, drift over elapsed time): one forward sweep from scratch is online filtering;
* exact posterior moments by numerical integration on small graphs;
* a full recompute, for incremental adds and late results;
* properties from theory: invariance to the input order, to the unit of time, mirror symmetry.

Differences from the peer, not exercised here: for three or more teams it returns each team the
message meant for another unless the teams are listed in finishing order (a slip in its
``Game.likelihood_teams``, which indexes its sorted teams by the sort permutation instead of its
inverse; mindsport agrees with ``trueskill`` 0.4.5 there), it orders tied teams of a
free-for-all in reverse input order (mindsport keeps the input order, as online TrueSkill does, so
``[0, 1, 1, 2]`` links differently), it has no unranked teams, and it stops after a fixed number
of iterations where mindsport raises :class:`ConvergenceError`.
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import log_ndtr

from mindsport.history import replay
from mindsport.match import Match
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.through_time.model import SkillHistory, TrueSkillThroughTime
from mindsport.rating.trueskill.cardplay import CardPlay
from mindsport.rating.trueskill.model import ConvergenceError, InvalidGameError, TrueSkill

MU, SIGMA, BETA = 25.0, 25 / 3, 25 / 6


@pytest.fixture
def ttt(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The peer, with the exact complementary error function."""
    import trueskillthroughtime

    monkeypatch.setattr(trueskillthroughtime, "erfc", math.erfc)
    return trueskillthroughtime


def peer_curves(
    ttt: Any, matches: list[Match], times: list[float], drift: float, p_draw: float, **kw: Any
) -> dict[str, list[tuple[float, float, float]]]:
    """The peer's smoothed curves: player -> [(time, mu, sigma)].

    Teams go to the peer in finishing order: for three or more teams it hands each team the
    message of the team at its own index in the finishing order (so it is right only when that
    order is its own inverse; e.g. ranks ``[0, 3, 1, 2]`` get mixed up).
    """
    orders = [sorted(range(len(m.teams)), key=lambda i, m=m: m.ranks[i]) for m in matches]
    comp = [[list(m.teams[i]) for i in o] for m, o in zip(matches, orders, strict=True)]
    results = [[-float(m.ranks[i]) for i in o] for m, o in zip(matches, orders, strict=True)]
    weights = [
        [list(m.weights[i]) for i in o] if m.weights else []
        for m, o in zip(matches, orders, strict=True)
    ]
    h = ttt.History(
        comp,
        results,
        times,
        mu=MU,
        sigma=SIGMA,
        beta=BETA,
        gamma=drift,
        p_draw=p_draw,
        weights=weights if any(weights) else [],
        **kw,
    )
    h.convergence(epsilon=1e-9, iterations=400, verbose=False)
    return {p: [(t, g.mu, g.sigma) for t, g in pts] for p, pts in h.learning_curves().items()}


def assert_curves_agree(h: SkillHistory, peer: dict[str, Any], tol: float) -> None:
    assert set(h.players) == set(peer)
    for p, pts in peer.items():
        c = h.curve(p)
        assert len(c) == len(pts)
        for (t, mu, sd), tt, m, s in zip(pts, c.times, c.mu, c.sigma, strict=True):
            assert t == tt
            assert abs(mu - m) <= tol, (p, t, mu, m)
            assert abs(sd - s) <= tol, (p, t, sd, s)


def random_duels(seed: int, n_games: int, n_players: int, per_step: int, draws: float) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for g in range(n_games):
        a, b = rng.choice(n_players, 2, replace=False)
        u = rng.random()
        ranks = [0, 0] if u < draws else ([0, 1] if u < (1 + draws) / 2 else [1, 0])
        out.append(Match(f"g{g}", g // per_step, [[f"p{a}"], [f"p{b}"]], ranks))
    return out


def random_games(seed: int, n_games: int, n_players: int, *, partial: bool = False) -> list:
    """Teams of 1-2 players, 2-4 teams, distinct ranks (ties only between two teams), some
    partial play; with ``partial`` also unranked teams and absent players (weight 0)."""
    rng = random.Random(seed)
    out = []
    for g in range(n_games):
        n_teams = rng.choice([2, 2, 3, 4])
        sizes = [rng.choice([1, 1, 2]) for _ in range(n_teams)]
        players = rng.sample(range(n_players), sum(sizes))
        teams, k = [], 0
        for s in sizes:
            teams.append([f"p{x}" for x in players[k : k + s]])
            k += s
        ranks: list[int | None] = list(range(n_teams))
        rng.shuffle(ranks)
        if n_teams == 2 and rng.random() < 0.15:
            ranks = [0, 0]
        if partial and n_teams > 2 and rng.random() < 0.4:
            ranks[rng.randrange(n_teams)] = None
            if all(r is None for r in ranks):
                ranks[0] = 0
        weights = None
        if rng.random() < 0.3:
            lo = 0.0 if partial else 0.2
            weights = [[round(rng.uniform(lo, 1.0), 3) for _ in t] for t in teams]
            for w in weights:
                if max(w) == 0:
                    w[0] = 1.0
        out.append(Match(f"g{g}", g // 6, teams, ranks, weights))
    return out


# ---------------------------------------------------------------- the peer implementation


def test_duels_with_draws_agree_with_the_peer(ttt: Any) -> None:
    ms = random_duels(1, 160, 16, 8, draws=0.1)
    model = TrueSkillThroughTime(drift=0.5, draw_probability=0.1, tolerance=1e-10)
    peer = peer_curves(ttt, ms, [m.time for m in ms], 0.5, 0.1)
    assert_curves_agree(model.history(ms), peer, 1e-7)


def test_teams_free_for_all_and_partial_play_agree_with_the_peer(ttt: Any) -> None:
    ms = random_games(2, 200, 24)
    model = TrueSkillThroughTime(drift=0.3, draw_probability=0.1, tolerance=1e-10)
    peer = peer_curves(ttt, ms, [m.time for m in ms], 0.3, 0.1)
    # the peer stops each game's inner message passing at 1e-6 (or 10 rounds)
    assert_curves_agree(model.history(ms), peer, 2e-5)


def test_days_are_the_time_steps_of_datetimes(ttt: Any) -> None:
    base = datetime(2024, 3, 1, 9, 30)
    rng = np.random.default_rng(3)
    ms = []
    for g in range(120):
        a, b = rng.choice(8, 2, replace=False)
        # several games a day, at different hours: one skill per player per day
        t = base + timedelta(days=int(rng.integers(0, 20)), hours=int(rng.integers(0, 12)))
        ms.append(Match(f"g{g}", t, [[f"p{a}"], [f"p{b}"]], [0, 1]))
    ms.sort(key=lambda m: m.time)
    days = [float((m.time.date() - base.date()).days) for m in ms]
    model = TrueSkillThroughTime(drift=0.4, draw_probability=0.0, tolerance=1e-10)
    h = model.history(ms)
    peer = peer_curves(ttt, ms, days, 0.4, 0.0)
    for p, pts in peer.items():
        c = h.curve(p)
        assert [datetime(2024, 3, 1) + timedelta(days=t) for t, _, _ in pts] == list(c.times)
        assert np.allclose([x[1] for x in pts], c.mu, atol=1e-7)
        assert np.allclose([x[2] for x in pts], c.sigma, atol=1e-7)


# ---------------------------------------------------------------- online TrueSkill


def filtered_like_online(
    model: Any, online: Any, ms: list[Match], fast: bool, start: Rating | None = None
) -> SkillHistory:
    """One forward sweep from scratch of ``model``'s history of ``ms``, checked against the
    ``online`` replay (every player starting from ``start``, by default the model's prior):
    each player's filtered skill at each of his time steps is his online rating after his last
    game (played, weight > 0) of that step. Returns the history."""
    h = SkillHistory(model)
    h.add(ms)  # settles; then one forward sweep from scratch
    h._filter()
    prior = {p: start or model.rating() for p in h.players}
    r = replay(online, ms, predict=False, fast=fast, initial=prior)
    last: dict[tuple[str, float], Rating] = {}
    for m, (_, after) in zip(ms, r.history, strict=True):
        for k, team in enumerate(m.teams):
            for j, p in enumerate(team):
                if m.weights is None or m.weights[k][j] > 0:
                    last[(p, float(m.time))] = after[p]
    checked = 0
    for p in h.players:
        c = h.curve(p)
        for t, mu, sd in zip(c.times, c.mu, c.sigma, strict=True):
            if (p, t) in last:
                want = last[(p, t)]
                assert want.sigma < online.sigma  # the online drift cap is not reached
                assert abs(mu - want.mu) < 1e-9 and abs(sd - want.sigma) < 1e-9
                checked += 1
    assert checked > 200
    return h


def test_one_forward_sweep_is_online_filtering() -> None:
    ms = random_games(4, 240, 20, partial=True)
    drift = 0.3
    model = TrueSkillThroughTime(drift=drift, draw_probability=0.1)
    # online TrueSkill caps the drift at its new-player sigma; the random walk has no cap, so
    # the online model starts everybody from the same prior but with a cap far away
    online = TrueSkill(
        sigma=1e3, tau=0.0, drift=drift, draw_probability=0.1, tolerance=model.tolerance
    )
    filtered_like_online(model, online, ms, fast=False)


def test_per_game_dynamics_filter_like_online_tau() -> None:
    # one game a step: the link after a step widens by tau^2 (its one game) and the drift, as
    # online TrueSkill widens a player before each game; online adds tau^2 before the first
    # game as well, so it starts from the prior narrowed by tau
    ms = random_duels(9, 300, 16, per_step=1, draws=0.1)
    tau, drift = 0.6, 0.2
    model = TrueSkillThroughTime(drift=drift, tau=tau, draw_probability=0.1)
    online = TrueSkill(
        sigma=1e3, tau=tau, drift=drift, draw_probability=0.1, tolerance=model.tolerance
    )
    start = Rating(MU, math.sqrt(SIGMA**2 - tau**2))
    h = filtered_like_online(model, online, ms, fast=True, start=start)
    plain = SkillHistory(TrueSkillThroughTime(drift=drift, draw_probability=0.1))
    plain.add(ms)
    plain._filter()
    moved = max(float(np.abs(h.curve(p).sigma - plain.curve(p).sigma).max()) for p in h.players)
    assert moved > 0.1  # without the dynamics the filter differs


def test_one_game_a_step_makes_per_game_dynamics_a_drift() -> None:
    # four players, each in exactly one game at every step one unit apart: tau^2 per game is
    # drift^2 per unit of time, so the two models are one (and the peer checks the drift)
    rng = random.Random(3)
    ms = []
    for t in range(40):
        a, b, c, d = rng.sample("wxyz", 4)
        ms.append(Match(f"g{t}a", t, [[a], [b]], rng.choice([[0, 1], [1, 0]])))
        ms.append(Match(f"g{t}b", t, [[c], [d]], rng.choice([[0, 1], [1, 0], [0, 0]])))
    by_game = TrueSkillThroughTime(drift=0.0, tau=0.5, tolerance=1e-10).history(ms)
    by_time = TrueSkillThroughTime(drift=0.5, tau=0.0, tolerance=1e-10).history(ms)
    for p in "wxyz":
        a, b = by_game.curve(p), by_time.curve(p)
        assert np.abs(a.mu - b.mu).max() < 1e-7 and np.abs(a.sigma - b.sigma).max() < 1e-7
    # after the last step: one game's dynamics, not the time's
    assert by_game.rating("w", at=45).sigma ** 2 == pytest.approx(
        by_game.rating("w").sigma ** 2 + 0.5**2, rel=1e-12
    )


def with_scores(ms: list[Match], seed: int) -> list[Match]:
    """The matches with scores agreeing with their ranks: sets-like margins of 1-3 points for a
    decided two-team game, level scores for a tie; games of more teams keep no scores."""
    rng = random.Random(seed)
    out = []
    for m in ms:
        scores = None
        if len(m.teams) == 2:
            low = float(rng.randint(0, 2))
            gap = 0.0 if m.ranks[0] == m.ranks[1] else float(rng.randint(1, 3))
            scores = [low + gap, low] if m.ranks[0] == 0 else [low, low + gap]
        out.append(Match(m.id, m.time, m.teams, m.ranks, m.weights, scores))
    return out


def test_one_forward_sweep_with_margins_is_online_filtering_with_margins() -> None:
    ms = with_scores(random_games(6, 240, 20), 6)
    drift = 0.3
    margins = {"margin_scale": 1.5, "margin_noise": 3.0}
    model = TrueSkillThroughTime(drift=drift, draw_probability=0.1, **margins)
    # the online TrueSkill with margins (cardplay without roles, deals or luck; its compiled
    # replay rates the margins), its drift cap far away as in the test without margins
    online = CardPlay(
        sigma=1e3, tau=0.0, drift=drift, draw_probability=0.1, tolerance=model.tolerance, **margins
    )
    h = filtered_like_online(model, online, ms, fast=True)
    plain = SkillHistory(TrueSkillThroughTime(drift=drift, draw_probability=0.1))
    plain.add(ms)
    plain._filter()
    moved = max(float(np.abs(h.curve(p).mu - plain.curve(p).mu).max()) for p in h.players)
    assert moved > 0.5  # the margins are evidence: without them the filter differs


def test_a_single_game_with_a_margin_is_the_online_update() -> None:
    model = TrueSkillThroughTime(draw_probability=0.1, margin_scale=2.0, margin_noise=5.0)
    m = Match("g", 0, [["a", "b"], ["c"]], [1, 0], [[1.0, 0.5], [1.0]], scores=[1, 4])
    h = model.history([m])
    online = CardPlay(tau=0.0, draw_probability=0.1, margin_scale=2.0, margin_noise=5.0)
    teams = [{p: model.rating() for p in t} for t in m.teams]
    weights = [dict(zip(t, w, strict=True)) for t, w in zip(m.teams, m.weights, strict=True)]
    new, _ = online.rate_with(teams, list(m.ranks), weights, margin=online.margin(m.scores))
    for team in new:
        for p, r in team.items():
            got = h.rating(p)
            assert abs(got.mu - r.mu) < 1e-9 and abs(got.sigma - r.sigma) < 1e-9
    # the margin is evidence beyond the win: a narrow win (6 performance points, below the
    # about 10 an average win of these teams stands for) moves the winner less than the win
    # alone, a wide one (20 points) more
    plain = TrueSkillThroughTime(draw_probability=0.1).history([m])
    assert h.rating("c").mu < plain.rating("c").mu - 0.5
    wide = Match("g", 0, m.teams, m.ranks, m.weights, scores=[0, 10])
    assert model.history([wide]).rating("c").mu > plain.rating("c").mu + 1.0


def test_margins_off_ignore_scores() -> None:
    ms = random_games(7, 120, 12)
    scored = with_scores(ms, 7)
    model = TrueSkillThroughTime(drift=0.3, draw_probability=0.1)
    a, b = model.history(ms), model.history(scored)
    for p in a.players:
        assert np.array_equal(a.curve(p).mu, b.curve(p).mu)
        assert np.array_equal(a.curve(p).sigma, b.curve(p).sigma)


def test_a_single_game_is_the_online_update() -> None:
    model = TrueSkillThroughTime(draw_probability=0.1)
    m = Match("g", 0, [["a", "b"], ["c"], ["d"]], [1, 0, None], [[1.0, 0.5], [1.0], [1.0]])
    h = model.history([m])
    teams = [{p: model.rating() for p in t} for t in m.teams]
    weights = [dict(zip(t, w, strict=True)) for t, w in zip(m.teams, m.weights, strict=True)]
    new = model.rate(teams, list(m.ranks), weights)
    for team in new:
        for p, r in team.items():
            got = h.rating(p)
            assert abs(got.mu - r.mu) < 1e-9 and abs(got.sigma - r.sigma) < 1e-9


# ---------------------------------------------------------------- exact posteriors


def exact_moments(cov: np.ndarray, diff: np.ndarray, signs: tuple[float, ...]) -> tuple:
    """Mean and sd of x ~ N(MU, cov) times prod_k Phi(sign_k * (diff_k @ x) / (sqrt2 beta)),
    integrated on a fine grid over the two differences (x given them is Gaussian)."""
    m = np.full(len(cov), MU)
    sd = diff @ cov @ diff.T
    gain = cov @ diff.T @ np.linalg.inv(sd)
    cond = cov - gain @ diff @ cov
    half = 12 * math.sqrt(sd.diagonal().max())
    g = np.linspace(-half, half, 1601)
    d0, d1 = np.meshgrid(g, g, indexing="ij")
    si = np.linalg.inv(sd)
    logw = -0.5 * (si[0, 0] * d0**2 + 2 * si[0, 1] * d0 * d1 + si[1, 1] * d1**2)
    logw += log_ndtr(signs[0] * d0 / (math.sqrt(2) * BETA))
    logw += log_ndtr(signs[1] * d1 / (math.sqrt(2) * BETA))
    w = np.exp(logw - logw.max())
    w /= w.sum()
    e = np.array([(w * d0).sum(), (w * d1).sum()])
    ee = np.array([[(w * d0 * d0).sum(), (w * d0 * d1).sum()], [0.0, (w * d1 * d1).sum()]])
    ee[1, 0] = ee[0, 1]
    mean = m + gain @ e
    var = cond + gain @ (ee - np.outer(e, e)) @ gain.T
    return mean, np.sqrt(var.diagonal())


@pytest.mark.parametrize("tau", [0.0, 2.0])
def test_two_games_on_a_chain_against_numerical_integration(tau: float) -> None:
    # a beats b at time 0, c beats a at time 4: skills (a0, a1, b0, c4); a tree, so expectation
    # propagation is close to exact (not equal: two probit factors meet on a's chain); a's
    # link widens by the drift over 4 units and, with tau, by his one game at time 0
    drift, dt = 1.5, 4.0
    model = TrueSkillThroughTime(drift=drift, tau=tau, draw_probability=0.0, tolerance=1e-10)
    games = [Match("g1", 0, [["a"], ["b"]], [0, 1]), Match("g2", dt, [["c"], ["a"]], [0, 1])]
    h = model.history(games)
    cov = np.zeros((4, 4))
    link = drift**2 * dt + tau**2
    cov[:2, :2] = [[SIGMA**2, SIGMA**2], [SIGMA**2, SIGMA**2 + link]]
    cov[2, 2] = cov[3, 3] = SIGMA**2
    diff = np.array([[1.0, 0, -1, 0], [0, 1, 0, -1]])
    mean, sd = exact_moments(cov, diff, (1.0, -1.0))
    got = [h.curve("a"), h.curve("b"), h.curve("c")]
    ep_mean = [*got[0].mu, *got[1].mu, *got[2].mu]
    ep_sd = [*got[0].sigma, *got[1].sigma, *got[2].sigma]
    assert np.allclose(ep_mean, mean, atol=0.01)
    assert np.allclose(ep_sd, sd, atol=0.01)
    # without the drift between the two steps the answer is far off: the test can tell
    stiff = TrueSkillThroughTime(drift=0.0, draw_probability=0.0)
    h0 = stiff.history(games)
    assert abs(h0.curve("a").sigma[1] - sd[1]) > 0.1


def test_between_and_after_steps_the_skill_is_the_random_walk() -> None:
    model = TrueSkillThroughTime(drift=0.7, draw_probability=0.0, tolerance=1e-10)
    games = [
        Match("g1", 0, [["x"], ["b"]], [0, 1]),
        Match("g2", 10, [["c"], ["x"]], [0, 1]),
        Match("g3", 10, [["b"], ["c"]], [0, 1]),
    ]
    h = model.history(games)
    # a variable at time 4 without a game of its own: an absent player (weight 0) beside a
    # player who plays nobody else
    extra = Match("g4", 4, [["x", "y"], ["z"]], [0, 1], [[0.0, 1.0], [1.0]])
    h2 = model.history([*games, extra])
    at4 = h2.curve("x")
    assert at4.times == (0.0, 4.0, 10.0)
    r = h.rating("x", at=4)
    assert abs(r.mu - at4.mu[1]) < 1e-8 and abs(r.sigma - at4.sigma[1]) < 1e-8
    # after the last step: the mean stays, the variance grows by drift^2 * elapsed
    last = h.rating("x")
    later = h.rating("x", at=16)
    assert later.mu == pytest.approx(last.mu, abs=1e-12)
    assert later.sigma**2 == pytest.approx(last.sigma**2 + 0.7**2 * 6, rel=1e-12)
    # before the first step: the prior, told by the future through the drift
    early = h.rating("x", at=-5)
    assert early.sigma > h.rating("x", at=0).sigma


# ---------------------------------------------------------------- incremental use


@pytest.mark.parametrize("tau", [0.0, 0.5])
def test_incremental_adds_equal_a_full_recompute(tau: float) -> None:
    model = TrueSkillThroughTime(drift=0.4, tau=tau, draw_probability=0.1, tolerance=1e-8)
    ms = random_games(5, 420, 30, partial=True)
    h = model.history(ms[:60])
    for k in range(60, len(ms), 12):  # day by day (two steps a batch)
        h.add(ms[k : k + 12])
    late = model.history([ms[i] for i in range(0, len(ms), 2)])
    late.add([ms[i] for i in range(1, len(ms), 2)])  # results arriving late, into the past
    full = model.history(ms)
    for other in (h, late):
        assert len(other) == len(full) and other.variables == full.variables
        for p in full.players:
            a, b = full.curve(p), other.curve(p)
            assert a.times == b.times
            assert np.abs(a.mu - b.mu).max() < 1e-6
            assert np.abs(a.sigma - b.sigma).max() < 1e-6
    before = {p: h.curve(p) for p in h.players}
    h.recompute()
    for p in h.players:
        assert np.abs(h.curve(p).mu - before[p].mu).max() < 1e-6


def curves_apart(a: SkillHistory, b: SkillHistory) -> float:
    """The largest difference of any smoothed mean or deviation between two histories of the
    same matches."""
    return max(
        max(
            np.abs(a.curve(p).mu - b.curve(p).mu).max(),
            np.abs(a.curve(p).sigma - b.curve(p).sigma).max(),
        )
        for p in a.players
    )


def league_games(seed: int, n_games: int, n_players: int, per_day: int, walk: float) -> list:
    """1v1 games of a league whose players' true skills walk by ``walk`` a day; the winner
    drawn from the logistic of the true difference."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(25.0, 4.0, n_players)
    out = []
    for g in range(n_games):
        if g % per_day == 0:
            skill += rng.normal(0.0, walk, n_players)
        a, b = rng.choice(n_players, 2, replace=False)
        won = rng.random() < 1.0 / (1.0 + math.exp(-(skill[a] - skill[b]) / 3.0))
        out.append(Match(f"g{g}", g // per_day, [[f"p{a}"], [f"p{b}"]], [0, 1] if won else [1, 0]))
    return out


@pytest.mark.parametrize("drift", [0.01, 0.02])
def test_at_the_default_tolerance_adds_and_a_recompute_agree_to_1e_6(drift: float) -> None:
    # a long league (5,000 days): a move below the tolerance flags nothing, so small moves
    # add up unseen unless a closing sweep rechecks all that moved (without that check, adds
    # and a recompute of this league ended 2e-6 apart at tolerance 1e-7 and 1e-5 apart at
    # 1e-6). The default keeps them within 1e-6.
    model = TrueSkillThroughTime(drift=drift, draw_probability=0.0)
    ms = league_games(7, 20_000, 500, 4, 0.2)
    h = model.history(ms[:-20])
    for k in range(len(ms) - 20, len(ms), 4):  # the last five days, one at a time
        h.add(ms[k : k + 4])
    assert curves_apart(model.history(ms), h) < 1e-6


def test_incremental_adds_with_margins_equal_a_full_recompute() -> None:
    model = TrueSkillThroughTime(
        drift=0.4, draw_probability=0.1, tolerance=1e-8, margin_scale=1.0, margin_noise=4.0
    )
    ms = with_scores(random_games(8, 300, 24), 8)
    h = model.history(ms[:60])
    for k in range(60, len(ms), 12):
        h.add(ms[k : k + 12])
    assert curves_apart(model.history(ms), h) < 1e-6


def test_a_game_between_variables_that_exist_already() -> None:
    # the second batch makes no new variable: both players already played at that step
    model = TrueSkillThroughTime(drift=0.3, draw_probability=0.0, tolerance=1e-10)
    ms = [
        Match("g1", 0, [["a"], ["b"]], [0, 1]),
        Match("g2", 0, [["b"], ["c"]], [0, 1]),
        Match("g3", 0, [["c"], ["a"]], [0, 1]),
    ]
    h = model.history(ms[:2])
    h.add(ms[2:])
    full = model.history(ms)
    assert h.variables == full.variables == 3
    for p in "abc":
        assert h.rating(p).mu == pytest.approx(full.rating(p).mu, abs=1e-8)
        assert h.rating(p).sigma == pytest.approx(full.rating(p).sigma, abs=1e-8)


def test_a_late_game_at_a_step_widens_the_link_to_the_next() -> None:
    # the late game adds no variable, but a's step 0 now holds two games: with tau its link to
    # step 5 is wider, which only a sweep from that link can tell the later steps
    ms = [
        Match("g1", 0, [["a"], ["b"]], [0, 1]),
        Match("g2", 5, [["a"], ["c"]], [1, 0]),
        Match("g3", 9, [["c"], ["a"]], [1, 0]),
    ]
    late = Match("g0", 0, [["b"], ["a"]], [1, 0])
    for tau in (0.0, 3.0):
        model = TrueSkillThroughTime(drift=0.3, tau=tau, draw_probability=0.0, tolerance=1e-10)
        h = model.history(ms)
        h.add([late])
        full = model.history([late, *ms])
        assert h.variables == full.variables == 6
        for p in "abc":
            a, b = h.curve(p), full.curve(p)
            assert np.abs(a.mu - b.mu).max() < 1e-8 and np.abs(a.sigma - b.sigma).max() < 1e-8
    # and the dynamics are felt: a's uncertainty at step 5 grows with tau
    still = TrueSkillThroughTime(drift=0.3, draw_probability=0.0).history([late, *ms])
    assert full.curve("a").sigma[1] > still.curve("a").sigma[1] + 0.1


def test_a_new_result_revises_the_past() -> None:
    model = TrueSkillThroughTime(drift=0.2, draw_probability=0.0)
    ms = [Match(f"g{i}", i, [["a"], [f"o{i}"]], [0, 1]) for i in range(5)]
    h = model.history(ms)
    past = h.rating("a", at=0).mu
    h.add([Match("late", 6, [[f"o{i}"] for i in range(3)] + [["a"]], [0, 1, 2, 3])])
    assert h.rating("a", at=0).mu < past  # losing to weaker players says a was weaker then too


# ---------------------------------------------------------------- properties


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_input_order_does_not_matter(seed: int) -> None:
    ms = random_games(seed, 60, 10)
    shuffled = ms[:]
    random.Random(seed).shuffle(shuffled)
    model = TrueSkillThroughTime(drift=0.3, tolerance=1e-10)
    a, b = model.history(ms).ratings(), model.history(shuffled).ratings()
    for p in a:
        assert abs(a[p].mu - b[p].mu) < 1e-7 and abs(a[p].sigma - b[p].sigma) < 1e-7


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.25, 3.0, 7.0]))
def test_the_unit_of_time_does_not_matter(seed: int, k: float) -> None:
    ms = random_duels(seed, 60, 8, 5, draws=0.1)
    slow = [Match(m.id, m.time * k, m.teams, m.ranks) for m in ms]
    a = TrueSkillThroughTime(drift=0.5, tolerance=1e-10).history(ms)
    b = TrueSkillThroughTime(drift=0.5 / math.sqrt(k), time_step=k, tolerance=1e-10).history(slow)
    for p in a.players:
        assert np.allclose(a.curve(p).mu, b.curve(p).mu, atol=1e-7)
        assert np.allclose(a.curve(p).sigma, b.curve(p).sigma, atol=1e-7)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_mirrored_results_mirror_the_skills(seed: int) -> None:
    ms = random_duels(seed, 60, 8, 4, draws=0.2)
    flipped = [Match(m.id, m.time, m.teams, [m.ranks[1], m.ranks[0]]) for m in ms]
    model = TrueSkillThroughTime(drift=0.4, tolerance=1e-10)
    a, b = model.history(ms), model.history(flipped)
    for p in a.players:
        assert np.allclose(a.curve(p).mu - MU, MU - b.curve(p).mu, atol=1e-7)
        assert np.allclose(a.curve(p).sigma, b.curve(p).sigma, atol=1e-7)


def test_hours_as_time_steps() -> None:
    t0 = datetime(2024, 1, 1)
    ms = [
        Match("a", t0 + timedelta(minutes=5), [["x"], ["y"]], [0, 1]),
        Match("b", t0 + timedelta(minutes=50), [["x"], ["z"]], [0, 1]),
        Match("c", t0 + timedelta(minutes=70), [["x"], ["y"]], [0, 1]),
    ]
    daily = TrueSkillThroughTime().history(ms)
    hourly = TrueSkillThroughTime(time_step=1 / 24).history(ms)
    assert len(daily.curve("x")) == 1 and len(hourly.curve("x")) == 2
    assert hourly.curve("x").times[1] == t0 + timedelta(hours=1)


# ---------------------------------------------------------------- errors and limits


def test_bad_input_is_refused_before_anything_changes() -> None:
    model = TrueSkillThroughTime(draw_probability=0.0)
    h = model.history([Match("g1", 1, [["a"], ["b"]], [0, 1])])
    before = h.ratings()
    bad = [
        ([Match("g1", 2, [["a"], ["c"]], [0, 1])], "already in the history"),
        ([Match("g2", 2, [["a"], ["c"]], [0, 0])], "tie, but draw_probability is 0"),
        ([Match("g3", datetime(2024, 1, 1), [["a"], ["c"]], [0, 1])], "datetime"),
        ([Match("g4", 2, [["a"], ["c"]], [0, 1], [[0.0], [1.0]])], "weight 0"),
        (["not a match"], "not a Match"),
    ]
    for batch, words in bad:
        with pytest.raises(InvalidGameError, match=words):
            h.add(batch)
    assert h.ratings() == before and len(h) == 1
    with pytest.raises(InvalidRatingError, match="drift"):
        TrueSkillThroughTime(drift=-1.0)
    with pytest.raises(InvalidRatingError, match="time_step"):
        TrueSkillThroughTime(time_step=0)
    from mindsport.errors import NotFoundError

    with pytest.raises(NotFoundError, match="nobody"):
        h.rating("nobody")


def test_too_few_sweeps_raise_instead_of_stopping_short() -> None:
    model = TrueSkillThroughTime(drift=0.3, max_sweeps=2, tolerance=1e-9)
    with pytest.raises(ConvergenceError, match="did not settle within 2 sweeps"):
        model.history(random_duels(6, 200, 12, 5, draws=0.1))


def test_priors_replace_the_model_prior() -> None:
    model = TrueSkillThroughTime(drift=0.1, draw_probability=0.0)
    known = {"a": Rating(40.0, 1.0)}
    h = model.history([Match("g", 0, [["a"], ["b"]], [1, 0])], priors=known)
    online = TrueSkill(tau=0.0, draw_probability=0.0)
    [(a,), (b,)] = online.rate([(known["a"],), (online.rating(),)], [1, 0])
    assert h.rating("a").mu == pytest.approx(a.mu, abs=1e-9)
    assert h.rating("b").mu == pytest.approx(b.mu, abs=1e-9)
    mu, sigma = h.ratings_at(["a", "nobody"], [5, 5])
    assert sigma[1] == pytest.approx(model.sigma) and mu[1] == pytest.approx(model.mu)
