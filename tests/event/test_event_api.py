"""The event endpoints (TestClient): a 90-player, 6-round event from registration to the
league, checked against the brute-force reference; keys; refusals as 4xx naming the input.
Runs on SQLite and, when configured, on PostgreSQL."""

from __future__ import annotations

import csv
import io
import random
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from event_reference import (
    PlayedRound,
    board_scores,
    brute_standings,
    check_sheet,
    league_is_a_fresh_finish,
    played_round,
    repeats,
)
from schema_conformance import undocumented

from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def api(db_url: str) -> Iterator[tuple[TestClient, Store, dict[str, str], dict[str, str]]]:
    """(client, store, admin headers, league write-key headers) over league ``open``. Every
    answer the test gets must be documented by the OpenAPI schema: its status code for its
    operation, with its media type."""
    store = Store(db_url)
    store.create_league("open")
    store.create_league("other")
    admin = {"X-API-Key": store.create_key(admin=True)}
    writer = {"X-API-Key": store.create_key("open")}
    answers: list[tuple[str, str, int, str]] = []

    def seen(r: httpx.Response) -> None:
        media = r.headers.get("content-type", "").split(";")[0].strip()
        answers.append((r.request.method, r.request.url.path, r.status_code, media))

    with TestClient(create_app(store=store)) as client:
        client.event_hooks["response"].append(seen)
        yield client, store, admin, writer
        spec = client.app.openapi()  # type: ignore[attr-defined]
    store.close()
    assert len(answers) > 5
    assert undocumented(spec, answers) == set()


def test_ninety_players_six_rounds(api: Any) -> None:
    client, store, admin, writer = api
    r = client.post(
        "/api/events", json={"name": "cup", "league": "open", "seed": 5, "deals": 2}, headers=admin
    )
    assert r.status_code == 201, r.text
    names = [f"q{i:02d}" for i in range(90)]
    body = {"players": [{"name": n} for n in names]}
    assert client.post("/api/events/cup/players", json=body, headers=writer).status_code == 201
    rng = random.Random(9)
    played: list[PlayedRound] = []
    for rnd in range(1, 7):
        if rnd == 2:
            r = client.post("/api/events/cup/withdrawals", json={"player": "q10"}, headers=writer)
            assert r.json() == {"player": "q10", "withdrawn": 2}
        if rnd == 3:  # a late entry, seated in the round it joins
            body = {"players": [{"name": "late"}]}
            r = client.post("/api/events/cup/players", json=body, headers=writer)
            assert r.json() == {"registered": ["late"], "joined": 3}
        r = client.post("/api/events/cup/rounds", json={}, headers=writer)
        assert r.status_code == 201 and r.json()["round"] == rnd, r.text
        if rnd == 4:  # undo the pairing, reinstate q10, pair again
            undo = {"who": "td", "why": "q10 is back"}
            r = client.post("/api/events/cup/rounds/3/unpairing", json=undo, headers=writer)
            assert r.status_code == 400 and "not the latest round" in r.json()["detail"]
            r = client.post("/api/events/cup/rounds/4/unpairing", json=undo, headers=writer)
            assert r.status_code == 200 and r.json()["action"] == "unpair", r.text
            back = {"player": "q10", "who": "td", "why": "came back"}
            r = client.post("/api/events/cup/reinstatements", json=back, headers=writer)
            assert r.status_code == 200 and r.json()["round"] == 4, r.text
            r = client.post("/api/events/cup/reinstatements", json=back, headers=writer)
            assert r.status_code == 409 and "has not withdrawn" in r.json()["detail"]
            r = client.post("/api/events/cup/rounds", json={}, headers=writer)
            assert r.status_code == 201 and r.json()["round"] == 4, r.text
        sheet = client.get(f"/api/events/cup/rounds/{rnd}/sheet").json()
        check_sheet(sheet, deals=2)
        scores = [board_scores(rng, 6) for _ in sheet["tables"]]
        # table 1 on its own, the others in one post (all or none)
        url = f"/api/events/cup/rounds/{rnd}/tables/1/result"
        r = client.put(url, json={"scores": scores[0], "who": "desk 1"}, headers=writer)
        assert r.status_code == 201, r.text
        rest = [{"table": t, "scores": s} for t, s in enumerate(scores[1:], start=2)]
        r = client.post(
            f"/api/events/cup/rounds/{rnd}/results", json={"results": rest}, headers=writer
        )
        assert r.status_code == 201 and len(r.json()["tables"]) == len(rest), r.text
        played.append(played_round(sheet, scores))
    assert repeats(played) == 0
    # q10 out in rounds 2-3, the late entrant in from round 3 (and seated then), q10 back in 4
    assert [len(r.byes) for r in played] == [0, 2, 0, 1, 1, 1]
    assert "late" in {p for t in played[2].tables for p in t.players}
    assert all("q10" not in {p for t in r.tables for p in t.players} for r in played[1:3])
    byes = [p for r in played for p in r.byes]
    assert len(set(byes)) == len(byes)
    for after in (3, 6):  # after round 3 and at the end
        got = client.get("/api/events/cup/standings", params={"after": after}).json()
        want = brute_standings([*names, "late"], played[:after])
        assert {
            s["player"]: (s["place"], s["rank_points"], s["score"], s["opponents"])
            for s in got["standings"]
        } == want
    page = client.get("/events/cup").text
    assert "missing" not in page.split("<h2>Rounds</h2>")[1].split("<h2>")[0]
    # the standings as CSV (by ?format= and by Accept) parse back equal to the JSON's
    as_json = client.get("/api/events/cup/standings").json()
    assert set(as_json["legend"]) == {*as_json["standings"][0], "order"}
    kinds = {"player": str, "score": float, "withdrawn": lambda x: x == "true"}
    for how in ({"params": {"format": "csv"}}, {"headers": {"Accept": "text/csv"}}):
        r = client.get("/api/events/cup/standings", **how)  # type: ignore[arg-type]
        assert r.headers["content-type"].startswith("text/csv")
        parsed = list(csv.DictReader(io.StringIO(r.text)))
        assert [{k: kinds.get(k, int)(v) for k, v in x.items()} for x in parsed] == as_json[
            "standings"
        ]
    r = client.get("/api/events/cup/standings", params={"format": "xml"})
    assert r.status_code == 422
    r = client.post("/api/events/cup/finish", headers=writer)
    tables = sum(len(p.tables) for p in played)
    assert r.json() == {"event": "cup", "added": tables}
    assert client.post("/api/events/cup/finish", headers=writer).json()["added"] == 0
    assert store.match_count("open") == tables
    # a correction after the finish replaces the league's matches (none added)
    url = "/api/events/cup/rounds/2/tables/3/amendments"
    fixed = [[-x for x in row] for row in played[1].tables[2].scores]
    body = {"scores": fixed, "who": "td", "why": "appeal"}
    assert client.post(url, json=body, headers=writer).status_code == 201
    played[1].tables[2].scores = fixed
    assert store.match_count("open") == tables
    league_is_a_fresh_finish(store, "cup", "open", tables)
    got = client.get("/api/events/cup/standings").json()
    assert {
        s["player"]: (s["place"], s["rank_points"], s["score"], s["opponents"])
        for s in got["standings"]
    } == brute_standings([*names, "late"], played)
    state = client.get("/api/events/cup").json()
    assert [e["action"] for e in state["log"]] == ["unpair", "reinstate", "league"]
    assert client.delete("/api/events/cup", headers=writer).status_code == 409
    page = client.get("/events/cup").text
    assert "<h2>Log</h2>" in page and "appeal" in page and "id=legend" in page


