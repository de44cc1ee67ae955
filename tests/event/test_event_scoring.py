"""An event's results are checked by its game's scoring rule (``--rule``): under the 2016
competition rules (``ccpc2016``) the farmers score their own stakes, so the rules' worked
example (farmer 1 +96, farmer 2 +24, landlord -120) is a valid board, while a ``linear``
event refuses farmers who score differently. Player totals are computed by hand from the seat
rotation of the deal sheet (board k: seat s held by the player at position (s + k) mod 3)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindsport.cli.event import app
from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

runner = CliRunner()
# the worked example; a landlord's win with a bomb and a spring on a bid of 3 (24, -12, -12);
# a farmers' win on a bid of 3 with no doubling (-6, 3, 3)
BOARDS = "-120,96,24;24,-12,-12;-6,3,3"


def test_ccpc2016_event_takes_the_worked_example(db_url: str, tmp_path: Path) -> None:
    def run(*args: str) -> tuple[int, str]:
        out = runner.invoke(app, [*args, "--db", db_url])
        return out.exit_code, " ".join(out.output.split())

    create = ("create", "cup", "-l", "l", "--create-league", "--rounds", "1")
    assert run(*create, "--rule", "ccpc2016")[0] == 0
    assert run("create", "lin", "-l", "l", "--rounds", "1")[0] == 0
    for event in ("cup", "lin"):
        assert run("register", event, "a", "b", "c")[0] == 0
        assert run("pair", event, "--tables", "a,b,c")[0] == 0
    code, out = run("result", "lin", "1", "1", "-s", BOARDS)
    assert (
        code == 2 and "board 1: the farmers score 96.0 and 24.0; they win or lose together" in out
    )
    code, out = run("result", "cup", "1", "1", "-s", "-120,100,20;24,-12,-12;-6,3,3")
    assert code == 2 and "board 1: the farmers score 100 and 20; under ccpc2016" in out
    code, out = run("result", "cup", "1", "1", "-s", "-120,96,24;24,-12,-12;-10,5,5")
    assert code == 2 and "board 3: farmer score 5 is not a call (1, 2 or 3)" in out
    code, out = run("result", "cup", "1", "1", "-s", "-120,96,24;24,-12,12;-6,3,3")
    assert code == 2 and "board 2: scores [24.0, -12.0, 12.0] do not add up to 0" in out
    assert run("result", "cup", "1", "1", "-s", BOARDS)[0] == 0
    out = runner.invoke(app, ["standings", "cup", "--json", "--db", db_url]).output
    got = {r["player"]: r["score"] for r in map(json.loads, out.splitlines())}
    # a: landlord, farmer 2, farmer 1; b: farmer 1, landlord, farmer 2; c: the rest
    assert got == {"a": -120 - 12 + 3, "b": 96 + 24 + 3, "c": 24 - 12 - 6}
    assert run("finish", "cup")[0] == 0
    with Store(db_url) as store:
        (match,) = store.matches("l")
    assert list(match.scores or []) == [-129.0, 123.0, 6.0] and list(match.ranks) == [2, 0, 1]


def test_ccpc2016_event_over_http(db_url: str) -> None:
    store = Store(db_url)
    store.create_league("l")
    admin = {"X-API-Key": store.create_key(admin=True)}
    with TestClient(create_app(store=store)) as client:
        body = {"name": "cup", "league": "l", "rounds": 1, "rule": "ccpc2016"}
        assert client.post("/api/events", json=body, headers=admin).status_code == 201
        bad = {**body, "name": "x", "rule": "ccpc2017"}
        assert client.post("/api/events", json=bad, headers=admin).status_code == 422
        players = {"players": [{"name": n} for n in "abc"]}
        r = client.post("/api/events/cup/players", json=players, headers=admin)
        assert r.status_code == 201
        assert client.post("/api/events/cup/rounds", json={}, headers=admin).status_code == 201
        rows = [[float(x) for x in g.split(",")] for g in BOARDS.split(";")]
        url = "/api/events/cup/rounds/1/tables/1/result"
        r = client.put(url, json={"scores": rows}, headers=admin)
        assert r.status_code == 201, r.text
        got = client.get("/api/events/cup").json()
        assert got["settings"]["rule"] == "ccpc2016"
        assert got["rounds"][0]["tables"][0]["scores"] == rows
    store.close()


@pytest.mark.parametrize("rule", ["linear", "ccpc2016", "classic"])
def test_bots_play_under_the_events_rule(rule: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'e.db'}"
    for args in (
        ["create", "b", "-l", "l", "--create-league", "--rounds", "1", "--rule", rule],
        ["register", "b", "x", "y", "z", "--bot", "level:30"],
        ["pair", "b"],
        ["play", "b"],
    ):
        out = runner.invoke(app, [*args, "--db", db])
        assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["standings", "b", "--json", "--db", db]).output
    scores = sorted(abs(json.loads(line)["score"]) for line in out.splitlines())
    assert sum(json.loads(line)["score"] for line in out.splitlines()) == 0
    assert max(scores) > 0
