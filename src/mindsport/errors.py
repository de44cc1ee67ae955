"""Error types shared by every part of mindsport.

Two families, told apart by their base class:

* :class:`MindsportError` (a :class:`ValueError`): the input is wrong. The message names the
  offending input (a file and line, an option, a database) and, where one exists, the fix. The
  command line prints it as one line and exits with status 2; the HTTP service answers 4xx.
* :class:`InternalError` (a :class:`RuntimeError`, never a ``ValueError``): mindsport itself
  failed (a broken invariant, an iteration that did not converge). The command line prints the
  traceback and asks for a report (status 70); the HTTP service answers 500.

A :class:`DatabaseFaultError` (a :class:`DatabaseError`) is neither: the database failed for a
while (unavailable, locked, out of space), the input may be fine. The store raises one in place
of its driver's error, with the transaction rolled back; the command line prints it as one line,
the HTTP service answers 503 (:class:`DatabaseUnavailableError`) or 507
(:class:`StorageFullError`) with a ``Retry-After`` header.
"""

from __future__ import annotations

import errno
import os

__all__ = [
    "ConflictError",
    "DatabaseError",
    "DatabaseFaultError",
    "DatabaseUnavailableError",
    "FileAccessError",
    "InternalError",
    "MindsportError",
    "NotFoundError",
    "StorageFullError",
    "file_error",
]


class MindsportError(ValueError):
    """Base class of every error raised on bad input."""


class NotFoundError(MindsportError, LookupError):
    """A named thing (player, league, file, database) does not exist."""


class ConflictError(MindsportError):
    """The input contradicts what is already recorded (e.g. a match id reused with other data)."""


class FileAccessError(MindsportError):
    """A file or folder named by the user cannot be read or written (missing, a folder where a
    file is expected, no permission, a read-only or full file system)."""


class DatabaseError(MindsportError):
    """A database named by the user cannot be used: unreachable, refused the login, not a
    database, or not a mindsport database."""


class DatabaseFaultError(DatabaseError):
    """The database failed, not the request: what was being written is rolled back and the same
    request may succeed later (see the module)."""


class DatabaseUnavailableError(DatabaseFaultError):
    """The database cannot be reached or used for now: the server is down or refuses
    connections, the connection was lost, the SQLite file stayed locked by another process past
    the busy timeout, or the disk failed to read or write."""


class StorageFullError(DatabaseFaultError):
    """The database is out of space: the disk (or the database server's disk) is full."""


class InternalError(RuntimeError):
    """mindsport failed on valid input: a bug to report, not a mistake of the user."""


_HINTS = {
    errno.ENOENT: "check the path; its folder must exist",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder; give a file name",
    errno.EACCES: "no permission; choose a writable place",
    errno.EPERM: "not permitted here; choose another place",
    errno.EROFS: "read-only file system; choose a writable place",
    errno.ENOSPC: "the disk is full",
    errno.EEXIST: "it exists already",
}


def file_error(exc: OSError, path: str | os.PathLike[str] | None = None) -> FileAccessError:
    """``exc`` (an :class:`OSError` of the file system) as a :class:`FileAccessError` naming the
    path and a fix.

    >>> str(file_error(FileNotFoundError(2, "No such file or directory", "/x/y.jsonl")))
    '/x/y.jsonl: no such file or directory (check the path; its folder must exist)'
    """
    name = path if path is not None else exc.filename
    what = (exc.strerror or str(exc)).lower()
    hint = _HINTS.get(exc.errno or 0)
    text = f"{os.fspath(name)}: {what}" if name is not None else what
    return FileAccessError(f"{text} ({hint})" if hint else text)
