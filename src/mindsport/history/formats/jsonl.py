"""JSON Lines match files: one match per line, an object with ``id``, ``time``, ``teams``,
``ranks`` and the optional fields of :class:`~mindsport.match.Match`.

:func:`iter_jsonl` reads line by line (the row path: each line parsed and checked as a match);
:func:`read_jsonl` reads a whole file on the column path (:mod:`.columns`) when it can."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import IO, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mindsport.history.formats.columns import (
    Located,
    Parts,
    build,
    distinct_texts,
    ids_ok,
    interned,
    text_times,
    times_ok,
)
from mindsport.history.formats.common import (
    JSON_KEYS,
    MatchFileError,
    checked_match,
    field_of,
    parse_time,
)
from mindsport.match import InvalidMatchError, Match

__all__ = ["iter_jsonl", "read_jsonl", "write_jsonl"]

I64 = NDArray[np.int64]
F64 = NDArray[np.float64]


def _match_to_json(m: Match) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": m.id,
        "time": m.time.isoformat() if isinstance(m.time, datetime) else m.time,
        "teams": [list(t) for t in m.teams],
        "ranks": list(m.ranks),
    }
    if m.weights is not None:
        d["weights"] = [list(w) for w in m.weights]
    if m.scores is not None:
        d["scores"] = list(m.scores)
    if m.roles is not None:
        d["roles"] = [list(r) for r in m.roles]
    if m.deal is not None:
        d["deal"] = m.deal
    if m.luck is not None:
        d["luck"] = list(m.luck)
    return d


def _match_from_json(obj: Any, path: str, line: int) -> Match:
    if not isinstance(obj, dict):
        raise MatchFileError(path, line, None, f"expected a JSON object, got {obj!r}")
    for key in ("id", "time", "teams"):
        if key not in obj:
            raise MatchFileError(path, line, key, "missing")
    extra = set(obj) - JSON_KEYS
    if extra:
        raise MatchFileError(path, line, sorted(extra)[0], "unknown field")
    mid = obj["id"]
    if isinstance(mid, int) and not isinstance(mid, bool):
        mid = str(mid)
    t = obj["time"]
    if isinstance(t, str):
        try:
            t = parse_time(t)
        except ValueError as exc:
            raise MatchFileError(path, line, "time", str(exc)) from None
    try:
        return Match(
            mid,
            t,
            obj["teams"],
            obj.get("ranks"),
            obj.get("weights"),
            obj.get("scores"),
            roles=obj.get("roles"),
            deal=obj.get("deal"),
            luck=obj.get("luck"),
        )
    except InvalidMatchError as exc:
        field = field_of(str(exc))
        raise MatchFileError(path, line, field, str(exc)) from None
    except TypeError as exc:
        raise MatchFileError(path, line, None, f"malformed match: {exc}") from None


def _share_ids(obj: Any, ids: dict[str, str]) -> None:
    """Make the player ids of a parsed match's ``teams`` the file's one string per player
    (less memory, and players found by identity when the matches are rated); anything that is
    not a list of lists of strings is left for the match's own checks."""
    teams = obj.get("teams") if isinstance(obj, dict) else None
    if isinstance(teams, list):
        obj["teams"] = [
            [ids.setdefault(p, p) if isinstance(p, str) else p for p in t]
            if isinstance(t, list)
            else t
            for t in teams
        ]


def iter_jsonl(path: str) -> Iterator[tuple[int, Match]]:
    seen: set[str] = set()
    ids: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise MatchFileError(path, line_no, None, f"invalid JSON: {exc.msg}") from None
            _share_ids(obj, ids)
            m = _match_from_json(obj, path, line_no)
            if m.id in seen:
                raise MatchFileError(path, line_no, "id", f"match id {m.id!r} appears twice")
            seen.add(m.id)
            yield line_no, m


def write_jsonl(fh: IO[str], matches: Iterable[Match]) -> int:
    n = 0
    for m in matches:
        fh.write(json.dumps(_match_to_json(checked_match(m)), ensure_ascii=False) + "\n")
        n += 1
    return n


# ---------------------------------------------------------------------------- columns


class _Lines(NamedTuple):
    """The text of a JSON Lines file (``data``) and where its objects are: the line number
    (1-based) and the first byte of each, in order."""

    data: bytes
    numbers: I64
    starts: I64


