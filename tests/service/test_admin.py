"""Administration over HTTP with an admin key: leagues created and configured, keys created,
listed and revoked (refused at once), expiry; write keys and no key refused."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import create_engine, update

from mindsport.history import Match
from mindsport.service import create_app
from mindsport.store import Store, resolve_url
from mindsport.store.schema import api_keys

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def admin(db_url: str) -> Iterator[tuple[TestClient, Store, dict[str, str]]]:
    store = Store(db_url)
    key = store.create_key(admin=True)  # the bootstrap: `mindsport keys create --admin`
    with TestClient(create_app(store=store)) as client:
        yield client, store, {"X-API-Key": key}
    store.close()


def _post(client: TestClient, key: str, mid: str, t: int = 1) -> int:
    body = {"id": mid, "time": t, "teams": [["a"], ["b"]], "ranks": [0, 1]}
    return client.post(
        "/api/leagues/club/matches", json=body, headers={"X-API-Key": key}
    ).status_code


def test_leagues_over_http(admin: Any, reference: Any) -> None:
    client, store, h = admin
    r = client.post("/api/leagues", json={"name": "club", "params": {"beta": 4.0}}, headers=h)
    assert r.status_code == 201 and r.json() == {
        "name": "club",
        "model": "trueskill",
        "params": {"beta": 4.0},
        "matches": 0,
        "late": {"policy": "replay", "refuse_older_than": None},
        "updating": False,
        "time_unit": "number",
    }
    assert client.post("/api/leagues", json={"name": "club"}, headers=h).status_code == 409
    r = client.post("/api/leagues", json={"name": "x", "model": "chess9"}, headers=h)
    assert r.status_code == 422 and "unknown model 'chess9'" in r.json()["detail"][0]["msg"]
    r = client.post("/api/leagues", json={"name": "x", "params": {"beta": -1}}, headers=h)
    assert r.status_code == 400
    r = client.post("/api/leagues", json={"name": "x", "params": {"beta": 1e300}}, headers=h)
    assert r.status_code == 422
    assert client.post("/api/leagues", json={"name": "bad name"}, headers=h).status_code == 422
    ms = [Match(f"g{i}", i, [["a"], ["b"]], [i % 2, 1 - i % 2]) for i in range(6)]
    store.add_matches("club", ms)
    # merged parameters, a null removes one; the matches are re-rated with them
    r = client.patch("/api/leagues/club", json={"params": {"tau": 0.5, "beta": None}}, headers=h)
    assert r.status_code == 200 and r.json()["params"] == {"tau": 0.5}
    final, _ = reference(ms, tau=0.5)
    assert store.states("club")["a"].mu == pytest.approx(final["a"][0], abs=2e-5)
    r = client.patch("/api/leagues/club", json={"model": "elo"}, headers=h)
    assert r.status_code == 200 and (r.json()["model"], r.json()["params"]) == ("elo", {})
    assert client.patch("/api/leagues/nope", json={}, headers=h).status_code == 404
    names = [lg["name"] for lg in client.get("/api/leagues").json()["leagues"]]
    assert names == ["club"]


def test_keys_over_http(admin: Any, db_url: str) -> None:
    client, store, h = admin
    store.create_league("club")
    r = client.post("/api/keys", json={"league": "club", "label": "scorer"}, headers=h)
    assert r.status_code == 201
    made = r.json()
    write = made["key"]
    assert (
        made["role"] == "write" and made["status"] == "active" and write.startswith(made["prefix"])
    )
    assert _post(client, write, "g1") == 200
    # a write key cannot administer
    wh = {"X-API-Key": write}
    assert client.get("/api/keys", headers=wh).status_code == 403
    assert client.post("/api/leagues", json={"name": "y"}, headers=wh).status_code == 403
    assert client.post("/api/keys", json={"admin": True}, headers=wh).status_code == 403
    assert client.get("/api/keys").status_code == 401
    # listing never shows a key
    listed = client.get("/api/keys", headers=h).json()["keys"]
    assert write not in str(listed) and [k["role"] for k in listed] == ["admin", "write"]
    assert [k["id"] for k in client.get("/api/keys?league=club", headers=h).json()["keys"]] == [
        made["id"]
    ]
    # revoked: refused from the next request on
    r = client.delete(f"/api/keys/{made['id']}", headers=h)
    assert r.status_code == 200 and r.json()["status"] == "revoked"
    assert _post(client, write, "g2") == 403
    assert client.delete("/api/keys/999", headers=h).status_code == 404
    # an expiry: accepted until it passes, refused after
    r = client.post("/api/keys", json={"league": "club", "expires": "1h"}, headers=h)
    soon = r.json()
    expires = datetime.fromisoformat(soon["expires_at"])
    assert timedelta(minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=1)
    assert _post(client, soon["key"], "g3", 3) == 200
    engine = create_engine(resolve_url(db_url))
    with engine.begin() as conn:
        conn.execute(
            update(api_keys)
            .where(api_keys.c.id == soon["id"])
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    engine.dispose()
    assert _post(client, soon["key"], "g4", 4) == 403
    for bad in ({"league": "club", "expires": "yesterday"}, {"admin": True, "league": "club"}):
        assert client.post("/api/keys", json=bad, headers=h).status_code == 400, bad
    r = client.post("/api/keys", json={"league": "club", "expires": "2000-01-01"}, headers=h)
    assert r.status_code == 400 and "future" in r.json()["detail"]
    # a second admin key, then the first revoked by it
    second = client.post("/api/keys", json={"admin": True}, headers=h).json()
    first_id = listed[0]["id"]
    r = client.delete(f"/api/keys/{first_id}", headers={"X-API-Key": second["key"]})
    assert r.status_code == 200
    assert client.get("/api/keys", headers=h).status_code == 403
    assert store.match_count("club") == 2


def test_an_expiry_out_of_range_is_a_400_naming_it(admin: Any) -> None:
    """Durations and dates past 100 years ahead, or past the calendar's end once moved to UTC,
    are refused with the value named (they overflowed into a 500 before)."""
    client, store, h = admin
    store.create_league("club")
    for given in ("999999w", "36526d", "9999-12-31T23:59:59-05:00", "9999-12-31"):
        r = client.post("/api/keys", json={"league": "club", "expires": given}, headers=h)
        assert r.status_code == 400, (given, r.text)
        assert r.json()["detail"].startswith(f"expiry '{given}' is out of range"), r.json()
    # the edge itself is accepted: 36525 days ahead
    before = datetime.now(UTC)
    r = client.post("/api/keys", json={"league": "club", "expires": "36525d"}, headers=h)
    assert r.status_code == 201, r.text
    ahead = datetime.fromisoformat(r.json()["expires_at"]) - before
    assert timedelta(days=36525) <= ahead < timedelta(days=36525, minutes=1)
    assert [k["league"] for k in client.get("/api/keys", headers=h).json()["keys"]] == [
        None,
        "club",
    ]  # nothing written by the refused ones


def test_the_last_admin_key_is_not_revoked_over_http(admin: Any) -> None:
    """409 naming the key, the key still working; with a second admin key either may go, but
    not both."""
    client, _, h = admin
    own = client.get("/api/keys", headers=h).json()["keys"][0]
    r = client.delete(f"/api/keys/{own['id']}", headers=h)
    assert r.status_code == 409
    assert r.json()["detail"].startswith(f"API key {own['id']} is the last active admin key")
    assert client.get("/api/keys", headers=h).status_code == 200  # still an admin key
    second = client.post("/api/keys", json={"admin": True}, headers=h).json()
    r = client.delete(f"/api/keys/{second['id']}", headers=h)
    assert r.status_code == 200 and r.json()["status"] == "revoked"
    assert client.delete(f"/api/keys/{own['id']}", headers=h).status_code == 409
    assert [k["status"] for k in client.get("/api/keys", headers=h).json()["keys"]] == [
        "active",
        "revoked",
    ]


def test_a_league_of_every_registered_model_over_http(admin: Any) -> None:
    """Every model of the registry is created and switched to over HTTP (``trueskill-history``
    included), and the schema lists exactly the registry's names."""
    from mindsport.rating.registry import MODELS

    client, store, h = admin
    spec = client.get("/openapi.json").json()["components"]["schemas"]
    assert spec["LeagueIn"]["properties"]["model"]["enum"] == sorted(MODELS)
    patch_model = spec["LeaguePatch"]["properties"]["model"]["anyOf"][0]
    assert patch_model["enum"] == sorted(MODELS)
    assert len(MODELS) >= 8 and "trueskill-history" in MODELS
    for i, name in enumerate(MODELS):
        r = client.post("/api/leagues", json={"name": f"l{i}", "model": name}, headers=h)
        assert r.status_code == 201, (name, r.text)
        assert r.json()["model"] == name
        assert store.get_league(f"l{i}").model == name
        assert client.get(f"/api/leagues/l{i}/leaderboard").status_code == 200
        other = "elo" if name != "elo" else "trueskill-history"
        r = client.patch(f"/api/leagues/l{i}", json={"model": other}, headers=h)
        assert r.status_code == 200 and r.json()["model"] == other, (name, r.text)
        r = client.patch(f"/api/leagues/l{i}", json={"model": name}, headers=h)
        assert r.status_code == 200 and r.json()["model"] == name, (name, r.text)
    listed = {lg["name"]: lg["model"] for lg in client.get("/api/leagues").json()["leagues"]}
    assert listed == {f"l{i}": name for i, name in enumerate(MODELS)}


