"""Shared fixtures: a fresh database per test, SQLite always, PostgreSQL when configured.

PostgreSQL tests (marker ``postgres``) run when ``MINDSPORT_TEST_POSTGRES_URL`` is set, e.g.
``postgresql://mindsport:mindsport@127.0.0.1:5432/mindsport_test``; the tables of that database
are dropped before each test. The tests run on two processes (``pytest -n 2``, pytest-xdist);
each process has a database of its own (``mindsport_test_gw0``, ...; the user needs the
CREATEDB right, as the tests of a database made for one test do anyway).

Slow tests (marker ``slow``: a minute or more of one core, such as rebuilding every kernel in a
subprocess) run with ``--slow`` or when ``MINDSPORT_SLOW_TESTS=1`` (CI sets it, ``.ci/run``);
a local ``make test`` skips them and says so.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_ENV = "MINDSPORT_TEST_POSTGRES_URL"
PG_SKIP = f"PostgreSQL tests need {PG_ENV} (e.g. postgresql://user:pw@127.0.0.1/db)"
SLOW_ENV = "MINDSPORT_SLOW_TESTS"
SLOW_SKIP = f"slow test: run with --slow or {SLOW_ENV}=1 (CI does)"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow", action="store_true", help=f"also run the slow tests (or set {SLOW_ENV}=1)"
    )


#: a lock file held by each test that starts a local Ray cluster (marker ``ray_cluster``), so
#: that two test processes (``pytest -n 2``) do not start two clusters at once
RAY_LOCK = Path(tempfile.gettempdir()) / "mindsport-tests-ray.lock"


def pytest_configure(config: pytest.Config) -> None:
    """In a worker of a parallel run (``pytest -n 2``, pytest-xdist), the PostgreSQL tests use a
    database of their own (the configured one's name plus the worker's, made when missing), so
    that the workers never drop each other's tables."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and os.environ.get(PG_ENV):
        os.environ[PG_ENV] = _worker_database(os.environ[PG_ENV], worker)


def _worker_database(url: str, worker: str) -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from mindsport.store.database import resolve_url

    given = make_url(url)
    name = f"{given.database}_{worker}"
    admin = create_engine(resolve_url(url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            found = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
            if found.first() is None:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return given.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(autouse=True)
def _one_ray_cluster(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests marked ``ray_cluster`` run one at a time across test processes (:data:`RAY_LOCK`)."""
    if request.node.get_closest_marker("ray_cluster") is None:
        yield
        return
    with open(RAY_LOCK, "w") as lock:  # (closing the file releases the lock)
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked ``slow`` unless asked for (see the module docstring)."""
    if config.getoption("--slow") or os.environ.get(SLOW_ENV, "") not in ("", "0"):
        return
    skip = pytest.mark.skip(reason=SLOW_SKIP)
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _fresh_postgres() -> str:
    from sqlalchemy import create_engine, text

    from mindsport.store.database import resolve_url
    from mindsport.store.schema import metadata

    url = resolve_url(os.environ[PG_ENV])
    engine = create_engine(url)
    try:
        with engine.begin() as conn:  # with whatever constraints a test added
            for table in reversed(metadata.sorted_tables):
                conn.execute(text(f"DROP TABLE IF EXISTS {table.name} CASCADE"))
    finally:
        engine.dispose()
    return url


def fresh_database(kind: str, folder: Path) -> str:
    """A database URL with no mindsport tables: a SQLite file in ``folder`` (``kind``
    ``"sqlite"``), or the test PostgreSQL (``"postgres"``; the test is skipped without one)."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'ratings.db'}"
    if not os.environ.get(PG_ENV):
        pytest.skip(PG_SKIP)
    return _fresh_postgres()


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL with no mindsport tables: a SQLite file, or the test PostgreSQL."""
    yield fresh_database(request.param, tmp_path)


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def module_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """:func:`db_url` shared by the tests of one module."""
    return fresh_database(request.param, tmp_path_factory.mktemp("db"))


@pytest.fixture(params=[pytest.param("postgres", marks=pytest.mark.postgres)])
def pg_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The test PostgreSQL with no mindsport tables, for what only a database server has (the
    test is skipped without one)."""
    return fresh_database(request.param, tmp_path)


@pytest.fixture
def end_backends(pg_url: str):  # type: ignore[no-untyped-def]
    """``end_backends() -> n``: end every backend of :func:`pg_url`'s database but the caller's
    own (``pg_terminate_backend``: what a server restart does to its clients' connections)."""
    from sqlalchemy import create_engine, text

    def end() -> int:
        engine = create_engine(pg_url)
        try:
            with engine.begin() as conn:
                ended = conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                ).all()
            return len(ended)
        finally:
            engine.dispose()

    return end


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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say so when the PostgreSQL half of the store tests did not run."""
    skipped = terminalreporter.stats.get("skipped", [])
    if any(PG_SKIP in str(getattr(r, "longrepr", "")) for r in skipped):
        terminalreporter.write_line(f"mindsport store/service: {PG_SKIP}; they were skipped.")
    slow = sum(SLOW_SKIP in str(getattr(r, "longrepr", "")) for r in skipped)
    if slow:
        terminalreporter.write_line(f"mindsport: {slow} {SLOW_SKIP}; skipped.")
