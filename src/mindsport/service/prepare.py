"""Large posts of matches prepared in worker processes, beside the database writer.

Preparing a post (strict JSON and field checks, :class:`~mindsport.match.Match` records, their
stored form and digests: :func:`mindsport.store.prepare_matches`) needs no database and costs
about as much interpreter time as the commit that follows. In one process the two take turns on
the interpreter lock, so a server on two cores used one of them. A :class:`PreparePool` prepares
large posts in worker processes while the store's writer commits earlier ones.

The pool speeds the server up and changes no answer:

* a post the worker refuses for its content (malformed JSON, a bad field) is refused with the
  errors the server's own parser gives (the worker runs that parser);
* anything else out of the ordinary (a worker that died, a refusal the store makes while
  preparing, such as one match id given twice with different data) sends the post back to the
  server, which parses and prepares it itself and answers as it would without a pool.

The workers are those of :mod:`mindsport.service.workers`.
"""

from __future__ import annotations

from typing import Any

from mindsport.errors import MindsportError
from mindsport.service.body import UnprocessableError, parse_matches
from mindsport.service.workers import WorkerPool
from mindsport.store import PreparedMatches, prepare_matches

__all__ = ["PREPARE_FROM_BYTES", "PreparePool"]

#: smallest body sent to a worker (a smaller one costs less to parse than to send)
PREPARE_FROM_BYTES = 65_536

# what a worker answers: (kind, value)
_PREPARED = "prepared"  # value: PreparedMatches
_REFUSED = "refused"  # value: the parser's list of errors (HTTP 422)
_IN_SERVER = "in-server"  # value: None; the server prepares the post itself


def _prepare(body: bytes) -> tuple[str, Any]:
    """In a worker: the post ``body`` parsed and prepared, or why not (see the module)."""
    try:
        matches = parse_matches(body)
    except UnprocessableError as exc:
        return _REFUSED, exc.errors
    except Exception:  # the server's own parse raises it again, with its own status
        return _IN_SERVER, None
    try:
        return _PREPARED, prepare_matches(matches)
    except MindsportError:  # a refusal of the store: raised again by the server's own call
        return _IN_SERVER, None


class PreparePool(WorkerPool):
    """``workers`` processes preparing posted bodies (:meth:`prepare`)."""

    doing = "preparing posts"

    async def prepare(self, body: bytes) -> PreparedMatches | None:
        """The post ``body`` prepared by a worker; :class:`UnprocessableError` (422) when the
        parser refuses it; ``None`` when the server must prepare it itself (see the module)."""
        done, answer = await self.run(_prepare, body)
        if not done:  # a worker died: the server prepares it
            return None
        kind, value = answer
        if kind == _REFUSED:
            raise UnprocessableError(value)
        if kind == _PREPARED:
            return value
        return None
