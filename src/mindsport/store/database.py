"""The store's database: its URL, engines and connections, transactions, and the errors of a
database that cannot be used.

* URLs: a plain path is a SQLite file, ``postgresql://`` uses psycopg 3 (:func:`resolve_url`);
  messages name the database with its password hidden.
* SQLite: write transactions start with ``BEGIN IMMEDIATE`` (the write lock taken up front), WAL
  journaling with a busy timeout; the writes go through one connection of their own with a
  large page cache, which stays warm from one transaction to the next, queued by a FIFO lock
  (:class:`FifoLock`) that serves writer threads in arrival order; the WAL is checkpointed by a
  background thread (:mod:`mindsport.store.checkpoint`), not by the committing writer.
* ``synchronous=NORMAL`` is used with WAL: a committed transaction survives the process being
  killed (it is in the WAL file); only an operating-system crash or power loss can lose the
  last commits. Set ``MINDSPORT_SQLITE_SYNCHRONOUS=FULL`` for that too.
* PostgreSQL: a pool of connections, each tested with a ping when it is taken from the pool
  (``pool_pre_ping``): a connection the server dropped (a restart, an administrator ending its
  backend) is replaced before it is used instead of failing the request; writers to one league
  are serialised by the league's lock (:mod:`mindsport.store.league_lock`), not here.
* The hot path's reads (the key check) go straight through the driver on a connection of the
  calling thread (:meth:`Database.fetch`); statements are written once with ``?`` placeholders
  and ``JSON(?)`` for JSON given as text, and translated per driver (:meth:`Database.sql`).
* Faults: the driver's errors that say the database failed rather than the statement (a server
  down, refusing connections or gone, a SQLite file locked past the busy timeout, a full disk)
  leave :meth:`Database.write`, :meth:`Database.read` and :meth:`Database.fetch` as
  :class:`~mindsport.errors.DatabaseUnavailableError` or
  :class:`~mindsport.errors.StorageFullError` (:func:`fault_of`), the transaction rolled back.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from sqlalchemy import Connection, Engine, Integer, create_engine, event, literal, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from mindsport.errors import (
    DatabaseError,
    DatabaseFaultError,
    DatabaseUnavailableError,
    StorageFullError,
)
from mindsport.store.checkpoint import WAL_FLOOR_BYTES, Checkpointer
from mindsport.store.values import StoreError

__all__ = [
    "DEFAULT_DATABASE_URL",
    "FULL_DISK_BYTES",
    "SQLITE_BUSY_TIMEOUT_SECONDS",
    "SQLITE_CHECKPOINT_PAGES",
    "SQLITE_WRITER_CACHE_MIB",
    "Database",
    "FifoLock",
    "chunks",
    "cursor",
    "fault_of",
    "make_engine",
    "require_existing",
    "resolve_url",
    "shown_url",
    "unusable",
]

DEFAULT_DATABASE_URL = "sqlite:///./mindsport.db"
#: ids per statement of the reads that look up a list of ids (``IN (...)``)
_CHUNK = 500
#: SQLite pages (4 KiB) of write-ahead log past which it is checkpointed while writers wait, at
#: the most: the log's bound follows the database's size and its disk's free space (see
#: :mod:`mindsport.store.checkpoint`; below it checkpoints run beside the writers)
SQLITE_CHECKPOINT_PAGES = 16_384
#: page cache of the SQLite connection that writes, in MiB (SQLite's default is 2: a batch of
#: 1,000 matches among 500 players changes about 1,000 pages, its players' index pages among them)
SQLITE_WRITER_CACHE_MIB = 64
#: how long a SQLite statement waits for a lock another process holds before it fails
#: (``database is locked``: a :class:`~mindsport.errors.DatabaseUnavailableError`)
SQLITE_BUSY_TIMEOUT_SECONDS = 60.0
#: free bytes on the database's disk under which a SQLite I/O error is taken for a full disk
#: (SQLite reports some writes that found no space as ``disk I/O error``)
FULL_DISK_BYTES = 4 << 20
#: key of the after-commit callbacks in a write connection's ``info``
_AFTER_COMMIT = "mindsport_after_commit"
#: SQLite's primary result codes that are faults of the database, not of the statement
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 5, 6, 10, 13, 14
#: PostgreSQL's SQLSTATE of a full disk (``disk_full``)
_PG_DISK_FULL = "53100"


_FULL = "the database's disk is full: nothing of this request was written; retry later"


def _low_on_space(folder: str | None) -> bool:
    """Whether the disk of ``folder`` has less than :data:`FULL_DISK_BYTES` free."""
    if folder is None:
        return False
    try:
        return shutil.disk_usage(folder).free < FULL_DISK_BYTES
    except OSError:
        return False


def _is_driver_error(orig: BaseException, *names: str) -> bool:
    """Whether ``orig`` is an error of a DB-API driver's class named one of ``names`` (the
    drivers are optional: they are not imported here)."""
    return any(cls.__name__ in names for cls in type(orig).__mro__)


def fault_of(exc: BaseException, folder: str | None = None) -> DatabaseFaultError | None:
    """The fault ``exc`` reports (a driver error, raw or wrapped by SQLAlchemy, or an
    :class:`OSError`), or ``None`` when it is not a fault of the database (a statement's own
    error: a bug, raised as it is). ``folder``: the SQLite file's folder, whose free space tells
    a full disk behind an I/O error.

    * full: SQLite ``SQLITE_FULL``, PostgreSQL ``53100 disk_full``, ``ENOSPC``, ``EDQUOT``, a
      SQLite I/O error with less than :data:`FULL_DISK_BYTES` free;
    * unavailable: SQLite busy or locked past the busy timeout, an I/O error, a file that
      cannot be opened any more; PostgreSQL's operational errors (connection refused, lost or
      refused by the server: too many connections, the database not accepting connections,
      shutting down) and interface errors (a closed connection); no pooled connection free.

    >>> fault_of(OSError(errno.ENOSPC, "No space left on device")).__class__.__name__
    'StorageFullError'
    >>> fault_of(KeyError("x")) is None
    True
    """
    if isinstance(exc, DatabaseFaultError):
        return exc
    if isinstance(exc, PoolTimeoutError):
        return DatabaseUnavailableError(
            "the database is unavailable (every connection to it is in use); retry later"
        )
    orig: BaseException = exc
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        orig = exc.orig
    if isinstance(orig, OSError):
        if orig.errno in (errno.ENOSPC, errno.EDQUOT):
            return StorageFullError(_FULL)
        return None
    code = getattr(orig, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF
        if primary == _SQLITE_FULL or (primary == _SQLITE_IOERR and _low_on_space(folder)):
            return StorageFullError(_FULL)
        if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
            return DatabaseUnavailableError(
                "the database is unavailable (its file stayed locked by another program for "
                f"{SQLITE_BUSY_TIMEOUT_SECONDS:g} s); retry later"
            )
        if primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN):
            return DatabaseUnavailableError(
                "the database is unavailable (its file could not be read or written); retry later"
            )
        return None
    if getattr(orig, "sqlstate", None) == _PG_DISK_FULL:
        return StorageFullError(_FULL)
    if _is_driver_error(orig, "OperationalError", "InterfaceError") or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    ):
        return DatabaseUnavailableError(
            "the database is unavailable (its server cannot be reached, refused the connection "
            "or dropped it); retry later"
        )
    return None


def resolve_url(url: str | None = None) -> str:
    """The database URL to use: ``url``, else ``$MINDSPORT_DATABASE_URL``, else ``./mindsport.db``.

    A plain path becomes a SQLite URL; ``postgresql://`` without a driver uses psycopg 3.

    >>> resolve_url("data/x.db")
    'sqlite:///data/x.db'
    >>> resolve_url("postgres://u@h/db")
    'postgresql+psycopg://u@h/db'
    """
    if url is None:
        url = os.environ.get("MINDSPORT_DATABASE_URL") or DEFAULT_DATABASE_URL
    if "://" not in url:
        return f"sqlite:///{url}"
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def shown_url(url: str) -> str:
    """The database as named in messages: the SQLite file, or the URL without its password."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return repr(url)
    if parsed.get_backend_name() == "sqlite":
        return repr(parsed.database or url)
    return repr(parsed.render_as_string(hide_password=True))


