"""The HTTP server around the app: uvicorn, with the connection limits and timeouts of
:class:`~mindsport.service.limits.ServerLimits`, the same for ``mindsport serve`` and
``python -m mindsport.service`` (both call :func:`uvicorn_config`).

uvicorn bounds how long an idle connection stays open after an answer (``timeout_keep_alive``)
and, with h11, the size of a request head; it does not bound how long a request head takes to
arrive, the size of a head with httptools, nor the connections a client may open. The protocol
class :func:`guarded_protocol` makes adds them, on uvicorn's own (httptools, or h11 without it):

* a request head (request line and headers) must arrive completely within
  :data:`~mindsport.service.limits.HEAD_SECONDS` of the connection's opening or of the answer to
  its previous request: otherwise the connection is closed, with a JSON 408 when part of a
  request had arrived;
* a head of more than :data:`~mindsport.service.limits.MAX_HEAD_BYTES` is answered 431;
* beyond :data:`~mindsport.service.limits.MAX_CONNECTIONS_PER_CLIENT` open connections from one
  client address, a new one is answered 429, and beyond
  :data:`~mindsport.service.limits.MAX_CONNECTIONS` in all, 503 (both JSON, with Retry-After),
  and closed.

A refused connection is answered after
:data:`~mindsport.service.limits.REFUSED_DELAY_SECONDS` (a client that reconnects at once when
refused, as a flood does, comes back that much less often), or later while many refused
connections wait (a second per
:data:`~mindsport.service.limits.REFUSED_ANSWERS_PER_SECOND` of them when that is longer, up to
:data:`~mindsport.service.limits.REFUSED_MAX_DELAY_SECONDS`: a flood of any size is answered, and
so comes back, at about that rate), before its request is read and before uvicorn's protocol is
set up for it (the answer made once, nothing logged), then shut for writing and closed when the
client closes it or after :data:`~mindsport.service.limits.REFUSED_LINGER_SECONDS` (closing a
socket with unread data would reset it and lose the answer). A waiting connection costs the
server an open file and no work; as many wait as the open-file limit leaves beside
``max_connections`` and :data:`~mindsport.service.limits.RESERVED_FILES`
(:func:`refused_waiting_cap`; :func:`run` first raises the limit to the system's hard limit, as
Go's runtime does), those beyond are closed without an answer. Body timeouts are the app's
(:class:`~mindsport.service.middleware.BodyLimitMiddleware`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, cast

import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from mindsport.service.limits import (
    REFUSED_ANSWERS_PER_SECOND,
    REFUSED_DELAY_SECONDS,
    REFUSED_LINGER_SECONDS,
    REFUSED_MAX_DELAY_SECONDS,
    RESERVED_FILES,
    ServerLimits,
)

__all__ = [
    "ConnectionGuard",
    "guarded_protocol",
    "raise_open_files",
    "refusal_bytes",
    "refused_waiting_cap",
    "run",
    "server_limits",
    "uvicorn_config",
]

_REASONS = {
    408: "Request Timeout",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


def refusal_bytes(status: int, detail: str, retry_after: int | None = None) -> bytes:
    """A whole HTTP/1.1 answer ``status`` with the service's JSON error body
    ``{"detail": detail}``, closing the connection."""
    body = json.dumps({"detail": detail}).encode()
    head = [
        f"HTTP/1.1 {status} {_REASONS[status]}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        "x-content-type-options: nosniff",
        "connection: close",
    ]
    if retry_after is not None:
        head.append(f"retry-after: {retry_after}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


#: client addresses whose refusal answer is kept made (beyond, the kept ones are dropped)
_CACHED_ANSWERS = 1024


def _client_of(transport: asyncio.BaseTransport) -> str:
    """The client address of a connection (its host; ``""`` when it has none, a Unix socket)."""
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple | list) and peer:
        return str(peer[0])
    return ""


#: open files assumed when the system sets no limit (or cannot tell it)
_UNLIMITED_FILES = 1 << 20


def open_files_limit() -> int:
    """This process's limit of open files (its soft limit)."""
    try:
        import resource
    except ImportError:  # not a Unix: no limit the server can read
        return _UNLIMITED_FILES
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return _UNLIMITED_FILES if soft == resource.RLIM_INFINITY else int(soft)


