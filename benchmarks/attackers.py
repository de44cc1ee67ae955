"""The adversarial clients that ``benchmarks/load_service.py`` runs beside its normal load.

Each attack is a coroutine that runs until its ``stop`` event is set, then finishes the requests
it has in flight (so that what it was told it stored is known) and closes its connections; it
counts what the server answered in a :class:`collections.Counter`:

* :func:`slow_body`: clients each sending a large post of matches (at least 64 KiB) one small
  piece at a time, slowly, reconnecting after each answer (a 408 when the body timeout strikes);
* :func:`anonymous_compute`: loops posting predictions and matchmaking searches without a key,
  each sending its next request as soon as the last is answered (429s included);
* :func:`idle_connections`: many TCP connections opened and left idle, some of them after half a
  request head, from one or several loopback addresses, each reopened a moment after the server
  closes or refuses it;
* :func:`late_posts`: single matches dated before everything else in a league, one after another.

The clients speak raw HTTP/1.1 (as the normal load does), so that they cost the machine little.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mindsport.history import Match

MIXES = ("slow-body", "anonymous-compute", "idle-connections", "late-posts")
GATED = MIXES  # the mixes the targets apply to
NETWORK_ERRORS = (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, req: bytes
) -> tuple[int, bytes]:
    """Send ``req`` on a keep-alive connection; its answer's status and body."""
    writer.write(req)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    body = await reader.readexactly(length)
    return status, body


def post_bytes(path: str, body: bytes, key: str | None = None) -> bytes:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + (f"X-API-Key: {key}\r\n" if key else "")
        + f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def match_json(m: Match) -> dict[str, Any]:
    return {"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams], "ranks": list(m.ranks)}


@dataclass(frozen=True)
class Target:
    """Where the attacks go: the server's port, the league the normal load writes to and its
    write key (the slow bodies are real posts), and the players the computations name."""

    port: int
    league: str
    key: str
    players: tuple[str, ...]


def _close(writer: asyncio.StreamWriter | None) -> None:
    if writer is not None:
        writer.close()


async def slow_body(
    target: Target,
    stop: asyncio.Event,
    counts: Counter[str],
    *,
    clients: int,
    matches: list[Match],
    size: int,
    piece: int,
    interval: float,
) -> None:
    """``clients`` connections each post matches of ``target.league`` (the first of
    ``matches``, enough for a body of at least ``size`` bytes: matches the normal load posts
    too, so a body that did arrive whole would only repeat them) ``piece`` bytes every
    ``interval`` seconds; each answer is counted by status and the client reconnects."""
    chosen: list[dict[str, Any]] = []
    body = b"[]"
    for m in matches:
        chosen.append(match_json(m))
        body = json.dumps(chosen).encode()
        if len(body) >= size:
            break
    if len(body) < size:
        raise ValueError(f"{len(matches)} matches make a body of {len(body)} < {size} bytes")
    req = post_bytes(f"/api/leagues/{target.league}/matches", body, target.key)
    head_end = req.index(b"\r\n\r\n") + 4
    counts["body bytes"] = len(body)

    async def client() -> None:
        while not stop.is_set():
            writer = None
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", target.port)
                writer.write(req[:head_end])
                sent = head_end
                counts["posts started"] += 1
                while not stop.is_set():
                    if sent < len(req):
                        writer.write(req[sent : sent + piece])
                        sent += piece
                    try:
                        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), interval)
                    except TimeoutError:
                        continue
                    counts[f"HTTP {int(head[9:12])}"] += 1
                    break
            except NETWORK_ERRORS:
                counts["closed"] += 1
                await asyncio.sleep(interval)
            finally:
                _close(writer)

    await asyncio.gather(*(client() for _ in range(clients)))


