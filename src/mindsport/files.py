"""Writing a file whole or not at all: every file mindsport writes goes through
:func:`write_atomically` (a temporary file next to the target, flushed to disk, then moved into
place with ``os.replace``)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from mindsport.errors import file_error

__all__ = ["write_atomically"]


def write_atomically(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary path in the target's folder, then move it into place.

    Nothing is left half-written: on any error the temporary file is removed and the target is
    untouched. A file-system error is raised as :class:`~mindsport.errors.FileAccessError`
    naming the target.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise file_error(exc, target) from None
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise file_error(exc, target) from None
        raise
    return target
