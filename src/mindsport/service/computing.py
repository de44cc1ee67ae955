"""Matchmaking searches of requests without a key, in a worker process.

A search is the costliest computation the service does (up to
:data:`~mindsport.service.limits.COMPUTE_SECONDS`): run on a thread of the server it takes the
server's interpreter from the writers for as long as it runs, whatever the CPU budget allows on
average. A :class:`ComputePool` runs it in a worker process instead, fed with values (the
:class:`~mindsport.forecast.Seating` the server read from the store, never a store), and gives
back the seating :func:`~mindsport.forecast.seat_players` finds, the same as in the server, with
the CPU time it took (charged to the anonymous budget by the caller).

Workers are started with ``spawn`` and exit when the server process is gone (as those of
:mod:`mindsport.service.prepare`); a worker that died makes the search run in the server.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from mindsport.forecast import Seating, seat_players
from mindsport.matchmaking import Pairing
from mindsport.service.prepare import start_worker

__all__ = ["ComputePool"]

_log = logging.getLogger(__name__)


def _seat(task: Seating, seconds: float | None) -> tuple[float, Pairing]:
    """In a worker: the CPU time the search for ``task`` (of at most ``seconds`` from its start
    here) took, and its seating."""
    t0 = time.thread_time()
    plan = seat_players(task, None if seconds is None else time.monotonic() + seconds)
    return time.thread_time() - t0, plan


def _ready() -> None:
    """A task that makes a worker start."""


class ComputePool:
    """``workers`` processes running matchmaking searches (:meth:`seat`); they start with
    :meth:`start` (or at the first search) and stop with :meth:`close`."""

    def __init__(self, workers: int = 1) -> None:
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
        """Start the workers now (in the background) rather than at the first search."""
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(_ready)

    async def seat(self, task: Seating, seconds: float | None) -> tuple[float, Pairing] | None:
        """The CPU time and the seating of the search for ``task`` in a worker, searching for at
        most ``seconds`` from when the worker takes it (the time a worker takes to start is not
        the search's); its refusals (such as a quality that is not a number) are raised here;
        ``None`` when the worker died (the caller searches itself)."""
        pool = self._pool()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, _seat, task, seconds)
        except BrokenProcessPool:  # the next search gets a new pool
            _log.warning("a worker process of matchmaking searches died; starting new ones")
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            return None

    def close(self) -> None:
        """Stop the workers (a search running is finished first)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