def test_keys_and_refusals(api: Any) -> None:
    client, store, admin, writer = api
    spec = {"name": "small", "league": "open", "rounds": 2}
    assert client.post("/api/events", json=spec, headers=writer).status_code == 403
    assert client.post("/api/events", json=spec).status_code == 401
    assert client.post("/api/events", json=spec, headers=admin).status_code == 201
    assert client.post("/api/events", json=spec, headers=admin).status_code == 409
    bad = {**spec, "name": "x", "league": "nope"}
    assert client.post("/api/events", json=bad, headers=admin).status_code == 404
    bad = {**spec, "name": "x", "format": "equal-strength"}  # no pool of hands
    r = client.post("/api/events", json=bad, headers=admin)
    assert r.status_code == 400 and "pool" in r.json()["detail"]
    other = {"X-API-Key": store.create_key("other")}
    players = {"players": [{"name": n} for n in "abcdefg"]}
    assert client.post("/api/events/small/players", json=players, headers=other).status_code == 403
    assert client.post("/api/events/small/players", json=players, headers=writer).status_code == 201
    r = client.post("/api/events/small/players", json={"players": [{"name": "a"}]}, headers=writer)
    assert r.status_code == 409 and "'a' is already registered" in r.json()["detail"]
    bot = {"players": [{"name": "z", "bot": "cmd:rm -rf /"}]}
    assert client.post("/api/events/small/players", json=bot, headers=writer).status_code == 422
    # a player seated twice, in a round seated by hand
    twice = {"tables": [["a", "b", "c"], ["a", "d", "e"]]}
    r = client.post("/api/events/small/rounds", json=twice, headers=writer)
    assert r.status_code == 400 and "'a' is seated twice" in r.json()["detail"]
    good = {"tables": [["a", "b", "c"], ["d", "e", "f"]]}
    r = client.post("/api/events/small/rounds", json=good, headers=writer)
    assert r.json()["byes"] == ["g"]
    base = "/api/events/small/rounds/1/tables"
    ok_scores = {"scores": [[2, -1, -1], [-2, 1, 1], [1, -0.5, -0.5]]}
    r = client.put(f"{base}/3/result", json=ok_scores, headers=writer)
    assert r.status_code == 404 and "no table 3" in r.json()["detail"]
    r = client.put(f"{base}/1/result", json={"scores": [[2, -1, -2]] * 3}, headers=writer)
    assert r.status_code == 400 and "do not add up to 0" in r.json()["detail"]
    r = client.put(f"{base}/1/result", json={"scores": [[2, -1, -1]] * 2}, headers=writer)
    assert r.status_code == 400 and "3 boards" in r.json()["detail"]
    # a batch with one bad table writes nothing
    batch = {"results": [{"table": 1, **ok_scores}, {"table": 2, "scores": [[1, 1, 1]] * 3}]}
    r = client.post("/api/events/small/rounds/1/results", json=batch, headers=writer)
    assert r.status_code == 400 and "table 2 board 1" in r.json()["detail"]
    assert client.get("/api/events/small").json()["rounds"][0]["tables"][0]["scores"] is None
    assert client.put(f"{base}/1/result", json=ok_scores, headers=writer).status_code == 201
    r = client.post("/api/events/small/rounds", json={}, headers=writer)
    assert r.status_code == 400 and "no result for table 2" in r.json()["detail"]
    r = client.post("/api/events/small/withdrawals", json={"player": "d"}, headers=writer)
    assert r.status_code == 400 and "enter it first" in r.json()["detail"]
    assert client.put(f"{base}/1/result", json=ok_scores, headers=writer).status_code == 409
    amend = {"scores": [[-2, 1, 1]] * 3, "who": "td", "why": "misread sheet"}
    r = client.post(f"{base}/2/amendments", json=amend, headers=writer)
    assert r.status_code == 400 and "no result to amend" in r.json()["detail"]
    r = client.post(f"{base}/1/amendments", json=amend, headers=writer)
    assert r.status_code == 201 and r.json()["old"] == ok_scores["scores"]
    log = client.get("/api/events/small").json()["amendments"]
    assert [(a["who"], a["why"], a["new"]) for a in log] == [
        ("td", "misread sheet", amend["scores"])
    ]
    r = client.post("/api/events/small/finish", headers=writer)
    assert r.status_code == 400 and "not over" in r.json()["detail"]
    assert client.get("/api/events/nope").status_code == 404
    r = client.get("/api/events/small/rounds/2/sheet")
    assert r.status_code == 404 and "no round 2 (1 paired)" in r.json()["detail"]


