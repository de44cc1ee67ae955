"""Every bound on what the service accepts and does, in one place (documented in ``docs/api.md``
and shown on each field of the OpenAPI schema).

Each request does bounded work: its body is at most :data:`MAX_BODY_BYTES` (refused with 413
before it is parsed), every list in it has a maximum length, every number a range, every text a
maximum length, and the computations whose cost grows fast (predictions, matchmaking) run at most
:data:`COMPUTE_SLOTS` at a time, each within :data:`COMPUTE_SECONDS`.

Some bounds belong to the layers below and are enforced there too; they are re-exported here so
that this module names every limit of the API:

* :mod:`mindsport.match`: :data:`MIN_TIME`, :data:`MAX_TIME` (the time axis), :data:`MAX_RANK`,
  :data:`MAX_LABEL` (a role or deal label), :data:`MAX_SCORE`, :data:`MAX_LUCK` (a score's and
  a luck's magnitude);
* :mod:`mindsport.store`: :data:`MAX_ID_LENGTH` (match and player ids), :data:`MAX_OFFSET` (the
  leaderboard's offset); the store also refuses a league name that does not match its pattern
  and a key that is not one of its own, whatever its length;
* :mod:`mindsport.matchmaking`: :data:`MAX_POOL`, :data:`MAX_TABLE` (a search's pool and table);
* :mod:`mindsport.event.model`: :data:`MAX_ROUNDS`, :data:`MAX_DEALS` (per round),
  :data:`MAX_PLAYERS` (of an event).
"""

from __future__ import annotations

from dataclasses import dataclass

from mindsport.event.model import MAX_DEALS, MAX_PLAYERS, MAX_ROUNDS
from mindsport.match import MAX_LABEL, MAX_LUCK, MAX_RANK, MAX_SCORE, MAX_TIME, MIN_TIME
from mindsport.matchmaking import MAX_POOL, MAX_TABLE
from mindsport.store.codec import MAX_ID_LENGTH
from mindsport.store.queries import MAX_OFFSET

__all__ = [
    "ANONYMOUS_COMPUTE_QUEUE",
    "ANONYMOUS_COMPUTE_SLOTS",
    "ANONYMOUS_CPU_BURST",
    "ANONYMOUS_CPU_SHARE",
    "ANONYMOUS_REFUSAL_SECONDS",
    "BACKLOG",
    "BODY_IDLE_SECONDS",
    "BODY_SECONDS",
    "COMPUTE_SECONDS",
    "COMPUTE_SLOTS",
    "COMPUTE_WAIT_SECONDS",
    "HEAD_SECONDS",
    "KEEP_ALIVE_SECONDS",
    "MAX_BATCH",
    "MAX_BOARDS",
    "MAX_BODY_BYTES",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_CLIENT",
    "MAX_DEALS",
    "MAX_EVENT_HANDS",
    "MAX_EVENT_NUMBER",
    "MAX_EXPIRES_LENGTH",
    "MAX_HAND_LENGTH",
    "MAX_HEAD_BYTES",
    "MAX_ID_LENGTH",
    "MAX_KEY_ID",
    "MAX_KEY_LENGTH",
    "MAX_LABEL",
    "MAX_LABEL_LENGTH",
    "MAX_LIMIT",
    "MAX_LUCK",
    "MAX_NAME_LENGTH",
    "MAX_OFFSET",
    "MAX_PARAMS",
    "MAX_PARAM_ROWS",
    "MAX_PARAM_VALUE",
    "MAX_PLAYERS",
    "MAX_POOL",
    "MAX_RANK",
    "MAX_ROUNDS",
    "MAX_ROUND_TABLES",
    "MAX_SCORE",
    "MAX_SEARCH_LENGTH",
    "MAX_SEED",
    "MAX_SHAPE_LENGTH",
    "MAX_TABLE",
    "MAX_TEAMS",
    "MAX_TEAM_SIZE",
    "MAX_TIE_BREAKS",
    "MAX_TIME",
    "MAX_WHO_LENGTH",
    "MAX_WHY_LENGTH",
    "MIN_TIME",
    "PAGE_SIZE",
    "REFUSED_LINGER_SECONDS",
    "RESERVATION_SECONDS",
    "RESERVATION_STALL_SECONDS",
    "ServerLimits",
]

