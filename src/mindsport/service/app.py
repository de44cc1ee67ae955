"""The app factory: :func:`create_app` builds the runtime (the store with its group commit, the
threads, the computation slots, the worker processes preparing large posts), adds the
body-size and security-header middlewares and the refusal handlers, and includes the routers of
:mod:`mindsport.service.routes`.

Run the app with uvicorn, e.g. ``mindsport serve`` or ``python -m mindsport.service --db
sqlite:///league.db``. The API, its limits and status codes are described in ``docs/api.md`` and
in the OpenAPI schema the app serves at ``/openapi.json`` (FastAPI's, from the routes' typed
parameters, bodies and answers).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from mindsport.service.computing import ComputePool
from mindsport.service.headers import SecurityHeadersMiddleware
from mindsport.service.limits import MAX_BATCH, MAX_BODY_BYTES, ServerLimits
from mindsport.service.middleware import BodyLimitMiddleware
from mindsport.service.prepare import PreparePool
from mindsport.service.refusals import FAULT_RESPONSES, install_handlers
from mindsport.service.routes import events, forecasts, keys, leagues, matches, page, players
from mindsport.service.routes.matches import MatchPoster
from mindsport.service.runtime import Runtime
from mindsport.service.workers import GC_THRESHOLD, default_workers
from mindsport.store import Store

__all__ = ["ServiceApp", "create_app"]

#: seconds between the interpreter's thread switches while the app runs (default 0.005)
SWITCH_INTERVAL = 0.001

DESCRIPTION = (
    "Every request is bounded: bodies of at most "
    f"{MAX_BODY_BYTES} bytes (413), at most {MAX_BATCH} matches per post, and the "
    "list and number limits shown on each field (422). Keys go in X-API-Key: 401 "
    "without one, 403 for a key that is unknown, revoked, expired or not allowed; the "
    "key is checked before the body is read."
)


class ServiceApp(FastAPI):
    """The service's FastAPI app; ``poster`` is the handler of posted matches."""

    poster: MatchPoster


def create_app(
    database_url: str | None = None,
    *,
    store: Store | None = None,
    prepare_workers: int | None = 0,
    limits: ServerLimits | None = None,
) -> ServiceApp:
    """The FastAPI application over the database at ``database_url`` (or an open ``store``).

    The store is opened here (tables created when missing) and closed at shutdown when the app
    opened it. With ``prepare_workers`` > 0, large posts of matches are parsed and prepared in
    that many worker processes (:mod:`mindsport.service.prepare`), started with the app, and
    matchmaking searches without a key run in one more (:mod:`mindsport.service.computing`);
    ``None``: as many as :func:`~mindsport.service.workers.default_workers` (what the servers
    of the command line use unless told). ``limits``: the body timeouts (the rest of
    :class:`~mindsport.service.limits.ServerLimits` is the HTTP server's,
    :func:`mindsport.service.serving.uvicorn_config`).
    """
    workers = default_workers() if prepare_workers is None else prepare_workers
    pool = None if workers == 0 else PreparePool(workers)
    computing = None if workers == 0 else ComputePool(1)
    own = store is None
    runtime = Runtime(
        Store(database_url) if store is None else store,
        pool,
        owns_store=own,
        computing=computing,
    )

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
        runtime.start()
        try:
            yield
        finally:
            gc.set_threshold(*thresholds)
            gc.unfreeze()
            sys.setswitchinterval(interval)
            runtime.close()

    app = ServiceApp(
        title="mindsport",
        summary="Ratings of competitive mind sports: leagues, matches, leaderboards, predictions",
        description=DESCRIPTION,
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    app.state.store = runtime.store
    app.poster = MatchPoster(runtime)
    app.add_middleware(BodyLimitMiddleware, limit=MAX_BODY_BYTES, limits=limits)
    app.add_middleware(
        SecurityHeadersMiddleware,
        without_policy=(app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url),
    )
    install_handlers(app)
    # the hot path's route goes first into the app's own router: a route of an included router
    # is reached through FastAPI's inclusion layer (30 us a request, a tenth of a small post's)
    app.router.routes[:0] = matches.router.routes
    for module in (leagues, players, forecasts, keys, events, page):
        app.include_router(module.router, responses=FAULT_RESPONSES)
    return app
