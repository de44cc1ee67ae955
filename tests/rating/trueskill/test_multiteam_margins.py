"""Score margins of more than two teams (``cardplay`` with ``margin_scale``): the posterior
the compiled update gives against the exact posterior of the model, computed here with numpy
from its definition (no mindsport code):

* skills ``s ~ N(mu, diag(sigma^2))``, performances ``p = s + N(0, beta^2 I)``, the differences
  of adjacent teams in the finishing order ``d = A p``, each observed as ``y_j ~ N(d_j, s2)``
  and truncated to a win ``d_j > 0`` (no draws);
* the posterior of ``d`` is the Gaussian ``N(A mu, A Sigma_p A^T)`` conditioned on the ``y``
  (closed form), truncated to the positive orthant: its mean and covariance by numerical
  integration on a grid (2 and 3 dimensions for 3 and 4 teams);
* the skills given ``d`` are Gaussian (linear regression on ``d``), so the skills' posterior mean
  and variance follow from the moments of ``d`` exactly.

The update is expectation propagation (moment matching per link in the factor graph's schedule),
so against the exact posterior it agrees up to its approximation (and the grid's error): means
within 0.01 and deviations within 0.005 skill points here, where rating by the order alone
misses by 0.4 to 14 points. Where the margins leave the truncations inactive the posterior is
Gaussian and the update is exact (1e-9). Two teams: the closed form, number for number.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mindsport.match import Match
from mindsport.rating.rating import Rating
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.rating.trueskill.cardplay import CardPlay

BETA = 25 / 6
NOISE = 4.0


def exact_posterior(
    mus: list[float], sigmas: list[float], ys: list[float], grid: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The skills' posterior means and deviations (see the module docstring); ``grid`` None:
    without the truncations (the Gaussian posterior in closed form)."""
    n, m = len(mus), len(mus) - 1
    mu = np.array(mus, float)
    prior = np.diag(np.array(sigmas, float) ** 2)
    a = np.zeros((m, n))
    for j in range(m):
        a[j, j], a[j, j + 1] = 1.0, -1.0
    c_dd = a @ (prior + BETA**2 * np.eye(n)) @ a.T
    c_sd = prior @ a.T
    precision = np.linalg.inv(c_dd) + np.eye(m) / NOISE**2
    cov = np.linalg.inv(precision)
    mean = cov @ (np.linalg.solve(c_dd, a @ mu) + np.array(ys) / NOISE**2)
    e_d, v_d = mean, cov
    if grid is not None:  # truncated to d > 0: moments on a grid (the trapezoid rule)
        sd = np.sqrt(np.diag(cov))
        axes = [
            np.linspace(max(mean[j] - 9 * sd[j], 0.0), mean[j] + 9 * sd[j], grid) for j in range(m)
        ]
        d = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], 1)
        x = d - mean
        log_w = -0.5 * np.einsum("ij,jk,ik->i", x, precision, x)
        w = np.exp(log_w - log_w.max())
        edge = np.ones(grid)
        edge[0] = edge[-1] = 0.5
        for idx in np.unravel_index(np.arange(len(d)), [grid] * m):
            w *= edge[idx]
        w /= w.sum()
        e_d = w @ d
        v_d = (d - e_d).T @ ((d - e_d) * w[:, None])
    k = c_sd @ np.linalg.inv(c_dd)
    e_s = mu + k @ (e_d - a @ mu)
    v_s = prior - k @ c_dd @ k.T + k @ v_d @ k.T
    return e_s, np.sqrt(np.diag(v_s))


def model() -> CardPlay:
    return CardPlay(margin_scale=1.0, margin_noise=NOISE, draw_probability=0.0, tau=0.0)


def rated(mus: list[float], sigmas: list[float], scores: list[float] | None) -> np.ndarray:
    teams = [(Rating(float(m), float(s)),) for m, s in zip(mus, sigmas, strict=True)]
    out, _ = model().rate_with(teams, list(range(len(mus))), margin=scores)
    return np.array([[t[0].mu, t[0].sigma] for t in out])


CASES = [
    ([25, 25, 25], [8.33] * 3, [6, 3, 0], 161),
    ([30, 25, 20], [3, 5, 8], [1, 0.5, 0], 161),
    ([25, 25, 25], [8.33] * 3, [0, 3, 6], 241),  # the scores disagree with the order
    ([25, 25, 25, 25], [8.33] * 4, [9, 6, 3, 0], 101),
    ([20, 27, 25, 30], [4, 6, 5, 3], [2, 1, -1, -2], 121),
    ([25, 25, 25, 25], [8.33] * 4, [0, 2, 4, 6], 121),
]


