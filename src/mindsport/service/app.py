"""The HTTP service: a JSON API over :class:`mindsport.store.Store` and a leaderboard page.

Build it with :func:`create_app` (nothing is opened at import); run it with uvicorn, e.g.
``mindsport serve`` or ``python -m mindsport.service --db sqlite:///league.db``. The API, its
limits and status codes are described in ``docs/api.md`` and in the OpenAPI schema the app
serves at ``/openapi.json``.

Reads (``GET``), predictions and matchmaking need no key. Posting matches needs a write key of
the league (or an admin key) in ``X-API-Key``; creating and configuring leagues and managing keys
need an admin key. The key is checked before the body is read: 401 without one, 403 for a key
that is unknown, revoked, expired or not allowed there. Every body is limited in size (413,
refused before it is parsed) and in content (422 names each bad field); see
:mod:`mindsport.service.limits`.

``POST /api/leagues/{league}/matches`` is the hot path: a lean ASGI handler (no framework
dependency injection or response models) that hands the matches to the store's group commit and
answers once they are committed.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from pydantic import BaseModel
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from mindsport.errors import MindsportError
from mindsport.service.body import (
    BodyTooLargeError,
    declared_size,
    parse_matches,
    parse_model,
    read_limited,
)
from mindsport.service.event_schemas import EVENT_BODIES
from mindsport.service.events import event_router
from mindsport.service.limits import (
    COMPUTE_SECONDS,
    MAX_BATCH,
    MAX_BODY_BYTES,
    MAX_ID_LENGTH,
)
from mindsport.service.page import render_page
from mindsport.service.prepare import (
    GC_THRESHOLD,
    PREPARE_FROM_BYTES,
    PreparePool,
    default_workers,
)
from mindsport.service.refusals import MEANING, install_handlers, refusal, responses
from mindsport.service.runtime import Runtime
from mindsport.service.schemas import (
    ID_PATTERN,
    LEAGUE_PATTERN,
    ErrorOut,
    KeyIn,
    KeyOut,
    KeysOut,
    LeaderboardOut,
    LeagueIn,
    LeagueOut,
    LeaguePatch,
    LeaguesOut,
    Limit,
    MatchBatch,
    MatchesOut,
    MatchIn,
    MatchmakeIn,
    MatchmakeOut,
    NewKeyOut,
    Offset,
    PlayerOut,
    PredictIn,
    PredictOut,
    Search,
)
from mindsport.store import League, Store
from mindsport.store.keys import ApiKey, MissingKeyError, parse_expiry

__all__ = ["MAX_BATCH", "create_app"]

T = TypeVar("T")

LeagueName = Annotated[
    str, Path(pattern=LEAGUE_PATTERN, description="A league name", examples=["main"])
]
PlayerId = Annotated[
    str, Path(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN, description="A player")
]
ApiKeyHeader = Annotated[
    str | None,
    Header(
        alias="X-API-Key",
        description="A write key of the league, or an admin key",
        max_length=200,
    ),
]


#: seconds between the interpreter's thread switches while the app runs (default 0.005)
SWITCH_INTERVAL = 0.001


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _receive_chunks(receive: Receive) -> AsyncIterator[bytes]:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise BodyTooLargeError("the client went away before sending its whole body")
        yield message.get("body", b"")
        if not message.get("more_body", False):
            return


class _MatchPoster:
    """``POST /api/leagues/{league}/matches`` as a plain ASGI endpoint (the hot path).

    Key first (401/403/404), then the body (413 past the limit), then strict parsing (422; a
    large body in a worker process of ``pool`` when there is one), then the store's group commit;
    the answer is sent once the matches are committed. Errors are raised and turned into
    responses by the app's exception handlers.
    """

    def __init__(self, store: Store, runtime: Runtime, pool: PreparePool | None) -> None:
        self.store = store
        self.runtime = runtime
        self.pool = pool

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        league = scope["path_params"]["league"]
        key = _header(scope, b"x-api-key")
        if not key:
            raise MissingKeyError("header X-API-Key is required to write")
        if self.store.is_sqlite:  # one indexed read of a local file: no thread hop
            self.store.authorize(key, league)
        else:
            await self.runtime.run(self.store.authorize, key, league)
        declared = _header(scope, b"content-length")
        # a large post holds its place in the league's group commit while it is read and parsed
        place = None
        if declared_size(declared) >= PREPARE_FROM_BYTES:
            place = self.store.reserve_matches(league)
        try:
            body = await read_limited(_receive_chunks(receive), declared, MAX_BODY_BYTES)
            prepared = None
            if self.pool is not None and len(body) >= PREPARE_FROM_BYTES:
                prepared = await self.pool.prepare(body)
            if prepared is not None:
                future = self.store.submit_matches(league, prepared, reservation=place)
            elif len(body) < PREPARE_FROM_BYTES:  # small: parse here; large: off the event loop
                future = self.store.submit_matches(league, parse_matches(body), reservation=place)
            else:
                future = await self.runtime.run(
                    lambda: self.store.submit_matches(
                        league, parse_matches(body), reservation=place
                    )
                )
        finally:
            if place is not None:  # refused before it was submitted: the place is given up
                self.store.release_matches(place)
        result = await asyncio.wrap_future(future)
        payload = json.dumps(result.as_dict()).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


_MATCHES_PATH = re.compile(r"^/api/leagues/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})/matches$")


class _ServiceApp(FastAPI):
    """The FastAPI app, with posts of matches dispatched straight to their lean handler (the
    same handler the router holds, minus the middleware layers)."""

    poster: _MatchPoster | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and self.poster is not None:
            found = _MATCHES_PATH.match(scope["path"])
            if found is not None and not scope.get("root_path"):
                scope["path_params"] = {"league": found.group(1)}
                try:
                    await self.poster(scope, receive, send)
                except MindsportError as exc:
                    await refusal(exc)(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def _key_out(k: ApiKey) -> dict[str, Any]:
    return {
        "id": k.id,
        "role": k.role.value,
        "league": k.league,
        "prefix": k.prefix,
        "label": k.label,
        "created_at": k.created_at,
        "expires_at": k.expires_at,
        "revoked_at": k.revoked_at,
        "status": k.status(),
    }


def _league_out(lg: League) -> dict[str, Any]:
    return {"name": lg.name, "model": lg.model, "params": lg.params, "matches": lg.matches}


def create_app(
    database_url: str | None = None,
    *,
    store: Store | None = None,
    prepare_workers: int | None = 0,
) -> FastAPI:
    """The FastAPI application over the database at ``database_url`` (or an open ``store``).

    The store is opened here (tables created when missing) and closed at shutdown when the app
    opened it. With ``prepare_workers`` > 0, large posts of matches are parsed and prepared in
    that many worker processes (:mod:`mindsport.service.prepare`), started with the app;
    ``None``: as many as :func:`~mindsport.service.prepare.default_workers` (what the servers
    of the command line use unless told).
    """
    workers = default_workers() if prepare_workers is None else prepare_workers
    pool = None if workers == 0 else PreparePool(workers)
    own = store is None
    rt = Runtime(Store(database_url) if store is None else store, pool, owns_store=own)
    st = rt.store

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # the event loop and the writer threads hand the interpreter lock over often: a short
        # switch interval keeps a writer that got its database answer from waiting 5 ms
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
        # what exists now (modules, schemas, the store) lives as long as the app: kept out of
        # the cyclic garbage collector's passes; and the young generation is collected every
        # GC_THRESHOLD allocations instead of 700 (a request allocates thousands of short-lived
        # objects: with the default the collector took as long as the work itself)
        thresholds = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(GC_THRESHOLD, 20, 20)
        rt.start()
        try:
            yield
        finally:
            gc.set_threshold(*thresholds)
            gc.unfreeze()
            sys.setswitchinterval(interval)
            rt.close()

    app = _ServiceApp(
        title="mindsport",
        summary="Ratings of competitive mind sports: leagues, matches, leaderboards, predictions",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.store = st

    install_handlers(app)

    # -- keys ---------------------------------------------------------------------------------
    async def admin(x_api_key: ApiKeyHeader = None) -> None:
        """An admin key is required (checked before the body is read)."""
        await rt.run(st.authorize, x_api_key, None)

    Admin = Depends(admin)

    async def body_of(request: Request, model: type[BaseModel]) -> Any:
        raw = await read_limited(
            request.stream(), request.headers.get("content-length"), MAX_BODY_BYTES
        )
        return parse_model(raw, model)

    # -- the hot path -------------------------------------------------------------------------
    app.poster = _MatchPoster(st, rt, pool)
    app.router.routes.append(Route("/api/leagues/{league}/matches", app.poster, methods=["POST"]))

    # -- reads ----------------------------------------------------------------------------------
    @app.get("/api/leagues", response_model=LeaguesOut, tags=["leagues"])
    async def list_leagues() -> dict[str, Any]:
        """Every league with its model, parameters and number of matches."""
        got = await rt.run(st.list_leagues)
        return {"leagues": [_league_out(lg) for lg in got]}

    @app.get(
        "/api/leagues/{league}/leaderboard",
        response_model=LeaderboardOut,
        responses=responses(404, 422),
        tags=["ratings"],
    )
    async def leaderboard(
        league: LeagueName,
        offset: Annotated[Offset, Query()] = 0,
        limit: Annotated[Limit, Query()] = 50,
        search: Annotated[Search | None, Query()] = None,
    ) -> dict[str, Any]:
        """Players by the model's conservative rating (best first), with their overall rank;
        ``search`` keeps ids containing it (case-insensitive)."""
        page = await rt.run(
            lambda: st.leaderboard(league, offset=offset, limit=limit, search=search or None)
        )
        d = page.display
        return {
            "league": page.league,
            "display": None
            if d is None
            else {  # labels of the rating columns (exposed is what the board is sorted by)
                "mu": d.value_label,
                "sigma": d.deviation_label,
                "exposed": d.conservative,
            },
            "total": page.total,
            "offset": page.offset,
            "limit": page.limit,
            "search": search or "",
            "items": [
                {
                    "rank": e.rank,
                    "player": e.player,
                    "mu": e.mu,
                    "sigma": e.sigma,
                    "exposed": e.exposed,
                    "games": e.games,
                }
                for e in page.entries
            ],
            "roles": [
                {"role": r.role, "advantage": r.advantage, "sigma": r.sigma} for r in page.roles
            ],
        }

    @app.get(
        "/api/leagues/{league}/players/{player:path}",
        response_model=PlayerOut,
        responses=responses(404, 422),
        tags=["ratings"],
    )
    async def player(league: LeagueName, player: PlayerId) -> dict[str, Any]:
        """A player's rating, overall rank and rating after each of their games (``history``),
        or in a whole-history league the smoothed skill curve (``curve``: the skill at each
        time step the player played in, given every game of the league)."""
        rec = await rt.run(st.player, league, player)
        return {
            "league": rec.league,
            "player": rec.player,
            "rank": rec.rank,
            "mu": rec.state.mu,
            "sigma": rec.state.sigma,
            "exposed": rec.exposed,
            "games": rec.games,
            "history": [
                {"match_id": h.match_id, "seq": h.seq, "time": h.time, "mu": h.mu, "sigma": h.sigma}
                for h in rec.history
            ],
            "curve": [{"time": c.time, "mu": c.mu, "sigma": c.sigma} for c in rec.curve],
        }

    # -- computations ---------------------------------------------------------------------------
    @app.post(
        "/api/leagues/{league}/predict",
        response_model=PredictOut,
        responses=responses(400, 404, 413, 422, 429),
        openapi_extra={"requestBody": _body_doc(PredictIn)},
        tags=["ratings"],
    )
    async def predict(request: Request, league: LeagueName) -> dict[str, Any]:
        """Win and place probabilities and the match quality of a game between ``teams``."""
        body = await body_of(request, PredictIn)
        async with rt.compute_slot():
            pr = await rt.run(lambda: st.predict(league, body.teams, allow_new=body.allow_new))
        return {
            "teams": pr.teams,
            "win_probability": pr.win_probability,
            "pairwise": pr.pairwise,
            "rank_probabilities": pr.rank_probabilities,
            "quality": pr.quality,
            "new_players": pr.new_players,
        }

    @app.post(
        "/api/leagues/{league}/matchmake",
        response_model=MatchmakeOut,
        responses=responses(400, 404, 413, 422, 429),
        openapi_extra={"requestBody": _body_doc(MatchmakeIn)},
        tags=["ratings"],
    )
    async def matchmake(request: Request, league: LeagueName) -> dict[str, Any]:
        """Balanced tables of ``shape`` from the waiting ``players`` (the worst table as good as
        possible); ``exact`` tells whether the seating is provably the best."""
        body = await body_of(request, MatchmakeIn)
        async with rt.compute_slot():
            deadline = time.monotonic() + COMPUTE_SECONDS
            plan = await rt.run(
                lambda: st.matchmake(
                    league, body.players, body.shape, allow_new=body.allow_new, deadline=deadline
                )
            )
        return {
            "shape": body.shape,
            "tables": [
                {"teams": [list(t) for t in tb.teams], "quality": tb.quality} for tb in plan.tables
            ],
            "waiting": list(plan.waiting),
            "worst_quality": plan.worst_quality,
            "exact": plan.exact,
        }

    # -- administration (admin key) -------------------------------------------------------------
    @app.post(
        "/api/leagues",
        status_code=201,
        response_model=LeagueOut,
        responses=responses(400, 401, 403, 409, 413, 422),
        openapi_extra={"requestBody": _body_doc(LeagueIn)},
        dependencies=[Admin],
        tags=["admin"],
    )
    async def create_league(request: Request) -> dict[str, Any]:
        """Create a league (admin key)."""
        body = await body_of(request, LeagueIn)
        return _league_out(await rt.run(st.create_league, body.name, body.model, body.params))

    @app.patch(
        "/api/leagues/{league}",
        response_model=LeagueOut,
        responses=responses(400, 401, 403, 404, 413, 422),
        openapi_extra={"requestBody": _body_doc(LeaguePatch)},
        dependencies=[Admin],
        tags=["admin"],
    )
    async def configure_league(request: Request, league: LeagueName) -> dict[str, Any]:
        """Change a league's model or parameters and re-rate its matches (admin key)."""
        body = await body_of(request, LeaguePatch)

        def change() -> dict[str, Any]:
            current = st.get_league(league)
            same = body.model is None or body.model == current.model
            params = dict(current.params) if same else {}
            for name, value in (body.params or {}).items():
                if value is None:
                    params.pop(name, None)
                else:
                    params[name] = value
            st.update_league(league, model=body.model, params=params)
            return _league_out(st.get_league(league))

        return await rt.run(change)

    @app.get(
        "/api/keys",
        response_model=KeysOut,
        responses=responses(401, 403, 404, 422),
        dependencies=[Admin],
        tags=["admin"],
    )
    async def list_keys(
        league: Annotated[str | None, Query(pattern=LEAGUE_PATTERN)] = None,
    ) -> dict[str, Any]:
        """Every key (never the key itself: its prefix), or the keys of one league (admin)."""
        got = await rt.run(st.list_keys, league)
        return {"keys": [_key_out(k) for k in got]}

    @app.post(
        "/api/keys",
        status_code=201,
        response_model=NewKeyOut,
        responses=responses(400, 401, 403, 404, 413, 422),
        openapi_extra={"requestBody": _body_doc(KeyIn)},
        dependencies=[Admin],
        tags=["admin"],
    )
    async def create_key(request: Request) -> dict[str, Any]:
        """A new write key of ``league``, or an admin key; the key is in this answer only."""
        body = await body_of(request, KeyIn)
        expires = None if body.expires is None else parse_expiry(body.expires)
        key, info = await rt.run(
            lambda: st.issue_key(
                body.league, admin=body.admin, expires_at=expires, label=body.label
            )
        )
        return {**_key_out(info), "key": key}

    @app.delete(
        "/api/keys/{key_id}",
        response_model=KeyOut,
        responses=responses(401, 403, 404, 422),
        dependencies=[Admin],
        tags=["admin"],
    )
    async def revoke_key(key_id: Annotated[int, Path(ge=1, le=2**31 - 1)]) -> dict[str, Any]:
        """Revoke a key: refused from this moment on (admin key)."""
        return _key_out(await rt.run(st.revoke_key, key_id))

    # -- events (mindsport.event) ------------------------------------------------------------
    app.include_router(event_router(st, rt.run, body_of, Admin))

    # -- the page -------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, responses=responses(422), tags=["page"])
    async def page(
        league: Annotated[str | None, Query(pattern=LEAGUE_PATTERN)] = None,
        search: Annotated[Search, Query()] = "",
        offset: Annotated[Offset, Query()] = 0,
        player: Annotated[
            str | None, Query(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)
        ] = None,
    ) -> HTMLResponse:
        """The leaderboard page (server-rendered; search, paging and a rating chart)."""
        html = await rt.run(render_page, st, league, search, offset, player)
        return HTMLResponse(html)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(model)}}}


