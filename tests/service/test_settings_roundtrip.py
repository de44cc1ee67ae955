"""Every registered model's settings, each changed from its default, go round between the
command line (``mindsport leagues create --param``, ``leagues list --json``), ``GET
/api/leagues`` and ``POST /api/leagues`` and come back equal (one test per model, SQLite and
PostgreSQL)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from mindsport.cli.ratings import app
from mindsport.rating.params import Kind, Param
from mindsport.rating.registry import MODELS
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from mindsport.service import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
runner = CliRunner()


def changed(p: Param) -> Any:
    """A valid value of ``p`` other than its default."""
    if p.kind is Kind.BOOLEAN:
        return not p.default
    if p.kind is Kind.CHOICE:
        return next(c for c in p.choices if c != p.default)
    if p.kind is Kind.TABLE:
        return tuple(tuple(x + 5.0 if k == 0 else x for k, x in enumerate(r)) for r in p.default)
    base = 1.0 if p.default is None else float(p.default)
    for x in (base * 1.5, base * 0.5, base + 1.0, 2.0, 0.5, 0.05, 100.0):
        v = p.normalise(round(x) if p.kind is Kind.INTEGER else x)
        if v != p.default and p.ok(v):
            return v
    raise AssertionError(f"no other value for {p.name}")


@pytest.fixture
def both(db_url: str) -> Iterator[tuple[TestClient, Store, dict[str, str], str]]:
    store = Store(db_url)
    key = store.create_key(admin=True)
    with TestClient(create_app(store=store)) as client:
        yield client, store, {"X-API-Key": key}, db_url
    store.close()


def cli(*args: str) -> str:
    r = runner.invoke(app, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("name", sorted(MODELS))
def test_settings_round_trip(both: Any, name: str) -> None:
    client, store, h, db = both
    spec = MODELS[name]
    params = spec.check({p.name: changed(p) for p in spec.params})
    spec.build(**params)  # a valid model
    stored = json.loads(json.dumps(params))  # as the store keeps them (tables as lists)
    # 1. the command line, every setting written as --param NAME=TEXT
    flags = [f"--param={p.name}={p.text(params[p.name])}" for p in spec.params]
    cli("leagues", "create", "from_cli", "--model", name, *flags, "--db", db)
    assert store.get_league("from_cli").params == stored
    # 2. GET /api/leagues shows them; POST /api/leagues takes them back as they are
    shown = {lg["name"]: lg for lg in client.get("/api/leagues").json()["leagues"]}
    got = shown["from_cli"]
    assert got["model"] == name and set(got["params"]) == set(params)
    r = client.post(
        "/api/leagues",
        json={"name": "from_http", "model": name, "params": got["params"]},
        headers=h,
    )
    assert r.status_code == 201, r.text
    assert store.get_league("from_http").params == stored
    # 3. what the API shows, written for the command line, makes the same league
    again = [f"--param={k}={spec.param(k).text(spec.param(k).normalise(v))}"
             for k, v in got["params"].items()]  # fmt: skip
    cli("leagues", "create", "again", "--model", name, *again, "--db", db)
    assert store.get_league("again").params == stored
    # 4. the command line's JSON list is the API's
    listed = json.loads(cli("leagues", "list", "--json", "--db", db))["leagues"]
    api = client.get("/api/leagues").json()["leagues"]
    assert listed == api
