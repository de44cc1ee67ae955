"""Fixtures: a fresh database per test, SQLite always, PostgreSQL when configured.

PostgreSQL tests (marker ``postgres``) run when ``MINDSPORT_TEST_POSTGRES_URL`` is set, e.g.
``postgresql://mindsport:mindsport@127.0.0.1:5432/mindsport_test``; the tables of that database
are dropped before each test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_ENV = "MINDSPORT_TEST_POSTGRES_URL"
PG_SKIP = f"PostgreSQL tests need {PG_ENV} (e.g. postgresql://user:pw@127.0.0.1/db)"


def _fresh_postgres() -> str:
    from sqlalchemy import create_engine

    from mindsport.store.schema import metadata
    from mindsport.store.store import resolve_url

    url = resolve_url(os.environ[PG_ENV])
    engine = create_engine(url)
    try:
        metadata.drop_all(engine)
    finally:
        engine.dispose()
    return url


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL with no mindsport tables: a SQLite file, or the test PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ratings.db'}"
        return
    if not os.environ.get(PG_ENV):
        pytest.skip(PG_SKIP)
    yield _fresh_postgres()


def ts_reference(
    matches: list,  # type: ignore[type-arg]
    **params: float,
) -> tuple[dict[str, tuple[float, float]], dict[str, list[tuple[float, float]]]]:
    """Independent reference: the ``trueskill`` 0.4.5 package replaying ``matches`` in the order
    given. Returns the final (mu, sigma) per player and each player's (mu, sigma) after every
    game."""
    trueskill = pytest.importorskip("trueskill")
    env = trueskill.TrueSkill(backend=None, **params)
    cur: dict[str, tuple[float, float]] = {}
    hist: dict[str, list[tuple[float, float]]] = {}
    for m in matches:
        groups = [
            {p: env.create_rating(*cur[p]) if p in cur else env.create_rating() for p in t}
            for t in m.teams
        ]
        weights = None
        if m.weights is not None:
            weights = {
                (i, p): w
                for i, (t, ws) in enumerate(zip(m.teams, m.weights, strict=True))
                for p, w in zip(t, ws, strict=True)
            }
        new = env.rate(groups, ranks=list(m.ranks), weights=weights)
        for g in new:
            for p, r in g.items():
                cur[p] = (r.mu, r.sigma)
                hist.setdefault(p, []).append((r.mu, r.sigma))
    return cur, hist


@pytest.fixture
def reference():  # type: ignore[no-untyped-def]
    """:func:`ts_reference`."""
    return ts_reference


@pytest.fixture
def live_server():  # type: ignore[no-untyped-def]
    """Factory: ``live_server(url) -> (base_url, store)``: the service on 127.0.0.1 (a free
    port) in a background thread, stopped at the end of the test."""
    import socket
    import threading
    import time

    import uvicorn

    from mindsport.service import create_app
    from mindsport.store import Store

    started: list[tuple[uvicorn.Server, threading.Thread, Store]] = []

    def start(url: str) -> tuple[str, Store]:
        store = Store(url)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(create_app(store=store), log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        started.append((server, thread, store))
        return f"http://127.0.0.1:{port}", store

    yield start
    for server, thread, store in started:
        server.should_exit = True
        thread.join(timeout=10)
        store.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say so when the browser tests did not run."""
    import importlib.util
    import shutil

    chromium = os.environ.get("MINDSPORT_CHROMIUM", "/usr/bin/chromium")
    if not (Path(chromium).exists() or shutil.which("chromium")):
        terminalreporter.write_line(
            f"mindsport service: browser tests skipped: no Chromium at {chromium}"
        )
    elif importlib.util.find_spec("playwright") is None:
        terminalreporter.write_line(
            "mindsport service: browser tests skipped: pip install playwright"
        )
