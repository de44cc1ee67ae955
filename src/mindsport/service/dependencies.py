"""What the routes share, as FastAPI dependencies: the runtime (the store, its threads, the
computation slots), the key checks, and the parameters taken from paths and headers.

A key check is declared on a route as a dependency (``dependencies=[ADMIN_KEY]``): FastAPI
documents its parameters in the OpenAPI schema and calls it. FastAPI reads a request's body
before it solves any dependency, so :class:`mindsport.service.middleware.ApiRoute` calls the
check's :meth:`~KeyCheck.before_body` first, before anything else of the request is read; the
dependency then finds the request checked and lets it through. A request without a valid key
costs its headers only. Keys are compared in constant time by the store, which reads the key's
row on every request (a revoked key is refused at once).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import Depends, Header, Path, Request
from fastapi.exceptions import RequestValidationError
from pydantic import Field, TypeAdapter, ValidationError

from mindsport.event.model import EVENT_NAME
from mindsport.event.storage import EventStore
from mindsport.service.limits import ANONYMOUS_REFUSAL_SECONDS, MAX_ID_LENGTH, MAX_KEY_LENGTH
from mindsport.service.runtime import Runtime, ServiceBusyError
from mindsport.service.schemas import ID_PATTERN, LEAGUE_PATTERN
from mindsport.store.keys import MissingKeyError

__all__ = [
    "ADMIN_KEY",
    "EVENT_WRITE_KEY",
    "LEAGUE_KEY_IF_ANY",
    "LEAGUE_WRITE_KEY",
    "EventName",
    "KeyCheck",
    "LeagueName",
    "PlayerId",
    "RuntimeDep",
    "get_runtime",
]


def get_runtime(request: Request) -> Runtime:
    """The app's :class:`~mindsport.service.runtime.Runtime`."""
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]

LeagueName = Annotated[
    str, Path(pattern=LEAGUE_PATTERN, description="A league name", examples=["main"])
]
PlayerId = Annotated[
    str, Path(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN, description="A player")
]
EventName = Annotated[str, Path(pattern=EVENT_NAME, description="An event name")]
WriteKeyHeader = Annotated[
    str | None,
    Header(
        alias="X-API-Key",
        description="A write key of the league, or an admin key",
        max_length=MAX_KEY_LENGTH,
    ),
]
OptionalKeyHeader = Annotated[
    str | None,
    Header(
        alias="X-API-Key",
        description="Optional: a write key of the league, or an admin key; with one, the "
        "request computes in the slots of key holders, without one in the smaller pool of "
        "anonymous requests",
        max_length=MAX_KEY_LENGTH,
    ),
]
EventKeyHeader = Annotated[
    str | None,
    Header(
        alias="X-API-Key",
        description="A write key of the event's league, or an admin key",
        max_length=MAX_KEY_LENGTH,
    ),
]

#: the checks of the parameters a key check reads, as FastAPI makes them (422 naming each)
_KEY_VALUE = TypeAdapter(Annotated[str, Field(max_length=MAX_KEY_LENGTH)])
_EVENT_VALUE = TypeAdapter(Annotated[str, Field(pattern=EVENT_NAME)])
#: the scope entry marking a request whose key was checked
_CHECKED = "mindsport.key_checked"
#: the scope entry telling whether a request with an optional key has one (checked)
_KEYED = "mindsport.keyed"


def _validated(checks: list[tuple[TypeAdapter[str], tuple[str, str], str | None]]) -> None:
    """Each ``(adapter, loc, value)`` checked; :class:`RequestValidationError` naming every bad
    one (``value`` ``None``: not given, nothing to check)."""
    errors: list[dict[str, Any]] = []
    for adapter, loc, value in checks:
        if value is None:
            continue
        try:
            adapter.validate_python(value)
        except ValidationError as exc:
            errors += [{**e, "loc": loc} for e in exc.errors(include_url=False)]
    if errors:
        raise RequestValidationError(errors)


