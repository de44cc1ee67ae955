"""Replay equals match-by-match rating; metrics against hand computation; fitting."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.history import Match, evaluate, fit, replay
from mindsport.history.evaluate import score_predictions
from mindsport.history.replay import MatchPrediction
from mindsport.rating.elo.model import Elo, EloRating
from mindsport.rating.glicko2.model import Glicko2
from mindsport.rating.trueskill.model import TrueSkill


def small() -> list[Match]:
    return [
        Match("1", 1, [["a"], ["b"]], [0, 1]),
        Match("2", 2, [["b"], ["c"]], [0, 0]),
        Match("3", 3, [["a"], ["c"], ["d"]], [1, 0, 2]),
        Match("4", 4, [["d"], ["a"]], [0, 1]),
    ]


def test_replay_is_rate_match_by_match() -> None:
    elo = Elo(k=24)
    r = replay(elo, small())
    ratings: dict[str, EloRating] = {}
    for m in small():
        teams = [{p: ratings.get(p, elo.rating()) for p in t} for t in m.teams]
        for t in elo.rate(teams, list(m.ranks)):
            ratings.update(t)
    assert r.ratings == ratings
    assert [h[0] for h in r.history] == ["1", "2", "3", "4"]
    # pre-game prediction of match 4: d vs a with the ratings after match 3
    after3 = r.history[2][1]
    ((i, j, p, y),) = r.predictions[3].pairs
    assert (i, j, y) == (0, 1, 1.0)
    a = after3["a"].rating
    d = after3["d"].rating
    assert p == pytest.approx(1 / (1 + 10 ** ((a - d) / 400)))
    assert r.predictions[1].pairs[0][3] == 0.5  # the draw is recorded, not scored


def test_replay_passes_elapsed_to_drift_models() -> None:
    ts = TrueSkill(drift=0.5)
    t0 = datetime(2024, 1, 1)
    ms = [
        Match("1", t0, [["a"], ["b"]], [0, 1]),
        Match("2", t0 + timedelta(days=4), [["a"], ["c"]], [1, 0]),
    ]
    (a1,), _ = ts.rate([(ts.rating(),), (ts.rating(),)], [0, 1], elapsed=[[0.0], [0.0]])
    (a2,), (c2,) = ts.rate([(a1,), (ts.rating(),)], [1, 0], elapsed=[[4.0], [0.0]])
    r = replay(ts, ms, fast=False)  # the object path: exactly rate() match by match
    assert r.ratings["a"] == a2 and r.ratings["c"] == c2
    quick = replay(ts, ms)  # the compiled path: the same numbers to rounding
    for p, want in (("a", a2), ("c", c2)):
        assert quick.ratings[p].mu == pytest.approx(want.mu, abs=1e-9)
        assert quick.ratings[p].sigma == pytest.approx(want.sigma, abs=1e-9)
    no_drift = replay(TrueSkill(), ms).ratings["a"]
    assert no_drift != a2


def test_replay_error_names_match() -> None:
    ms = [Match("team-game", 1, [["a", "b"], ["c"]], [0, 1])]
    with pytest.raises(MindsportError, match=r"team-game.*individual players"):
        replay(Glicko2(), ms)


def test_metrics_by_hand() -> None:
    preds = [
        MatchPrediction(0, "x", ((0, 1, 0.5, 1.0),)),
        MatchPrediction(1, "y", ((0, 1, 0.8, 1.0), (0, 2, 0.3, 1.0), (1, 2, 0.6, 0.5))),
        MatchPrediction(2, "z", ((0, 1, 0.9, 0.0),)),
    ]
    m = score_predictions(preds)
    ps = [(0.5, 1), (0.8, 1), (0.3, 1), (0.9, 0)]
    assert m.pairs == 4 and m.matches == 3
    assert m.log_loss == pytest.approx(-sum(math.log(p if y else 1 - p) for p, y in ps) / 4)
    assert m.brier == pytest.approx(sum((p - y) ** 2 for p, y in ps) / 4)
    assert m.accuracy == pytest.approx(1 / 4)  # only 0.8 is right; 0.5 is no prediction
    assert m.prediction_error == pytest.approx((0.5 + 1 + 1) / 4)
    later = score_predictions(preds, start=1)
    assert later.pairs == 3
    counts = sum(b.count for b in m.calibration)
    assert counts == 8  # each pair enters with both orientations
    top = m.calibration[-1]
    assert top.count == 1 and top.mean_predicted == pytest.approx(0.9) and top.observed == 0


def test_evaluate_start_and_names() -> None:
    ev = evaluate({"elo": Elo(), "fide": Elo(k=40)}, small(), start=0.5)
    assert ev.start == 2 and set(ev.metrics) == {"elo", "fide"}
    assert ev.metrics["elo"].pairs == 3 + 1  # match 3 has three decisive pairs, match 4 one
    ev2 = evaluate([Elo(), Elo()], small())
    assert list(ev2.metrics) == ["Elo", "Elo#2"]
    with pytest.raises(MindsportError):
        evaluate(Elo(), small(), start=1.5)


def synthetic(n: int, seed: int) -> list[Match]:
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1.0, 20)
    out = []
    for t in range(n):
        i, j = rng.choice(20, 2, replace=False)
        p = 1 / (1 + math.exp(-(skill[i] - skill[j])))
        out.append(Match(str(t), t, [[f"p{i}"], [f"p{j}"]], [0, 1] if rng.random() < p else [1, 0]))
    return out


def elo_log_loss(k: float, ms: list[Match]) -> float:
    """Independent Elo one-step-ahead log-loss (closed form, plain dict)."""
    r: dict[str, float] = {}
    total = 0.0
    for m in ms:
        a, b = m.teams[0][0], m.teams[1][0]
        ra, rb = r.get(a, 1500.0), r.get(b, 1500.0)
        e = 1 / (1 + 10 ** ((rb - ra) / 400))
        s = 1.0 if m.ranks[0] == 0 else 0.0
        total -= math.log(e if s else 1 - e)
        r[a], r[b] = ra + k * (s - e), rb - k * (s - e)
    return total / len(ms)


def test_fit_chooses_best_k_by_training_likelihood() -> None:
    ms = synthetic(600, 3)
    grid = {"k": [4.0, 16.0, 32.0, 64.0, 128.0]}
    res = fit(Elo, ms, 0.7, grid)
    train = ms[:420]
    best = min(grid["k"], key=lambda k: elo_log_loss(k, train))
    assert res.params == {"k": best} and res.n_train == 420
    assert res.train_log_loss == pytest.approx(elo_log_loss(best, train))
    # test score: the fitted model replayed over everything, scored on the last 30% only
    full = elo_log_loss(best, ms) * len(ms) - elo_log_loss(best, train) * len(train)
    assert res.test.log_loss == pytest.approx(full / (len(ms) - len(train)))
    assert res.test.pairs == 180
    product = fit("elo", ms, 0.7, grid, search="product")
    assert product.params == res.params


def test_fit_errors() -> None:
    with pytest.raises(MindsportError, match="unknown model"):
        fit("chess-o-meter", small())
    with pytest.raises(MindsportError, match="train_fraction"):
        fit("elo", small(), 1.0)


def test_replay_glicko2_with_rating_period() -> None:
    g = Glicko2(period=2.0)
    ms = [
        Match("1", 0, [["a"], ["b"]], [0, 1]),
        Match("2", 6, [["a"], ["b"]], [1, 0]),
    ]
    r = replay(g, ms)
    (a1,), (b1,) = g.rate([(g.rating(),), (g.rating(),)], [0, 1])
    (a2,), (b2,) = g.rate([(g.idle(a1, 3),), (g.idle(b1, 3),)], [1, 0])
    assert r.ratings == {"a": a2, "b": b2}


def test_fit_skips_settings_the_data_refutes() -> None:
    ms = [Match("tie", -1, [["p1"], ["p2"]], [0, 0]), *synthetic(60, 5)]
    res = fit(TrueSkill, ms, 0.99, {"draw_probability": [0.0, 0.1]})
    assert res.params == {"draw_probability": 0.1}
    assert dict(res.tried)[(("draw_probability", 0.0),)] == math.inf
