"""CSV match files in the long format: a header, then one row per player (see
:mod:`mindsport.history.io`). :func:`iter_csv` reads row by row (the row path);
:func:`read_csv` a whole file on the column path (pyarrow's CSV reader, :mod:`.columns`)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from typing import IO, Any

from mindsport.history.formats.common import (
    CSV_COLUMNS,
    REQUIRED,
    MatchFileError,
    checked_match,
    time_to_text,
)
from mindsport.history.formats.long import group_long, long_rows
from mindsport.match import Match

__all__ = ["iter_csv", "write_csv"]


def iter_csv(path: str) -> Iterator[tuple[int, Match]]:
    with open(path, encoding="utf-8", newline="") as fh:
        delim = "\t" if path.lower().endswith(".tsv") else ","
        reader = csv.reader(fh, delimiter=delim)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            return
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise MatchFileError(path, 1, missing[0], f"missing column (header: {header!r})")
        unknown = [c for c in header if c not in CSV_COLUMNS]
        if unknown:
            raise MatchFileError(path, 1, unknown[0], "unknown column")
        if "rank" not in header and "score" not in header:
            raise MatchFileError(path, 1, "rank", "need a rank or a score column")

        def rows() -> Iterator[tuple[int, dict[str, Any]]]:
            for row in reader:
                line = reader.line_num
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise MatchFileError(
                        path, line, None, f"{len(row)} fields, the header has {len(header)}"
                    )
                yield line, dict(zip(header, row, strict=True))

        yield from group_long(path, rows(), text_times=True)


def write_csv(fh: IO[str], matches: Iterable[Match]) -> int:
    # The columns must be known before the first row: buffer nothing, write all optional ones.
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for m in matches:
        for r in long_rows(checked_match(m)):
            writer.writerow(
                [
                    r["match_id"],
                    time_to_text(r["time"]),
                    r["player"],
                    r["team"],
                    "" if r["rank"] is None else r["rank"],
                    "" if r["weight"] is None else repr(r["weight"]),
                    "" if r["score"] is None else repr(r["score"]),
                    "" if r["role"] is None else r["role"],
                    "" if r["deal"] is None else r["deal"],
                    "" if r["luck"] is None else repr(r["luck"]),
                ]
            )
        n += 1
    return n
