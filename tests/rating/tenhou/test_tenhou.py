"""Tenhou R against hand-computed values."""

from __future__ import annotations

import pytest

from mindsport.errors import MindsportError
from mindsport.rating.tenhou.model import TenhouR, TenhouRating


def test_brief_example() -> None:
    assert TenhouRating().delta(2000, [2000, 2000, 2000, 2000], 4, 400) == pytest.approx(-6.0)
    assert TenhouRating().delta(2000, [2000, 2000, 2000, 2000], 4, 1000) == pytest.approx(-6.0)


def test_hand_computed() -> None:
    t = TenhouRating()
    # new player 1500 wins at table avg 1650: 1.0 * (30 + 150/40) = 33.75
    assert t.delta(1500, [1500, 1600, 1700, 1800], 1, 0) == pytest.approx(33.75)
    # 100 games: adj 0.8; 3-player second place at avg 1600: 0.8 * (0 + 100/40) = 2.0
    assert t.delta(1500, [1500, 1500, 1800], 2, 100) == pytest.approx(2.0)
    # 399 games: adj 0.202; 1800 second at avg 1700: 0.202 * (10 - 2.5) = 1.515
    assert t.delta(1800, [1800, 1700, 1600, 1700], 2, 399) == pytest.approx(1.515)
    # 3-player third place, 250 games: adj 0.5; avg 1600, own 1700: 0.5 * (-30 - 2.5)
    assert t.delta(1700, [1700, 1600, 1500], 3, 250) == pytest.approx(-16.25)


def test_rate_matches_delta_and_shape() -> None:
    t = TenhouRating()
    players = {"a": TenhouR(1500, 0), "b": TenhouR(1600, 10), "c": TenhouR(1700, 500)}
    d = {"d": TenhouR(1800, 399)}
    out = t.rate([{"a": players["a"]}, {"b": players["b"]}, {"c": players["c"]}, d], [2, 0, 3, 1])
    table = [1500, 1600, 1700, 1800]
    assert out[0]["a"].rating == pytest.approx(1500 + 1.0 * (-10 + 150 / 40))
    assert out[1]["b"].rating == pytest.approx(1600 + 0.98 * (30 + 50 / 40))
    assert out[2]["c"].rating == pytest.approx(1700 + 0.2 * (-30 - 50 / 40))
    assert out[3]["d"].rating == pytest.approx(1800 + t.delta(1800, table, 2, 399))
    assert out[0]["a"].games == 1 and out[2]["c"].games == 501


def test_ties_share_bonus_and_other_sizes() -> None:
    t = TenhouRating()
    out = t.rate([(t.rating(),), (t.rating(),), (t.rating(),), (t.rating(),)], [0, 0, 1, 2])
    assert out[0][0].rating == pytest.approx(1520)  # mean of +30 and +10
    assert [t.bonus(p, 5) for p in range(1, 6)] == [30, 15, 0, -15, -30]
    assert [t.bonus(p, 2) for p in (1, 2)] == [30, -30]


def test_errors() -> None:
    t = TenhouRating()
    with pytest.raises(MindsportError, match="own rating"):
        t.delta(1500, [1600, 1700, 1800], 1, 0)
    with pytest.raises(MindsportError, match="place"):
        t.delta(1500, [1500, 1700], 3, 0)
    with pytest.raises(MindsportError, match="individual players"):
        t.rate([(t.rating(), t.rating()), (t.rating(),)])
    with pytest.raises(MindsportError, match="ranked"):
        t.rate([(t.rating(),), (t.rating(),)], [0, None])


def test_win_probability_slope() -> None:
    t = TenhouRating()
    a, b = (t.rating(1510),), (t.rating(1490),)
    # equilibrium of the rule in a 2-player game: P = 1/2 + dR/4800
    assert t.win_probability(a, b) == pytest.approx(0.5 + 20 / 4800, abs=1e-6)
