"""Events in the rating database: every write one transaction, every refusal before any write.

:class:`EventStore` keeps events beside the leagues of a :class:`mindsport.store.Store` (same
database, same connection pool; SQLite by default, PostgreSQL by URL). Each write runs in one of
the store's write transactions and starts by locking the event's row, so two directors' clients
never pair the same round twice or enter one table twice; the whole state is read, the
operation is checked against it by the pure functions of :mod:`mindsport.event`, and only then
written. A table's result is entered whole and once; a correction is an amendment, logged with
who, when, why, the old scores and the new.

:meth:`EventStore.finish` writes every table of every round into the event's league as a match
(id ``EVENT:rROUND:tTABLE``, the three players ranked by their game score at the table, time
the event's creation time plus the round number in seconds): ids are deterministic, so finishing
again adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from mindsport.errors import ConflictError, NotFoundError
from mindsport.event.model import (
    MAX_PLAYERS,
    TIME_LIMIT,
    BoardForfeit,
    EventError,
    EventSpec,
    EventStatus,
    LatePoints,
    LogEntry,
    Player,
    Result,
    Round,
    Standings,
    Table,
    check_event_name,
    check_player_name,
)
from mindsport.event.pairing import pair_round
from mindsport.event.standings import check_scores, complete_rounds, standings
from mindsport.match import Match, normal_id, ranks_from_scores
from mindsport.store import Store
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

__all__ = ["Amendment", "EventState", "EventStore", "spec_from_json", "spec_to_json"]

MAX_TEXT = 100
MAX_WHY = 500


@dataclass(frozen=True)
class Amendment:
    """A corrected table result: the old and new scores, who changed them, when and why."""

    round: int
    table: int
    old: tuple[tuple[float, ...], ...]
    new: tuple[tuple[float, ...], ...]
    who: str
    why: str
    at: datetime


@dataclass(frozen=True)
class EventState:
    """Everything recorded about one event."""

    spec: EventSpec
    status: EventStatus
    created_at: datetime
    players: tuple[Player, ...]
    rounds: tuple[Round, ...]
    results: Mapping[tuple[int, int], Result]
    amendments: tuple[Amendment, ...]
    forfeits: tuple[BoardForfeit, ...] = ()
    log: tuple[LogEntry, ...] = ()

    @property
    def complete(self) -> int:
        """Rounds with every table's result in."""
        return complete_rounds(self.rounds, self.results)

    def standings(self, after: int | None = None) -> Standings:
        """The standings after the complete rounds, or after round ``after`` of them."""
        if after is None:
            return standings(self.spec, self.players, self.rounds, self.results)
        if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= self.complete:
            raise EventError(
                f"after {after!r}: event {self.spec.name!r} has {self.complete} complete rounds"
            )
        return standings(self.spec, self.players, self.rounds[:after], self.results)

    def table(self, round_number: int, table_number: int) -> Table:
        if not 1 <= round_number <= len(self.rounds):
            raise NotFoundError(
                f"event {self.spec.name!r} has no round {round_number} "
                f"({len(self.rounds)} paired so far)"
            )
        tables = self.rounds[round_number - 1].tables
        if not 1 <= table_number <= len(tables):
            raise NotFoundError(
                f"round {round_number} of event {self.spec.name!r} has tables 1 to "
                f"{len(tables)}; there is no table {table_number}"
            )
        return tables[table_number - 1]

    def seated(self, player: str) -> list[tuple[int, int]]:
        """(round, table) of every table the player was seated at."""
        return [(r.number, t.number) for r in self.rounds for t in r.tables if player in t.players]


def spec_to_json(spec: EventSpec) -> dict[str, Any]:
    return {
        "format": str(spec.format),
        "rounds": spec.rounds,
        "deals": spec.deals,
        "source": str(spec.source),
        "scoring": str(spec.scoring),
        "tie_breaks": [str(t) for t in spec.tie_breaks],
        "seed": spec.seed,
        "pool": list(spec.pool),
        "game": spec.game,
        "rule": spec.rule,
        "time_limit": spec.time_limit,
        "late_points": str(spec.late_points),
    }


