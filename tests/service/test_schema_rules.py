"""The OpenAPI schema states the rules the server enforces (issue 42): settings names, the
characters refused in ``search``, the id rules of player paths and match bodies. For each
input, the schema's verdict (``jsonschema``, the peer validator) equals the server's: refused
with 422 exactly when the schema refuses it. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

jsonschema = pytest.importorskip("jsonschema")

NAMES = ["beta", "_x", "tau2", "Beta", "1x", "a-b", "b\u00e9ta", "", "a" * 40, "a" * 41, "x y"]
SEARCHES = ["", "a", "\u00e9", "%_", "a\x00", "\x1f", "\x7f", "x\x85", "\u200b", "a\u202e"]
IDS = ["ann", "caf\u00e9", "e\u0301", "\u200b", "\u0301", "\u3000", "a\u202eb", "\u2066x",
       "\U000e0001", "\U000e0001x", "\u3164", "a\u200db", "\U0001f600", " a "]  # fmt: skip


def _param(spec: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    (p,) = [p for p in spec["paths"][path]["get"]["parameters"] if p["name"] == name]
    return p["schema"]  # type: ignore[no-any-return]


def _valid(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def test_settings_names_follow_the_schema(setup: Any) -> None:
    client, store, _ = setup
    admin = {"X-API-Key": store.create_key(admin=True)}
    schema = client.app.openapi()["components"]["schemas"]["LeagueIn"]
    refused = 0
    for i, name in enumerate(NAMES):
        body = {"name": f"l{i}", "model": "elo", "params": {name: 1.0}}
        r = client.post("/api/leagues", json=body, headers=admin)
        assert r.status_code != 500
        assert (r.status_code == 422) == (not _valid(schema, body)), (name, r.text[:300])
        refused += r.status_code == 422
    assert refused == 7  # Beta, 1x, a-b, béta, '', 41 letters, 'x y'


def test_search_characters_follow_the_schema(setup: Any) -> None:
    client, _, _ = setup
    schema = _param(client.app.openapi(), "/api/leagues/{league}/leaderboard", "search")
    for q in SEARCHES:
        r = client.get("/api/leagues/main/leaderboard", params={"search": q})
        assert (r.status_code == 422) == (not _valid(schema, q)), (q, r.text[:300])
    assert not _valid(schema, "a\x00") and _valid(schema, "%_")


def test_player_ids_follow_the_schema(setup: Any) -> None:
    client, _, key = setup
    spec = client.app.openapi()
    path_schema = spec["paths"]["/api/leagues/{league}/players/{player}"]["get"]["parameters"]
    (player_schema,) = [p["schema"] for p in path_schema if p["name"] == "player"]
    refused = 0
    for i, pid in enumerate(IDS):
        r = client.get(f"/api/leagues/main/players/{quote(pid)}")
        valid = _valid(player_schema, pid)
        assert r.status_code == (422 if not valid else 404), (pid, r.text[:300])
        m = {"id": f"m{i}", "time": i, "teams": [[pid], ["zz"]], "ranks": [0, 1]}
        r = client.post("/api/leagues/main/matches", json=m, headers={"X-API-Key": key})
        assert r.status_code == (422 if not valid else 200), (pid, r.text[:300])
        refused += not valid
    assert refused == 7
