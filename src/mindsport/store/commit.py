"""Group commit: concurrent writes to one lock domain are committed together.

Writers submit work items to a :class:`GroupCommitter`; each *domain* (what one writer at a time
may hold: the whole file on SQLite, one league on PostgreSQL) has a FIFO queue and at most one
writer thread draining it. The writer takes every item waiting (up to a size budget per *part*,
a league), runs them as one group (the store commits each league's items of the group in one
transaction, so one commit and one durable flush for all of them), and only then completes
each item's future: an item is acknowledged after its data are committed, never before.

While a group commits, new items queue up; the next group takes them all. So under load the
groups grow and the cost of a commit is shared, and a lone writer still commits at once (a group
of one). Different domains drain in parallel, on up to ``workers`` threads.

A part can be *paced* (:meth:`GroupCommitter.pace`): nothing more of it is committed for a
while, its items waiting meanwhile and then committed together, while other parts' items go on.
The store paces a league its commits leave being brought up to date after a late result
(:mod:`mindsport.store.catchup`), so that a client posting late matches one after another gets a
commit at most every :data:`~mindsport.store.catchup.PACE_SECONDS` and cannot take the writer's
time from every other league's posts.

A caller that needs time before it can submit (a large post being parsed) *reserves* its place
first (:meth:`GroupCommitter.reserve`). Posts sent together by concurrent clients reach the
server in any order, and a group committed before an earlier-timed post is ready makes the
store re-rate what that post comes before. So a writer about to form a group of one part whose
part has reservations open waits, up to ``hold`` seconds, for the oldest of them (being prepared
first, it is ready first) and takes it into the group. It waits only for a post that arrived
before one of the items it would commit, or before the previous group's first answer went out.
A post that arrived after both is most likely a client's next post, sent once its last one was
answered, so it comes after the queued items in time too, and waiting for it would only stop
the writer while it is parsed (on SQLite, two clients posting batches of 1,000 went from 30,000
matches a second to 17,600 when every open post was waited for). Posts that arrive together
are registered in whatever order the server reads them, so a post registered just after a
queued one, while the previous group was still committing, may well be the earlier one.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = ["GroupCommitter", "Reservation", "WorkItem"]

R = TypeVar("R")


@dataclass(eq=False)
class WorkItem(Generic[R]):
    """One submitted piece of work: its domain (what one transaction locks), its part (what the
    group budget is counted per: a league), its size (against that budget), whether it must run
    alone, its payload and the future completed with its result."""

    domain: Hashable
    part: Hashable
    size: int
    payload: Any
    alone: bool = False
    future: Future[R] = field(default_factory=Future)
    #: arrival order, set by :meth:`GroupCommitter.submit` (a reserved item's is its reservation's)
    ticket: int = field(default=-1, init=False)


@dataclass(eq=False)
class Reservation:
    """A place held for an item still being prepared (:meth:`GroupCommitter.reserve`)."""

    domain: Hashable
    part: Hashable
    #: arrival order among the committer's reservations and items
    ticket: int


class GroupCommitter(Generic[R]):
    """Queues :class:`WorkItem` s per domain and runs them in groups.

    ``run_group(items)`` runs one group and completes every item's future (with a result or an
    exception); if it raises instead, the exception is set on every future it left open.
    A group holds whole items, in arrival order, of total size at most ``max_group_size`` per
    part (an item larger than that is a part's only item), and an item marked ``alone`` is
    never grouped. ``hold``: the longest a writer waits for a reservation (see the module).
    """

    def __init__(
        self,
        run_group: Callable[[Sequence[WorkItem[R]]], None],
        *,
        max_group_size: int,
        workers: int,
        hold: float = 0.1,
    ) -> None:
        self._run_group = run_group
        self._max = max_group_size
        self._hold = hold
        self._lock = threading.Lock()
        # notified when a reservation is submitted or released, or an item queued
        self._settled = threading.Condition(self._lock)
        self._queues: dict[Hashable, deque[WorkItem[R]]] = {}
        # open reservations per domain, oldest first
        self._reserved: dict[Hashable, list[Reservation]] = {}
        self._tickets = itertools.count()
        # per domain: the ticket at the first answer of its latest group (see the module)
        self._answered: dict[Hashable, int] = {}
        # per part: time.monotonic() before which its items are not committed (:meth:`pace`)
        self._paced: dict[Hashable, float] = {}
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mindsport-commit")
        self._closed = False

    def pace(self, part: Hashable, seconds: float) -> None:
        """Commit nothing more of ``part`` for ``seconds`` from now: its items queue meanwhile
        (and are then committed together), while other parts' items go on being committed."""
        with self._lock:
            now = time.monotonic()
            for done in [p for p, t in self._paced.items() if t <= now]:
                del self._paced[done]
            self._paced[part] = now + seconds

    def reserve(self, domain: Hashable, part: Hashable) -> Reservation:
        """Hold a place for an item of ``domain`` and ``part`` that is still being prepared;
        pass it to :meth:`submit` with the item, or to :meth:`release` if there will be none."""
        with self._lock:
            reservation = Reservation(domain, part, next(self._tickets))
            self._reserved.setdefault(domain, []).append(reservation)
        return reservation

    def release(self, reservation: Reservation) -> None:
        """Give up a place held by :meth:`reserve` (nothing will be submitted for it); releasing
        one that was submitted or released already does nothing."""
        with self._lock:
            self._settle(reservation)

    def _settle(self, reservation: Reservation) -> None:
        open_ = self._reserved.get(reservation.domain)
        if open_ is None or reservation not in open_:
            return
        open_.remove(reservation)
        if not open_:
            del self._reserved[reservation.domain]
        self._settled.notify_all()

    def submit(self, item: WorkItem[R], reservation: Reservation | None = None) -> Future[R]:
        """Queue ``item`` (prepared under ``reservation``, if it had one); its future completes
        once its group is committed (or failed)."""
        with self._lock:
            if reservation is not None:
                self._settle(reservation)
                item.ticket = reservation.ticket
            else:
                item.ticket = next(self._tickets)
            if self._closed:
                raise RuntimeError("the store is closed")
            queue = self._queues.get(item.domain)
            if queue is not None:  # a writer is draining this domain: it will take the item
                queue.append(item)
                if self._reserved or self._paced:  # a writer may be waiting for it
                    self._settled.notify_all()
                return item.future
            self._queues[item.domain] = deque([item])
        self._pool.submit(self._drain, item.domain)
        return item.future

    def _next_group(self, domain: Hashable) -> list[WorkItem[R]]:
        """The next group: the first item waiting, then every later item that fits its part's
        budget (``max_group_size`` per ``part``, e.g. per league, so a big writer of one part
        never keeps another part's items out of the group), in arrival order."""
        with self._lock:
            queue = self._queues[domain]
            if not queue:
                del self._queues[domain]  # the next submit starts a new writer
                return []
            group: list[WorkItem[R]] = []
            while not group:  # (a part may be paced while a reservation is waited for)
                self._await_due(queue)
                self._await_oldest_reservation(domain, queue)
                group = self._take(queue)
            return group

    def _take(self, queue: deque[WorkItem[R]]) -> list[WorkItem[R]]:
        """With the lock held: take the next group out of ``queue`` (see :meth:`_next_group`);
        the items of a paced part stay queued, in order."""
        now = time.monotonic()
        group: list[WorkItem[R]] = []
        used: dict[Hashable, int] = {}
        kept: deque[WorkItem[R]] = deque()
        while queue:
            item = queue.popleft()
            if self._paced.get(item.part, now) > now:  # paced: a later group
                kept.append(item)
                continue
            if not group:
                group.append(item)
                used[item.part] = item.size
                continue
            share = used.get(item.part, 0)
            if group[0].alone or item.alone or (share and share + item.size > self._max):
                kept.append(item)
                continue
            used[item.part] = share + item.size
            group.append(item)
        queue.extend(kept)
        return group

    def _await_due(self, queue: deque[WorkItem[R]]) -> None:
        """With the lock held: wait until an item of ``queue`` is of a part not paced (new items
        may be queued meanwhile)."""
        while self._paced:
            now = time.monotonic()
            due = min(self._paced.get(item.part, now) for item in queue)
            if due <= now:
                return
            self._settled.wait(due - now)  # woken by a submit

    def _await_oldest_reservation(self, domain: Hashable, queue: deque[WorkItem[R]]) -> None:
        """With the lock held: if every queued item is of one part and that part has a
        reservation open that arrived before one of them or before the previous group's first
        answer, wait (at most ``hold`` seconds) until the oldest such reservation is settled."""
        part = queue[0].part
        before = max(self._answered.get(domain, -1), *(item.ticket for item in queue))
        oldest = next(
            (r for r in self._reserved.get(domain, ()) if r.part == part and r.ticket < before),
            None,
        )
        deadline = time.monotonic() + self._hold
        while oldest is not None and oldest in self._reserved.get(domain, ()):
            if any(item.part != part for item in queue):
                return  # several leagues share the writer: none waits for another's preparation
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._settled.wait(left)  # woken by a submit or a release

    def _first_answer(self, domain: Hashable, marked: list[int], _: Future[R]) -> None:
        """Called as each future of a group of ``domain`` completes (in the thread completing
        it, before its caller can answer anyone): the first records the ticket of the group's
        first answer in ``marked`` and as the domain's latest."""
        with self._lock:
            if not marked:
                marked.append(next(self._tickets))
                self._answered[domain] = marked[0]

    def _drain(self, domain: Hashable) -> None:
        while True:
            group = self._next_group(domain)
            if not group:
                return
            mark = functools.partial(self._first_answer, domain, [])
            for item in group:
                item.future.add_done_callback(mark)
            try:
                self._run_group(group)
            except BaseException as exc:  # completes the futures, then keeps draining
                for item in group:
                    if not item.future.done():
                        item.future.set_exception(exc)

    def close(self) -> None:
        """Finish the queued work and stop the writer threads."""
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True)
