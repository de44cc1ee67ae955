"""Seats against the average seat (``cardplay``'s seat statistics) against independent references.

* the estimate and its sandwich interval from given sums: the two-side case solved by hand
  (the difference ``d`` of two sides satisfies ``h d = b``; its variance is ``j / h^2``);
* coverage in simulation, against the binomial law: leagues simulated from TrueSkill's own
  performance model (skill plus ``N(0, beta^2)`` noise per player, a team's performance the sum
  of its players', the seat's edge added to its team), a four-seat mahjong-like league (East
  +3.00 over the other seats: +2.25 against the average seat) and a Dou Dizhu-like one (the
  landlord alone against two farmers, the landlord's side +24 performance points, so at a
  table of three players of the league's mean skill ``m`` it is ``(24 - m) / 2`` above the
  average side; the model's ratings may sit at another level than the skills). Over 100
  leagues a 95% interval covers the truth at least 87 times with probability 0.999
  (``scipy.stats.binom``), while an interval of true coverage 70% does so with probability
  below 1e-4; the intervals are not wider than 1.6 times the spread of the estimates across
  leagues, and the estimates are unbiased within three standard errors of their mean;
* identification: Dou Dizhu's farmers always sit together, so each farmer alone is not
  identified, their side is; a seat's edge does not depend on the prior of the roles.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mindsport.match import Match
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.rating.trueskill.cardplay import CardPlay
from mindsport.rating.trueskill.seats import (
    COLUMNS,
    COUNT,
    MAX_SIDES,
    SCORE,
    SLOPE,
    WIDTH,
    SeatStatistics,
    seat_edges,
)

BETA = 25 / 6
SEATS = ("East", "South", "West", "North")
LEAGUES = 100


def mahjong_league(seed: int, n_matches: int, edge: float = 3.0) -> tuple[list[Match], float]:
    """Four single-player teams, seats in table order, East ``edge`` ahead; the truth of East
    against the average seat."""
    rng = np.random.default_rng([seed, 38])
    skills = rng.normal(25.0, 4.0, 12)
    out = []
    for k in range(n_matches):
        table = rng.choice(12, 4, replace=False)
        perf = skills[table] + rng.normal(0.0, BETA, 4)
        perf[0] += edge
        ranks = np.argsort(np.argsort(-perf)).tolist()
        out.append(Match(f"m{k}", k, [[f"p{p}"] for p in table], ranks,
                         roles=[[s] for s in SEATS]))  # fmt: skip
    return out, edge * 3 / 4


def doudizhu_league(seed: int, n_matches: int, edge: float = 24.0) -> tuple[list[Match], float]:
    """The landlord alone against two farmers (a team of two: the sum of their performances),
    the landlord's side ``edge`` ahead; the truth of the landlord's side against the average
    side at a table of players of the league's mean skill."""
    rng = np.random.default_rng([seed, 3])
    skills = rng.normal(25.0, 4.0, 12)
    out = []
    for k in range(n_matches):
        a, b, c = rng.choice(12, 3, replace=False)
        perf = skills[[a, b, c]] + rng.normal(0.0, BETA, 3)
        ranks = [0, 1] if perf[0] + edge > perf[1] + perf[2] else [1, 0]
        out.append(
            Match(f"d{k}", k, [[f"p{a}"], [f"p{b}", f"p{c}"]], ranks,
                  roles=[["landlord"], ["farmer1", "farmer2"]])
        )  # fmt: skip
    return out, (edge - float(skills.mean())) / 2


def _replayed(matches: list[Match], model: CardPlay | None = None):  # type: ignore[no-untyped-def]
    replayer = (model or CardPlay(draw_probability=0.0)).replayer()
    replayer.feed(replayer.encode(matches, PlayerIndex(), None), predict=False, keep=False)
    return replayer


def test_two_sides_by_hand() -> None:
    """Two sides compared with information ``h``, linearised score ``b`` and score product
    ``j`` (the slope never met): side 0 stands ``b / (2 h)`` above the average, with variance
    ``j / (4 h^2)``."""
    s = np.zeros((WIDTH, COLUMNS))
    h, b, j = 0.8, 2.4, 1.3
    s[0, 0] = s[1, 1] = h
    s[0, 1] = s[1, 0] = -h
    s[0, WIDTH] = s[1, WIDTH + 1] = j
    s[0, WIDTH + 1] = s[1, WIDTH] = -j
    s[0, SCORE], s[1, SCORE] = b, -b
    s[0, COUNT] = s[1, COUNT] = 10
    a, other = seat_edges(["a", "b"], s)
    z = stats.norm.ppf(0.975)
    sd = math.sqrt(j / (4 * h * h))
    assert a.vs_average == pytest.approx(b / (2 * h), rel=1e-9)
    assert other.vs_average == pytest.approx(-b / (2 * h), rel=1e-9)
    assert (a.low, a.high) == pytest.approx((b / (2 * h) - z * sd, b / (2 * h) + z * sd))
    assert a.teams == 10 and a.roles == ("a",)


