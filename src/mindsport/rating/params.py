"""The settings of a rating model, described once: name, kind, default, allowed range, help.

Each model module declares its settings as a tuple of :class:`Param` (``TrueSkill.PARAMS`` ...).
The model checks itself against them when it is built (:func:`check_settings`), and the model
registry (:mod:`mindsport.rating.registry`) uses the same descriptions to check settings given by
name (command line, a league's JSON parameters), to parse them from text and to document them.

>>> p = Param("beta", Kind.REAL, 25 / 6, "performance noise", low=0.0, low_open=True)
>>> p.allowed()
'a number > 0'
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

__all__ = ["Kind", "Param", "ParameterError", "check_settings"]


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
    """A finite real number (Python or NumPy), not a bool."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _integer(x: object) -> bool:
    """An integer (Python or NumPy), not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


@dataclass(frozen=True)
class Param:
    """One setting of a model.

    ``low``/``high`` bound a number (``*_open``: the bound itself is excluded); ``choices`` list
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

    def allowed(self) -> str:
        """The allowed values, in words (used in every error message)."""
        if self.kind is Kind.CHOICE:
            text = " or ".join(repr(c) for c in self.choices)
        elif self.kind is Kind.BOOLEAN:
            text = "true or false"
        elif self.kind is Kind.TABLE:
            text = f"a list of rows of at least {self.rows_min} numbers"
        else:
            noun = "a number" if self.kind is Kind.REAL else "an integer"
            lo, hi = self.low, self.high
            if lo is not None and hi is not None:
                left = "(" if self.low_open else "["
                right = ")" if self.high_open else "]"
                text = f"{noun} in {left}{lo:g}, {hi:g}{right}"
            elif lo is not None:
                text = f"{noun} {'>' if self.low_open else '>='} {lo:g}"
            elif hi is not None:
                text = f"{noun} {'<' if self.high_open else '<='} {hi:g}"
            else:
                text = f"{'a finite number' if self.kind is Kind.REAL else 'an integer'}"
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
                    and all(_real(x) for x in row)
                    for row in value
                )
            )
        if not (_real(value) if self.kind is Kind.REAL else _integer(value)):
            return False
        x = float(value)  # type: ignore[arg-type]
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
        if self.kind is Kind.INTEGER and _real(value) and float(value).is_integer():  # type: ignore[arg-type]
            return int(value)  # type: ignore[call-overload]
        if self.kind is Kind.REAL and _real(value):
            return float(value)  # type: ignore[arg-type]
        if self.kind is Kind.TABLE and self.ok(value):
            rows: Any = value
            return tuple(tuple(float(x) for x in row) for row in rows)
        return value

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
