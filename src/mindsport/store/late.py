"""A league's policy for late results: how a match dated before the league's latest is rated.

* ``replay`` (the default): the matches that depend on it are re-rated, so the league's ratings
  are a replay of its log in time order (:meth:`Deriver.replay
  <mindsport.store.derive.Deriver.replay>` inside the post, or, when that is longer than one
  post may take, the league's catch-up in bounded pieces: :mod:`mindsport.store.catchup`).
* ``arrival``: matches are rated in the order they arrive (their commit sequence ``seq``); a
  late match is rated from its players' current ratings as if it had just been played, and its
  time is recorded as given. The league's ratings are a replay of its log in arrival order.
  Not for a whole-history model (``trueskill-history``), which re-derives every rating from
  the whole log at once whatever the order of arrival: such a league refuses it.
* ``refuse``: a match older than the league's latest time by more than ``refuse_older_than``
  (in the league's time units: days for date and time values, the number itself for numeric
  times) is refused (:class:`LateMatchError`, a conflict with what is recorded), and nothing
  of its post is written; a match within that age is replayed as under ``replay``. A match
  exactly ``refuse_older_than`` older than the latest is accepted.

The policy is a league setting stored with the league (not a rating model's parameter); changing
it re-rates nothing by itself (``Store.recompute`` re-rates the log in the new policy's order).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mindsport.errors import ConflictError
from mindsport.rating.replay.blocks import DAY
from mindsport.store.values import LatePolicy

__all__ = ["LateMatchError", "refusal"]


class LateMatchError(ConflictError):
    """A match older than its league's ``refuse`` policy allows (``field`` is ``time``)."""

    def __init__(self, message: str, match_id: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = "time"


def refusal(
    policy: LatePolicy, league: str, row: dict[str, Any], latest: float | None
) -> LateMatchError | None:
    """The refusal of the stored match ``row`` (:mod:`mindsport.store.codec`'s form) in
    ``league`` under ``policy``, the league's latest time being ``latest``; ``None`` when the
    match is accepted (any policy but ``refuse``, a first match, or not older than the latest
    by more than ``refuse_older_than``)."""
    age = policy.refuse_older_than
    if age is None or latest is None:
        return None
    dated = row.get("time_iso") is not None
    limit = age * DAY if dated else age
    if latest - float(row["time_value"]) <= limit:
        return None
    if dated:
        when = row["time_iso"]
        last = datetime.fromtimestamp(latest, UTC).isoformat()
        unit = "days"
    else:
        when, last, unit = f"{float(row['time_value']):g}", f"{latest:g}", "time units"
    return LateMatchError(
        f"match {row['match_id']!r} at time {when} is older than the latest result of "
        f"league {league!r} ({last}) by more than {age:g} {unit}: the league's late-result "
        f"policy refuses it (refuse_older_than={age:g}); nothing of this post was recorded",
        row["match_id"],
    )
