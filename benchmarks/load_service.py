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
   reported next to the time one batch takes;
7. with ``--mix`` (``slow-body``, ``anonymous-compute``, ``idle-connections``, ``late-posts``,
   comma-separated, or ``all``; default ``none``): on a new server, ``--mix-matches`` single
   posts by ``--clients`` clients into a fresh league, first alone, then beside each attack
   (``benchmarks/attackers.py``; the load starts ``--mix-ramp`` s after the attack reached
   its full strength: the idle connections all opened a first time; on PostgreSQL each run
   starts after a ``VACUUM ANALYZE``, see ``settle``), each league
   checked exactly once against a replay afterwards; a table gives each run's throughput and
   p50/p99 with ratios to the run alone and PASS/FAIL against issue 42's targets (at least 80%
   of the throughput, p99 under 50 ms); after the late posts, the time the league took to be
   brought up to date in the background once the load ended is reported before its check. Each
   attack runs in its own process (``python benchmarks/attackers.py SPEC OUT``), so its CPU is
   not taken from the normal load's clients (on a machine with fewer cores than the server,
   the load generator and the attack need, they still share them). ``idle-connections`` opens
   ``--idle-connections`` (20,000 by default, the issue's count) from several processes of
   ``--idle-per-process`` each (a process may hold no more files than the hard limit, 20,000
   on the test machine), each raising its own open-file limit (the server raises its own to the
   hard limit when it starts); this process checks first that the hard limit allows a share.

The server, the clients, the CPU readings and the final check are in ``benchmarks/load_client.py``;
the attacks in ``benchmarks/attackers.py``.

The load generator is one asyncio process speaking raw HTTP/1.1 with keep-alive (requests are
prepared beforehand), so that the clients cost little of the machine's CPU next to the server's:
a thread-per-client generator with a full HTTP client library uses several times more.

    python benchmarks/load_service.py                                  # SQLite, single matches
    python benchmarks/load_service.py --batch 1000 --matches 200000    # SQLite, batches
    python benchmarks/load_service.py --batch 1000 --matches 200000 --prepare-workers 0
    python benchmarks/load_service.py --pg-url postgresql://u:p@127.0.0.1/db --skip-sqlite
    python benchmarks/load_service.py --matches 4000 --mix all        # the adversarial mixes
    (or set MINDSPORT_TEST_POSTGRES_URL; its mindsport tables are dropped first)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

from attackers import GATED, MIXES, Target
from load_client import (
    BULK,
    LEAGUE,
    OTHER,
    Phase,
    check,
    cpu_jiffies,
    cpu_report,
    drop_postgres,
    free_port,
    make_matches,
    post_all,
    request_bytes,
    start_server,
    uptime,
    wait_caught_up,
    yardstick,
)
from mindsport.history import Match
from mindsport.service.workers import default_workers
from mindsport.store import Store


def run_backend(
    label: str, url: str, args: argparse.Namespace
) -> tuple[bool, list[str], list[str]]:
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
            return False, rows, []
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    ok = check(url, matches, acked)
    mixed: list[str] = []
    if args.mix:
        good, mixed = run_mixes(label, url, key, args)
        ok &= good
    return ok, rows, mixed


def settle(url: str) -> None:
    """Before each run of the normal load: on PostgreSQL, ``VACUUM ANALYZE`` (the rows the run
    before wrote would otherwise set off the database's autovacuum at a moment of its own, in
    the middle of the next run: one run beside the idle connections had PostgreSQL's CPU per
    1,000 matches at 1,185 ms instead of about 210, the server's unchanged), so that every run
    starts from a database in the same state. Nothing on SQLite."""
    if not url.startswith("postgresql"):
        return
    import psycopg

    t0 = time.perf_counter()
    with psycopg.connect(
        url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True
    ) as conn:
        conn.execute("VACUUM ANALYZE")
    print(f"  (VACUUM ANALYZE: {time.perf_counter() - t0:.1f} s)")


def run_mixes(label: str, url: str, key: str, args: argparse.Namespace) -> tuple[bool, list[str]]:
    """The normal load (``--mix-matches`` single posts by ``--clients`` clients, each time the
    same matches into a fresh league) alone, then beside each attack of ``args.mix``; each
    league checked exactly once against a replay after its run. Returns the table's lines."""
    late_league = "mix-late-posts-target"
    with Store(url) as st:
        for name in ("alone", *args.mix):
            st.create_league(f"mix-{name}")
        if "late-posts" in args.mix:
            st.create_league(late_league)
            prefill = make_matches(args.late_league_matches, args.players, 11, prefix="pre")
            t0 = time.perf_counter()
            for i in range(0, len(prefill), 5000):
                st.add_matches(late_league, prefill[i : i + 5000])
            print(
                f"\n{late_league!r} pre-filled with {len(prefill)} matches in "
                f"{time.perf_counter() - t0:.1f}s"
            )
    matches = make_matches(args.mix_matches, args.players, args.seed + 1, prefix="mix")
    players = tuple(sorted({p for m in matches for p in m.players}))
    port = free_port()
    proc = start_server(url, port, args.prepare_workers)
    deadline = time.monotonic() + args.timeout
    ok = True
    results: dict[str, tuple[float, float, float]] = {}
    lines = []
    try:
        warm = make_matches(2000, args.players, 1, prefix="mixwarm")
        wreqs: list[tuple[bytes, list[str]]] = [
            (request_bytes("warmup", key, [m]), []) for m in warm
        ]
        asyncio.run(
            post_all(
                port, wreqs, args.clients, Phase("warm-up"), stop_on_error=False, deadline=deadline
            )
        )
        for name in ("alone", *args.mix):
            league = f"mix-{name}"
            reqs = [(request_bytes(league, key, [m]), [m.id]) for m in matches]
            phase = Phase(f"normal load, {name}")
            counts: Counter[str] = Counter()
            late: list[Match] = []
            target = Target(port, late_league if name == "late-posts" else league, key, players)
            settle(url)
            load = uptime()
            cpu = cpu_jiffies(proc.pid)
            asyncio.run(under_attack(name, target, counts, late, args, phase, reqs, deadline))
            cpu_line = cpu_report(cpu, phase.acked, proc.pid)
            server_ms = cpu_line.split("the server ")[-1].split(" ms")[0] if cpu else "?"
            load_after = uptime()
            results[name] = rate, p50, p99 = phase.stats()
            print(f"{phase.report()}  [{load} -> {load_after}]")
            print(f"  {cpu_line}")
            if name != "alone":
                print(f"  {name}: {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}")
            good = check(url, matches, phase.acked_ids, league)
            if name == "late-posts":
                waited = wait_caught_up(url, late_league, deadline)
                print(f"  {late_league!r} up to date {waited:.1f}s after the load ended")
                good &= check(url, prefill + late, {m.id for m in late}, late_league)
            ok &= good
            base_rate, _, base_p99 = results["alone"]
            ratio = rate / base_rate if base_rate else 0.0
            if name == "alone":
                verdict = "baseline"
            elif name in GATED:
                passed = ratio >= 0.8 and p99 < 50.0
                verdict = "PASS" if passed else "FAIL"
                ok &= passed
            else:
                verdict = "reported (no target)"
            lines.append(
                f"| {label} | {name} | {rate:,.0f} | {ratio:.2f} | {p50:.1f} | {p99:.1f} | "
                f"{p99 / base_p99 if base_p99 else 0:.1f} | {phase.refused} | "
                f"{'OK' if good else 'FAILED'} | {verdict} | {server_ms} | {load.split()[-3]} / "
                f"{load_after.split()[-3]} |"
            )
            print(f"  -> {verdict}; exactly once {'OK' if good else 'FAILED'}")
            if time.monotonic() > deadline:
                print(f"FAILED: time limit {args.timeout}s reached")
                return False, lines
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return ok, lines


async def under_attack(
    name: str,
    target: Target,
    counts: Counter[str],
    late: list[Match],
    args: argparse.Namespace,
    phase: Phase,
    reqs: list[tuple[bytes, list[str]]],
    deadline: float,
) -> None:
    """The normal load ``reqs`` while the attack ``name`` runs (``alone``: none) in its own
    process (``benchmarks/attackers.py``), so that its CPU is not taken from the load's
    clients; the load starts ``--mix-ramp`` seconds after the attack is at full strength (the
    idle connections: all opened a first time; at most ``--mix-ready`` seconds after its start)
    and the attack is stopped (SIGTERM) after it. Its counts go to ``counts`` and the late
    matches it got acknowledged to ``late``."""
    procs: list[tuple[asyncio.subprocess.Process, str]] = []
    if name != "alone":
        spec = {
            "name": name,
            "port": target.port,
            "league": target.league,
            "key": target.key,
            "players": list(target.players),
            "players_count": args.players,
            "seed": args.seed,
            "slow_clients": args.slow_clients,
            "slow_size": args.slow_size,
            "slow_piece": args.slow_piece,
            "slow_interval": args.slow_interval,
            "compute_loops": args.compute_loops,
            "idle_connections": args.idle_connections,
            "idle_sources": args.idle_sources,
            "idle_half_sent": args.idle_half_sent,
            "idle_first": 0,
        }
        # the idle connections from several processes (one process may hold fewer files than
        # the attack needs), each its share of them
        shares = idle_shares(args) if name == "idle-connections" else [(0, 0)]
        for first, count in shares:
            share = {"idle_first": first, "idle_connections": count} if first or count else {}
            procs.append(await start_attacker({**spec, **share}))
        t0 = time.perf_counter()
        for proc, _ in procs:
            assert proc.stdout is not None
            left = max(0.0, args.mix_ready - (time.perf_counter() - t0))
            try:
                await asyncio.wait_for(proc.stdout.readline(), left)  # ready
            except TimeoutError:
                break
        print(f"  {name}: at full strength after {time.perf_counter() - t0:.1f} s")
        await asyncio.sleep(args.mix_ramp)
    await post_all(
        target.port,
        reqs,
        args.clients,
        phase,
        stop_on_error=False,
        deadline=deadline,
        retry_refused=True,
    )
    for proc, _ in procs:
        proc.send_signal(signal.SIGTERM)
    for proc, out_path in procs:
        await proc.wait()
        with open(out_path, encoding="utf-8") as fh:
            got = json.load(fh)
        counts.update(got["counts"])
        late.extend(Match(m["id"], m["time"], m["teams"], m["ranks"]) for m in got["late"])


def idle_shares(args: argparse.Namespace) -> list[tuple[int, int]]:
    """The idle connections of each attacker process: (index of its first, how many), at most
    ``--idle-per-process`` each."""
    per = max(1, args.idle_per_process)
    total = args.idle_connections
    return [(first, min(per, total - first)) for first in range(0, total, per)] or [(0, 0)]


async def start_attacker(spec: dict[str, Any]) -> tuple[asyncio.subprocess.Process, str]:
    """``benchmarks/attackers.py`` running ``spec`` in its own process, once it has started;
    with the path of the file it writes what it counted to when stopped."""
    work = tempfile.mkdtemp(prefix="mindsport-attack-")
    spec_path, out_path = os.path.join(work, "spec.json"), os.path.join(work, "out.json")
    with open(spec_path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh)
    here = os.path.dirname(os.path.abspath(__file__))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        os.path.join(here, "attackers.py"),
        spec_path,
        out_path,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    await proc.stdout.readline()  # started
    return proc, out_path


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


def add_mix_options(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("adversarial mixes (run after the phases above, on a new server)")
    g.add_argument(
        "--mix",
        default="none",
        help=f"comma-separated: {', '.join(MIXES)}; 'all' for every one, 'none' (default)",
    )
    g.add_argument("--mix-matches", type=int, default=4000, help="single posts per run")
    g.add_argument(
        "--mix-ramp",
        type=float,
        default=2.0,
        help="seconds of attack at full strength before the load",
    )
    g.add_argument(
        "--mix-ready",
        type=float,
        default=120.0,
        help="longest wait for an attack to reach full strength (the idle connections: opened)",
    )
    g.add_argument("--slow-clients", type=int, default=4)
    g.add_argument("--slow-size", type=int, default=64 * 1024, help="bytes of each slow body")
    g.add_argument("--slow-piece", type=int, default=1, help="bytes sent at a time")
    g.add_argument("--slow-interval", type=float, default=0.2, help="seconds between pieces")
    g.add_argument("--compute-loops", type=int, default=8)
    g.add_argument(
        "--idle-connections", type=int, default=20_000, help="the issue's 20,000 by default"
    )
    g.add_argument(
        "--idle-per-process",
        type=int,
        default=5_000,
        help="idle connections per attacker process (they are spread over several)",
    )
    g.add_argument(
        "--idle-sources",
        type=int,
        default=1,
        help="loopback addresses the idle connections come from (127.0.1.1, ...)",
    )
    g.add_argument(
        "--idle-half-sent", type=float, default=0.5, help="share sending half a request head"
    )
    g.add_argument(
        "--late-league-matches",
        type=int,
        default=100_000,
        help="matches already in the league the late posts go to",
    )


def parse_mixes(ap: argparse.ArgumentParser, text: str) -> list[str]:
    if text == "none":
        return []
    if text == "all":
        return list(MIXES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in MIXES]
    if bad or not names:
        ap.error(f"--mix: unknown {bad or text!r}; choose from {', '.join(MIXES)}, all, none")
    return list(dict.fromkeys(names))


def check_open_files(ap: argparse.ArgumentParser, need: int) -> None:
    """An error naming both when the hard limit of open files is below ``need`` (what one
    attacker process holds; each raises its own soft limit, and the server its own)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        ap.error(
            f"--idle-connections needs about {need} open files per attacker process; this "
            f"machine allows {hard} (ulimit -Hn): ask for fewer, or lower --idle-per-process"
        )


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
    add_mix_options(ap)
    args = ap.parse_args()
    args.mix = parse_mixes(ap, args.mix)
    if "idle-connections" in args.mix:
        # each attacker process holds its share (and a few more files: attackers.main)
        check_open_files(ap, min(args.idle_per_process, args.idle_connections) + 100)
    ok = True
    rows: list[str] = []
    mixed: list[str] = []
    if not args.skip_sqlite:
        with tempfile.TemporaryDirectory() as d:
            url = f"sqlite:///{os.path.join(d, 'load.db')}"
            good, got, more = run_backend("SQLite", url, args)
            ok &= good
            rows += got
            mixed += more
    if args.pg_url:
        good, got, more = run_backend("PostgreSQL", drop_postgres(args.pg_url), args)
        ok &= good
        rows += got
        mixed += more
    else:
        print("\n== PostgreSQL: skipped (give --pg-url or set MINDSPORT_TEST_POSTGRES_URL)")
    print(
        "\n| database | clients | matches/request | prepare workers | matches/s | p50 ms | p99 ms "
        "| load | yardstick ms |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(r)
    if mixed:
        print(
            "\nnormal load (single posts) alone and beside each attack; the target of every "
            "mix: ratio >= 0.80 and p99 < 50 ms\n"
            "\n| database | mix | matches/s | ratio | p50 ms | p99 ms | p99 ratio | refused "
            "| exactly once | verdict | server CPU ms / 1,000 matches | load before / after |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in mixed:
            print(r)
    print("\nALL OK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
