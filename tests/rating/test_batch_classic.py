"""The compiled Elo, Glicko-2 and Tenhou R replays equal the object API match by match (1e-9)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.history.replay import replay
from mindsport.match import Match
from mindsport.rating.batch import BatchInputError, PlayerIndex, encode_matches
from mindsport.rating.batch_classic import BatchElo, BatchGlicko2, BatchTenhou, compiled_model
from mindsport.rating.elo import Elo, EloRating, FideK
from mindsport.rating.glicko2 import Glicko2, Glicko2Rating
from mindsport.rating.tenhou import TenhouR, TenhouRating

TOL = 1e-9


def random_matches(
    rng: np.random.Generator,
    n: int,
    *,
    teams: bool,
    unranked: bool,
    weights: bool,
    players: int = 40,
    start: Any = 0.0,
) -> list[Match]:
    out = []
    t = start
    for i in range(n):
        step = float(rng.exponential(3.0))
        t = t + (timedelta(days=step) if isinstance(t, datetime) else step)
        shapes = ["1v1", "ffa"] + (["2v2", "1v2", "3v3v2"] if teams else [])
        shape = rng.choice(shapes)
        sizes = {"1v1": [1, 1], "2v2": [2, 2], "1v2": [1, 2], "3v3v2": [3, 3, 2]}.get(
            str(shape), [1] * int(rng.integers(3, 9))
        )
        chosen = [f"p{x}" for x in rng.choice(players, size=sum(sizes), replace=False)]
        tm, k = [], 0
        for s in sizes:
            tm.append(chosen[k : k + s])
            k += s
        ranks: list[int | None] = [int(x) for x in rng.integers(0, len(tm), size=len(tm))]
        if unranked and len(tm) > 2 and rng.random() < 0.3:
            ranks = [r if r is not None and r < 2 else None for r in ranks]
            if all(r is None for r in ranks):
                ranks[0] = 0
        w = None
        if weights and rng.random() < 0.3:
            w = [[float(rng.choice([0.0, 0.5, 0.75, 1.0])) for _ in team] for team in tm]
            if rng.random() < 0.8:  # mostly, but not always, someone of each team played
                for x in w:
                    if not any(x):
                        x[0] = 1.0
        out.append(Match(f"m{i}", t, tm, ranks, w))
    return out


def object_ratings(model: Any, matches: list[Match], initial: dict[str, Any]) -> dict[str, Any]:
    """Independent reference: ``model.rate`` match by match, nothing else."""
    ratings = dict(initial)
    for m in matches:
        teams = [{p: ratings.get(p, model.rating()) for p in team} for team in m.teams]
        ws = None
        if m.weights is not None:
            ws = [dict(zip(t, w, strict=True)) for t, w in zip(m.teams, m.weights, strict=True)]
        for team in model.rate(teams, list(m.ranks), ws):
            ratings.update(team)
    return ratings


FIELDS = {
    EloRating: ("rating", "games", "reached_2400"),
    Glicko2Rating: ("rating", "rd", "volatility"),
    TenhouR: ("rating", "games"),
}


def assert_same(a: Any, b: Any, what: str) -> None:
    assert type(a) is type(b), what
    for f in FIELDS[type(a)]:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, float):
            assert abs(x - y) <= TOL, (what, f, x, y)
        else:
            assert x == y, (what, f, x, y)


def assert_replays_equal(model: Any, matches: list[Match], **kw: Any) -> None:
    slow = replay(model, matches, fast=False, **kw)
    quick = replay(model, matches, fast=True, **kw)
    assert slow.ratings.keys() == quick.ratings.keys()
    for p, r in slow.ratings.items():
        assert_same(r, quick.ratings[p], p)
    assert len(slow.predictions) == len(quick.predictions) == len(matches)
    for a, b in zip(slow.predictions, quick.predictions, strict=True):
        assert (a.index, a.match_id, len(a.pairs)) == (b.index, b.match_id, len(b.pairs))
        for x, y in zip(a.pairs, b.pairs, strict=True):
            assert x[:2] == y[:2] and x[3] == y[3] and abs(x[2] - y[2]) <= TOL
    assert len(slow.history) == len(quick.history) == len(matches)
    for (ida, ha), (idb, hb) in zip(slow.history, quick.history, strict=True):
        assert ida == idb and ha.keys() == hb.keys()
        for p in ha:
            assert_same(ha[p], hb[p], f"{ida}/{p}")


def feed_in_blocks(replayer: Any, matches: list[Match]) -> dict[str, Any]:
    index = PlayerIndex()
    for start in range(0, len(matches), 97):  # several blocks: state carried forward
        replayer.feed(encode_matches(matches[start : start + 97], index))
    return dict(replayer.ratings(index))


ELO_MODELS = [
    Elo(),
    Elo(k=32, team_strength="sum", multi_team="sum", scale=300),
    Elo(k=FideK(), initial=2350.0),
    Elo(k=FideK(30, 5, 15, 8, 2390), initial=2330.0, team_strength="sum", multi_team="sum"),
]


@pytest.mark.parametrize("model", ELO_MODELS, ids=["const", "sum-sum", "fide", "fide-params"])
def test_elo_kernel_equals_object_api(model: Elo) -> None:
    rng = np.random.default_rng(5)
    matches = random_matches(rng, 500, teams=True, unranked=True, weights=True, players=25)
    expected = object_ratings(model, matches, {})
    got = feed_in_blocks(BatchElo(model, capacity=4), matches)  # capacity 4: forces growth
    assert expected.keys() == got.keys()
    for p, r in expected.items():
        assert_same(r, got[p], p)
    if isinstance(model.k, FideK):  # the schedule's every branch was taken
        assert any(r.reached_2400 for r in got.values())
        assert any(r.games >= model.k.new_games for r in got.values())


@pytest.mark.parametrize("model", ELO_MODELS, ids=["const", "sum-sum", "fide", "fide-params"])
def test_elo_replay_fast_equals_object_path(model: Elo) -> None:
    rng = np.random.default_rng(6)
    matches = random_matches(rng, 300, teams=True, unranked=True, weights=True)
    initial = {"p1": model.rating(2410.0, games=40), "p2": EloRating(2380.0, 50, True)}
    assert_replays_equal(model, matches, initial=initial)


def test_tenhou_kernel_and_replay_equal_object_api() -> None:
    model = TenhouRating()
    rng = np.random.default_rng(7)
    matches = random_matches(rng, 600, teams=False, unranked=False, weights=False, players=12)
    expected = object_ratings(model, matches, {})
    got = feed_in_blocks(BatchTenhou(model, capacity=2), matches)
    for p, r in expected.items():
        assert_same(r, got[p], p)
    assert any(r.games >= 400 // 8 for r in got.values())
    odd = TenhouRating(bonuses=((20.0, -20.0),), adjust_games=50, adjust_floor=0.3, divisor=30)
    assert_replays_equal(odd, matches[:300], initial={"p3": TenhouR(1800.0, 60)})
    assert_replays_equal(model, matches[:300])


@pytest.mark.parametrize(
    "model",
    [Glicko2(), Glicko2(tau=0.3, max_rd=200.0, initial_volatility=0.09)],
    ids=["default", "max-rd"],
)
def test_glicko2_kernel_and_replay_equal_object_api(model: Glicko2) -> None:
    rng = np.random.default_rng(8)
    matches = random_matches(rng, 400, teams=False, unranked=True, weights=False, players=20)
    expected = object_ratings(model, matches, {})
    got = feed_in_blocks(BatchGlicko2(model, capacity=3), matches)
    for p, r in expected.items():
        assert_same(r, got[p], p)
    assert_replays_equal(model, matches[:250], initial={"p4": model.rating(1900.0, 60.0)})


def test_glicko2_guards_far_apart_ratings() -> None:
    """Expected scores of exactly 0/1 (inv_v < 1e-100): the period counts as idle."""
    model = Glicko2(max_rd=300.0)
    initial = {"a": model.rating(1500.0, 30.0), "b": model.rating(1.0e6, 30.0)}
    matches = [Match(f"m{i}", i, [["a"], ["b"], ["c"]], [i % 3, 1, 2]) for i in range(20)]
    assert_replays_equal(model, matches, initial=initial)


@pytest.mark.parametrize("numeric", [True, False], ids=["numeric-times", "datetimes"])
def test_glicko2_rating_period_equals_object_path(numeric: bool) -> None:
    model = Glicko2(period=2.5, max_rd=320.0)
    rng = np.random.default_rng(9)
    start: Any = 0.0 if numeric else datetime(2024, 1, 1)
    matches = random_matches(
        rng, 300, teams=False, unranked=True, weights=False, players=15, start=start
    )
    assert_replays_equal(model, matches)
    assert_replays_equal(model, matches, time_unit=3600.0 if not numeric else 0.5)


def test_refused_shapes_raise_the_object_error() -> None:
    team_game = [
        Match("ok", 0, [["a"], ["b"]], [0, 1]),
        Match("tg", 1, [["a", "c"], ["b"]], [0, 1]),
    ]
    unranked = [Match("u", 0, [["a"], ["b"], ["c"]], [0, None, 1])]
    partial = [Match("w", 0, [["a"], ["b"]], [0, 1], [[0.5], [1.0]])]
    cases = [
        (Glicko2(), team_game),
        (TenhouRating(), team_game),
        (TenhouRating(), unranked),
        (Glicko2(), partial),
        (TenhouRating(), partial),
    ]
    for model, ms in cases:
        for predict in (True, False):
            with pytest.raises(MindsportError) as slow:
                replay(model, ms, fast=False, predict=predict)
            with pytest.raises(MindsportError) as quick:
                replay(model, ms, fast=True, predict=predict)
            assert type(slow.value) is type(quick.value)
            assert str(slow.value) == str(quick.value)
    with pytest.raises(MindsportError, match="item 1 is not a Match"):
        replay(Elo(), [team_game[0], "nope"])  # type: ignore[list-item]
    with pytest.raises(BatchInputError, match="individual players"):
        BatchTenhou(TenhouRating()).feed(encode_matches(team_game, PlayerIndex()))


def test_uncompilable_settings_fall_back_to_the_object_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mindsport.history.fast as fast

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the compiled path was taken")

    monkeypatch.setattr(fast, "replay_classic", boom)
    monkeypatch.setattr(fast, "replay_trueskill", boom)

    class MyElo(Elo):
        pass

    matches = [Match("1", 0, [["a"], ["b"]], [0, 1]), Match("2", 1, [["b"], ["a"]], [0, 1])]
    fallbacks: list[tuple[Any, dict[str, Any] | None]] = [
        (Elo(k=lambda r: 10.0 + r.games), None),  # a callable K other than FideK
        (MyElo(), None),  # a subclass
        (Elo(), {"a": EloRating(1500.0, 2.5, False)}),  # type: ignore[arg-type]
        (TenhouRating(), {"a": TenhouR(1500.0, 2.5)}),  # type: ignore[arg-type]
    ]
    for model, initial in fallbacks:
        assert not compiled_model(model) or initial is not None
        got = replay(model, matches, initial=initial)
        if initial is None:
            assert got.ratings == object_ratings(model, matches, {})
        with pytest.raises(MindsportError, match="no compiled path"):
            replay(model, matches, fast=True, initial=initial)
    with pytest.raises(MindsportError, match="expected Glicko2Rating"):  # the object's error
        replay(Glicko2(), matches, initial={"a": TenhouR(1500.0, 0)})
    with pytest.raises(AssertionError, match="compiled path was taken"):
        replay(Elo(k=FideK()), matches)  # compiled by default


def test_empty_and_unplayed() -> None:
    assert replay(Elo(), [], fast=True).ratings == {}
    # a player whose only match had weight 0 keeps the new-player rating, as in the object path
    ms = [Match("z", 0, [["a", "b"], ["c"]], [0, 1], [[1.0, 0.0], [1.0]])]
    assert_replays_equal(Elo(k=FideK()), ms, initial={"x": EloRating(2000.0, 3, False)})
    calls: list[int] = []
    long = [Match(f"m{i}", i, [["a"], ["b"]], [i % 2, 1 - i % 2]) for i in range(2500)]
    assert_replays_equal(Elo(k=FideK()), long)
    replay(Elo(), long, progress=calls.append)
    assert calls[-1] == 2500
    got = replay(Elo(), ms).ratings
    assert got["b"] == Elo().rating() and math.isclose(got["a"].rating, 1510.0)
