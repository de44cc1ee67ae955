"""The routes of the HTTP API, one module per resource, each an :class:`fastapi.APIRouter`
(of :class:`~mindsport.service.middleware.ApiRoute` routes) that
:func:`mindsport.service.app.create_app` includes:

* :mod:`.matches`: posting matches (the hot path, a raw handler: see the module);
* :mod:`.leagues`: listing, creating and configuring leagues;
* :mod:`.players`: a league's leaderboard and a player's rating and history;
* :mod:`.forecasts`: predictions and matchmaking (bounded computations);
* :mod:`.keys`: creating, listing and revoking keys;
* :mod:`.events`: tournament events (:mod:`mindsport.event` over HTTP) and their pages;
* :mod:`.page`: the leaderboard page.

A route module may import the rest of :mod:`mindsport.service` (what it shares from
:mod:`~mindsport.service.dependencies`, its bodies from :mod:`~mindsport.service.schemas` or
:mod:`~mindsport.service.event_schemas`, its error answers from
:mod:`~mindsport.service.refusals`) and the layers the service may import (the store, events,
...); no route module imports another, and nothing but :mod:`mindsport.service.app` imports
them.
"""