@pytest.mark.parametrize(("mus", "sigmas", "scores", "grid"), CASES)
def test_three_and_four_teams_match_the_exact_posterior(
    mus: list[float], sigmas: list[float], scores: list[float], grid: int
) -> None:
    ys = [scores[j] - scores[j + 1] for j in range(len(mus) - 1)]
    want_mu, want_sigma = exact_posterior(mus, sigmas, ys, grid)
    got = rated(mus, sigmas, scores)
    assert np.abs(got[:, 0] - want_mu).max() < 0.01
    assert np.abs(got[:, 1] - want_sigma).max() < 0.005
    by_order = rated(mus, sigmas, None)  # the margins are what moves the ratings there
    assert np.abs(by_order[:, 0] - want_mu).max() > 0.4


@pytest.mark.parametrize("scores", [[60, 30, 0], [90, 60, 30, 0]])
def test_margins_far_from_the_truncations_give_the_gaussian_posterior_exactly(
    scores: list[float],
) -> None:
    n = len(scores)
    mus, sigmas = [25.0] * n, [25 / 3] * n
    ys = [scores[j] - scores[j + 1] for j in range(n - 1)]
    want_mu, want_sigma = exact_posterior(mus, sigmas, ys, None)
    got = rated(mus, sigmas, scores)
    np.testing.assert_allclose(got[:, 0], want_mu, atol=1e-9)
    np.testing.assert_allclose(got[:, 1], want_sigma, atol=1e-9)


def test_two_teams_are_the_closed_form_number_for_number() -> None:
    cp = model()
    teams = [(Rating(27.0, 6.0), Rating(22.0, 3.0)), (Rating(24.0, 7.0),)]
    for scores in ([5.0, 2.0], [2.0, 5.0], [1e9, -1e9]):
        y = cp.margin(scores)
        assert y is not None
        assert cp.rate_with(teams, [0, 1], margin=y) == cp.rate_with(teams, [0, 1], margin=scores)


def test_the_replay_rates_scored_tables_as_rate_with() -> None:
    """Four-player tables with final points through the compiled replay (what a store league
    runs) and through ``rate_with`` match by match; ties, a missing score and absurd scores
    (clipped to 100 beta) included."""
    cp = CardPlay(margin_scale=1 / 4000, margin_noise=NOISE)
    rng = np.random.default_rng(38)
    pool = [f"p{i}" for i in range(8)]
    ms = []
    for i in range(40):
        table = list(rng.choice(pool, 4, replace=False))
        points = list(rng.normal(25000, 12000, 4).round(-2))
        if i == 7:
            points = [1e9, -1e9, 0.0, 5.0]
        if i == 11:  # a tie: equal points
            points[1] = points[0]
        ranks = [int(sum(q > x for q in points)) for x in points]
        scores = None if i == 13 else points
        ms.append(Match(f"m{i}", i, [[p] for p in table], ranks, scores=scores))
    replayer = cp.replayer()
    index = PlayerIndex()
    replayer.feed(replayer.encode(ms, index, None), predict=False, keep=False)
    ratings = {p: cp.rating() for p in pool}
    for m in ms:
        players = [t[0] for t in m.teams]
        scaled = cp.scores(m.scores)
        out, _ = cp.rate_with([(ratings[p],) for p in players], list(m.ranks), margin=scaled)
        ratings.update((p, t[0]) for p, t in zip(players, out, strict=True))
    for p in pool:
        got = replayer.value(index.get(p))
        assert got.mu == pytest.approx(ratings[p].mu, abs=1e-9)
        assert got.sigma == pytest.approx(ratings[p].sigma, abs=1e-9)
        assert math.isfinite(got.mu) and math.isfinite(got.sigma)


def test_bad_margins_are_refused() -> None:
    from mindsport.rating.trueskill.model import InvalidGameError

    teams = [(Rating(25.0, 8.0),)] * 3
    with pytest.raises(InvalidGameError, match="one score per team"):
        model().rate_with(teams, [0, 1, 2], margin=[1.0, 2.0])
    with pytest.raises(InvalidGameError, match="finite"):
        model().rate_with(teams, [0, 1, 2], margin=[1.0, math.inf, 0.0])
