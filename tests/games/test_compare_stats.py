"""The statistics of ``mindsport.games.compare`` against theory and brute force: Wald's bounds
and the Gaussian likelihood ratio, the SPRT's error rates on synthetic data, interval coverage
on synthetic data, the control variate's mean zero and the correction's unbiasedness by
simulation (stated tolerances and seeds), the rotation's line-ups by enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from mindsport.errors import MindsportError
from mindsport.games.compare import Sprt, correct, elo_of, estimate, rotation, score_of
from mindsport.games.compare.estimate import stratified_variance
from mindsport.games.compare.schedule import win_scores
from mindsport.games.contract import GameInfo


def test_wald_bounds_are_wald_formulas() -> None:
    for a, b in [(0.05, 0.05), (0.01, 0.1), (0.2, 0.3)]:
        lower, upper = Sprt(0, 10, a, b).bounds
        # Wald (1945): A = (1 - beta) / alpha, B = beta / (1 - alpha)
        assert math.exp(upper) == pytest.approx((1 - b) / a)
        assert math.exp(lower) == pytest.approx(b / (1 - a))


def test_llr_is_the_gaussian_likelihood_ratio_with_the_sample_variance() -> None:
    rng = np.random.default_rng(11)
    x = rng.uniform(0, 1, 57)
    test = Sprt(-15.0, 35.0)
    s = math.sqrt(x.var())
    w0, w1 = score_of(-15.0), score_of(35.0)
    exact = stats.norm.logpdf(x, w1, s).sum() - stats.norm.logpdf(x, w0, s).sum()
    assert test.llr(x) == pytest.approx(exact, rel=1e-10)


def test_elo_and_score_are_inverse_and_logistic() -> None:
    for elo in (-400.0, -31.0, 0.0, 12.5, 400.0):
        assert elo_of(score_of(elo), 10**9) == pytest.approx(elo, abs=1e-6)
    assert score_of(400.0) == pytest.approx(10 / 11)  # odds 10:1 at 400 Elo
    assert math.isfinite(elo_of(1.0, 20)) and math.isfinite(elo_of(0.0, 20))


def _run_sprt(test: Sprt, mean: float, sd: float, rng: np.random.Generator) -> str:
    values = np.empty(0)
    while True:
        values = np.concatenate([values, rng.normal(mean, sd, 10)])
        verdict = test.state(values).verdict
        if verdict is not None:
            return verdict
        if values.size > 20000:  # pragma: no cover - the test always ends far earlier
            return "none"


@pytest.mark.parametrize("truth", ["H0", "H1"])
def test_sprt_error_rates_stay_within_alpha_and_beta(truth: str) -> None:
    """400 tests at each hypothesis (seed 5): the error rate is within its bound plus three
    binomial standard errors."""
    test = Sprt(0.0, 40.0, alpha=0.05, beta=0.1)
    rng = np.random.default_rng(5 if truth == "H0" else 6)
    mean = score_of(0.0 if truth == "H0" else 40.0)
    runs = 400
    wrong = sum(_run_sprt(test, mean, 0.3, rng) != truth for _ in range(runs))
    bound = test.alpha if truth == "H0" else test.beta
    assert wrong / runs <= bound + 3 * math.sqrt(bound * (1 - bound) / runs)


def test_the_interval_covers_at_its_level_on_synthetic_data() -> None:
    """2000 samples of 30 skewed values (seed 8): coverage of the 95% interval within
    0.95 +- 0.015 (about three binomial standard errors)."""
    rng = np.random.default_rng(8)
    truth = 1.0  # the mean of an exponential of scale 1
    hits = 0
    for _ in range(2000):
        e = estimate(rng.exponential(1.0, 30) + rng.normal(0, 1, 30), 0.95)
        hits += e.low <= truth <= e.high
    assert abs(hits / 2000 - 0.95) <= 0.015


def test_estimate_matches_scipy_t_interval() -> None:
    x = np.array([0.5, 1.0, 0.0, 1.0, 0.5, 1.0])
    e = estimate(x, 0.9)
    low, high = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (e.low, e.high) == pytest.approx((low, high))


def _tiny_world(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A tiny game: an outcome d in {0, 1, 2} (probabilities .5, .3, .2); the bots' result
    depends on d and on their own noise; the reference feature f(d) is fixed; the variate is
    f(d) - mean over 4 calibration outcomes drawn afresh."""
    p = np.array([0.5, 0.3, 0.2])
    f = np.array([-1.0, 0.5, 2.0])
    d = rng.choice(3, n, p=p)
    y = np.array([0.1, 0.6, 1.5])[d] + rng.normal(0, 0.5, n)
    cal = f[rng.choice(3, (n, 4), p=p)].mean(axis=1)
    return y, (f[d] - cal)[:, None]


