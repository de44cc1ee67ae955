"""Service fixtures: a live server on loopback (database fixtures: ``tests/conftest.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def setup(db_url: str):  # type: ignore[no-untyped-def]
    """``(client, store, key)``: the app over a fresh database with league ``main`` and a write
    key of it, through a test client."""
    import warnings

    from mindsport.service import create_app
    from mindsport.store import Store

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    store = Store(db_url)
    store.create_league("main")
    key = store.create_key("main")
    with TestClient(create_app(store=store)) as client:
        yield client, store, key
    store.close()


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
