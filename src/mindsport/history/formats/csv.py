"""CSV match files in the long format: a header, then one row per player (see
:mod:`mindsport.history.io`). :func:`iter_csv` reads row by row (the row path);
:func:`read_csv` a whole file on the column path (pyarrow's CSV reader, :mod:`.columns`)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from typing import IO, Any

from mindsport.history.formats.columns import Located, located
from mindsport.history.formats.common import (
    CSV_COLUMNS,
    REQUIRED,
    MatchFileError,
    checked_match,
    time_to_text,
)
from mindsport.history.formats.long import group_long, long_parts, long_rows
from mindsport.match import Match

__all__ = ["iter_csv", "read_csv", "write_csv"]


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


def read_csv(path: str) -> Located | None:
    """The matches of a CSV (or TSV) file and their lines, on the column path (None: read it on
    the row path)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    with open(path, "rb") as fh:
        data = fh.read()
    if (
        b'"' in data
        or data.startswith(b"\xef\xbb\xbf")
        or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n"))
    ):
        return None
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    end = data.find(b"\n")
    head, newline = (data, b"") if end < 0 else (data[:end], b"\n")  # (no copy of the rest)
    try:
        names = [h.strip() for h in head.decode("utf-8").rstrip("\r").split(delimiter)]
    except UnicodeDecodeError:
        return None
    if (
        not newline
        or not set(REQUIRED) <= set(names) <= set(CSV_COLUMNS)
        or len(set(names)) != len(names)
        or ("rank" not in names and "score" not in names)
    ):
        return None
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(
                column_types={name: pa.string() for name in names}, strings_can_be_null=False
            ),
        )
    except pa.ArrowException:
        return None
    rows = table.num_rows
    if data.count(b"\n") != rows + (1 if data.endswith(b"\n") else 0):
        return None  # a blank line, or a row over two lines: the row path counts lines
    cols = {name: table.column(name).combine_chunks() for name in names}
    return located(long_parts(cols), 2)
