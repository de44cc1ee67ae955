"""The expected result of a Dou Dizhu deal: played out by reference bots, and predicted."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from mindsport.doudizhu import Deal
from mindsport.tournament.doudizhu.games import Game, play_games, random_deals
from mindsport.tournament.doudizhu.luck import LuckModel, luck_from_rate, played_luck
from mindsport.tournament.errors import TournamentError

# the landlord holds the rocket, three bombs of the highest ranks and the 2s
STRONG = Deal.parse("[9TJQQQKKKKAAAA2222XD][33334444555566667][7778888999TTTJJJQ]")


def test_luck_is_the_probit_of_the_rate() -> None:
    rates = np.array([0.001, 0.2, 0.5, 0.9, 1.0])
    want = [NormalDist().inv_cdf(min(max(p, 1 / 200), 199 / 200)) for p in rates]
    assert luck_from_rate(rates) == pytest.approx(want, abs=1e-12)


def test_played_luck_counts_the_reference_games() -> None:
    deals = [STRONG, *random_deals(3, np.random.default_rng(4))]
    played = played_luck(deals, 7, tables=12)
    assert played.scores.shape == (4, 12)
    # the same games played directly through the game runner, keyed as documented
    games = [
        Game(d, ("level:50",) * 3, (0, 0, j, k)) for j, d in enumerate(deals) for k in range(12)
    ]
    direct = play_games(games, 7).reshape(4, 12)
    assert np.array_equal(played.scores, direct)
    wins = (direct > 0).sum(axis=1)
    assert played.win_rate == pytest.approx((wins + 0.5) / 13)
    assert played.mean_score == pytest.approx(direct.mean(axis=1))
    assert played.luck == pytest.approx([NormalDist().inv_cdf(p) for p in played.win_rate])
    assert played.gdi is not None and played.gdi.shape[0] == 4
    with pytest.raises(TournamentError, match="tables"):
        played_luck(deals, 7, tables=0)


def test_fast_estimate_ranks_deals_like_the_played_ones() -> None:
    model = LuckModel.simulate(300, 1, tables=8)
    deals = random_deals(150, np.random.default_rng(2))
    played = played_luck(deals, 2, tables=8)
    predicted = model.win_rate(deals)
    assert np.all((predicted >= 1 / 200) & (predicted <= 199 / 200))
    # held-out deals: the cards alone explain a good part of the played win rate
    assert np.corrcoef(predicted, played.win_rate)[0, 1] > 0.4
    assert model.luck(deals[:5]) == pytest.approx(luck_from_rate(predicted[:5]))
