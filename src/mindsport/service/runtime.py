"""What the routes of one app share while it runs: the store, a thread pool for its calls, the
slots bounding concurrent computations, and the worker processes preparing large posts.

:func:`mindsport.service.app.create_app` makes one :class:`Runtime` and keeps it on
``app.state.runtime``; routes reach it through :data:`mindsport.service.dependencies.RuntimeDep`.
The store brings its own writer threads and group commit (:meth:`Store.submit_matches`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

from mindsport.errors import MindsportError
from mindsport.forecast import Seating, seat_players
from mindsport.matchmaking import Pairing
from mindsport.service.computing import ComputePool
from mindsport.service.limits import (
    ANONYMOUS_COMPUTE_QUEUE,
    ANONYMOUS_COMPUTE_SLOTS,
    ANONYMOUS_CPU_BURST,
    ANONYMOUS_CPU_SHARE,
    COMPUTE_SECONDS,
    COMPUTE_SLOTS,
    COMPUTE_WAIT_SECONDS,
)
from mindsport.service.prepare import PreparePool
from mindsport.store import Store

__all__ = ["IO_THREADS", "CpuBudget", "Runtime", "ServiceBusyError"]

T = TypeVar("T")

#: threads running store calls (key checks, reads, administration) off the event loop
IO_THREADS = 8


class ServiceBusyError(MindsportError):
    """Too many predictions or matchmaking searches are waiting, or the CPU budget of those
    without a key is spent (HTTP 429, retry after ``retry_after`` seconds)."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CpuBudget:
    """A token bucket of CPU seconds: ``share`` seconds flow in per second of the ``clock``, at
    most ``burst`` are held; a computation starts when the balance is not negative
    (:meth:`delay`) and its CPU time is taken from it when it ends (:meth:`charge`: the balance
    may go below zero by what one computation took, the next waits until it is paid back)."""

    def __init__(
        self, share: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not (0 < share <= 64 and 0 < burst <= 3600):
            raise ValueError(f"a CPU budget of {share!r} s/s holding {burst!r} s: out of range")
        self.share = share
        self.burst = burst
        self._clock = clock
        self._balance = burst
        self._at = clock()

    def balance(self) -> float:
        """CPU seconds available now (negative: owed)."""
        now = self._clock()
        self._balance = min(self.burst, self._balance + (now - self._at) * self.share)
        self._at = now
        return self._balance

    def delay(self) -> float:
        """Seconds until the balance is no longer negative (0: now)."""
        balance = self.balance()
        return 0.0 if balance >= 0 else -balance / self.share

    def charge(self, seconds: float) -> None:
        """Take ``seconds`` of CPU time a computation used."""
        self.balance()
        self._balance -= max(0.0, seconds)


class Runtime:
    """The store (closed by :meth:`close` when ``owns_store``), a thread pool for its calls
    (:meth:`run`), :data:`~mindsport.service.limits.COMPUTE_SLOTS` computation slots for requests
    with a key and :data:`~mindsport.service.limits.ANONYMOUS_COMPUTE_SLOTS` for those without
    (:meth:`compute_slot`), and ``prepare``, the pool of worker processes preparing large posts
    of matches (``None``: they are parsed in the server), and ``computing``, the worker process
    of matchmaking searches without a key (``None``: they run on a thread of the server). The
    thread pool and the slots are made on the running event loop, when first used."""

    def __init__(
        self,
        store: Store,
        prepare: PreparePool | None,
        *,
        owns_store: bool,
        computing: ComputePool | None = None,
    ) -> None:
        self.store = store
        self.prepare = prepare
        self.computing = computing
        self.owns_store = owns_store
        self._threads: ThreadPoolExecutor | None = None
        self._slots: asyncio.Semaphore | None = None
        self._anonymous: asyncio.Semaphore | None = None
        self._anonymous_pending = 0  # anonymous computations running or waiting
        self.anonymous_cpu = CpuBudget(ANONYMOUS_CPU_SHARE, ANONYMOUS_CPU_BURST)
        self._loop: asyncio.AbstractEventLoop | None = None

    def _bind(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._slots = asyncio.Semaphore(COMPUTE_SLOTS)
            self._anonymous = asyncio.Semaphore(ANONYMOUS_COMPUTE_SLOTS)
            self._anonymous_pending = 0
        if self._threads is None:
            self._threads = ThreadPoolExecutor(IO_THREADS, thread_name_prefix="mindsport-io")
        return loop

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a worker thread."""
        loop = self._bind()
        return await loop.run_in_executor(self._threads, partial(fn, *args))

    async def compute(self, fn: Callable[[], T], *, anonymous: bool) -> T:
        """``fn()`` (a prediction) on a worker thread, in a computation slot
        (:meth:`compute_slot`); ``anonymous``: within the anonymous CPU budget
        (:meth:`_budgeted`)."""
        async with self._budgeted(anonymous) as spent:
            return await self.run(_timed, fn, spent)

    async def matchmake(self, read: Callable[[], Seating], *, anonymous: bool) -> Pairing:
        """The seating of the matchmaking search ``read()`` reads from the store (on a worker
        thread), searched until :data:`~mindsport.service.limits.COMPUTE_SECONDS` after its slot
        was given: ``anonymous``, within the anonymous CPU budget (:meth:`_budgeted`) and in
        the worker process of ``computing`` when there is one (the same seating,
        :mod:`mindsport.service.computing`); else on a worker thread."""
        async with self._budgeted(anonymous) as spent:
            deadline = time.monotonic() + COMPUTE_SECONDS
            task = await self.run(_timed, read, spent)
            if anonymous and self.computing is not None:
                done = await self.computing.seat(task, max(0.0, deadline - time.monotonic()))
                if done is not None:
                    spent.append(done[0])
                    return done[1]
            return await self.run(_timed, partial(seat_players, task, deadline), spent)

    def admit_anonymous(self) -> None:
        """:class:`ServiceBusyError` when a computation without a key would be refused now (its
        queue full, or its CPU budget overdrawn beyond the longest wait): checked before the
        request's body is read, so that a client looping on refusals costs the server little;
        :meth:`compute_slot` and :meth:`_budgeted` check again."""
        self._bind()
        self._queue_check()
        self._budget_check()

    def _queue_check(self) -> None:
        limit = ANONYMOUS_COMPUTE_SLOTS + ANONYMOUS_COMPUTE_QUEUE
        if self._anonymous_pending >= limit:
            raise ServiceBusyError(
                f"{limit} predictions or matchmaking searches without a key are running or "
                "waiting, the most the server takes; retry later, or send a key "
                "(X-API-Key) of the league"
            )

    def _budget_check(self) -> float:
        """The seconds until the anonymous CPU budget is no longer overdrawn;
        :class:`ServiceBusyError` when that is longer than the longest wait."""
        wait = self.anonymous_cpu.delay()
        if wait > COMPUTE_WAIT_SECONDS:
            raise ServiceBusyError(
                "predictions and matchmaking without a key have used their share of the "
                f"server's CPU time; retry in {math.ceil(wait)} s, or send a key (X-API-Key) "
                "of the league",
                retry_after=math.ceil(wait),
            )
        return wait

    @asynccontextmanager
    async def _budgeted(self, anonymous: bool) -> AsyncIterator[list[float]]:
        """A computation slot (:meth:`compute_slot`); ``anonymous``: once the anonymous CPU
        budget (:data:`~mindsport.service.limits.ANONYMOUS_CPU_SHARE`) is not overdrawn,
        waited for at most :data:`~mindsport.service.limits.COMPUTE_WAIT_SECONDS` (else
        :class:`ServiceBusyError` with the seconds to wait), and charged the CPU seconds the
        body appends to the list it is given."""
        spent: list[float] = []
        async with self.compute_slot(anonymous=anonymous):
            if not anonymous:
                yield spent
                return
            budget = self.anonymous_cpu
            wait = self._budget_check()
            while wait > 0:
                await asyncio.sleep(wait)
                wait = budget.delay()
            try:
                yield spent
            finally:
                budget.charge(sum(spent))

    @asynccontextmanager
    async def compute_slot(self, *, anonymous: bool = False) -> AsyncIterator[None]:
        """One of the computation slots, waited for at most
        :data:`~mindsport.service.limits.COMPUTE_WAIT_SECONDS` (then :class:`ServiceBusyError`).

        ``anonymous`` (a request without a key): one of the anonymous slots instead, apart from
        the others so that anonymous loops never take the slots of key holders; refused at once
        when :data:`~mindsport.service.limits.ANONYMOUS_COMPUTE_QUEUE` anonymous requests are
        waiting already."""
        self._bind()
        if anonymous:
            self._queue_check()
            self._anonymous_pending += 1
            try:
                async with self._slot(self._anonymous):
                    yield
            finally:
                self._anonymous_pending -= 1
        else:
            async with self._slot(self._slots):
                yield

    @asynccontextmanager
    async def _slot(self, slots: asyncio.Semaphore | None) -> AsyncIterator[None]:
        assert slots is not None
        try:
            await asyncio.wait_for(slots.acquire(), COMPUTE_WAIT_SECONDS)
        except TimeoutError:
            raise ServiceBusyError(
                "the server is busy with other predictions or matchmaking; retry in a moment"
            ) from None
        try:
            yield
        finally:
            slots.release()

    def start(self) -> None:
        """Start the worker processes (in the background) rather than at the first large post,
        and the store's catch-up thread: a late result's long re-rating runs in the background,
        in bounded pieces, never inside a request (:mod:`mindsport.store.catchup`)."""
        if self.prepare is not None:
            self.prepare.start()
        if self.computing is not None:
            self.computing.start()
        self.store.start_catch_up()

    def close(self) -> None:
        """Stop the workers and the threads; close the store when the runtime opened it."""
        if self.prepare is not None:
            self.prepare.close()
        if self.computing is not None:
            self.computing.close()
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        if self.owns_store:
            self.store.close()
        else:
            self.store.stop_catch_up()


def _timed(fn: Callable[[], T], spent: list[float]) -> T:
    """``fn()``, the CPU time of this thread it took appended to ``spent`` (also when it
    raises)."""
    t0 = time.thread_time()
    try:
        return fn()
    finally:
        spent.append(time.thread_time() - t0)
