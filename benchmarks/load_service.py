"""Load test of the HTTP service: concurrent clients, a crash mid-load, exact final ratings.

For each backend (SQLite file, and PostgreSQL when a URL is given):

1. start ``python -m mindsport.service`` on 127.0.0.1 (a free port) over an empty database with
   one TrueSkill league and a write key;
2. ``--clients`` threads post ``--matches`` matches (``--batch`` per request, in roughly time
   order, so concurrent commits also arrive late and exercise replay);
3. once ``--kill-at`` of the matches were acknowledged the server is killed with SIGKILL; the
   clients stop at their first connection error;
4. the server is restarted on the same database and the clients re-post *every* match;
5. checks: the log holds each match exactly once, the history has one row per player per game,
   and every player's stored rating equals an in-memory replay (the TrueSkill model applied
   match by match in time order, no database involved).

Reports throughput and latency (p50/p99 per request) of both phases. Loopback only; bounded by
``--matches`` and ``--timeout`` (the servers are always killed at the end).

    python benchmarks/load_service.py                                  # SQLite only
    python benchmarks/load_service.py --pg-url postgresql://u:p@127.0.0.1/db   # both
    (or set MINDSPORT_TEST_POSTGRES_URL; its mindsport tables are dropped first)
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from mindsport.history import Match
from mindsport.rating.trueskill import TrueSkill
from mindsport.store import Store
from mindsport.store.schema import metadata, rating_history
from mindsport.store.store import resolve_url

LEAGUE = "load"


def make_matches(n: int, players: int, seed: int) -> list[Match]:
    rng = random.Random(seed)
    pool = [f"pl{i:04d}" for i in range(players)]
    shapes = [(1, 1)] * 5 + [(2, 2)] * 3 + [(1, 2)] * 2
    out = []
    for i in range(n):
        shape = rng.choice(shapes)
        chosen = rng.sample(pool, sum(shape))
        teams = [chosen[: shape[0]], chosen[shape[0] :]]
        ranks = [0, 0] if rng.random() < 0.05 else rng.choice([[0, 1], [1, 0]])
        out.append(Match(f"load-{i:06d}", i, teams, ranks))
    return out


def as_json(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams], "ranks": list(m.ranks)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(url: str, port: int, timeout: float = 60.0) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindsport.service", "--db", url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/leagues", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)
    acked: int = 0
    failed_requests: int = 0
    seconds: float = 0.0

    def report(self) -> str:
        lat = sorted(self.latencies)
        if not lat:
            return f"{self.name}: no requests"
        p50 = lat[len(lat) // 2] * 1000
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        return (
            f"{self.name}: {len(lat)} requests, {self.acked} matches acknowledged in "
            f"{self.seconds:.1f}s = {self.acked / self.seconds:.0f} matches/s, "
            f"{len(lat) / self.seconds:.0f} req/s; latency p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            + (f"; {self.failed_requests} failed (server killed)" if self.failed_requests else "")
        )


def post_all(
    base: str,
    key: str,
    batches: list[list[Match]],
    clients: int,
    deadline: float,
    phase: Phase,
    stop_on_error: bool,
) -> None:
    lock = threading.Lock()
    queue = list(reversed(batches))
    stop = threading.Event()

    def client() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60) as c:
            while not stop.is_set() and time.monotonic() < deadline:
                with lock:
                    if not queue:
                        return
                    batch = queue.pop()
                t0 = time.perf_counter()
                try:
                    r = c.post(f"/api/leagues/{LEAGUE}/matches", json=[as_json(m) for m in batch])
                except httpx.HTTPError:
                    with lock:
                        phase.failed_requests += 1
                    if stop_on_error:
                        stop.set()
                        return
                    continue
                dt = time.perf_counter() - t0
                if r.status_code != 200:
                    raise RuntimeError(f"HTTP {r.status_code}: {r.text}")
                with lock:
                    phase.latencies.append(dt)
                    phase.acked += len(batch)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.perf_counter() - t0


def reference_ratings(matches: list[Match]) -> dict[str, tuple[float, float, int]]:
    env = TrueSkill()
    cur: dict[str, Any] = {}
    games: dict[str, int] = {}
    for m in sorted(matches, key=lambda m: m.time_value()):
        teams = [tuple(cur.get(p, env.rating()) for p in t) for t in m.teams]
        for t, rs in zip(m.teams, env.rate(teams, ranks=list(m.ranks)), strict=True):
            for p, r in zip(t, rs, strict=True):
                cur[p] = r
                games[p] = games.get(p, 0) + 1
    return {p: (r.mu, r.sigma, games[p]) for p, r in cur.items()}


def run_backend(label: str, url: str, args: argparse.Namespace) -> bool:
    print(f"\n== {label}: {args.matches} matches, {args.clients} clients, batch {args.batch}")
    deadline = time.monotonic() + args.timeout
    with Store(url) as st:
        st.create_league(LEAGUE)
        key = st.create_key(LEAGUE)
    matches = make_matches(args.matches, args.players, args.seed)
    batches = [matches[i : i + args.batch] for i in range(0, len(matches), args.batch)]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(url, port)
    try:
        first = Phase("phase 1 (until SIGKILL)")
        kill_after = int(args.kill_at * args.matches)

        def killer() -> None:
            while time.monotonic() < deadline and proc.poll() is None:
                if first.acked >= kill_after:
                    os.kill(proc.pid, signal.SIGKILL)
                    return
                time.sleep(0.005)

        k = threading.Thread(target=killer, daemon=True)
        k.start()
        post_all(base, key, batches, args.clients, deadline, first, stop_on_error=True)
        k.join()
        proc.wait(timeout=30)
        print(first.report())
        print(f"server killed with SIGKILL (exit {proc.returncode}) after {first.acked} acks")
        proc = start_server(url, port)
        second = Phase("phase 2 (restart, re-post all)")
        post_all(base, key, batches, args.clients, deadline, second, stop_on_error=False)
        print(second.report())
        if time.monotonic() > deadline:
            print(f"FAILED: time limit {args.timeout}s reached")
            return False
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    t0 = time.perf_counter()
    expect = reference_ratings(matches)
    with Store(url) as st:
        n = st.match_count(LEAGUE)
        got = st.leaderboard(LEAGUE, limit=len(expect) + 10).entries
        with st.engine.connect() as conn:
            hist = conn.execute(
                rating_history.select().with_only_columns(rating_history.c.id)
            ).all()
    ok = True
    if n != len(matches):
        print(f"FAILED: {n} matches in the log, expected {len(matches)}")
        ok = False
    if len(hist) != sum(len(m.players) for m in matches):
        print(f"FAILED: {len(hist)} history rows, expected {sum(len(m.players) for m in matches)}")
        ok = False
    worst = 0.0
    bad_games = 0
    for e in got:
        mu, sigma, games = expect[e.player]
        worst = max(worst, abs(e.mu - mu), abs(e.sigma - sigma))
        bad_games += games != e.games
    if len(got) != len(expect) or worst > 1e-9 or bad_games:
        print(
            f"FAILED: {len(got)} players (expected {len(expect)}), max |diff| {worst:.3g}, "
            f"{bad_games} wrong game counts"
        )
        ok = False
    print(
        f"check ({time.perf_counter() - t0:.1f}s): {n} matches stored once each, "
        f"{len(hist)} history rows, {len(got)} players; max |rating - in-memory replay| = "
        f"{worst:.3g} -> {'OK' if ok else 'FAILED'}"
    )
    return ok


def drop_postgres(url: str) -> str:
    from sqlalchemy import create_engine

    full = resolve_url(url)
    eng = create_engine(full)
    try:
        metadata.drop_all(eng)
    finally:
        eng.dispose()
    return full


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--matches", type=int, default=10_000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--batch", type=int, default=1, help="matches per request")
    ap.add_argument("--players", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument(
        "--kill-at", type=float, default=0.5, help="fraction acknowledged before SIGKILL"
    )
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per backend")
    ap.add_argument("--pg-url", default=os.environ.get("MINDSPORT_TEST_POSTGRES_URL"))
    ap.add_argument("--skip-sqlite", action="store_true")
    args = ap.parse_args()
    ok = True
    if not args.skip_sqlite:
        with tempfile.TemporaryDirectory() as d:
            ok &= run_backend("SQLite", f"sqlite:///{os.path.join(d, 'load.db')}", args)
    if args.pg_url:
        ok &= run_backend("PostgreSQL", drop_postgres(args.pg_url), args)
    else:
        print("\n== PostgreSQL: skipped (give --pg-url or set MINDSPORT_TEST_POSTGRES_URL)")
    print("\nALL OK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
