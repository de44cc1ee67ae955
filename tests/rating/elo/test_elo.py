"""Elo against its closed form and the FIDE K rule."""

from __future__ import annotations

import math

import pytest

from mindsport.errors import MindsportError
from mindsport.rating.elo.model import Elo, EloRating, FideK


def expected(a: float, b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))


def test_one_vs_one_closed_form() -> None:
    elo = Elo(k=20)
    a, b = elo.rating(1600), elo.rating(1400)
    (na,), (nb,) = elo.rate([(a,), (b,)], [1, 0])  # b wins (lower rank)
    e = expected(1600, 1400)
    assert na.rating == pytest.approx(1600 + 20 * (0 - e))
    assert nb.rating == pytest.approx(1400 + 20 * (1 - (1 - e)))
    assert na.games == nb.games == 1
    assert a == EloRating(1600.0, 0, False)  # input untouched


def test_draw_and_symmetry() -> None:
    elo = Elo(k=32)
    a, b = elo.rate_1vs1(elo.rating(1500), elo.rating(1500), drawn=True)
    assert a.rating == b.rating == 1500
    a, b = elo.rate_1vs1(elo.rating(1500), elo.rating(1500))
    assert (a.rating, b.rating) == (1516.0, 1484.0)
    assert elo.win_probability((elo.rating(1700),), (elo.rating(1300),)) == pytest.approx(
        1 / (1 + 10**-1)
    )


def test_fide_schedule() -> None:
    k = FideK()
    assert k(EloRating(2500, 29)) == 40
    assert k(EloRating(2399, 30)) == 20
    assert k(EloRating(2400, 30)) == 10
    assert k(EloRating(2300, 100, reached_2400=True)) == 10
    elo = Elo(k=FideK())
    # a 30-game player at 2395 beats an equal player: K=20, +10 -> 2405, flag set for good
    (a,), (b,) = elo.rate([(EloRating(2395, 30),), (EloRating(2395, 30),)])
    assert a.rating == pytest.approx(2405) and a.reached_2400 and a.games == 31
    assert b.rating == pytest.approx(2385) and not b.reached_2400
    (a2,), _ = elo.rate([(a,), (EloRating(2405, 50, True),)], [1, 0])
    assert a2.rating == pytest.approx(2405 - 10 * 0.5)
    assert a2.reached_2400  # the flag never goes back
    assert elo.k_factor(EloRating(2390, 40, True)) == 10


def test_teams_average_and_sum() -> None:
    elo = Elo(k=10)
    t1 = {"x": elo.rating(1600), "y": elo.rating(1400)}
    t2 = {"z": elo.rating(1300)}
    n1, n2 = elo.rate([t1, t2])
    e = expected(1500, 1300)
    assert isinstance(n1, dict) and set(n1) == {"x", "y"}
    assert n1["x"].rating == pytest.approx(1600 + 10 * (1 - e))
    assert n1["y"].rating == pytest.approx(1400 + 10 * (1 - e))
    assert n2["z"].rating == pytest.approx(1300 - 10 * (1 - e))
    s1, _ = Elo(k=10, team_strength="sum").rate([t1, t2])
    e = expected(3000, 1300)
    assert s1["x"].rating == pytest.approx(1600 + 10 * (1 - e))


def test_multiplayer_pairwise_mean() -> None:
    elo = Elo(k=30)
    ratings = [(elo.rating(1500),), (elo.rating(1600),), (elo.rating(1400),)]
    out = elo.rate(ratings, [0, 1, 2])
    r = [1500, 1600, 1400]
    for i in range(3):
        diff = 0.0
        for j in range(3):
            if i != j:
                s = 1.0 if i < j else 0.0
                diff += s - expected(r[i], r[j])
        assert out[i][0].rating == pytest.approx(r[i] + 30 * diff / 2)
    total = sum(t[0].rating for t in out)
    assert total == pytest.approx(4500)  # zero-sum with a common K
    out_sum = Elo(k=30, multi_team="sum").rate(ratings, [0, 1, 2])
    assert out_sum[0][0].rating - 1500 == pytest.approx(2 * (out[0][0].rating - 1500))


def test_unranked_and_weights() -> None:
    elo = Elo(k=20)
    a, b, c = (elo.rating(),), (elo.rating(),), (elo.rating(),)
    out = elo.rate([a, b, c], [0, None, None])
    assert out[0][0].rating == pytest.approx(1510)
    assert out[1][0].rating == pytest.approx(1490)  # only compared with the ranked team
    out = elo.rate([a, b], [0, 1], weights=[[0.5], [1.0]])
    assert out[0][0].rating == pytest.approx(1505)


def test_errors() -> None:
    elo = Elo()
    with pytest.raises(MindsportError, match="at least two"):
        elo.rate([(elo.rating(),)])
    with pytest.raises(MindsportError, match="EloRating"):
        elo.rate([(1500.0,), (elo.rating(),)])
    with pytest.raises(MindsportError, match="ranks"):
        elo.rate([(elo.rating(),), (elo.rating(),)], [0])
    with pytest.raises(MindsportError, match="team_strength"):
        Elo(team_strength="max")  # type: ignore[arg-type]
    assert math.isfinite(elo.expose(elo.rating()))
