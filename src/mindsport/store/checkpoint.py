"""Checkpoints of a SQLite write-ahead log in a background thread, so that no commit pays one.

In WAL mode a commit appends the pages it changed to the log; a checkpoint copies them back into
the database file. SQLite's automatic checkpoint runs inside the commit that crosses its
threshold, and that writer, with every writer queued behind it, waits for the copy: with a large
threshold a rare long stall (a single match waited 120 ms behind a 64 MiB copy), with a small
one frequent short ones. The store's writing connection therefore has automatic checkpoints off,
and a :class:`Checkpointer` thread does them:

* after commits, at most once every :data:`PASSIVE_EVERY_SECONDS`, a PASSIVE checkpoint on its
  own connection copies what is committed, without blocking writers or readers;
* SQLite rewinds the log only when a writer starts after a complete checkpoint, which a steady
  stream of writers never leaves time for; so after a commit that leaves the log file larger
  than ``max_bytes`` the thread checkpoints at once, then takes the store's writer lock (no
  write is then in progress) and checkpoints what is left, a commit or two: the next writer
  starts the log from its beginning, and SQLite cuts the file back to its
  ``journal_size_limit``. The log stays within a few commits of ``max_bytes``.

A failed checkpoint loses nothing (the pages stay in the log) and is tried again after the next
commit.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

__all__ = [
    "PASSIVE_EVERY_SECONDS",
    "WAL_DATABASE_FRACTION",
    "WAL_FLOOR_BYTES",
    "WAL_FREE_FRACTION",
    "WAL_MIN_BYTES",
    "Checkpointer",
    "wal_bound",
]

#: shortest time between two background checkpoints, in seconds
PASSIVE_EVERY_SECONDS = 0.1
#: the log may grow to this fraction of the database file's size before writers wait for a
#: checkpoint that rewinds it ...
WAL_DATABASE_FRACTION = 0.5
#: ... or to this many bytes, whichever is larger (a small database's log is not checkpointed
#: under the writers' lock every few commits)
WAL_MIN_BYTES = 4 << 20
#: ... but never to more than this fraction of the free space on the database's disk
WAL_FREE_FRACTION = 0.25
#: the smallest bound, whatever the free space
WAL_FLOOR_BYTES = 256 << 10


def wal_bound(database_bytes: int, free_bytes: int, max_bytes: int) -> int:
    """The size past which the log of a database of ``database_bytes`` on a disk with
    ``free_bytes`` free is checkpointed while writers wait (see the module).

    >>> wal_bound(1_800_000, 18_000_000, 64 << 20)  # 1.8 MB database, 18 MB free
    4194304
    >>> wal_bound(1_800_000, 6_000_000, 64 << 20)  # the disk fills: a quarter of what is left
    1500000
    >>> wal_bound(400 << 20, 10 << 30, 64 << 20)  # a large database: at most max_bytes
    67108864
    """
    relative = max(WAL_MIN_BYTES, int(WAL_DATABASE_FRACTION * database_bytes))
    room = int(WAL_FREE_FRACTION * free_bytes)
    return min(max_bytes, max(WAL_FLOOR_BYTES, min(relative, room)))


_log = logging.getLogger(__name__)


class Checkpointer:
    """Checkpoints the log of the database file ``path`` through connections made by
    ``connect`` (each a DB-API connection to the database, closed with ``close()``);
    ``writer_lock`` is the lock the store's writers hold; past the log's bound
    (:func:`wal_bound`, at most ``max_bytes``) the checkpoint is made under it."""

    def __init__(
        self,
        connect: Callable[[], Any],
        path: str,
        writer_lock: AbstractContextManager[Any],
        max_bytes: int,
    ) -> None:
        self._connect = connect
        self._path = path
        self._wal_path = f"{path}-wal"
        self._writer_lock = writer_lock
        self._max_bytes = max_bytes
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mindsport-checkpoint", daemon=True)
        self._thread.start()

    def committed(self) -> None:
        """A write transaction committed: checkpoint soon."""
        self._wake.set()

    def close(self) -> None:
        """Stop the thread (a checkpoint in progress is finished first)."""
        self._stopping.set()
        self._wake.set()
        self._thread.join()

    def _log_bytes(self) -> int:
        try:
            return os.path.getsize(self._wal_path)
        except OSError:
            return 0

    def _over_bound(self) -> bool:
        """Whether the log is larger than its bound (:func:`wal_bound`)."""
        log = self._log_bytes()
        if log <= min(WAL_FLOOR_BYTES, self._max_bytes):
            return False
        try:
            database = os.path.getsize(self._path)
            free = shutil.disk_usage(os.path.dirname(self._path)).free
        except OSError:
            return log > self._max_bytes
        return log > wal_bound(database, free, self._max_bytes)

    def _run(self) -> None:
        conn = None
        pending = False  # commits since the last checkpoint
        last = -PASSIVE_EVERY_SECONDS  # when the last checkpoint ended
        while True:
            wait = None if not pending else last + PASSIVE_EVERY_SECONDS - time.monotonic()
            if self._wake.wait(None if wait is None else max(0.0, wait)):
                self._wake.clear()
                pending = True
            if self._stopping.is_set():
                break
            try:
                if conn is None:
                    conn = self._connect()
                if self._over_bound():
                    self._checkpoint(conn)  # most of it beside the writers,
                    with self._writer_lock:  # the rest while they wait
                        self._checkpoint(conn)
                elif not pending or time.monotonic() < last + PASSIVE_EVERY_SECONDS:
                    continue
                else:
                    self._checkpoint(conn)
            except Exception as exc:  # the pages stay in the log; tried again later
                _log.warning("checkpoint of %s failed: %s", self._wal_path, exc)
                if conn is not None:
                    conn.close()
                    conn = None
            pending = False
            last = time.monotonic()
        if conn is not None:
            conn.close()

    @staticmethod
    def _checkpoint(conn: Any) -> None:
        cur = conn.cursor()
        try:
            cur.execute("PRAGMA wal_checkpoint(PASSIVE)")
            cur.fetchall()
        finally:
            cur.close()
