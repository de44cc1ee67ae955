"""``mindsport serve``: run the HTTP service and the leaderboard page (uvicorn).

The command function :func:`serve` is registered on the root ``mindsport`` command; FastAPI and
uvicorn are loaded when it runs, not when the command line starts.
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
) -> None:
    """Run the HTTP service and leaderboard page (uvicorn)."""
    import uvicorn

    from mindsport.service.app import create_app

    app = create_app(db, prepare_workers=prepare_workers)
    uvicorn.run(app, host=host, port=port, log_level="info")
