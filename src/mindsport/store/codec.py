"""A match's stored form: the columns of its row in the match log, the exact text of its JSON
columns, and its canonical digest; and back from a row to the :class:`~mindsport.match.Match`.

No database here: a batch is put in its stored form (:func:`prepare_matches`) before any
connection is taken, in another process if need be (the service prepares large posts in worker
processes).

This is not the match files' JSON-lines form (:mod:`mindsport.history.io`): a file line keeps
what its writer gave (the time as written, with its UTC offset; absent fields left out) and is
read back with file and line in its errors; a stored row splits the time into a number on the
league's one time axis (``time_value``, the replay order's key) and its UTC spelling, writes its
JSON columns in one fixed spelling, and carries a digest over a canonical form (players sorted
within their teams, the time as one number) that tells an identical re-post from a conflicting
one. Rows written by earlier versions must keep reading back and comparing equal, so this form
never changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

from mindsport.match import Match, time_value
from mindsport.store.values import MatchConflictError, MatchRefusedError, StoreError

__all__ = [
    "MAX_ID_LENGTH",
    "PreparedMatches",
    "canonical_json",
    "digest",
    "encode",
    "from_json_text",
    "match_of",
    "prepare_matches",
]

#: longest match or player id the tables hold
MAX_ID_LENGTH = 200

#: JSON in one spelling: no spaces, no NaN, non-ASCII characters as they are
canonical_json = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode


def _iso_utc(t: datetime) -> str:
    """The one stored spelling of a datetime: ISO 8601 in UTC (naive datetimes are UTC)."""
    return (t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)).isoformat()


def digest(
    tv: float,
    teams: Sequence[Sequence[str]],
    ranks: Sequence[int | None],
    weights: Sequence[Sequence[float]] | None,
    scores: Sequence[float] | None,
    roles: Sequence[Sequence[str]] | None = None,
    deal: str | None = None,
    luck: Sequence[float] | None = None,
) -> str:
    """SHA-256 of a match's canonical form: the time as one number (the instant, however it was
    written), each team's players sorted (with their weights and roles), ranks, weights and
    scores as numbers. Roles, deal and luck join the form only when given, so a match without
    them has the digest it had before the store kept them. Two records with the same digest
    are the same result."""
    sorted_weights = None
    if weights is None and roles is None:  # nothing to carry along: sort the names themselves
        sorted_teams = [sorted(t) for t in teams]
        if scores is None and deal is None and luck is None:  # the usual record: no encoder
            text = (
                f"[{float(tv)!r},{_teams_json(sorted_teams, ',', encode_basestring)},"
                f"{_int_list_json(ranks)},null,null]"
            )
            return hashlib.sha256(text.encode()).hexdigest()
    else:
        order = [sorted(range(len(t)), key=t.__getitem__) for t in teams]
        sorted_teams = [[t[i] for i in o] for t, o in zip(teams, order, strict=True)]
    if weights is not None:
        sorted_weights = [[float(w[i]) for i in o] for w, o in zip(weights, order, strict=True)]
    body: list[Any] = [
        float(tv),
        sorted_teams,
        list(ranks),
        sorted_weights,
        None if scores is None else [float(x) for x in scores],
    ]
    chance: dict[str, Any] = {}
    if roles is not None:
        chance["roles"] = [[rs[i] for i in o] for rs, o in zip(roles, order, strict=True)]
    if deal is not None:
        chance["deal"] = deal
    if luck is not None:
        chance["luck"] = [float(x) for x in luck]
    if chance:
        body.append(chance)
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def encode(m: Match) -> dict[str, Any]:
    """The stored form of ``m``: its columns by name, its ``digest``, and under ``json`` the
    stored text of its JSON columns teams, ranks, weights, scores, roles and luck."""
    tv = time_value(m.time)
    teams = [list(t) for t in m.teams]
    ranks = list(m.ranks)
    weights = None if m.weights is None else [list(w) for w in m.weights]
    scores = None if m.scores is None else list(m.scores)
    roles = None if m.roles is None else [list(r) for r in m.roles]
    luck = None if m.luck is None else list(m.luck)
    return {
        "match_id": m.id,
        "time_value": tv,
        "time_iso": _iso_utc(m.time) if isinstance(m.time, datetime) else None,
        "teams": teams,
        "ranks": ranks,
        "weights": weights,
        "scores": scores,
        "roles": roles,
        "deal": m.deal,
        "luck": luck,
        "digest": digest(tv, teams, ranks, weights, scores, roles, m.deal, luck),
        # the stored text of the JSON columns teams, ranks, weights, scores, roles and luck
        "json": (
            _teams_json(teams, ", ", encode_basestring_ascii),
            _int_list_json(ranks),
            "null" if weights is None else json.dumps(weights),
            "null" if scores is None else json.dumps(scores),
            "null" if roles is None else json.dumps(roles),
            "null" if luck is None else json.dumps(luck),
        ),
    }


def match_of(r: Mapping[Any, Any]) -> Match:
    """The match of a stored row's columns (or of an encoded match), its ids as stored
    (:meth:`Match.recorded <mindsport.match.Match.recorded>`)."""
    t: datetime | float | int
    if r["time_iso"] is not None:
        t = datetime.fromisoformat(r["time_iso"])
    else:
        tv = float(r["time_value"])
        t = int(tv) if tv.is_integer() and abs(tv) < 2**53 else tv
    return Match.recorded(r["match_id"], t, r)


def _teams_json(teams: Sequence[Sequence[str]], sep: str, quote: Callable[[str], str]) -> str:
    """JSON of a list of lists of strings, as ``json.dumps`` writes it with the item separator
    ``sep`` and the string quoting ``quote`` (``json.encoder.encode_basestring_ascii``: its
    default, ``encode_basestring``: ``ensure_ascii=False``), without building an encoder."""
    return "[" + sep.join("[" + sep.join(map(quote, t)) + "]" for t in teams) + "]"


def _int_list_json(values: Sequence[int | None]) -> str:
    """JSON of a list of ints and nulls (ranks), without the general encoder's overhead."""
    return "[" + ",".join("null" if v is None else str(int(v)) for v in values) + "]"


