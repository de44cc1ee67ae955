"""Three-way (win/draw/loss) scores: against hand computation, Davidson's model against its
defining equations, the compiled draw probability against the model's own Python formula."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.history import evaluate, fit
from mindsport.history.evaluate import BASELINE
from mindsport.history.replay import MatchPrediction, replay
from mindsport.history.threeway import (
    constant_baseline,
    davidson,
    fit_nu,
    score_forecasts,
    three_way,
)
from mindsport.match import Match
from mindsport.rating import Elo, TrueSkill
from mindsport.rating.registry import build_model, model_names


@pytest.mark.parametrize("nu", [0.0, 0.3, 1.0, 4.0])
def test_davidson_keeps_the_expected_score_and_sums_to_one(nu: float) -> None:
    e = np.array([0.01, 0.2, 0.5, 0.77, 0.99])
    p = davidson(e, nu)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(p[:, 0] + p[:, 1] / 2, e, rtol=1e-10)
    # Davidson's form: P(draw) = nu sqrt(P(ahead) P(behind))
    np.testing.assert_allclose(p[:, 1], nu * np.sqrt(p[:, 0] * p[:, 2]), rtol=1e-10, atol=1e-15)
    if nu == 0.0:
        np.testing.assert_allclose(p[:, 0], e, rtol=1e-12)


def test_fit_nu_between_even_sides_is_the_observed_draw_share() -> None:
    # E = 1/2 everywhere: P(draw) = nu / (2 + nu), so the likelihood peaks where that is the
    # observed share f: nu = 2 f / (1 - f)
    cls = np.array([1] * 3 + [0] * 4 + [2] * 3)  # f = 0.3
    nu = fit_nu(np.full(10, 0.5), cls)
    assert nu == pytest.approx(2 * 0.3 / 0.7, rel=1e-4)


def test_fit_nu_matches_a_brute_force_search() -> None:
    rng = np.random.default_rng(5)
    e = rng.uniform(0.05, 0.95, 200)
    cls = rng.integers(0, 3, 200)
    grid = np.exp(np.linspace(math.log(1e-3), math.log(50), 20001))

    def ll(nu: float) -> float:
        p = davidson(e, nu)
        return float(np.sum(np.log(p[np.arange(200), cls])))

    best = grid[int(np.argmax([ll(v) for v in grid]))]
    assert fit_nu(e, cls) == pytest.approx(best, rel=1e-3)


def test_scores_by_hand() -> None:
    probs = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    cls = np.array([0, 1, 0])
    tw = score_forecasts(probs, cls, source="test", bins=2)
    assert tw is not None
    assert tw.matches == 3
    assert tw.log_loss == pytest.approx(-(math.log(0.5) + math.log(0.6) + math.log(0.2)) / 3)
    brier = (
        (0.5**2 + 0.3**2 + 0.2**2) + (0.1**2 + 0.4**2 + 0.3**2) + (0.8**2 + 0.2**2 + 0.6**2)
    ) / 3
    assert tw.brier == pytest.approx(brier)
    assert tw.draw_rate_predicted == pytest.approx((0.3 + 0.6 + 0.2) / 3)
    assert tw.draw_rate_observed == pytest.approx(1 / 3)
    assert tw.ahead_rate_predicted == pytest.approx((0.5 + 0.1 + 0.2) / 3)
    assert tw.ahead_rate_observed == pytest.approx(2 / 3)
    # "ahead" curve: (0.5, 1) (0.1, 0) (0.2, 1) and behind sides (0.2, 0) (0.3, 0) (0.6, 0)
    low, high = tw.calibration_ahead
    assert (low.count, high.count) == (4, 2)
    assert low.mean_predicted == pytest.approx((0.1 + 0.2 + 0.2 + 0.3) / 4)
    assert low.observed == pytest.approx(1 / 4)  # only (0.2, 1)
    assert high.observed == pytest.approx(1 / 2)  # (0.5, 1) and (0.6, 0)
    d_low, d_high = tw.calibration_draw
    assert (d_low.count, d_high.count) == (2, 1)
    assert d_high.observed == 1.0


def test_three_way_of_a_model_with_draw_probabilities_by_hand() -> None:
    preds = [
        MatchPrediction(0, "a", ((0, 1, 0.7, 1.0),), (0.2,)),
        MatchPrediction(1, "b", ((0, 1, 0.4, 0.5),), (0.3,)),
        MatchPrediction(2, "c", ((0, 1, 0.6, 0.0), (0, 2, 0.5, 1.0), (1, 2, 0.5, 1.0))),  # 3 teams
        MatchPrediction(3, "d", ((0, 1, 0.9, 0.0),), (0.1,)),
    ]
    tw = three_way(preds, start=1)
    assert tw is not None and tw.source == "model" and tw.nu is None
    assert tw.matches == 2  # b and d; c has three teams
    expect = -(math.log(0.3) + math.log(0.9 * 0.1)) / 2
    assert tw.log_loss == pytest.approx(expect)
    pb = np.array([0.7 * 0.4, 0.3, 0.7 * 0.6])
    pd = np.array([0.9 * 0.9, 0.1, 0.9 * 0.1])
    brier = (np.sum((pb - [0, 1, 0]) ** 2) + np.sum((pd - [0, 0, 1]) ** 2)) / 2
    assert tw.brier == pytest.approx(brier)


def test_three_way_of_expected_scores_fits_nu_on_the_training_part_only() -> None:
    preds = [
        MatchPrediction(i, f"m{i}", ((0, 1, 0.5, y),))
        for i, y in enumerate([0.5, 1.0, 0.5, 0.0, 1.0, 0.5, 0.5, 0.5])
    ]
    tw = three_way(preds, start=4)  # trained on 0.5 1 0.5 0: half draws, nu = 2
    assert tw is not None and tw.source == "davidson"
    assert tw.nu == pytest.approx(2.0, rel=1e-4)
    # even sides, nu 2: (1/4, 1/2, 1/4); scored on 1, 0.5, 0.5, 0.5
    assert tw.log_loss == pytest.approx(-(math.log(0.25) + 3 * math.log(0.5)) / 4, rel=1e-6)
    assert three_way(preds, start=0) is None  # no training part, no nu


def test_constant_baseline_by_hand() -> None:
    ranks = [[0, 1], [0, 0], [1, 0], [0, 1], [0, 0], [0, 1], [1, 0]]
    ms = [Match(f"m{i}", i, [["a"], ["b"]], r) for i, r in enumerate(ranks)]
    ms.insert(2, Match("three", 2.5, [["a"], ["b"], ["c"]], [0, 1, 2]))  # not counted
    tw = constant_baseline(ms, start=5)
    # training two-team matches: 0 1 2 3 (indices 0 1 3 4): rates ahead 2/4, draw 1/4, behind 1/4
    assert tw is not None and tw.source == "constant"
    assert tw.matches == 3  # ranks [0,0], [0,1], [1,0]
    assert tw.log_loss == pytest.approx(-(math.log(0.25) + math.log(0.5) + math.log(0.25)) / 3)
    assert tw.draw_rate_predicted == pytest.approx(0.25)
    assert tw.ahead_rate_predicted == pytest.approx(0.5)


def _duels(n: int, seed: int, draw_every: int = 3) -> list[Match]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a, b = rng.choice(6, 2, replace=False)
        r = [0, 0] if draw_every and i % draw_every == 0 else [0, 1]
        out.append(Match(f"m{i}", i, [[f"p{a}"], [f"p{b}"]], r))
    return out


def test_compiled_draw_probability_is_the_python_models() -> None:
    ms = _duels(60, 1)
    ms.append(Match("ffa", 61, [["p0"], ["p1"], ["p2", "p3"]], [0, 1, 1]))
    model = TrueSkill(draw_probability=0.25)
    fast = replay(model, ms, keep_history=False)
    slow = replay(model, ms, keep_history=False, fast=False)  # outcome_probabilities
    assert len(fast.predictions[0].draws) == 1
    for a, b in zip(fast.predictions, slow.predictions, strict=True):
        np.testing.assert_allclose(a.draws, b.draws, rtol=1e-9, atol=1e-12)
        assert len(a.draws) == len(a.pairs)
    first = fast.predictions[0].draws[0]
    assert first == pytest.approx(
        model.outcome_probabilities([model.rating()], [model.rating()])[1]
    )


def test_elo_predicts_no_draw_probability() -> None:
    r = replay(Elo(), _duels(5, 2), keep_history=False)
    assert all(mp.draws == () for mp in r.predictions)


def test_evaluate_takes_every_registered_name() -> None:
    ms = _duels(40, 3)
    # the dan ladder rates four-player tables only: its name is taken, the duels refused by
    # the model itself (naming a match), not as an unknown name
    with pytest.raises(MindsportError, match="four-player tables"):
        evaluate(["tenhou-dan"], ms, start=0.5)
    names = [n for n in model_names() if n != "tenhou-dan"]
    ev = evaluate(names, ms, start=0.5)
    assert list(ev.metrics) == names
    for name in names:
        direct = evaluate({name: build_model(name)}, ms, start=0.5).metrics[name]
        assert ev.metrics[name].log_loss == pytest.approx(direct.log_loss)
        tw = ev.metrics[name].three_way
        assert tw is not None and tw.matches == 20 and math.isfinite(tw.log_loss)
    rows = ev.table()
    assert rows[-1]["model"] == BASELINE and rows[-1]["wdl_matches"] == 20


def test_fit_scores_three_ways_where_draws_occur() -> None:
    # equal players, every other game drawn: a larger draw margin must win on the three-way
    # log-loss (the pairwise one never sees a draw)
    ms = _duels(200, 4, draw_every=2)
    res = fit("trueskill", ms, 0.7, grid={"draw_probability": (0.05, 0.6)})
    assert res.objective == "three-way"
    assert res.params["draw_probability"] == 0.6
    assert res.test.three_way is not None
    no_draws = _duels(60, 4, draw_every=0)
    assert fit("elo", no_draws, 0.7, grid={"k": (16.0, 32.0)}).objective == "pairwise"
    with pytest.raises(Exception, match="objective"):
        fit("elo", no_draws, 0.7, objective="both")  # type: ignore[arg-type]
