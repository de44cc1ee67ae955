"""A league of the Tenhou dan ladder over HTTP, on SQLite and PostgreSQL: created with its
settings, fed four-player results, its leaderboard (JSON, page, command-line table) sorted by
(level, points) and showing the level's name, against the hand-written reference update."""

from __future__ import annotations

import random
from typing import Any

from reference_models import tenhou_dan_rate
from rich.console import Console

from mindsport.match import Match
from mindsport.rating.tenhou_dan.ladder import LEVEL_NAMES
from mindsport.rating.tenhou_dan.model import TenhouDan, TenhouDanLadder
from mindsport.store.display import board_table


def as_json(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams], "ranks": list(m.ranks)}


def test_a_dan_ladder_league_over_http(setup: Any) -> None:
    client, store, _ = setup
    admin = {"X-API-Key": store.create_key(admin=True)}
    params = {"room": "houou", "length": "tonpuu"}
    r = client.post(
        "/api/leagues", json={"name": "dan", "model": "tenhou-dan", "params": params}, headers=admin
    )
    assert r.status_code == 201, r.text
    bad = {"name": "dan2", "model": "tenhou-dan", "params": {"room": "phoenix"}}
    r = client.post("/api/leagues", json=bad, headers=admin)
    assert r.status_code == 400 and "room must be" in r.text
    # a strong player (places mostly 1-2) and seven others, 4 at a table
    rng = random.Random(7)
    pool = [f"p{i}" for i in range(8)]
    ms = []
    for i in range(120):
        table = ["p0", *rng.sample(pool[1:], 3)] if i % 2 == 0 else rng.sample(pool[1:], 4)
        ranks = [1, 2, 3, 4]
        rng.shuffle(ranks)
        ms.append(Match(f"m{i}", i, [[p] for p in table], ranks))
    key = {"X-API-Key": store.create_key("dan")}
    r = client.post("/api/leagues/dan/matches", json=[as_json(m) for m in ms], headers=key)
    assert r.status_code == 200, r.text
    three = {"id": "three", "time": 999, "teams": [["p1"], ["p2"], ["p3"]], "ranks": [1, 2, 3]}
    r = client.post("/api/leagues/dan/matches", json=three, headers=key)
    assert r.status_code == 400 and "four-player" in r.text, r.text
    ladder = TenhouDanLadder(**params)
    want: dict[str, TenhouDan] = {}
    for m in ms:
        players = [t[0] for t in m.teams]
        new = tenhou_dan_rate(ladder, [want.get(p, TenhouDan()) for p in players], list(m.ranks))
        want.update(zip(players, new, strict=True))
    order = sorted(want, key=lambda p: (-want[p].level, -want[p].points, p))
    assert len({want[p].level for p in pool}) > 1  # the board mixes levels
    body = client.get("/api/leagues/dan/leaderboard").json()
    assert body["display"] == {"mu": "pt", "sigma": None, "exposed": "dan"}
    assert [i["player"] for i in body["items"]] == order
    for item in body["items"]:
        r = want[item["player"]]
        assert item["level"] == LEVEL_NAMES[r.level] == r.name
        assert item["mu"] == r.points and item["sigma"] == 0.0
    main = client.get("/api/leagues/main/leaderboard").json()
    assert main["items"] == [] or main["items"][0]["level"] is None
    html = client.get("/", params={"league": "dan"}).text
    assert '<th data-column="exposed">dan</th>' in html and '<th data-column="mu">pt</th>' in html
    top = want[order[0]]
    assert f"<td>{top.name}</td><td>{top.points:.2f}</td>" in html
    console = Console(width=120, record=True)
    console.print(board_table(store.leaderboard("dan")))
    text = console.export_text()
    assert "dan" in text and top.name in text
