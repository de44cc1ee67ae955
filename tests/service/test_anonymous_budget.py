"""Predictions and matchmaking without a key compute in a small pool of their own (issue 42):
beyond its slots and its queue they are refused with 429 and Retry-After at once, while a
request with a key of the league is served; a key sent must be valid (SQLite and PostgreSQL).

The computation is held on an event (a prediction naming player ``slow`` waits for it), so the
counts are exact: the budget is the references, :data:`ANONYMOUS_COMPUTE_SLOTS` +
:data:`ANONYMOUS_COMPUTE_QUEUE` anonymous requests admitted, every one beyond refused.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from mindsport import forecast
from mindsport.service.limits import ANONYMOUS_COMPUTE_QUEUE, ANONYMOUS_COMPUTE_SLOTS

SLOW = {"teams": [["slow"], ["b"]], "allow_new": True}
QUICK = {"teams": [["a"], ["b"]], "allow_new": True}
PATH = "/api/leagues/main/predict"


def test_anonymous_computations_have_their_own_small_budget(
    setup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _store, key = setup
    runtime = client.app.state.runtime
    release = threading.Event()
    real = forecast.predict

    def held(store: Any, league: str, teams: Any, **kw: Any) -> Any:
        if any("slow" in team for team in teams):
            assert release.wait(30)
        return real(store, league, teams, **kw)

    monkeypatch.setattr(forecast, "predict", held)
    admitted = ANONYMOUS_COMPUTE_SLOTS + ANONYMOUS_COMPUTE_QUEUE
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def post(body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        r = client.post(PATH, json=body, headers=headers or {})
        with lock:
            answers.append(r)

    threads = [threading.Thread(target=post, args=(SLOW,)) for _ in range(admitted)]
    try:
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while runtime._anonymous_pending < admitted:  # all running or waiting
            assert time.monotonic() < deadline, "the anonymous requests did not arrive"
            time.sleep(0.01)
        # beyond the budget: refused at once, slow computation or not
        for body in (SLOW, QUICK):
            r = client.post(PATH, json=body)
            assert r.status_code == 429, r.text
            assert r.headers["retry-after"] == "1"
            assert "without a key" in r.json()["detail"]
        r = client.post("/api/leagues/main/matchmake", json={"players": ["a", "b"], "shape": "1v1"})
        assert r.status_code == 429
        # a key holder is served meanwhile, from its own slots
        r = client.post(PATH, json=QUICK, headers={"X-API-Key": key})
        assert r.status_code == 200, r.text
        pairwise = r.json()["pairwise"]  # two new players: symmetric
        assert pairwise[0][1] == pytest.approx(pairwise[1][0])
        r = client.post(
            "/api/leagues/main/matchmake",
            json={"players": ["a", "b"], "shape": "1v1", "allow_new": True},
            headers={"X-API-Key": key},
        )
        assert r.status_code == 200, r.text
        assert not answers, "an admitted anonymous request was answered before its release"
    finally:
        release.set()
        for t in threads:
            t.join(timeout=30)
    assert [r.status_code for r in answers] == [200] * admitted
    assert runtime._anonymous_pending == 0
    # the budget is free again
    assert client.post(PATH, json=QUICK).status_code == 200


def test_a_key_sent_must_be_valid(setup: Any) -> None:
    client, store, key = setup
    store.create_league("other")
    other = store.create_key("other")
    cases = [
        ({"X-API-Key": "ms_notakey"}, 403),
        ({"X-API-Key": other}, 403),  # a key of another league
        ({"X-API-Key": ""}, 401),
        ({"X-API-Key": key}, 200),
        ({}, 200),
    ]
    for headers, status in cases:
        r = client.post(PATH, json=QUICK, headers=headers)
        assert r.status_code == status, (headers, r.text)
        assert set(r.json()) >= ({"detail"} if status != 200 else {"win_probability"})
    # documented on both routes
    spec = client.get("/openapi.json").json()
    for op in ("predict", "matchmake"):
        answers = spec["paths"][f"/api/leagues/{{league}}/{op}"]["post"]["responses"]
        assert {"401", "403", "429"} <= set(answers)
