"""Roles, deals and luck over HTTP: validated by the schema, refused by the store by name."""

from __future__ import annotations

from typing import Any

import pytest

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


def test_roles_are_validated_then_refused_whole(setup: Any) -> None:
    client, store, key = setup
    h = {"X-API-Key": key}
    bad = {**BODY, "roles": [["landlord"], ["farmer1"]]}
    r = client.post("/api/leagues/main/matches", json=bad, headers=h)
    assert r.status_code in (400, 422) and "roles" in r.text
    r = client.post("/api/leagues/main/matches", json=BODY, headers=h)
    assert r.status_code == 400 and "roles" in r.text and "g1" in r.text
    assert store.match_count("main") == 0
    plain = {k: v for k, v in BODY.items() if k not in ("roles", "deal", "luck")}
    assert client.post("/api/leagues/main/matches", json=plain, headers=h).status_code == 200
