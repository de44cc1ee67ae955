"""SIGKILL the service while clients post (single matches and batches, committed together by the
group commit), restart it, re-post everything: every acknowledged match was stored, nothing is
counted twice, and the ratings equal an offline replay (a small version of
``benchmarks/load_service.py``), on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest

from mindsport.history import Match
from mindsport.store import Store


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(url: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mindsport.service", "--db", url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "server exited"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/leagues", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def _body(ms: list[Match]) -> Any:
    as_json = [{"id": m.id, "time": m.time, "teams": m.teams, "ranks": m.ranks} for m in ms]
    return as_json[0] if len(as_json) == 1 else as_json


def _post(
    base: str, key: str, posts: list[list[Match]], clients: int, stop_on_error: bool
) -> set[str]:
    """Post ``posts`` from ``clients`` threads; the ids of every acknowledged match."""
    queue = list(reversed(posts))
    lock = threading.Lock()
    acked: set[str] = set()

    def run() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as c:
            while True:
                with lock:
                    if not queue:
                        return
                    ms = queue.pop()
                try:
                    r = c.post("/api/leagues/main/matches", json=_body(ms))
                except httpx.HTTPError:
                    if stop_on_error:
                        return
                    with lock:
                        queue.append(ms)  # the server restarts: try again later
                    time.sleep(0.05)
                    continue
                assert r.status_code == 200, r.text
                with lock:
                    acked.update(m.id for m in ms)

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return acked


def test_sigkill_mid_load_then_repost(db_url: str, reference: Any) -> None:
    rng = random.Random(11)
    pool = [f"k{i}" for i in range(15)]
    ms = []
    for i in range(90):
        a, b, c = rng.sample(pool, 3)
        ms.append(Match(f"crash{i}", i, [[a], [b, c]] if i % 3 else [[a], [b]], [i % 2, 1 - i % 2]))
    # mostly single matches, some batches; roughly in time order, so commits also arrive late
    posts: list[list[Match]] = []
    i = 0
    while i < len(ms):
        n = 6 if i % 30 == 0 else 1
        posts.append(ms[i : i + n])
        i += n
    with Store(db_url) as st:
        st.create_league("main")
        key = st.create_key("main")
    # the server that is killed, and the one that serves after it (started beside it, so the
    # test waits for one start-up, not two: the database is all they share)
    port, port2 = _port(), _port()
    proc, proc2 = _start(db_url, port), _start(db_url, port2)
    try:
        _wait(proc, port)
        _wait(proc2, port2)
        done = threading.Event()

        def killer() -> None:
            # kill while requests are in flight (the group commit has a queue then)
            with Store(db_url, create_tables=False) as probe:
                while not done.is_set():
                    if probe.match_count("main") >= 30:
                        os.kill(proc.pid, signal.SIGKILL)
                        return
                    time.sleep(0.005)

        k = threading.Thread(target=killer)
        k.start()
        acked = _post(f"http://127.0.0.1:{port}", key, posts, 10, stop_on_error=True)
        done.set()
        k.join()
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        with Store(db_url) as st:
            stored = {m.id for m in st.matches("main")}
        assert acked <= stored  # acknowledged = stored
        assert 30 <= len(stored) < len(ms)
        again = _post(f"http://127.0.0.1:{port2}", key, posts, 10, stop_on_error=False)
        assert again == {m.id for m in ms}
    finally:
        for p in (proc, proc2):
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=30)
    with Store(db_url) as st:
        assert st.match_count("main") == len(ms)
        final, hist = reference(ms)  # distinct times: the replay order is the time order
        got = st.leaderboard("main", limit=100).entries
        assert {e.player for e in got} == set(final)
        for e in got:
            assert e.games == len(hist[e.player])
            assert e.mu == pytest.approx(final[e.player][0], abs=2e-5)
            assert e.sigma == pytest.approx(final[e.player][1], abs=2e-5)
