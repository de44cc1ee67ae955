"""Identifier rules over HTTP and in the store, on SQLite and PostgreSQL (issue 42): ids made
only of invisible characters or holding a bidirectional control are refused with a 422 naming
the field; the NFC and NFD spellings of an id are one player, wherever the id enters (posted
matches, the player path, predictions, matchmaking, event registration). The reference
is ``unicodedata.normalize``."""

from __future__ import annotations

import unicodedata
from typing import Any
from urllib.parse import quote

import pytest

NFD = "cafe\u0301"
NFC = unicodedata.normalize("NFC", NFD)
URL = "/api/leagues/main/matches"
M_ACUTE = unicodedata.normalize("NFC", "m\u0301")  # U+1E3F, one character


def test_nfc_and_nfd_spellings_are_one_player(setup: Any) -> None:
    client, store, key = setup
    h = {"X-API-Key": key}
    assert NFD != NFC
    posts = [
        {"id": "m1", "time": 1, "teams": [[NFD], ["bob"]], "ranks": [0, 1]},
        {"id": "m2", "time": 2, "teams": [[NFC], ["bob"]], "ranks": [0, 1]},
        {"id": "m3", "time": 3, "teams": [["bob"], [NFD]], "ranks": [0, 1]},
    ]
    for p in posts:
        assert client.post(URL, json=p, headers=h).status_code == 200
    # a match id in the other spelling is the same match: an identical repeat
    again = {**posts[0], "id": "m\u0301"}
    assert client.post(URL, json=again, headers=h).json()["added"] == 1
    again = {**posts[0], "id": M_ACUTE}
    assert client.post(URL, json=again, headers=h).json() == {
        "added": 0, "duplicates": 1, "replayed": 0, "updating": False,
    }  # fmt: skip
    board = client.get("/api/leagues/main/leaderboard").json()
    assert sorted(i["player"] for i in board["items"]) == sorted(["bob", NFC])
    assert {i["player"]: i["games"] for i in board["items"]}[NFC] == 4
    for spelling in (NFD, NFC):
        r = client.get(f"/api/leagues/main/players/{quote(spelling)}")
        assert r.status_code == 200 and r.json()["player"] == NFC, r.text
        # the repeat of m1 under the other id has m1's time, and a later commit sequence
        assert [x["match_id"] for x in r.json()["history"]] == ["m1", M_ACUTE, "m2", "m3"]
        assert store.player("main", spelling).player == NFC
    r = client.post("/api/leagues/main/predict", json={"teams": [[NFD], ["bob"]]})
    assert r.status_code == 200 and r.json()["new_players"] == [], r.text
    r = client.post("/api/leagues/main/predict", json={"teams": [[NFD], [NFC]]})
    assert r.status_code == 400 and "twice" in r.json()["detail"]
    r = client.post("/api/leagues/main/matchmake", json={"players": [NFD, "bob"], "shape": "1v1"})
    assert r.status_code == 200, r.text
    assert sorted(p for t in r.json()["tables"][0]["teams"] for p in t) == sorted([NFC, "bob"])


@pytest.mark.parametrize(
    "bad", ["\u200b", "\u0301", "\u200b\u200d", "\u3000", "a\u202eb", "\u2066x", "x\u200f"]
)
def test_invisible_and_bidirectional_ids_are_refused(setup: Any, bad: str) -> None:
    client, store, key = setup
    h = {"X-API-Key": key}
    r = client.post(URL, json={"id": "g", "time": 1, "teams": [[bad], ["b"]], "ranks": [0, 1]})
    assert r.status_code == 401  # no key: refused before the body
    r = client.post(
        URL, json={"id": "g", "time": 1, "teams": [[bad], ["b"]], "ranks": [0, 1]}, headers=h
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:3] == ["body", "teams", 0]
    r = client.post(URL, json={"id": bad, "time": 1, "teams": [["a"], ["b"]], "ranks": [0, 1]},
                    headers=h)  # fmt: skip
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:2] == ["body", "id"]
    r = client.get(f"/api/leagues/main/players/{quote(bad)}")
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["path", "player"]
    r = client.post("/api/leagues/main/predict", json={"teams": [[bad], ["b"]]})
    assert r.status_code == 422
    assert store.match_count("main") == 0


def test_event_players_are_registered_in_nfc(setup: Any) -> None:
    from mindsport.event.model import EventSpec
    from mindsport.event.storage import EventStore

    _, store, _ = setup
    events = EventStore(store)
    events.create(EventSpec("ev", "main", rounds=2))
    events.register("ev", [(NFD, None), ("b", None), ("c", None)])
    assert [p.name for p in events.get("ev").players] == [NFC, "b", "c"]
    with pytest.raises(Exception, match="already registered"):
        events.register("ev", [(NFC, None)])
    assert events.withdraw("ev", NFD).name == NFC


def test_search_over_http_is_the_casefold_of_the_nfc_forms(setup: Any) -> None:
    client, _, key = setup
    ids = ["\u00e9mile", "\u00c9MILE2", "e\u0301mile3", "emile4", "Stra\u00dfe", "\u0130zmir"]
    for i, p in enumerate(ids):
        m = {"id": f"m{i}", "time": i, "teams": [[p], ["anchor"]], "ranks": [0, 1]}
        assert client.post(URL, json=m, headers={"X-API-Key": key}).status_code == 200
    stored = [unicodedata.normalize("NFC", p) for p in ids]
    for q in ["E\u0301MILE", "\u00e9mile", "STRASSE", "\u0130", "i\u0307z"]:
        want = sorted(
            p for p in stored if unicodedata.normalize("NFC", q).casefold() in p.casefold()
        )
        r = client.get("/api/leagues/main/leaderboard", params={"search": q, "limit": 500})
        assert r.status_code == 200 and r.json()["search"] == q
        assert sorted(i["player"] for i in r.json()["items"]) == want, q
    assert len(want) == 1  # "i̇z" finds İzmir, whose folding is "i̇zmir"
    r = client.get("/api/leagues/main/leaderboard", params={"search": "a\x00"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "search"]
