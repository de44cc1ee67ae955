"""Loading a large batch of matches into a league at once (``mindsport rate FILE``): the bulk
path beside the group commit of :mod:`mindsport.store.ingest`, with the same result.

The batch's stored form is made column by column (:func:`stored_columns`): ids, times and the
JSON text of teams and ranks with one escape per distinct player and one format call per match,
the SHA-256 digest of the same canonical text as :func:`mindsport.store.codec.digest` (a match
with weights, scores, roles, deal or luck is put in its stored form by
:func:`~mindsport.store.codec.encode` itself). Then one write transaction: the league locked
(created in it when asked), ids already recorded told apart by digest (an identical re-post is
ignored, a different one refused), the new matches rated by the league's deriver (the one replay
driver, on arrays; :meth:`Deriver.append <mindsport.store.derive.Deriver.append>`), their rows
written column by column with the database's bulk interface
(:func:`~mindsport.store.bulk.insert_columns`; SQLite: prepared statements of many rows each,
the values every row shares written into them, in one transaction; PostgreSQL: ``COPY``). A
refused match rolls everything back.

The bulk path takes a batch that only appends (each new match comes after every recorded match
of its players, as the deriver's ``append`` requires) to a league whose model rates match by
match without virtual players, whose late-result policy refuses nothing and which is not
being brought up to date after a late result (:mod:`mindsport.store.catchup`); :func:`load`
returns ``None`` for any other, before writing anything, and the caller takes the group commit
(:meth:`Store.add_matches <mindsport.store.Store.add_matches>`), which replays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, repeat
from json.encoder import encode_basestring, encode_basestring_ascii
from operator import attrgetter
from typing import Any

import numpy as np

from mindsport.errors import NotFoundError
from mindsport.match import Match, time_value
from mindsport.store.bulk import insert_columns
from mindsport.store.codec import MAX_ID_LENGTH, encode
from mindsport.store.database import Database, cursor
from mindsport.store.derive import Deriver
from mindsport.store.league_lock import LeagueLock
from mindsport.store.league_model import LeagueModels
from mindsport.store.leagues import Leagues
from mindsport.store.values import (
    IngestResult,
    MatchConflictError,
    MatchRefusedError,
    StoreError,
)

__all__ = ["Loader", "StoredColumns", "load", "stored_columns"]


@dataclass(frozen=True)
class StoredColumns:
    """A batch in its stored form, one entry per distinct match id (first occurrence order):
    the matches, their time on the league's axis and its UTC spelling, the stored text of their
    JSON columns (teams, ranks, weights, scores, roles, luck) and their digests; ``size``
    counts the matches given, identical repeats included; ``players``: every player, sorted."""

    matches: list[Match]
    time_values: list[float]
    time_isos: list[str | None]
    json: list[tuple[str, str, str, str, str, str]]
    digests: list[str]
    size: int
    players: list[str]


def _iso_utc(t: datetime) -> str:
    return (t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)).isoformat()


def _plain(m: Match) -> bool:
    """Whether a match is the usual record: teams and ranks, nothing else."""
    return (
        m.weights is None
        and m.scores is None
        and m.roles is None
        and m.deal is None
        and (m.luck is None)
    )


def _ranks_text(ranks: tuple[int | None, ...]) -> str:
    return "[" + ",".join("null" if r is None else str(int(r)) for r in ranks) + "]"


def _shape(ms: Sequence[Match]) -> tuple[int, ...] | None:
    """The team sizes every match of ``ms`` has (None: they differ)."""
    per_match = list(map(len, (m.teams for m in ms)))
    if not per_match or min(per_match) != max(per_match):
        return None
    sizes = np.fromiter(map(len, chain.from_iterable(m.teams for m in ms)), np.int64)
    rows = sizes.reshape(len(ms), per_match[0])
    return tuple(rows[0].tolist()) if (rows == rows[0]).all() else None


def _verbatim(p: str) -> bool:
    """Whether JSON writes the string ``p`` as it is (printable ASCII, no quote, no backslash),
    with ``ensure_ascii`` or without."""
    return p.isascii() and p.isprintable() and '"' not in p and "\\" not in p


def _plain_texts(
    ms: Sequence[Match], tvs: Sequence[float], flat: list[str] | None
) -> tuple[list[str], list[str], list[str]]:
    """The stored text of teams and ranks and the canonical text (the digest's input) of plain
    matches (``flat``: their players, slot by slot, when at hand): each distinct player escaped
    once, each distinct ranks tuple written once, one format call per match when all matches
    have teams of the same shape."""
    stored_esc: dict[str, str] = {}
    digest_esc: dict[str, str] = {}
    rank_text: dict[tuple[int | None, ...], str] = {}
    ranks = [
        rank_text.get(m.ranks) or rank_text.setdefault(m.ranks, _ranks_text(m.ranks)) for m in ms
    ]
    times = list(map(repr, map(float, tvs)))
    sizes = _shape(ms)
    if sizes is not None:
        slots = sum(sizes)
        if flat is None:
            flat = list(chain.from_iterable(chain.from_iterable(m.teams for m in ms)))
        per_slot = [flat[i::slots] for i in range(slots)]
        sorted_cols = _sorted_within_teams(per_slot, sizes)
        one = "{}"
        if all(map(_verbatim, set(flat))):  # JSON writes every id as it is, in quotes
            one = '"{}"'
            stored_cols, digest_cols = per_slot, sorted_cols
        else:
            for p in set(flat):
                stored_esc[p] = encode_basestring_ascii(p)
                digest_esc[p] = encode_basestring(p)
            stored_cols = [list(map(stored_esc.__getitem__, col)) for col in per_slot]
            digest_cols = [list(map(digest_esc.__getitem__, col)) for col in sorted_cols]
        stored_form = "[" + ", ".join("[" + ", ".join([one] * k) + "]" for k in sizes) + "]"
        digest_form = (
            "[{},[" + ",".join("[" + ",".join([one] * k) + "]" for k in sizes) + "],{},null,null]"
        )
        teams = list(map(stored_form.format, *stored_cols))
        canon = list(map(digest_form.format, times, *digest_cols, ranks))
        return teams, ranks, canon
    teams, canon = [], []
    for m, tv_text, rk in zip(ms, times, ranks, strict=True):
        for t in m.teams:
            for p in t:
                if p not in stored_esc:
                    stored_esc[p] = encode_basestring_ascii(p)
                    digest_esc[p] = encode_basestring(p)
        teams.append(
            "[" + ", ".join("[" + ", ".join(stored_esc[p] for p in t) + "]" for t in m.teams) + "]"
        )
        body = ",".join("[" + ",".join(digest_esc[p] for p in sorted(t)) + "]" for t in m.teams)
        canon.append(f"[{tv_text},[{body}],{rk},null,null]")
    return teams, ranks, canon


def _sorted_within_teams(per_slot: list[list[str]], sizes: tuple[int, ...]) -> list[list[str]]:
    """The slot columns with each team's players in sorted order (as the digest sorts them)."""
    out: list[list[str]] = []
    at = 0
    for k in sizes:
        team = per_slot[at : at + k]
        if k == 1:
            out.extend(team)
        else:
            rows = [sorted(players) for players in zip(*team, strict=True)]
            out.extend([list(col) for col in zip(*rows, strict=True)])
        at += k
    return out


def stored_columns(matches: Sequence[Match]) -> StoredColumns:
    """The stored form of ``matches`` (see :class:`StoredColumns`); raises what
    :func:`~mindsport.store.codec.prepare_matches` raises: an id longer than
    :data:`~mindsport.store.codec.MAX_ID_LENGTH`, a match id given twice with different data."""
    ms = list(matches)
    for m in ms:
        if not isinstance(m, Match):
            raise StoreError(f"expected Match records, got {type(m).__name__}: {m!r}")
    longest = max((len(m.id) for m in ms), default=0)
    if longest > MAX_ID_LENGTH:
        m = next(m for m in ms if len(m.id) > MAX_ID_LENGTH)
        raise MatchRefusedError(
            f"match {m.id[:40]!r}...: id: longer than {MAX_ID_LENGTH} characters", m.id, "id"
        )
    flat = list(chain.from_iterable(chain.from_iterable(m.teams for m in ms)))
    players = sorted(set(flat))
    if max(map(len, players), default=0) > MAX_ID_LENGTH:  # name the first match holding one
        for m in ms:
            for p in m.players:
                if len(p) > MAX_ID_LENGTH:
                    raise MatchRefusedError(
                        f"match {m.id!r}: teams: player id {p[:40]!r}... is longer than "
                        f"{MAX_ID_LENGTH} characters",
                        m.id,
                        "teams",
                    )
    times: list[Any] = [m.time for m in ms]
    tvs: list[float]
    isos: list[str | None]
    if set(map(type, times)) <= {int, float}:
        tvs, isos = list(map(float, times)), [None] * len(ms)
    else:
        tvs = list(map(time_value, times))
        isos = [_iso_utc(t) if isinstance(t, datetime) else None for t in times]
    plain = [i for i, m in enumerate(ms) if _plain(m)]
    sha = hashlib.sha256
    if len(plain) == len(ms):  # the usual batch
        teams, ranks, canon = _plain_texts(ms, tvs, flat)
        nulls = repeat("null")
        texts = list(zip(teams, ranks, nulls, nulls, nulls, nulls, strict=False))
        digests = [sha(c.encode()).hexdigest() for c in canon]
        return _distinct(StoredColumns(ms, tvs, isos, texts, digests, len(ms), players))
    texts = [("", "", "", "", "", "")] * len(ms)
    digests = [""] * len(ms)
    if plain:
        teams, ranks, canon = _plain_texts([ms[i] for i in plain], [tvs[i] for i in plain], None)
        for i, t, r, c in zip(plain, teams, ranks, canon, strict=True):
            texts[i] = (t, r, "null", "null", "null", "null")
            digests[i] = sha(c.encode()).hexdigest()
    for i in set(range(len(ms))) - set(plain):
        enc = encode(ms[i])
        texts[i] = enc["json"]
        digests[i] = enc["digest"]
    return _distinct(StoredColumns(ms, tvs, isos, texts, digests, len(ms), players))


def _distinct(cols: StoredColumns) -> StoredColumns:
    """``cols`` with each match id once (an identical repeat dropped; a different one
    refused)."""
    ids = [m.id for m in cols.matches]
    if len(set(ids)) == len(ids):
        return cols
    first: dict[str, int] = {}
    keep: list[int] = []
    for i, mid in enumerate(ids):
        j = first.get(mid)
        if j is None:
            first[mid] = i
            keep.append(i)
        elif cols.digests[j] != cols.digests[i]:
            raise MatchConflictError(
                f"match {mid!r} appears twice in the input with different data", mid
            )
    return StoredColumns(
        [cols.matches[i] for i in keep],
        [cols.time_values[i] for i in keep],
        [cols.time_isos[i] for i in keep],
        [cols.json[i] for i in keep],
        [cols.digests[i] for i in keep],
        cols.size,
        cols.players,
    )


_TEAMS, _RANKS, _WEIGHTS, _DEAL = map(attrgetter, ("teams", "ranks", "weights", "deal"))
#: the match log's JSON columns, in the order of :attr:`StoredColumns.json`
_JSON_COLUMNS = ("teams", "ranks", "weights", "scores", "roles", "luck")


def _team_columns(ms: Sequence[Match]) -> tuple[Iterable[Any], Iterable[Any], Iterable[Any]]:
    """The teams, ranks and weights of ``ms``, column by column."""
    return map(_TEAMS, ms), map(_RANKS, ms), map(_WEIGHTS, ms)


@dataclass(frozen=True)
class Loader:
    """What :func:`load` writes with: the database, the leagues, their models, locks and
    deriver (a store's own)."""

    db: Database
    leagues: Leagues
    models: LeagueModels
    lock: LeagueLock
    deriver: Deriver


def load(
    loader: Loader,
    league: str,
    cols: StoredColumns,
    create: tuple[str, Mapping[str, Any]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> IngestResult | None:
    """Write ``cols`` into ``league`` in one transaction, on the bulk path (see the module);
    ``create=(model, params)`` makes a missing league in the same transaction. ``None``: the
    batch does not only append, or the league's model or policy needs the group commit;
    nothing was written."""
    db = loader.db
    made = None
    if create is not None:
        made = (create[0], loader.leagues.check_new(league, create[0], create[1]))
    ids = [m.id for m in cols.matches]
    names = cols.players
    with db.write() as conn:
        try:
            row, known, current = loader.lock.lock_and_read(conn, league, ids, names)
        except NotFoundError:
            if made is None:
                raise
            loader.leagues.insert(conn, league, made[0], dict(made[1]))
            row, known, current = loader.lock.lock_league(conn, league), {}, {}
        model = loader.models.model_for(row.model, row.params)
        policy = row.late
        if (
            model.smoothed
            or model.virtual
            or policy.refuse_older_than is not None
            or row.catchup is not None  # being brought up to date: the catch-up rates them
        ):
            return None
        new = [i for i, mid in enumerate(ids) if mid not in known]
        for i, mid in enumerate(ids):
            old = known.get(mid)
            if old is not None and old != cols.digests[i]:
                raise MatchConflictError(
                    f"match {mid!r} is already recorded in league {row.name!r} with different data",
                    mid,
                )
        if not new:
            return IngestResult(0, cols.size, 0)
        tvs = cols.time_values
        old_max = row.max_time
        first = min(tvs[i] for i in new)
        if not (policy.by_arrival or old_max is None or first >= old_max) and not all(
            p not in current or current[p].last_time <= tvs[i]
            for i in new
            for t in cols.matches[i].teams
            for p in t
        ):
            return None  # late: a recorded match depends on a new one; the group commit replays
        seq0 = row.last_seq
        every = len(new) == len(ids)  # the usual load: nothing recorded before

        def column(values: Sequence[Any]) -> Sequence[Any]:
            return values if every else [values[i] for i in new]

        fresh = column(cols.matches)
        new_ids, new_tvs, isos = column(ids), column(tvs), column(cols.time_isos)
        seqs = range(seq0 + 1, seq0 + len(new) + 1)
        keys = ("match_id", "seq", "time_value", "time_iso", "teams", "ranks", "weights")
        rows = list(
            map(
                dict,
                map(
                    zip,
                    repeat(keys),
                    zip(new_ids, seqs, new_tvs, isos, *_team_columns(fresh), strict=True),
                ),
            )
        )
        write_derived = loader.deriver.append(
            conn, row.id, model, rows, progress, current, policy.by_arrival
        )
        now = datetime.now(UTC)
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f") if db.is_sqlite else now
        texts = list(zip(*column(cols.json), strict=True))
        insert_columns(
            db,
            cursor(conn),
            "ms_matches",
            {
                "league_id": [row.id] * len(new),
                "seq": seqs,
                "match_id": new_ids,
                "time_value": new_tvs,
                "time_iso": isos,
                **dict(zip(_JSON_COLUMNS, texts, strict=True)),
                "deal": list(map(_DEAL, fresh)),
                "digest": column(cols.digests),
                "created_at": [stamp] * len(new),
            },
        )
        latest = max(new_tvs)
        cursor(conn).execute(
            db.sql("UPDATE ms_leagues SET last_seq = ?, max_time = ? WHERE id = ?"),
            (seq0 + len(new), latest if old_max is None else max(old_max, latest), row.id),
        )
        write_derived()
    return IngestResult(len(new), cols.size - len(new), 0)
