"""Faults of the database answered as faults: a full disk is a JSON 507, a database unavailable
(PostgreSQL refusing connections, a SQLite file locked past the busy timeout) a JSON 503, both
with ``Retry-After``, never a 500; nothing of a refused post is written, and once the fault is
cleared the same posts are taken exactly once, with the ratings of an independent replay (the
``trueskill`` package).

How the faults are made without root:

* SQLite full: ``PRAGMA max_page_count`` set to the file's current size on the store's writing
  connection: SQLite's own ``SQLITE_FULL`` ("database or disk is full"), as from a full disk;
* PostgreSQL full: a trigger on the match log raising SQLSTATE ``53100 disk_full``, the error
  the server gives when it finds no space, through the same driver path;
* PostgreSQL unavailable: a database made for the test, its connections refused
  (``ALLOW_CONNECTIONS false``) and its backends ended, as a server going down;
* SQLite locked: another connection holding the write lock past a busy timeout made short.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from mindsport.history import Match
from mindsport.service import create_app
from mindsport.service.refusals import RETRY_FULL_SECONDS, RETRY_UNAVAILABLE_SECONDS
from mindsport.store import Store
from mindsport.store.database import resolve_url

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

PG_ENV = "MINDSPORT_TEST_POSTGRES_URL"


def _matches(start: int, n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"m{i}",
            "time": 1_700_000_000 + i,
            "teams": [[f"p{i % 13}"], [f"p{(i % 13 + 1 + i % 5) % 13}"]],
            "ranks": [i % 2, (i + 1) % 2],
        }
        for i in range(start, start + n)
    ]


def _as_match(m: dict[str, Any]) -> Match:
    return Match(m["id"], m["time"], m["teams"], m["ranks"])


def _assert_fault(r: Any, status: int, retry: int) -> None:
    assert r.status_code == status, r.text[:300]
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["retry-after"] == str(retry)
    body = r.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str)


def _assert_replay(store: Store, posted: list[dict[str, Any]], reference: Any) -> None:
    """Every posted match stored once, ratings equal to the ``trueskill`` package's replay."""
    assert store.match_count("main") == len(posted)
    want, _ = reference([_as_match(m) for m in posted])
    got = store.states("main")
    assert set(got) == set(want)
    for player, (mu, sigma) in want.items():
        assert got[player].mu == pytest.approx(mu, rel=1e-6, abs=1e-6)
        assert got[player].sigma == pytest.approx(sigma, rel=1e-6, abs=1e-6)


def _fill_disk(store: Store, url: str) -> Callable[[], None]:
    """Make the store's database full (see the module); returns what clears it."""
    if store.is_sqlite:
        writer = store._db.writer_engine  # the one connection that writes
        with writer.connect() as conn:
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
            conn.exec_driver_sql(f"PRAGMA max_page_count={pages}")

        def clear_sqlite() -> None:
            with writer.connect() as conn:
                conn.exec_driver_sql("PRAGMA max_page_count=1073741823")

        return clear_sqlite
    name = f"ms_full_{uuid.uuid4().hex[:8]}"
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'could not extend file: No space left on device' "
                "USING ERRCODE = 'disk_full'; END $$"
            )
        )
        conn.execute(
            text(f"CREATE TRIGGER {name} BEFORE INSERT ON ms_matches EXECUTE FUNCTION {name}()")
        )

    def clear_pg() -> None:
        with engine.begin() as conn:
            conn.execute(text(f"DROP TRIGGER {name} ON ms_matches"))
            conn.execute(text(f"DROP FUNCTION {name}()"))
        engine.dispose()

    return clear_pg