def require_existing(url: str, shown: str) -> None:
    """Refuse a SQLite file that does not exist (a reading command must not create one)."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise unusable(shown, exc) from None
    file = parsed.database if parsed.get_backend_name() == "sqlite" else None
    if file not in (None, "", ":memory:") and not os.path.exists(str(file)):
        raise DatabaseError(
            f"database {shown} does not exist; pass --db (or set MINDSPORT_DATABASE_URL) "
            "to use another, or create it by adding matches: mindsport rate FILE"
        )


def unusable(shown: str, exc: Exception, url: str | None = None) -> DatabaseError:
    """``exc`` (raised while opening the database ``url``, named ``shown``) as a one-line
    :class:`DatabaseError` saying what is wrong and the fix: a full disk, no permission, not a
    database (SQLite); no server at the address, the login refused, no such database, the server
    refusing connections for now (PostgreSQL)."""
    if isinstance(exc, ImportError):
        return DatabaseError(
            f"database {shown}: its driver is not installed ({exc}); for PostgreSQL: "
            "pip install 'mindsport[postgres]'"
        )
    if isinstance(exc, ArgumentError):
        return DatabaseError(
            f"database {shown}: not a database URL ({exc}); give a SQLite file or "
            "postgresql://user:password@host:port/name"
        )
    orig: BaseException = exc
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        orig = exc.orig
    reason = " ".join(str(orig).split()) or type(orig).__name__
    parsed = None
    if url is not None:
        try:
            parsed = make_url(url)
        except ArgumentError:
            parsed = None
    if parsed is not None and parsed.get_backend_name() == "sqlite" and parsed.database:
        problem = _sqlite_problem(os.path.abspath(parsed.database), orig, reason)
    elif parsed is not None:
        problem = _server_problem(parsed, orig, reason)
    else:
        problem = None
    if problem is not None:
        return DatabaseError(f"database {shown}: {problem}")
    text = reason.lower()
    if "not a database" in text or "file is encrypted" in text:
        fix = "it is not a SQLite database file; check --db"
    elif "unable to open" in text or "readonly" in text or "read-only" in text:
        fix = "check that the path and its folder exist and are writable"
    elif "password" in text or "authentication" in text or "role" in text:
        fix = "check the user name and password in the URL"
    elif "does not exist" in text:
        fix = "create the database first (createdb) or check its name"
    else:
        fix = "check the URL and that the server is running and reachable"
    return DatabaseError(f"database {shown}: cannot be used: {reason} ({fix})")


#: SQLite's result codes the open path tells apart (besides those of :func:`fault_of`)
_SQLITE_READONLY, _SQLITE_NOTADB = 8, 26


def _sqlite_problem(file: str, orig: BaseException, reason: str) -> str | None:
    """What keeps the SQLite ``file`` from opening, and the fix (``None``: not known)."""
    folder = os.path.dirname(file)
    code = getattr(orig, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    no_space = isinstance(orig, OSError) and orig.errno in (errno.ENOSPC, errno.EDQUOT)
    if (
        no_space
        or primary == _SQLITE_FULL
        or (primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN) and _low_on_space(folder))
    ):
        try:
            free = f"{shutil.disk_usage(folder).free:,} bytes free"
        except OSError:
            free = "no space left"
        return (
            f"the disk of folder {folder!r} is full ({free}; SQLite said: {reason}); free "
            "space on that disk, then start again (what is committed is in the database and "
            "its -wal file: do not delete them)"
        )
    if primary == _SQLITE_NOTADB:
        return (
            f"{file!r} is not a SQLite database ({reason}); give the database's file with "
            "--db (or MINDSPORT_DATABASE_URL)"
        )
    if not os.path.isdir(folder):
        return f"folder {folder!r} does not exist; create it first, or give another path"
    if os.path.isdir(file):
        return f"{file!r} is a folder, not a database file ({reason}); give a file name"
    denied = isinstance(orig, PermissionError) or primary in (_SQLITE_READONLY, _SQLITE_CANTOPEN)
    if denied or primary == _SQLITE_IOERR:
        if os.path.exists(file) and not os.access(file, os.R_OK | os.W_OK):
            return (
                f"permission denied: this user cannot read and write {file!r} ({reason}); "
                "give it to the server's user (chown, chmod u+rw) or run the server as its owner"
            )
        if not os.access(folder, os.W_OK | os.X_OK):
            return (
                f"permission denied: this user cannot write in folder {folder!r} ({reason}); "
                "SQLite writes its -wal and -shm files beside the database: make the folder "
                "writable for the server's user"
            )
    if primary == _SQLITE_READONLY:
        return (
            f"{file!r} or its -wal or -shm file cannot be written ({reason}); check their "
            "owner and permissions, and that the disk is not mounted read-only"
        )
    if primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN):
        return (
            f"{file!r} cannot be read or written ({reason}); check the disk (dmesg), that "
            "the path and its -wal and -shm files are plain files, on a local disk"
        )
    return None


#: words of the driver's message when no server answers at the URL's address
_UNREACHABLE = (
    "connection refused",
    "could not translate host name",
    "name or service not known",
    "nodename nor servname",
    "no route to host",
    "timed out",
    "timeout expired",
    "network is unreachable",
    "no such file or directory",  # a Unix socket that is not there
)


#: words of the driver's message when the server answers but takes no connection for now
_REFUSING = (
    "too many connections",
    "not currently accepting connections",
    "the database system is starting up",
    "the database system is shutting down",
    "the database system is in recovery mode",
)


def _server_problem(parsed: Any, orig: BaseException, reason: str) -> str | None:
    """What keeps the database server of ``parsed`` (a URL) from being used, and the fix."""
    text = reason.lower()
    state = getattr(orig, "sqlstate", None)
    where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    if (
        state in ("28P01", "28000")
        or "password authentication failed" in text
        or ("pg_hba.conf" in text)
    ):
        return (
            f"the server at {where} refused the login of user {parsed.username!r} ({reason}); "
            "check the user name and password in the URL (and the server's pg_hba.conf)"
        )
    if state == "3D000" or ("database" in text and "does not exist" in text):
        return (
            f"the server at {where} has no database {parsed.database!r} ({reason}); create "
            f"it (createdb {parsed.database}) or check its name in the URL"
        )
    if state in ("53300", "55000", "57P03") or any(words in text for words in _REFUSING):
        return (
            f"the server at {where} refuses connections for now ({reason}); retry later, or "
            "ask its administrator (connection limits, the database closed to connections)"
        )
    if any(words in text for words in _UNREACHABLE):
        return (
            f"no database server answers at {where} ({reason}); check the host and port in "
            "the URL and that PostgreSQL is running and reachable from here"
        )
    return None


def make_engine(url: str, *, writer: bool = False) -> Engine:
    """An engine on ``url``; SQLite ``writer``: a pool of one connection with a page cache
    of :data:`SQLITE_WRITER_CACHE_MIB`. A server database's pooled connections are pinged
    when taken from the pool (a dropped one is replaced before it is used)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(
            url, pool_size=20, max_overflow=20, pool_recycle=1800, pool_pre_ping=True
        )
    if parsed.database in (None, "", ":memory:"):
        raise StoreError(f"database {url!r}: use a SQLite file, not an in-memory database")
    directory = os.path.dirname(os.path.abspath(parsed.database))
    if not os.path.isdir(directory):
        raise StoreError(
            f"database {parsed.database!r}: folder {directory!r} does not exist (create it first)"
        )
    engine = create_engine(
        url,
        pool_size=1 if writer else 8,
        max_overflow=0 if writer else 32,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS},
    )
    sync = os.environ.get("MINDSPORT_SQLITE_SYNCHRONOUS", "NORMAL").upper()
    if sync not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise StoreError(f"MINDSPORT_SQLITE_SYNCHRONOUS={sync!r}: use NORMAL or FULL")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (see _on_begin)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={round(SQLITE_BUSY_TIMEOUT_SECONDS * 1000)}")
        cur.execute(f"PRAGMA synchronous={sync}")
        cur.execute("PRAGMA foreign_keys=ON")
        # the writer leaves checkpoints to the store's checkpoint thread
        cur.execute(f"PRAGMA wal_autocheckpoint={0 if writer else SQLITE_CHECKPOINT_PAGES}")
        # after a checkpoint rewinds the log, its file is cut back to this size (a log bounded by
        # the free space must give that space back, see mindsport.store.checkpoint)
        cur.execute(
            f"PRAGMA journal_size_limit={min(SQLITE_CHECKPOINT_PAGES * 4096, WAL_FLOOR_BYTES)}"
        )
        if writer:
            cur.execute(f"PRAGMA cache_size=-{SQLITE_WRITER_CACHE_MIB * 1024}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("mindsport_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


class FifoLock:
    """A lock granted in arrival order (``threading.Lock`` lets late threads barge in)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next = 0
        self._serving = 0

    def __enter__(self) -> None:
        with self._cond:
            ticket = self._next
            self._next += 1
            while ticket != self._serving:
                self._cond.wait()

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._serving += 1
            self._cond.notify_all()


def cursor(conn: Connection) -> Any:
    """A driver cursor inside ``conn``'s transaction (for the hot path's statements)."""
    return conn.connection.driver_connection.cursor()  # type: ignore[union-attr]


def chunks(items: Sequence[Any], n: int = _CHUNK) -> Iterator[Sequence[Any]]:
    """``items`` in slices of at most ``n`` (the lists of ids one statement looks up)."""
    for i in range(0, len(items), n):
        yield items[i : i + n]


class Database:
    """The engines on ``url`` (raises :class:`sqlalchemy.exc.ArgumentError` or
    :class:`ImportError` for a URL it cannot use; see :func:`unusable`), the SQLite writer
    connection and its lock and checkpoint thread, and the transactions of the store."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        # SQLite: the writes go through one connection of their own, so its page cache stays
        # warm from one transaction to the next (a connection that another one wrote after
        # drops its whole cache when its next transaction starts)
        self.writer_engine = make_engine(url, writer=True) if self.is_sqlite else self.engine
        self.writer_lock: AbstractContextManager[Any] = (
            FifoLock() if self.is_sqlite else nullcontext()
        )
        self._checkpointer = (
            Checkpointer(
                self.engine.raw_connection,
                os.path.abspath(str(self.engine.url.database)),
                self.writer_lock,
                SQLITE_CHECKPOINT_PAGES * 4096,
            )
            if self.is_sqlite
            else None
        )
        #: the SQLite file's folder (its free space tells a full disk behind an I/O error)
        self.folder = (
            os.path.dirname(os.path.abspath(str(self.engine.url.database)))
            if self.is_sqlite
            else None
        )
        self._sql_cache: dict[str, str] = {}
        self._local = threading.local()
        self._readers: list[Any] = []  # the connections of fetch, one per thread
        self._readers_lock = threading.Lock()

    @contextmanager
    def faults(self) -> Iterator[None]:
        """Raise the database's faults met inside as :class:`~mindsport.errors.DatabaseFaultError`
        (:func:`fault_of`); every other error as it is."""
        try:
            yield
        except Exception as exc:
            fault = fault_of(exc, self.folder)
            if fault is None or fault is exc:
                raise
            raise fault from exc  # the driver's error kept as the cause (the service logs it)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction; what :meth:`after_commit` registers runs once it committed.
        A fault of the database rolls it back and raises
        :class:`~mindsport.errors.DatabaseFaultError`."""
        with self.faults(), self.writer_lock, self.writer_engine.connect() as conn:
            conn.execution_options(mindsport_write=True)
            after: list[Callable[[], None]] = []
            conn.info[_AFTER_COMMIT] = after
            try:
                with conn.begin():
                    yield conn
            finally:
                conn.info.pop(_AFTER_COMMIT, None)
            if self._checkpointer is not None:
                self._checkpointer.committed()
            for fn in after:
                fn()

    @staticmethod
    def after_commit(conn: Connection, fn: Callable[[], None]) -> None:
        """Run ``fn`` once the write transaction of ``conn`` has committed (never on rollback)."""
        conn.info[_AFTER_COMMIT].append(fn)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction (a fault of the database raises
        :class:`~mindsport.errors.DatabaseFaultError`)."""
        with self.faults(), self.engine.connect() as conn, conn.begin():
            yield conn

    def fetch(self, sql: str, args: Sequence[Any]) -> list[Any]:
        """The rows of one read statement (``?`` placeholders), straight through the driver on a
        connection of the calling thread in autocommit mode: the hot path's reads (the key
        check) skip the SQL toolkit's per-statement work and the pool. A connection that fails
        (the server restarted) is replaced once; a fault of the database raises
        :class:`~mindsport.errors.DatabaseFaultError`."""
        with self.faults():
            return self._fetch(sql, args)

    def _fetch(self, sql: str, args: Sequence[Any]) -> list[Any]:
        for attempt in (0, 1):
            raw = getattr(self._local, "raw", None)
            if raw is None:
                raw = self.engine.raw_connection()
                if not self.is_sqlite:
                    raw.driver_connection.autocommit = True  # type: ignore[union-attr]
                self._local.raw = raw
                with self._readers_lock:
                    self._readers.append(raw)
            try:
                cur = raw.cursor()
                cur.execute(self.sql(sql), tuple(args))
                rows = list(cur.fetchall())
                cur.close()
                return rows
            except self.engine.dialect.loaded_dbapi.OperationalError:
                self._local.raw = None
                with self._readers_lock:
                    self._readers.remove(raw)
                raw.invalidate()
                if attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def league_key(self, lid: int) -> Any:
        """The league id ``lid`` as a query looking rows up by a unique key under the league
        (a player, a match id) compares ``league_id`` with: on PostgreSQL a scalar subquery,
        whose value the planner cannot see, so that it uses the unique index even in a league
        its statistics do not know, where given the value it may read the league's whole
        leaderboard or log instead (:mod:`mindsport.store.league_lock`); on SQLite the value."""
        if self.is_sqlite:
            return lid
        return select(literal(lid, Integer)).scalar_subquery()

    def sql(self, text: str) -> str:
        """Driver SQL from ``text`` written with ``?`` placeholders and ``JSON(?)`` for a JSON
        value given as text (SQLite stores the text; PostgreSQL casts it)."""
        got = self._sql_cache.get(text)
        if got is None:
            if self.is_sqlite:
                got = text.replace("JSON(?)", "?")
            else:
                got = text.replace("JSON(?)", "CAST(%s AS JSON)").replace("?", "%s")
            self._sql_cache[text] = got
        return got

    def close(self) -> None:
        """Stop the checkpoint thread and release the connections."""
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for raw in readers:
            raw.invalidate()  # closed, not returned to the pool
        self.engine.dispose()
        self.writer_engine.dispose()
