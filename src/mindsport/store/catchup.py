"""Bringing a league up to date after a late result, in bounded pieces.

A late match (dated before matches already rated) changes the rating of every later match that
depends on it. When that is at most :data:`INLINE` matches, the post's own transaction re-rates
them (:meth:`Deriver.replay <mindsport.store.derive.Deriver.replay>`), as long as an ordinary
group commit takes. When it is more, the post records the match, answers at once
(``updating`` in its :class:`~mindsport.store.values.IngestResult`) and marks the league as
being brought up to date from the late match's position (``catchup_time``, ``catchup_seq`` of
``ms_leagues``). The re-rating then runs in pieces of at most :data:`PIECE` matches, each its
own transaction holding the league's write lock for a fraction of an ordinary group commit
(:meth:`CatchUp.step`), the worker resting between pieces (:data:`REST`), cutting them short
while posts arrive (:data:`LOADED_PIECE_SECONDS`), and the league's own commits paced
(:data:`PACE_SECONDS`), so that other posts keep their throughput:

1. the piece: the next matches of the log from the position, in replay order (time, then seq);
2. its players' ratings just before the position: each one's latest rating-history row before
   it (every history row before the position is final);
3. its matches rated from those ratings by the store's one replay
   (:func:`~mindsport.store.derive.rate_all`). Steps 1 to 3 run in a read transaction, without
   the league's write lock, so that posts are committed meanwhile;
4. under the lock, in one short transaction: if the position, the model or the log changed
   meanwhile in a way the piece depends on (a match recorded since that comes before the
   piece's end), steps 1 to 3 are done again there; then the piece's old history rows (from
   before the late result) are deleted, the new ones written and the players' new current
   ratings staged in ``ms_ratings_pending``, and the position moves past the piece. At the
   end of the log the staged ratings replace the current ones in one statement and the mark
   is cleared.

Meanwhile the league stays readable: ``ms_ratings`` keeps the last consistent ratings (those
from before the late result) until the last piece, and the league, its leaderboard and its
players are shown as ``updating``. Matches posted meanwhile are recorded (checked by the model
first, so the post is refused rather than the catch-up stuck) and rated by the catch-up; a post
holding a match earlier than the position moves the position back to it. Once the mark is
cleared the ratings and history equal a replay of the log in time order.

Crash-safe: the position, the history rows and the staged ratings are committed together, piece
by piece; a restart continues from the position (the service's :class:`CatchUpWorker` looks for
marked leagues when it starts and every :data:`RESCAN_SECONDS`). Several processes on one
database may step one league: each piece takes the league's lock and reads the position under
it.

A model that rates virtual players (``cardplay``: a role takes part in every game of its role)
catches up from the first match, the virtual players' states at the position staged in
``ms_virtual_pending``; they replace the league's in the same last statement.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from mindsport.errors import MindsportError, NotFoundError
from mindsport.store.bulk import insert_many
from mindsport.store.codec import canonical_json, from_json_text
from mindsport.store.database import Database, chunks, cursor
from mindsport.store.derive import current_rows, rate_all
from mindsport.store.history_rows import HistoryRows, write_history
from mindsport.store.league_lock import LeagueLock, LeagueRow, Player
from mindsport.store.league_model import LeagueModel, LeagueModels, PlayerState
from mindsport.store.match_log import FROM_POSITION, RATINGS_UPSERT, read_log

__all__ = [
    "INLINE",
    "LOADED_PIECE_SECONDS",
    "MAX_DEFER_SECONDS",
    "MIN_PIECE",
    "PACE_SECONDS",
    "PIECE",
    "QUIET_SECONDS",
    "RESCAN_SECONDS",
    "REST",
    "START",
    "CatchUp",
    "CatchUpWorker",
    "Position",
]

_log = logging.getLogger("mindsport.store")

#: a late post whose re-rating covers at most this many recorded matches is re-rated in its own
#: transaction; past it, the catch-up does it in pieces (an ordinary group commit on SQLite
#: takes :data:`~mindsport.store.ingest.GROUP_MATCHES` = 2,000 matches)
INLINE = 2_000
#: matches re-rated per piece of a catch-up (one transaction each: on SQLite, whose one writer
#: serves every league, an eighth of an ordinary group commit, so a post waiting behind a piece
#: waits little)
PIECE = 250
#: after each piece the worker rests this many times as long as the piece took, so a catch-up
#: takes at most a fifth of the time the database's writer (and the server's interpreter) has,
#: and the posts of every league keep most of their throughput
REST = 4.0
#: how often the worker looks for leagues left marked (by a crash, or another process)
RESCAN_SECONDS = 30.0
#: the worker holds its next piece while the write path had a request in the last this many
#: seconds (posts of every league go first; on SQLite they share one writer with the catch-up,
#: and every process's posts share the server's interpreter with it) ...
QUIET_SECONDS = 0.05
#: ... but for at most this many seconds after its last piece, so that under a steady load a
#: catch-up still moves on (a piece each time) and it finishes once the load pauses
MAX_DEFER_SECONDS = 1.0

#: while the worker runs, a commit that leaves a league being brought up to date holds that
#: league's next commit back this long (:meth:`GroupCommitter.pace
#: <mindsport.store.commit.GroupCommitter.pace>`; its posts meanwhile are committed together):
#: a client posting late matches one after another gets at most 10 commits a second, each
#: moving the catch-up back, instead of taking the writer's time from every other league's posts
#: (0.05 s, 20 a second, left the normal load 0.75-0.84 of its throughput beside such a client;
#: ``benchmarks/load_service.py --mix late-posts``, docs/api.md)
PACE_SECONDS = 0.1

#: while writes arrive, a piece re-rates about as many matches as take this long (the posts
#: waiting for the database's writer meanwhile wait no longer), at least :data:`MIN_PIECE`
LOADED_PIECE_SECONDS = 0.015
MIN_PIECE = 10

#: a position in a league's replay order: (time, seq); :data:`START` is before every match
Position = tuple[float | None, int]
START: Position = (None, 0)

_PENDING_UPSERT = (
    RATINGS_UPSERT[0].replace("ms_ratings", "ms_ratings_pending", 1),
    *RATINGS_UPSERT[1:],
)
_COLUMNS = "league_id, player, mu, sigma, extra, exposed, games, last_time, search_key"
#: the staged ratings become the current ones (one statement inside the database)
_RATINGS_SWAP = (
    f"INSERT INTO ms_ratings ({_COLUMNS}) SELECT {_COLUMNS} FROM ms_ratings_pending "
    "WHERE league_id = ?" + RATINGS_UPSERT[2]
)
_VIRTUAL_COLUMNS = "league_id, key, kind, name, deal, mu, sigma"
_VIRTUAL_SWAP = (
    f"INSERT INTO ms_virtual_ratings ({_VIRTUAL_COLUMNS}) SELECT {_VIRTUAL_COLUMNS} "
    "FROM ms_virtual_pending WHERE league_id = ?"
)
_VIRTUAL_PENDING_UPSERT = (
    f"INSERT INTO ms_virtual_pending ({_VIRTUAL_COLUMNS})",
    "(?, ?, ?, ?, ?, ?, ?)",
    " ON CONFLICT (league_id, key) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma",
)
_HISTORY_DELETE = (
    "DELETE FROM ms_rating_history WHERE league_id = ? AND player = ? AND time_value = ? "
    "AND seq = ?"
)
_MARK = "UPDATE ms_leagues SET catchup_time = ?, catchup_seq = ? WHERE id = ?"
#: a player's latest history row before a position (time, time, seq): SQLite, one per player
_BEFORE_SQL = (
    "SELECT mu, sigma, extra, games, time_value FROM ms_rating_history WHERE league_id = ? "
    "AND player = ? AND time_value <= ? AND (time_value < ? OR seq < ?) "
    "ORDER BY time_value DESC, seq DESC LIMIT 1"
)
#: the same for an array of players in one statement (PostgreSQL)
_PG_BEFORE_SQL = (
    "SELECT i.p, h.mu, h.sigma, h.extra::text, h.games, h.time_value FROM "
    "unnest(%s::text[]) AS i(p), LATERAL (SELECT mu, sigma, extra, games, time_value FROM "
    "ms_rating_history WHERE league_id = %s AND player = i.p AND time_value <= %s AND "
    "(time_value < %s OR seq < %s) ORDER BY time_value DESC, seq DESC LIMIT 1) AS h"
)


@dataclass(frozen=True, slots=True)
class _Piece:
    """A piece of a catch-up read and rated, not yet written: the league's row it was read
    from, its model, its log rows (replay order), whether more follow, the history rows of its
    matches' players (player, time, seq) to replace, the new history rows, the players' new
    ratings to stage, and the virtual players' states after it (``None``: no virtual
    players)."""

    league: LeagueRow
    model: LeagueModel
    rows: list[dict[str, Any]]
    more: bool
    slots: list[tuple[str, float, int]]
    history: HistoryRows
    staged: list[tuple[Any, ...]]
    virtual: dict[tuple[str, ...], tuple[float, float]] | None


def before(a: Position, b: Position) -> bool:
    """Whether position ``a`` comes before position ``b`` in replay order."""
    if a[0] is None or b[0] is None:
        return a[0] is None and b[0] is not None
    return (a[0], a[1]) < (b[0], b[1])


def longer_than(db: Database, conn: Connection, lid: int, pos: Position, limit: int) -> bool:
    """Whether league ``lid``'s log holds more than ``limit`` matches from ``pos`` on (counted
    no further than that)."""
    sql = "SELECT 1 FROM ms_matches WHERE league_id = ?"
    args: list[Any] = [lid]
    if pos[0] is not None:
        sql += FROM_POSITION
        args += [pos[0], pos[0], pos[1]]
    cur = cursor(conn)
    cur.execute(db.sql(f"SELECT COUNT(*) FROM ({sql} LIMIT ?) AS part"), [*args, limit + 1])
    return int(cur.fetchone()[0]) > limit


def mark(
    db: Database, conn: Connection, lid: int, at: Position | None, pos: Position, virtual: bool
) -> None:
    """Mark league ``lid`` as being brought up to date from ``pos`` (a model with ``virtual``
    players: from the start), unless its catch-up position ``at`` is there already or earlier.
    Moving a virtual model's catch-up back drops the virtual players' staged states."""
    new = START if virtual else pos
    if at is not None and not before(new, at):
        return
    cur = cursor(conn)
    if virtual:
        cur.execute(db.sql("DELETE FROM ms_virtual_pending WHERE league_id = ?"), (lid,))
    cur.execute(db.sql(_MARK), (new[0], new[1], lid))


def clear(db: Database, conn: Connection, lid: int) -> None:
    """Forget league ``lid``'s catch-up (its ratings were just rebuilt whole)."""
    cur = cursor(conn)
    cur.execute(db.sql("DELETE FROM ms_ratings_pending WHERE league_id = ?"), (lid,))
    cur.execute(db.sql("DELETE FROM ms_virtual_pending WHERE league_id = ?"), (lid,))
    cur.execute(db.sql(_MARK), (None, None, lid))


