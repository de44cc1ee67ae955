"""The settings of a rating model, described once: name, kind, default, allowed range, help.

Each model module declares its settings as a tuple of :class:`Param` (``TrueSkill.PARAMS`` ...).
The model checks itself against them when it is built (:func:`check_settings`), and the model
registry (:mod:`mindsport.rating.registry`) uses the same descriptions to check settings given by
name (command line, a league's JSON parameters), to parse them from text and to document them.

Every number a setting may hold is bounded, so that a model's arithmetic stays finite whatever
settings it is built with: a place on the rating scale (a prior mean, an initial rating, a
threshold, a bonus) within :data:`MAX_LOCATION` in magnitude, a scale (a deviation, a noise, a
divisor) in [:data:`MIN_SCALE`, :data:`MAX_SCALE`] (each model's ``PARAMS`` says why where its
arithmetic asks for narrower bounds).

>>> p = Param("beta", Kind.REAL, 25 / 6, "performance noise", MIN_SCALE, MAX_SCALE)
>>> p.allowed()
'a number in [0.001, 1e+06]'
>>> p.parse("4.5")
4.5
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from mindsport.errors import MindsportError

__all__ = [
    "MAX_COUNT",
    "MAX_LOCATION",
    "MAX_SCALE",
    "MIN_SCALE",
    "Kind",
    "Param",
    "ParameterError",
    "check_settings",
]

#: the largest magnitude of a setting that is a place on the rating scale (a prior mean, an
#: initial rating, a threshold, a placement bonus): a million points is far beyond any rating
#: scale in use (TrueSkill 25, Elo 1500), and sums and differences of such values over the
#: largest tables stay exact to well below a rating point
MAX_LOCATION = 1e6
#: the least positive scale (a deviation, a performance noise, a divisor): its square (1e-6) and
#: the squares of the deviations built from it stay far from underflow, so no variance or
#: precision becomes 0 or infinite; relative to the default scales (TrueSkill's beta 4.17,
#: Elo's 400) it is a thousandth of a point or less
MIN_SCALE = 1e-3
#: the largest scale: squares (1e12) and their sums over the largest tables stay finite and
#: exact enough; the same bound as the magnitude of a place (:data:`MAX_LOCATION`)
MAX_SCALE = 1e6
#: the largest count (iterations, sweeps, games): bounded work per game
MAX_COUNT = 1e6


class ParameterError(MindsportError):
    """A model setting is unknown, of the wrong kind or out of its allowed range."""


class Kind(Enum):
    """What a setting holds."""

    REAL = "number"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    CHOICE = "choice"
    TABLE = "table"  # a list of rows of numbers


def _real(x: object) -> bool:
    """A finite real number (Python or NumPy), not a bool (an integer of any size is finite)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return False
    return isinstance(x, numbers.Integral) or math.isfinite(x)


