"""The column path of the match files: a whole file read at once, every column checked at once.

pyarrow reads CSV and Parquet files into columns; a JSON Lines file is parsed in one pass (orjson
when it is installed, else the standard library's ``json``). The columns become the parts of
the matches (:class:`Parts`: ids and times per match, ranks and scores per team, players and
weights per player slot, the teams of each match and the slots of each team as offsets), which
are checked with whole-array operations (numpy, pyarrow's compute functions), and the
:class:`~mindsport.match.Match` objects are built from them without a check per match
(:func:`mindsport.match.assemble`). A player id is one string object however often it appears.

The column path takes only what it can prove to be as the row path would read it: canonical ids
(no surrounding spaces in CSV and Parquet, NFC), integer ranks, numbers and times in the forms the
writers write (and pyarrow's typed columns), no ``role``, ``deal`` or ``luck`` values, and CSV
files without quotes whose every row is one line. Each reader returns ``None`` for anything
else, and for any value a check refuses; the caller then reads the file on the row path, which
gives the same matches or the error naming the file, line and field of the first bad row.

The readers make a million objects at once, none in a cycle: call them with the cyclic garbage
collector paused (:func:`~mindsport.history.formats.common.paused_gc`), as
:func:`mindsport.history.io.read_located` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import chain, pairwise
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mindsport.history.formats.common import (
    CSV_COLUMNS,
    JSON_KEYS,
    REQUIRED,
    parse_time,
)
from mindsport.match import (
    MAX_RANK,
    MAX_SCORE,
    MAX_TIME,
    MIN_TIME,
    Match,
    assemble,
    id_problem,
    normal_id,
    time_problem,
)

__all__ = ["Parts", "build", "read_csv", "read_jsonl", "read_parquet"]

I64 = NDArray[np.int64]
F64 = NDArray[np.float64]
Located = tuple[list[int], list[Match]]

#: numbers and times in the forms the row path reads exactly as pyarrow casts them
_INT = r"^-?[0-9]{1,18}$"
_FLOAT = r"^-?[0-9]{1,300}(\.[0-9]{1,300})?([eE][-+]?[0-9]{1,3})?$"
_NAIVE_TIME = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,6})?)?)?$"
)
_RANK = r"^[0-9]{1,10}$"
#: the long format's columns that the column path leaves to the row path when they hold values
_CHANCE = ("role", "deal", "luck")


class Parts(NamedTuple):
    """Matches as columns: ``ids``, ``times`` and ``ranked`` (whether the match gives ranks;
    None: it does when a team is ranked) per match; ``team_ptr`` (the teams of match ``i`` are
    ``team_ptr[i]:team_ptr[i+1]``), ``ranks`` (-1: unranked) and ``scores`` (NaN: none) per team;
    ``player_ptr``, ``codes`` (the player's number in ``distinct``, the one string object of each
    player) and ``weights`` (NaN: none) per player slot."""

    ids: list[str]
    times: list[Any]
    team_ptr: I64
    player_ptr: I64
    distinct: list[str]
    codes: I64
    ranks: I64
    scores: F64 | None
    weights: F64 | None
    ranked: NDArray[np.bool_] | None


# ---------------------------------------------------------------------------- building


def build(parts: Parts) -> list[Match] | None:
    """The matches of ``parts`` (None: a value the row path would refuse or read otherwise)."""
    n = len(parts.ids)
    if n == 0:
        return []
    team_ptr, player_ptr = parts.team_ptr, parts.player_ptr
    teams_per_match = np.diff(team_ptr)
    sizes = np.diff(player_ptr)
    if teams_per_match.min() < 2 or sizes.min() < 1:
        return None
    if not _distinct_players(parts.codes, player_ptr[team_ptr]):
        return None
    ranks = _final_ranks(parts, teams_per_match)
    if ranks is None:
        return None
    weights = _match_values(parts.weights, player_ptr[team_ptr], 0.0, 1.0)
    scores = _match_values(parts.scores, team_ptr, -MAX_SCORE, MAX_SCORE)
    if weights is False or scores is False:
        return None
    return assemble(
        parts.ids,
        parts.times,
        _grouped(_team_tuples(parts.distinct, parts.codes, player_ptr), team_ptr),
        _rank_tuples(ranks, team_ptr),
        _optional(weights, parts.weights, player_ptr, team_ptr),
        _optional(scores, parts.scores, team_ptr, None),
    )


def _objects(items: Any, n: int) -> NDArray[np.object_]:
    """An object array of ``n`` items (tuples kept whole)."""
    return np.fromiter(items, dtype=object, count=n)


def _team_tuples(distinct: list[str], codes: I64, player_ptr: I64) -> list[tuple[str, ...]]:
    """Every team's tuple of player ids (teams of one player: one tuple per player, shared)."""
    if len(codes) == len(player_ptr) - 1:
        singles = _objects(zip(distinct, strict=True), len(distinct))
        return singles[codes].tolist()
    players = _objects(distinct, len(distinct))[codes].tolist()
    return _grouped(players, player_ptr)


