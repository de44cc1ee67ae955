"""The JSON API: status codes, validation, and numbers against independent references."""

from __future__ import annotations

import random
import threading
from typing import Any

import httpx
import pytest

from mindsport.history import Match

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TOL = 2e-5


def as_json(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams], "ranks": list(m.ranks)}


def some_matches(n: int, seed: int, players: int = 10, t0: int = 0) -> list[Match]:
    rng = random.Random(seed)
    pool = [f"p{i}" for i in range(players)]
    out = []
    for i in range(n):
        if rng.random() < 0.5:
            a, b = rng.sample(pool, 2)
            teams = [[a], [b]]
        else:
            q = rng.sample(pool, 4)
            teams = [q[:2], q[2:]]
        out.append(Match(f"m{t0 + i}", t0 + i, teams, rng.choice([[0, 1], [1, 0], [0, 0]])))
    return out


def test_post_forms_and_reference_ratings(setup: Any, reference: Any) -> None:
    client, _, key = setup
    ms = some_matches(40, 1)
    h = {"X-API-Key": key}
    r = client.post("/api/leagues/main/matches", json=as_json(ms[0]), headers=h)
    assert r.status_code == 200 and r.json() == {
        "added": 1,
        "duplicates": 0,
        "replayed": 0,
        "updating": False,
    }
    r = client.post("/api/leagues/main/matches", json=[as_json(m) for m in ms[1:20]], headers=h)
    assert r.json()["added"] == 19
    # late matches (earlier times) posted last, plus everything again
    late = [as_json(m) for m in ms[20:]]
    late.reverse()
    r = client.post(
        "/api/leagues/main/matches", json={"matches": [*late, as_json(ms[0])]}, headers=h
    )
    assert r.json() == {"added": 20, "duplicates": 1, "replayed": 0, "updating": False}
    final, hist = reference(ms)
    board = client.get("/api/leagues/main/leaderboard", params={"limit": 500}).json()
    assert board["total"] == len(final)
    for item in board["items"]:
        mu, sigma = final[item["player"]]
        assert item["mu"] == pytest.approx(mu, abs=TOL)
        assert item["sigma"] == pytest.approx(sigma, abs=TOL)
        assert item["exposed"] == pytest.approx(mu - 3 * sigma, abs=1e-4)
    exposed = [i["exposed"] for i in board["items"]]
    assert exposed == sorted(exposed, reverse=True)
    p = client.get("/api/leagues/main/players/p3").json()
    assert [h["match_id"] for h in p["history"]] == [m.id for m in ms if "p3" in m.players]
    assert [h["mu"] for h in p["history"]] == pytest.approx([x[0] for x in hist["p3"]], abs=TOL)
    assert p["games"] == len(hist["p3"])


