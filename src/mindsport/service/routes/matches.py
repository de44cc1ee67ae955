"""Posting matches, ``POST /api/leagues/{league}/matches``: the hot path.

Key first (a write key of the league or an admin key: 401/403/404, before anything is read; see
:data:`~mindsport.service.dependencies.LEAGUE_WRITE_KEY`), then the body: its declared size (413
past the limit) and type (415 unless ``application/json``), checked before it is read, then
strict parsing (422), then the store's group commit; the answer is sent once the matches are
committed.

The route is FastAPI's, but its handler reads the body itself (:class:`MatchPoster`) instead of
taking a typed body parameter, because it does what a framework body cannot:

* a large post (:data:`~mindsport.service.prepare.PREPARE_FROM_BYTES` and more) holds its place
  in its league's group commit from the moment its headers arrive, before its body is read, and
  gives it up as soon as its body pauses for longer than
  :data:`~mindsport.service.limits.RESERVATION_STALL_SECONDS` or has not all arrived
  :data:`~mindsport.service.limits.RESERVATION_SECONDS` after the headers (a slow client never
  makes the league's commits wait for it; its post, if it ever arrives, is committed without
  the place, and the body timeouts of the app's middleware bound how long it may take);
* a large body is parsed and prepared for the database in a worker process
  (:mod:`mindsport.service.prepare`) while the writer commits earlier posts, or else on a
  thread, never on the event loop;
* a small one is parsed where it is, and answered with the bytes of its JSON, no response model.

Its request body is still in the OpenAPI schema, generated from :data:`MatchPost`
(``openapi_extra``), and FastAPI routes it (:class:`~mindsport.service.middleware.RawRoute`).

Why not a typed body: a route taking ``body: MatchPost`` answers a bad match with pydantic's
errors for each member of the union (``["body", "MatchIn", "time"]`` instead of ``["body",
"time"]``), and it costs twice the server's time. Measured with ``benchmarks/load_service.py
--matches 4000`` (SQLite, 16 clients, one match a post, 2 cores shared with other work; the
server's own CPU time per 1,000 matches, which the other work changes least, and matches/s),
three rounds each, alternately:

==================================================  ==================  ==============
handler of the post                                 server ms / 1,000   matches/s
==================================================  ==================  ==============
before: a plain ASGI handler beside the router      1120, 1070, 1235    836, 576, 509
this one, routed by FastAPI                         1530, 1410, 1155    524, 617, 484
a FastAPI route with a typed ``MatchPost`` body     2680, 2555, 2125    260, 238, 273
==================================================  ==================  ==============

The same handler behind FastAPI's request handling (a dependency for the key, FastAPI
reading nothing but solving the dependencies) took 1895 and 1970 ms per 1,000 matches, against
1140 and 905 before: hence :class:`~mindsport.service.middleware.RawRoute`, and its place first
in the app's own router (see :mod:`mindsport.service.app`). In the app alone (a store that
accepts at once, per post): 195 us before, 265 us now, 620 us behind FastAPI's request
handling, 1,800 us with a typed body; what is left of the difference is Starlette's and
FastAPI's middleware and routing, the price of one router. Posts of 1,000 matches
(``--matches 40000 --batch 1000 --clients 4``) cost the server the same as before: 116 and
111 ms per 1,000 matches before, 117 and 108 now.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import TypeAdapter

from mindsport.service.body import parse_matches
from mindsport.service.dependencies import LEAGUE_WRITE_KEY
from mindsport.service.limits import RESERVATION_SECONDS, RESERVATION_STALL_SECONDS
from mindsport.service.middleware import BodyTooLargeError, RawRoute, declared_size
from mindsport.service.prepare import PREPARE_FROM_BYTES, PreparePool
from mindsport.service.refusals import FAULT_RESPONSES, responses
from mindsport.service.runtime import Runtime
from mindsport.service.schemas import MatchesOut, MatchPost
from mindsport.store import Store
from mindsport.store.commit import Reservation

__all__ = ["MatchPoster", "router"]


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$defs`` written in place of their references: a schema that stands
    on its own in an operation of the OpenAPI document."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve(defs[ref.removeprefix("#/$defs/")])
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    out: dict[str, Any] = resolve(schema)
    return out


#: the request body as the OpenAPI schema shows it (FastAPI documents a body it reads itself)
MATCH_POST_BODY = {
    "required": True,
    "content": {"application/json": {"schema": _inline(TypeAdapter(MatchPost).json_schema())}},
}


async def _body(
    request: Request, store: Store, place: Reservation | None
) -> tuple[bytes, Reservation | None]:
    """The whole body (its size and the time it takes bounded by the app's body limit), and
    ``place``, the post's place in the group commit, or ``None`` once it was given up (released
    in ``store``) because the body paused or took too long (see the module)."""
    parts = []
    loop = asyncio.get_running_loop()
    give_up_by = loop.time() + RESERVATION_SECONDS
    while True:
        if place is None:
            message = await request.receive()
        else:
            try:
                async with asyncio.timeout_at(
                    min(give_up_by, loop.time() + RESERVATION_STALL_SECONDS)
                ):
                    message = await request.receive()
            except TimeoutError:  # the body stalls: the league's commits stop waiting for it
                store.release_matches(place)
                place = None
                continue
        if message["type"] == "http.disconnect":
            raise BodyTooLargeError("the client went away before sending its whole body")
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts), place


class MatchPoster:
    """Reads, parses and submits posts of matches to the store's group commit (see the
    module); ``runtime.prepare`` is the pool of worker processes for large posts."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    @property
    def pool(self) -> PreparePool | None:
        """The pool of worker processes preparing large posts (``None``: none)."""
        return self.runtime.prepare

    async def post(self, request: Request, league: str) -> Response:
        """The matches posted to ``league`` committed (the key was checked)."""
        store = self.runtime.store
        pool = self.runtime.prepare
        # a large post holds its place in the league's group commit while it is read and parsed
        place = None
        if declared_size(request.scope) >= PREPARE_FROM_BYTES:
            place = store.reserve_matches(league)
        try:
            body, place = await _body(request, store, place)
            prepared = None
            if pool is not None and len(body) >= PREPARE_FROM_BYTES:
                prepared = await pool.prepare(body)
            if prepared is not None:
                future = store.submit_matches(league, prepared, reservation=place)
            elif len(body) < PREPARE_FROM_BYTES:  # small: parse here; large: off the event loop
                future = store.submit_matches(league, parse_matches(body), reservation=place)
            else:
                future = await self.runtime.run(
                    lambda: store.submit_matches(league, parse_matches(body), reservation=place)
                )
        finally:
            if place is not None:  # refused before it was submitted: the place is given up
                store.release_matches(place)
        result = await asyncio.wrap_future(future)
        return Response(json.dumps(result.as_dict()).encode(), media_type="application/json")


router = APIRouter(route_class=RawRoute, tags=["matches"])


@router.post(
    "/api/leagues/{league}/matches",
    summary="Post matches",
    operation_id="post_matches",
    response_model=MatchesOut,
    response_description="Committed",
    responses={**responses(400, 401, 403, 404, 408, 409, 413, 415, 422), **FAULT_RESPONSES},
    dependencies=[LEAGUE_WRITE_KEY],
    openapi_extra={"requestBody": MATCH_POST_BODY},
)
async def post_matches(request: Request) -> Response:
    """One match, a list of matches, or {"matches": [...]}: all stored or none. Identical
    re-posts are counted as duplicates; a recorded id with other data is 409. Answered once the
    matches are committed."""
    poster: MatchPoster = request.app.poster
    return await poster.post(request, request.path_params["league"])