def test_every_models_settings_round_trip_over_http(admin: Any) -> None:
    """A league of every model given every setting (its default written out, a boolean turned
    off, Tenhou's bonus table changed) through the Python API, as the command line makes it:
    the settings ``GET /api/leagues`` shows are accepted as they are by ``POST /api/leagues``,
    and the new league holds the same settings."""
    from mindsport.rating.registry import MODELS

    client, store, h = admin
    given: dict[str, dict[str, Any]] = {}
    for i, (name, spec) in enumerate(sorted(MODELS.items())):
        params = {p.name: p.default for p in spec.params if p.default is not None}
        if name == "pairwise":
            params["both_orders"] = False
        if name == "tenhou":
            params["bonuses"] = ((40.0, 10.0, -20.0, -30.0), (30.0, 0.0, -30.0))
        store.create_league(f"src{i}", name, params)
        given[f"src{i}"] = params
    shown = {lg["name"]: lg for lg in client.get("/api/leagues").json()["leagues"]}
    for league, params in given.items():
        lg = shown[league]
        assert set(lg["params"]) == set(params), league
        r = client.post(
            "/api/leagues",
            json={"name": f"copy_{league}", "model": lg["model"], "params": lg["params"]},
            headers=h,
        )
        assert r.status_code == 201, (lg["model"], r.text)
        assert store.get_league(f"copy_{league}").params == store.get_league(league).params
    tenhou = next(lg for lg in shown.values() if lg["model"] == "tenhou")
    assert tenhou["params"]["bonuses"] == [[40.0, 10.0, -20.0, -30.0], [30.0, 0.0, -30.0]]
    pairwise = next(lg for lg in shown.values() if lg["model"] == "pairwise")
    assert pairwise["params"]["both_orders"] is False


def test_a_table_setting_is_bounded_and_checked_by_its_model(admin: Any) -> None:
    """A table larger than the schema allows is a 422 naming the field; a table where the model
    wants a number is the model's 400 naming the setting."""
    client, _store, h = admin
    rows = [[1.0] * 4] * 17
    r = client.post(
        "/api/leagues",
        json={"name": "t1", "model": "tenhou", "params": {"bonuses": rows}},
        headers=h,
    )
    assert r.status_code == 422 and "bonuses" in r.text, r.text
    r = client.post(
        "/api/leagues",
        json={"name": "t2", "model": "trueskill", "params": {"beta": [[1.0]]}},
        headers=h,
    )
    assert r.status_code == 400 and "beta" in r.json()["detail"], r.text
