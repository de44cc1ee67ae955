"""The compiled updates and replays against the plain references of ``reference_models``.

* each model's ``rate`` (its compiled update) equals the reference update game by game;
* each model's compiled replay equals the reference replayed match by match (TrueSkill's
  reference is its explicit factor graph), with drift, rating periods, partial play, unranked
  teams, ties, FIDE K and blocks fed one after the other;
* :func:`mindsport.history.replay` gives the same ratings, predictions and history through the
  compiled replayer and through ``model.rate`` match by match, and the same errors.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest
from reference_models import (
    elo_rate,
    glicko2_period,
    glicko2_rate,
    pairwise_rate,
    replay_reference,
    tenhou_rate,
)

from mindsport.errors import MindsportError
from mindsport.history.replay import replay
from mindsport.match import Match
from mindsport.rating import (
    Elo,
    EloRating,
    FideK,
    Glicko2,
    Glicko2Rating,
    PairwiseTrueSkill,
    Rating,
    TenhouR,
    TenhouRating,
    TrueSkill,
)
from mindsport.rating.replay import blocks as batch
from mindsport.rating.replay.blocks import (
    BatchInputError,
    MatchBlock,
    PlayerIndex,
    block_from_long_table,
    encode_matches,
)
from mindsport.rating.replay.replayers import ObjectReplayer
from mindsport.rating.trueskill.model import ConvergenceError, TrueSkillReplayer

TOL = 1e-9


def random_matches(
    rng: np.random.Generator,
    n: int,
    *,
    teams: bool = True,
    unranked: bool = True,
    weights: bool = True,
    draws: bool = True,
    players: int = 30,
    start: Any = 0.0,
    big: bool = True,
) -> list[Match]:
    out = []
    t = start
    for i in range(n):
        step = float(rng.exponential(3.0))
        t = t + (timedelta(days=step) if isinstance(t, datetime) else step)
        shapes = ["1v1", "1v1", "ffa"] + (["2v2", "1v2", "3v3v2"] if teams else [])
        shape = str(rng.choice(shapes))
        sizes = {"1v1": [1, 1], "2v2": [2, 2], "1v2": [1, 2], "3v3v2": [3, 3, 2]}.get(
            shape, [1] * int(rng.integers(3, 17 if big else 9))
        )
        chosen = [f"p{x}" for x in rng.choice(players + 20, size=sum(sizes), replace=False)]
        tm, k = [], 0
        for s in sizes:
            tm.append(chosen[k : k + s])
            k += s
        if draws:
            ranks: list[int | None] = [int(x) for x in rng.integers(0, len(tm), size=len(tm))]
        else:
            ranks = [int(x) for x in rng.permutation(len(tm))]
        if unranked and len(tm) > 2 and rng.random() < 0.3:
            ranks = [r if r is not None and r < 2 else None for r in ranks]
            if all(r is None for r in ranks):
                ranks[0] = 0
        w = None
        if weights and rng.random() < 0.3:
            w = [[float(rng.choice([0.0, 0.5, 0.75, 1.0])) for _ in team] for team in tm]
            for x in w:
                if not any(x):
                    x[0] = 1.0
        out.append(Match(f"m{i}", t, tm, ranks, w))
    return out


FIELDS: dict[type, tuple[str, ...]] = {
    Rating: ("mu", "sigma"),
    EloRating: ("rating", "games", "reached_2400"),
    Glicko2Rating: ("rating", "rd", "volatility"),
    TenhouR: ("rating", "games"),
}


def assert_same(a: Any, b: Any, what: str, tol: float = TOL) -> None:
    assert type(a) is type(b), what
    for f in FIELDS[type(a)]:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, float):
            assert abs(x - y) <= tol, (what, f, x, y)
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


# ----------------------------------------------------------------- one game: rate()


def test_elo_rate_equals_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(1)
    models = [Elo(), Elo(k=32, team_strength="sum", multi_team="sum"), Elo(k=FideK())]
    models.append(Elo(k=lambda r: 10.0 + r.games))  # any K schedule: K per player from Python
    for m in rng.permutation(len(models) * 60):
        model = models[int(m) % len(models)]
        match = random_matches(rng, 1)[0]
        teams = [
            [
                EloRating(
                    float(rng.uniform(1800, 2600)),
                    int(rng.integers(0, 50)),
                    bool(rng.random() < 0.2),
                )
                for _ in t
            ]
            for t in match.teams
        ]
        ws = None if match.weights is None else [list(w) for w in match.weights]
        got = model.rate([tuple(t) for t in teams], list(match.ranks), ws)
        want = elo_rate(model, teams, list(match.ranks), ws)
        assert [list(t) for t in got] == want


def test_tenhou_rate_equals_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(2)
    for model in (TenhouRating(), TenhouRating(bonuses=((20.0, -20.0),), adjust_games=50)):
        for _ in range(100):
            n = int(rng.integers(2, 7))
            players = [
                TenhouR(float(rng.uniform(1200, 2400)), int(rng.integers(0, 500))) for _ in range(n)
            ]
            ranks = [int(x) for x in rng.integers(0, n, size=n)]
            got = model.rate([(p,) for p in players], ranks)
            assert [t[0] for t in got] == tenhou_rate(model, players, ranks)


def test_glicko2_rate_and_period_equal_reference() -> None:
    rng = np.random.default_rng(3)
    for model in (Glicko2(), Glicko2(tau=0.3, max_rd=200.0, period=2.0)):
        for _ in range(100):
            n = int(rng.integers(2, 6))
            players = [
                Glicko2Rating(
                    float(rng.uniform(1000, 2000)),
                    float(rng.uniform(30, 350)),
                    float(rng.uniform(0.03, 0.09)),
                )
                for _ in range(n)
            ]
            ranks: list[int | None] = [int(x) for x in rng.integers(0, n, size=n)]
            if n > 2 and rng.random() < 0.3:
                ranks[-1] = None
            elapsed = [float(rng.choice([0.0, 1.0, 9.5])) for _ in range(n)]
            got = model.rate([(p,) for p in players], ranks, elapsed=[(x,) for x in elapsed])
            for a, b in zip(
                [t[0] for t in got], glicko2_rate(model, players, ranks, elapsed), strict=True
            ):
                assert_same(a, b, "rate")
            res = [(players[j], float(rng.choice([0.0, 0.5, 1.0]))) for j in range(1, n)]
            assert_same(
                model.rate_period(players[0], res), glicko2_period(model, players[0], res), "period"
            )


def test_pairwise_rate_equals_reference() -> None:
    rng = np.random.default_rng(4)
    models = [PairwiseTrueSkill(), PairwiseTrueSkill(iterations=3, both_orders=False, tau=0.3)]
    for i in range(120):
        model = models[i % 2]
        match = random_matches(rng, 1, big=False)[0]
        teams = [
            [Rating(float(rng.uniform(10, 40)), float(rng.uniform(1, 8))) for _ in t]
            for t in match.teams
        ]
        ws = None if match.weights is None else [list(w) for w in match.weights]
        got = model.rate([tuple(t) for t in teams], list(match.ranks), ws)
        want = pairwise_rate(model, teams, list(match.ranks), ws)
        for gt, wt in zip(got, want, strict=True):
            for a, b in zip(gt, wt, strict=True):
                assert_same(a, b, f"game {i}")


# ------------------------------------------------------------------ long histories


@pytest.mark.parametrize(
    "model",
    [
        TrueSkill(),
        TrueSkill(draw_probability=0.25, tau=0.5),
        TrueSkill(drift=0.4, sigma_floor=1.5),
        Elo(),
        Elo(k=32, team_strength="sum", multi_team="sum", scale=300),
        Elo(k=FideK(), initial=2350.0),
        PairwiseTrueSkill(iterations=2),
    ],
    ids=["ts", "ts-draws", "ts-drift-floor", "elo", "elo-sum", "elo-fide", "pairwise"],
)
def test_compiled_replay_equals_reference(model: Any) -> None:
    rng = np.random.default_rng(42)
    matches = random_matches(rng, 300)
    expected = replay_reference(model, matches)
    index = PlayerIndex()
    replayer = model.replayer()
    replayer.__init__(model, capacity=4)  # forces growth
    for start in range(0, len(matches), 97):  # several blocks: state carried forward
        replayer.feed(encode_matches(matches[start : start + 97], index), predict=False, keep=False)
    for p, r in expected.items():
        assert_same(replayer.value(index.get(p)), r, p)


@pytest.mark.parametrize(
    "model",
    [TrueSkill(), TrueSkill(draw_probability=0.25, tau=0.5, drift=0.3, sigma_floor=1.0)],
    ids=["ts", "ts-draws-drift-floor"],
)
def test_games_rated_side_by_side_equal_reference(model: Any) -> None:
    # among many players most neighbouring games share no one: the replay rates them in lanes,
    # side by side; a shared player, a lean one-against-one game and the block's end flush them
    rng = np.random.default_rng(12)
    matches = random_matches(rng, 400, players=3000)
    for i in range(0, 400, 7):  # and some games with a player of the game just before
        m = matches[i]
        prev = matches[i - 1].teams[0][0] if i else "p0"
        matches[i] = Match(m.id, m.time, [[prev], *m.teams[1:]], m.ranks, None)
    expected = replay_reference(model, matches)
    index = PlayerIndex()
    replayer = model.replayer()
    for start in range(0, len(matches), 150):
        replayer.feed(encode_matches(matches[start : start + 150], index), predict=True, keep=True)
    for p, r in expected.items():
        assert_same(replayer.value(index.get(p)), r, p)


def test_a_game_that_does_not_converge_stops_the_replay_after_the_games_before_it() -> None:
    # with four sweeps at most, about half the free-for-alls of new players settle (told by
    # rate() on the new players' ratings); the replay must name the first that does not and
    # hold the ratings after exactly the games before it, whichever lane each game waited in
    model = TrueSkill(max_iterations=4)
    rng = np.random.default_rng(3)
    settles: list[list[int]] = []
    fails: list[list[int]] = []
    while len(settles) < 3 or len(fails) < 2:
        ranks = [int(r) for r in rng.permutation(int(rng.integers(3, 7)))]
        try:
            model.rate([[model.rating()] for _ in ranks], ranks)
            settles.append(ranks)
        except ConvergenceError:
            fails.append(ranks)
    one = [["x"], ["y"]]
    for shapes in (
        [settles[0], fails[0], settles[1], fails[1]],  # the failure waits in the first lane
        [settles[0], settles[1], settles[2], fails[0], settles[1]],  # in the second
        [one, fails[0], one],  # waiting when a lean game comes
    ):
        matches = []
        for k, shape in enumerate(shapes):
            if shape is one:
                matches.append(Match(f"m{k}", float(k), [[f"a{k}"], [f"b{k}"]], [0, 1]))
                continue
            teams = [[f"p{k}.{t}"] for t in range(len(shape))]
            matches.append(Match(f"m{k}", float(k), teams, shape))
        bad = next(k for k, shape in enumerate(shapes) if any(shape is f for f in fails))
        index = PlayerIndex()
        replayer = model.replayer()
        with pytest.raises(ConvergenceError) as err:
            replayer.feed(encode_matches(matches, index), predict=True, keep=True)
        assert err.value.match_index == bad  # type: ignore[attr-defined]
        for k, m in enumerate(matches):
            for p in (p for t in m.teams for p in t):
                got = replayer.value(index.get(p))
                assert (got == model.rating()) == (k >= bad), (shapes, m.id, p)


@pytest.mark.parametrize(
    "model",
    [
        Glicko2(),
        Glicko2(tau=0.3, max_rd=200.0, initial_volatility=0.09),
        Glicko2(period=2.5, max_rd=320.0),
        TenhouRating(),
        TenhouRating(bonuses=((20.0, -20.0),), adjust_games=50, adjust_floor=0.3, divisor=30),
    ],
    ids=["glicko2", "glicko2-max-rd", "glicko2-period", "tenhou", "tenhou-odd"],
)
def test_compiled_replay_of_singles_equals_reference(model: Any) -> None:
    rng = np.random.default_rng(8)
    ranked = isinstance(model, TenhouRating)
    matches = random_matches(rng, 400, teams=False, unranked=not ranked, weights=False, players=12)
    expected = replay_reference(model, matches)
    got = replay(model, matches, fast=True).ratings
    for p, r in expected.items():
        assert_same(got[p], r, p)


@pytest.mark.parametrize(
    "model",
    [
        TrueSkill(),
        TrueSkill(drift=0.2, draw_probability=0.2),
        Elo(k=FideK()),
        Elo(k=32, team_strength="sum", multi_team="sum"),
        PairwiseTrueSkill(iterations=2),
    ],
    ids=["ts", "ts-drift", "fide", "elo-sum", "pairwise"],
)
def test_replay_fast_equals_object_path(model: Any) -> None:
    rng = np.random.default_rng(6)
    matches = random_matches(rng, 250, start=datetime(2024, 1, 1))
    initial = {"p1": model.rating(), "p2": model.rating()}
    assert_replays_equal(model, matches, initial=initial)
    assert_replays_equal(model, matches[:80], time_unit=3600.0)


@pytest.mark.parametrize("numeric", [True, False], ids=["numeric-times", "datetimes"])
def test_glicko2_and_tenhou_replays_equal_object_path(numeric: bool) -> None:
    rng = np.random.default_rng(9)
    start: Any = 0.0 if numeric else datetime(2024, 1, 1)
    singles = random_matches(rng, 250, teams=False, weights=False, players=15, start=start)
    g = Glicko2(period=2.5, max_rd=320.0)
    assert_replays_equal(g, singles, initial={"p4": g.rating(1900.0, 60.0)})
    assert_replays_equal(g, singles, time_unit=3600.0 if not numeric else 0.5)
    ranked = random_matches(
        rng, 250, teams=False, unranked=False, weights=False, players=12, start=start
    )
    assert_replays_equal(TenhouRating(), ranked, initial={"p3": TenhouR(1800.0, 60)})


def test_glicko2_guards_far_apart_ratings() -> None:
    """Expected scores of exactly 0/1 (no information): the period counts as idle."""
    model = Glicko2(max_rd=300.0)
    initial = {"a": model.rating(1500.0, 30.0), "b": model.rating(1.0e6, 30.0)}
    matches = [Match(f"m{i}", i, [["a"], ["b"], ["c"]], [i % 3, 1, 2]) for i in range(20)]
    assert_replays_equal(model, matches, initial=initial)
    got = replay(model, matches, initial=initial).ratings
    want = replay_reference(model, [])  # nothing; check the idle rule directly
    assert want == {}
    assert got["b"].rating == 1.0e6  # never moved: every game against b carried no information


def test_long_table_equals_match_objects() -> None:
    rng = np.random.default_rng(1)
    matches = random_matches(rng, 200)
    cols: dict[str, list[Any]] = {k: [] for k in ("id", "time", "player", "team", "rank", "weight")}
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
    for name in ("team_ptr", "player_ptr", "players", "weights", "times"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.ranks, b.ranks, equal_nan=True)
    assert i1.ids == i2.ids


def test_malformed_block_is_refused() -> None:
    def block(
        team_ptr: list[int], player_ptr: list[int], w: list[float], ranks: list[float]
    ) -> MatchBlock:
        n = len(team_ptr) - 1
        return MatchBlock(
            np.array(team_ptr), np.array(player_ptr), np.arange(len(w)), np.array(w),
            np.array(ranks), np.zeros(n),
        )  # fmt: skip

    r = TrueSkillReplayer(TrueSkill())
    cases = [
        (
            block([0, 2, 3], [0, 1, 2, 3], [1.0] * 3, [0, 1, 0]),
            "match 1 of the block has fewer than two teams",
        ),
        (block([0, 2], [0, 1, 2], [1.0, 1.5], [0, 1]), "weight outside"),
        (block([0, 2], [0, 1, 2], [1.0, 0.0], [0, 1]), "positive weight"),
        (block([0, 2], [0, 1, 2], [1.0, 1.0], [np.nan, np.nan]), "no ranked team"),
    ]
    for b, needle in cases:
        with pytest.raises(BatchInputError, match=needle):
            r.feed(b, predict=True, keep=True)


def test_erfcx_against_scipy() -> None:
    from scipy.special import erfcx as ref

    from mindsport.rating import compiled
    from mindsport.rating.gaussian import erfcx

    for z in [0.0, 0.5, 3.0, 10.0, 24.9, 25.0, 30.0, 100.0, 1e4]:
        assert erfcx(z) == pytest.approx(float(ref(z)), rel=1e-14)
        assert compiled.erfcx(z) == pytest.approx(float(ref(z)), rel=1e-14)


def test_refused_shapes_raise_the_object_error() -> None:
    team_game = [
        Match("ok", 0, [["a"], ["b"]], [0, 1]),
        Match("tg", 1, [["a", "c"], ["b"]], [0, 1]),
    ]
    unranked = [Match("u", 0, [["a"], ["b"], ["c"]], [0, None, 1])]
    partial = [Match("w", 0, [["a"], ["b"]], [0, 1], [[0.5], [1.0]])]
    tie = [Match("ok", 0, [["a"], ["b"]], [0, 1]), Match("t", 1, [["a"], ["b"], ["c"]], [0, 1, 1])]
    cases = [
        (Glicko2(), team_game),
        (TenhouRating(), team_game),
        (TenhouRating(), unranked),
        (Glicko2(), partial),
        (TenhouRating(), partial),
        (TrueSkill(draw_probability=0.0), tie),
        (PairwiseTrueSkill(draw_probability=0.0), tie),
    ]
    for model, ms in cases:
        for predict in (True, False):
            with pytest.raises(MindsportError) as slow:
                replay(model, ms, fast=False, predict=predict)
            with pytest.raises(MindsportError) as quick:
                replay(model, ms, fast=True, predict=predict)
            assert type(slow.value) is type(quick.value)
            assert str(slow.value) == str(quick.value)
            assert str(quick.value).startswith(f"match {ms[-1].id!r}: ")
    with pytest.raises(MindsportError, match="item 1 is not a Match"):
        replay(Elo(), [team_game[0], "nope"])  # type: ignore[list-item]


def test_uncompilable_settings_fall_back_to_the_object_path() -> None:
    class MyElo(Elo):
        def rate(self, teams: Any, ranks: Any = None, weights: Any = None) -> list[Any]:
            return super().rate(teams, ranks, weights)

    matches = [Match("1", 0, [["a"], ["b"]], [0, 1]), Match("2", 1, [["b"], ["a"]], [0, 1])]
    fallbacks: list[tuple[Any, dict[str, Any] | None]] = [
        (Elo(k=lambda r: 10.0 + r.games), None),  # a callable K other than FideK
        (MyElo(), None),  # a subclass that changes rate
        (Elo(), {"a": EloRating(1500.0, 2.5, False)}),  # type: ignore[arg-type]
        (TenhouRating(), {"a": TenhouR(1500.0, 2.5)}),  # type: ignore[arg-type]
    ]
    for model, initial in fallbacks:
        assert initial is not None or isinstance(model.replayer(), ObjectReplayer)
        got = replay(model, matches, initial=initial)
        if initial is None:
            assert dict(got.ratings) == replay_reference(model, matches)
        with pytest.raises(MindsportError, match="no compiled path"):
            replay(model, matches, fast=True, initial=initial)
    with pytest.raises(MindsportError, match="expected Glicko2Rating"):  # the object's error
        replay(Glicko2(), matches, initial={"a": TenhouR(1500.0, 0)})


def test_empty_unplayed_and_lazy_sequences() -> None:
    assert dict(replay(Elo(), [], fast=True).ratings) == {}
    # a player whose only match had weight 0 keeps the new-player rating
    ms = [Match("z", 0, [["a", "b"], ["c"]], [0, 1], [[1.0, 0.0], [1.0]])]
    assert_replays_equal(Elo(k=FideK()), ms, initial={"x": EloRating(2000.0, 3, False)})
    got = replay(Elo(), ms).ratings
    assert got["b"] == Elo().rating() and math.isclose(got["a"].rating, 1510.0)
    calls: list[int] = []
    long = [Match(f"m{i}", i, [["a"], ["b"]], [i % 2, 1 - i % 2]) for i in range(2500)]
    r = replay(Elo(), long, progress=calls.append)
    assert calls[-1] == 2500
    assert r.history[-1] == r.history[2499] and r.history[-1][0] == "m2499"
    assert [h[0] for h in r.history[3:6]] == ["m3", "m4", "m5"]
    assert r.predictions[-1].index == 2499 and len(r.predictions[::1000]) == 3
    with pytest.raises(IndexError):
        r.predictions[2500]
    assert "zz" not in r.ratings and len(r.ratings) == 2
    with pytest.raises(KeyError):
        r.ratings["zz"]


@pytest.mark.parametrize("from_players", [0, batch.BY_IDENTITY_PLAYERS])
def test_player_index_by_value_whatever_the_string_objects(
    from_players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equal ids are one player whether or not they are the same string object."""
    monkeypatch.setattr(batch, "BY_IDENTITY_PLAYERS", from_players)
    rng = np.random.default_rng(3)
    names = [f"player-{i}" for i in range(3000)]
    index = PlayerIndex()
    expected: dict[str, int] = {}
    for _ in range(4):
        picks = rng.integers(0, len(names), 5000).tolist()
        players = [
            names[i] if rng.random() < 0.7 else "".join(list(names[i]))  # an equal, other object
            for i in picks
        ]
        got = index.codes(players).tolist()
        for p, c in zip(players, got, strict=True):
            assert expected.setdefault(p, len(expected)) == c
    assert index.ids == list(expected)
    assert index.codes(["player-0", "nobody-yet"]).tolist() == [expected["player-0"], len(expected)]