#: rank rows told apart by a table lookup while the table has at most this many entries
_RANK_TABLE = 1 << 20


def _rank_tuples(ranks: I64, team_ptr: I64) -> list[tuple[int | None, ...]]:
    """Every match's tuple of ranks (None: unranked), one tuple object per distinct tuple."""
    per_match = np.diff(team_ptr)
    k = int(per_match[0])
    base = int(ranks.max()) + 2
    if (per_match == k).all() and base**k <= _RANK_TABLE:
        rows = ranks.reshape(-1, k) + 1
        keys = rows @ (base ** np.arange(k - 1, -1, -1, dtype=np.int64))
        present = np.flatnonzero(np.bincount(keys, minlength=1))
        digits = (present[:, None] // base ** np.arange(k - 1, -1, -1)) % base - 1
        table = np.empty(base**k, dtype=object)
        table[present] = _objects(
            (tuple(None if r < 0 else r for r in row) for row in digits.tolist()), len(present)
        )
        return table[keys].tolist()
    objects = ranks.astype(object)
    objects[ranks < 0] = None
    grouped = _grouped(objects.tolist(), team_ptr)
    shared: dict[tuple[int | None, ...], tuple[int | None, ...]] = {}
    return list(map(shared.setdefault, grouped, grouped))


def _grouped(items: list[Any], ptr: I64) -> list[tuple[Any, ...]]:
    """``items`` in tuples, ``ptr[i]:ptr[i+1]`` in tuple ``i`` (at C level when all are as
    long)."""
    sizes = np.diff(ptr)
    k = int(sizes[0]) if len(sizes) else 0
    if len(sizes) and (sizes == k).all():
        return list(zip(*(items[i::k] for i in range(k)), strict=True))
    bounds = ptr.tolist()
    return [tuple(items[a:b]) for a, b in pairwise(bounds)]


def _distinct_players(codes: I64, match_slot_ptr: I64) -> bool:
    """Whether no player appears twice in a match (the slots of match ``i`` are
    ``match_slot_ptr[i]:match_slot_ptr[i+1]``)."""
    per_match = np.diff(match_slot_ptr)
    if (per_match == 2).all():
        return bool((codes[0::2] != codes[1::2]).all())
    match_of_slot = np.repeat(np.arange(len(per_match), dtype=np.int64), per_match)
    keys = np.sort(match_of_slot * (int(codes.max()) + 1) + codes)
    return not bool((keys[1:] == keys[:-1]).any())


def _final_ranks(parts: Parts, teams_per_match: I64) -> I64 | None:
    """Every team's rank (-1: unranked) as the match constructor settles them: given, or from
    the scores when a match gives none; None when a match has no ranked team and no scores, a
    rank out of range, or ranks that contradict the scores."""
    ranks, scores, team_ptr = parts.ranks, parts.scores, parts.team_ptr
    if ranks.min() < -1 or ranks.max() > MAX_RANK:
        return None
    starts = team_ptr[:-1]
    any_ranked = np.maximum.reduceat(ranks, starts) >= 0
    ranked = any_ranked if parts.ranked is None else parts.ranked
    if (ranked & ~any_ranked).any():
        return None  # ranks given, none of them a place: refused by the constructor
    if scores is None:
        return ranks if ranked.all() else None
    has_score = np.maximum.reduceat(~np.isnan(scores), starts)
    if (~ranked & ~has_score).any():
        return None
    out = ranks.copy()
    for k in np.unique(teams_per_match).tolist():
        of_k = teams_per_match == k
        from_scores = of_k & ~ranked & has_score
        both = of_k & ranked & has_score
        if from_scores.any():
            at = _team_slots(starts[from_scores], k)
            s = scores[at]
            out[at] = (s[:, None, :] > s[:, :, None]).sum(axis=2)
        if both.any() and not _agree(ranks[_team_slots(starts[both], k)], scores, starts[both], k):
            return None
    return out


def _team_slots(starts: I64, k: int) -> I64:
    """The team positions of matches of ``k`` teams that start at ``starts``, one row each."""
    return starts[:, None] + np.arange(k, dtype=np.int64)[None, :]


def _agree(ranks: I64, scores: F64, starts: I64, k: int) -> bool:
    """Whether ranks and scores given together agree (as the match constructor requires): for
    every pair of teams the ranks compare, the team ahead has at least the other's score and tied
    teams have equal scores (``ranks``: one row per match)."""
    s = scores[_team_slots(starts, k)]
    ri, rj = ranks[:, :, None], ranks[:, None, :]
    si, sj = s[:, :, None], s[:, None, :]
    i_out, j_out = ri < 0, rj < 0
    ahead = (~i_out & (j_out | (ri < rj))) & ~(i_out & j_out)
    behind = (i_out & ~j_out) | (~i_out & ~j_out & (ri > rj))
    tied = ~i_out & ~j_out & (ri == rj)
    bad = (ahead & (si < sj)) | (behind & (si > sj)) | (tied & (si != sj))
    return not bool(bad.any())


def _match_values(
    values: F64 | None, ptr: I64, lo: float, hi: float
) -> NDArray[np.bool_] | bool | None:
    """Which matches give ``values`` (weights per slot or scores per team; the values of match
    ``i`` are ``ptr[i]:ptr[i+1]``): None when none does, False when a match gives some and not
    others or a value out of [``lo``, ``hi``]."""
    if values is None:
        return None
    given = ~np.isnan(values)
    if not given.any():
        return None
    if (np.abs(values[given]) > max(-lo, hi)).any() or (values[given] < lo).any():
        return False
    per_match = np.add.reduceat(given.astype(np.int64), ptr[:-1])
    whole = per_match == np.diff(ptr)
    if not ((per_match == 0) | whole).all():
        return False
    return whole


def _optional(
    which: NDArray[np.bool_] | bool | None, values: F64 | None, ptr: I64, outer: I64 | None
) -> list[Any]:
    """Per match: its values as tuples (grouped by ``ptr``, then by ``outer`` when given: weights
    per team) where ``which`` says it gives them, else None."""
    n = len(ptr) - 1 if outer is None else len(outer) - 1
    if which is None or which is False or values is None:
        return [None] * n
    grouped: list[Any] = _grouped(values.tolist(), ptr)
    if outer is not None:
        grouped = _grouped(grouped, outer)
    if which is not True and not which.all():
        keep = np.asarray(which)
        return [g if k else None for g, k in zip(grouped, keep.tolist(), strict=True)]
    return grouped


# ---------------------------------------------------------------------------- values


def _pa() -> Any:
    import pyarrow as pa

    return pa


def _pc() -> Any:
    import pyarrow.compute as pc

    return pc


def ids_ok(arr: Any, strip: bool) -> bool:
    """Whether every string of the pyarrow array ``arr`` is an id the row path keeps as it is
    (``strip``: it strips ids, as in CSV and Parquet). ASCII ids are checked on the array's bytes
    at once (no control character, not only spaces; with ``strip`` no surrounding space); the
    others one by one (:func:`~mindsport.match.id_problem`, NFC, surrounding whitespace)."""
    pa = _pa()
    if arr.null_count:
        return False
    if len(arr) == 0:
        return True
    kind = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    _, offsets_buffer, data_buffer = arr.buffers()
    raw = np.frombuffer(offsets_buffer, kind)[arr.offset : arr.offset + len(arr) + 1]
    start = int(raw[0])
    offsets = raw.astype(np.int64) - start
    lengths = np.diff(offsets)
    if lengths.min() == 0:
        return False
    data = np.frombuffer(data_buffer, np.uint8)[start : start + int(offsets[-1])]
    if ((data < 0x20) | (data == 0x7F)).any():
        return False  # an ASCII control character (in UTF-8 its byte is itself)
    space = data == 0x20
    begin, end = offsets[:-1], offsets[1:]
    ascii_ = np.ones(len(arr), dtype=bool)
    high = np.flatnonzero(data >= 0x80)
    if len(high):
        ascii_[np.searchsorted(end, high, side="right")] = False
    if strip:
        spaced = space[begin] | space[end - 1]
    else:
        spaced = np.add.reduceat(space.astype(np.int64), begin) == lengths
    if (spaced & ascii_).any():
        return False
    if ascii_.all():
        return True
    for v in arr.take(pa.array(np.flatnonzero(~ascii_))).to_pylist():
        if id_problem(v) is not None or normal_id(v) != v or (strip and v.strip() != v):
            return False
    return True


def interned(arr: Any, strip: bool) -> tuple[list[str], I64] | None:
    """The distinct ids of a pyarrow string array, one string object each, and the number of
    every id among them (None: an id the row path would not keep as it is)."""
    pa = _pa()
    if pa.types.is_integer(arr.type):
        arr = arr.cast(pa.string())
    elif not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None
    if arr.null_count:
        return None
    encoded = arr.dictionary_encode()
    if not ids_ok(encoded.dictionary, strip):
        return None
    codes = encoded.indices.to_numpy().astype(np.int64)
    return encoded.dictionary.to_pylist(), codes


def text_times(arr: Any) -> list[Any] | None:
    """Times from their text as the row path reads them (an integer, else a number, else an ISO
    datetime), checked to lie in range (None: a text it cannot read or a time out of range)."""
    pa, pc = _pa(), _pc()
    out = np.empty(len(arr), dtype=object)
    left = np.ones(len(arr), dtype=bool)
    for pattern, kind in ((_INT, pa.int64()), (_FLOAT, pa.float64()), (_NAIVE_TIME, None)):
        hit = pc.match_substring_regex(arr, pattern).to_numpy(zero_copy_only=False) & left
        if not hit.any():
            continue
        part = pc.filter(arr, pa.array(hit))
        try:
            values = part.cast(pa.timestamp("us") if kind is None else kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        if kind is None:
            micros = values.cast(pa.int64()).to_numpy()
            if micros.min() < MIN_TIME * 1_000_000 or micros.max() >= MAX_TIME * 1_000_000:
                return None
        elif not _numbers_in_range(values.to_numpy()):
            return None
        out[hit] = values.to_pylist()
        left &= ~hit
    if left.any():  # offsets, other ISO forms: Python, once per distinct text
        rest = pc.filter(arr, pa.array(left)).to_pylist()
        parsed: dict[str, Any] = {}
        for text in set(rest):
            try:
                value = parse_time(text)
            except ValueError:
                return None
            if time_problem(value) is not None:
                return None
            parsed[text] = value
        out[left] = [parsed[t] for t in rest]
    return out.tolist()


def _numbers_in_range(a: NDArray[Any]) -> bool:
    a = a.astype(np.float64, copy=False)
    if len(a) == 0:
        return True
    return bool(np.isfinite(a).all() and a.min() >= MIN_TIME and a.max() < MAX_TIME)


def times_ok(values: list[Any]) -> bool:
    """Whether every time of ``values`` (numbers or datetimes) is a valid match time."""
    if not values:
        return True
    kinds = set(map(type, values))
    if kinds <= {int, float}:
        return _numbers_in_range(np.array(values, dtype=np.float64))
    try:  # datetimes, all naive or all aware: the extremes tell
        return time_problem(min(values)) is None and time_problem(max(values)) is None
    except TypeError:
        return all(time_problem(t) is None for t in values)


def _numbers(arr: Any) -> F64 | None:
    """The numbers of a column of the long format (NaN: none given), as the row path reads
    them; None: a text it would read otherwise (or refuse)."""
    pa, pc = _pa(), _pc()
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        empty = pc.fill_null(pc.equal(arr, ""), True)  # null (Parquet): none given
        given = pc.invert(empty)
        if not pc.all(pc.or_kleene(empty, pc.match_substring_regex(arr, _FLOAT))).as_py():
            return None
        arr = pc.if_else(given, arr, "0").cast(pa.float64())
        out = arr.to_numpy(zero_copy_only=False).copy()
        out[empty.to_numpy(zero_copy_only=False)] = np.nan
        return out
    if pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type):
        return arr.cast(pa.float64()).fill_null(math.nan).to_numpy(zero_copy_only=False)
    return None


def _long_ranks(arr: Any | None, n_rows: int) -> I64 | None:
    """The rank of every row (-1: unranked) of a long-format file, as the row path reads it;
    None: a rank it would read otherwise (or refuse)."""
    pa, pc = _pa(), _pc()
    if arr is None:
        return np.full(n_rows, -1, np.int64)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        empty = pc.fill_null(pc.equal(arr, ""), True)  # null (Parquet): unranked
        if not pc.all(pc.or_kleene(empty, pc.match_substring_regex(arr, _RANK))).as_py():
            return None
        arr = pc.if_else(empty, pa.scalar(None, pa.string()), arr).cast(pa.int64())
    elif not pa.types.is_integer(arr.type):
        return None
    low = pc.min(arr).as_py()
    if low is not None and low < 0:
        return None
    out: I64 = arr.cast(pa.int64()).fill_null(-1).to_numpy(zero_copy_only=False)
    return out


def _has_values(arr: Any) -> bool:
    """Whether a column holds any value (a non-empty text, a number)."""
    pa, pc = _pa(), _pc()
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return bool(pc.any(pc.not_equal(arr, "")).as_py())
    if pa.types.is_floating(arr.type):
        return bool(pc.any(pc.invert(pc.is_nan(arr))).as_py())
    return arr.null_count < len(arr)


def _same_within(values: NDArray[Any], starts: I64, counts: I64) -> bool:
    """Whether every row's value equals the value at the start of its group (NaN equals NaN)."""
    first = np.repeat(values[starts], counts)
    same = values == first
    if values.dtype.kind == "f":
        same |= np.isnan(values) & np.isnan(first)
    return bool(same.all())


def _long_times(arr: Any, match_starts: I64, rows_per_match: I64) -> list[Any] | None:
    """Each match's time from a long-format column (every row of a match with the same raw
    value), as the row path reads it."""
    pa, pc = _pa(), _pc()
    if arr.null_count:
        return None
    first = arr.take(pa.array(match_starts))
    repeated = first.take(pa.array(np.repeat(np.arange(len(match_starts)), rows_per_match)))
    if not pc.all(pc.equal(arr, repeated)).as_py():
        return None
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return text_times(first)
    if not (
        pa.types.is_integer(arr.type)
        or pa.types.is_floating(arr.type)
        or pa.types.is_timestamp(arr.type)
    ):
        return None
    values: list[Any] = first.to_pylist()
    return values if times_ok(values) else None


def long_parts(cols: dict[str, Any]) -> tuple[Parts, I64] | None:
    """Parts from the columns of a long-format file (pyarrow arrays by name, one row per player
    slot) and the row each match starts on (None: leave the file to the row path)."""
    pa, pc = _pa(), _pc()
    if any(name in cols and _has_values(cols[name]) for name in _CHANCE):
        return None
    mid = cols["match_id"]
    n_rows = len(mid)
    if pa.types.is_integer(mid.type):
        mid = mid.cast(pa.string())
    if mid.null_count or not (pa.types.is_string(mid.type) or pa.types.is_large_string(mid.type)):
        return None
    if n_rows == 0:
        empty = np.zeros(0, np.int64)
        nothing = Parts([], [], np.zeros(1, np.int64), np.zeros(1, np.int64), [], empty, empty,
                        None, None, None)  # fmt: skip
        return nothing, empty
    new_match = np.ones(n_rows, dtype=bool)
    new_match[1:] = pc.not_equal(mid[1:], mid[:-1]).to_numpy(zero_copy_only=False)
    match_starts = np.flatnonzero(new_match).astype(np.int64)
    n = len(match_starts)
    ids_arr = mid.take(pa.array(match_starts))
    if pc.count_distinct(ids_arr).as_py() != n:
        return None  # a match's rows apart, or an id used twice
    if not ids_ok(ids_arr, strip=True):
        return None
    team = cols["team"]
    if pa.types.is_string(team.type) or pa.types.is_large_string(team.type):
        if not ids_ok(team.unique(), strip=True):
            return None
    elif not pa.types.is_integer(team.type) or team.null_count:
        return None
    labels = team.dictionary_encode().indices.to_numpy(zero_copy_only=False).astype(np.int64)
    new_team = new_match.copy()
    new_team[1:] |= labels[1:] != labels[:-1]
    team_starts = np.flatnonzero(new_team).astype(np.int64)
    team_ptr = np.append(np.searchsorted(team_starts, match_starts), len(team_starts))
    teams_per_match = np.diff(team_ptr)
    if (teams_per_match > 2).any():  # a team's rows apart within a match
        match_of_team = np.repeat(np.arange(n, dtype=np.int64), teams_per_match)
        keys = match_of_team * (int(labels.max()) + 1) + labels[team_starts]
        if len(np.unique(keys)) != len(keys):
            return None
    players = interned(cols["player"], strip=True)
    if players is None:
        return None
    rows_per_match = np.diff(np.append(match_starts, n_rows))
    times = _long_times(cols["time"], match_starts, rows_per_match)
    ranks = _long_ranks(cols.get("rank"), n_rows)
    if times is None or ranks is None:
        return None
    rows_per_team = np.diff(np.append(team_starts, n_rows))
    scores = None if "score" not in cols else _numbers(cols["score"])
    weights = None if "weight" not in cols else _numbers(cols["weight"])
    if ("score" in cols and scores is None) or ("weight" in cols and weights is None):
        return None
    for per_team in (ranks, scores):
        if per_team is not None and not _same_within(per_team, team_starts, rows_per_team):
            return None
    parts = Parts(
        ids_arr.to_pylist(),
        times,
        team_ptr.astype(np.int64),
        np.append(team_starts, n_rows).astype(np.int64),
        players[0],
        players[1],
        ranks[team_starts],
        None if scores is None else scores[team_starts],
        weights,
        None,
    )
    return parts, match_starts


def _located(got: tuple[Parts, I64] | None, first_line: int) -> Located | None:
    if got is None:
        return None
    parts, starts = got
    matches = build(parts)
    if matches is None:
        return None
    return (starts + first_line).tolist(), matches


# ---------------------------------------------------------------------------- the readers


def read_csv(path: str) -> Located | None:
    """The matches of a CSV (or TSV) file and their lines, on the column path (None: read it on
    the row path)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    with open(path, "rb") as fh:
        data = fh.read()
    if b'"' in data or data.startswith(b"\xef\xbb\xbf") or data.count(b"\r") != data.count(b"\r\n"):
        return None
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    head, newline, _ = data.partition(b"\n")
    try:
        names = [h.strip() for h in head.decode("utf-8").rstrip("\r").split(delimiter)]
    except UnicodeDecodeError:
        return None
    if (
        not newline
        or not set(REQUIRED) <= set(names) <= set(CSV_COLUMNS)
        or len(set(names)) != len(names)
        or ("rank" not in names and "score" not in names)
    ):
        return None
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(
                column_types={name: pa.string() for name in names}, strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    rows = table.num_rows
    if data.count(b"\n") != rows + (1 if data.endswith(b"\n") else 0):
        return None  # a blank line, or a row over two lines: the row path counts lines
    cols = {name: table.column(name).combine_chunks() for name in names}
    return _located(long_parts(cols), 2)


def read_parquet(path: str) -> Located | None:
    """The matches of a Parquet file and their row numbers, on the column path (None: read it
    on the row path)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    try:
        table = pq.read_table(path)
    except Exception:  # not a Parquet file: the row path says so
        return None
    names = table.column_names
    if (
        len(set(names)) != len(names)
        or not set(REQUIRED) <= set(names)
        or ("rank" not in names and "score" not in names)
    ):
        return None
    cols = {}
    for name in set(names) & set(CSV_COLUMNS):
        col = table.column(name).combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        cols[name] = col
    return _located(long_parts(cols), 1)


def _json_loads() -> Callable[[bytes], Any]:
    try:
        import orjson
    except ImportError:
        import json

        return json.loads
    return orjson.loads


def _parsed_lines(path: str) -> tuple[list[Any], list[int]] | None:
    """Every non-blank line of a JSON Lines file parsed, and its line number (None: a line that
    is not JSON, or text that the row path reads otherwise)."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data.startswith(b"\xef\xbb\xbf"):
        return None
    lines = data.splitlines()
    loads = _json_loads()
    try:
        return list(map(loads, lines)), list(range(1, len(lines) + 1))
    except ValueError:
        pass
    kept = [(i, line) for i, line in enumerate(lines, 1) if line.strip()]
    try:
        return list(map(loads, (line for _, line in kept))), [i for i, _ in kept]
    except ValueError:
        return None


def _json_times(values: Sequence[Any]) -> list[Any] | None:
    """Match times from JSON: numbers as they are, texts as the row path reads them."""
    pa = _pa()
    kinds = set(map(type, values))
    if not kinds <= {int, float, str}:
        return None
    if str not in kinds:
        out = list(values)
        return out if times_ok(out) else None
    texts = [v for v in values if type(v) is str]
    parsed = text_times(pa.array(texts, pa.string()))
    if parsed is None:
        return None
    it = iter(parsed)
    out = [next(it) if type(v) is str else v for v in values]
    return out if times_ok(out) else None


def _per_team(
    given: list[Any], present: NDArray[np.bool_], counts: I64, kinds: set[type]
) -> F64 | None:
    """Values given per match as lists (None: not given), spread over the teams (or slots) of
    the matches, ``counts`` each (NaN where a match gives none); None when a list has the wrong
    length or a value is not of ``kinds``."""
    lists = [g for g in given if g is not None]
    if set(map(type, lists)) - {list}:
        return None
    lengths = np.fromiter(map(len, lists), np.int64, len(lists))
    if not np.array_equal(lengths, counts[present]):
        return None
    flat = list(chain.from_iterable(lists))
    if set(map(type, flat)) - kinds:
        return None
    out = np.full(int(counts.sum()), np.nan)
    if flat:
        try:
            values = np.array([math.nan if v is None else v for v in flat], dtype=np.float64)
        except OverflowError:  # an integer beyond any float
            return None
        if type(None) not in kinds and np.isnan(values).any():
            return None  # NaN itself (the standard library's JSON reads it): not a number
        out[np.repeat(present, counts)] = values
    return out


def read_jsonl(path: str) -> Located | None:
    """The matches of a JSON Lines file and their lines, on the column path (None: read it on
    the row path)."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    parsed = _parsed_lines(path)
    if parsed is None:
        return None
    objs, lines = parsed
    n = len(objs)
    if n == 0:
        return [], []
    if set(map(type, objs)) != {dict}:
        return None
    keys = set(chain.from_iterable(objs))
    if not keys <= JSON_KEYS or keys & {"roles", "deal", "luck"}:
        return None
    try:
        id_col, time_col, team_col = zip(*map(itemgetter("id", "time", "teams"), objs), strict=True)
    except KeyError:
        return None
    ids = _json_ids(id_col)
    times = _json_times(time_col)
    if ids is None or times is None or set(map(type, team_col)) != {list}:
        return None
    teams_per_match = np.fromiter(map(len, team_col), np.int64, n)
    flat_teams = list(chain.from_iterable(team_col))
    if set(map(type, flat_teams)) != {list}:
        return None
    sizes = np.fromiter(map(len, flat_teams), np.int64, len(flat_teams))
    flat = list(chain.from_iterable(flat_teams))
    if set(map(type, flat)) != {str}:
        return None
    players = interned(pa.array(flat, pa.string()), strip=False)
    if players is None:
        return None
    team_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(teams_per_match, out=team_ptr[1:])
    player_ptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=player_ptr[1:])
    rank_col = [o.get("ranks") for o in objs]
    ranked = np.array([r is not None for r in rank_col], dtype=bool)
    ranks = _per_team(rank_col, ranked, teams_per_match, {int, type(None)})
    if ranks is None or (ranks < 0).any():
        return None
    scores = weights = None
    if "scores" in keys:
        score_col = [o.get("scores") for o in objs]
        has = np.array([s is not None for s in score_col], dtype=bool)
        scores = _per_team(score_col, has, teams_per_match, {int, float})
        if scores is None:
            return None
    if "weights" in keys:
        weights = _json_weights([o.get("weights") for o in objs], teams_per_match, sizes)
        if weights is None:
            return None
    parts = Parts(
        ids,
        times,
        team_ptr,
        player_ptr,
        players[0],
        players[1],
        np.where(np.isnan(ranks), -1, ranks).astype(np.int64),
        scores,
        weights,
        ranked,
    )
    matches = build(parts)
    return None if matches is None else (lines, matches)