def test_errors_have_status_and_name_the_field(setup: Any) -> None:
    client, store, key = setup
    h = {"X-API-Key": key}
    good = {"id": "g1", "time": 1, "teams": [["a"], ["b"]], "ranks": [0, 1]}
    assert client.post("/api/leagues/main/matches", json=good).status_code == 401
    r = client.post("/api/leagues/main/matches", json=good, headers={"X-API-Key": "wrong"})
    assert r.status_code == 403
    assert client.post("/api/leagues/nope/matches", json=good, headers=h).status_code == 404
    r = client.post("/api/leagues/main/matches", json={**good, "time": "soon"}, headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:2] == ["body", "time"]
    r = client.post("/api/leagues/main/matches", json=[good, {**good, "id": ""}], headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:3] == ["body", 1, "id"]
    r = client.post("/api/leagues/main/matches", json={**good, "ranks": [0, 1, 2]}, headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "ranks"]
    assert "3 ranks for 2 teams" in r.json()["detail"][0]["msg"]
    r = client.post("/api/leagues/main/matches", json={**good, "colour": "red"}, headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "colour"]
    assert client.post("/api/leagues/main/matches", json=good, headers=h).status_code == 200
    r = client.post("/api/leagues/main/matches", json={**good, "ranks": [1, 0]}, headers=h)
    assert r.status_code == 409 and "'g1'" in r.json()["detail"]
    r = client.post(
        "/api/leagues/main/matches",
        json=[{**good, "id": "g2", "time": 2}, {**good, "id": "g1", "ranks": [1, 0]}],
        headers=h,
    )
    assert r.status_code == 409
    assert store.match_count("main") == 1  # the refused batch left nothing
    r = client.get("/api/leagues/main/leaderboard", params={"limit": 0})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "limit"]
    assert client.get("/api/leagues/nope/leaderboard").status_code == 404
    assert client.get("/api/leagues/main/players/zz").status_code == 404
    r = client.post("/api/leagues/main/predict", json={"teams": [["a"], ["a"]]})
    assert r.status_code == 400 and "twice" in r.json()["detail"]
    r = client.post("/api/leagues/main/matchmake", json={"players": ["a", "b"], "shape": "7x"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "shape"]
    r = client.post("/api/leagues/main/matchmake", json={"players": ["a", "b"], "shape": "0v1"})
    assert r.status_code == 400 and "0v1" in r.json()["detail"]


def test_leaderboard_paging_and_search(setup: Any, reference: Any) -> None:
    client, store, _ = setup
    ms = some_matches(80, 2, players=25)
    store.add_matches("main", ms)
    final, _ = reference(ms)
    order = sorted(final, key=lambda p: (-(final[p][0] - 3 * final[p][1]), p))
    got: list[str] = []
    for off in range(0, 25, 10):
        page = client.get("/api/leagues/main/leaderboard", params={"offset": off, "limit": 10})
        got += [i["player"] for i in page.json()["items"]]
    assert got == order
    found = client.get("/api/leagues/main/leaderboard", params={"search": "p2"}).json()
    assert sorted(i["player"] for i in found["items"]) == sorted(p for p in final if "p2" in p)
    assert all(i["rank"] == order.index(i["player"]) + 1 for i in found["items"])


def test_predict_and_matchmake(setup: Any) -> None:
    trueskill = pytest.importorskip("trueskill")
    client, store, _ = setup
    store.add_matches("main", some_matches(60, 3, players=8))
    env = trueskill.TrueSkill(backend=None)
    st = store.states("main")
    r = {p: env.create_rating(s.mu, s.sigma) for p, s in st.items()}
    body = client.post("/api/leagues/main/predict", json={"teams": [["p0", "p1"], ["p2"]]}).json()
    assert body["quality"] == pytest.approx(env.quality([(r["p0"], r["p1"]), (r["p2"],)]), abs=1e-9)
    # two teams: P(a ahead) + P(b ahead) + P(draw) = 1 and the stronger side is favoured
    pw = body["pairwise"]
    assert pw[0][1] == body["win_probability"]
    assert 0 < pw[0][1] + pw[1][0] <= 1
    assert (pw[0][1] > pw[1][0]) == (r["p0"].mu + r["p1"].mu > r["p2"].mu)
    places = body["rank_probabilities"]
    assert [sum(row) for row in places] == pytest.approx([1, 1], abs=1e-6)
    r404 = client.post("/api/leagues/main/predict", json={"teams": [["p0"], ["new"]]})
    assert r404.status_code == 404 and "'new'" in r404.json()["detail"]
    ok = client.post(
        "/api/leagues/main/predict", json={"teams": [["p0"], ["new"]], "allow_new": True}
    )
    assert ok.status_code == 200 and ok.json()["new_players"] == ["new"]
    plan = client.post(
        "/api/leagues/main/matchmake", json={"players": [f"p{i}" for i in range(7)], "shape": "1v2"}
    ).json()
    assert len(plan["tables"]) == 2 and len(plan["waiting"]) == 1 and plan["exact"]
    seated = [p for t in plan["tables"] for team in t["teams"] for p in team] + plan["waiting"]
    assert sorted(seated) == [f"p{i}" for i in range(7)]
    assert plan["worst_quality"] == min(t["quality"] for t in plan["tables"])
    for t in plan["tables"]:
        assert [len(team) for team in t["teams"]] == [1, 2]
        q = env.quality([tuple(r[p] for p in team) for team in t["teams"]])
        assert t["quality"] == pytest.approx(q, abs=1e-9)


def test_leagues_listing(setup: Any) -> None:
    client, store, _ = setup
    store.create_league("second", "trueskill", {"beta": 2.0})
    got = client.get("/api/leagues").json()["leagues"]
    assert [(lg["name"], lg["params"]) for lg in got] == [("main", {}), ("second", {"beta": 2.0})]


def test_concurrent_http_clients_equal_sequential_replay(
    db_url: str, reference: Any, live_server: Any
) -> None:
    base, store = live_server(db_url)
    store.create_league("main")
    key = store.create_key("main")
    ms = some_matches(72, 4, players=12)
    posts = [ms[i : i + 3] for i in range(0, len(ms), 3)]
    random.Random(5).shuffle(posts)
    lock = threading.Lock()
    errors: list[str] = []

    def client() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60) as c:
            while True:
                with lock:
                    if not posts:
                        return
                    batch = posts.pop()
                r = c.post("/api/leagues/main/matches", json=[as_json(m) for m in batch])
                if r.status_code != 200:
                    errors.append(r.text)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.match_count("main") == 72
    final, _ = reference(ms)
    got = store.states("main")
    for p, (mu, sigma) in final.items():
        assert got[p].mu == pytest.approx(mu, abs=TOL)
        assert got[p].sigma == pytest.approx(sigma, abs=TOL)


