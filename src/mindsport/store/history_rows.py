"""The rating history rows a rating makes, column by column (:class:`HistoryRows`), and their
write (:func:`write_history`).

The deriver builds them block by block while it rates (:func:`mindsport.store.derive.rate_all`)
as arrays: each row's player by his code in the rating's player index, the match's ``seq`` and
time, the rating after it and the player's games so far. Many rows are written in the order of
the history's key (player, time, seq; :meth:`HistoryRows.in_key_order`): the database then adds
each row to the key's index next to the one before instead of at a random place, so the pages
it changes stay few and cached (300,000 matches' history rows took PostgreSQL 5 to 7 s in key
order, 12.6 s in the order of the matches, SQLite about a fifth less). The order is found on the
arrays (one sort of the codes, ranked as the database compares the names), and the rows are
written from columns (:func:`mindsport.store.bulk.insert_columns`), never made one tuple at a
time but for PostgreSQL's stream while a group commit rates (:meth:`HistoryRows.rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mindsport.store.bulk import insert_columns
from mindsport.store.database import Database

__all__ = ["HISTORY_INSERT", "KEY_ORDER_FROM", "HistoryRows", "write_history"]

#: the insert of rating history rows, row by row (:func:`mindsport.store.bulk.insert_many`'s
#: head and row; :meth:`HistoryRows.rows` gives them)
HISTORY_INSERT = (
    "INSERT INTO ms_rating_history (league_id, player, seq, time_value, mu, sigma, extra, games)",
    "(?, ?, ?, ?, ?, ?, JSON(?), ?)",
)
#: rows written at once from which they are written in the order of the history's key (see the
#: module); PostgreSQL: matches appended at once (more than a group commit takes: a file) from
#: which their history rows are written so, after the rating, not streamed while it runs
KEY_ORDER_FROM = 10_000


@dataclass(frozen=True, eq=False)
class HistoryRows:
    """History rows of league ``league``, one entry per row in each array: ``codes`` the
    player (his name is ``ids[code]``), ``seqs`` and ``times`` the match's, ``mus`` and
    ``sigmas`` his rating after it, ``extras`` the JSON text of the rest of his state (``None``:
    the model keeps nothing else, ``null`` in every row), ``games`` his games so far."""

    league: int
    ids: Sequence[str]
    codes: np.ndarray[Any, np.dtype[np.int64]]
    seqs: np.ndarray[Any, np.dtype[np.int64]]
    times: np.ndarray[Any, np.dtype[np.float64]]
    mus: np.ndarray[Any, np.dtype[np.float64]]
    sigmas: np.ndarray[Any, np.dtype[np.float64]]
    extras: list[str] | None
    games: np.ndarray[Any, np.dtype[np.int64]]

    def __len__(self) -> int:
        return len(self.codes)

    @classmethod
    def empty(cls, league: int) -> HistoryRows:
        """No rows."""
        ints, floats = np.zeros(0, np.int64), np.zeros(0, np.float64)
        return cls(league, [], ints, ints, floats, floats, floats, None, ints)

    @classmethod
    def joined(cls, league: int, ids: Sequence[str], parts: Sequence[HistoryRows]) -> HistoryRows:
        """The rows of ``parts`` one after the other (all of league ``league``, their codes in
        ``ids``)."""
        if not parts:
            return replace(cls.empty(league), ids=ids)
        extras = None
        if any(p.extras is not None for p in parts):
            extras = [x for p in parts for x in (p.extras or ["null"] * len(p))]
        return cls(
            league,
            ids,
            np.concatenate([p.codes for p in parts]),
            np.concatenate([p.seqs for p in parts]),
            np.concatenate([p.times for p in parts]),
            np.concatenate([p.mus for p in parts]),
            np.concatenate([p.sigmas for p in parts]),
            extras,
            np.concatenate([p.games for p in parts]),
        )

    def last_of_each(self) -> dict[str, int]:
        """Each player's last row (the latest rating of his in these rows), by name."""
        last = np.full(len(self.ids), -1, dtype=np.int64)
        np.maximum.at(last, self.codes, np.arange(len(self.codes), dtype=np.int64))
        found = np.flatnonzero(last >= 0)
        return dict(
            zip(map(self.ids.__getitem__, found.tolist()), last[found].tolist(), strict=True)
        )

    def key_order(self) -> np.ndarray[Any, np.dtype[np.intp]]:
        """The order of the history's key: (player, time, seq), players compared as the
        databases compare text (SQLite: the bytes of UTF-8, the code points; PostgreSQL's
        ``C`` collation the same)."""
        present = np.unique(self.codes).tolist()
        rank = np.zeros(len(self.ids), dtype=np.int64)
        rank[sorted(present, key=self.ids.__getitem__)] = np.arange(len(present))
        return np.lexsort((self.seqs, self.times, rank[self.codes]))

    def in_key_order(self) -> HistoryRows:
        """These rows in the order of the history's key (:meth:`key_order`)."""
        order = self.key_order()
        extras = None if self.extras is None else [self.extras[i] for i in order.tolist()]
        return replace(
            self,
            codes=self.codes[order],
            seqs=self.seqs[order],
            times=self.times[order],
            mus=self.mus[order],
            sigmas=self.sigmas[order],
            extras=extras,
            games=self.games[order],
        )

    def players(self) -> list[str]:
        """Each row's player."""
        return list(map(self.ids.__getitem__, self.codes.tolist()))

    def columns(self) -> dict[str, Sequence[Any]]:
        """The rows as the history table's columns (:func:`write_history`)."""
        n = len(self)
        return {
            "league_id": [self.league] * n,
            "player": self.players(),
            "seq": self.seqs.tolist(),
            "time_value": self.times.tolist(),
            "mu": self.mus.tolist(),
            "sigma": self.sigmas.tolist(),
            "extra": ["null"] * n if self.extras is None else self.extras,
            "games": self.games.tolist(),
        }

    def rows(self) -> list[tuple[Any, ...]]:
        """The rows as tuples of :data:`HISTORY_INSERT`'s columns."""
        return list(zip(*self.columns().values(), strict=True))


def write_history(db: Database, cur: Any, history: HistoryRows) -> None:
    """Insert ``history`` on the driver cursor ``cur`` of ``db``, in the order of the history's
    key when there are :data:`KEY_ORDER_FROM` rows or more (see the module)."""
    if not len(history):
        return
    if len(history) >= KEY_ORDER_FROM:
        history = history.in_key_order()
    insert_columns(db, cur, "ms_rating_history", history.columns())
