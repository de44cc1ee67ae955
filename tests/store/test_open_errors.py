"""Opening a database that cannot be used: the message tells each cause apart, names the file or
the server (never the password) and says the fix.

Made for real: a file that is not a database, a folder given as the file, a missing folder, a
SQLite I/O error (a folder where SQLite's ``-wal`` file goes), no server at an address, a
password refused, a missing database, a database closed to connections. Simulated (the tests
run as root, and without a small volume to fill): a full disk, by
:func:`shutil.disk_usage` reporting the database's disk full when that same real I/O error
happens; a permission refused, by :func:`os.access` refusing when the tests run as root (a
real ``chmod`` otherwise).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from mindsport.errors import DatabaseError, MindsportError
from mindsport.store import Store
from mindsport.store.database import resolve_url

PG_ENV = "MINDSPORT_TEST_POSTGRES_URL"


def _refused(url: str) -> str:
    with pytest.raises(MindsportError) as got:
        Store(url)
    message = str(got.value)
    assert "\n" not in message
    return message


def _io_error_at(tmp_path: Path) -> Path:
    """A database whose opening meets a real SQLite ``disk I/O error`` (its ``-wal`` file is
    a folder)."""
    db = tmp_path / "league.db"
    Path(f"{db}-wal").mkdir()
    return db


def test_not_a_database(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_bytes(b"these are my notes, not a database" * 100)
    message = _refused(str(db))
    assert f"{str(db)!r} is not a SQLite database" in message
    assert "--db" in message


def test_a_folder_given_as_the_file(tmp_path: Path) -> None:
    message = _refused(str(tmp_path))
    assert f"{str(tmp_path)!r} is a folder, not a database file" in message


def test_a_missing_folder(tmp_path: Path) -> None:
    db = tmp_path / "nowhere" / "league.db"
    message = _refused(str(db))
    assert repr(str(tmp_path / "nowhere")) in message
    assert "does not exist" in message and "create it first" in message


def test_an_io_error_is_not_taken_for_a_full_disk(tmp_path: Path) -> None:
    db = _io_error_at(tmp_path)
    message = _refused(str(db))
    assert "disk I/O error" in message
    assert "cannot be read or written" in message
    assert "full" not in message and "check the URL" not in message


def test_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _io_error_at(tmp_path)
    real = shutil.disk_usage

    def disk_usage(path: str | Path) -> Any:
        usage = real(path)
        if Path(path) == tmp_path:  # the database's disk has 12 KiB left
            return usage._replace(used=usage.total - 12_288, free=12_288)
        return usage

    monkeypatch.setattr(shutil, "disk_usage", disk_usage)
    message = _refused(str(db))
    assert f"the disk of folder {str(tmp_path)!r} is full (12,288 bytes free" in message
    assert "disk I/O error" in message and "free space on that disk" in message
    assert "check the URL" not in message


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "league.db"
    Store(str(db)).close()
    if os.geteuid() == 0:  # root may read and write anything: the check is told otherwise
        Path(f"{db}-wal").unlink(missing_ok=True)
        Path(f"{db}-wal").mkdir()  # an open that fails (a real I/O error) ...
        real = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode: False if str(p) == str(db) else real(p, mode)
        )
    else:
        db.chmod(0)
    try:
        message = _refused(str(db))
    finally:
        db.chmod(0o600)
    assert f"permission denied: this user cannot read and write {str(db)!r}" in message
    assert "chmod" in message


@pytest.mark.postgres
def test_no_server_at_the_address() -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    message = _refused(f"postgresql://someone:s3cret-pw@127.0.0.1:{port}/league")
    assert f"no database server answers at 127.0.0.1:{port}" in message
    assert "Connection refused" in message and "check the host and port" in message
    assert "s3cret-pw" not in message and "***" in message


def _pg() -> Any:
    if not os.environ.get(PG_ENV):
        pytest.skip(f"PostgreSQL tests need {PG_ENV}")
    return create_engine(resolve_url(os.environ[PG_ENV])).url


@pytest.mark.postgres
def test_the_login_refused() -> None:
    url = _pg().set(password="not-the-password")
    message = _refused(url.render_as_string(hide_password=False))
    assert f"refused the login of user {url.username!r}" in message
    assert "password authentication failed" in message
    assert "not-the-password" not in message


@pytest.mark.postgres
def test_no_such_database() -> None:
    url = _pg().set(database=f"ms_missing_{uuid.uuid4().hex[:8]}")
    message = _refused(url.render_as_string(hide_password=False))
    assert f"has no database {url.database!r}" in message
    assert f"createdb {url.database}" in message


@pytest.mark.postgres
def test_a_database_closed_to_connections() -> None:
    base = _pg()
    name = f"ms_closed_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
        conn.execute(text(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false"))
    try:
        message = _refused(base.set(database=name).render_as_string(hide_password=False))
        assert "refuses connections for now" in message and "retry later" in message
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE {name}"))
        admin.dispose()


def test_the_error_is_a_database_error(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_bytes(b"x" * 4096)
    with pytest.raises(DatabaseError):
        Store(str(db))
