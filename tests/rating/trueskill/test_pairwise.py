"""The mahjong article's pairwise update against sequential calls of the reference
``trueskill`` package."""

from __future__ import annotations

import pytest
import trueskill

from mindsport.errors import MindsportError
from mindsport.rating.rating import Rating
from mindsport.rating.trueskill.pairwise import PairwiseTrueSkill


def one_vs_one(
    env: trueskill.TrueSkill, a: trueskill.Rating, b: trueskill.Rating, drawn: bool = False
) -> tuple[trueskill.Rating, trueskill.Rating]:
    (x,), (y,) = env.rate([(a,), (b,)], ranks=[0, 0] if drawn else [0, 1])
    return x, y


def ref_env(draw: float = 0.1) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=25, sigma=25 / 3, beta=25 / 6, tau=25 / 300, draw_probability=draw, backend=None
    )


def close(a: Rating, b: trueskill.Rating) -> None:
    assert a.mu == pytest.approx(b.mu, abs=1e-6)
    assert a.sigma == pytest.approx(b.sigma, abs=1e-6)


@pytest.mark.parametrize("drawn", [False, True])
def test_single_pass_two_players_is_trueskill(drawn: bool) -> None:
    m = PairwiseTrueSkill(iterations=1, both_orders=False)
    env = ref_env()
    a, b = m.rate_1vs1(Rating(30, 4), Rating(22, 6), drawn=drawn)
    ra, rb = one_vs_one(env, env.create_rating(30, 4), env.create_rating(22, 6), drawn=drawn)
    close(a, ra)
    close(b, rb)


def test_two_teams_single_pass_is_trueskill() -> None:
    m = PairwiseTrueSkill(iterations=1, both_orders=False, draw_probability=0.0)
    env = ref_env(0.0)
    t1, t2 = (Rating(20, 5), Rating(31, 3)), (Rating(27, 7), Rating(24, 2))
    (a, b), (c, d) = m.rate([t1, t2], [1, 0])
    (ra, rb), (rc, rd) = env.rate(
        [tuple(env.create_rating(r.mu, r.sigma) for r in t) for t in (t1, t2)], ranks=[1, 0]
    )
    for x, y in ((a, ra), (b, rb), (c, rc), (d, rd)):
        close(x, y)


def test_default_is_twenty_sequential_updates_per_pair() -> None:
    m = PairwiseTrueSkill()  # 10 iterations, ordered pairs
    env = ref_env()
    a, b = m.rate_1vs1(Rating(25, 25 / 3), Rating(25, 25 / 3))
    ra, rb = env.create_rating(), env.create_rating()
    for _ in range(20):
        ra, rb = one_vs_one(env, ra, rb)
    close(a, ra)
    close(b, rb)


def test_ffa_sequence_of_pairs() -> None:
    m = PairwiseTrueSkill(iterations=2)
    env = ref_env()
    start = [Rating(25, 8), Rating(28, 5), Rating(20, 6)]
    ranks = [1, 0, 2]
    out = m.rate([(r,) for r in start], ranks)
    cur = [env.create_rating(r.mu, r.sigma) for r in start]
    for _ in range(2):
        for i in range(3):
            for j in range(3):
                if i == j:
                    continue
                if ranks[i] < ranks[j]:
                    cur[i], cur[j] = one_vs_one(env, cur[i], cur[j])
                else:
                    cur[j], cur[i] = one_vs_one(env, cur[j], cur[i])
    for (x,), y in zip(out, cur, strict=True):
        close(x, y)


def test_shape_and_errors() -> None:
    m = PairwiseTrueSkill()
    out = m.rate([{"a": m.rating()}, {"b": m.rating()}])
    assert set(out[0]) == {"a"} and out[0]["a"].mu > 25 > out[1]["b"].mu
    assert 0.5 < m.win_probability(out[0].values(), out[1].values()) < 1
    with pytest.raises(MindsportError):
        m.rate([(m.rating(),)])
    with pytest.raises(MindsportError):
        PairwiseTrueSkill(iterations=0)


def test_tie_needs_draw_probability() -> None:
    with pytest.raises(MindsportError, match="tie"):
        PairwiseTrueSkill(draw_probability=0.0).rate_1vs1(Rating(25, 8), Rating(25, 8), True)