# -- a request -------------------------------------------------------------------------------------
#: largest request body, in bytes (a 1,000-match batch takes about 100 kB)
MAX_BODY_BYTES = 2 * 1024 * 1024
#: longest X-API-Key header (a key is 47 characters)
MAX_KEY_LENGTH = 200
#: seconds a request body may take to arrive, from the server's first read of it (408 after)
BODY_SECONDS = 30.0
#: longest pause, in seconds, between two pieces of a request body (408 after)
BODY_IDLE_SECONDS = 10.0
#: a large post of matches (64 KiB or more) holds its place in its league's group commit while
#: its body arrives; the place is given up (the post is still read and committed, in arrival
#: order) when its body pauses for longer than this, in seconds ...
RESERVATION_STALL_SECONDS = 0.05
#: ... or when it has not all arrived this many seconds after the headers
RESERVATION_SECONDS = 0.5

# -- connections (the server: mindsport.service.serving) -------------------------------------------
#: seconds for a request head (request line and headers) to arrive completely, counted from the
#: connection's opening or from the answer to its previous request (408, or a silent close when
#: nothing of a request arrived)
HEAD_SECONDS = 10.0
#: whole seconds a connection may stay idle (no byte at all) after an answer before it is closed
KEEP_ALIVE_SECONDS = 5
#: largest request head, in bytes (431)
MAX_HEAD_BYTES = 64 * 1024
#: most open connections (a connection beyond is answered 503 and closed)
MAX_CONNECTIONS = 2_000
#: most open connections from one client address (a connection beyond is answered 429 and closed)
MAX_CONNECTIONS_PER_CLIENT = 100
#: connections the operating system queues before the server accepts them
BACKLOG = 2048
#: seconds a refused connection stays open after its answer so that the client reads it
REFUSED_LINGER_SECONDS = 1.0
#: seconds a refused connection waits for its answer: a client that reconnects as soon as it is
#: refused (a flood) is refused this much less often, so refusals cost the server little ...
REFUSED_DELAY_SECONDS = 2.0
#: ... and while many refused connections wait, each waits a second per this many of them when
#: that is longer (up to REFUSED_MAX_DELAY_SECONDS): a flood that reconnects as soon as it is
#: answered is answered at about this many connections a second, however many it opens
REFUSED_ANSWERS_PER_SECOND = 200
#: the longest a refused connection waits for its answer
REFUSED_MAX_DELAY_SECONDS = 120.0
#: open files the server keeps for itself beside its connections (the database, the worker
#: processes' pipes, its own modules): refused connections wait in what the open-file limit
#: leaves beside these and ``max_connections``; beyond, a refused connection is closed at once
#: without an answer (the server raises its open-file limit to the system's hard limit first)
RESERVED_FILES = 256


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """The limits of one server that its operator may change (``mindsport serve`` options):
    the body timeouts the app applies, and the connection limits and timeouts of its HTTP
    server (:func:`mindsport.service.serving.uvicorn_config`); each defaults to the constant of
    the same name."""

    body_seconds: float = BODY_SECONDS
    body_idle_seconds: float = BODY_IDLE_SECONDS
    head_seconds: float = HEAD_SECONDS
    keep_alive_seconds: int = KEEP_ALIVE_SECONDS
    max_head_bytes: int = MAX_HEAD_BYTES
    max_connections: int = MAX_CONNECTIONS
    max_connections_per_client: int = MAX_CONNECTIONS_PER_CLIENT
    backlog: int = BACKLOG

    def __post_init__(self) -> None:
        for name in ("body_seconds", "body_idle_seconds", "head_seconds", "keep_alive_seconds"):
            value = getattr(self, name)
            if not 0 < value <= 86_400:
                raise ValueError(f"{name}: a number of seconds in (0, 86400], got {value!r}")
        for name in ("max_head_bytes", "max_connections", "max_connections_per_client", "backlog"):
            value = getattr(self, name)
            if not 1 <= value <= 10_000_000:
                raise ValueError(f"{name}: a whole number in [1, 10000000], got {value!r}")


