"""Undoing a director's steps, each logged like an amendment (who, when, why): un-pairing the
latest round while it has no result, reinstating a withdrawn player, and deleting an event that
has not finished. (Correcting a finished event is an amendment: :meth:`EventStore.amend`
brings its league up to date.)"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete as sql_delete
from sqlalchemy import update

from mindsport.errors import ConflictError, NotFoundError
from mindsport.event.model import EventError, EventStatus, LogEntry
from mindsport.event.storage import (
    MAX_TEXT,
    MAX_WHY,
    EventState,
    EventStore,
    check_text,
    open_state,
    read_state,
    write_log,
)
from mindsport.match import normal_id
from mindsport.store.schema import (
    event_amendments,
    event_forfeits,
    event_log,
    event_players,
    event_results,
    event_rounds,
    event_tables,
    events,
)

__all__ = ["delete", "reinstate", "unpair"]


def unpair(event_store: EventStore, name: str, who: str, why: str) -> LogEntry:
    """Undo the pairing of the latest round while none of its tables has a result: its
    tables, deals and byes are deleted, so the round is paired again by :meth:`pair`.
    Players who entered late or withdrew after it was paired join or leave from it
    again. Logged with who, when and why."""
    check_text("who", who, MAX_TEXT)
    check_text("why", why, MAX_WHY)
    with event_store.store.transaction() as conn:
        eid, state = open_state(conn, name)
        if not state.rounds:
            raise EventError(f"event {name!r} has no round paired; nothing to undo")
        last = state.rounds[-1]
        entered = [t.number for t in last.tables if (last.number, t.number) in state.results]
        if entered:
            raise EventError(
                f"round {last.number} of event {name!r} cannot be unpaired: table "
                f"{entered[0]} has a result ({len(entered)} of {len(last.tables)} in)"
            )
        where = (event_tables.c.event_id == eid, event_tables.c.round == last.number)
        conn.execute(sql_delete(event_tables).where(*where))
        conn.execute(
            sql_delete(event_rounds).where(
                event_rounds.c.event_id == eid, event_rounds.c.round == last.number
            )
        )
        # who joined or withdrew after the round was paired joins or leaves from it now
        for column in (event_players.c.joined, event_players.c.withdrawn):
            conn.execute(
                update(event_players)
                .where(event_players.c.event_id == eid, column == last.number + 1)
                .values({column.name: last.number})
            )
        seated = ", ".join(" ".join(t.players) for t in last.tables)
        entry = LogEntry(
            "unpair",
            last.number,
            None,
            f"round {last.number} unpaired: {len(last.tables)} tables ({seated[:1500]}), "
            f"byes {', '.join(last.byes) or 'none'}",
            who,
            why,
            datetime.now(UTC),
        )
        write_log(conn, eid, entry)
        return entry


def reinstate(event_store: EventStore, name: str, player: str, who: str, why: str) -> LogEntry:
    """Take back a withdrawal: the player is seated again from the next round paired
    (the rounds missed stay missed). Logged with who, when and why."""
    check_text("who", who, MAX_TEXT)
    check_text("why", why, MAX_WHY)
    player = normal_id(player) if isinstance(player, str) else player
    with event_store.store.transaction() as conn:
        eid, state = open_state(conn, name)
        found = next((p for p in state.players if p.name == player), None)
        if found is None:
            raise NotFoundError(f"player {player!r} is not registered in event {name!r}")
        if found.withdrawn is None:
            raise ConflictError(f"player {player!r} has not withdrawn; nothing to reinstate")
        if len(state.rounds) >= state.spec.rounds:
            raise EventError(f"event {name!r} has paired all its rounds; no round is left")
        conn.execute(
            update(event_players)
            .where(event_players.c.event_id == eid, event_players.c.player == player)
            .values(withdrawn=None)
        )
        entry = LogEntry(
            "reinstate",
            len(state.rounds) + 1,
            player,
            f"{player} (withdrawn from round {found.withdrawn}) reinstated from round "
            f"{len(state.rounds) + 1}",
            who,
            why,
            datetime.now(UTC),
        )
        write_log(conn, eid, entry)
        return entry


def delete(event_store: EventStore, name: str) -> EventState:
    """Delete an event that has not finished (its results are in no league), with all it
    holds; returns what it held. A finished event is corrected, not deleted."""
    with event_store.store.transaction() as conn:
        eid, state = read_state(conn, name, lock=True)
        if state.status is EventStatus.FINISHED:
            raise ConflictError(
                f"event {name!r} is finished: its results are in league "
                f"{state.spec.league!r}; correct it with an amendment instead of deleting it"
            )
        for table in (
            event_log,
            event_forfeits,
            event_amendments,
            event_results,
            event_tables,
            event_rounds,
            event_players,
        ):
            conn.execute(sql_delete(table).where(table.c.event_id == eid))
        conn.execute(sql_delete(events).where(events.c.id == eid))
        return state