def test_a_full_disk_is_a_507_and_nothing_is_half_written(db_url: str, reference: Any) -> None:
    store = Store(db_url)
    store.create_league("main")
    key = store.create_key("main")
    head = {"X-API-Key": key}
    first, big, small = _matches(0, 40), _matches(40, 600), _matches(640, 50)
    try:
        with TestClient(create_app(store=store)) as client:
            assert client.post("/api/leagues/main/matches", json=first, headers=head).json() == {
                "added": 40,
                "duplicates": 0,
                "replayed": 0,
                "updating": False,
            }
            board = client.get("/api/leagues/main/leaderboard?limit=500").json()
            clear = _fill_disk(store, db_url)
            # a large post (its place held in the group commit, parsed on a thread) and a
            # small one (parsed where it is; each needs new pages), each failing inside the
            # writer thread: delivered through its future
            _assert_fault(
                client.post("/api/leagues/main/matches", json=big, headers=head),
                507,
                RETRY_FULL_SECONDS,
            )
            _assert_fault(
                client.post("/api/leagues/main/matches", json=small, headers=head),
                507,
                RETRY_FULL_SECONDS,
            )
            # concurrent posts committed together: each answered 507
            got: list[int] = []

            def post(i: int) -> None:
                r = client.post(
                    "/api/leagues/main/matches", json=_matches(700 + i, 50), headers=head
                )
                got.append(r.status_code)

            threads = [threading.Thread(target=post, args=(i * 50,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert got == [507] * 4
            # reads still answer, and nothing of the refused posts is there
            assert client.get("/api/leagues/main/leaderboard?limit=500").json() == board
            assert store.match_count("main") == 40
            clear()
            again = client.post("/api/leagues/main/matches", json=big + small, headers=head)
            assert again.json() == {"added": 650, "duplicates": 0, "replayed": 0, "updating": False}
            twice = client.post("/api/leagues/main/matches", json=big, headers=head)
            assert twice.json() == {"added": 0, "duplicates": 600, "replayed": 0, "updating": False}
        _assert_replay(store, first + big + small, reference)
    finally:
        store.close()


def test_a_sqlite_file_locked_past_the_busy_timeout_is_a_503(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, reference: Any
) -> None:
    import mindsport.store.database as database

    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT_SECONDS", 0.2)
    path = tmp_path / "league.db"
    store = Store(str(path))
    store.create_league("main")
    key = store.create_key("main")
    head = {"X-API-Key": key}
    try:
        with TestClient(create_app(store=store)) as client:
            other = sqlite3.connect(path, isolation_level=None)  # another program
            other.execute("BEGIN IMMEDIATE")
            r = client.post("/api/leagues/main/matches", json=_matches(0, 5), headers=head)
            _assert_fault(r, 503, RETRY_UNAVAILABLE_SECONDS)
            assert "locked" in r.json()["detail"]
            other.execute("ROLLBACK")
            other.close()
            r = client.post("/api/leagues/main/matches", json=_matches(0, 5), headers=head)
            assert r.json() == {"added": 5, "duplicates": 0, "replayed": 0, "updating": False}
        _assert_replay(store, _matches(0, 5), reference)
    finally:
        store.close()


@pytest.fixture
def outage_db() -> Iterator[tuple[str, Callable[[bool], None]]]:
    """``(url, refuse)``: a PostgreSQL database made for the test (dropped after it), and
    ``refuse(True)`` to end its connections and refuse new ones (``refuse(False)`` lets them in
    again)."""
    if not os.environ.get(PG_ENV):
        pytest.skip(f"PostgreSQL tests need {PG_ENV}")
    admin_url = resolve_url(os.environ[PG_ENV])
    name = f"ms_outage_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    url = admin_url.rsplit("/", 1)[0] + "/" + name

    def refuse(on: bool) -> None:
        with admin.connect() as conn:
            conn.execute(
                text(f"ALTER DATABASE {name} ALLOW_CONNECTIONS {'false' if on else 'true'}")
            )
            if on:
                conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :n AND pid <> pg_backend_pid()"
                    ),
                    {"n": name},
                )

    try:
        yield url, refuse
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


@pytest.mark.postgres
def test_postgresql_unavailable_is_a_503_on_every_route(
    outage_db: tuple[str, Callable[[bool], None]], reference: Any
) -> None:
    url, refuse = outage_db
    store = Store(url)
    store.create_league("main")
    key = store.create_key("main")
    admin = store.create_key(admin=True)
    head, admin_head = {"X-API-Key": key}, {"X-API-Key": admin}
    first, later = _matches(0, 30), _matches(30, 300)
    try:
        with TestClient(create_app(store=store)) as client:
            assert (
                client.post("/api/leagues/main/matches", json=first, headers=head).status_code
                == 200
            )
            refuse(True)
            requests: list[tuple[str, str, dict[str, Any] | None, dict[str, str]]] = [
                ("POST", "/api/leagues/main/matches", {"matches": later}, head),
                ("POST", "/api/leagues/main/matches", later[0], head),
                ("GET", "/api/leagues", None, {}),
                ("GET", "/api/leagues/main/leaderboard", None, {}),
                ("GET", "/api/leagues/main/players/p1", None, {}),
                ("POST", "/api/leagues/main/predict", {"teams": [["p1"], ["p2"]]}, {}),
                (
                    "POST",
                    "/api/leagues/main/matchmake",
                    {"players": ["p1", "p2"], "shape": "1v1"},
                    {},
                ),
                ("POST", "/api/leagues", {"name": "other"}, admin_head),
                ("PATCH", "/api/leagues/main", {"params": {"beta": 4.0}}, admin_head),
                ("GET", "/api/keys", None, admin_head),
                ("POST", "/api/keys", {"league": "main"}, admin_head),
                ("DELETE", "/api/keys/1", None, admin_head),
                ("GET", "/api/events", None, {}),
                ("GET", "/", None, {}),
                ("GET", "/?league=main", None, {}),
            ]
            for method, path, body, headers in requests:
                r = client.request(method, path, json=body, headers=headers)
                _assert_fault(r, 503, RETRY_UNAVAILABLE_SECONDS)
            refuse(False)
            r = client.post("/api/leagues/main/matches", json=later, headers=head)
            assert r.json() == {"added": 300, "duplicates": 0, "replayed": 0, "updating": False}
            r = client.post("/api/leagues/main/matches", json=first, headers=head)
            assert r.json() == {"added": 0, "duplicates": 30, "replayed": 0, "updating": False}
        _assert_replay(store, first + later, reference)
    finally:
        store.close()


def test_the_schema_documents_503_and_507_on_every_route(tmp_path: Any) -> None:
    with Store(str(tmp_path / "x.db")) as store:
        schema = create_app(store=store).openapi()
    operations = [op for path in schema["paths"].values() for op in path.values()]
    assert len(operations) > 20
    for op in operations:
        for code in ("503", "507"):
            answer = op["responses"][code]
            assert "Retry-After" in answer["headers"]
            assert answer["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorOut"
            }
