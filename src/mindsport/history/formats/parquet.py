"""Parquet match files: the long format's columns (needs pyarrow). :func:`iter_parquet` reads
row by row (the row path); :func:`read_parquet` a whole file on the column path
(:mod:`.columns`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from mindsport.errors import MindsportError
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

__all__ = ["iter_parquet", "read_parquet", "write_parquet"]


def iter_parquet(path: str) -> Iterator[tuple[int, Match]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise MindsportError(
            f"{path}: reading Parquet needs pyarrow (pip install pyarrow)"
        ) from None
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own error types
        raise MatchFileError(path, None, None, f"not a Parquet file: {exc}") from None
    names = pf.schema_arrow.names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise MatchFileError(path, None, missing[0], f"missing column (columns: {names!r})")
    if "rank" not in names and "score" not in names:
        raise MatchFileError(path, None, "rank", "need a rank or a score column")

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        line = 0
        for batch in pf.iter_batches(batch_size=65536):
            cols = {name: batch.column(name).to_pylist() for name in batch.schema.names}
            for i in range(batch.num_rows):
                line += 1
                yield line, {k: v[i] for k, v in cols.items()}

    yield from group_long(path, rows(), text_times=False)


def write_parquet(path: str, matches: Iterable[Match]) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover
        raise MindsportError(
            f"{path}: writing Parquet needs pyarrow (pip install pyarrow)"
        ) from None
    cols: dict[str, list[Any]] = {c: [] for c in CSV_COLUMNS}
    n = 0
    for m in matches:
        for r in long_rows(checked_match(m)):
            for c in CSV_COLUMNS:
                cols[c].append(r[c])
        n += 1
    times = cols["time"]
    if times and all(isinstance(t, datetime) for t in times):
        aware = {t.tzinfo is not None for t in times}
        if len(aware) > 1:
            time_arr = pa.array([t.isoformat() for t in times], pa.string())
        else:
            time_arr = pa.array(times)
    elif all(isinstance(t, int) for t in times):
        time_arr = pa.array(times, pa.int64())
    elif all(isinstance(t, int | float) and not isinstance(t, datetime) for t in times):
        time_arr = pa.array([float(t) for t in times], pa.float64())
    else:
        time_arr = pa.array([time_to_text(t) for t in times], pa.string())
    table = pa.table(
        {
            "match_id": pa.array(cols["match_id"], pa.string()),
            "time": time_arr,
            "player": pa.array(cols["player"], pa.string()),
            "team": pa.array(cols["team"], pa.string()),
            "rank": pa.array(cols["rank"], pa.int64()),
            "weight": pa.array(cols["weight"], pa.float64()),
            "score": pa.array(cols["score"], pa.float64()),
            "role": pa.array(cols["role"], pa.string()),
            "deal": pa.array(cols["deal"], pa.string()),
            "luck": pa.array(cols["luck"], pa.float64()),
        }
    )
    pq.write_table(table, path)
    return n


def read_parquet(path: str) -> Located | None:
    """The matches of a Parquet file and their row numbers, on the column path (None: read it
    on the row path)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    try:  # the players as a dictionary (as the file keeps them): no decoding, no re-encoding
        table = pq.read_table(path, read_dictionary=["player"]).unify_dictionaries()
    except Exception:  # not a Parquet file: the row path says so
        return None
    names = table.column_names
    if (
        len(set(names)) != len(names)
        or not set(REQUIRED) <= set(names)
        or ("rank" not in names and "score" not in names)
    ):
        return None
    cols = {}
    for name in set(names) & set(CSV_COLUMNS):
        col = table.column(name).combine_chunks()
        if pa.types.is_dictionary(col.type) and name != "player":
            col = col.dictionary_decode()
        cols[name] = col
    return located(long_parts(cols), 1)
