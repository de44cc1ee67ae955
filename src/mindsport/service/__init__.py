"""HTTP service: the FastAPI JSON API over :class:`mindsport.store.Store` and the
server-rendered leaderboard and event pages.

Build the app with :func:`create_app` (``create_app("sqlite:///league.db")``); nothing is opened at
import. Where things are:

* :mod:`.app`: the app factory (runtime, middleware, refusal handlers, routers);
* :mod:`.routes`: one module per resource, each an ``APIRouter`` (matches, leagues, players,
  forecasts, keys, events, page);
* :mod:`.dependencies`: what routes share (the runtime, the key checks, path and header
  parameters); :mod:`.runtime`: the store, its threads, the computation slots;
* :mod:`.middleware`: the body-size limit and the key check before the body is read;
* :mod:`.schemas`, :mod:`.event_schemas`: request and response bodies (pydantic models, from
  which FastAPI writes the OpenAPI schema); :mod:`.body`: strict JSON and posts of matches;
* :mod:`.limits`: every limit; :mod:`.refusals`: errors as status codes and answers;
* :mod:`.prepare`: worker processes preparing large posts;
* :mod:`.cli`, ``__main__``: ``mindsport serve`` and ``python -m mindsport.service``.

It may import FastAPI, uvicorn, pydantic and the layers below it: ``errors``, ``match``,
``rating``, ``history``, ``matchmaking``, ``store``, ``event`` (and ``commandline`` for its
command); nothing of mindsport imports it but the command line.
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.service.app import create_app

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "create_app": "mindsport.service.app",
}

lazy_exports(__name__, _EXPORTS)


__all__ = ["create_app"]