def spec_from_json(name: str, league: str, data: Mapping[str, Any]) -> EventSpec:
    return EventSpec(
        name=name,
        league=league,
        format=data["format"],
        rounds=data["rounds"],
        deals=data["deals"],
        source=data["source"],
        scoring=data["scoring"],
        tie_breaks=tuple(data["tie_breaks"]),
        seed=data["seed"],
        pool=tuple(data["pool"]),
        game=data["game"],
        rule=data.get("rule", "linear"),  # events created before scoring rules: linear
        time_limit=data.get("time_limit", TIME_LIMIT),
        late_points=data.get("late_points", LatePoints.ZERO),
    )


def _rows(scores: Sequence[Sequence[float]]) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in row) for row in scores)


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def check_text(name: str, value: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventError(f"{name} must be a non-empty text")
    if len(value) > limit:
        raise EventError(f"{name} has {len(value)} characters; at most {limit}")
    return value


def read_state(conn: Connection, name: str, *, lock: bool = False) -> tuple[int, EventState]:
    """Event ``name`` as recorded (its row id and state); ``lock``: its row locked for a
    write until the transaction ends."""
    check_event_name(name)
    query = select(events).where(events.c.name == name)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).first()
    if row is None:
        raise NotFoundError(f"event {name!r} does not exist")
    eid = row.id
    spec = spec_from_json(row.name, row.league, row.spec)
    players = tuple(
        Player(p.player, p.number, p.bot, p.joined, p.withdrawn)
        for p in conn.execute(
            select(event_players)
            .where(event_players.c.event_id == eid)
            .order_by(event_players.c.number)
        )
    )
    tables: dict[int, list[Table]] = {}
    for t in conn.execute(
        select(event_tables)
        .where(event_tables.c.event_id == eid)
        .order_by(event_tables.c.round, event_tables.c.table_no)
    ):
        tables.setdefault(t.round, []).append(
            Table(t.round, t.table_no, tuple(t.players), tuple(t.deals))
        )
    rounds = tuple(
        Round(r.round, tuple(tables.get(r.round, [])), tuple(r.byes))
        for r in conn.execute(
            select(event_rounds)
            .where(event_rounds.c.event_id == eid)
            .order_by(event_rounds.c.round)
        )
    )
    results = {
        (r.round, r.table_no): Result(r.round, r.table_no, _rows(r.scores))
        for r in conn.execute(select(event_results).where(event_results.c.event_id == eid))
    }
    amendments = tuple(
        Amendment(
            a.round,
            a.table_no,
            _rows(a.old_scores),
            _rows(a.new_scores),
            a.who,
            a.why,
            _aware(a.at),
        )
        for a in conn.execute(
            select(event_amendments)
            .where(event_amendments.c.event_id == eid)
            .order_by(event_amendments.c.id)
        )
    )
    forfeits = tuple(
        BoardForfeit(f.round, f.table_no, f.board, f.player, f.reason, f.detail)
        for f in conn.execute(
            select(event_forfeits)
            .where(event_forfeits.c.event_id == eid)
            .order_by(event_forfeits.c.id)
        )
    )
    log = tuple(
        LogEntry(e.action, e.round, e.player, e.detail, e.who, e.why, _aware(e.at))
        for e in conn.execute(
            select(event_log).where(event_log.c.event_id == eid).order_by(event_log.c.id)
        )
    )
    state = EventState(
        spec,
        EventStatus(row.status),
        _aware(row.created_at),
        players,
        rounds,
        results,
        amendments,
        forfeits,
        log,
    )
    return eid, state


def open_state(conn: Connection, name: str) -> tuple[int, EventState]:
    """:func:`read_state` locked for a write, refused when the event is finished."""
    eid, state = read_state(conn, name, lock=True)
    if state.status is EventStatus.FINISHED:
        raise ConflictError(
            f"event {name!r} is finished; its results are in league {state.spec.league!r}"
        )
    return eid, state


def write_log(conn: Connection, eid: int, entry: LogEntry) -> None:
    """Add ``entry`` to the log of event ``eid``."""
    conn.execute(
        insert(event_log).values(
            event_id=eid,
            action=entry.action,
            round=entry.round,
            player=entry.player,
            detail=entry.detail[:2000],
            who=entry.who,
            why=entry.why,
            at=entry.at,
        )
    )


