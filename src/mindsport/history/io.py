"""Match files: JSONL, CSV long format and Parquet; streaming readers and atomic writers.

Formats (chosen by file extension, or ``format=``):

* **JSONL** (``.jsonl``/``.ndjson``): one match per line, an object with ``id``, ``time`` (ISO 8601
  string or number), ``teams`` (list of lists of player ids), ``ranks`` (list of ints or null;
  may be omitted when ``scores`` are given), optional ``weights`` (same shape as ``teams``) and
  ``scores`` (one number per team); for games of chance, optional ``roles`` (one role name per
  player, same shape as ``teams``), ``deal`` (the id of the cards dealt) and ``luck`` (the deal's
  expected result, one number per team; see :class:`mindsport.match.Match`).
* **CSV long format** (``.csv``): header
  ``match_id,time,player,team,rank[,weight][,score][,role][,deal][,luck]``, one row per player; a
  match's rows are consecutive; teams are told apart by the ``team`` label and ordered by first
  appearance. ``rank`` is the team's rank (empty: unranked); ``score`` is the team's score,
  repeated on each of its rows (empty ``rank`` column with scores: ranks from scores). ``time``
  is an ISO datetime or a number. Empty ``weight`` means no weights. ``role`` is the player's
  role (empty on every row of a match: no roles), ``deal`` the match's deal id (repeated on each
  row), ``luck`` the team's expected result (repeated on each of its rows).
* **Parquet** (``.parquet``, needs pyarrow): the same long columns.

:func:`read_located` (and :func:`mindsport.history.read_matches`, which reads the public data
sets too) reads a whole file on the column path: pyarrow's readers (CSV, Parquet, JSON Lines),
every column checked at once, the matches built without a check of their own
(:mod:`.formats.columns`). A file the column checks refuse, or one with ``role``, ``deal`` or
``luck`` values, is read again on the row path (each row parsed and checked in turn), which
names the first bad row; both paths give the same matches. :func:`iter_matches` streams a file
on the row path, in constant memory.

Reading errors raise :class:`MatchFileError` naming the file, the line (1-based, the header is
line 1 in CSV; the row number in Parquet) and the field. Writes are atomic: the data go to a
temporary file in the same folder that replaces the target only when complete, so a file is
written whole or not at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from mindsport.errors import MindsportError, NotFoundError
from mindsport.files import write_atomically
from mindsport.history.formats.common import (
    CSV_COLUMNS,
    JSON_KEYS,
    Format,
    MatchFileError,
    detect_format,
    paused_gc,
)
from mindsport.history.formats.csv import iter_csv, read_csv, write_csv
from mindsport.history.formats.jsonl import iter_jsonl, read_jsonl, write_jsonl
from mindsport.history.formats.parquet import iter_parquet, read_parquet, write_parquet
from mindsport.match import Match

__all__ = [
    "CSV_COLUMNS",
    "JSON_KEYS",
    "MatchFileError",
    "detect_format",
    "iter_located",
    "iter_matches",
    "read_located",
    "write_matches",
]

#: the keys of a JSON Lines match (kept under its old name for the docs' test)
_JSON_KEYS = JSON_KEYS


def _existing(path: str | os.PathLike[str], format: Format | None) -> tuple[str, Format]:
    p = os.fspath(path)
    fmt = format or detect_format(p)
    if not os.path.exists(p):
        raise NotFoundError(f"{p}: no such match file")
    if fmt not in ("jsonl", "csv", "parquet"):
        raise MindsportError(f"{p}: unknown format {fmt!r}")
    return p, fmt


def iter_matches(path: str | os.PathLike[str], format: Format | None = None) -> Iterator[Match]:
    """Stream the matches of a file one by one (constant memory apart from the seen ids)."""
    return (m for _, m in iter_located(path, format))


def iter_located(
    path: str | os.PathLike[str], format: Format | None = None
) -> Iterator[tuple[int, Match]]:
    """:func:`iter_matches` with the line each match starts on (1-based; the header is line 1
    of a CSV file; the row number in Parquet), for messages about a match found later."""
    p, fmt = _existing(path, format)
    if fmt == "jsonl":
        return iter_jsonl(p)
    if fmt == "csv":
        return iter_csv(p)
    return iter_parquet(p)


def read_located(
    path: str | os.PathLike[str], format: Format | None = None
) -> tuple[list[int], list[Match]]:
    """All matches of a JSONL, CSV or Parquet file in file order, and the line each starts on
    (as :func:`iter_located` gives them), on the column path when the file allows it."""
    p, fmt = _existing(path, format)
    read = {"jsonl": read_jsonl, "csv": read_csv, "parquet": read_parquet}
    with paused_gc():
        got = read[fmt](p)
    if got is not None:
        return got
    lines: list[int] = []
    matches: list[Match] = []
    for line, m in iter_located(p, fmt):
        lines.append(line)
        matches.append(m)
    return lines, matches


def write_matches(
    path: str | os.PathLike[str], matches: Iterable[Match], format: Format | None = None
) -> int:
    """Write matches atomically (whole file or nothing); returns the number written."""
    p = os.fspath(path)
    fmt = format or detect_format(p)
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise NotFoundError(f"{p}: folder {folder} does not exist")
    written = 0

    def write(tmp: Path) -> None:
        nonlocal written
        if fmt == "parquet":
            written = write_parquet(str(tmp), matches)
            return
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            written = write_jsonl(fh, matches) if fmt == "jsonl" else write_csv(fh, matches)

    write_atomically(p, write)
    return written