class CatchUp:
    """Runs the catch-ups of the leagues of ``db`` (models built by ``models``, leagues locked
    by ``lock``), :data:`PIECE` matches (``piece``) a transaction."""

    def __init__(
        self, db: Database, models: LeagueModels, lock: LeagueLock, piece: int = PIECE
    ) -> None:
        if piece < 1:
            raise ValueError(f"piece must be at least 1, got {piece}")
        self._db = db
        self._models = models
        self._lock = lock
        self._piece = piece

    def behind(self) -> list[str]:
        """The leagues being brought up to date, by name."""
        with self._db.read() as conn:
            cur = cursor(conn)
            cur.execute("SELECT name FROM ms_leagues WHERE catchup_seq IS NOT NULL ORDER BY name")
            return [r[0] for r in cur.fetchall()]

    def run(self, name: str, progress: Callable[[int], None] | None = None) -> int:
        """Step league ``name``'s catch-up until it is up to date; returns the matches
        re-rated. ``progress(done)`` after each piece."""
        done = 0
        while True:
            got = self.step(name)
            if got is None:
                return done
            done += got[0]
            if progress is not None:
                progress(done)
            if got[1]:
                return done

    @property
    def piece(self) -> int:
        """The most matches a piece re-rates."""
        return self._piece

    def step(self, name: str, piece: int | None = None) -> tuple[int, bool] | None:
        """Re-rate the next piece of league ``name``'s catch-up (at most ``piece`` matches, at
        most :attr:`piece`); returns the matches re-rated and whether the league is now up to
        date, or ``None`` when it was already (:class:`NotFoundError` for an unknown league).

        The piece is read and rated in a read transaction, without the league's write lock
        (other posts are committed meanwhile); then one short write transaction checks, under
        the lock, that nothing it depends on changed (the position, the log: no match
        recorded since that comes before the piece's end, or at all when the piece ends the
        log; the model) and writes it. When something did, the piece is read and rated again
        under the lock, as it is then."""
        size = self._piece if piece is None else max(1, min(piece, self._piece))
        with self._db.read() as conn:
            row = self._lock.read_league(conn, name)
            planned = None if row.catchup is None else self._rate(conn, row, size)
        with self._db.write() as conn:
            row = self._lock.lock_league(conn, name)
            if row.catchup is None:
                return None
            if planned is None or not self._still(conn, row, planned):
                planned = self._rate(conn, row, size)
            self._write(conn, planned)
            return len(planned.rows), not planned.more

    def _rate(self, conn: Connection, row: LeagueRow, size: int) -> _Piece:
        """The next piece of the catch-up of the league of ``row`` (being brought up to date),
        read and rated (nothing written)."""
        model = self._models.model_for(row.model, row.params)
        lid, at = row.id, row.catchup
        assert at is not None
        pos = None if at[0] is None else (float(at[0]), at[1])
        rows = read_log(self._db, conn, lid, pos, limit=size + 1)
        piece = rows[:size]
        slots = [(p, r["time_value"], r["seq"]) for r in piece for t in r["teams"] for p in t]
        players = self._ratings_before(conn, lid, sorted({s[0] for s in slots}), at)
        virtual = self._virtual_at(conn, lid) if model.virtual else None
        history, touched = rate_all(lid, model, piece, players, None, virtual)
        staged = current_rows(lid, model, players, touched)
        return _Piece(row, model, piece, len(rows) > size, slots, history, staged, virtual)

    def _still(self, conn: Connection, row: LeagueRow, planned: _Piece) -> bool:
        """Whether the piece ``planned`` (rated without the lock) still holds for the league
        as ``row`` (locked) shows it: same position, model and settings, and no match recorded
        since (a higher seq) that comes before the piece's last match (or at all, when the
        piece ends the log: the last piece must rate every match)."""
        was = planned.league
        if (row.catchup, row.model, row.params) != (was.catchup, was.model, was.params):
            return False
        if row.last_seq == was.last_seq:
            return True
        sql = "SELECT 1 FROM ms_matches WHERE league_id = ? AND seq > ?"
        args: list[Any] = [row.id, was.last_seq]
        if planned.more:  # a new match dated at the piece's last or after comes after it
            sql += " AND time_value < ?"
            args.append(planned.rows[-1]["time_value"])
        cur = cursor(conn)
        cur.execute(self._db.sql(sql + " LIMIT 1"), args)
        return cur.fetchone() is None

    def _write(self, conn: Connection, planned: _Piece) -> None:
        """Write the piece ``planned``: its matches' old history rows replaced by the new, the
        players' ratings staged, and the position moved past it (or the catch-up finished)."""
        lid = planned.league.id
        cur = cursor(conn)
        cur.executemany(self._db.sql(_HISTORY_DELETE), [(lid, *s) for s in planned.slots])
        write_history(self._db, cur, planned.history)
        insert_many(self._db, cur, *_PENDING_UPSERT[:2], planned.staged, _PENDING_UPSERT[2])
        if planned.virtual is not None:
            self._stage_virtual(cur, lid, planned.virtual)
        if planned.more:
            last = planned.rows[-1]
            cur.execute(self._db.sql(_MARK), (last["time_value"], last["seq"] + 1, lid))
        else:
            self._finish(cur, lid, planned.model)

    def _finish(self, cur: Any, lid: int, model: LeagueModel) -> None:
        """The staged ratings (and virtual players) become the league's; the mark is cleared."""
        cur.execute(self._db.sql(_RATINGS_SWAP), (lid,))
        if model.virtual:
            cur.execute(self._db.sql("DELETE FROM ms_virtual_ratings WHERE league_id = ?"), (lid,))
            cur.execute(self._db.sql(_VIRTUAL_SWAP), (lid,))
        cur.execute(self._db.sql("DELETE FROM ms_ratings_pending WHERE league_id = ?"), (lid,))
        cur.execute(self._db.sql("DELETE FROM ms_virtual_pending WHERE league_id = ?"), (lid,))
        cur.execute(self._db.sql(_MARK), (None, None, lid))

    def _ratings_before(
        self, conn: Connection, lid: int, names: Sequence[str], at: Position
    ) -> dict[str, Player]:
        """The ratings the players ``names`` had just before position ``at``: their latest
        history rows before it (none at the start, or for a player without one)."""
        if at[0] is None or not names:
            return {}
        t, seq = float(at[0]), at[1]
        cur = cursor(conn)
        found: list[Sequence[Any]] = []
        if self._db.is_sqlite:
            sql = self._db.sql(_BEFORE_SQL)
            for p in names:
                cur.execute(sql, (lid, p, t, t, seq))
                one = cur.fetchone()
                if one is not None:
                    found.append((p, *one))
        else:
            for part in chunks(names, 5_000):
                cur.execute(_PG_BEFORE_SQL, (list(part), lid, t, t, seq), prepare=False)
                found.extend(cur.fetchall())
        players: dict[str, Player] = {}
        for p, mu, sigma, extra, games, time_value in found:
            if isinstance(extra, str):
                extra = from_json_text(extra)
            players[p] = Player(PlayerState(mu, sigma, extra), games, time_value)
        return players

    def _virtual_at(self, conn: Connection, lid: int) -> dict[tuple[str, ...], tuple[float, float]]:
        """The virtual players' states staged at the catch-up's position (none at the start)."""
        cur = cursor(conn)
        cur.execute(
            self._db.sql("SELECT key, mu, sigma FROM ms_virtual_pending WHERE league_id = ?"),
            (lid,),
        )
        return {tuple(json.loads(k)): (float(mu), float(s)) for k, mu, s in cur.fetchall()}

    def _stage_virtual(
        self, cur: Any, lid: int, states: dict[tuple[str, ...], tuple[float, float]]
    ) -> None:
        rows = [
            (
                lid,
                canonical_json(list(key)),
                key[0],
                "/".join(key[1:]),
                key[1] if key[0] == "deal" else None,
                mu,
                sigma,
            )
            for key, (mu, sigma) in sorted(states.items())
        ]
        insert_many(self._db, cur, *_VIRTUAL_PENDING_UPSERT[:2], rows, _VIRTUAL_PENDING_UPSERT[2])