def test_a_side_never_compared_is_not_identified() -> None:
    s = np.zeros((WIDTH, COLUMNS))
    s[0, 0] = s[1, 1] = 1.0
    s[0, 1] = s[1, 0] = -1.0
    s[0, WIDTH] = s[1, WIDTH + 1] = 1.0
    s[0, WIDTH + 1] = s[1, WIDTH] = -1.0
    s[0, SCORE], s[1, SCORE] = 0.5, -0.5
    edges = seat_edges(["a", "b", "c"], s)
    assert edges[0].vs_average == pytest.approx(0.25) and edges[2].vs_average is None
    assert SLOPE == MAX_SIDES


def test_statistics_survive_their_stored_form() -> None:
    """What a store keeps (``states``) loads back to the same estimate, in another order."""
    replayer = _replayed(mahjong_league(1, 120)[0])
    states = replayer.virtual_states()
    again = CardPlay().replayer()
    again.load_virtual(dict(reversed(list(states.items()))))
    want = replayer.seat_edges()
    assert [e.side for e in want] == ["East", "North", "South", "West"]  # by name
    for a, b in zip(again.seat_edges(), want, strict=True):
        assert a.side == b.side and a.teams == b.teams == 120
        assert (a.vs_average, a.low, a.high) == pytest.approx((b.vs_average, b.low, b.high))
    assert again.roles() == replayer.roles()


def _coverage(make, n_matches: int) -> tuple[int, float, float, float]:  # type: ignore[no-untyped-def]
    """Over ``LEAGUES`` leagues: how often East's (the landlord's) interval covers the truth, the
    mean error, the spread of the errors, the mean standard deviation the intervals state."""
    covered, errors, stated = 0, [], []
    z = stats.norm.ppf(0.975)
    for seed in range(LEAGUES):
        matches, truth = make(seed, n_matches)
        (edge,) = (e for e in _replayed(matches).seat_edges() if e.side in ("East", "landlord"))
        assert edge.vs_average is not None and edge.low is not None and edge.high is not None
        covered += edge.low <= truth <= edge.high
        errors.append(edge.vs_average - truth)
        stated.append((edge.high - edge.low) / (2 * z))
    return covered, float(np.mean(errors)), float(np.std(errors)), float(np.mean(stated))


@pytest.mark.parametrize(
    ("make", "n_matches"), [(mahjong_league, 300), (doudizhu_league, 300)], ids=["mahjong", "ddz"]
)
def test_the_interval_covers_at_its_stated_rate(make, n_matches: int) -> None:  # type: ignore[no-untyped-def]
    least = int(stats.binom.ppf(0.001, LEAGUES, 0.95))
    assert stats.binom.sf(least - 1, LEAGUES, 0.70) < 1e-4  # 70% coverage would fail
    covered, bias, spread, stated = _coverage(make, n_matches)
    assert covered >= least, (covered, bias, spread, stated)
    assert stated <= 1.6 * spread, (stated, spread)  # not covering by being wide
    assert abs(bias) <= 3 * spread / math.sqrt(LEAGUES), (bias, spread)


def test_the_farmers_are_a_side_not_two_seats() -> None:
    replayer = _replayed(doudizhu_league(4, 200)[0])
    edges = {e.side: e for e in replayer.seat_edges()}
    assert set(edges) == {"landlord", "farmer1+farmer2"}
    landlord, farmers = edges["landlord"], edges["farmer1+farmer2"]
    assert landlord.vs_average is not None and farmers.vs_average is not None
    assert landlord.vs_average == pytest.approx(-farmers.vs_average, abs=1e-9)
    assert farmers.roles == ("farmer1", "farmer2")


def test_a_seat_does_not_depend_on_the_roles_prior() -> None:
    """The roles' prior deviation moves the model's own role means (the sum of the seats is
    not identified) but not the seats against the average seat (beyond the expansion points:
    well inside the interval)."""
    matches = mahjong_league(7, 300)[0]
    narrow = _replayed(matches, CardPlay(draw_probability=0.0, role_sigma=1.0))
    wide = _replayed(matches, CardPlay(draw_probability=0.0, role_sigma=30.0))
    for a, b in zip(narrow.seat_edges(), wide.seat_edges(), strict=True):
        assert a.side == b.side
        assert a.vs_average is not None and b.vs_average is not None and b.high is not None
        assert abs(a.vs_average - b.vs_average) < 0.25 * (b.high - b.vs_average)
    assert abs(narrow.roles()["East"].mu - wide.roles()["East"].mu) > 0.5


def test_untracked_sides_are_left_out() -> None:
    s = SeatStatistics()
    for i in range(MAX_SIDES):
        assert s.index(f"r{i}") == i
    assert s.index("one too many") == -1 and len(s.names) == MAX_SIDES
