"""The compiled replay equals the object API match by match (to 1e-9)."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.match import Match
from mindsport.rating.batch import (
    BatchInputError,
    BatchTrueSkill,
    MatchBlock,
    PlayerIndex,
    block_from_long_table,
    encode_matches,
)
from mindsport.rating.kernels import erfcx
from mindsport.rating.trueskill import TrueSkill


def random_matches(rng, n, players=30, allow_draws=True):
    out = []
    t = 0.0
    for i in range(n):
        t += float(rng.exponential(3.0))
        shape = rng.choice(["1v1", "2v2", "1v2", "ffa"])
        if shape == "1v1":
            sizes = [1, 1]
        elif shape == "2v2":
            sizes = [2, 2]
        elif shape == "1v2":
            sizes = [1, 2]
        else:
            sizes = [1] * int(rng.integers(3, 17))
        chosen = [f"p{x}" for x in rng.choice(players + 16, size=sum(sizes), replace=False)]
        teams, k = [], 0
        for s in sizes:
            teams.append(chosen[k : k + s])
            k += s
        if allow_draws:
            ranks = [int(x) for x in rng.integers(0, len(teams), size=len(teams))]
        else:
            ranks = [int(x) for x in rng.permutation(len(teams))]
        if len(teams) > 2 and rng.random() < 0.3:
            ranks = [r if r < 2 else None for r in ranks]
            if all(r is None for r in ranks):
                ranks[0] = 0
        weights = None
        if rng.random() < 0.3:
            weights = [[float(rng.choice([0.0, 0.5, 0.75, 1.0])) for _ in team] for team in teams]
            for w in weights:
                if not any(w):
                    w[0] = 1.0
        out.append(Match(f"m{i}", t, teams, ranks, weights))
    return out


def object_replay(env, matches):
    ratings, last = {}, {}
    for m in matches:
        teams = [{p: ratings.get(p, env.rating()) for p in team} for team in m.teams]
        elapsed = [[m.time_value() - last[p] if p in last else 0.0 for p in t] for t in m.teams]
        new = env.rate(teams, ranks=m.ranks, weights=m.weights, elapsed=elapsed)
        for k, team in enumerate(new):
            for j, (p, r) in enumerate(team.items()):
                if m.weights is None or m.weights[k][j] > 0:
                    ratings[p] = r
                    last[p] = m.time_value()
    return ratings


@pytest.mark.parametrize(
    "env",
    [
        TrueSkill(),
        TrueSkill(draw_probability=0.25, tau=0.5),
        TrueSkill(drift=0.4, sigma_floor=1.5),
    ],
    ids=["default", "draws", "drift-floor"],
)
def test_kernel_equals_object_api(env):
    rng = np.random.default_rng(42)
    matches = random_matches(rng, 400)
    expected = object_replay(env, matches)
    index = PlayerIndex()
    replayer = BatchTrueSkill(env, capacity=4)  # forces growth
    for start in range(0, len(matches), 97):  # several blocks: state carried forward
        replayer.feed(encode_matches(matches[start : start + 97], index))
    got = replayer.ratings(index)
    for p, r in expected.items():
        assert abs(got[p].mu - r.mu) < 1e-9 and abs(got[p].sigma - r.sigma) < 1e-9, p


def test_pre_game_values_are_returned_per_slot():
    env = TrueSkill()
    matches = [Match("a", 0, [["x"], ["y"]], [0, 1]), Match("b", 1, [["x"], ["y"]], [1, 0])]
    index = PlayerIndex()
    replayer = BatchTrueSkill(env)
    pre_mu, pre_sigma = replayer.feed(encode_matches(matches, index))
    first = env.rate_1vs1(env.rating(), env.rating())
    assert pre_mu[:2].tolist() == [25.0, 25.0]
    assert pre_mu[2] == pytest.approx(first[0].mu, abs=1e-12)
    assert pre_sigma[3] == pytest.approx(first[1].sigma, abs=1e-12)


def test_long_table_equals_match_objects():
    rng = np.random.default_rng(1)
    matches = random_matches(rng, 200, allow_draws=True)
    cols = {"id": [], "time": [], "player": [], "team": [], "rank": [], "weight": []}
    for m in matches:
        for k, team in enumerate(m.teams):
            for j, p in enumerate(team):
                cols["id"].append(m.id)
                cols["time"].append(m.time_value())
                cols["player"].append(p)
                cols["team"].append(k)
                r = m.ranks[k]
                cols["rank"].append(np.nan if r is None else r)
                cols["weight"].append(1.0 if m.weights is None else m.weights[k][j])
    i1, i2 = PlayerIndex(), PlayerIndex()
    a = encode_matches(matches, i1)
    b = block_from_long_table(
        cols["id"], cols["time"], cols["player"], cols["team"], cols["rank"], i2, cols["weight"]
    )
    env = TrueSkill()
    r1, r2 = BatchTrueSkill(env), BatchTrueSkill(env)
    r1.feed(a)
    r2.feed(b)
    x, y = r1.ratings(i1), r2.ratings(i2)
    assert x.keys() == y.keys()
    for p in x:
        assert x[p] == y[p]


def test_malformed_block_is_refused():
    block = MatchBlock(
        np.array([0, 1]),
        np.array([0, 1]),
        np.array([0]),
        np.array([1.0]),
        np.array([0.0]),
        np.array([0.0]),
    )
    with pytest.raises(BatchInputError, match="fewer than two teams"):
        BatchTrueSkill(TrueSkill()).feed(block)


def test_erfcx_against_scipy():
    from scipy.special import erfcx as ref

    for z in [0.0, 0.5, 3.0, 10.0, 24.9, 25.0, 30.0, 100.0, 1e4]:
        assert erfcx(z) == pytest.approx(float(ref(z)), rel=1e-14)


@pytest.mark.parametrize(
    "env",
    [TrueSkill(), TrueSkill(drift=0.2, draw_probability=0.2)],
    ids=["default", "drift"],
)
def test_history_replay_fast_equals_object_path(env):
    from mindsport.history.replay import replay

    rng = np.random.default_rng(8)
    matches = random_matches(rng, 300)
    initial = {"p1": env.rating(30.0, 2.0)}
    slow = replay(env, matches, fast=False, initial=initial)
    quick = replay(env, matches, fast=True, initial=initial)
    assert slow.ratings.keys() == quick.ratings.keys()
    for p, r in slow.ratings.items():
        assert (
            abs(quick.ratings[p].mu - r.mu) < 1e-9 and abs(quick.ratings[p].sigma - r.sigma) < 1e-9
        )
    for a, b in zip(slow.predictions, quick.predictions, strict=True):
        assert a.match_id == b.match_id and len(a.pairs) == len(b.pairs)
        for x, y in zip(a.pairs, b.pairs, strict=True):
            assert x[:2] == y[:2] and x[3] == y[3] and abs(x[2] - y[2]) < 1e-9
    for (ida, ha), (idb, hb) in zip(slow.history, quick.history, strict=True):
        assert ida == idb and ha.keys() == hb.keys()
        for p in ha:
            assert abs(ha[p].mu - hb[p].mu) < 1e-9
