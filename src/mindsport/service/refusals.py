"""How a refused request is answered: the status code of each error, the ``{"detail": ...}`` body,
and the error answers each route documents in the OpenAPI schema.

A refusal is raised as an exception anywhere below a route (the store's errors, a key refused, a
body malformed, the service busy) and turned into its answer by the handlers
:func:`install_handlers` registers. ``detail`` is the error's text, or for 422 the list of
``{"loc": [...], "msg": ..., "type": ...}`` naming each bad field. An exception that is not a
refusal is an internal failure (500).

A fault of the database (:class:`~mindsport.errors.DatabaseFaultError`, raised by the store in
place of its driver's error, in a request's own thread or delivered through the future of a
group commit) is answered 503 (unavailable) or 507 (out of space) with a ``Retry-After``
header; every route documents both (:data:`FAULT_RESPONSES`).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from mindsport.errors import (
    ConflictError,
    DatabaseUnavailableError,
    MindsportError,
    NotFoundError,
    StorageFullError,
)
from mindsport.match import InvalidMatchError
from mindsport.service.body import UnprocessableError
from mindsport.service.limits import MAX_BODY_BYTES
from mindsport.service.runtime import ServiceBusyError
from mindsport.service.schemas import ErrorOut
from mindsport.store.keys import KeyRefusedError, MissingKeyError

__all__ = [
    "FAULT_RESPONSES",
    "RETRY_FULL_SECONDS",
    "RETRY_UNAVAILABLE_SECONDS",
    "install_handlers",
    "page_responses",
    "refusal",
    "responses",
]

#: ``Retry-After`` of a 503, the database unavailable (a restart, a lock, a lost connection)
RETRY_UNAVAILABLE_SECONDS = 5
#: ``Retry-After`` of a 507, the database's disk full (space must be freed by someone)
RETRY_FULL_SECONDS = 60

_log = logging.getLogger(__name__)

#: what each error status means (the OpenAPI description of the answer)
MEANING = {
    400: "Bad input (the text says what is wrong)",
    401: "No API key",
    403: "The API key is unknown, revoked, expired or not allowed here",
    404: "No such league, player or key",
    408: "The request head or body did not arrive in time (the connection is closed)",
    409: "Conflicts with what is recorded (a match id with other data, a match older than the "
    "league's late-result policy accepts, a name taken, the last active admin key)",
    413: f"The body is larger than {MAX_BODY_BYTES} bytes",
    415: "The body is not sent as application/json (in UTF-8)",
    422: "The body or a parameter is malformed (each bad field named)",
    429: "Busy: too many computations waiting, or too many connections open from this "
    "client address (the connection is closed); retry after the Retry-After seconds",
    431: "The request head is too large (the connection is closed)",
    503: "The database is unavailable (down, refusing connections, locked), or the server "
    "has too many connections open (the connection is closed); nothing was written; retry "
    "after the Retry-After seconds",
    507: "The database's disk is full; nothing was written; retry after the Retry-After seconds",
}

#: status code (and headers) of each error, most specific first
_STATUS: tuple[tuple[type[Exception], int, dict[str, str] | None], ...] = (
    (InvalidMatchError, 422, None),
    (MissingKeyError, 401, None),
    (KeyRefusedError, 403, None),
    (NotFoundError, 404, None),
    (ConflictError, 409, None),
    (ServiceBusyError, 429, {"Retry-After": "1"}),
    (StorageFullError, 507, {"Retry-After": str(RETRY_FULL_SECONDS)}),
    (DatabaseUnavailableError, 503, {"Retry-After": str(RETRY_UNAVAILABLE_SECONDS)}),
    (MindsportError, 400, None),
)


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error answers of a route, for its ``responses=`` (the OpenAPI schema)."""
    return {c: {"model": ErrorOut, "description": MEANING[c]} for c in codes}


def page_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error answers of a route that answers HTML, for its ``responses=``: its refusals are
    JSON all the same (FastAPI would document a ``model`` under the route's own media type)."""
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    return {
        c: {"description": MEANING[c], "content": {"application/json": {"schema": schema}}}
        for c in codes
    }


def _answer(status: int, detail: Any, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"detail": detail}, headers=headers)


def refusal(exc: Exception) -> JSONResponse:
    """The answer to a request refused with ``exc``."""
    if isinstance(exc, UnprocessableError):
        return _answer(422, exc.errors)
    if isinstance(exc, RequestValidationError):
        return _answer(
            422, [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        )
    if isinstance(exc, ServiceBusyError):
        return _answer(429, str(exc), {"Retry-After": str(exc.retry_after)})
    for cls, status, headers in _STATUS:
        if isinstance(exc, cls):
            if status >= 500:
                _log.warning("answered %d: %s (%r)", status, exc, exc.__cause__)
            return _answer(status, str(exc), headers)
    raise exc  # not a refusal: an internal failure


async def _refused(_request: Request, exc: Exception) -> JSONResponse:
    return refusal(exc)


def install_handlers(app: FastAPI) -> None:
    """Answer every refusal raised below ``app``'s routes (HTTP exceptions, such as the body
    limit's 413, keep FastAPI's own handler: the same ``{"detail": ...}`` body)."""
    for cls in (UnprocessableError, RequestValidationError, *(c for c, _, _ in _STATUS)):
        app.add_exception_handler(cls, _refused)


def _fault_responses() -> dict[int | str, dict[str, Any]]:
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    retry = {"description": "Seconds to wait", "schema": {"type": "integer"}}
    return {
        code: {
            "description": MEANING[code],
            **({"headers": {"Retry-After": retry}} if code in (429, 503, 507) else {}),
            "content": {"application/json": {"schema": schema}},
        }
        for code in (408, 429, 431, 503, 507)
    }


#: the answers every route may give whatever it does (JSON whatever the route's own media
#: type): the database's faults (503, 507, with ``Retry-After``), each route reading or
#: writing the database; and the HTTP server's refusals of a connection before the app sees a
#: request (:mod:`mindsport.service.serving`: a head late, 408, or too large, 431; too many
#: connections from one address, 429, or in all, 503). The app adds them to its routers'
#: routes (see :mod:`mindsport.service.app`); a route's own answer of the same code (a
#: computation's 429) is documented by the route
FAULT_RESPONSES = _fault_responses()
