"""Writing many rows at once: one prepared statement run per row on SQLite; on PostgreSQL a
binary ``COPY`` for rows simply appended and one JSON array taken apart by the server for an
upsert (:func:`insert_many`); rows given column by column (:func:`insert_columns`), where on
SQLite a column with one value in every row is written into the statement, not bound per row.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from sqlalchemy import JSON, DateTime, Double, Integer, String, Text

from mindsport.store.database import Database
from mindsport.store.schema import metadata
from mindsport.store.values import StoreError

__all__ = ["copy_rows", "insert_columns", "insert_many"]

#: rows inserted by one run of a statement of :func:`insert_columns` on SQLite (32 rows of
#: 6 values: 192 of the 32,766 values a statement may have)
_ROWS_PER_STATEMENT = 32
_HEAD = re.compile(r"INSERT INTO (\w+) \(([\w, ]+)\)$")


def insert_many(
    db: Database, cur: Any, head: str, row: str, rows: list[tuple[Any, ...]], tail: str = ""
) -> None:
    """``head VALUES row tail`` for each of ``rows`` (``head`` is ``INSERT INTO table
    (columns)``) on the driver cursor ``cur`` of ``db``. SQLite: one prepared statement run per
    row, in a C loop.

    PostgreSQL, neither the driver nor the server working per statement: rows simply
    appended (no ``tail``) are streamed in binary ``COPY`` (:func:`_copy_in`: 2,800 history
    rows, a batch of 1,000 matches' worth, took 23 ms from the first byte sent to the commit
    and 2 ms of the driver's time, against 36 and 6 ms as the JSON array below); rows with a
    ``tail`` (an upsert) are sent as one JSON array that the server takes apart
    (:func:`_json_insert`), in one statement whose text does not depend on the number of
    rows, so it is prepared and planned once."""
    if not rows:
        return
    if db.is_sqlite:
        cur.executemany(db.sql(f"{head} VALUES {row}{tail}"), rows)
        return
    if not tail:
        width = len(_copy_in(head)[1])
        if set(map(len, rows)) != {width}:
            raise StoreError(f"{head}: rows of {width} values expected")
        with copy_rows(cur, head) as send:
            send(rows)
        return
    sql, width = _json_insert(head, tail)
    if set(map(len, rows)) != {width}:
        raise StoreError(f"{head}: rows of {width} values expected")
    cur.execute(sql, (json.dumps(rows, default=_json_value),))


def insert_columns(
    db: Database, cur: Any, table: str, columns: Mapping[str, Sequence[Any]]
) -> None:
    """``INSERT INTO table`` of rows given column by column (``columns``: each column's values,
    one per row, every column as long) on the driver cursor ``cur`` of ``db``.

    SQLite: a column whose every row holds the same value (``None``, a string, an integer or
    a finite float) is written into the statement as a literal, and each run of the statement
    inserts :data:`_ROWS_PER_STATEMENT` rows (``VALUES (...), (...), ...``). The driver pays for
    each bound value, ``None`` most (it looks for an adapter first), and for each run of a
    statement (the database's lock and the interpreter's released and taken back among
    others): of a million matches' log rows, the league id, the arrival time, the four JSON
    nulls of plain matches and two SQL nulls bound took 1.1 s more than written in (of 3.6 to
    4.2 s); two million history rows, 6 values bound in each, took 3.4 to 3.5 s one row a run,
    1.9 to 2.4 s with 32 rows a run. PostgreSQL: ``COPY`` of every value (:func:`insert_many`).
    """
    names = list(columns)
    values = [columns[n] for n in names]
    count = {len(v) for v in values}
    if len(count) != 1:
        raise StoreError(f"{table}: columns of different lengths {sorted(count)}")
    if not count.pop():
        return
    head = f"INSERT INTO {table} ({', '.join(names)})"
    if not db.is_sqlite:
        insert_many(db, cur, head, "", list(zip(*values, strict=True)))
        return
    slots = [_literal(v[0]) if _same(v) else "?" for v in values]
    bound = [v for v, slot in zip(values, slots, strict=True) if slot == "?"]
    one = f"({', '.join(slots)})"
    n, width = len(values[0]), len(bound)
    if not width:  # every column the same: one statement run per row
        cur.executemany(f"{head} VALUES {one}", [()] * n)
        return
    flat: list[Any] = [None] * (n * width)  # row by row, made column by column
    for j, col in enumerate(bound):
        flat[j::width] = col
    step = _ROWS_PER_STATEMENT * width
    whole = n // _ROWS_PER_STATEMENT * step
    if whole:
        many = ", ".join([one] * _ROWS_PER_STATEMENT)
        cur.executemany(
            f"{head} VALUES {many}", [flat[i : i + step] for i in range(0, whole, step)]
        )
    if whole < len(flat):
        cur.executemany(
            f"{head} VALUES {one}", [flat[i : i + width] for i in range(whole, len(flat), width)]
        )


def _same(values: Sequence[Any]) -> bool:
    """Whether every entry of ``values`` equals the first, and that is something
    :func:`_literal` writes (equal values of a column are stored alike: the column's type
    decides, as it does for a bound value)."""
    first = values[0]
    if first is not None and type(first) not in (str, int, float):
        return False
    if isinstance(first, float) and not math.isfinite(first):
        return False
    if isinstance(first, str) and "\x00" in first:  # bound, as the driver writes it
        return False
    if values[-1] != first or values[len(values) // 2] != first:  # most columns vary: seen at once
        return False
    if isinstance(values, list):  # counted in C: the usual column
        return values.count(first) == len(values)
    return all(v == first for v in values)


def _literal(value: str | int | float | None) -> str:
    """``value`` as an SQL literal (``None``, a string without NUL, an integer or a finite
    float)."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, int):
        return str(value)
    return repr(value)


def _insert_columns(head: str) -> tuple[Any, list[str]]:
    """The table and the column names of ``head`` (``INSERT INTO table (columns)``)."""
    found = _HEAD.match(head)
    if found is None:
        raise StoreError(f"not an insert head: {head!r}")
    return metadata.tables[found.group(1)], [c.strip() for c in found.group(2).split(",")]


@functools.cache
def _json_insert(head: str, tail: str) -> tuple[str, int]:
    """PostgreSQL's ``INSERT ... SELECT ... FROM jsonb_array_elements(rows)`` for ``head``
    (``INSERT INTO table (columns)``) and ``tail``: each column of each row read back as its
    type in the schema (a JSON column's value comes as its JSON text); and the row width.

    The rows are parsed once, as ``jsonb``, whose arrays are indexed: a field of a ``json``
    row is found by parsing the row again up to it, which was a quarter of the server's time
    on a batch. Numbers travel as JSON text: Python writes a float's shortest exact form, the
    server keeps it as that decimal and reads it back to the same double."""
    table, names = _insert_columns(head)
    picked = ", ".join(f"{_json_cast(table.c[n].type, f'(e->>{i})')}" for i, n in enumerate(names))
    return f"{head} SELECT {picked} FROM jsonb_array_elements(%s::jsonb) AS r(e){tail}", len(names)


@functools.cache
def _copy_in(head: str) -> tuple[str, list[str]]:
    """PostgreSQL's ``COPY table (columns) FROM STDIN`` in binary format for ``head`` (``INSERT
    INTO table (columns)``), and the binary type of each column: a JSON column is sent as the
    text it holds (the binary form of ``json`` is its text, which the server checks)."""
    table, names = _insert_columns(head)
    types = [_copy_type(table.c[n].type) for n in names]
    return f"COPY {table.name} ({', '.join(names)}) FROM STDIN (FORMAT BINARY)", types


@contextmanager
def copy_rows(cur: Any, head: str) -> Iterator[Callable[[Iterable[tuple[Any, ...]]], None]]:
    """PostgreSQL: a binary ``COPY`` for ``head`` (:func:`_copy_in`) open on ``cur``; yields
    the function that streams rows into it (the server stores them as they arrive)."""
    sql, types = _copy_in(head)
    with cur.copy(sql) as copy:
        copy.set_types(types)

        def send(rows: Iterable[tuple[Any, ...]]) -> None:
            for r in rows:
                copy.write_row(r)

        yield send


def _copy_type(kind: Any) -> str:
    """The PostgreSQL type a column of SQL type ``kind`` is copied in as."""
    if isinstance(kind, Integer):
        return "int4"
    if isinstance(kind, Double):
        return "float8"
    if isinstance(kind, DateTime):
        return "timestamptz"
    if isinstance(kind, (JSON, String, Text)):
        return "text"
    raise StoreError(f"no binary form for a column of type {kind!r}")


def _json_cast(kind: Any, value: str) -> str:
    """``value`` (JSON text of one row's field) as a column of SQL type ``kind``."""
    if isinstance(kind, Integer):
        return f"{value}::int8"
    if isinstance(kind, Double):
        return f"{value}::float8"
    if isinstance(kind, DateTime):
        return f"{value}::timestamptz"
    if isinstance(kind, JSON):
        return f"{value}::json"
    if isinstance(kind, (String, Text)):
        return value
    raise StoreError(f"no JSON form for a column of type {kind!r}")


def _json_value(value: Any) -> Any:
    """What the JSON encoder writes for the values it does not know (numpy numbers)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot send {type(value).__name__} as JSON: {value!r}")
