"""What sets the p99 of single posts: the normal load of ``benchmarks/load_service.py`` (single
posts, keep-alive clients each waiting for its answer) at several client counts on one server
(SQLite, a temporary file), each count into a fresh league.

For each count: matches/s, the mean latency beside Little's law (clients / throughput: a closed
loop's mean latency is set by its throughput), and p50, p90, p99 and the worst.

    python benchmarks/latency_clients.py                  # 1, 4 and 16 clients
    python benchmarks/latency_clients.py --clients 16 --posts 4000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time

from load_client import (
    Phase,
    free_port,
    make_matches,
    post_all,
    request_bytes,
    start_server,
    uptime,
)
from mindsport.store import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--clients", default="1,4,16", help="comma-separated client counts")
    ap.add_argument("--posts", type=int, default=3000, help="single posts per client count")
    ap.add_argument("--players", type=int, default=500)
    args = ap.parse_args()
    counts = [int(x) for x in args.clients.split(",")]
    with tempfile.TemporaryDirectory() as d:
        url = f"sqlite:///{os.path.join(d, 'latency.db')}"
        with Store(url) as st:
            for c in counts:
                st.create_league(f"clients-{c}")
            st.create_league("warmup")
            key = st.create_key(admin=True)
        port = free_port()
        proc = start_server(url, port)
        try:
            deadline = time.monotonic() + 900
            warm = make_matches(2000, args.players, 1, prefix="warm")
            wreqs = [(request_bytes("warmup", key, [m]), []) for m in warm]
            asyncio.run(
                post_all(port, wreqs, 16, Phase("warm-up"), stop_on_error=False, deadline=deadline)
            )
            matches = make_matches(args.posts, args.players, 7, prefix="lat")
            for c in counts:
                reqs = [(request_bytes(f"clients-{c}", key, [m]), [m.id]) for m in matches]
                phase = Phase(f"{c} clients")
                asyncio.run(post_all(port, reqs, c, phase, stop_on_error=False, deadline=deadline))
                rate, p50, p99 = phase.stats()
                lat = sorted(phase.latencies)
                mean = 1000 * sum(lat) / len(lat)
                p90 = 1000 * lat[int(len(lat) * 0.9)]
                print(
                    f"{c:3d} clients: {rate:6.0f} posts/s, mean {mean:6.1f} ms (Little's law "
                    f"{1000 * c / rate:6.1f}), p50 {p50:6.1f}, p90 {p90:6.1f}, "
                    f"p99 {p99:6.1f}, worst {1000 * lat[-1]:6.1f} ms  [{uptime()}]",
                    flush=True,
                )
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