def test_a_whole_history_league_serves_the_smoothed_curve(setup: Any) -> None:
    from mindsport.rating.through_time.model import TrueSkillThroughTime

    client, store, key = setup
    params = {"drift": 0.5, "draw_probability": 0.1, "tolerance": 1e-9}
    store.create_league("smooth", "trueskill-history", params)
    ms = some_matches(60, 4)
    h = {"X-API-Key": store.create_key("smooth")}
    late = [as_json(m) for m in ms[30:]], [as_json(m) for m in ms[:30]]
    for post in late:  # the earlier half arrives last: the past is revised
        r = client.post("/api/leagues/smooth/matches", json=post, headers=h)
        assert r.status_code == 200 and r.json()["added"] == 30
    want = TrueSkillThroughTime(**params).history(ms)
    p = client.get("/api/leagues/smooth/players/p3").json()
    c = want.curve("p3")
    assert p["history"] == []
    assert [pt["time"] for pt in p["curve"]] == list(c.times)
    assert [pt["mu"] for pt in p["curve"]] == pytest.approx(c.mu.tolist(), abs=1e-6)
    assert [pt["sigma"] for pt in p["curve"]] == pytest.approx(c.sigma.tolist(), abs=1e-6)
    r = want.rating("p3")
    assert (p["mu"], p["sigma"]) == pytest.approx((r.mu, r.sigma), abs=1e-6)
    assert p["exposed"] == pytest.approx(r.mu - 3 * r.sigma, abs=1e-5)
    # an online league: no curve
    client.post(
        "/api/leagues/main/matches", json=[as_json(m) for m in ms], headers={"X-API-Key": key}
    )
    assert client.get("/api/leagues/main/players/p3").json()["curve"] == []


def test_after_the_database_ends_its_connections_requests_succeed(
    pg_url: str, end_backends: Any, reference: Any
) -> None:
    """PostgreSQL ends every connection of an idle server (``pg_terminate_backend``, as a
    restart does): its next post, read and prediction are answered, not a 500."""
    import warnings

    from mindsport.service import create_app
    from mindsport.store import Store

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    ms = some_matches(20, 5)
    store = Store(pg_url)
    store.create_league("main")
    h = {"X-API-Key": store.create_key("main")}
    with TestClient(create_app(store=store)) as client:
        url = "/api/leagues/main/matches"
        assert client.post(url, json=[as_json(m) for m in ms[:10]], headers=h).status_code == 200
        assert client.get("/api/leagues/main/leaderboard").status_code == 200
        assert end_backends() >= 1
        r = client.post(url, json=[as_json(m) for m in ms[10:]], headers=h)
        assert r.status_code == 200, r.text
        assert end_backends() >= 1
        r = client.get("/api/leagues/main/leaderboard", params={"limit": 500})
        assert r.status_code == 200, r.text
        assert end_backends() >= 1
        r = client.post("/api/leagues/main/predict", json={"teams": [["p0"], ["p1"]]})
        assert r.status_code == 200, r.text
        final, _ = reference(ms)
        board = client.get("/api/leagues/main/leaderboard", params={"limit": 500}).json()
        assert board["total"] == len(final)
        for item in board["items"]:
            assert item["mu"] == pytest.approx(final[item["player"]][0], abs=TOL)
    store.close()