def _object_lines(data: bytes) -> _Lines | None:
    """Where the objects of a JSON Lines text are, when every line is either empty or one
    object alone (it starts with ``{`` and ends with ``}``, before an optional carriage
    return); None otherwise (a line the row path reads otherwise or refuses)."""
    raw = np.frombuffer(data, np.uint8)
    if data.startswith(b"\xef\xbb\xbf") or (raw == 0x0D).sum() != data.count(b"\r\n"):
        return None
    breaks = np.flatnonzero(raw == 0x0A)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(raw)]))
    ends = ends - (raw[np.maximum(ends - 1, 0)] == 0x0D) * (ends > starts)
    full = ends > starts
    first, last = starts[full], ends[full] - 1
    if not ((raw[first] == 0x7B).all() and (raw[last] == 0x7D).all()):
        return None
    return _Lines(data, np.flatnonzero(full) + 1, first)


def _arrow_table(path: str) -> tuple[Any, _Lines] | None:
    """A JSON Lines file read by pyarrow's JSON reader (one column per field; None when no
    line holds an object), and where its objects are; None when a line is not one object
    alone or a field's values do not share one JSON type (the row path reads such files, or
    names their bad line)."""
    import pyarrow as pa
    import pyarrow.json as pj

    with open(path, "rb") as fh:
        data = fh.read()
    lines = _object_lines(data)
    if lines is None:
        return None
    if len(lines.numbers) == 0:
        return None, lines
    schema = pa.schema(  # the list fields' types; the rest pyarrow infers
        [
            ("teams", pa.list_(pa.list_(pa.string()))),
            ("ranks", pa.list_(pa.int64())),
            ("scores", pa.list_(pa.float64())),
            ("weights", pa.list_(pa.list_(pa.float64()))),
        ]
    )
    try:
        table = pj.read_json(
            pa.BufferReader(data), parse_options=pj.ParseOptions(explicit_schema=schema)
        )
    except pa.ArrowException:
        return None
    if table.num_rows != len(lines.numbers):
        return None
    return table, lines


#: a top-level ``time`` key and its value written as a number, or as a text without escapes
#: (inside a JSON string a quote is escaped, so a quote right after ``{`` or ``,`` opens a key)
_TIME_NUMBER = r'[{,]\s*"time"\s*:\s*(?P<value>-?[0-9][0-9.eE+-]*)'
_TIME_TEXT = r'[{,]\s*"time"\s*:\s*"(?P<value>[^"\\]*)"'


def _time_literals(lines: _Lines, rows: NDArray[np.bool_], pattern: str) -> Any | None:
    """The ``time`` of each of ``rows`` as written in the file (``pattern``: one of the two
    above), as a pyarrow string array; None when one is not found."""
    import pyarrow as pa
    import pyarrow.compute as pc

    bounds = np.append(lines.starts, len(lines.data)).astype(np.int64)
    texts = pa.LargeStringArray.from_buffers(  # each object's line (and any blank after it)
        len(lines.starts), pa.py_buffer(bounds), pa.py_buffer(lines.data)
    ).filter(pa.array(rows))
    values = pc.extract_regex(texts, pattern).field("value")
    return None if values.null_count else values.cast(pa.string())


def _column(table: Any, name: str) -> Any:
    """A field's values as one array (None: no line gives it)."""
    if name not in table.column_names:
        return None
    col = table.column(name).combine_chunks()
    return None if col.null_count == len(col) else col


