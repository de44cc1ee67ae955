"""The last line of defence: every rating the store writes or serves is finite.

The numbers that enter a rating are bounded where they enter (a model's settings by their
ranges, :mod:`mindsport.rating.params`; scores and luck by :class:`~mindsport.match.Match`;
score margins by :func:`~mindsport.rating.trueskill.margins.bounded_margin`), so no model should
ever produce an infinite or NaN rating. Should one all the same (a model's arithmetic failing in
a way no bound foresaw), this is the one check that keeps it out of the database and out of every
answer, the same on SQLite and PostgreSQL: the store runs it on every block of rating history it
is about to write (current ratings and virtual players come from those same values), on every
whole-history curve, and on every rating it reads back to serve. A batch that fails it is refused
whole (its transaction rolls back) with :class:`NonFiniteRatingError`, naming the match.

>>> first_non_finite([[25.0, 8.3], [24.0, float("inf")]])
1
>>> first_non_finite([1.0, 2.0]) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from mindsport.store.values import StoreError

__all__ = ["NonFiniteRatingError", "check_finite", "first_non_finite"]


class NonFiniteRatingError(StoreError):
    """A rating that would be written or served is infinite or NaN (names where it came from;
    nothing was written)."""


def first_non_finite(values: Any) -> int | None:
    """The index of the first entry (a number, or a row of numbers) of ``values`` that is not
    finite, or None when every one is."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        return None
    ok = np.isfinite(a).reshape(len(a), -1).all(axis=1) if a.ndim > 1 else np.isfinite(a)
    if bool(ok.all()):
        return None
    return int(np.argmin(ok))


def check_finite(values: Any, where: Any) -> None:
    """Raise :class:`NonFiniteRatingError` unless every entry of ``values`` is finite.

    ``where`` says what the entries are, as text (the same for all of them) or as one text per
    entry (each entry's match or player); the message names the first entry that is not finite.
    """
    at = first_non_finite(values)
    if at is None:
        return
    what = where if isinstance(where, str) else _nth(where, at)
    raise NonFiniteRatingError(
        f"{what}: a rating is not a finite number ({_row(values, at)}); it is neither stored nor "
        "served (the model's settings or the match's numbers are beyond what it can rate)"
    )


def _nth(items: Iterable[str], at: int) -> str:
    for i, item in enumerate(items):
        if i == at:
            return item
    return "a rating"


def _row(values: Any, at: int) -> str:
    row = np.asarray(values, dtype=np.float64)[at]
    return ", ".join(repr(float(x)) for x in np.atleast_1d(row))
