"""Load test of the HTTP service: throughput, a SIGKILL mid-load, exact final ratings.

For each backend (a SQLite file, and PostgreSQL when a URL is given):

1. start ``python -m mindsport.service`` on 127.0.0.1 (a free port) over an empty database with
   one TrueSkill league and a write key (plus a second league for the isolation check); the
   server prepares large posts in ``--prepare-workers`` worker processes (its default: one on a
   machine with several CPUs; they exit by themselves when the server is killed);
2. **measure**: ``--clients`` concurrent connections post the first half of ``--matches``
   matches (``--batch`` per request, in roughly time order, so concurrent commits also arrive
   late and exercise the replay of later matches); throughput and latency (p50/p99 per request)
   are reported, with the CPU time 1,000 matches cost the machine (on Linux; the PostgreSQL
   backends' share when the database runs here, and the server's own: its process and its
   workers, the figure that other work on a shared machine changes least), its idle share,
   how many stored matches late ones made the server re-rate, and a **yardstick**: the time a
   fixed piece of interpreter work takes just before and just after the phase (the speed of a
   shared virtual machine can change by half from one minute to the next; compare runs at
   equal yardsticks);
3. **crash**: the clients go on with the second half; once a quarter of it is acknowledged the
   server is killed with SIGKILL; the clients stop at their first connection error;
4. **recover**: the server is restarted on the same database and the clients re-post *every*
   match;
5. **check**: the log holds each match exactly once, the history has one row per player per
   game, every acknowledged match is stored, and every player's stored rating equals an
   in-memory replay (the TrueSkill model applied match by match in time order, no database);
6. with ``--isolation``: while clients post batches of ``--isolation-batch`` matches to the
   first league, one client posts single matches to the second league; its worst latency is
   reported next to the time one batch takes.

The load generator is one asyncio process speaking raw HTTP/1.1 with keep-alive (requests are
prepared beforehand), so that the clients cost little of the machine's CPU next to the server's:
a thread-per-client generator with a full HTTP client library uses several times more.

    python benchmarks/load_service.py                                  # SQLite, single matches
    python benchmarks/load_service.py --batch 1000 --matches 200000    # SQLite, batches
    python benchmarks/load_service.py --batch 1000 --matches 200000 --prepare-workers 0
    python benchmarks/load_service.py --pg-url postgresql://u:p@127.0.0.1/db --skip-sqlite
    (or set MINDSPORT_TEST_POSTGRES_URL; its mindsport tables are dropped first)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from mindsport.history import Match
from mindsport.rating.trueskill.model import TrueSkill
from mindsport.service.prepare import default_workers
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
        )


class ServerGone(Exception):
    pass


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, req: bytes
) -> tuple[int, bytes]:
    writer.write(req)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    body = await reader.readexactly(length)
    return status, body


async def post_all(
    port: int,
    requests: list[tuple[bytes, list[str]]],
    clients: int,
    phase: Phase,
    *,
    stop_on_error: bool,
    stop_after: int | None = None,
    deadline: float,
) -> None:
    """``clients`` keep-alive connections post ``requests`` (taken in order) until done, or until
    ``stop_after`` matches are acknowledged (then the caller kills the server) or the first
    connection error when ``stop_on_error``."""
    queue = list(reversed(requests))
    stop = asyncio.Event()

    async def client() -> None:
        reader = writer = None
        while queue and not stop.is_set() and time.monotonic() < deadline:
            req, ids = queue.pop()
            while True:
                try:
                    if writer is None:
                        reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    assert reader is not None
                    t0 = time.perf_counter()
                    status, body = await _exchange(reader, writer, req)
                    dt = time.perf_counter() - t0
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


def run_backend(label: str, url: str, args: argparse.Namespace) -> tuple[bool, list[str]]:
    workers = default_workers() if args.prepare_workers is None else args.prepare_workers
    print(
        f"\n== {label}: {args.matches} matches, {args.clients} clients, batch {args.batch}, "
        f"{workers} prepare workers"
    )
    deadline = time.monotonic() + args.timeout
    with Store(url) as st:
        st.create_league(LEAGUE)
        st.create_league(BULK)
        st.create_league(OTHER)
        st.create_league("warmup")
        key = st.create_key(admin=True)
    matches = make_matches(args.matches, args.players, args.seed)
    batches = [matches[i : i + args.batch] for i in range(0, len(matches), args.batch)]
    reqs = [(request_bytes(LEAGUE, key, b), [m.id for m in b]) for b in batches]
    half = len(reqs) // 2
    port = free_port()
    proc = start_server(url, port, args.prepare_workers)
    rows: list[str] = []
    acked: set[str] = set()
    try:
        # warm-up (the compiled replay kernel and the connection pools), on another league
        warm = make_matches(max(2, min(2 * args.batch, 2000)), args.players, 1, prefix="warm")
        wreqs = [
            (request_bytes("warmup", key, warm[i : i + args.batch]), [])
            for i in range(0, len(warm), args.batch)
        ]
        asyncio.run(
            post_all(port, wreqs, 2, Phase("warm-up"), stop_on_error=False, deadline=deadline)
        )
        load = uptime()
        speed = yardstick()
        cpu = cpu_jiffies(proc.pid)
        first = Phase("measure")
        asyncio.run(
            post_all(port, reqs[:half], args.clients, first, stop_on_error=True, deadline=deadline)
        )
        cpu_line = cpu_report(cpu, first.acked, proc.pid)
        speed_after = yardstick()
        print(f"{first.report()}  [{load} -> {uptime()}]")
        print(f"  {cpu_line}; {first.replayed} stored matches re-rated")
        print(f"  yardstick {speed:.0f} ms before, {speed_after:.0f} ms after")
        rate, p50, p99 = first.stats()
        rows.append(
            f"| {label} | {args.clients} | {args.batch} | {workers} | {rate:,.0f} | {p50:.1f} "
            f"| {p99:.1f} | {load.split()[-3]} | {speed:.0f} / {speed_after:.0f} |"
        )
        acked |= first.acked_ids
        crash = Phase("crash (until SIGKILL)")
        kill_after = max(1, int((len(reqs) - half) * args.batch * args.kill_at))
        asyncio.run(
            post_all(
                port,
                reqs[half:],
                args.clients,
                crash,
                stop_on_error=True,
                stop_after=kill_after,
                deadline=deadline,
            )
        )
        os.kill(proc.pid, signal.SIGKILL)  # requests are still in flight on other connections
        proc.wait(timeout=30)
        acked |= crash.acked_ids
        print(crash.report())
        print(f"server killed with SIGKILL (exit {proc.returncode}) after {len(acked)} acks")
        proc = start_server(url, port, args.prepare_workers)
        again = Phase("recover (restart, re-post all)")
        asyncio.run(
            post_all(port, reqs, args.clients, again, stop_on_error=False, deadline=deadline)
        )
        print(again.report())
        if args.isolation:
            rows.extend(isolation(port, key, args, deadline))
        if time.monotonic() > deadline:
            print(f"FAILED: time limit {args.timeout}s reached")
            return False, rows
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    return check(url, matches, acked), rows


def isolation(port: int, key: str, args: argparse.Namespace, deadline: float) -> list[str]:
    """Latency of single posts to one league while batches go to another."""
    big = make_matches(args.isolation_batch * 8, args.players, 7, prefix="iso")
    reqs = [
        (request_bytes(BULK, key, big[i : i + args.isolation_batch]), [])
        for i in range(0, len(big), args.isolation_batch)
    ]
    small = make_matches(400, args.players, 8, prefix="iso-other")
    sreqs = [(request_bytes(OTHER, key, [m]), []) for m in small]
    batches, singles = Phase("batches"), Phase("singles")

    async def both() -> None:
        await asyncio.gather(
            post_all(port, reqs, 2, batches, stop_on_error=True, deadline=deadline),
            post_all(port, sreqs, 1, singles, stop_on_error=True, deadline=deadline),
        )

    asyncio.run(both())
    worst_batch = max(batches.latencies) * 1000
    worst_single = max(singles.latencies) * 1000
    print(
        f"isolation: batches of {args.isolation_batch} to {BULK!r}: p50 "
        f"{batches.stats()[1]:.0f} ms, worst {worst_batch:.0f} ms; single posts to {OTHER!r} "
        f"meanwhile: p50 {singles.stats()[1]:.1f} ms, worst {worst_single:.0f} ms"
    )
    return [
        f"isolation: worst single post {worst_single:.0f} ms vs worst batch {worst_batch:.0f} ms"
    ]


def check(url: str, matches: list[Match], acked: set[str]) -> bool:
    t0 = time.perf_counter()
    expect = reference_ratings(matches)
    with Store(url) as st:
        n = st.match_count(LEAGUE)
        stored = {m.id for m in st.matches(LEAGUE)}
        got = st.leaderboard(LEAGUE, limit=len(expect) + 10).entries
        h = rating_history.c
        with st.engine.connect() as conn:
            lid_hist = conn.execute(
                select(func.count())
                .select_from(rating_history.join(leagues, h.league_id == leagues.c.id))
                .where(leagues.c.name == LEAGUE)
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
    ap.add_argument("--matches", type=int, default=20_000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--batch", type=int, default=1, help="matches per request")
    ap.add_argument("--players", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument(
        "--kill-at", type=float, default=0.25, help="fraction of the second half before SIGKILL"
    )
    ap.add_argument("--isolation", action="store_true", help="measure league isolation too")
    ap.add_argument("--isolation-batch", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per backend")
    ap.add_argument("--pg-url", default=os.environ.get("MINDSPORT_TEST_POSTGRES_URL"))
    ap.add_argument("--skip-sqlite", action="store_true")
    ap.add_argument(
        "--prepare-workers",
        type=int,
        default=None,
        help="the server's worker processes for large posts (default: the server's default)",
    )
    args = ap.parse_args()
    ok = True
    rows: list[str] = []
    if not args.skip_sqlite:
        with tempfile.TemporaryDirectory() as d:
            good, got = run_backend("SQLite", f"sqlite:///{os.path.join(d, 'load.db')}", args)
            ok &= good
            rows += got
    if args.pg_url:
        good, got = run_backend("PostgreSQL", drop_postgres(args.pg_url), args)
        ok &= good
        rows += got
    else:
        print("\n== PostgreSQL: skipped (give --pg-url or set MINDSPORT_TEST_POSTGRES_URL)")
    print(
        "\n| database | clients | matches/request | prepare workers | matches/s | p50 ms | p99 ms "
        "| load | yardstick ms |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(r)
    print("\nALL OK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
