"""Worker processes of the server: how they start and the pool both kinds use.

:class:`WorkerPool` holds ``workers`` processes started with ``spawn`` (a fresh interpreter:
nothing of the server's threads or open database is inherited), each set up by
:func:`start_worker` (the server's garbage-collector settings, and exit as soon as the server
process is gone, so a server killed with SIGKILL leaves no process behind). A pool whose worker
died is replaced at the next task, and the task that found it dead is left to the server.
Subclasses: :class:`~mindsport.service.prepare.PreparePool` (large posts) and
:class:`~mindsport.service.computing.ComputePool` (matchmaking searches without a key).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["GC_THRESHOLD", "PARENT_CHECK_SECONDS", "WorkerPool", "default_workers", "start_worker"]

#: allocations between collections of the garbage collector's youngest generation in the server
#: process and its workers (default 700: a post allocates thousands of short-lived objects, and
#: with the default the collector took as long as the work itself)
GC_THRESHOLD = 50_000
#: seconds between a worker's checks that the server process is still there
PARENT_CHECK_SECONDS = 0.5

_log = logging.getLogger(__name__)


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


class WorkerPool:
    """``workers`` processes; they start with :meth:`start` (or at the first task) and stop
    with :meth:`close`. ``doing`` names their work in the log (``"preparing posts"``)."""

    doing = "working"

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
        """Start the workers now (in the background) rather than at the first task."""
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(_ready)

    async def run(self, task: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """``(True, task(*args))`` computed in a worker (its exceptions raised here), or
        ``(False, None)`` when a worker died (the next task gets new workers)."""
        pool = self._pool()
        loop = asyncio.get_running_loop()
        try:
            return True, await loop.run_in_executor(pool, task, *args)
        except BrokenProcessPool:
            _log.warning("a worker process %s died; starting new ones", self.doing)
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            return False, None

    def close(self) -> None:
        """Stop the workers (the tasks running are finished first)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
