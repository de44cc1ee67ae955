"""What every match file format shares: the error naming file, line and field, the columns of
the long format and the parsing of one value (the row path's rules, which the column path
follows)."""

from __future__ import annotations

import gc
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Literal

from mindsport.errors import MindsportError
from mindsport.match import Match

__all__ = [
    "CSV_COLUMNS",
    "JSON_KEYS",
    "REQUIRED",
    "Format",
    "MatchFileError",
    "checked_match",
    "detect_format",
    "field_of",
    "parse_number",
    "parse_rank",
    "parse_time",
    "paused_gc",
    "time_to_text",
]

Format = Literal["jsonl", "csv", "parquet"]
CSV_COLUMNS = (
    "match_id",
    "time",
    "player",
    "team",
    "rank",
    "weight",
    "score",
    "role",
    "deal",
    "luck",
)
#: the columns a long-format file must have
REQUIRED = ("match_id", "time", "player", "team")
#: the keys a JSON Lines match may have
JSON_KEYS = frozenset(
    {"id", "time", "teams", "ranks", "weights", "scores", "roles", "deal", "luck"}
)


class MatchFileError(MindsportError):
    """A match file is malformed: the message names the file, line and field."""

    def __init__(
        self, path: str | os.PathLike[str], line: int | None, field: str | None, why: str
    ) -> None:
        where = str(path)
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {why}")
        self.path = str(path)
        self.line = line
        self.field = field


def detect_format(path: str | os.PathLike[str]) -> Format:
    """The format of a match file from its extension."""
    name = str(path).lower()
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    raise MindsportError(f"{path}: unknown match file type (name it .jsonl, .csv or .parquet)")


def time_to_text(t: datetime | float | int) -> str:
    """A match time as the text the CSV writer puts in the file."""
    if isinstance(t, datetime):
        return t.isoformat()
    return repr(t) if isinstance(t, float) else str(t)


def parse_time(text: str) -> datetime | float | int:
    """A time from its text: an integer, else a number, else an ISO datetime."""
    s = text.strip()
    if not s:
        raise ValueError("empty time")
    try:
        return int(s)
    except ValueError:
        pass
    try:
        x = float(s)
    except ValueError:
        pass
    else:
        if math.isnan(x):
            raise ValueError(f"time is not a number: {s!r}")
        return x
    try:
        return datetime.fromisoformat(s)
    except ValueError:
        raise ValueError(f"expected an ISO datetime or a number, got {s!r}") from None


def parse_number(text: str, what: str) -> float:
    """A finite number from its text (``what`` names it in the error)."""
    try:
        x = float(text)
    except ValueError:
        raise ValueError(f"expected a number for {what}, got {text!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{what} must be finite, got {text!r}")
    return x


def parse_rank(text: str) -> int | None:
    """A rank from its text (empty: unranked)."""
    s = text.strip()
    if not s:
        return None
    try:
        return int(s)
    except ValueError:
        x = parse_number(s, "rank")
        if x != int(x):
            raise ValueError(f"rank must be an integer, got {s!r}") from None
        return int(x)


def field_of(message: str) -> str | None:
    """The field an :class:`~mindsport.match.InvalidMatchError`'s message is about."""
    for f in ("time", "teams", "ranks", "weights", "scores", "roles", "deal", "luck", "id"):
        if f": {f}:" in message or message.startswith(f"match {f}"):
            return f
    return None


def checked_match(m: Any) -> Match:
    """``m`` if it is a :class:`Match` (what the writers accept), else an error."""
    if not isinstance(m, Match):
        raise MindsportError(f"write_matches: expected Match objects, got {m!r}")
    return m


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a reader makes a million objects at once
    (none of them in a cycle): each collection it would start walks every object made so far,
    which costs more than the reading. Restored as it was, whatever happens.

    On the way out the objects made meanwhile join the oldest generation at once
    (``gc.freeze()`` then ``gc.unfreeze()``: two list moves) rather than through the two
    younger ones, whose passes would walk every one of them again, once each, to find no cycle
    (0.4 s after a read of a million matches). Everything stays collectable: the oldest
    generation is walked by every full collection, as it would have been once they got there."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
