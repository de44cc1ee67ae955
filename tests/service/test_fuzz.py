"""Property-based fuzz of every endpoint, driven by the app's own OpenAPI schema (schemathesis):
no input gives a 5xx, and a refused request (4xx) changes no stored data. Requests that fit the
schema and requests that break it are both generated; each is sent twice: as generated (random
league names and keys: mostly 404/403/422 early), and aimed at a real league with an admin key
(so the bodies reach the deep checks and the store); event paths are aimed at event ``main``."""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from sqlalchemy import create_engine, select

from mindsport.event.model import EventSpec
from mindsport.event.storage import EventStore
from mindsport.history import Match
from mindsport.service import create_app
from mindsport.store import Store, resolve_url
from mindsport.store.schema import metadata

schemathesis = pytest.importorskip("schemathesis")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class Service:
    """The app over a small league ``main`` (a few rated players), an admin key, and a
    fingerprint of everything stored."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.store = Store(url)
        self.store.create_league("main")
        self.store.add_matches(
            "main",
            [Match(f"seed{i}", i, [[f"p{i % 5}"], [f"p{(i + 1) % 5}"]], [0, 1]) for i in range(8)],
        )
        self.admin = self.store.create_key(admin=True)
        # an event ``main`` of league ``main`` with a paired round (its tables take results)
        events = EventStore(self.store)
        events.create(EventSpec("main", "main", rounds=3))
        events.register("main", [(f"e{i}", None) for i in range(7)])
        events.pair("main")
        self.app = create_app(store=self.store)
        self.engine = create_engine(resolve_url(url))

    def fingerprint(self) -> str:
        h = hashlib.sha256()
        with self.engine.connect() as conn:
            for table in metadata.sorted_tables:
                rows = conn.execute(select(table)).all()
                h.update(json.dumps(sorted(map(repr, rows))).encode())
        return h.hexdigest()

    def close(self) -> None:
        self.engine.dispose()
        self.store.close()


@pytest.fixture(scope="module")
def service(module_db_url: str) -> Iterator[Service]:
    """The service on SQLite, and on the test PostgreSQL when one is configured."""
    svc = Service(module_db_url)
    yield svc
    svc.close()


def _check(service: Service, client: TestClient, case: Any) -> None:
    before = service.fingerprint()
    kwargs = case.as_transport_kwargs()
    response = client.request(
        kwargs["method"],
        kwargs["url"],
        headers=kwargs.get("headers"),
        params=kwargs.get("params"),
        content=kwargs.get("data") or kwargs.get("content"),
        json=kwargs.get("json"),
    )
    assert response.status_code < 500, (case.method, case.path, response.text[:500])
    if 400 <= response.status_code < 500:
        assert service.fingerprint() == before, (case.method, case.path, response.text[:300])


def _operations() -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = create_app(store=_NoStore()).openapi()  # type: ignore[arg-type]
    return [f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m in ops]


class _NoStore:
    """Enough of a store to build the app and read its schema (nothing is opened)."""

    def close(self) -> None:
        pass


@pytest.mark.parametrize("operation", _operations())
def test_no_input_gives_a_server_error_or_a_half_write(service: Service, operation: str) -> None:
    spec = schemathesis.openapi.from_dict(service.app.openapi())
    method, path = operation.split(" ", 1)
    (op,) = [
        r.ok()
        for r in spec.get_all_operations()
        if r.ok().method.upper() == method and r.ok().path == path
    ]

    modes = schemathesis.GenerationMode
    strategy = op.as_strategy(modes.POSITIVE) | op.as_strategy(modes.NEGATIVE)

    @given(case=strategy)
    @settings(
        max_examples=16 if service.store.is_sqlite else 8,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: Any) -> None:
        _check(service, client, case)
        # the same request at the real league, with the admin key
        if case.path_parameters and "league" in case.path_parameters:
            case.path_parameters["league"] = "main"
        if case.path_parameters and "event" in case.path_parameters:
            case.path_parameters["event"] = "main"
        case.headers = {**(case.headers or {}), "X-API-Key": service.admin}
        _check(service, client, case)

    with TestClient(service.app, raise_server_exceptions=False) as client:
        run()