def test_the_variate_has_mean_zero_by_enumeration() -> None:
    """Exact: E[f(d) - mean_j f(d'_j)] over every outcome of d and two calibration outcomes."""
    p = {0: 0.5, 1: 0.3, 2: 0.2}
    f = {0: -1.0, 1: 0.5, 2: 2.0}
    total = 0.0
    for d, d1, d2 in itertools.product(p, repeat=3):
        total += p[d] * p[d1] * p[d2] * (f[d] - (f[d1] + f[d2]) / 2)
    assert total == pytest.approx(0.0, abs=1e-15)


def test_the_correction_is_unbiased_and_removes_variance() -> None:
    """1000 replications of 60 sets (seed 3): the corrected mean's average equals the true
    mean (0.5*0.1 + 0.3*0.6 + 0.2*1.5 = 0.53) within four standard errors, and its variance is
    below the uncorrected one's."""
    rng = np.random.default_rng(3)
    plain, fixed = [], []
    for _ in range(1000):
        y, c = _tiny_world(rng, 60)
        plain.append(y.mean())
        fixed.append(correct(y, c).values.mean())
    fixed_arr = np.array(fixed)
    assert abs(fixed_arr.mean() - 0.53) <= 4 * fixed_arr.std() / math.sqrt(fixed_arr.size)
    assert fixed_arr.var() < 0.8 * np.var(plain)


def test_a_variate_a_bot_could_game_changes_no_mean() -> None:
    """Bots that play best exactly where the variate is large: still unbiased (seed 4)."""
    rng = np.random.default_rng(4)
    means = []
    for _ in range(1000):
        c = rng.normal(0, 1, (40, 1))
        y = 0.2 + 3.0 * np.maximum(c[:, 0], 0) + rng.normal(0, 0.1, 40)  # E[y] = 0.2 + 3/sqrt(2 pi)
        means.append(correct(y, c).values.mean())
    truth = 0.2 + 3.0 / math.sqrt(2 * math.pi)
    arr = np.array(means)
    assert abs(arr.mean() - truth) <= 4 * arr.std() / math.sqrt(arr.size)


def test_correct_refuses_bad_shapes_and_values() -> None:
    with pytest.raises(MindsportError, match="one value and one row"):
        correct([1.0, 2.0], [[1.0]])
    with pytest.raises(MindsportError, match="finite"):
        correct([1.0, float("nan")], [[1.0], [2.0]])


def test_rotations_are_every_lineup_with_both_bots() -> None:
    two = rotation(GameInfo("g", "G", 2, 0.0, "setups"))
    assert two.lineups == ((0, 1), (1, 0))
    ddz = rotation(GameInfo("d", "D", 3, 0.0, "deal", sides=((0,), (1, 2))))
    assert [ddz.holder(m) for m in range(len(ddz))] == [(0, 1, 1), (1, 0, 0)]
    four = rotation(GameInfo("m", "M", 4, 0.0, "tiles"))
    brute = [c for c in itertools.product((0, 1), repeat=4) if 0 < sum(c) < 4]
    assert list(four.lineups) == brute
    # margins: the first bot's seats minus the second's
    r = np.array([[2.0, -1.0, -1.0], [-2.0, 1.0, 1.0]])
    assert ddz.margins(r).tolist() == [4.0, 4.0]
    assert win_scores([3.0, 0.0, -1.0]).tolist() == [1.0, 0.5, 0.0]
    with pytest.raises(MindsportError, match="do not split"):
        rotation(GameInfo("x", "X", 3, 0.0, "deal", sides=((0,), (1,))))


def test_stratified_variance_is_the_per_lineup_variance() -> None:
    x = np.array([[1.0, 10.0], [3.0, 14.0], [5.0, 12.0]])
    assert stratified_variance(x) == pytest.approx((4.0 + 4.0) / 2)
