"""The store's columnar insert (:func:`mindsport.store.bulk.insert_columns`: on SQLite the values
every row shares written into the statement, many rows a run) against the plain insert of the
same rows (one row a run, every value bound): the same rows stored, of the same types."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from mindsport.store import Store, StoreError
from mindsport.store.bulk import insert_columns, insert_many
from mindsport.store.database import cursor
from mindsport.store.history_rows import HISTORY_INSERT

_NAMES = ("league_id", "player", "seq", "time_value", "mu", "sigma", "extra", "games")


def _columns(n: int, league: int, shared: bool) -> dict[str, list[Any]]:
    """History rows of ``league``: with ``shared``, every column but the key's player and seq
    holds one value (a quote in the text ones); else every column varies."""
    players = [f"o'neil {i % 7}" for i in range(n)]
    if shared:
        return {
            "league_id": [league] * n,
            "player": players,
            "seq": list(range(n)),
            "time_value": [5] * n,  # an integer in a REAL column: stored as 5.0, as bound
            "mu": [25.125] * n,
            "sigma": [1e-300] * n,
            "extra": ['{"v": "it\'s"}'] * n,
            "games": [3] * n,
        }
    return {
        "league_id": [league] * n,
        "player": players,
        "seq": list(range(n)),
        "time_value": [float(i % 3) for i in range(n)],
        "mu": [25.0 + i / 7 for i in range(n)],
        "sigma": [8.0 - i / 100 for i in range(n)],
        "extra": ["null" if i % 2 else f'{{"k": {i}}}' for i in range(n)],
        "games": [i + 1 for i in range(n)],
    }


def _stored(st: Store, league: int) -> list[tuple[Any, ...]]:
    kinds = ""
    if st._db.is_sqlite:  # the types stored, not only the values
        kinds = ", " + ", ".join(f"typeof({c})" for c in _NAMES[1:])
    with st.engine.connect() as conn:
        got = conn.execute(
            text(
                "SELECT player, seq, time_value, mu, sigma, CAST(extra AS TEXT), games"
                f"{kinds} FROM ms_rating_history WHERE league_id = :l "
                "ORDER BY player, time_value, seq"
            ),
            {"l": league},
        )
        return [tuple(r) for r in got]


@pytest.mark.parametrize("n", [1, 31, 32, 33, 70])
@pytest.mark.parametrize("shared", [True, False])
def test_the_columnar_insert_stores_what_the_plain_insert_stores(
    db_url: str, n: int, shared: bool
) -> None:
    """Row counts below, at and past a statement's 32 rows, a remainder or none; the values
    written into the statement (one row: every column) or all bound."""
    with Store(db_url) as st:
        db = st._db
        with db.write() as conn:
            cur = cursor(conn)
            insert_columns(db, cur, "ms_rating_history", _columns(n, 1, shared))
            plain = _columns(n, 2, shared)
            insert_many(db, cur, *HISTORY_INSERT, list(zip(*plain.values(), strict=True)))
        mine, theirs = _stored(st, 1), _stored(st, 2)
    assert len(mine) == n
    assert mine == theirs


def test_columns_of_different_lengths_are_refused_and_none_write_nothing(db_url: str) -> None:
    with Store(db_url) as st:
        db = st._db
        columns = _columns(3, 1, False)
        columns["games"] = columns["games"][:2]
        with db.write() as conn, pytest.raises(StoreError, match="different lengths"):
            insert_columns(db, cursor(conn), "ms_rating_history", columns)
        with db.write() as conn:
            insert_columns(db, cursor(conn), "ms_rating_history", _columns(0, 1, False))
        assert _stored(st, 1) == []


def test_a_shared_text_with_a_nul_character_is_bound_as_the_driver_writes_it(
    tmp_path: Any,
) -> None:
    """SQLite stores text with NUL characters when bound; such a shared value is not written
    into the statement (an SQL literal cannot hold one) but bound, and stored alike."""
    with Store(f"sqlite:///{tmp_path / 'nul.db'}") as st:
        db = st._db
        with db.write() as conn:
            cur = cursor(conn)
            for league in (1, 2):
                columns = _columns(40, league, True)
                columns["extra"] = ['"a\x00b"'] * 40
                if league == 1:
                    insert_columns(db, cur, "ms_rating_history", columns)
                else:
                    rows = list(zip(*columns.values(), strict=True))
                    insert_many(db, cur, *HISTORY_INSERT, rows)
        mine, theirs = _stored(st, 1), _stored(st, 2)
    assert mine == theirs
    assert mine[0][5] == '"a\x00b"'
