"""A late result's long re-rating over HTTP (:mod:`mindsport.store.catchup`), on SQLite and
PostgreSQL: the post answers at once with ``updating``, the league stays readable and marked,
serving the ratings it had before, and ends equal to :func:`mindsport.history.replay` of its
matches in time order (the reference, computed in memory)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mindsport.history import replay
from mindsport.match import Match
from mindsport.rating import build_model
from mindsport.service import create_app
from mindsport.store import Store

URL = "/api/leagues/main/matches"


def _body(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": m.teams, "ranks": m.ranks}


def test_a_late_post_answers_at_once_and_the_league_catches_up(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mindsport.store.ingest.INLINE", 30)
    rng = random.Random(4)
    pool = [f"p{i}" for i in range(8)]
    ms = []
    for i in range(400):
        a, b = rng.sample(pool, 2)
        ms.append(Match(f"m{i}", i + 10, [[a], [b]], [0, 1] if rng.random() < 0.5 else [1, 0]))
    late = Match("late", 1, [["p0"], ["p1"]], [0, 1])
    store = Store(db_url)
    store.create_league("main", "trueskill")
    key = store.create_key("main")
    h = {"X-API-Key": key}
    with TestClient(create_app(store=store)) as client:
        assert client.post(URL, json=[_body(m) for m in ms], headers=h).status_code == 200
        before = client.get("/api/leagues/main/leaderboard?limit=100").json()
        assert before["updating"] is False
        # the catch-up is held back for a moment, so the marked league can be read
        store.stop_catch_up()
        r = client.post(URL, json=_body(late), headers=h)
        assert r.status_code == 200
        assert r.json() == {"added": 1, "duplicates": 0, "replayed": 0, "updating": True}
        board = client.get("/api/leagues/main/leaderboard?limit=100").json()
        assert board["updating"] is True and board["items"] == before["items"]
        leagues = client.get("/api/leagues").json()["leagues"]
        assert [lg["updating"] for lg in leagues if lg["name"] == "main"] == [True]
        assert client.get("/api/leagues/main/players/p0").json()["updating"] is True
        assert "being brought up to date" in client.get("/?league=main").text
        store.start_catch_up()
        deadline = time.monotonic() + 60
        while client.get("/api/leagues/main/leaderboard").json()["updating"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        expect = replay(build_model("trueskill"), [late, *ms]).ratings
        items = client.get("/api/leagues/main/leaderboard?limit=100").json()["items"]
        assert {i["player"] for i in items} == set(expect)
        for i in items:
            assert i["mu"] == pytest.approx(expect[i["player"]].mu, abs=1e-9)
            assert i["sigma"] == pytest.approx(expect[i["player"]].sigma, abs=1e-9)
    store.close()