def _integer(x: object) -> bool:
    """An integer (Python or NumPy), not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


@dataclass(frozen=True)
class Param:
    """One setting of a model.

    ``low``/``high`` bound a number, or every number of a table (``*_open``: the bound itself
    is excluded); ``choices`` list
    the values of a choice; ``optional``: ``None`` is allowed (the feature is off);
    ``callable_ok``: a callable is allowed too (Elo's K schedule). ``rows_min``: the least
    length of each row of a table.
    """

    name: str
    kind: Kind
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    optional: bool = False
    callable_ok: bool = False
    rows_min: int = 1

    def _range(self, noun: str) -> str:
        """``noun`` (a number, numbers, an integer) with the range of :attr:`low`/:attr:`high`."""
        lo, hi = self.low, self.high
        if lo is not None and hi is not None:
            left = "(" if self.low_open else "["
            right = ")" if self.high_open else "]"
            return f"{noun} in {left}{lo:g}, {hi:g}{right}"
        if lo is not None:
            return f"{noun} {'>' if self.low_open else '>='} {lo:g}"
        if hi is not None:
            return f"{noun} {'<' if self.high_open else '<='} {hi:g}"
        return "a finite number" if noun == "a number" else noun

    def allowed(self) -> str:
        """The allowed values, in words (used in every error message)."""
        if self.kind is Kind.CHOICE:
            text = " or ".join(repr(c) for c in self.choices)
        elif self.kind is Kind.BOOLEAN:
            text = "true or false"
        elif self.kind is Kind.TABLE:
            text = f"a list of rows of at least {self.rows_min} {self._range('numbers')}"
        else:
            text = self._range("a number" if self.kind is Kind.REAL else "an integer")
        if self.callable_ok:
            text += " or a callable"
        if self.optional:
            text = "None or " + text
        return text

    def ok(self, value: object) -> bool:
        """Whether ``value`` is allowed."""
        if value is None:
            return self.optional
        if self.callable_ok and callable(value):
            return True
        if self.kind is Kind.CHOICE:
            return isinstance(value, str) and value in self.choices
        if self.kind is Kind.BOOLEAN:
            return isinstance(value, bool)
        if self.kind is Kind.TABLE:
            return (
                isinstance(value, Sequence)
                and not isinstance(value, str)
                and all(
                    isinstance(row, Sequence)
                    and not isinstance(row, str)
                    and len(row) >= self.rows_min
                    and all(_real(x) and self._within(x) for x in row)
                    for row in value
                )
            )
        if not (_real(value) if self.kind is Kind.REAL else _integer(value)):
            return False
        return self._within(value)  # type: ignore[arg-type]

    def _within(self, x: float) -> bool:
        """Whether the number ``x`` lies in the range of :attr:`low`/:attr:`high` (compared as
        it is: an integer too large for a float is simply out of range)."""
        if self.low is not None and (x <= self.low if self.low_open else x < self.low):
            return False
        return not (self.high is not None and (x >= self.high if self.high_open else x > self.high))

    def check(
        self, value: object, owner: str, error: type[MindsportError] = ParameterError
    ) -> None:
        """Raise ``error`` naming the setting, the value and the allowed values unless ok."""
        if not self.ok(value):
            raise error(f"{owner}: {self.name} must be {self.allowed()}, got {value!r}")

    def normalise(self, value: object) -> object:
        """A value given as data (JSON, text already parsed) in the setting's own type: whole
        numbers for integers (``3.0`` -> ``3``), floats for numbers, tuples for tables."""
        if value is None or (self.callable_ok and callable(value)):
            return value
        if self.kind is Kind.INTEGER and isinstance(value, numbers.Integral) and _real(value):
            return int(value)
        if self.kind is Kind.INTEGER and _real(value) and float(value).is_integer():  # type: ignore[arg-type]
            return int(value)  # type: ignore[call-overload]
        if self.kind is Kind.REAL and _real(value):
            try:
                return float(value)  # type: ignore[arg-type]
            except OverflowError:  # an integer beyond any float: refused as it is
                return value
        if self.kind is Kind.TABLE and self.ok(value):
            rows: Any = value
            return tuple(tuple(float(x) for x in row) for row in rows)
        return value

    def text(self, value: object) -> str:
        """``value`` written as :meth:`parse` reads it back (``none``, ``true``/``false``,
        numbers as Python writes them, a table as JSON, a name as it is): what a command line's
        ``--param NAME=TEXT`` takes for it.

        >>> p = Param("bonuses", Kind.TABLE, ((30.0, -30.0),), "placement bonuses")
        >>> p.text(((30.0, -30.0),)), p.parse(p.text(((30.0, -30.0),)))
        ('[[30.0, -30.0]]', ((30.0, -30.0),))
        """
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        if self.kind is Kind.TABLE and isinstance(value, Sequence) and not isinstance(value, str):
            return json.dumps([list(row) for row in value])
        return str(value) if isinstance(value, str) else repr(value)

    def parse(self, text: str) -> object:
        """The value written as ``text`` on a command line (numbers, true/false, none, JSON)."""
        t = text.strip()
        if self.optional and t.lower() in ("none", "null", "off"):
            return None
        if self.kind is Kind.BOOLEAN:
            low = t.lower()
            if low in ("true", "yes", "1", "on"):
                return True
            if low in ("false", "no", "0"):
                return False
            return t
        if self.kind is Kind.CHOICE:
            return t
        if self.kind is Kind.TABLE:
            try:
                return self.normalise(json.loads(t))
            except ValueError:
                return t
        try:
            number = float(t)
        except ValueError:
            return t
        return self.normalise(number)


def check_settings(
    obj: object, params: Sequence[Param], owner: str, error: type[MindsportError] = ParameterError
) -> None:
    """Check every setting of ``obj`` (its attributes named as ``params``)."""
    for p in params:
        p.check(getattr(obj, p.name), owner, error)
