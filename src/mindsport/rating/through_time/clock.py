"""The clock of a whole history: match times as numbers, and the time step each falls in.

A history's times are all ``datetime`` values (counted in days, naive or aware) or all numbers
(counted as they are); :class:`Clock` learns which from the first match, refuses a time of the
other kind (:class:`~mindsport.rating.trueskill.game.InvalidGameError`), puts a time at the start
of its step (steps of ``time_step`` days or units) and turns a step back into a time.

>>> clock = Clock(0.5)
>>> clock.start(3)
>>> clock.step(7.3), clock.time(7.0)
(7.0, 7.0)
"""

from __future__ import annotations

import enum
import math
from datetime import UTC, datetime, timedelta

from mindsport.rating.trueskill.game import InvalidGameError

__all__ = ["Clock", "Kind"]

_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)
_DAY = 86400.0


class Kind(enum.Enum):
    """What the match times of a history are."""

    DATETIME = "datetime"
    NUMBER = "number"


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


class Clock:
    """The times of one history, in steps of ``time_step`` (days for ``datetime`` times, units
    for numbers). ``kind`` is None until the first time is seen (:meth:`start`)."""

    def __init__(self, time_step: float) -> None:
        self.time_step = time_step
        self.kind: Kind | None = None
        self.aware = False

    def start(self, first: datetime | float | int) -> None:
        """Take the kind of the history's times (and whether datetimes carry a time zone) from
        its first one, unless known already."""
        if self.kind is None:
            self.kind = Kind.DATETIME if isinstance(first, datetime) else Kind.NUMBER
            self.aware = isinstance(first, datetime) and first.tzinfo is not None

    @staticmethod
    def units(t: datetime | float | int) -> float:
        """A time in days (datetimes) or raw units (numbers)."""
        if isinstance(t, datetime):
            if t.tzinfo is not None:
                return (t - _EPOCH_UTC).total_seconds() / _DAY
            return (t - _EPOCH).total_seconds() / _DAY
        return float(t)

    def step(self, t: datetime | float | int) -> float:
        """The start of ``t``'s time step, in days or units."""
        w = self.time_step
        return math.floor(self.units(t) / w) * w

    def kind_of(self, t: object, what: str) -> Kind:
        """The kind of ``t``, which must be the history's (``what`` names ``t`` in the error)."""
        if isinstance(t, datetime):
            kind = Kind.DATETIME
        elif _number(t):
            kind = Kind.NUMBER
        else:
            raise InvalidGameError(f"{what}: time must be a datetime or a number, got {t!r}")
        if self.kind is not None and kind is not self.kind:
            raise InvalidGameError(
                f"{what}: time {t!r} is a {kind.value}, but this history's times are "
                f"{self.kind.value}s"
            )
        return kind

    def time(self, u: float) -> datetime | float:
        """The time ``u`` days or units stand for (a ``datetime`` in a history of them)."""
        if self.kind is Kind.DATETIME:
            return (_EPOCH_UTC if self.aware else _EPOCH) + timedelta(days=u)
        return u