# -- matches ---------------------------------------------------------------------------------------
#: most matches in one request
MAX_BATCH = 5_000
#: most teams in a match or a prediction
MAX_TEAMS = 16
#: most players in one team of a match or a prediction
MAX_TEAM_SIZE = 32

# -- leaderboards, leagues and keys ----------------------------------------------------------------
#: most rows of one leaderboard page
MAX_LIMIT = 500
#: rows of one page of the server-rendered leaderboard page
PAGE_SIZE = 25
#: longest leaderboard search text
MAX_SEARCH_LENGTH = 100
#: largest key id (ids are 32-bit integers)
MAX_KEY_ID = 2**31 - 1
#: longest key label
MAX_LABEL_LENGTH = 100
#: longest key expiry text (a duration such as "30d", or an ISO 8601 date or datetime)
MAX_EXPIRES_LENGTH = 40
#: longest name of a model, of a model parameter, or a parameter's value when it is a name
MAX_NAME_LENGTH = 40
#: most parameters of a league's model
MAX_PARAMS = 16
#: largest magnitude of a numeric model parameter
MAX_PARAM_VALUE = 1e6
#: most rows of a table parameter (Tenhou's placement bonuses: a row per table size), and most
#: numbers in a row (one per place)
MAX_PARAM_ROWS = 16

# -- predictions and matchmaking -------------------------------------------------------------------
#: longest table shape text ("1v2", "2v2", "ffa4", ...)
MAX_SHAPE_LENGTH = 50
#: predictions and matchmaking computed at the same time (others wait their turn)
COMPUTE_SLOTS = 2
#: longest wait for a computation slot before the request is refused with 429
COMPUTE_WAIT_SECONDS = 10.0
#: time budget of one matchmaking search (the best seating found by then is returned)
COMPUTE_SECONDS = 2.0
#: predictions and matchmaking of requests without a key computed at the same time (apart from
#: the COMPUTE_SLOTS of requests with a key, so that anonymous loops never hold those)
ANONYMOUS_COMPUTE_SLOTS = 1
#: requests without a key waiting for an anonymous slot at most (429 beyond, after
#: ANONYMOUS_REFUSAL_SECONDS)
ANONYMOUS_COMPUTE_QUEUE = 4
#: CPU seconds per second that predictions and matchmaking without a key may take together (the
#: slots bound how many run at once, this how much of the server's interpreter they take): an
#: anonymous computation starts when the budget is not overdrawn, waiting for it at most
#: COMPUTE_WAIT_SECONDS (429 with Retry-After beyond), and its CPU time is charged when it ends
ANONYMOUS_CPU_SHARE = 0.1
#: CPU seconds the anonymous budget holds at most (what a quiet server lets a burst take)
ANONYMOUS_CPU_BURST = 2.0
#: seconds a request without a key refused for the anonymous queue or budget waits for its 429
#: (its Retry-After; a client looping on refusals then costs the server a refusal a second per
#: connection, not one per round trip)
ANONYMOUS_REFUSAL_SECONDS = 1.0

# -- events ----------------------------------------------------------------------------------------
#: most hands in an event's pool
MAX_EVENT_HANDS = 5_000
#: longest hand text, "[landlord][farmer1][farmer2]"
MAX_HAND_LENGTH = 80
#: most boards of a table's result (every rotation of each deal of a round: four at mahjong)
MAX_BOARDS = 4 * MAX_DEALS
#: most tables of a round (tables of three)
MAX_ROUND_TABLES = MAX_PLAYERS // 3
#: largest magnitude of a board score
MAX_EVENT_NUMBER = 1_000_000
#: largest random seed of an event
MAX_SEED = 2**53
#: most tie-breaks of an event
MAX_TIE_BREAKS = 2
#: longest name of who enters or corrects a result
MAX_WHO_LENGTH = 100
#: longest reason for a correction
MAX_WHY_LENGTH = 500
