"""Results as pandas DataFrames: the one place that imports pandas (the optional extra
``mindsport[pandas]``).

Every result that is a table has a ``to_frame()`` method that builds its DataFrame through this
module: a replay's ratings, predictions and skill history, an evaluation, a league's
leaderboard and a player's record, an event's standings (see docs/analysis.md). pandas is
imported when a frame is first asked for, never at import; without it ``to_frame()`` raises a
:class:`~mindsport.errors.MindsportError` saying how to install it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from mindsport.errors import MindsportError

__all__ = ["frame", "pandas", "value_fields"]


def pandas() -> ModuleType:
    """The pandas module (a clear error when it is not installed)."""
    try:
        import pandas as pd
    except ImportError as exc:
        raise MindsportError(
            "to_frame() needs pandas, which is not installed: "
            "pip install 'mindsport[pandas]' (or pip install pandas)"
        ) from exc
    return pd


def frame(
    rows: Iterable[Mapping[str, Any]] | Mapping[str, Any],
    columns: Sequence[str],
    *,
    index: str | None = None,
) -> Any:
    """A DataFrame of ``rows`` (mappings, one per row, or a mapping of column arrays) with these
    ``columns`` in this order (also when there are no rows); ``index``: the column to index
    by."""
    pd = pandas()
    data = rows if isinstance(rows, Mapping) else list(rows)
    df = pd.DataFrame(data, columns=list(columns))
    return df.set_index(index) if index is not None else df


def value_fields(value: Any) -> dict[str, Any]:
    """A rating value's fields by name (a dataclass's fields; else the value as ``rating``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    asdict = getattr(value, "_asdict", None)
    if asdict is not None:
        return dict(asdict())
    return {"rating": value}
