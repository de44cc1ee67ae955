"""What runs before a route reads its request: the body-size limit and the key check.

* :class:`BodyLimitMiddleware` (ASGI middleware of the app) bounds every body to
  :data:`~mindsport.service.limits.MAX_BODY_BYTES` and to JSON: when a route first reads the
  body, a declared size over the limit (413), then a body not declared as ``application/json``
  in UTF-8 (415, :func:`mindsport.service.body.media_type_problem`), are refused before a byte
  is read, and a chunked body is refused as soon as it passes the limit. Nothing is refused
  before the route asks for the body, so that the key is checked first. It also bounds the
  time a body takes to arrive (:data:`~mindsport.service.limits.BODY_SECONDS` in all, from the
  route's first read, and :data:`~mindsport.service.limits.BODY_IDLE_SECONDS` between two
  pieces): a body late is refused with 408 and its connection closed.
* :class:`ApiRoute` (the route class of every router) calls the route's key check
  (:class:`~mindsport.service.dependencies.KeyCheck`) before anything else of the request is
  read or validated (FastAPI reads a body before it solves any dependency), and reads the body
  (its size and type checked by the middleware) as strict JSON
  (:func:`mindsport.service.body.parse_json`: UTF-8, no NaN or Infinity, no key twice in an
  object, not nested absurdly deep).
* :class:`RawRoute` (the hot path's) calls the key check and then its endpoint with the bare
  request: FastAPI routes it and documents it, but does not handle its request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mindsport.service.body import UnprocessableError, media_type_problem, parse_json
from mindsport.service.dependencies import KeyCheck
from mindsport.service.limits import MAX_BODY_BYTES, ServerLimits

__all__ = [
    "ApiRoute",
    "BodyLimitMiddleware",
    "BodyTimeoutError",
    "BodyTooLargeError",
    "RawRoute",
    "UnsupportedMediaTypeError",
    "declared_size",
]


class BodyTooLargeError(HTTPException):
    """The request body is larger than the service accepts (HTTP 413; the connection is closed,
    the rest of the body unread).

    An HTTP exception, so that it passes through FastAPI's reading of a body unchanged (FastAPI
    turns any other error raised there into a 400)."""

    def __init__(self, detail: str) -> None:
        super().__init__(413, detail, headers={"Connection": "close"})


class BodyTimeoutError(HTTPException):
    """The request body did not arrive in time (HTTP 408; the connection is closed, the rest of
    the body unread); an HTTP exception, as :class:`BodyTooLargeError`."""

    def __init__(self, detail: str) -> None:
        super().__init__(408, detail, headers={"Connection": "close"})


class UnsupportedMediaTypeError(HTTPException):
    """The request body is not declared as JSON in UTF-8 (HTTP 415); an HTTP exception, as
    :class:`BodyTooLargeError`."""

    def __init__(self, detail: str) -> None:
        super().__init__(415, detail)


def declared_size(scope: Scope) -> int:
    """The body size the Content-Length header of the request ``scope`` announces; -1 without
    one, or when it is not a number (the body read then says how large it is)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return -1
    return -1


