"""Executors: run a list of independent tasks serially, on local processes or on a Ray cluster.

Every simulation command hands its work to one :class:`Executor` as a list of picklable tasks
and a top-level function; :meth:`Executor.map` returns the results *in task order*. Tasks carry
their own seeds (derived from one seed by :func:`task_seed`, i.e. ``numpy.random.SeedSequence``
spawn keys), so the results are identical whatever the executor and the number of workers.

* :class:`SerialExecutor`: in this process (tests, one core);
* :class:`ProcessExecutor`: local worker processes (``concurrent.futures``; ``fork`` where
  available, after an optional warm-up in the parent so compiled kernels are shared);
* :class:`RayExecutor`: Ray tasks, on a local Ray instance or a cluster (``address``); Ray is
  imported only when this executor is created (``pip install 'mindsport[ray]'``).

>>> with make_executor("serial") as ex:
...     ex.map(abs, [-1, 2, -3])
[1, 2, 3]
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar

import numpy as np

from mindsport.tournament.errors import TournamentError

__all__ = [
    "EXECUTOR_KINDS",
    "Executor",
    "ProcessExecutor",
    "RayExecutor",
    "SerialExecutor",
    "default_workers",
    "make_executor",
    "task_rng",
    "task_seed",
]

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[int], None]
ExecutorKind = Literal["serial", "local", "ray"]
EXECUTOR_KINDS: tuple[str, ...] = ("serial", "local", "ray")


def task_seed(seed: int, *key: int) -> np.random.SeedSequence:
    """The seed sequence of the task (or game) named by ``key`` in a run seeded ``seed``.

    Equal to ``SeedSequence(seed).spawn(...)`` children addressed directly by their spawn key, so
    any task can be re-created on any worker without replaying the others.

    >>> a = np.random.default_rng(task_seed(7, 1, 2)).random()
    >>> a == np.random.default_rng(task_seed(7, 1, 2)).random() != np.random.default_rng(
    ...     task_seed(7, 2, 1)).random()
    True
    """
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise TournamentError(f"seed must be a non-negative integer, got {seed!r}")
    if any(isinstance(k, bool) or int(k) != k or k < 0 for k in key):
        raise TournamentError(f"task key must be non-negative integers, got {key!r}")
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))


def task_rng(seed: int, *key: int) -> np.random.Generator:
    """``numpy`` generator of the task named by ``key`` (see :func:`task_seed`)."""
    return np.random.default_rng(task_seed(seed, *key))


def default_workers() -> int:
    """Local cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class Executor(Protocol):
    """Runs ``fn`` over tasks; results come back in task order."""

    name: str
    workers: int

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], progress: Progress | None = None
    ) -> list[R]:
        """``[fn(t) for t in tasks]``; ``progress(1)`` after each finished task."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


class _Base:
    name = "base"
    workers = 1

    def close(self) -> None:
        """Release workers (idempotent)."""

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"


class SerialExecutor(_Base):
    """Runs every task in this process, in order."""

    name = "serial"

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], progress: Progress | None = None
    ) -> list[R]:
        out = []
        for task in tasks:
            out.append(fn(task))
            if progress is not None:
                progress(1)
        return out


class ProcessExecutor(_Base):
    """Local worker processes; ``warmup()`` runs in the parent before the pool forks."""

    name = "local"

    def __init__(self, workers: int | None = None, warmup: Callable[[], object] | None = None):
        count = default_workers() if workers is None else workers
        if isinstance(count, bool) or int(count) != count or count < 1:
            raise TournamentError(f"workers must be a positive integer, got {workers!r}")
        self.workers = int(count)
        self._warmup = warmup
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _ensure(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            method = "fork" if "fork" in methods else "spawn"
            if method == "fork" and self._warmup is not None:
                self._warmup()
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context(method)
            )
        return self._pool

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], progress: Progress | None = None
    ) -> list[R]:
        if not tasks:
            return []
        pool = self._ensure()
        futures = {pool.submit(fn, task): i for i, task in enumerate(tasks)}
        out: list[Any] = [None] * len(tasks)
        try:
            for future in concurrent.futures.as_completed(futures):
                out[futures[future]] = future.result()
                if progress is not None:
                    progress(1)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class RayExecutor(_Base):
    """Ray tasks. Connects to ``address`` (``"auto"`` for a running cluster) or starts a local
    instance with ``workers`` CPUs; shuts Ray down on :meth:`close` only if it started it."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None):
        try:
            import ray
        except ImportError:
            raise TournamentError(
                "--executor ray needs Ray: pip install 'mindsport[ray]' (or pip install ray)"
            ) from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                kwargs["address"] = address
            elif workers is not None:
                kwargs["num_cpus"] = int(workers)
            ray.init(**kwargs)
            self._started = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], progress: Progress | None = None
    ) -> list[R]:
        if not tasks:
            return []
        ray = self._ray
        remote = ray.remote(fn)
        refs = [remote.remote(task) for task in tasks]
        index = {ref: i for i, ref in enumerate(refs)}
        out: list[Any] = [None] * len(tasks)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                out[index[ref]] = ray.get(ref)
                if progress is not None:
                    progress(1)
        return out

    def close(self) -> None:
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
        self._started = False


def make_executor(
    kind: str = "local",
    workers: int | None = None,
    *,
    address: str | None = None,
    warmup: Callable[[], object] | None = None,
) -> SerialExecutor | ProcessExecutor | RayExecutor:
    """``"serial"``, ``"local"`` (processes; 1 worker means serial) or ``"ray"``."""
    if kind == "serial":
        return SerialExecutor()
    if kind == "local":
        if workers is not None and (isinstance(workers, bool) or workers < 1):
            raise TournamentError(f"workers must be a positive integer, got {workers!r}")
        if (workers or default_workers()) == 1:
            return SerialExecutor()
        return ProcessExecutor(workers, warmup=warmup)
    if kind == "ray":
        return RayExecutor(address=address, workers=workers)
    raise TournamentError(f"executor must be one of {', '.join(EXECUTOR_KINDS)}; got {kind!r}")