def test_two_desks_entering_one_table_at_once(db_url: str) -> None:
    """Concurrent writers on one table: exactly one result is stored, the other is refused
    (the event row is locked by every write)."""
    import threading

    from mindsport.errors import ConflictError
    from mindsport.event.model import EventSpec
    from mindsport.event.storage import EventStore

    with Store(db_url) as store:
        store.create_league("open")
        events = EventStore(store)
        events.create(EventSpec("race", "open", rounds=1))
        events.register("race", [(p, None) for p in "abcdef"])
        events.pair("race")
        outcomes: list[str] = []
        barrier = threading.Barrier(4)

        def desk(sign: int) -> None:
            barrier.wait()
            try:
                events.enter_result("race", 1, 1, [[2 * sign, -sign, -sign]] * 3, f"desk{sign}")
                outcomes.append("stored")
            except ConflictError:
                outcomes.append("refused")

        threads = [threading.Thread(target=desk, args=(s,)) for s in (1, -1, 2, -2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["refused", "refused", "refused", "stored"]
        assert len(events.get("race").results) == 1


def test_delete_an_event_that_has_not_finished(api: Any) -> None:
    client, _, admin, writer = api
    spec = {"name": "gone", "league": "open", "rounds": 1}
    assert client.post("/api/events", json=spec, headers=admin).status_code == 201
    players = {"players": [{"name": n} for n in "abcd"]}
    assert client.post("/api/events/gone/players", json=players, headers=writer).status_code == 201
    assert client.post("/api/events/gone/rounds", json={}, headers=writer).status_code == 201
    assert client.delete("/api/events/gone").status_code == 401
    r = client.delete("/api/events/gone", headers=writer)
    assert r.json() == {"event": "gone", "players": 4, "rounds": 1, "results": 0}
    assert client.get("/api/events/gone").status_code == 404
    assert "gone" not in client.get("/api/events").json()["events"]
    assert client.delete("/api/events/gone", headers=writer).status_code == 404
    # the name is free again
    assert client.post("/api/events", json=spec, headers=admin).status_code == 201