class EventStore:
    """Events kept in the database of ``store`` (see the module text)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- reading ------------------------------------------------------------------------------
    def _load(self, conn: Connection, name: str, *, lock: bool = False) -> tuple[int, EventState]:
        return read_state(conn, name, lock=lock)

    def get(self, name: str) -> EventState:
        """Everything recorded about event ``name``."""
        with self.store.snapshot() as conn:
            return self._load(conn, name)[1]

    def league_of(self, name: str) -> str:
        """The league of event ``name`` (whose write keys enter its results)."""
        check_event_name(name)
        with self.store.snapshot() as conn:
            row = conn.execute(select(events.c.league).where(events.c.name == name)).first()
        if row is None:
            raise NotFoundError(f"event {name!r} does not exist")
        return str(row.league)

    def names(self) -> list[str]:
        with self.store.snapshot() as conn:
            return [r.name for r in conn.execute(select(events.c.name).order_by(events.c.name))]

    def _open(self, conn: Connection, name: str) -> tuple[int, EventState]:
        return open_state(conn, name)

    # -- writing ------------------------------------------------------------------------------
    def create(self, spec: EventSpec) -> EventState:
        """Record a new event; its league must exist."""
        self.store.get_league(spec.league)
        exists = ConflictError(f"event {spec.name!r} already exists")
        try:
            with self.store.transaction() as conn:
                if conn.execute(select(events.c.id).where(events.c.name == spec.name)).first():
                    raise exists
                conn.execute(
                    insert(events).values(
                        name=spec.name,
                        league=spec.league,
                        spec=spec_to_json(spec),
                        status=str(EventStatus.OPEN),
                        created_at=datetime.now(UTC),
                    )
                )
                return self._load(conn, spec.name)[1]
        except IntegrityError:  # lost a creation race on PostgreSQL
            raise exists from None

    def register(self, name: str, entries: Iterable[tuple[str, str | None]]) -> tuple[Player, ...]:
        """Register players ``(name, bot spec or None)``, all or none. A player registered
        after round r was paired plays from round r + 1 on (a late entry)."""
        from mindsport.event.entrants import check_bot

        wanted = [(check_player_name(p), bot) for p, bot in entries]
        spec = self.get(name).spec
        wanted = [(p, None if bot is None else check_bot(spec, p, bot)) for p, bot in wanted]
        with self.store.transaction() as conn:
            eid, state = self._open(conn, name)
            known = {p.name: p for p in state.players}
            batch: set[str] = set()
            for p, _ in wanted:
                if p in known:
                    how = " (withdrawn)" if known[p].withdrawn is not None else ""
                    raise ConflictError(
                        f"player {p!r} is already registered in event {name!r} as number "
                        f"{known[p].number}{how}"
                    )
                if p in batch:
                    raise EventError(f"player {p!r} is listed twice")
                batch.add(p)
            if len(known) + len(wanted) > MAX_PLAYERS:
                raise EventError(f"an event holds at most {MAX_PLAYERS} players")
            joined = len(state.rounds) + 1
            if joined > state.spec.rounds:
                raise EventError(f"event {name!r} has paired all its rounds; no late entry")
            added = tuple(
                Player(p, len(known) + i, bot, joined) for i, (p, bot) in enumerate(wanted, 1)
            )
            if added:
                conn.execute(
                    insert(event_players),
                    [
                        {
                            "event_id": eid,
                            "player": a.name,
                            "number": a.number,
                            "bot": a.bot,
                            "joined": a.joined,
                            "withdrawn": None,
                        }
                        for a in added
                    ],
                )
            return added

    def withdraw(self, name: str, player: str) -> Player:
        """Withdraw a player from the next round on (their results stay). Refused while the
        player sits at a table of the current round whose result is not in. ``player`` in
        any canonically equal spelling (names are kept in NFC)."""
        player = normal_id(player) if isinstance(player, str) else player
        with self.store.transaction() as conn:
            eid, state = self._open(conn, name)
            found = next((p for p in state.players if p.name == player), None)
            if found is None:
                raise NotFoundError(f"player {player!r} is not registered in event {name!r}")
            if found.withdrawn is not None:
                raise ConflictError(
                    f"player {player!r} withdrew from round {found.withdrawn} on already"
                )
            pending = [(r, t) for r, t in state.seated(player) if (r, t) not in state.results]
            if pending:
                r, t = pending[0]
                raise EventError(
                    f"player {player!r} sits at table {t} of round {r}, which has no result; "
                    "enter it first"
                )
            after = len(state.rounds) + 1
            conn.execute(
                update(event_players)
                .where(event_players.c.event_id == eid, event_players.c.player == player)
                .values(withdrawn=after)
            )
            return Player(found.name, found.number, found.bot, found.joined, after)

    def pair(
        self, name: str, manual: Sequence[Sequence[str]] | None = None, rest: str = "pair"
    ) -> Round:
        """Seat the next round (Swiss, or ``manual`` tables checked, the rest paired or on
        byes as ``rest`` says) and fix its deals."""
        if manual is not None and not isinstance(manual, str):  # names in NFC, as registered
            manual = [
                [normal_id(p) if isinstance(p, str) else p for p in t]
                if not isinstance(t, str)
                else t
                for t in manual
            ]
        with self.store.transaction() as conn:
            eid, state = self._open(conn, name)
            this = pair_round(state.spec, state.players, state.rounds, state.results, manual, rest)
            conn.execute(
                insert(event_rounds).values(
                    event_id=eid,
                    round=this.number,
                    byes=list(this.byes),
                    created_at=datetime.now(UTC),
                )
            )
            conn.execute(
                insert(event_tables),
                [
                    {
                        "event_id": eid,
                        "round": this.number,
                        "table_no": t.number,
                        "players": list(t.players),
                        "deals": list(t.deals),
                    }
                    for t in this.tables
                ],
            )
            return this

    def enter_result(
        self,
        name: str,
        round_number: int,
        table_number: int,
        scores: Sequence[Sequence[float]],
        who: str = "director",
    ) -> Result:
        """Enter a table's whole result (``scores[board][seat]``); once only."""
        return self.enter_results(name, [(round_number, table_number, scores)], who)[0]

    def enter_results(
        self,
        name: str,
        entries: Sequence[tuple[int, int, Sequence[Sequence[float]]]],
        who: str = "director",
        forfeits: Sequence[BoardForfeit] = (),
        labels: Sequence[str] | None = None,
    ) -> list[Result]:
        """Enter whole table results ``(round, table, scores)``, all or none; each table once
        (a result already in is corrected with :meth:`amend`). ``forfeits``: the forfeits of
        bot entrants at these tables (the bots' play), kept with the event in the same
        transaction. ``labels``: where each entry comes from (``FILE, line N``), put before
        the message of a refusal."""
        check_text("who", who, MAX_TEXT)
        with self.store.transaction() as conn:
            eid, state = self._open(conn, name)
            out: list[Result] = []
            seen: set[tuple[int, int]] = set()
            for i, (round_number, table_number, scores) in enumerate(entries):
                try:
                    table = state.table(round_number, table_number)
                    result = check_scores(table, scores, state.spec.rule, state.spec.game)
                    where = (round_number, table_number)
                    if where in state.results or where in seen:
                        raise ConflictError(
                            f"round {round_number} table {table_number} of event {name!r} "
                            "already has a result; correct it with an amendment"
                        )
                except (EventError, NotFoundError, ConflictError) as exc:
                    if labels is None:
                        raise
                    raise type(exc)(f"{labels[i]}: {exc}") from None
                seen.add(where)
                out.append(result)
            now = datetime.now(UTC)
            if out:
                conn.execute(
                    insert(event_results),
                    [
                        {
                            "event_id": eid,
                            "round": r.round,
                            "table_no": r.table,
                            "scores": [list(x) for x in r.scores],
                            "entered_by": who,
                            "entered_at": now,
                        }
                        for r in out
                    ],
                )
            tables = {(r.round, r.table) for r in out}
            for f in forfeits:
                if (f.round, f.table) not in tables:
                    raise EventError(
                        f"a forfeit at round {f.round} table {f.table} comes with no result"
                    )
            if forfeits:
                conn.execute(
                    insert(event_forfeits),
                    [
                        {
                            "event_id": eid,
                            "round": f.round,
                            "table_no": f.table,
                            "board": f.board,
                            "player": f.player,
                            "reason": f.reason[:20],
                            "detail": f.detail[:2000],
                            "at": now,
                        }
                        for f in forfeits
                    ],
                )
            return out

    def amend(
        self,
        name: str,
        round_number: int,
        table_number: int,
        scores: Sequence[Sequence[float]],
        who: str,
        why: str,
    ) -> Amendment:
        """Replace a table's result, logging the old and new scores, who, when and why. In a
        finished event the league is brought up to date in the same transaction: the event's
        matches in it are replaced by those of the corrected event (not added; see
        :meth:`mindsport.store.Store.replace_matches`), as if it had finished corrected."""
        check_text("who", who, MAX_TEXT)
        check_text("why", why, MAX_WHY)
        with self.store.transaction() as conn:
            eid, state = self._load(conn, name, lock=True)
            table = state.table(round_number, table_number)
            result = check_scores(table, scores, state.spec.rule, state.spec.game)
            old = state.results.get((round_number, table_number))
            if old is None:
                raise EventError(
                    f"round {round_number} table {table_number} of event {name!r} has no result "
                    "to amend; enter it first"
                )
            if old.scores == result.scores:
                raise EventError(
                    f"round {round_number} table {table_number}: the amendment changes nothing"
                )
            at = datetime.now(UTC)
            conn.execute(
                update(event_results)
                .where(
                    event_results.c.event_id == eid,
                    event_results.c.round == round_number,
                    event_results.c.table_no == table_number,
                )
                .values(scores=[list(r) for r in result.scores], entered_by=who, entered_at=at)
            )
            conn.execute(
                insert(event_amendments).values(
                    event_id=eid,
                    round=round_number,
                    table_no=table_number,
                    old_scores=[list(r) for r in old.scores],
                    new_scores=[list(r) for r in result.scores],
                    who=who,
                    why=why,
                    at=at,
                )
            )
            if state.status is EventStatus.FINISHED:
                corrected = self._load(conn, name)[1]
                new = league_matches(corrected)
                gone = self.store.replace_matches(
                    state.spec.league, [m.id for m in league_matches(state)], new, conn=conn
                )
                write_log(
                    conn,
                    eid,
                    LogEntry(
                        "league",
                        round_number,
                        None,
                        f"league {state.spec.league!r}: the event's {gone} matches replaced by "
                        f"{len(new)} after correcting table {table_number}; ratings re-derived",
                        who,
                        why,
                        at,
                    ),
                )
            return Amendment(round_number, table_number, old.scores, result.scores, who, why, at)

    def finish(self, name: str) -> int:
        """Write the event's tables into its league as matches and close the event; returns
        the number of matches the league did not hold yet (0 when finishing again)."""
        state = self.get(name)
        if len(state.rounds) < state.spec.rounds or state.complete < state.spec.rounds:
            raise EventError(
                f"event {name!r} is not over: {state.complete} of {state.spec.rounds} rounds "
                "have all their results"
            )
        ingest = self.store.add_matches(state.spec.league, league_matches(state))
        with self.store.transaction() as conn:
            eid, now = self._load(conn, name, lock=True)
            if now.status is EventStatus.OPEN:
                conn.execute(
                    update(events)
                    .where(events.c.id == eid)
                    .values(status=str(EventStatus.FINISHED), finished_at=datetime.now(UTC))
                )
        return ingest.added


