"""Roles, deals and luck over HTTP: validated by the schema (errors name the field), kept in
the match log, and a ``cardplay`` league's learned role advantages served with its leaderboard
(checked against the in-memory replay of the same matches)."""

from __future__ import annotations

from typing import Any

import pytest

from mindsport.match import Match
from mindsport.rating.registry import build_model
from mindsport.rating.replay.blocks import PlayerIndex

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BODY = {
    "id": "g1",
    "time": 1,
    "teams": [["ann"], ["bob", "cy"]],
    "scores": [2.0, -2.0],
    "roles": [["landlord"], ["farmer1", "farmer2"]],
    "deal": "d1",
    "luck": [0.4, 0.0],
}


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("roles", [["landlord"], ["farmer1"]]),
        ("deal", ""),
        ("luck", [0.4]),
    ],
)
def test_bad_fields_are_refused_by_name(setup: Any, field: str, bad: Any) -> None:
    client, store, key = setup
    h = {"X-API-Key": key}
    r = client.post("/api/leagues/main/matches", json={**BODY, field: bad}, headers=h)
    assert r.status_code in (400, 422) and field in r.text
    assert store.match_count("main") == 0


def test_the_fields_are_kept_and_plain_models_rate_plain(setup: Any) -> None:
    client, store, key = setup
    r = client.post("/api/leagues/main/matches", json=BODY, headers={"X-API-Key": key})
    assert r.status_code == 200 and r.json()["added"] == 1
    kept = store.matches("main")[0]
    assert (kept.roles, kept.deal, kept.luck) == (
        (("landlord",), ("farmer1", "farmer2")),
        "d1",
        (0.4, 0.0),
    )
    board = client.get("/api/leagues/main/leaderboard").json()
    assert board["roles"] == [] and board["total"] == 3


def test_a_cardplay_leaderboard_serves_its_role_advantages(setup: Any) -> None:
    client, store, _ = setup
    store.create_league("ddz", "cardplay")
    key = store.create_key("ddz")
    plain = {k: v for k, v in BODY.items() if k != "scores"}
    seatings = [("ann", "bob", "cy"), ("bob", "cy", "ann")] * 4
    bodies = [
        {**plain, "id": f"g{i}", "time": i, "teams": [[a], [b, c]],
         "ranks": [0, 1] if i % 3 else [1, 0]}
        for i, (a, b, c) in enumerate(seatings)
    ]  # fmt: skip
    r = client.post("/api/leagues/ddz/matches", json=bodies, headers={"X-API-Key": key})
    assert r.status_code == 200 and r.json()["added"] == len(bodies)
    ms = [
        Match(b["id"], b["time"], b["teams"], b["ranks"], roles=b["roles"], deal=b["deal"],
              luck=b["luck"])
        for b in bodies
    ]  # fmt: skip
    replayer = build_model("cardplay").replayer()
    replayer.feed(replayer.encode(ms, PlayerIndex(), None), predict=False, keep=False)
    want = replayer.roles()
    got = client.get("/api/leagues/ddz/leaderboard").json()["roles"]
    assert [g["role"] for g in got] == sorted(want) == ["farmer1", "farmer2", "landlord"]
    for g in got:
        assert g["advantage"] == pytest.approx(want[g["role"]].mu, abs=1e-9)
        assert g["sigma"] == pytest.approx(want[g["role"]].sigma, abs=1e-9)
    # the sides against the average side (issue 38), as the replay in memory estimates them
    seats = client.get("/api/leagues/ddz/leaderboard").json()["seats"]
    edges = {e.side: e for e in replayer.seat_edges()}
    assert [s["side"] for s in seats] == sorted(edges) == ["farmer1+farmer2", "landlord"]
    for s in seats:
        e = edges[s["side"]]
        assert s["roles"] == list(e.roles) and s["teams"] == e.teams == len(bodies)
        assert e.vs_average is not None
        assert (s["vs_average"], s["low"], s["high"]) == pytest.approx(
            (e.vs_average, e.low, e.high), abs=1e-9
        )
    by_role = {g["role"]: g for g in got}
    assert by_role["landlord"]["vs_average"] == pytest.approx(edges["landlord"].vs_average)
    assert by_role["landlord"]["vs_average_low"] == pytest.approx(edges["landlord"].low)
    assert by_role["farmer1"]["vs_average"] is None  # a farmer alone is no side
    assert want["landlord"].mu != 0.0