def raise_open_files() -> int:
    """Raise this process's limit of open files to the system's hard limit (at most
    2^20 when unlimited), where it is lower; the limit now."""
    try:
        import resource
    except ImportError:
        return _UNLIMITED_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = _UNLIMITED_FILES if hard == resource.RLIM_INFINITY else int(hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        # a system that refuses: the limit stays as it was
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return open_files_limit()


def refused_waiting_cap(limits: ServerLimits, open_files: int) -> int:
    """How many refused connections may wait for their answer at once: what ``open_files``
    leaves beside ``limits.max_connections`` and
    :data:`~mindsport.service.limits.RESERVED_FILES`."""
    return max(0, open_files - limits.max_connections - RESERVED_FILES)


def refusal_delay(waiting: int) -> float:
    """Seconds a connection refused while ``waiting`` others wait is kept before its answer."""
    return min(
        REFUSED_MAX_DELAY_SECONDS,
        max(REFUSED_DELAY_SECONDS, waiting / REFUSED_ANSWERS_PER_SECOND),
    )


class ConnectionGuard:
    """The open connections of one server, in all and per client address, against ``limits``,
    and its refused connections waiting for their answer, at most ``waiting_cap`` (used on the
    server's event loop only)."""

    def __init__(self, limits: ServerLimits, waiting_cap: int) -> None:
        self.limits = limits
        self.waiting_cap = waiting_cap
        self.open = 0
        self.per_client: dict[str, int] = {}
        self.refused = 0  # refused connections not yet closed (waiting, or answered)
        # the answers refusing a connection, made once (a flood of refused connections costs
        # the server as little as it can): the server's, and one per client address refused
        self._full = refusal_bytes(
            503,
            f"the server has {limits.max_connections} connections open, its most; "
            "retry in a moment",
            retry_after=1,
        )
        self._too_many: dict[str, bytes] = {}

    def admit(self, client: str) -> bytes | None:
        """Count a new connection from ``client``; or the answer refusing it (not counted): the
        client address's cap is checked first, then the server's."""
        limits = self.limits
        mine = self.per_client.get(client, 0)
        if mine >= limits.max_connections_per_client:
            answer = self._too_many.get(client)
            if answer is None:
                if len(self._too_many) >= _CACHED_ANSWERS:
                    self._too_many.clear()
                answer = self._too_many[client] = refusal_bytes(
                    429,
                    f"{client or 'this client'} has {limits.max_connections_per_client} "
                    "connections open, the most one client address may have; close one or "
                    "retry later",
                    retry_after=1,
                )
            return answer
        if self.open >= limits.max_connections:
            return self._full
        self.open += 1
        self.per_client[client] = mine + 1
        return None

    def closed(self, client: str) -> None:
        """A connection counted by :meth:`admit` closed."""
        self.open -= 1
        left = self.per_client[client] - 1
        if left:
            self.per_client[client] = left
        else:
            del self.per_client[client]


class _Guarded(asyncio.Protocol):
    """What :func:`guarded_protocol` adds to uvicorn's HTTP protocol (see the module)."""

    guard: ConnectionGuard
    # uvicorn's (set by its protocol)
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any

    _refused = False
    _counted = False
    _client = ""
    _timer: asyncio.TimerHandle | None = None
    _head_bytes = 0

    _made: tuple[tuple[Any, ...], dict[str, Any]] = ((), {})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # uvicorn's protocol is set up when the connection is admitted: a refused one costs
        # nothing of it (its logger look-ups, its parser)
        self._made = (args, kwargs)

    # -- refusing a connection ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        client = _client_of(transport)
        answer = self.guard.admit(client)
        if answer is None:
            self._counted = True
            self._client = client
            args, kwargs = self._made
            super().__init__(*args, **kwargs)
            super().connection_made(transport)
            self._arm()
            return
        self._refused = True
        transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        guard = self.guard
        if guard.refused >= guard.waiting_cap:
            transport.abort()
            return
        delay = refusal_delay(guard.refused)
        guard.refused += 1
        self._timer = asyncio.get_running_loop().call_later(
            delay, self._answer_refused, transport, answer
        )

    def _answer_refused(self, transport: asyncio.Transport, answer: bytes) -> None:
        """The refusal's answer written, the connection shut for writing, closed after
        :data:`~mindsport.service.limits.REFUSED_LINGER_SECONDS` unless the client closes it."""
        transport.write(answer)
        if transport.can_write_eof():
            transport.write_eof()
        self._timer = asyncio.get_running_loop().call_later(REFUSED_LINGER_SECONDS, transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._refused:
            self.guard.refused -= 1 if self.guard.refused > 0 else 0
            return
        if self._counted:
            self._counted = False
            self.guard.closed(self._client)
        super().connection_lost(exc)

    def eof_received(self) -> bool | None:
        if self._refused:
            return None  # the transport closes
        return super().eof_received()

    def pause_writing(self) -> None:
        if not self._refused:
            super().pause_writing()

    def resume_writing(self) -> None:
        if not self._refused:
            super().resume_writing()

    # -- the request head ------------------------------------------------------------------------
    def _waiting_for_head(self) -> bool:
        """No request is being read or answered: what arrives is the next request's head."""
        return self.cycle is None or bool(self.cycle.response_complete)

    def _arm(self) -> None:
        """Start the head timer (at the connection's opening and after each answer)."""
        if self._timer is not None:
            self._timer.cancel()
        self._head_bytes = 0
        self._timer = self.loop.call_later(self.guard.limits.head_seconds, self._head_late)

    def _refuse(self, status: int, detail: str) -> None:
        self.transport.write(refusal_bytes(status, detail))
        self.transport.close()

    def _head_late(self) -> None:
        self._timer = None
        if self.transport.is_closing() or not self._waiting_for_head():
            return
        if self._head_bytes == 0:  # an idle connection: closed quietly
            self.transport.close()
            return
        self._refuse(
            408,
            f"the request head (request line and headers) did not arrive within "
            f"{self.guard.limits.head_seconds:g} s; the connection is closed",
        )

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # read and dropped: the answer is sent
        waiting = self._waiting_for_head()
        super().data_received(data)
        if waiting and self._waiting_for_head() and not self.transport.is_closing():
            self._head_bytes += len(data)
            limit = self.guard.limits.max_head_bytes
            if self._head_bytes > limit:
                self._refuse(431, f"the request head is larger than {limit} bytes")

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if not self.transport.is_closing():
            self._arm()


def guarded_protocol(
    limits: ServerLimits,
    base: type[asyncio.Protocol] = AutoHTTPProtocol,
    *,
    open_files: int | None = None,
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol ``base`` (httptools, or h11 without it) with the head timeout, the
    head size and the connection caps of ``limits`` (see the module), refused connections
    waiting in what ``open_files`` (default: this process's limit now) leaves; one class per
    server, its connections counted together."""
    files = open_files_limit() if open_files is None else open_files
    guard = ConnectionGuard(limits, refused_waiting_cap(limits, files))
    return type(f"Guarded{base.__name__}", (_Guarded, base), {"guard": guard})


def server_limits(**given: float | None) -> ServerLimits:
    """The :class:`~mindsport.service.limits.ServerLimits` with the ``given`` fields that are not
    ``None`` (an option left out: the default); :class:`ValueError` naming a bad one."""
    return ServerLimits(**{k: v for k, v in given.items() if v is not None})  # type: ignore[arg-type]


def uvicorn_config(
    app: Any,
    *,
    host: str,
    port: int,
    limits: ServerLimits,
    log_level: str = "warning",
    open_files: int | None = None,
) -> uvicorn.Config:
    """The uvicorn configuration serving ``app`` on ``host``:``port`` with ``limits`` (the
    same for every entry point), refused connections waiting in what ``open_files`` (default:
    this process's limit) leaves (:func:`guarded_protocol`)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=guarded_protocol(limits, open_files=open_files),
        timeout_keep_alive=limits.keep_alive_seconds,
        h11_max_incomplete_event_size=limits.max_head_bytes,
        backlog=limits.backlog,
        lifespan="on",
    )


def run(app: Any, *, host: str, port: int, limits: ServerLimits, log_level: str) -> None:
    """Serve ``app`` until interrupted (:func:`uvicorn_config`), the open-file limit raised first
    (:func:`raise_open_files`)."""
    raise_open_files()
    uvicorn.Server(
        uvicorn_config(app, host=host, port=port, limits=limits, log_level=log_level)
    ).run()