def _json_ids(values: Sequence[Any]) -> list[str] | None:
    """Match ids from JSON (integers as their text), each an id the row path keeps as it is, and
    none twice."""
    pa = _pa()
    kinds = set(map(type, values))
    if kinds == {str}:
        ids = list(values)
    elif kinds <= {str, int}:
        ids = [v if type(v) is str else str(v) for v in values]
    else:
        return None
    if len(set(ids)) != len(ids) or not ids_ok(pa.array(ids, pa.string()), strip=False):
        return None
    return ids


def _json_weights(given: list[Any], teams_per_match: I64, sizes: I64) -> F64 | None:
    """The weight of every slot (NaN: the match gives none) from the ``weights`` of JSON
    matches (a list per team, shaped as the teams)."""
    present = np.array([w is not None for w in given], dtype=bool)
    lists = [w for w in given if w is not None]
    if set(map(type, lists)) - {list}:
        return None
    lengths = np.fromiter(map(len, lists), np.int64, len(lists))
    if not np.array_equal(lengths, teams_per_match[present]):
        return None
    team_present = np.repeat(present, teams_per_match)
    out = np.full(int(sizes.sum()), np.nan)
    if lists:
        given_teams = sizes[team_present]
        values = _per_team(
            list(chain.from_iterable(lists)),
            np.ones(len(given_teams), dtype=bool),
            given_teams,
            {int, float},
        )
        if values is None:
            return None
        out[np.repeat(team_present, sizes)] = values
    return out