async def anonymous_compute(
    target: Target, stop: asyncio.Event, counts: Counter[str], *, loops: int, seed: int
) -> None:
    """``loops`` keep-alive connections alternate a prediction (two teams of two) and a
    matchmaking search (32 players into 2v2 tables) without a key, each as soon as the last
    answer has come."""
    rng = random.Random(seed)
    base = f"/api/leagues/{target.league}"

    def predict() -> bytes:
        a, b, c, d = rng.sample(target.players, 4)
        teams = {"teams": [[a, b], [c, d]], "allow_new": True}
        return post_bytes(f"{base}/predict", json.dumps(teams).encode())

    def matchmake() -> bytes:
        pool = {"players": rng.sample(target.players, 32), "shape": "2v2", "allow_new": True}
        return post_bytes(f"{base}/matchmake", json.dumps(pool).encode())

    async def loop(kinds: tuple[tuple[str, Callable[[], bytes]], ...]) -> None:
        reader = writer = None
        turn = 0
        while not stop.is_set():
            name, make = kinds[turn % len(kinds)]
            turn += 1
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection("127.0.0.1", target.port)
                assert reader is not None
                status, _ = await exchange(reader, writer, make())
                counts[f"{name} {status}"] += 1
            except NETWORK_ERRORS:
                counts["closed"] += 1
                _close(writer)
                reader = writer = None
                await asyncio.sleep(0.05)
        _close(writer)

    kinds = (("predict", predict), ("matchmake", matchmake))
    await asyncio.gather(*(loop(kinds[i % 2 :] + kinds[: i % 2]) for i in range(loops)))


