"""Glicko-2 against Glickman's worked example and an independent root-finder."""

from __future__ import annotations

import math

import pytest
from scipy.optimize import brentq

from mindsport.errors import MindsportError
from mindsport.rating.glicko2.model import Glicko2, Glicko2Rating

S = 173.7178


def reference(
    player: tuple[float, float, float], games: list[tuple[float, float, float]], tau: float
) -> tuple[float, float, float]:
    """Glickman's steps 2-8 written out independently; volatility by Brent's method."""
    mu, phi, sigma = (player[0] - 1500) / S, player[1] / S, player[2]

    def g(p: float) -> float:
        return 1 / math.sqrt(1 + 3 * p * p / math.pi**2)

    es = [(g(r / S), 1 / (1 + math.exp(-g(r / S) * (mu - (o - 1500) / S))), s) for o, r, s in games]
    v = 1 / sum(gg * gg * e * (1 - e) for gg, e, _ in es)
    delta = v * sum(gg * (s - e) for gg, e, s in es)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    x = brentq(f, a - 50, a + 50, xtol=1e-14)
    s2 = math.exp(x / 2)
    phis = math.sqrt(phi**2 + s2**2)
    phin = 1 / math.sqrt(1 / phis**2 + 1 / v)
    mun = mu + phin**2 * sum(gg * (s - e) for gg, e, s in es)
    return 1500 + S * mun, S * phin, s2


def test_glickman_worked_example() -> None:
    g = Glicko2(tau=0.5)
    new = g.rate_period(
        g.rating(1500, 200, 0.06),
        [(g.rating(1400, 30), 1), (g.rating(1550, 100), 0), (g.rating(1700, 300), 0)],
    )
    assert new.rating == pytest.approx(1464.05, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_away_from_1500_uses_phi_not_mu() -> None:
    g = Glicko2(tau=0.5)
    new = g.rate_period(g.rating(1800, 80, 0.06), [(g.rating(1400, 50), 0)] * 10)
    assert new.volatility == pytest.approx(0.060796, abs=1e-6)
    assert new.rating == pytest.approx(1515.06, abs=0.01)
    assert new.rd == pytest.approx(74.35, abs=0.01)
    ref = reference((1800, 80, 0.06), [(1400, 50, 0)] * 10, 0.5)
    assert (new.rating, new.rd, new.volatility) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("tau", [0.3, 0.5, 1.2])
def test_matches_reference(tau: float) -> None:
    g = Glicko2(tau=tau)
    games = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.5), (1900.0, 300.0, 1.0), (1200, 60, 0.0)]
    new = g.rate_period(g.rating(1620, 140, 0.07), [(g.rating(o, r), s) for o, r, s in games])
    ref = reference((1620, 140, 0.07), games, tau)
    assert (new.rating, new.rd, new.volatility) == pytest.approx(ref, rel=1e-6)


def test_idle_period_grows_rd() -> None:
    g = Glicko2()
    p = g.rating(1500, 50, 0.06)
    q = g.rate_period(p, [])
    assert q.rating == 1500 and q.volatility == 0.06
    assert q.rd == pytest.approx(S * math.sqrt((50 / S) ** 2 + 0.06**2))
    assert g.idle(p, 3).rd == pytest.approx(S * math.sqrt((50 / S) ** 2 + 3 * 0.06**2))
    assert Glicko2(max_rd=60).idle(p, 1000).rd == pytest.approx(60)


def test_rate_is_one_game_period_and_refuses_teams() -> None:
    g = Glicko2()
    a, b = g.rating(1500, 200), g.rating(1400, 30)
    out = g.rate([{"a": a}, {"b": b}])
    assert out[0]["a"] == g.rate_period(a, [(b, 1)])
    assert out[1]["b"] == g.rate_period(b, [(a, 0)])
    with pytest.raises(MindsportError, match="individual players"):
        g.rate([(a, b), (g.rating(),)])
    p = g.win_probability((a,), (b,))
    assert 0.5 < p < 1 and p + g.win_probability((b,), (a,)) == pytest.approx(1)
    assert isinstance(out[0]["a"], Glicko2Rating)


def test_elapsed_idle_periods_before_the_game() -> None:
    g = Glicko2(period=7.0)
    a, b = g.rating(1600, 60), g.rating(1500, 90)
    out = g.rate([(a,), (b,)], [0, 1], elapsed=[[14.0], [0.0]])
    a_idle = g.idle(a, 2)
    assert out[0][0] == g.rate_period(a_idle, [(b, 1)])
    assert out[1][0] == g.rate_period(b, [(a_idle, 0)])
    # without a period, elapsed is ignored
    assert Glicko2().rate([(a,), (b,)], elapsed=[[14.0], [0.0]]) == Glicko2().rate([(a,), (b,)])