_JSON_DECODE = json.JSONDecoder().decode


def from_json_text(value: str | None) -> Any:
    """A JSON column read as text: its value, with SQL ``NULL`` and the text ``null`` (what
    most rows hold in their optional columns) as ``None`` without a parse."""
    return None if value is None or value == "null" else _JSON_DECODE(value)


@dataclass(frozen=True, slots=True)
class PreparedMatches:
    """Matches checked and put in their stored form (one time axis, sorted-team digests), ready
    for :meth:`Store.submit_matches <mindsport.store.Store.submit_matches>`; made by
    :func:`prepare_matches`.

    Preparing is the part of ingesting that needs no database, so it may run in another process
    (a prepared batch pickles): the service prepares large posts in a worker process while the
    database writer commits earlier ones.
    """

    #: the stored form of each match, by match id (an identical repeat counted once)
    records: dict[str, dict[str, Any]]
    #: matches given, identical repeats included
    size: int


def prepare_matches(matches: Iterable[Match]) -> PreparedMatches:
    """``matches`` as a :class:`PreparedMatches`; raises for what no league can store: an id
    longer than :data:`MAX_ID_LENGTH` (:class:`MatchRefusedError`) or one match id given twice
    with different data (:class:`MatchConflictError`)."""
    encoded: dict[str, dict[str, Any]] = {}
    size = 0
    for m in matches:
        size += 1
        if not isinstance(m, Match):
            raise StoreError(f"expected Match records, got {type(m).__name__}: {m!r}")
        if len(m.id) > MAX_ID_LENGTH:
            raise MatchRefusedError(
                f"match {m.id[:40]!r}...: id: longer than {MAX_ID_LENGTH} characters", m.id, "id"
            )
        for p in m.players:
            if len(p) > MAX_ID_LENGTH:
                raise MatchRefusedError(
                    f"match {m.id!r}: teams: player id {p[:40]!r}... is longer than "
                    f"{MAX_ID_LENGTH} characters",
                    m.id,
                    "teams",
                )
        enc = encode(m)
        prev = encoded.get(m.id)
        if prev is not None and prev["digest"] != enc["digest"]:
            raise MatchConflictError(
                f"match {m.id!r} appears twice in the input with different data", m.id
            )
        encoded[m.id] = enc
    return PreparedMatches(encoded, size)
