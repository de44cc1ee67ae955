"""Rolling-origin prediction of whole-history models, against refits from scratch and the closed
form of a duel's win probability; the same pairs scored as for an online model; the model in the
registry, ``fit`` and ``evaluate`` (store leagues: ``tests/store/test_whole_history.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from mindsport.history import Match, evaluate, fit
from mindsport.history.rolling import rolling_predictions
from mindsport.rating import TrueSkill, TrueSkillThroughTime, build_model

BETA = 25 / 6


def duels(seed: int, n: int, players: int, *, drift: float = 0.0) -> list[Match]:
    """Duels decided by true skills that walk randomly (``drift`` per step) and performance
    noise ``BETA``; two matches per time step."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(25.0, 4.0, players)
    out = []
    for g in range(n):
        if g % 2 == 0:
            skill = skill + rng.normal(0.0, drift, players) if drift else skill
        a, b = rng.choice(players, 2, replace=False)
        a_wins = skill[a] + rng.normal(0, BETA) > skill[b] + rng.normal(0, BETA)
        out.append(Match(f"g{g}", g // 2, [[f"p{a}"], [f"p{b}"]], [0, 1] if a_wins else [1, 0]))
    return out


def test_each_block_is_predicted_from_a_fit_on_everything_before_it() -> None:
    model = TrueSkillThroughTime(drift=0.3, draw_probability=0.0, tolerance=1e-10)
    ms = duels(1, 100, 12)
    preds = rolling_predictions(model, ms, blocks=4, start=20)
    assert [len(mp.pairs) for mp in preds[:20]] == [0] * 20  # learned from, not predicted
    for a, b in ((20, 40), (40, 60), (60, 80), (80, 100)):  # four blocks of 20
        fresh = model.history(ms[:a])  # refitted from scratch, not incrementally
        for k in range(a, b):
            m = ms[k]
            (pa,), (pb,) = m.teams
            ra = fresh.rating(pa, at=m.time) if pa in fresh.players else model.rating()
            rb = fresh.rating(pb, at=m.time) if pb in fresh.players else model.rating()
            c = math.sqrt(2 * BETA**2 + ra.sigma**2 + rb.sigma**2)
            ((i, j, p, y),) = preds[k].pairs
            assert (i, j, y) == (0, 1, 1.0 if m.ranks == (0, 1) else 0.0)
            assert p == pytest.approx(norm.cdf((ra.mu - rb.mu) / c), abs=1e-6)


def test_a_block_is_predicted_without_its_own_results() -> None:
    model = TrueSkillThroughTime(drift=0.3, draw_probability=0.0)
    ms = duels(2, 60, 8)
    flipped = ms[:30] + [Match(m.id, m.time, m.teams, m.ranks[::-1]) for m in ms[30:45]] + ms[45:]
    a = rolling_predictions(model, ms, blocks=4)
    b = rolling_predictions(model, flipped, blocks=4)
    block = range(30, 45)  # the third of four blocks of 15
    for k in block:
        assert a[k].pairs[0][2] == pytest.approx(b[k].pairs[0][2], abs=1e-12)
    later = [abs(a[k].pairs[0][2] - b[k].pairs[0][2]) for k in range(45, 60)]
    assert max(later) > 0.05  # the next block sees them


def test_evaluate_scores_the_same_pairs_as_for_an_online_model() -> None:
    ms = duels(3, 200, 10, drift=1.5)
    ms += [
        Match("tie", 100, [["p1"], ["p2"]], [0, 0]),
        Match("ffa", 100, [["p3"], ["p4"], ["p5"]], [1, 0, None]),
    ]
    model = TrueSkillThroughTime(drift=0.5, draw_probability=0.1)
    ev = evaluate({"history": model, "online": TrueSkill()}, ms, start=0.5)
    h, o = ev.metrics["history"], ev.metrics["online"]
    assert (
        (h.matches, h.pairs) == (o.matches, o.pairs) == (100, 102)
    )  # 99 duels, the tie unscored, 3 pairs of the ffa
    assert "history" not in ev.replays and "online" in ev.replays
    # skills that walk fast: a model that follows them predicts better than one that stands still
    still = evaluate({"still": TrueSkill(tau=0.0)}, ms, start=0.5).metrics["still"]
    assert h.log_loss < still.log_loss


def test_fit_searches_the_registered_whole_history_model() -> None:
    ms = duels(4, 300, 10, drift=2.0)
    res = fit("trueskill-history", ms, 0.7, {"drift": (0.01, 1.0)}, fixed={"draw_probability": 0})
    assert res.params == {"draw_probability": 0, "drift": 1.0}  # the skills do walk
    assert isinstance(res.model, TrueSkillThroughTime) and res.model.drift == 1.0
    assert res.test.pairs == 90
    assert build_model("trueskill-history", drift=0.2).drift == 0.2