async def open_from(source: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to ``port`` on 127.0.0.1 from the address ``source``, its port chosen when
    it connects (``IP_BIND_ADDRESS_NO_PORT``, as a client bound to an address should: binding
    a port first makes the kernel search for one no socket of the address holds, a search
    through most of the port range once an attack holds 20,000 ports of one address, which
    would cost this machine's cores far more than the server's answers)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        no_port = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", None)
        if no_port is not None:
            sock.setsockopt(socket.IPPROTO_IP, no_port, 1)
        sock.bind((source, 0))
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    except BaseException:
        sock.close()
        raise
    return await asyncio.open_connection(sock=sock)


async def idle_connections(
    target: Target,
    stop: asyncio.Event,
    counts: Counter[str],
    *,
    count: int,
    sources: int,
    half_sent: float,
    retry: float,
    first: int = 0,
    ready: asyncio.Event | None = None,
) -> None:
    """``count`` connections (numbered from ``first``: an attack spread over several processes
    gives each its own numbers) spread over ``sources`` loopback addresses (127.0.1.1, 127.0.1.2,
    ...; the normal load comes from 127.0.0.1), every ``1 / half_sent``-th sending half a
    request head, the others nothing; each waits for the server to answer or close it, then is
    reopened ``retry`` seconds later. ``counts['open']`` is the number held open now,
    ``counts['most open']`` the most at once; ``ready`` is set once every connection has been
    opened (or refused) a first time: the attack at its full strength."""
    partial = f"POST /api/leagues/{target.league}/matches HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    every = max(1, round(1 / half_sent)) if half_sent > 0 else 0
    first_tries = 0

    def tried() -> None:
        nonlocal first_tries
        first_tries += 1
        if first_tries == count and ready is not None:
            ready.set()

    async def holder(i: int) -> None:
        source = f"127.0.1.{1 + i % sources}"
        await asyncio.sleep((i - first) * 0.0005)  # open them over seconds, not in one burst
        new = True
        while not stop.is_set():
            writer = None
            try:
                reader, writer = await open_from(source, target.port)
                if every and i % every == 0:
                    writer.write(partial.encode())
                if new:
                    new = False
                    tried()
                counts["open"] += 1
                counts["most open"] = max(counts["most open"], counts["open"])
                try:
                    got = await _until_stop(reader.read(256), stop)
                finally:
                    counts["open"] -= 1
                if got is None:
                    break
                counts[f"HTTP {int(got[9:12])}" if got[:5] == b"HTTP/" else "closed"] += 1
            except NETWORK_ERRORS:
                counts["connect failed"] += 1
                if new:
                    new = False
                    tried()
            finally:
                _close(writer)
            await _until_stop(asyncio.sleep(retry), stop)

    await asyncio.gather(*(holder(i) for i in range(first, first + count)))


async def _until_stop(work: Any, stop: asyncio.Event) -> Any:
    """``work``'s result, or ``None`` (``work`` cancelled) once ``stop`` is set."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        waiter.cancel()
        return task.result()
    task.cancel()
    return None


async def late_posts(
    target: Target,
    stop: asyncio.Event,
    counts: Counter[str],
    acked: list[Match],
    *,
    seed: int,
) -> None:
    """One client posts single matches to ``target.league``, each dated before every match
    already there (times -1, -2, ...), one after the other; the acknowledged ones are appended
    to ``acked`` and the matches re-rated counted in ``counts['replayed']``."""
    rng = random.Random(seed)
    reader = writer = None
    k = 0
    m: Match | None = None
    while not stop.is_set() or m is not None:  # a post cut off is sent again, then answered
        if m is None:
            k += 1
            a, b = rng.sample(target.players, 2)
            m = Match(f"late-{seed}-{k:06d}", -k, [[a], [b]], [0, 1])
        req = post_bytes(
            f"/api/leagues/{target.league}/matches", json.dumps(match_json(m)).encode(), target.key
        )
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", target.port)
            assert reader is not None
            status, answer = await exchange(reader, writer, req)
        except NETWORK_ERRORS:
            counts["closed"] += 1
            _close(writer)
            reader = writer = None
            await asyncio.sleep(0.05)
            continue
        counts[f"HTTP {status}"] += 1
        if status == 200:
            acked.append(m)
            said = json.loads(answer)
            counts["replayed"] += said.get("replayed", 0)
            counts["left to the catch-up"] += bool(said.get("updating"))
        m = None
    _close(writer)


def _attack(
    name: str,
    target: Target,
    stop: asyncio.Event,
    counts: Counter[str],
    late: list[Match],
    spec: dict[str, Any],
    ready: asyncio.Event,
) -> Any:
    """The coroutine of the attack ``name`` with the settings of ``spec`` (see :func:`main`);
    ``ready`` is set when the attack is at its full strength (at once, but for the idle
    connections: once all have been opened)."""
    if name != "idle-connections":
        ready.set()
    if name == "slow-body":
        from load_service import make_matches  # the normal load's matches, made the same way

        return slow_body(
            target,
            stop,
            counts,
            clients=spec["slow_clients"],
            matches=make_matches(2000, spec["players_count"], spec["seed"] + 1, prefix="mix"),
            size=spec["slow_size"],
            piece=spec["slow_piece"],
            interval=spec["slow_interval"],
        )
    if name == "anonymous-compute":
        return anonymous_compute(
            target, stop, counts, loops=spec["compute_loops"], seed=spec["seed"]
        )
    if name == "idle-connections":
        return idle_connections(
            target,
            stop,
            counts,
            count=spec["idle_connections"],
            sources=spec["idle_sources"],
            half_sent=spec["idle_half_sent"],
            retry=1.0,
            first=spec.get("idle_first", 0),
            ready=ready,
        )
    if name == "late-posts":
        return late_posts(target, stop, counts, late, seed=spec["seed"])
    raise SystemExit(f"unknown attack {name!r}: use one of {', '.join(MIXES)}")


def main() -> None:
    """Run one attack in its own process, so that its CPU is not the normal load's:
    ``python benchmarks/attackers.py SPEC.json OUT.json`` runs the attack ``SPEC['name']`` on
    ``SPEC['port']`` (league, key, players and the attack's settings in SPEC) until SIGTERM, then
    writes the server's answers counted and the late matches acknowledged to OUT.json. It prints
    ``started`` at once and ``ready`` when the attack is at full strength."""
    import resource
    import signal
    import sys

    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    if spec["name"] == "idle-connections":  # its share of the connections, and a few more files
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        need = spec["idle_connections"] + 100
        if soft < need:
            if hard != resource.RLIM_INFINITY and hard < need:
                raise SystemExit(f"{need} open files needed, the hard limit is {hard}")
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    target = Target(spec["port"], spec["league"], spec["key"], tuple(spec["players"]))
    counts: Counter[str] = Counter()
    late: list[Match] = []

    async def run() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        print("started", flush=True)
        ready = asyncio.Event()

        async def say_ready() -> None:
            await ready.wait()
            print("ready", flush=True)

        said = asyncio.ensure_future(say_ready())
        await _attack(spec["name"], target, stop, counts, late, spec, ready)
        said.cancel()

    asyncio.run(run())
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump({"counts": dict(counts), "late": [match_json(m) for m in late]}, fh)


if __name__ == "__main__":
    main()
