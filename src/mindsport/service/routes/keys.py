"""Keys, with an admin key: ``GET /api/keys`` (list), ``POST /api/keys`` (create: the key is in
this answer only) and ``DELETE /api/keys/{key_id}`` (revoke: refused from then on; never the
last active admin key)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from mindsport.service.dependencies import ADMIN_KEY, RuntimeDep
from mindsport.service.limits import MAX_KEY_ID
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import responses
from mindsport.service.schemas import LEAGUE_PATTERN, KeyIn, KeyOut, KeysOut, NewKeyOut
from mindsport.store.keys import parse_expiry

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute, dependencies=[ADMIN_KEY], tags=["admin"])


@router.get("/api/keys", responses=responses(401, 403, 404, 422))
async def list_keys(
    runtime: RuntimeDep, league: Annotated[str | None, Query(pattern=LEAGUE_PATTERN)] = None
) -> KeysOut:
    """Every key (never the key itself: its prefix), or the keys of one league (admin)."""
    got = await runtime.run(runtime.store.list_keys, league)
    return KeysOut(keys=[KeyOut.of(k) for k in got])


@router.post(
    "/api/keys", status_code=201, responses=responses(400, 401, 403, 404, 408, 413, 415, 422)
)
async def create_key(body: KeyIn, runtime: RuntimeDep) -> NewKeyOut:
    """A new write key of ``league``, or an admin key; the key is in this answer only."""
    expires = None if body.expires is None else parse_expiry(body.expires)
    st = runtime.store
    key, record = await runtime.run(
        lambda: st.issue_key(body.league, admin=body.admin, expires_at=expires, label=body.label)
    )
    return NewKeyOut.issued(key, record)


@router.delete("/api/keys/{key_id}", responses=responses(401, 403, 404, 409, 422))
async def revoke_key(
    key_id: Annotated[int, Path(ge=1, le=MAX_KEY_ID)], runtime: RuntimeDep
) -> KeyOut:
    """Revoke a key: refused from this moment on (admin key); 409 for the last active admin
    key."""
    return KeyOut.of(await runtime.run(runtime.store.revoke_key, key_id))
