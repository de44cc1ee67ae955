"""Large posts prepared in a worker process: ratings equal to an independent replay, refusals
equal to the server's own, a dead worker replaced, and no worker outliving the server."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindsport.history import Match
from mindsport.service import create_app
from mindsport.service.prepare import PREPARE_FROM_BYTES, PreparePool
from mindsport.store import PreparedMatches, Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TOL = 2e-5

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def some_matches(n: int, seed: int, players: int = 60) -> list[Match]:
    """``n`` matches among ``players`` players, one second apart: 1v1, 2v2 and four-player
    free-for-alls, with ties."""
    rng = random.Random(seed)
    names = [f"player-{i}" for i in range(players)]
    out = []
    for i in range(n):
        shape = rng.choice([(1, 1), (2, 2), (1, 1, 1, 1)])
        drawn = iter(rng.sample(names, sum(shape)))
        teams = [[next(drawn) for _ in range(size)] for size in shape]
        ranks = [rng.randrange(len(shape)) for _ in shape]
        out.append(Match(f"match-{seed}-{i}", 1_700_000_000 + i, teams, ranks))
    return out


def as_json(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams], "ranks": list(m.ranks)}


class _Spy:
    """Records what the pool's :meth:`PreparePool.prepare` answered."""

    def __init__(self, pool: PreparePool) -> None:
        self.answers: list[Any] = []
        self._prepare = pool.prepare
        pool.prepare = self  # type: ignore[method-assign]

    async def __call__(self, body: bytes) -> PreparedMatches | None:
        got = await self._prepare(body)
        self.answers.append(got)
        return got


@pytest.fixture
def apps(db_url: str) -> Iterator[tuple[Any, Any, Store, str, _Spy]]:
    """``(pooled, plain, store, key, spy)``: clients of two apps over one store with league
    ``main``, one preparing large posts in a worker process, one parsing them itself."""
    store = Store(db_url)
    store.create_league("main")
    key = store.create_key("main")
    app = create_app(store=store, prepare_workers=1)
    spy = _Spy(app.poster.pool)
    with TestClient(app) as pooled, TestClient(create_app(store=store)) as plain:
        yield pooled, plain, store, key, spy
    store.close()


def _body(items: list[Any]) -> bytes:
    body = json.dumps(items).encode()
    assert len(body) >= PREPARE_FROM_BYTES  # large enough to go to the worker
    return body


def test_large_posts_prepared_by_a_worker_rate_as_the_reference(apps: Any, reference: Any) -> None:
    pooled, _, _, key, spy = apps
    ms = some_matches(2400, 5)
    h = {"X-API-Key": key, "content-type": "application/json"}
    url = "/api/leagues/main/matches"
    # the later half first, then the earlier half (late: the later half is re-rated), then all
    # of it again (duplicates)
    r = pooled.post(url, content=_body([as_json(m) for m in ms[1200:]]), headers=h)
    assert r.json() == {"added": 1200, "duplicates": 0, "replayed": 0, "updating": False}
    r = pooled.post(url, content=_body([as_json(m) for m in ms[:1200]]), headers=h)
    assert r.json()["added"] == 1200 and r.json()["replayed"] > 0
    r = pooled.post(url, content=_body({"matches": [as_json(m) for m in ms]}), headers=h)
    assert r.json() == {"added": 0, "duplicates": 2400, "replayed": 0, "updating": False}
    assert len(spy.answers) == 3
    assert all(isinstance(a, PreparedMatches) for a in spy.answers)  # the worker did them
    assert not apps[2]._committer._reserved  # their places in the group commit are given up
    final, _ = reference(ms)
    board = pooled.get("/api/leagues/main/leaderboard", params={"limit": 500}).json()
    assert board["total"] == len(final)
    for item in board["items"]:
        mu, sigma = final[item["player"]]
        assert item["mu"] == pytest.approx(mu, abs=TOL)
        assert item["sigma"] == pytest.approx(sigma, abs=TOL)


def test_refusals_through_a_worker_are_the_servers_own(apps: Any) -> None:
    pooled, plain, store, key, spy = apps
    h = {"X-API-Key": key, "content-type": "application/json"}
    url = "/api/leagues/main/matches"
    good = [as_json(m) for m in some_matches(1000, 6)]
    bad_rank = [*good[:700], {**good[700], "ranks": [0, "1"]}, *good[701:]]
    twice = {**good[600], "teams": [["player-1"], ["player-1"]], "ranks": [0, 1]}
    players_twice = [*good[:600], twice, *good[601:]]
    id_twice = [*good, {**good[3], "time": good[3]["time"] + 0.5}]  # one id, two results
    not_json = _body(good)[:-1]
    bodies = [_body(bad_rank), _body(players_twice), _body(id_twice), not_json]
    for body in bodies:
        got = pooled.post(url, content=body, headers=h)
        want = plain.post(url, content=body, headers=h)
        assert got.status_code == want.status_code
        assert got.status_code in (409, 422)
        assert got.json() == want.json()
    statuses = [pooled.post(url, content=b, headers=h).status_code for b in bodies]
    assert statuses == [422, 422, 409, 422]
    assert "700" in json.dumps(pooled.post(url, content=bodies[0], headers=h).json())
    assert store.match_count("main") == 0  # nothing of a refused post is stored
    # each large post held a place in the group commit while it was parsed; a refused one
    # gave its place up (an open one would hold the league's next commit)
    assert not store._committer._reserved
    # the worker's parser refused the others (422); it sent the id given twice back to the
    # server (None), whose store refused it (409)
    assert spy.answers == [None, None]


def test_a_dead_worker_is_replaced(apps: Any) -> None:
    pooled, _, store, key, spy = apps
    h = {"X-API-Key": key, "content-type": "application/json"}
    url = "/api/leagues/main/matches"
    ms = some_matches(3000, 7)
    first = pooled.post(url, content=_body([as_json(m) for m in ms[:1000]]), headers=h)
    assert first.json()["added"] == 1000
    pool = pooled.app.poster.pool
    for process in list(pool._executor._processes.values()):
        os.kill(process.pid, signal.SIGKILL)
        process.join(10)
    for chunk in (ms[1000:2000], ms[2000:]):
        r = pooled.post(url, content=_body([as_json(m) for m in chunk]), headers=h)
        assert r.status_code == 200 and r.json()["added"] == 1000
    assert store.match_count("main") == 3000
    # the first post by the worker; the one after its death by the server itself; the next by a
    # new worker
    assert isinstance(spy.answers[0], PreparedMatches)
    assert spy.answers[1] is None
    assert isinstance(spy.answers[2], PreparedMatches)


_KILLED_SERVER = """
import os, signal, sys
from mindsport.service.prepare import PreparePool
pool = PreparePool(1)
print(pool._pool().submit(os.getpid).result(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _gone(pid: int) -> bool:
    """No such process, or a zombie (it exited; nobody has reaped it yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    # output to files: a worker left behind would hold a pipe open, and the run would wait on it
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        done = subprocess.run(
            [sys.executable, "-c", _KILLED_SERVER], stdout=out, stderr=err, timeout=120
        )
    assert done.returncode == -signal.SIGKILL, (tmp_path / "err").read_text()
    worker = int((tmp_path / "out").read_text().split()[0])
    deadline = time.monotonic() + 10
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(worker)


def test_pool_size_is_checked() -> None:
    for bad in (0, -1, True, "2"):
        with pytest.raises(ValueError, match="workers"):
            PreparePool(bad)  # type: ignore[arg-type]
