"""``python -m mindsport.service --db URL --host 127.0.0.1 --port 8000``: run the service (the
options of ``mindsport serve``, the limits from :class:`~mindsport.service.limits.ServerLimits`)."""

from __future__ import annotations

import argparse

from mindsport.service import limits as lim
from mindsport.service.app import create_app
from mindsport.service.serving import run, server_limits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mindsport.service")
    parser.add_argument("--db", default=None, help="database URL or SQLite path")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="warning")
    parser.add_argument(
        "--prepare-workers",
        type=int,
        default=None,
        help="worker processes parsing large posts of matches beside the database writer "
        "(default: 1 on a machine with several CPUs, else 0)",
    )
    parser.add_argument(
        "--head-timeout", type=float, help=f"seconds (default {lim.HEAD_SECONDS:g})"
    )
    parser.add_argument(
        "--keep-alive", type=int, help=f"seconds (default {lim.KEEP_ALIVE_SECONDS})"
    )
    parser.add_argument(
        "--body-timeout", type=float, help=f"seconds (default {lim.BODY_SECONDS:g})"
    )
    parser.add_argument(
        "--body-idle", type=float, help=f"seconds (default {lim.BODY_IDLE_SECONDS:g})"
    )
    parser.add_argument("--max-head-bytes", type=int, help=f"bytes (default {lim.MAX_HEAD_BYTES})")
    parser.add_argument("--max-connections", type=int, help=f"default {lim.MAX_CONNECTIONS}")
    parser.add_argument(
        "--max-connections-per-client",
        type=int,
        help=f"default {lim.MAX_CONNECTIONS_PER_CLIENT}",
    )
    parser.add_argument("--backlog", type=int, help=f"default {lim.BACKLOG}")
    args = parser.parse_args(argv)
    if args.prepare_workers is not None and args.prepare_workers < 0:
        parser.error(f"--prepare-workers: 0 or more, got {args.prepare_workers}")
    try:
        limits = server_limits(
            body_seconds=args.body_timeout,
            body_idle_seconds=args.body_idle,
            max_head_bytes=args.max_head_bytes,
            head_seconds=args.head_timeout,
            keep_alive_seconds=args.keep_alive,
            max_connections=args.max_connections,
            max_connections_per_client=args.max_connections_per_client,
            backlog=args.backlog,
        )
    except ValueError as exc:
        parser.error(str(exc))
    app = create_app(args.db, prepare_workers=args.prepare_workers, limits=limits)
    run(app, host=args.host, port=args.port, limits=limits, log_level=args.log_level)


if __name__ == "__main__":
    main()