def league_matches(state: EventState) -> list[Match]:
    """The event's tables as matches of its league (see :meth:`EventStore.finish`); a game
    whose boards are matches of their own (mahjong) gives one match per board, id
    ``EVENT:rROUND:tTABLE:bBOARD``, its players ranked by their score on the board."""
    from mindsport.event.games import table_game

    per_board = table_game(state.spec.game).board_matches
    base = state.created_at.timestamp()
    out = []
    for r in state.rounds:
        for t in r.tables:
            result = state.results[(r.number, t.number)]
            if per_board:
                for b, row in zip(t.boards(), result.scores, strict=True):
                    out.append(
                        _match(
                            f"{state.spec.name}:r{r.number}:t{t.number}:b{b.number + 1}",
                            base + r.number,
                            [s.player for s in b.seats],
                            [row[s.seat] for s in b.seats],
                        )
                    )
                continue
            points = result.player_scores(t)
            out.append(
                _match(
                    f"{state.spec.name}:r{r.number}:t{t.number}",
                    base + r.number,
                    list(t.players),
                    [points[p] for p in t.players],
                )
            )
    return out


def _match(key: str, time: float, players: list[str], scores: list[float]) -> Match:
    return Match(key, time, [[p] for p in players], list(ranks_from_scores(scores)), scores=scores)