@pytest.mark.parametrize("n_names", [300, 20_000])
@pytest.mark.parametrize("from_players", [0, batch.BY_IDENTITY_PLAYERS])
@pytest.mark.parametrize("shared", [0.8, 0.0])
def test_player_index_in_groups_against_a_dict(
    n_names: int, from_players: int, shared: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Teams of ids in, indices out, as a plain dict numbering ids by first appearance gives:
    calls large and small, growing tables, ids shared (the share ``shared``) or equal copies,
    new ids among old; with look-ups by identity from the first player on, and from the usual
    index size (copies only: the index gives up on identity after the first large look-up)."""
    monkeypatch.setattr(batch, "BY_IDENTITY_PLAYERS", from_players)
    rng = np.random.default_rng(n_names)
    names = [f"p{i}" for i in range(n_names)]
    index = PlayerIndex()
    expected: dict[str, int] = {}
    for size in (3, 5000, 100, 40_000, 1, 7000):
        teams = [
            tuple(names[i] if rng.random() < shared else f"p{i}" for i in row)
            for row in rng.integers(0, n_names, (size, 2)).tolist()
        ]
        got = index.codes_in(teams, 2 * size).tolist()
        want = [expected.setdefault(p, len(expected)) for t in teams for p in t]
        assert got == want
    assert index.ids == list(expected)


def lane_games(rng: np.random.Generator, n_games: int) -> tuple[list[Match], dict[str, Rating]]:
    """Games of three to nine teams of one to three players, no player in two games, with
    ties, unranked teams, partial play and priors that make some results far upsets (the
    truncation's tail formulas); and each player's prior rating."""
    games, priors = [], {}
    for i in range(n_games):
        n = int(rng.integers(3, 10))
        teams = [[f"g{i}t{t}p{q}" for q in range(int(rng.integers(1, 4)))] for t in range(n)]
        ranks: list[int | None] = [int(x) for x in rng.permutation(n)]
        if i % 3 == 0:  # ties
            ranks = [int(x) for x in rng.integers(0, n - 1, n)]
        if i % 4 == 1:  # unranked teams
            ranks[-1] = ranks[-2] = None
        weights = None
        if i % 5 == 2:
            weights = [[float(rng.choice([0.25, 0.5, 1.0])) for _ in t] for t in teams]
        for t, team in enumerate(teams):
            for p in team:
                mu, sigma = float(rng.normal(25.0, 8.0)), float(rng.uniform(0.3, 8.3))
                if i % 6 == 5:  # the winners were thought far weaker than the losers
                    r = ranks[t]
                    mu = -60.0 + 30.0 * t if r is not None else 25.0
                    sigma = 0.5
                priors[p] = Rating(mu, sigma)
        games.append(Match(f"g{i}", float(i), teams, ranks, weights))
    return games, priors


def replay_lanes(model: TrueSkill, matches: list[Match], priors: dict[str, Rating]) -> dict:
    index = PlayerIndex()
    block = encode_matches(matches, index)
    replayer = model.replayer()
    for p, r in priors.items():
        replayer.set_value(index.get(p), r)
    replayer.feed(block, predict=True, keep=True)
    return {p: replayer.value(index.get(p)) for m in matches for t in m.teams for p in t}


def test_games_rated_on_vector_lanes_agree_with_rate_whatever_rides_beside_them() -> None:
    """Games of three or more teams that share no player wait in the replay's lanes and are swept
    together on vectors (``simd.WIDTH`` of them). Each agrees with ``rate()`` on its own (the
    scalar sweep, whose error function is the C library's) to 1e-12; and a game's numbers do not
    depend on the games beside it or on its lane: reversed, or each alone between lean games
    that empty the lanes, the ratings are the same bit for bit."""
    from mindsport._jit.lanes import WIDTH

    model = TrueSkill(draw_probability=0.15)
    rng = np.random.default_rng(31)
    games, priors = lane_games(rng, 5 * WIDTH + 3)
    got = replay_lanes(model, games, priors)
    worst = 0.0
    for m in games:
        teams = [[priors[p] for p in t] for t in m.teams]
        new = model.rate(teams, list(m.ranks), m.weights)
        for team, rated in zip(m.teams, new, strict=True):
            for p, r in zip(team, rated, strict=True):
                worst = max(worst, abs(got[p].mu - r.mu), abs(got[p].sigma - r.sigma))
    assert worst <= 1e-12
    assert replay_lanes(model, games[::-1], priors) == got
    alone: list[Match] = []
    for k, m in enumerate(games):
        alone += [m, Match(f"lean{k}", m.time, [[f"x{k}"], [f"y{k}"]], [0, 1])]
    rated_alone = replay_lanes(model, alone, priors)
    assert {p: rated_alone[p] for p in got} == got
