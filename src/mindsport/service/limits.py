"""The bounds on every request the service accepts (documented in the API and the OpenAPI schema).

Each request does bounded work: its body is at most :data:`MAX_BODY_BYTES` (refused with 413
before it is parsed), every list in it has a maximum length, every number a range, and the
computations whose cost grows fast (predictions, matchmaking) run at most :data:`COMPUTE_SLOTS`
at a time, each within :data:`COMPUTE_SECONDS`.
"""

from __future__ import annotations

from mindsport.match import MAX_RANK, MAX_TIME, MIN_TIME
from mindsport.matchmaking import MAX_POOL, MAX_TABLE
from mindsport.store.codec import MAX_ID_LENGTH
from mindsport.store.queries import MAX_OFFSET

__all__ = [
    "COMPUTE_SECONDS",
    "COMPUTE_SLOTS",
    "COMPUTE_WAIT_SECONDS",
    "MAX_BATCH",
    "MAX_BODY_BYTES",
    "MAX_ID_LENGTH",
    "MAX_LABEL_LENGTH",
    "MAX_LIMIT",
    "MAX_OFFSET",
    "MAX_PARAMS",
    "MAX_PARAM_VALUE",
    "MAX_POOL",
    "MAX_RANK",
    "MAX_SEARCH_LENGTH",
    "MAX_TABLE",
    "MAX_TEAMS",
    "MAX_TEAM_SIZE",
    "MAX_TIME",
    "MIN_TIME",
]

#: largest request body, in bytes (a 1,000-match batch takes about 100 kB)
MAX_BODY_BYTES = 2 * 1024 * 1024
#: most matches in one request
MAX_BATCH = 5_000
#: most teams in a match or a prediction
MAX_TEAMS = 16
#: most players in one team of a match or a prediction
MAX_TEAM_SIZE = 32
#: most rows of one leaderboard page
MAX_LIMIT = 500
#: longest leaderboard search text
MAX_SEARCH_LENGTH = 100
#: longest key label
MAX_LABEL_LENGTH = 100
#: most parameters of a league's model
MAX_PARAMS = 16
#: largest magnitude of a numeric model parameter
MAX_PARAM_VALUE = 1e6
#: predictions and matchmaking computed at the same time (others wait their turn)
COMPUTE_SLOTS = 2
#: longest wait for a computation slot before the request is refused with 429
COMPUTE_WAIT_SECONDS = 10.0
#: time budget of one matchmaking search (the best seating found by then is returned)
COMPUTE_SECONDS = 2.0
