"""``mindsport serve``: run the HTTP service and the leaderboard page (uvicorn).

The command function :func:`serve` is registered on the root ``mindsport`` command; FastAPI and
uvicorn are loaded when it runs, not when the command line starts.
"""

from __future__ import annotations

import typer

from mindsport.store.cli import DbOption, friendly

__all__ = ["serve"]


@friendly
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="TCP port."),
    db: str | None = DbOption,
) -> None:
    """Run the HTTP service and leaderboard page (uvicorn)."""
    import uvicorn

    from mindsport.service.app import create_app

    uvicorn.run(create_app(db), host=host, port=port, log_level="info")
