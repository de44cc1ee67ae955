"""Matchmaking searches of requests without a key, in a worker process.

A search is the costliest computation the service does (up to
:data:`~mindsport.service.limits.COMPUTE_SECONDS`): run on a thread of the server it takes the
server's interpreter from the writers for as long as it runs, whatever the CPU budget allows on
average. A :class:`ComputePool` runs it in a worker process instead, fed with values (the
:class:`~mindsport.forecast.Seating` the server read from the store, never a store), and gives
back the seating :func:`~mindsport.forecast.seat_players` finds, the same as in the server, with
the CPU time it took (charged to the anonymous budget by the caller).

Workers are started with ``spawn`` and exit when the server process is gone (as those of
:mod:`mindsport.service.workers`); a worker that died makes the search run in the server.
"""

from __future__ import annotations

import time

from mindsport.forecast import Seating, seat_players
from mindsport.matchmaking import Pairing
from mindsport.service.workers import WorkerPool

__all__ = ["ComputePool"]


def _seat(task: Seating, seconds: float | None) -> tuple[float, Pairing]:
    """In a worker: the CPU time the search for ``task`` (of at most ``seconds`` from its start
    here) took, and its seating."""
    t0 = time.thread_time()
    plan = seat_players(task, None if seconds is None else time.monotonic() + seconds)
    return time.thread_time() - t0, plan


class ComputePool(WorkerPool):
    """``workers`` processes running matchmaking searches (:meth:`seat`)."""

    doing = "of matchmaking searches"

    def __init__(self, workers: int = 1) -> None:
        super().__init__(workers)

    async def seat(self, task: Seating, seconds: float | None) -> tuple[float, Pairing] | None:
        """The CPU time and the seating of the search for ``task`` in a worker, searching for at
        most ``seconds`` from when the worker takes it (the time a worker takes to start is not
        the search's); its refusals (such as a quality that is not a number) are raised here;
        ``None`` when the worker died (the caller searches itself)."""
        done, answer = await self.run(_seat, task, seconds)
        return answer if done else None