def _times(col: Any, lines: _Lines) -> list[Any] | None:
    """Match times as the row path reads them: integers and numbers as they are (pyarrow reads
    a column of both as numbers: whole ones among them are integers where the text says so),
    texts parsed (:func:`.columns.text_times`; pyarrow's own reading of texts that look like
    times is set aside). A file whose times are numbers on some lines and texts on others
    goes to the row path (pyarrow reads no field of two JSON types)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count:
        return None
    if pa.types.is_string(col.type):
        col.validate(full=True)
        return text_times(col)
    if pa.types.is_timestamp(col.type):  # texts pyarrow took for times: read as the row path
        written = _time_literals(lines, np.ones(len(col), dtype=bool), _TIME_TEXT)
        return None if written is None else text_times(written)
    if pa.types.is_int64(col.type):
        out = col.to_pylist()
    elif pa.types.is_float64(col.type):
        values = col.to_numpy()
        whole = np.isfinite(values) & (np.floor(values) == values)
        out = values.tolist()
        if whole.any():
            written = _time_literals(lines, whole, _TIME_NUMBER)
            if written is None:
                return None
            fraction = pc.match_substring_regex(written, "[.eE]").to_numpy(zero_copy_only=False)
            for i in np.flatnonzero(whole)[~np.asarray(fraction, dtype=bool)].tolist():
                out[i] = int(values[i])
    else:  # booleans, lists: the row path names them
        return None
    return out if times_ok(out) else None


def _ids(col: Any) -> list[str] | None:
    """Match ids (integers as their text), each an id the row path keeps as it is, none twice."""
    import pyarrow as pa

    if col.null_count:
        return None
    if pa.types.is_int64(col.type):
        col = col.cast(pa.string())
    elif not pa.types.is_string(col.type):
        return None
    col.validate(full=True)
    if not ids_ok(col, strip=False) or not distinct_texts(col):
        return None
    ids: list[str] = col.to_pylist()
    return ids


def _lengths(col: Any) -> I64:
    """The length of every list of a list array (0 for a null)."""
    import pyarrow.compute as pc

    return np.asarray(pc.list_value_length(col).fill_null(0).to_numpy(), dtype=np.int64)


def _per_team(col: Any | None, counts: I64, nulls_ok: bool) -> tuple[F64, NDArray[np.bool_]] | None:
    """A list field given per team (``ranks``, ``scores``): its values spread over the teams
    of the matches, ``counts`` each (NaN where a match gives none or, ``nulls_ok``, a value is
    null), and which matches give it; None when a list has the wrong length, a value is
    missing where it may not be, or one is NaN."""
    n_teams = int(counts.sum())
    if col is None:
        return np.full(n_teams, np.nan), np.zeros(len(counts), dtype=bool)
    present = ~np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    lengths = _lengths(col)
    if not np.array_equal(lengths[present], counts[present]):
        return None
    values = col.flatten()
    if values.null_count and not nulls_ok:
        return None
    flat = values.cast("float64").to_numpy(zero_copy_only=False)
    if values.null_count == 0 and np.isnan(flat).any():
        return None  # NaN itself (pyarrow reads it): not a number
    out = np.full(n_teams, np.nan)
    out[np.repeat(present, counts)] = flat
    return out, present


def _weights(col: Any | None, counts: I64, sizes: I64) -> F64 | bool | None:
    """The weight of every player slot (NaN: the match gives none) from ``weights`` (a list
    per team, shaped as the teams); False when a list is misshapen or a weight missing or NaN."""
    if col is None:
        return None
    present = ~np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if not np.array_equal(_lengths(col)[present], counts[present]):
        return False
    teams = col.flatten()
    team_present = np.repeat(present, counts)
    if teams.null_count or not np.array_equal(_lengths(teams), sizes[team_present]):
        return False
    values = teams.flatten()
    if values.null_count:
        return False
    flat = values.to_numpy(zero_copy_only=False)
    if np.isnan(flat).any():
        return False
    out = np.full(int(sizes.sum()), np.nan)
    out[np.repeat(team_present, sizes)] = flat
    return out


def read_jsonl(path: str) -> Located | None:
    """The matches of a JSON Lines file and their lines, on the column path (None: read it on
    the row path). pyarrow's JSON reader parses the file into columns; what it reads otherwise
    than the row path would (a line with more or less than one object, a field of mixed JSON
    types, a timestamp it recognises) sends the file to the row path."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    try:
        got = _arrow_table(path)
    except OSError:
        return None
    if got is None:
        return None
    table, lines = got
    if table is None:
        return [], []
    try:
        return _from_table(table, lines)
    except (pa.ArrowException, UnicodeDecodeError):  # (an error of pyarrow itself too)
        return None


def _from_table(table: Any, lines: _Lines) -> Located | None:
    n = table.num_rows
    names = set(table.column_names)
    if not names <= JSON_KEYS or any(_column(table, k) is not None for k in _ROW_ONLY):
        return None
    id_col, time_col, team_col = (_column(table, k) for k in ("id", "time", "teams"))
    if id_col is None or time_col is None or team_col is None or team_col.null_count:
        return None
    ids = _ids(id_col)
    times = _times(time_col, lines)
    if ids is None or times is None:
        return None
    teams = team_col.flatten()
    players = teams.flatten()
    if teams.null_count or players.null_count:
        return None
    players.validate(full=True)
    interned_players = interned(players, strip=False)
    if interned_players is None:
        return None
    teams_per_match = _lengths(team_col)
    sizes = _lengths(teams)
    team_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(teams_per_match, out=team_ptr[1:])
    player_ptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=player_ptr[1:])
    ranks = _per_team(_column(table, "ranks"), teams_per_match, nulls_ok=True)
    if ranks is None or (ranks[0] < 0).any():
        return None
    scores = _per_team(_column(table, "scores"), teams_per_match, nulls_ok=False)
    weights = _weights(_column(table, "weights"), teams_per_match, sizes)
    if scores is None or weights is False:
        return None
    parts = Parts(
        ids,
        times,
        team_ptr,
        player_ptr,
        interned_players[0],
        interned_players[1],
        np.where(np.isnan(ranks[0]), -1, ranks[0]).astype(np.int64),
        scores[0] if scores[1].any() else None,
        weights,  # type: ignore[arg-type]
        ranks[1],
    )
    matches = build(parts)
    return None if matches is None else (lines.numbers.tolist(), matches)


#: fields only the row path reads
_ROW_ONLY = ("roles", "deal", "luck")
