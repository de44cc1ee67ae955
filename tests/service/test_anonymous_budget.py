"""Predictions and matchmaking without a key compute in a small pool of their own (issue 42):
beyond its slots and its queue they are refused with 429 and Retry-After (after a pause of
:data:`ANONYMOUS_REFUSAL_SECONDS`, before the body is read), while a
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
from mindsport.service.limits import (
    ANONYMOUS_COMPUTE_QUEUE,
    ANONYMOUS_COMPUTE_SLOTS,
    ANONYMOUS_REFUSAL_SECONDS,
)

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
        # beyond the budget: refused, slow computation or not, after the refusal's pause (a
        # client looping on refusals gets one a second per connection)
        for body in (SLOW, QUICK):
            t0 = time.monotonic()
            r = client.post(PATH, json=body)
            assert time.monotonic() - t0 >= ANONYMOUS_REFUSAL_SECONDS
            assert r.status_code == 429, r.text
            assert r.headers["retry-after"] == "1"
            assert "without a key" in r.json()["detail"]
        r = client.post("/api/leagues/main/matchmake", json={"players": ["a", "b"], "shape": "1v1"})
        assert r.status_code == 429
        # refused before its body is read: a malformed one is not looked at (else 422)
        r = client.post(PATH, content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 429, r.text
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


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_cpu_budget_is_a_token_bucket_of_cpu_seconds() -> None:
    """Hand-computed balances of a bucket filling at 0.5 CPU s per second, holding 2."""
    from mindsport.service.runtime import CpuBudget

    clock = FakeClock()
    b = CpuBudget(0.5, 2.0, clock)
    assert b.balance() == 2.0 and b.delay() == 0.0
    b.charge(3.0)  # one computation may overdraw it
    assert b.balance() == pytest.approx(-1.0)
    assert b.delay() == pytest.approx(2.0)  # 1 s owed at 0.5 s/s
    clock.now += 1.0
    assert b.balance() == pytest.approx(-0.5) and b.delay() == pytest.approx(1.0)
    clock.now += 100.0
    assert b.balance() == 2.0  # never more than it holds
    b.charge(-5.0)  # nothing is given back
    assert b.balance() == 2.0
    for share, burst in ((0.0, 1.0), (1.0, 0.0), (float("nan"), 1.0), (1.0, float("inf"))):
        with pytest.raises(ValueError, match="CPU budget"):
            CpuBudget(share, burst, clock)


def test_anonymous_computations_are_charged_their_cpu_time(
    setup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prediction that burns 0.2 s of CPU (measured by the thread's own clock, the
    reference) is taken from the anonymous budget; once it is overdrawn by more than
    COMPUTE_WAIT_SECONDS' worth, anonymous requests are refused with 429 and the seconds
    owed in Retry-After, key holders are served, and the budget refills with time."""
    from mindsport.service.limits import COMPUTE_WAIT_SECONDS
    from mindsport.service.runtime import CpuBudget

    client, _store, key = setup
    runtime = client.app.state.runtime
    clock = FakeClock()
    share = 0.01
    runtime.anonymous_cpu = CpuBudget(share, 0.1, clock)
    real = forecast.predict
    burnt: list[float] = []

    def burning(store: Any, league: str, teams: Any, **kw: Any) -> Any:
        t0 = time.thread_time()
        while time.thread_time() - t0 < 0.2:
            pass
        out = real(store, league, teams, **kw)
        burnt.append(time.thread_time() - t0)
        return out

    monkeypatch.setattr(forecast, "predict", burning)
    r = client.post(PATH, json=QUICK)
    assert r.status_code == 200, r.text
    owed = burnt[0] - 0.1  # the bucket held 0.1 s
    assert runtime.anonymous_cpu.balance() == pytest.approx(-owed, abs=0.01)
    assert owed / share > COMPUTE_WAIT_SECONDS  # so the next one may not wait
    r = client.post(PATH, json=QUICK)
    assert r.status_code == 429, r.text
    assert "share of the server's CPU time" in r.json()["detail"]
    assert abs(int(r.headers["retry-after"]) - owed / share) <= 2
    r = client.post(PATH, content=b"[1,", headers={"Content-Type": "application/json"})
    assert r.status_code == 429, r.text  # before the body is read
    r = client.post(PATH, json=QUICK, headers={"X-API-Key": key})  # not charged, not refused
    assert r.status_code == 200, r.text
    assert len(burnt) == 2
    clock.now += owed / share + 0.01  # paid back
    r = client.post(PATH, json=QUICK)
    assert r.status_code == 200, r.text


def test_anonymous_searches_run_in_a_worker_process_with_the_same_seating(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With worker processes, an anonymous matchmaking search runs in one (the server's own
    search is made to fail: the answer cannot come from it) and gives the seating the
    in-process :func:`forecast.matchmake` gives (the reference: exact searches, so no deadline
    decides), roles included; a key holder's search stays in the server; the worker's CPU time
    is charged to the anonymous budget."""
    import warnings

    from mindsport.history import Match
    from mindsport.service import create_app
    from mindsport.service import runtime as runtime_module
    from mindsport.service.runtime import CpuBudget
    from mindsport.store import Store

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    store = Store(db_url)
    store.create_league("main")
    store.create_league("seats", model="cardplay")
    key = store.create_key("main")
    players = [f"p{i}" for i in range(8)]
    games = [
        Match(f"g{i}", i, [[players[i % 8]], [players[(3 * i + 1) % 8]]], [0, 1])
        for i in range(40)
        if i % 8 != (3 * i + 1) % 8
    ]
    store.add_matches("main", games)
    store.add_matches("seats", games)
    cases = [
        ("main", {"players": players, "shape": "2v2"}),
        ("seats", {"players": players[:4], "shape": "1v1", "roles": [["home"], ["away"]]}),
    ]
    expect = [
        forecast.matchmake(store, league, body["players"], body["shape"], roles=body.get("roles"))
        for league, body in cases
    ]
    assert all(plan.exact for plan in expect)

    def not_here(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("searched in the server")

    try:
        with TestClient(create_app(store=store, prepare_workers=1)) as client:
            runtime = client.app.state.runtime
            assert runtime.computing is not None
            runtime.anonymous_cpu = CpuBudget(0.1, 2.0, FakeClock())  # no refill meanwhile
            with monkeypatch.context() as m:
                m.setattr(runtime_module, "seat_players", not_here)
                for (league, body), plan in zip(cases, expect, strict=True):
                    before = runtime.anonymous_cpu.balance()
                    r = client.post(f"/api/leagues/{league}/matchmake", json=body)
                    assert r.status_code == 200, r.text
                    got = r.json()
                    assert [t["teams"] for t in got["tables"]] == [
                        [list(team) for team in t.teams] for t in plan.tables
                    ]
                    assert [t["quality"] for t in got["tables"]] == [t.quality for t in plan.tables]
                    assert got["exact"] and got["waiting"] == list(plan.waiting)
                    if league == "seats":
                        assert got["tables"][0]["roles"] == [["home"], ["away"]]
                    assert runtime.anonymous_cpu.balance() < before  # charged
                with pytest.raises(AssertionError, match="searched in the server"):
                    client.post(
                        "/api/leagues/main/matchmake", json=cases[0][1], headers={"X-API-Key": key}
                    )
            r = client.post(
                "/api/leagues/main/matchmake", json=cases[0][1], headers={"X-API-Key": key}
            )
            assert r.status_code == 200 and r.json()["tables"][0]["teams"] == [
                list(team) for team in expect[0].tables[0].teams
            ]
    finally:
        store.close()
