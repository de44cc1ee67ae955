"""``mindsport serve``: run the HTTP service and the leaderboard page (uvicorn).

The command function :func:`serve` is registered on the root ``mindsport`` command; FastAPI and
uvicorn are loaded when it runs, not when the command line starts. Its limits are
:class:`mindsport.service.limits.ServerLimits` (an option left out keeps the limit's default),
applied by :func:`mindsport.service.serving.uvicorn_config`, as ``python -m mindsport.service``
does.
"""

from __future__ import annotations

import typer

from mindsport.cli.options import DbOption

__all__ = ["serve"]


def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, min=0, max=65535, help="TCP port (0: any free port)."),
    db: str | None = DbOption,
    prepare_workers: int | None = typer.Option(
        None,
        min=0,
        help="Worker processes parsing large posts of matches beside the database writer "
        "(default: 1 on a machine with several CPUs, else 0).",
    ),
    head_timeout: float | None = typer.Option(
        None, help="Seconds for a request's head to arrive (default 10; 408 after)."
    ),
    keep_alive: int | None = typer.Option(
        None, help="Seconds an idle connection stays open after an answer (default 5)."
    ),
    body_timeout: float | None = typer.Option(
        None, help="Seconds for a request's whole body to arrive (default 30; 408 after)."
    ),
    body_idle: float | None = typer.Option(
        None, help="Longest pause while a body arrives, in seconds (default 10; 408 after)."
    ),
    max_head_bytes: int | None = typer.Option(
        None, help="Largest request head in bytes (default 65536; 431 beyond)."
    ),
    max_connections: int | None = typer.Option(
        None, help="Most open connections (default 2000; 503 beyond)."
    ),
    max_connections_per_client: int | None = typer.Option(
        None, help="Most open connections from one client address (default 100; 429 beyond)."
    ),
    backlog: int | None = typer.Option(
        None, help="Connections the system queues before they are accepted (default 2048)."
    ),
) -> None:
    """Run the HTTP service and leaderboard page (uvicorn)."""
    from mindsport.service.app import create_app
    from mindsport.service.serving import run, server_limits

    try:
        limits = server_limits(
            head_seconds=head_timeout,
            keep_alive_seconds=keep_alive,
            body_seconds=body_timeout,
            body_idle_seconds=body_idle,
            max_head_bytes=max_head_bytes,
            max_connections=max_connections,
            max_connections_per_client=max_connections_per_client,
            backlog=backlog,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    app = create_app(db, prepare_workers=prepare_workers, limits=limits)
    run(app, host=host, port=port, limits=limits, log_level="info")
