"""A Luzhanqi event of bots, end to end through the same commands as a Dou Dizhu event:
tables of two, every deal (the two setups) played in both seat rotations, the same setups at
every table of a duplicate round, results checked by the game's rule (1,-1 / -1,1 / 0,0), the
standings equal to the brute-force reference, the page, the league's matches; and over HTTP.
Runs on SQLite and, when configured, on PostgreSQL."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from event_reference import PlayedRound, PlayedTable, brute_standings, holder, repeats
from typer.testing import CliRunner

from mindsport.cli.event import app
from mindsport.event.storage import EventStore
from mindsport.junqi.rules import Setup
from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

runner = CliRunner()


def test_a_luzhanqi_event_of_bots(db_url: str, tmp_path: Path) -> None:
    def ok(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db_url])
        assert out.exit_code == 0, out.output
        return out.output

    assert "junqi" in ok(
        "create", "lzq", "-l", "army", "--create-league", "--game", "junqi", "--rounds", "3"
    )
    bots = ["greedy", "random", "greedy", "random", "greedy", "random", "greedy"]
    names = [f"b{i}" for i in range(len(bots))]
    (tmp_path / "bots.txt").write_text(
        "".join(f"{n},{b}\n" for n, b in zip(names, bots, strict=True))
    )
    ok("register", "lzq", "--file", str(tmp_path / "bots.txt"))
    played: list[PlayedRound] = []
    for rnd in (1, 2, 3):
        ok("pair", "lzq")
        sheet = json.loads(ok("sheet", "lzq", str(rnd)))
        assert sheet["game"] == "junqi" and len(sheet["byes"]) == 1  # seven players
        setups = set()
        for t in sheet["tables"]:
            assert len(t["players"]) == 2 and len(t["boards"]) == 2
            for b, board in enumerate(t["boards"]):
                seats = [s["player"] for s in board["seats"]]
                assert seats == [holder(t["players"], b, s) for s in range(2)]
                assert [s["seat"] for s in board["seats"]] == ["south", "north"]
                for s in board["seats"]:  # each seat's setup is a legal setup
                    Setup.from_rows(s["cards"].split("/"))
            setups.add(t["boards"][0]["hand"])
            assert t["boards"][0]["hand"] == t["boards"][1]["hand"]
        assert len(setups) == 1  # duplicate: every table the same setups
        ok("play", "lzq")
        state = json.loads(
            runner.invoke(app, ["standings", "lzq", "--format", "json", "--db", db_url]).output
        )
        assert state["after"] == rnd
        with Store(db_url) as store:
            ev = EventStore(store).get("lzq")
        r = ev.rounds[-1]
        tables = []
        for t in r.tables:
            scores = [list(x) for x in ev.results[(rnd, t.number)].scores]
            assert all(row in ([1, -1], [-1, 1], [0, 0]) for row in scores)
            tables.append(PlayedTable(t.players, scores))
        played.append(PlayedRound(tables, list(r.byes)))
    assert repeats(played) == 0
    byes = [p for r in played for p in r.byes]
    assert len(set(byes)) == len(byes)
    rows = [json.loads(line) for line in ok("standings", "lzq", "--json").splitlines()]
    got = {r["player"]: (r["place"], r["rank_points"], r["score"], r["opponents"]) for r in rows}
    assert got == brute_standings(names, played)
    ok("show", "lzq", "--html", str(tmp_path / "lzq.html"))
    page = (tmp_path / "lzq.html").read_text()
    assert "Luzhanqi" in page and page.count("<tr data-player=") >= 2 * len(names)
    assert f"{sum(len(r.tables) for r in played)} new match" in ok("finish", "lzq")
    with Store(db_url) as store:
        matches = store.matches("army")
    assert len(matches) == 9 and all(len(m.teams) == 2 for m in matches)


def test_a_luzhanqi_event_over_http(db_url: str) -> None:
    store = Store(db_url)
    store.create_league("army")
    admin = {"X-API-Key": store.create_key(admin=True)}
    with TestClient(create_app(store=store)) as client:
        body = {"name": "lz", "league": "army", "rounds": 1, "game": "junqi"}
        r = client.post("/api/events", json=body, headers=admin)
        assert r.status_code == 201 and r.json()["settings"]["rule"] == "win", r.text
        bad = {**body, "name": "lz2", "rule": "ccpc2016"}
        r = client.post("/api/events", json=bad, headers=admin)
        assert r.status_code == 400 and "Luzhanqi events use win" in r.json()["detail"]
        players = {"players": [{"name": n} for n in "abcde"]}
        assert client.post("/api/events/lz/players", json=players, headers=admin).status_code == 201
        r = client.post("/api/events/lz/rounds", json={"tables": [["a", "b"]]}, headers=admin)
        assert r.status_code == 201, r.text
        paired = r.json()
        assert paired["tables"][0]["players"] == ["a", "b"] and len(paired["tables"]) == 2
        assert len(paired["byes"]) == 1
        url = "/api/events/lz/rounds/1/tables/1/result"
        r = client.put(url, json={"scores": [[1, 1], [0, 0]]}, headers=admin)
        assert r.status_code == 400 and "a Luzhanqi board scores 1,-1" in r.json()["detail"]
        r = client.put(url, json={"scores": [[1, -1, 0], [0, 0, 0]]}, headers=admin)
        assert r.status_code == 400 and "expected 2 scores (south, north)" in r.json()["detail"]
        r = client.put(url, json={"scores": [[1, -1], [0, 0]]}, headers=admin)
        assert r.status_code == 201, r.text
        sheet = client.get("/api/events/lz/rounds/1/sheet").json()
        assert [s["seat"] for s in sheet["tables"][0]["boards"][0]["seats"]] == ["south", "north"]
        # a on board 1 south (+1), board 2 north (0): a scores 1, b scores -1
        r = client.post(
            "/api/events/lz/rounds/1/results",
            json={"results": [{"table": 2, "scores": [[-1, 1], [-1, 1]]}]},
            headers=admin,
        )
        assert r.status_code == 201, r.text
        st = {
            s["player"]: s["score"]
            for s in client.get("/api/events/lz/standings").json()["standings"]
        }
        assert st["a"] == 1 and st["b"] == -1
        assert client.post("/api/events/lz/finish", headers=admin).json()["added"] == 2
    store.close()
