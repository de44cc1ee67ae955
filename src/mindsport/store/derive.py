"""Deriving ratings from the match log: rating new matches, writing the rating history and the
current ratings, the virtual players of a model that rates them, replaying the log after a late
match, and rebuilding a league's ratings (on demand or after a change of its settings).

Current ratings (``ms_ratings``) and the rating history (``ms_rating_history``) are a pure
function of the log: the league's model replayed over its matches ordered by ``(time, seq)``.
A match that arrives late (its time earlier than the league's latest) is handled by replay: the
derived rows of the matches that depend on it are deleted and those matches re-rated from the
ratings every player had just before (read back from the history). A match no recorded match
depends on is simply rated from the current ratings (:meth:`Deriver.append`). A league whose
late-result policy is ``arrival`` (:mod:`mindsport.store.late`) orders its log by ``seq``
alone: every new match is appended, late or not, and a rebuild replays the log in that order.

A model whose replayer rates virtual players
(:class:`~mindsport.store.league_model.VirtualPlayers`: ``cardplay``'s role advantages and
duplicate deal sides) has their states kept per league in ``ms_virtual_ratings``, loaded before
new matches are rated and written in the same transaction; a late match in such a league
replays the whole log (every later game of the same role depends on it). A whole-history league
derives its rows from the whole log at once (:mod:`mindsport.store.whole_history`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np
from sqlalchemy import Connection, and_, select, true, update

from mindsport.errors import MindsportError
from mindsport.match import search_key
from mindsport.rating.replay.blocks import DAY, MatchBlock, PlayerIndex, encode_columns
from mindsport.rating.replay.driver import Chunk, drive
from mindsport.store.bulk import copy_rows, insert_many
from mindsport.store.codec import canonical_json, from_json_text
from mindsport.store.database import Database, chunks, cursor
from mindsport.store.finite import check_finite
from mindsport.store.history_rows import (
    HISTORY_INSERT,
    KEY_ORDER_FROM,
    HistoryRows,
    write_history,
)
from mindsport.store.league_lock import LeagueLock, Player
from mindsport.store.league_model import LeagueModel, LeagueModels, PlayerState
from mindsport.store.match_log import FROM_POSITION, RATINGS_UPSERT, clear_derived, read_log
from mindsport.store.schema import leagues, rating_history, ratings, virtual_ratings
from mindsport.store.values import LatePolicy, League, StoreError
from mindsport.store.whole_history import WholeHistory

__all__ = ["Deriver", "current_rows", "rate_all"]

#: matches rated per block when a league replays its log
_REPLAY_CHUNK = 20_000
#: PostgreSQL: matches rated per block when new matches are appended, each block's history
#: rows streamed to the server while the next is rated
_STREAM_BLOCK = 250

#: a player's history rows from a position on (:data:`FROM_POSITION`), by the history's key
_HISTORY_DELETE_FROM = "DELETE FROM ms_rating_history WHERE league_id = ? AND player = ?" + (
    FROM_POSITION
)

#: a stored row's sequence number and time
_SEQ, _TIME = itemgetter("seq"), itemgetter("time_value")

#: a virtual player's stored state: (mu, sigma), by its key
_Virtual = dict[tuple[str, ...], tuple[float, float]]


def _occurrence(codes: Any) -> Any:
    """For each entry of the integer array ``codes``, how many equal entries come before it."""
    order = np.argsort(codes, kind="stable")
    ranked = codes[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    within = np.arange(len(codes)) - np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    out = np.empty(len(codes), dtype=np.int64)
    out[order] = within
    return out


def _days(row: Any) -> float:
    """A stored row's time on the replay clock: days for a date and time, the number itself
    otherwise."""
    tv = float(row["time_value"])
    return tv / DAY if row.get("time_iso") else tv


def rate_all(
    lid: int,
    model: LeagueModel,
    rows: Iterable[Any],
    players: dict[str, Player],
    progress: Callable[[int, int], None] | None = None,
    virtual: _Virtual | None = None,
    emit: Callable[[Sequence[tuple[Any, ...]]], None] | None = None,
    block_size: int = _REPLAY_CHUNK,
) -> tuple[HistoryRows, set[str]]:
    """Replay ``rows`` (in order) on ``players`` through the model's replayer (the replay
    engine's); returns the history rows (league ``lid``) and the touched players, whose
    entries of ``players`` it updates. A model that rates virtual players
    (:class:`~mindsport.store.league_model.VirtualPlayers`) starts from ``virtual`` (their
    states, updated in place). A match the model refuses raises
    :class:`StoreError` naming it. ``emit``, if given, receives each block's history rows as
    soon as they are made, as tuples of :data:`~mindsport.store.history_rows.HISTORY_INSERT`'s
    columns (``block_size`` matches a block)."""
    rows = list(rows)
    replayer = model.replayer()
    if model.virtual:
        replayer.load_virtual(virtual or {})
    index = PlayerIndex()
    games_before: list[int] = []  # by player code: games recorded before these rows
    for p in dict.fromkeys(chain.from_iterable(chain.from_iterable(r["teams"] for r in rows))):
        code = index.get(p)
        known = players.get(p)
        games_before.append(0 if known is None else known.games)
        if known is not None:
            replayer.set_state(code, model.row(known.state))
    games_so_far = np.array(games_before, dtype=np.int64)
    parts: list[HistoryRows] = []
    width = len(model.stored)
    plain = not model.extra_cols  # mu and sigma only: no JSON extra
    sigma_col = model.sigma_col  # post columns are the stored fields, a prefix of the fields

    def encode(chunk: list[Any]) -> MatchBlock:
        times = np.fromiter(map(_days, chunk), np.float64, len(chunk))
        block = encode_columns(
            [r["teams"] for r in chunk],
            [r["ranks"] for r in chunk],
            [r["weights"] for r in chunk],
            times,
            index,
        )
        if model.virtual:
            block = replayer.extend(
                block,
                [(len(r["teams"]), r["roles"], r["deal"], r["luck"], r["scores"]) for r in chunk],
            )
        return block

    def refused(exc: MindsportError, row: Any) -> StoreError:
        return StoreError(f"match {row['match_id']!r}: model rejected it: {exc}")

    def store_block(part: Chunk[Any]) -> None:
        # one history row per slot (a player in a match), built column by column
        nonlocal games_so_far
        chunk, block, kept = part.items, part.block, part.fed.post
        assert kept is not None  # fed with keep
        codes = block.players
        n_slots = np.diff(block.player_ptr[block.team_ptr])
        match_of = np.repeat(np.arange(len(chunk)), n_slots)
        games = _occurrence(codes) + games_so_far[codes] + 1
        games_so_far = games_so_far + np.bincount(codes, minlength=len(games_so_far))
        post = kept[: len(codes), :width]  # the players' slots come first
        # the last line of defence: nothing non-finite is written (names the match; the names
        # are made only when one is not finite)
        check_finite(post, (f"match {chunk[int(i)]['match_id']!r}" for i in match_of))
        extras = None
        if plain:  # copied: the driver reuses the block's buffer
            mus = post[:, 0].astype(np.float64)
            sigmas = (
                np.zeros(len(codes)) if sigma_col is None else post[:, sigma_col].astype(np.float64)
            )
        else:
            states = [model.state(r) for r in post.tolist()]
            mus = np.array([st.mu for st in states], dtype=np.float64)
            sigmas = np.array([st.sigma for st in states], dtype=np.float64)
            extras = ["null" if st.extra is None else json.dumps(st.extra) for st in states]
        made = HistoryRows(
            lid,
            index.ids,
            codes.astype(np.int64),
            np.fromiter(map(_SEQ, chunk), np.int64, len(chunk))[match_of],
            np.fromiter(map(_TIME, chunk), np.float64, len(chunk))[match_of],
            mus,
            sigmas,
            extras,
            games,
        )
        parts.append(made)
        if emit is not None:
            emit(made.rows())

    drive(
        replayer,
        rows,
        encode,
        keep=True,
        chunk=block_size,
        on_block=store_block,
        refused=refused,
        progress=None if progress is None else (lambda done: progress(done, len(rows))),
    )
    history = HistoryRows.joined(lid, index.ids, parts)
    last = history.last_of_each()
    for p, at in last.items():
        extra = None if history.extras is None else from_json_text(history.extras[at])
        state = PlayerState(float(history.mus[at]), float(history.sigmas[at]), extra)
        players[p] = Player(state, int(history.games[at]), float(history.times[at]))
    if model.virtual and virtual is not None:
        states = replayer.virtual_states()
        check_finite(list(states.values()), (f"virtual player {'/'.join(k)}" for k in states))
        virtual.update(states)
    return history, set(last)


def current_rows(
    lid: int, model: LeagueModel, players: Mapping[str, Player], touched: set[str]
) -> list[tuple[Any, ...]]:
    """The current-rating rows (:data:`~mindsport.store.match_log.RATINGS_UPSERT`'s columns) of
    the players ``touched`` in league ``lid``, from ``players``."""
    rows = []
    for p in sorted(touched):
        st = players[p].state
        extra = "null" if st.extra is None else json.dumps(st.extra)
        pl, key = players[p], search_key(p)
        shown = model.exposed(st)
        rows.append((lid, p, st.mu, st.sigma, extra, shown, pl.games, pl.last_time, key))
    return rows


#: a match's place in the replay order of time (time, then seq)
_time_order = itemgetter("time_value", "seq")


def _latest_history(lid: Any, names: Sequence[str], lateral: bool) -> Any:
    """The latest history row of each of the players ``names`` of league ``lid`` (none for a
    player without one): for each player one backward step of the key on (league, player,
    time, seq), found from his row of the ratings table (every player with history has one),
    not a pass over all his rows. ``lid``: the league's id, or its
    :meth:`~mindsport.store.database.Database.league_key`.

    ``lateral`` (PostgreSQL): the step is a ``LATERAL`` subquery, which the planner must run
    once per player; given the step as a join condition, it may hash the league's whole history
    instead. SQLite has no ``LATERAL``, and looks each row up by its key from the two steps
    that find its time and ``seq``."""
    h, r = rating_history.c, ratings.c
    later = rating_history.alias("later")
    mine = (later.c.league_id == r.league_id, later.c.player == r.player)
    newest = (later.c.time_value.desc(), later.c.seq.desc())
    if lateral:
        row = (
            select(later.c.mu, later.c.sigma, later.c.extra, later.c.games, later.c.time_value)
            .where(*mine)
            .order_by(*newest)
            .limit(1)
            .lateral("latest")
        )
        return (
            select(r.player, row.c.mu, row.c.sigma, row.c.extra, row.c.games, row.c.time_value)
            .select_from(ratings.join(row, true()))
            .where(r.league_id == lid, r.player.in_(names))
        )

    def last(column: str) -> Any:
        return select(later.c[column]).where(*mine).order_by(*newest).limit(1).scalar_subquery()

    on = and_(
        h.league_id == r.league_id,
        h.player == r.player,
        h.time_value == last("time_value"),
        h.seq == last("seq"),
    )
    return (
        select(h.player, h.mu, h.sigma, h.extra, h.games, h.time_value)
        .select_from(ratings.join(rating_history, on))
        .where(r.league_id == lid, r.player.in_(names))
    )


class Deriver:
    """Derives the ratings of the leagues of ``db`` (models built by ``models``, leagues
    locked by ``lock``; whole-history leagues by ``smoother``)."""

    def __init__(
        self, db: Database, models: LeagueModels, lock: LeagueLock, smoother: WholeHistory
    ) -> None:
        self._db = db
        self._models = models
        self._lock = lock
        self._smoother = smoother

    def _virtual(self, conn: Connection, lid: int, rows: list[dict[str, Any]]) -> _Virtual:
        """The stored virtual players ``rows`` may meet: every role, and the sides of their
        deals; and the league's seat statistics (kind ``seats``: the sums the seat estimate
        adds to, :mod:`mindsport.rating.trueskill.seats`, kept in the same rows)."""
        v = virtual_ratings.c
        deals = sorted({r["deal"] for r in rows if r["deal"] is not None})
        q = select(v.key, v.mu, v.sigma).where(v.league_id == lid)
        found = list(conn.execute(q.where(v.kind.in_(("role", "seats")))))
        for chunk in chunks(deals):
            found.extend(conn.execute(q.where(v.kind == "deal", v.deal.in_(chunk))))
        return {tuple(json.loads(r.key)): (float(r.mu), float(r.sigma)) for r in found}

    def _write_virtual(
        self, conn: Connection, lid: int, states: Mapping[tuple[str, ...], tuple[float, float]]
    ) -> None:
        """Insert or update the league's virtual players ``states``."""
        insert_many(
            self._db,
            cursor(conn),
            "INSERT INTO ms_virtual_ratings (league_id, key, kind, name, deal, mu, sigma)",
            "(?, ?, ?, ?, ?, ?, ?)",
            [
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
            ],
            " ON CONFLICT (league_id, key) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma",
        )

    def _write_derived(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        history: HistoryRows,
        players: dict[str, Player],
        touched: set[str],
        unrated: frozenset[str] = frozenset(),
    ) -> None:
        """Write the history rows and the current ratings of the players ``touched``; those of
        ``unrated`` (known to have no row yet) are inserted, not upserted (PostgreSQL copies
        them in)."""
        # driver-level statements: the SQL toolkit's per-row parameter work cost more than
        # the database's own
        cur = cursor(conn)
        write_history(self._db, cur, history)
        new = touched & unrated
        rows = current_rows(lid, model, players, touched - new)
        insert_many(self._db, cur, *RATINGS_UPSERT[:2], rows, RATINGS_UPSERT[2])
        insert_many(self._db, cur, *RATINGS_UPSERT[:2], current_rows(lid, model, players, new))

    def append(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        new: list[dict[str, Any]],
        progress: Callable[[int, int], None] | None,
        players: dict[str, Player],
        by_arrival: bool = False,
    ) -> Callable[[], None]:
        """Rate matches that no recorded match depends on (they come after every recorded match
        of their players) from ``players``, the current ratings of their players (updated in
        place); returns the write of their derived rows. ``by_arrival``: the league rates in
        arrival order (seq), so nothing recorded depends on any new match, late or not."""
        new = sorted(new, key=_SEQ if by_arrival else _time_order)
        virtual = self._virtual(conn, lid, new) if model.virtual else None
        rated = frozenset(players)  # the players with a row of current ratings
        if self._db.is_sqlite or model.virtual or len(new) >= KEY_ORDER_FROM:
            history, touched = rate_all(lid, model, new, players, progress, virtual)
        else:
            # PostgreSQL: the history rows of a block of matches are streamed to the server,
            # which stores them while the next block is rated
            with copy_rows(cursor(conn), HISTORY_INSERT[0]) as send:
                history, touched = rate_all(
                    lid, model, new, players, progress, None, emit=send, block_size=_STREAM_BLOCK
                )
            history = HistoryRows.empty(lid)  # written

        def write() -> None:
            unrated = frozenset(touched - rated)
            self._write_derived(conn, lid, model, history, players, touched, unrated)
            if virtual is not None:
                self._write_virtual(conn, lid, virtual)

        return write

    def check(
        self, lid: int, model: LeagueModel, new: list[dict[str, Any]], players: dict[str, Player]
    ) -> None:
        """Rate ``new`` from ``players`` (not changed) without writing anything: what the model
        refuses in them raises :class:`StoreError` here (a post whose rating is left to a
        catch-up, :mod:`mindsport.store.catchup`, is refused now, not the catch-up later)."""
        virtual: _Virtual | None = {} if model.virtual else None
        rate_all(lid, model, sorted(new, key=_time_order), dict(players), None, virtual)

    def replay(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        pos: tuple[float, int] | None,
        progress: Callable[[int, int], None] | None = None,
        new_seqs: set[int] | None = None,
        by_arrival: bool = False,
    ) -> int:
        """Rebuild the derived rows from position ``pos`` = (time, seq) on (None: everything).
        ``by_arrival``: the league rates in arrival order (``arrival``): everything is rebuilt,
        its log replayed in seq order.

        With ``new_seqs`` (the matches just inserted, the earliest at ``pos``) only the matches
        of the suffix that depend on them are re-rated: a match is affected when it is new or
        one of its players took part in an affected match before it. Any other match of the
        suffix has the same inputs as before, so its derived rows stand. Every match of an
        affected player after his first affected match is affected too, so that player's
        latest remaining history row (after deleting the affected ones) is his rating just
        before his first affected match: the replay starts from there.

        A model that rates virtual players (a role sits in every game of its role) is replayed
        from the start: their states at ``pos`` are not kept.

        A whole-history model rebuilds its graph from the whole log
        (:meth:`WholeHistory.smooth <mindsport.store.whole_history.WholeHistory.smooth>`).

        Returns the number of matches re-rated.
        """
        if model.smoothed:
            return self._smoother.smooth(conn, lid, model, None, progress)
        if model.virtual or by_arrival:
            pos, new_seqs = None, None
        if pos is None:
            clear_derived(conn, lid)  # a catch-up's staged rows too
            cursor(conn).execute(
                self._db.sql(
                    "UPDATE ms_leagues SET catchup_time = NULL, catchup_seq = NULL WHERE id = ?"
                ),
                (lid,),
            )
        rows = read_log(self._db, conn, lid, pos, by_arrival)
        players: dict[str, Player] = {}
        if pos is not None:
            first: dict[str, tuple[float, int]] = {}  # affected player -> his first affected match
            affected = []
            for r in rows:
                names_r = [p for t in r["teams"] for p in t]
                if new_seqs is None or r["seq"] in new_seqs or any(p in first for p in names_r):
                    affected.append(r)
                    for p in names_r:
                        first.setdefault(p, (r["time_value"], r["seq"]))
            rows = affected
            # an affected player's history rows from his first affected match on are exactly
            # those of affected matches: one range of the history's key per player
            cursor(conn).executemany(
                self._db.sql(_HISTORY_DELETE_FROM),
                [(lid, p, t, t, s) for p, (t, s) in first.items()],
            )
            names = sorted(first)
            for chunk in chunks(names):
                for lr in conn.execute(
                    _latest_history(self._db.league_key(lid), chunk, not self._db.is_sqlite)
                ):
                    players[lr.player] = Player(
                        PlayerState(lr.mu, lr.sigma, lr.extra), lr.games, lr.time_value
                    )
        virtual: _Virtual | None = {} if model.virtual else None
        history, touched = rate_all(lid, model, rows, players, progress, virtual)
        self._write_derived(conn, lid, model, history, players, touched)
        if virtual is not None:
            self._write_virtual(conn, lid, virtual)
        return len(rows)

    def update_league(
        self,
        name: str,
        model: str | None,
        params: Mapping[str, Any] | None,
        late: LatePolicy | None = None,
    ) -> League:
        """Change league ``name``'s model or parameters (``None``: kept) and rebuild its
        ratings, in one transaction. ``late``: its new late-result policy (``None``: kept);
        given alone (no model, no parameters) it re-rates nothing: the new policy applies to
        the matches that arrive from now on."""
        with self._db.write() as conn:
            row = self._lock.lock_league(conn, name)
            new_model = row.model if model is None else model
            new_params = dict(row.params) if params is None else dict(params)
            new_late = row.late if late is None else late
            lm = self._models.model_for(new_model, new_params)
            new_late.check_model(lm.smoothed, new_model)
            conn.execute(
                update(leagues)
                .where(leagues.c.id == row.id)
                .values(
                    model=new_model,
                    params=new_params,
                    late=new_late.policy,
                    late_limit=new_late.refuse_older_than,
                )
            )
            rebuilt = late is None or model is not None or params is not None
            if rebuilt:
                self.replay(conn, row.id, lm, None, by_arrival=new_late.by_arrival)
            updating = row.catchup is not None and not rebuilt  # a rebuild ends a catch-up
            return League(name, new_model, new_params, row.last_seq, new_late, updating)

    def recompute(
        self, names: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, int]:
        """Rebuild the ratings and history of the leagues ``names`` from their match logs, each
        in its own transaction; returns the number of matches replayed per league."""
        done: dict[str, int] = {}
        for name in names:
            with self._db.write() as conn:
                row = self._lock.lock_league(conn, name)
                lm = self._models.model_for(row.model, row.params)
                done[name] = self.replay(
                    conn, row.id, lm, None, progress, by_arrival=row.late.by_arrival
                )
        return done
