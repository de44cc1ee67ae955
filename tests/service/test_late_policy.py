"""A league's policy for late results over HTTP (SQLite and PostgreSQL): set when a league is
created, changed by PATCH (re-rating nothing), shown by GET /api/leagues, and applied to posts.

References: ``arrival`` ratings are :func:`mindsport.history.replay` of the posted matches in
memory in the order they were posted; ``replay`` ratings the ``trueskill`` package's in time
order; a refused post leaves the league's log and ratings as they were read before it.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from mindsport.history import replay
from mindsport.rating import build_model
from mindsport.service import create_app
from mindsport.store import LatePolicy, Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def admin(db_url: str) -> Iterator[tuple[TestClient, Store, dict[str, str]]]:
    store = Store(db_url)
    key = store.create_key(admin=True)
    with TestClient(create_app(store=store)) as client:
        yield client, store, {"X-API-Key": key}
    store.close()


def _match(mid: str, t: float, a: str, b: str, first: bool = True) -> dict[str, Any]:
    return {"id": mid, "time": t, "teams": [[a], [b]], "ranks": [0, 1] if first else [1, 0]}


def _matches(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` 1-vs-1 matches among 6 players at times 0, 1, 2, ..."""
    rng = random.Random(seed)
    pool = [f"p{i}" for i in range(6)]
    return [_match(f"g{i}", i, *rng.sample(pool, 2), rng.random() < 0.5) for i in range(n)]


def _as_match(body: dict[str, Any]) -> Any:
    from mindsport.match import Match

    return Match(body["id"], body["time"], body["teams"], body["ranks"])


def _late(client: TestClient, name: str) -> Any:
    got = {lg["name"]: lg for lg in client.get("/api/leagues").json()["leagues"]}
    return got[name]["late"]


def test_the_policy_is_set_shown_and_changed(admin: Any) -> None:
    client, store, h = admin
    for name, late in (
        ("a", None),
        ("b", {"policy": "replay"}),
        ("c", {"policy": "arrival"}),
        ("d", {"policy": "refuse", "refuse_older_than": 7}),
    ):
        body: dict[str, Any] = {"name": name} if late is None else {"name": name, "late": late}
        r = client.post("/api/leagues", json=body, headers=h)
        assert r.status_code == 201, r.text
        shown = {"policy": "replay", "refuse_older_than": None}
        if late is not None:
            shown = {"refuse_older_than": None, **late}
        assert r.json()["late"] == shown
        assert _late(client, name) == shown
    assert store.get_league("d").late == LatePolicy("refuse", 7)
    # malformed policies: 422 naming the field; arrival on a whole-history model: 400
    for bad in (
        {"policy": "refuse"},
        {"policy": "refuse", "refuse_older_than": -1},
        {"policy": "refuse", "refuse_older_than": 1e11},
        {"policy": "refuse", "refuse_older_than": "7"},
        {"policy": "arrival", "refuse_older_than": 3},
        {"policy": "later"},
        "arrival",
    ):
        r = client.post("/api/leagues", json={"name": "x", "late": bad}, headers=h)
        assert r.status_code == 422, bad
        assert r.json()["detail"][0]["loc"][:2] == ["body", "late"], r.json()
    body = {"name": "x", "model": "trueskill-history", "late": {"policy": "arrival"}}
    r = client.post("/api/leagues", json=body, headers=h)
    assert r.status_code == 400 and "'arrival' does not apply" in r.json()["detail"]
    assert "x" not in {lg.name for lg in store.list_leagues()}
    # PATCH the policy alone
    r = client.patch(
        "/api/leagues/c", json={"late": {"policy": "refuse", "refuse_older_than": 2.5}}, headers=h
    )
    assert r.status_code == 200 and r.json()["late"] == {
        "policy": "refuse",
        "refuse_older_than": 2.5,
    }
    assert _late(client, "c") == r.json()["late"]
    # with parameters: both change
    r = client.patch(
        "/api/leagues/c", json={"params": {"beta": 5.0}, "late": {"policy": "arrival"}}, headers=h
    )
    assert r.status_code == 200
    assert (r.json()["params"], r.json()["late"]["policy"]) == ({"beta": 5.0}, "arrival")
    # and without it the policy is kept
    r = client.patch("/api/leagues/c", json={"params": {"beta": 4.0}}, headers=h)
    assert r.status_code == 200 and r.json()["late"]["policy"] == "arrival"
    body = {"model": "trueskill-history"}
    r = client.patch("/api/leagues/c", json=body, headers=h)
    assert r.status_code == 400 and "'arrival' does not apply" in r.json()["detail"]
    assert client.get("/api/leagues").json()["leagues"][2]["model"] == "trueskill"


def test_arrival_and_replay_over_http(admin: Any, reference: Any) -> None:
    client, store, h = admin
    for name, policy in (("arr", "arrival"), ("rep", "replay")):
        body = {"name": name, "late": {"policy": policy}}
        assert client.post("/api/leagues", json=body, headers=h).status_code == 201
    ms = _matches(40, seed=5)
    order = ms[:]
    random.Random(6).shuffle(order)
    replayed = {"arr": 0, "rep": 0}
    for i in range(0, len(order), 3):
        for name in replayed:
            r = client.post(f"/api/leagues/{name}/matches", json=order[i : i + 3], headers=h)
            assert r.status_code == 200, r.text
            replayed[name] += r.json()["replayed"]
    assert replayed["arr"] == 0 and replayed["rep"] > 0
    expect = replay(build_model("trueskill"), [_as_match(m) for m in order]).ratings
    got = store.ratings("arr")
    assert set(got) == set(expect)
    for p, rating in expect.items():
        assert got[p] == pytest.approx(rating, abs=1e-9), p
    final, _ = reference([_as_match(m) for m in ms])
    board = client.get("/api/leagues/rep/leaderboard").json()["items"]
    assert {e["player"]: e["mu"] for e in board} == pytest.approx(
        {p: mu for p, (mu, _) in final.items()}, abs=2e-5
    )
    # PATCH of the policy alone re-rates nothing
    before = store.states("arr")
    patch = {"late": {"policy": "replay"}}
    assert client.patch("/api/leagues/arr", json=patch, headers=h).status_code == 200
    assert store.states("arr") == before


def test_refuse_over_http(admin: Any) -> None:
    client, store, h = admin
    body = {"name": "ref", "late": {"policy": "refuse", "refuse_older_than": 10}}
    assert client.post("/api/leagues", json=body, headers=h).status_code == 201
    url = "/api/leagues/ref/matches"
    assert client.post(url, json=_match("m1", 100, "a", "b"), headers=h).status_code == 200
    before = (store.matches("ref"), store.states("ref"))
    post = {"matches": [_match("ok", 101, "b", "c"), _match("old", 89.5, "a", "c")]}
    r = client.post(url, json=post, headers=h)
    assert r.status_code == 409
    detail = r.json()["detail"]
    assert "'old'" in detail and "89.5" in detail and "refuse_older_than=10" in detail
    assert (store.matches("ref"), store.states("ref")) == before  # nothing of the post
    r = client.post(url, json=_match("edge", 90, "a", "c"), headers=h)  # exactly 10: accepted
    assert r.status_code == 200 and r.json()["added"] == 1 and r.json()["replayed"] == 1
    assert [m.id for m in store.matches("ref")] == ["edge", "m1"]
