"""``python -m mindsport.service --db URL --host 127.0.0.1 --port 8000``: run the service."""

from __future__ import annotations

import argparse

import uvicorn

from mindsport.service.app import create_app


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
    args = parser.parse_args(argv)
    if args.prepare_workers is not None and args.prepare_workers < 0:
        parser.error(f"--prepare-workers: 0 or more, got {args.prepare_workers}")
    app = create_app(args.db, prepare_workers=args.prepare_workers)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
