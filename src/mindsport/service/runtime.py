"""What the routes of one app share while it runs: the store, a thread pool for its calls, the
slots bounding concurrent computations, and the worker processes preparing large posts.

:func:`mindsport.service.app.create_app` makes one :class:`Runtime` and keeps it on
``app.state.runtime``; routes reach it through :data:`mindsport.service.dependencies.RuntimeDep`.
The store brings its own writer threads and group commit (:meth:`Store.submit_matches`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

from mindsport.errors import MindsportError
from mindsport.service.limits import (
    ANONYMOUS_COMPUTE_QUEUE,
    ANONYMOUS_COMPUTE_SLOTS,
    COMPUTE_SLOTS,
    COMPUTE_WAIT_SECONDS,
)
from mindsport.service.prepare import PreparePool
from mindsport.store import Store

__all__ = ["IO_THREADS", "Runtime", "ServiceBusyError"]

T = TypeVar("T")

#: threads running store calls (key checks, reads, administration) off the event loop
IO_THREADS = 8


class ServiceBusyError(MindsportError):
    """Too many predictions or matchmaking searches are waiting (HTTP 429, retry later)."""


class Runtime:
    """The store (closed by :meth:`close` when ``owns_store``), a thread pool for its calls
    (:meth:`run`), :data:`~mindsport.service.limits.COMPUTE_SLOTS` computation slots for requests
    with a key and :data:`~mindsport.service.limits.ANONYMOUS_COMPUTE_SLOTS` for those without
    (:meth:`compute_slot`), and ``prepare``, the pool of worker processes preparing large posts
    of matches (``None``: they are parsed in the server). The thread pool and the slots are made
    on the running event loop, when first used."""

    def __init__(self, store: Store, prepare: PreparePool | None, *, owns_store: bool) -> None:
        self.store = store
        self.prepare = prepare
        self.owns_store = owns_store
        self._threads: ThreadPoolExecutor | None = None
        self._slots: asyncio.Semaphore | None = None
        self._anonymous: asyncio.Semaphore | None = None
        self._anonymous_pending = 0  # anonymous computations running or waiting
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
            limit = ANONYMOUS_COMPUTE_SLOTS + ANONYMOUS_COMPUTE_QUEUE
            if self._anonymous_pending >= limit:
                raise ServiceBusyError(
                    f"{limit} predictions or matchmaking searches without a key are running or "
                    "waiting, the most the server takes; retry later, or send a key "
                    "(X-API-Key) of the league"
                )
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
        self.store.start_catch_up()

    def close(self) -> None:
        """Stop the workers and the threads; close the store when the runtime opened it."""
        if self.prepare is not None:
            self.prepare.close()
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        if self.owns_store:
            self.store.close()
        else:
            self.store.stop_catch_up()