_BODY_MODELS: tuple[type[BaseModel], ...] = (
    MatchIn,
    MatchBatch,
    PredictIn,
    MatchmakeIn,
    LeagueIn,
    LeaguePatch,
    KeyIn,
    MatchesOut,
    ErrorOut,
    *EVENT_BODIES,
)


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, plus the bodies read by hand (after the key check) and the hot path."""
    schema = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=(
            "Every request is bounded: bodies of at most "
            f"{MAX_BODY_BYTES} bytes (413), at most {MAX_BATCH} matches per post, and the "
            "list and number limits shown on each field (422). Keys go in X-API-Key: 401 "
            "without one, 403 for a key that is unknown, revoked, expired or not allowed; the "
            "key is checked before the body is read."
        ),
        routes=app.routes,
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for model in _BODY_MODELS:
        js = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(js.pop("$defs", {}))
        components[model.__name__] = js
    schema["paths"]["/api/leagues/{league}/matches"] = {
        "post": {
            "tags": ["matches"],
            "summary": "Post matches",
            "description": (
                'One match, a list of matches, or {"matches": [...]}: all stored or none. '
                "Identical re-posts are counted as duplicates; a recorded id with other data "
                "is 409. Answered once the matches are committed."
            ),
            "operationId": "post_matches",
            "parameters": [
                {
                    "name": "league",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "pattern": LEAGUE_PATTERN},
                },
                {
                    "name": "X-API-Key",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "maxLength": 200},
                    "description": "A write key of the league, or an admin key",
                },
            ],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "anyOf": [
                                _ref(MatchIn),
                                {"type": "array", "items": _ref(MatchIn), "maxItems": MAX_BATCH},
                                _ref(MatchBatch),
                            ]
                        }
                    }
                },
            },
            "responses": {
                "200": {
                    "description": "Committed",
                    "content": {"application/json": {"schema": _ref(MatchesOut)}},
                },
                **{
                    str(c): {
                        "description": MEANING[c],
                        "content": {"application/json": {"schema": _ref(ErrorOut)}},
                    }
                    for c in (400, 401, 403, 404, 409, 413, 422)
                },
            },
        }
    }
    return schema
