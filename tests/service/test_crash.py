"""SIGKILL the service while clients post, restart it, re-post everything: nothing is lost and
nothing is counted twice (a small SQLite version of ``benchmarks/load_service.py``)."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
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
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindsport.service", "--db", url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "server exited"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/leagues", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


def _post(base: str, key: str, ms: list[Match], clients: int, stop_on_error: bool) -> int:
    queue = list(reversed(ms))
    lock = threading.Lock()
    acked = [0]

    def run() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as c:
            while True:
                with lock:
                    if not queue:
                        return
                    m = queue.pop()
                body = {"id": m.id, "time": m.time, "teams": m.teams, "ranks": m.ranks}
                try:
                    r = c.post("/api/leagues/main/matches", json=body)
                except httpx.HTTPError:
                    if stop_on_error:
                        return
                    continue
                assert r.status_code == 200, r.text
                with lock:
                    acked[0] += 1

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return acked[0]


def test_sigkill_mid_load_then_repost(tmp_path: Path, reference: Any) -> None:
    # SQLite here (a server start costs seconds); benchmarks/load_service.py does the same on
    # PostgreSQL with 10,000 matches
    db_url = f"sqlite:///{tmp_path / 'crash.db'}"
    rng = random.Random(11)
    pool = [f"k{i}" for i in range(15)]
    ms = []
    for i in range(48):
        a, b, c = rng.sample(pool, 3)
        ms.append(Match(f"crash{i}", i, [[a], [b, c]] if i % 3 else [[a], [b]], [i % 2, 1 - i % 2]))
    with Store(db_url) as st:
        st.create_league("main")
        key = st.create_key("main")
    port = _port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(db_url, port)
    try:
        done = threading.Event()

        def killer() -> None:
            # kill while requests are in flight
            with Store(db_url, create_tables=False) as probe:
                while not done.is_set():
                    if probe.match_count("main") >= 20:
                        os.kill(proc.pid, signal.SIGKILL)
                        return
                    time.sleep(0.01)

        k = threading.Thread(target=killer)
        k.start()
        _post(base, key, ms, 4, stop_on_error=True)
        done.set()
        k.join()
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        with Store(db_url) as st:
            assert 20 <= st.match_count("main") < 48
        proc = _start(db_url, port)
        assert _post(base, key, ms, 4, stop_on_error=False) == 48
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)
    with Store(db_url) as st:
        assert st.match_count("main") == 48
        final, hist = reference(ms)
        got = st.leaderboard("main", limit=100).entries
        assert {e.player for e in got} == set(final)
        for e in got:
            assert e.games == len(hist[e.player])
            assert e.mu == pytest.approx(final[e.player][0], abs=2e-5)
            assert e.sigma == pytest.approx(final[e.player][1], abs=2e-5)
