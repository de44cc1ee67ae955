"""Large posts of matches prepared in worker processes, beside the database writer.

Preparing a post (strict JSON and field checks, :class:`~mindsport.match.Match` records, their
stored form and digests: :func:`mindsport.store.prepare_matches`) needs no database and costs
about as much interpreter time as the commit that follows. In one process the two take turns on
the interpreter lock, so a server on two cores used one of them. A :class:`PreparePool` prepares
large posts in worker processes while the store's writer commits earlier ones.

The pool speeds the server up and changes no answer:

* a post the worker refuses for its content (malformed JSON, a bad field) is refused with the
  errors the server's own parser gives (the worker runs that parser);
* anything else out of the ordinary (a worker that died, a refusal the store makes while
  preparing, such as one match id given twice with different data) sends the post back to the
  server, which parses and prepares it itself and answers as it would without a pool.

Workers are started with ``spawn`` (a fresh interpreter: nothing of the server's threads or
open database is inherited) and exit as soon as the server process is gone, so a server killed
with SIGKILL leaves no process behind.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from mindsport.errors import MindsportError
from mindsport.service.body import UnprocessableError, parse_matches
from mindsport.store import PreparedMatches, prepare_matches

__all__ = ["GC_THRESHOLD", "PREPARE_FROM_BYTES", "PreparePool", "default_workers", "start_worker"]

#: allocations between collections of the garbage collector's youngest generation in the server
#: process and its workers (default 700: a post allocates thousands of short-lived objects, and
#: with the default the collector took as long as the work itself)
GC_THRESHOLD = 50_000
#: smallest body sent to a worker (a smaller one costs less to parse than to send)
PREPARE_FROM_BYTES = 65_536
#: seconds between a worker's checks that the server process is still there
PARENT_CHECK_SECONDS = 0.5

_log = logging.getLogger(__name__)

# what a worker answers: (kind, value)
_PREPARED = "prepared"  # value: PreparedMatches
_REFUSED = "refused"  # value: the parser's list of errors (HTTP 422)
_IN_SERVER = "in-server"  # value: None; the server prepares the post itself


def default_workers() -> int:
    """Worker processes a server uses by default: one when the machine has more than one CPU
    (the writer and one worker keep two cores busy), none on a single CPU."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 1 if (cpus or 1) > 1 else 0


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)  # the server is gone: nothing is left to do, nothing to flush


def start_worker(parent: int) -> None:
    """A worker process's start: the collector's settings of the server, and a thread making
    it exit when the server process ``parent`` is gone."""
    gc.freeze()  # the modules imported so far live as long as the worker
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _ready() -> None:
    """A task that makes a worker start."""


def _prepare(body: bytes) -> tuple[str, Any]:
    """In a worker: the post ``body`` parsed and prepared, or why not (see the module)."""
    try:
        matches = parse_matches(body)
    except UnprocessableError as exc:
        return _REFUSED, exc.errors
    except Exception:  # the server's own parse raises it again, with its own status
        return _IN_SERVER, None
    try:
        return _PREPARED, prepare_matches(matches)
    except MindsportError:  # a refusal of the store: raised again by the server's own call
        return _IN_SERVER, None


class PreparePool:
    """``workers`` processes preparing posted bodies (:meth:`prepare`); they start with
    :meth:`start` (or at the first post) and stop with :meth:`close`."""

    def __init__(self, workers: int) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers: at least one worker process, got {workers!r}")
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        return self._executor

    def start(self) -> None:
        """Start the workers now (in the background) rather than at the first large post."""
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(_ready)

    async def prepare(self, body: bytes) -> PreparedMatches | None:
        """The post ``body`` prepared by a worker; :class:`UnprocessableError` (422) when the
        parser refuses it; ``None`` when the server must prepare it itself (see the module)."""
        pool = self._pool()
        loop = asyncio.get_running_loop()
        try:
            kind, value = await loop.run_in_executor(pool, _prepare, body)
        except BrokenProcessPool:  # a worker died: the next post gets a new pool
            _log.warning("a worker process preparing posts died; starting new ones")
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            return None
        if kind == _REFUSED:
            raise UnprocessableError(value)
        if kind == _PREPARED:
            return value
        return None

    def close(self) -> None:
        """Stop the workers (posts being prepared are finished first)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