class BodyLimitMiddleware:
    """Refuse a request body over ``limit`` bytes (413), declared or chunked, or not declared as
    JSON in UTF-8 (415), when the route reads it; or that does not arrive in time (408: all of
    it within ``limits.body_seconds`` of the first read, and no pause between two pieces longer
    than ``limits.body_idle_seconds``)."""

    def __init__(
        self, app: ASGIApp, limit: int = MAX_BODY_BYTES, limits: ServerLimits | None = None
    ) -> None:
        limits = ServerLimits() if limits is None else limits
        self.app = app
        self.limit = limit
        self.body_seconds = limits.body_seconds
        self.idle_seconds = limits.body_idle_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        declared = declared_size(scope)
        received = 0
        complete = False
        whole_by: float | None = None  # when the whole body must have arrived

        async def limited() -> Message:
            nonlocal received, complete, whole_by
            if complete:  # what comes after the body (a disconnect) is waited for untimed
                return await receive()
            if declared > limit:
                raise BodyTooLargeError(f"request body: at most {limit} bytes")
            if received == 0:
                problem = media_type_problem(scope)
                if problem is not None:
                    raise UnsupportedMediaTypeError(problem)
            now = asyncio.get_running_loop().time()
            if whole_by is None:
                whole_by = now + self.body_seconds
            idle_by = now + self.idle_seconds
            try:
                async with asyncio.timeout_at(min(whole_by, idle_by)):
                    message = await receive()
            except TimeoutError:
                if idle_by < whole_by:
                    why = f"no part of it arrived for {self.idle_seconds:g} s"
                else:
                    why = f"not all of it arrived within {self.body_seconds:g} s"
                raise BodyTimeoutError(
                    f"request body: {why} ({received} bytes received); the connection is closed"
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLargeError(f"request body: at most {limit} bytes")
                complete = not message.get("more_body", False)
            else:
                complete = True
            return message

        await self.app(scope, limited, send)


class _JsonBodyRequest(Request):
    """A request whose body is read as JSON (its Content-Type was checked; FastAPI parses a body
    as JSON only when the header says so, and the check also lets pass a request without a
    body), parsed strictly as soon as it is read: a body that is not JSON, empty ones included,
    is refused (422 naming the body)."""

    @property
    def headers(self) -> Headers:
        if not hasattr(self, "_json_headers"):
            raw = [(k, v) for k, v in self.scope["headers"] if k != b"content-type"]
            self._json_headers = Headers(raw=[*raw, (b"content-type", b"application/json")])
        return self._json_headers

    async def body(self) -> bytes:
        body = await super().body()
        if not hasattr(self, "_json"):
            try:
                self._json = parse_json(body)
            except UnprocessableError as exc:  # raised as is by FastAPI's reading of a body
                raise HTTPException(422, exc.errors) from None
        return body

    async def json(self) -> Any:
        await self.body()
        return self._json


Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def _key_checks(route: APIRoute) -> list[KeyCheck]:
    """The key checks among ``route``'s dependencies."""
    checks: list[KeyCheck] = []
    for dependency in route.dependant.dependencies:
        call = dependency.call
        if isinstance(call, KeyCheck):
            checks.append(call)
    return checks


class ApiRoute(APIRoute):
    """FastAPI's route, with the route's key check first and bodies read as strict JSON (see
    the module)."""

    def get_route_handler(self) -> Handler:
        handler = super().get_route_handler()
        checks = _key_checks(self)
        json_body = self.body_field is not None
        if not checks and not json_body:
            return handler

        async def key_first(request: Request) -> Response:
            for check in checks:
                await check.before_body(request)
            if json_body:
                request = _JsonBodyRequest(request.scope, request.receive)
            return await handler(request)

        return key_first


class RawRoute(APIRoute):
    """A route whose endpoint takes the bare request and answers it: its key check, then the
    endpoint, without FastAPI's handling of the request (solving dependencies, validating
    parameters, reading the body, checking the answer against its model) or Starlette's
    (a request-response wrapper with its own exception handling: a refusal raised here is
    answered by the app's handlers, one layer up).

    FastAPI still routes it and documents it in the OpenAPI schema: its key check's parameters
    (declared as a dependency), its answers, and its body (``openapi_extra``). For the hot path
    only (see :mod:`mindsport.service.routes.matches` for why and what it saves)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        self._checks = _key_checks(self)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.methods and scope["method"] not in self.methods:  # 405, as FastAPI answers it
            await super().handle(scope, receive, send)
            return
        request = Request(scope, receive, send)
        for check in self._checks:
            await check.check(request)
        response: Response = await self.endpoint(request)
        await response(scope, receive, send)
