"""DataFrames of results (``to_frame()``): every row and column against the result objects they
come from (the objects are tested against their own references elsewhere), the worked event round
of tests/event by hand, the store's on SQLite and PostgreSQL; and the error without pandas."""

from __future__ import annotations

import math
import sys

import pytest

from mindsport.errors import MindsportError
from mindsport.event.model import EventSpec, Player, Result, Round, Table
from mindsport.event.standings import standings
from mindsport.history import evaluate, replay
from mindsport.match import Match
from mindsport.rating import Elo, TrueSkill
from mindsport.store import Store

pd = pytest.importorskip("pandas")

GAMES = [
    Match("g1", 1, [["ann"], ["bob"]], [0, 1]),
    Match("g2", 2, [["bob"], ["cid"]], [0, 0]),
    Match("g3", 3, [["ann", "cid"], ["bob"], ["dan"]], [1, 0, 2]),
    Match("g4", 4, [["dan"], ["ann"]], [1, 0]),
]


def test_replay_frames_hold_the_replay() -> None:
    r = replay(TrueSkill(), GAMES)
    df = r.to_frame()
    assert list(df.columns) == ["mu", "sigma"] and df.index.name == "player"
    assert sorted(df.index) == sorted(r.ratings)
    for p, value in r.ratings.items():
        assert (df.loc[p, "mu"], df.loc[p, "sigma"]) == (value.mu, value.sigma)
    preds = r.to_frame("predictions")
    want = [
        (mp.index, mp.match_id, i, j, p, y, mp.draws[k])
        for mp in r.predictions
        for k, (i, j, p, y) in enumerate(mp.pairs)
    ]
    assert len(want) == 1 + 1 + 3 + 1
    assert [tuple(row) for row in preds.itertuples(index=False)] == want
    hist = r.to_frame("history")
    rows = [
        (i, mid, p, v.mu, v.sigma)
        for i, (mid, after) in enumerate(r.history)
        for p, v in after.items()
    ]
    assert [tuple(x) for x in hist.itertuples(index=False)] == rows
    assert len(hist) == 2 + 2 + 4 + 2


def test_frames_of_other_models_and_empty_replays() -> None:
    r = replay(Elo(), [m for m in GAMES if len(m.teams) == 2 and all(len(t) == 1 for t in m.teams)])
    df = r.to_frame()
    assert set(df.columns) >= {"rating", "games"}
    assert df.loc["ann", "rating"] == r.ratings["ann"].rating
    assert math.isnan(r.to_frame("predictions")["draw"].iloc[0])  # Elo predicts no draw
    empty = replay(TrueSkill(), [], keep_history=False)
    assert len(empty.to_frame()) == 0
    assert list(empty.to_frame("predictions").columns) == [
        "match_index",
        "match_id",
        "team_a",
        "team_b",
        "p",
        "outcome",
        "draw",
    ]
    assert len(empty.to_frame("history")) == 0
    with pytest.raises(MindsportError, match="table is"):
        empty.to_frame("players")  # type: ignore[arg-type]


def test_evaluation_frame_is_its_table() -> None:
    ms = [Match(f"g{i}", i, [["a"], ["b"]], [0, int(i % 3 == 0)]) for i in range(30)]
    ev = evaluate(["trueskill", "elo"], ms, start=0.5)
    df = ev.to_frame()
    assert list(df.index) == ["trueskill", "elo", "constant"]
    for row in ev.table():
        for k, v in row.items():
            if k == "model":
                continue
            got = df.loc[row["model"], k]
            assert (v is None and pd.isna(got)) or got == v


def test_standings_frame_of_the_worked_round() -> None:
    # tests/event/test_event_rules.py's round worked by hand
    spec = EventSpec("e", "l", rounds=1)
    t1 = Table(1, 1, ("a", "b", "c"), ("h",))
    t2 = Table(1, 2, ("d", "e", "f"), ("h",))
    r1 = Result(1, 1, ((4.0, -2.0, -2.0), (2.0, -1.0, -1.0), (1.0, -0.5, -0.5)))
    r2 = Result(1, 2, ((-2.0, 1.0, 1.0), (-8.0, 4.0, 4.0), (-2.0, 1.0, 1.0)))
    players = [Player(p, i + 1) for i, p in enumerate("abcdefg")]
    rows = standings(spec, players, [Round(1, (t1, t2), ("g",))], {(1, 1): r1, (1, 2): r2})
    df = rows.to_frame()
    assert list(df["player"])[:2] in (["d", "f"], ["f", "d"])
    assert dict(zip(df["player"], df["rank_points"], strict=True)) == {
        "d": 12,
        "f": 12,
        "a": 8,
        "b": 6,
        "c": 4,
        "e": 2,
        "g": 7,
    }
    assert list(df["place"]) == [1, 1, 3, 4, 5, 6, 7]
    assert df.loc[df["player"] == "a", "score"].item() == 2.5


def test_store_frames(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", GAMES)
        page = st.leaderboard("main")
        df = page.to_frame()
        assert list(df.columns) == ["rank", "player", "mu", "sigma", "exposed", "games"]
        assert [tuple(r) for r in df.itertuples(index=False)] == [
            (e.rank, e.player, e.mu, e.sigma, e.exposed, e.games) for e in page.entries
        ]
        assert len(df) == 4
        rec = st.player("main", "ann")
        h = rec.to_frame()
        assert list(h["match_id"]) == ["g1", "g3", "g4"]
        assert list(h["mu"]) == [p.mu for p in rec.history]
        assert h["mu"].iloc[-1] == rec.state.mu


def test_a_clear_error_without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(MindsportError, match=r"mindsport\[pandas\]"):
        replay(TrueSkill(), GAMES).to_frame()
