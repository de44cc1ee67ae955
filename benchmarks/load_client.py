"""The normal load of ``load_service.py``: a server started on a database, matches posted by
many raw HTTP/1.1 clients, the phase's throughput and latency, the machine's CPU, and the check
that a league holds every acknowledged match once with ratings equal to an in-memory replay.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from attackers import exchange
from mindsport.history import Match
from mindsport.rating.trueskill.model import TrueSkill
from mindsport.store import Store
from mindsport.store.database import resolve_url
from mindsport.store.schema import leagues, metadata, rating_history

LEAGUE = "load"
BULK = "bulk"
OTHER = "other"


def make_matches(n: int, players: int, seed: int, prefix: str = "load") -> list[Match]:
    rng = random.Random(seed)
    pool = [f"pl{i:04d}" for i in range(players)]
    shapes = [(1, 1)] * 5 + [(2, 2)] * 3 + [(1, 2)] * 2
    out = []
    for i in range(n):
        shape = rng.choice(shapes)
        chosen = rng.sample(pool, sum(shape))
        teams = [chosen[: shape[0]], chosen[shape[0] :]]
        ranks = [0, 0] if rng.random() < 0.05 else rng.choice([[0, 1], [1, 0]])
        out.append(Match(f"{prefix}-{i:07d}", i, teams, ranks))
    return out


def as_json(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams], "ranks": list(m.ranks)}


def request_bytes(league: str, key: str, batch: list[Match]) -> bytes:
    body = json.dumps(as_json(batch[0]) if len(batch) == 1 else [as_json(m) for m in batch])
    data = body.encode()
    head = (
        f"POST /api/leagues/{league}/matches HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nX-API-Key: {key}\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    return head.encode() + data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    url: str, port: int, workers: int | None = None, timeout: float = 60.0
) -> subprocess.Popen[bytes]:
    """``python -m mindsport.service`` on ``port``; ``workers``: its ``--prepare-workers``
    (``None``: the server's default)."""
    more = [] if workers is None else ["--prepare-workers", str(workers)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindsport.service", "--db", url, "--port", str(port), *more],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /api/leagues HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)
    acked: int = 0
    acked_ids: set[str] = field(default_factory=set)
    replayed: int = 0  # stored matches re-rated because new ones came earlier in time
    failed_requests: int = 0
    refused: int = 0  # connections refused (429/503 before the request was read), then retried
    seconds: float = 0.0

    def stats(self) -> tuple[float, float, float]:
        lat = sorted(self.latencies)
        if not lat:
            return 0.0, 0.0, 0.0
        p50 = lat[len(lat) // 2] * 1000
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        return self.acked / self.seconds if self.seconds else 0.0, p50, p99

    def report(self) -> str:
        if not self.latencies:
            return f"{self.name}: no requests"
        rate, p50, p99 = self.stats()
        return (
            f"{self.name}: {len(self.latencies)} requests, {self.acked} matches acknowledged in "
            f"{self.seconds:.1f}s = {rate:.0f} matches/s, {len(self.latencies) / self.seconds:.0f}"
            f" req/s; latency p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            + (f"; {self.failed_requests} failed (server killed)" if self.failed_requests else "")
            + (f"; {self.refused} connections refused, retried" if self.refused else "")
        )


class ServerGone(Exception):
    pass


async def post_all(
    port: int,
    requests: list[tuple[bytes, list[str]]],
    clients: int,
    phase: Phase,
    *,
    stop_on_error: bool,
    stop_after: int | None = None,
    deadline: float,
    retry_refused: bool = False,
) -> None:
    """``clients`` keep-alive connections post ``requests`` (taken in order) until done, or until
    ``stop_after`` matches are acknowledged (then the caller kills the server) or the first
    connection error when ``stop_on_error``. With ``retry_refused`` a connection the server
    refuses (429 or 503 with ``Retry-After``: its caps) is counted and opened again 0.05 s later,
    and the request's latency runs from its first try."""
    queue = list(reversed(requests))
    stop = asyncio.Event()

    async def client() -> None:
        reader = writer = None
        while queue and not stop.is_set() and time.monotonic() < deadline:
            req, ids = queue.pop()
            first: float | None = None
            while True:
                try:
                    if writer is None:
                        reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    assert reader is not None
                    t0 = time.perf_counter()
                    status, body = await exchange(reader, writer, req)
                    dt = time.perf_counter() - (t0 if first is None else first)
                    if retry_refused and status in (429, 503) and b"connections open" in body:
                        phase.refused += 1
                        first = t0 if first is None else first
                        writer.close()
                        reader = writer = None
                        await asyncio.sleep(0.05)
                        continue
                    break
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    phase.failed_requests += 1
                    if writer is not None:
                        writer.close()
                    reader = writer = None
                    if stop_on_error:
                        stop.set()
                        return
                    await asyncio.sleep(0.05)
            if status != 200:
                raise RuntimeError(f"HTTP {status}: {body[:300]!r}")
            phase.latencies.append(dt)
            phase.replayed += json.loads(body).get("replayed", 0)
            phase.acked += len(ids)
            phase.acked_ids.update(ids)
            if stop_after is not None and phase.acked >= stop_after:
                stop.set()
        if writer is not None:
            writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
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


def uptime() -> str:
    try:
        with open("/proc/loadavg") as f:
            return "load average " + " ".join(f.read().split()[:3])
    except OSError:
        return "load average unknown"


def yardstick(repeat: int = 3) -> float:
    """Milliseconds this machine takes now for a fixed piece of interpreter work (the best of
    ``repeat``): 27 ms on the 2-core test machine at its fastest, 50 ms at its slowest."""
    record = {"id": "m-0000001", "teams": [["pl0001"], ["pl0002", "pl0003"]], "ranks": [0, 1]}
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        acc = 0
        for i in range(4_000):
            text = json.dumps(record)
            acc += len(json.loads(text)["teams"]) + i % 7
            acc += len(hashlib.sha256(text.encode()).hexdigest())
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def cpu_jiffies(server: int | None = None) -> dict[str, int] | None:
    """CPU time used so far (clock ticks, Linux only): by the whole machine (``busy``, ``idle``),
    by the processes named ``postgres`` (the database's backends, when it runs here), and by the
    process ``server`` with its children (the worker processes preparing posts): the server's
    own share, which other work on a shared machine changes much less than the rest."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:8]]
    except OSError:
        return None
    out = {
        "idle": ticks[3] + ticks[4],
        "busy": sum(ticks) - ticks[3] - ticks[4],
        "postgres": 0,
        "server": 0,
    }
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the process ended
        fields = stat[stat.rindex(")") + 2 :].split()
        used = int(fields[11]) + int(fields[12])  # utime, stime
        if stat[stat.index("(") + 1 :].startswith("postgres"):
            out["postgres"] += used
        if server is not None and server in (int(pid), int(fields[1])):  # it, or a child
            out["server"] += used
    return out


def cpu_report(before: dict[str, int] | None, matches: int, server: int | None = None) -> str:
    """Where the machine's CPU went since ``before`` (:func:`cpu_jiffies` of ``server``), per
    1,000 matches."""
    after = cpu_jiffies(server)
    if before is None or after is None or matches == 0:
        return "cpu unknown"
    d = {k: after[k] - before[k] for k in after}
    per = 1000 / os.sysconf("SC_CLK_TCK") * 1000 / matches  # ms per 1,000 matches per tick
    total = d["busy"] + d["idle"]
    return (
        f"cpu per 1,000 matches: {d['busy'] * per:.0f} ms busy, of which PostgreSQL "
        f"{d['postgres'] * per:.0f} ms and the server {d['server'] * per:.0f} ms; "
        f"idle {100 * d['idle'] / total if total else 0:.0f}%"
    )


def check(url: str, matches: list[Match], acked: set[str], league: str = LEAGUE) -> bool:
    """``league`` holds each of ``matches`` exactly once (every one of ``acked`` among them), one
    history row per player per match, and ratings equal to an in-memory replay."""
    t0 = time.perf_counter()
    expect = reference_ratings(matches)
    with Store(url) as st:
        n = st.match_count(league)
        stored = {m.id for m in st.matches(league)}
        got = st.leaderboard(league, limit=len(expect) + 10).entries
        h = rating_history.c
        with st.engine.connect() as conn:
            lid_hist = conn.execute(
                select(func.count())
                .select_from(rating_history.join(leagues, h.league_id == leagues.c.id))
                .where(leagues.c.name == league)
            ).scalar_one()
    ok = True
    if n != len(matches) or stored != {m.id for m in matches}:
        print(f"FAILED: {n} matches in the log, expected {len(matches)}")
        ok = False
    lost = acked - stored
    if lost:
        print(f"FAILED: {len(lost)} acknowledged matches are not stored")
        ok = False
    want_hist = sum(len(m.players) for m in matches)
    if lid_hist != want_hist:
        print(f"FAILED: {lid_hist} history rows, expected {want_hist}")
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
        f"check ({time.perf_counter() - t0:.1f}s): {n} matches stored once each, every one of "
        f"{len(acked)} acknowledged matches stored, {lid_hist} history rows, {len(got)} players; "
        f"max |rating - in-memory replay| = {worst:.3g} -> {'OK' if ok else 'FAILED'}"
    )
    return ok


def wait_caught_up(url: str, league: str, deadline: float) -> float:
    """Seconds until ``league`` is no longer being brought up to date after late results (the
    server's catch-up, :mod:`mindsport.store.catchup`), read from the database."""
    t0 = time.perf_counter()
    with Store(url, create=False) as st:
        while st.get_league(league).updating and time.monotonic() < deadline:
            time.sleep(0.1)
    return time.perf_counter() - t0


def drop_postgres(url: str) -> str:
    from sqlalchemy import create_engine

    full = resolve_url(url)
    eng = create_engine(full)
    try:
        metadata.drop_all(eng)
    finally:
        eng.dispose()
    return full