class CatchUpWorker:
    """A thread that brings marked leagues up to date (:meth:`CatchUp.step`), one piece of each
    in turn, so that no league waits for another's whole catch-up, resting ``rest`` times as
    long as each piece took (:data:`REST`), and holding a piece while writes arrive (told by
    :meth:`writing`: until none came for ``quiet`` seconds, :data:`QUIET_SECONDS`, and at most
    ``max_defer`` seconds after its last piece, :data:`MAX_DEFER_SECONDS`). While writes
    arrive, a piece is cut to what takes about :data:`LOADED_PIECE_SECONDS` at the last
    piece's pace (so the posts it holds up wait no longer than that), and the hold is shortened
    in proportion (so the catch-up still moves on at the same pace); woken by
    :meth:`wake`, and looking for marked leagues every :data:`RESCAN_SECONDS` (``rescan``) as
    well."""

    def __init__(
        self,
        catchup: CatchUp,
        rescan: float = RESCAN_SECONDS,
        rest: float = REST,
        *,
        quiet: float = QUIET_SECONDS,
        max_defer: float = MAX_DEFER_SECONDS,
    ) -> None:
        self._catchup = catchup
        self._rescan = rescan
        self._rest = rest
        self._quiet = quiet
        self._max_defer = max_defer
        self._last_write = -math.inf  # time.monotonic() of the last write request
        self._last_piece = -math.inf  # time.monotonic() at the end of the last piece's rest
        self._pace: float | None = None  # matches re-rated per second by the last piece
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start the thread (no-op when it runs)."""
        with self._lock:
            if self._thread is not None:
                return
            self._stopping.clear()
            self._thread = threading.Thread(
                target=self._loop, name="mindsport-catchup", daemon=True
            )
            self._thread.start()

    def writing(self) -> None:
        """A write request arrived (the next piece waits for a quiet moment)."""
        self._last_write = time.monotonic()

    def _defer(self, since: float, share: float) -> None:
        """Wait until no write came for ``quiet`` seconds, or ``share`` of ``max_defer``
        seconds after ``since`` (the end of the last piece), or the worker is stopped."""
        while not self._stopping.is_set():
            now = time.monotonic()
            calm = now - self._last_write
            left = since + self._max_defer * share - now
            if calm >= self._quiet or left <= 0:
                return
            self._stopping.wait(min(left, self._quiet - calm))

    def wake(self, league: str | None = None) -> None:
        """A league (``league``, if named) was marked: look now."""
        self._wake.set()

    def stop(self) -> None:
        """Stop after the piece in progress (what is left continues at the next start)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        self._wake.set()
        thread.join()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                names = self._catchup.behind()
            except MindsportError as exc:  # the database is away: try again later
                _log.warning("catch-up: cannot list the leagues to bring up to date: %s", exc)
                self._stopping.wait(1.0)
                continue
            if not names:
                self._wake.wait(self._rescan)
                continue
            for name in names:
                full = self._catchup.piece
                size = self._size(full)
                self._defer(self._last_piece, size / full)
                if self._stopping.is_set():
                    return
                loaded = time.monotonic() - self._last_write < self._quiet
                began = time.perf_counter()
                try:
                    got = self._catchup.step(name, size if loaded else full)
                except NotFoundError:
                    continue
                except MindsportError as exc:
                    _log.warning("catch-up of league %r: %s (retrying)", name, exc)
                    self._stopping.wait(1.0)
                    continue
                took = time.perf_counter() - began
                if got is not None and got[0] > 0 and took > 0:
                    self._pace = got[0] / took
                self._stopping.wait(took * self._rest)
                self._last_piece = time.monotonic()

    def _size(self, full: int) -> int:
        """The matches of the next piece while writes arrive: as many as the last piece's pace
        re-rates in :data:`LOADED_PIECE_SECONDS` (``full`` before any was timed), from
        :data:`MIN_PIECE` to ``full``."""
        if self._pace is None:
            return full
        return max(min(MIN_PIECE, full), min(full, int(self._pace * LOADED_PIECE_SECONDS)))