class KeyCheck:
    """Which key a route needs (a route dependency).

    A subclass checks the key in :meth:`check`, reading the header and the path from the
    request itself and validating them as FastAPI would (422 naming each bad one). Its
    ``__call__`` is the dependency: its parameters are what FastAPI documents in the schema,
    and it lets through a request that :meth:`before_body` already checked (or checks it, for a
    route of a plain ``APIRoute``)."""

    async def check(self, request: Request) -> None:
        """Refuse the request unless its key may do what the route does (401, 403, 404)."""
        raise NotImplementedError

    async def before_body(self, request: Request) -> None:
        """Check the key now; the dependency then lets the request through."""
        await self.check(request)
        request.scope[_CHECKED] = True

    @staticmethod
    def checked(request: Request) -> bool:
        return bool(request.scope.get(_CHECKED))


class _AdminKey(KeyCheck):
    """An admin key."""

    async def check(self, request: Request) -> None:
        key = request.headers.get("x-api-key")
        _validated([(_KEY_VALUE, ("header", "X-API-Key"), key)])
        runtime = get_runtime(request)
        await runtime.run(runtime.store.authorize, key, None)

    async def __call__(self, request: Request, x_api_key: WriteKeyHeader = None) -> None:
        if not self.checked(request):
            await self.check(request)


class _LeagueWriteKey(KeyCheck):
    """A write key of the league in the path, or an admin key (posting matches: the hot path).

    The key and the league are taken as they come: the store refuses a key that is not one of
    its own and a league it does not hold, whatever their length or characters."""

    async def check(self, request: Request) -> None:
        key = request.headers.get("x-api-key")
        if not key:
            raise MissingKeyError("header X-API-Key is required to write")
        runtime = get_runtime(request)
        league = request.path_params["league"]
        if runtime.store.is_sqlite:  # one indexed read of a local file: no thread hop
            runtime.store.authorize(key, league)
        else:
            await runtime.run(runtime.store.authorize, key, league)

    async def __call__(
        self, request: Request, league: LeagueName, x_api_key: WriteKeyHeader = None
    ) -> None:
        if not self.checked(request):
            await self.check(request)


class _LeagueKeyIfAny(KeyCheck):
    """A key is not needed; one sent must be a write key of the league in the path or an admin
    key (401/403/404 as for writing). The dependency's value: whether the request has one (it
    then computes in the slots of key holders, else in the anonymous ones:
    :meth:`~mindsport.service.runtime.Runtime.compute_slot`)."""

    async def check(self, request: Request) -> None:
        key = request.headers.get("x-api-key")
        runtime = get_runtime(request)
        if key is not None:
            _validated([(_KEY_VALUE, ("header", "X-API-Key"), key)])
            await runtime.run(runtime.store.authorize, key, request.path_params["league"])
        else:  # refused before its body is read when the anonymous budget is spent (429)
            try:
                runtime.admit_anonymous()
            except ServiceBusyError:
                await asyncio.sleep(ANONYMOUS_REFUSAL_SECONDS)
                raise
        request.scope[_KEYED] = key is not None

    async def __call__(
        self, request: Request, league: LeagueName, x_api_key: OptionalKeyHeader = None
    ) -> bool:
        if not self.checked(request):
            await self.check(request)
        return bool(request.scope.get(_KEYED))


class _EventWriteKey(KeyCheck):
    """A write key of the event's league, or an admin key (the event must exist: 404)."""

    async def check(self, request: Request) -> None:
        key = request.headers.get("x-api-key")
        event = request.path_params["event"]
        _validated(
            [(_EVENT_VALUE, ("path", "event"), event), (_KEY_VALUE, ("header", "X-API-Key"), key)]
        )
        runtime = get_runtime(request)
        league = await runtime.run(EventStore(runtime.store).league_of, event)
        await runtime.run(runtime.store.authorize, key, league)

    async def __call__(
        self, request: Request, event: EventName, x_api_key: EventKeyHeader = None
    ) -> None:
        if not self.checked(request):
            await self.check(request)


#: an admin key is needed
ADMIN_KEY = Depends(_AdminKey())
#: a write key of the league in the path, or an admin key
LEAGUE_WRITE_KEY = Depends(_LeagueWriteKey())
#: no key needed; one sent (a write key of the league or an admin key) is checked, and the
#: value says whether the request has one
LEAGUE_KEY_IF_ANY = Depends(_LeagueKeyIfAny())
#: a write key of the league of the event in the path, or an admin key
EVENT_WRITE_KEY = Depends(_EventWriteKey())
