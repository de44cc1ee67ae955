"""The column path of the match files: a whole file read at once, every column checked at once.

pyarrow reads CSV, Parquet and JSON Lines files into columns. The columns become the parts of
the matches (:class:`Parts`: ids and times per match, ranks and scores per team, players and
weights per player slot, the teams of each match and the slots of each team as offsets), which
are checked with whole-array operations (numpy, pyarrow's compute functions), and the
:class:`~mindsport.match.Match` objects are built from them without a check per match
(:func:`mindsport.match.assemble`). A player id is one string object however often it appears.

The column path takes only what it can prove to be as the row path would read it: canonical ids
(no surrounding spaces in CSV and Parquet, NFC), integer ranks, numbers and times in the forms the
writers write (and pyarrow's typed columns), no ``role``, ``deal`` or ``luck`` values, and CSV
files without quotes whose every row is one line. Each format's column reader (``read_csv``,
``read_parquet``, ``read_jsonl`` in its module; the long format's columns become parts in
:func:`mindsport.history.formats.long.long_parts`) returns ``None`` for anything else, and for
any value a check refuses; the caller then reads the file on the row path, which gives the same
matches or the error naming the file, line and field of the first bad row.

This module holds what they share: the parts, their checks and the building of the matches
(:func:`build`), and the checks of ids and times. The readers make a million objects at once,
none in a cycle: call them with the cyclic garbage collector paused
(:func:`~mindsport.history.formats.common.paused_gc`), as
:func:`mindsport.history.io.read_located` does.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mindsport.history.formats.common import parse_time
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

__all__ = [
    "FLOAT_TEXT",
    "RANK_TEXT",
    "Located",
    "Parts",
    "all_empty",
    "build",
    "distinct_texts",
    "ids_ok",
    "interned",
    "is_text",
    "located",
    "numbers_in_range",
    "text_times",
    "times_ok",
]

I64 = NDArray[np.int64]
F64 = NDArray[np.float64]
Located = tuple[list[int], list[Match]]

#: numbers and times in the forms the row path reads exactly as pyarrow casts them
_INT = r"^-?[0-9]{1,18}$"
FLOAT_TEXT = r"^-?[0-9]{1,300}(\.[0-9]{1,300})?([eE][-+]?[0-9]{1,3})?$"
_NAIVE_TIME = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,6})?)?)?$"
)
RANK_TEXT = r"^[0-9]{1,10}$"


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
RANK_TABLE_MAX = 1 << 20


def _rank_tuples(ranks: I64, team_ptr: I64) -> list[tuple[int | None, ...]]:
    """Every match's tuple of ranks (None: unranked), one tuple object per distinct tuple."""
    per_match = np.diff(team_ptr)
    k = int(per_match[0])
    base = int(ranks.max()) + 2
    if (per_match == k).all() and base**k <= RANK_TABLE_MAX:
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


def is_text(arr: Any) -> bool:
    """Whether a pyarrow array holds strings."""
    pa = _pa()
    return bool(pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type))


def _text_buffers(arr: Any) -> tuple[I64, NDArray[np.uint8]]:
    """The offsets (from 0, one more than strings) and the bytes of a pyarrow string array
    without nulls, as numpy views of its buffers (no copy of the bytes)."""
    pa = _pa()
    kind = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    _, offsets_buffer, data_buffer = arr.buffers()
    raw = np.frombuffer(offsets_buffer, kind)[arr.offset : arr.offset + len(arr) + 1]
    start = int(raw[0])
    offsets = raw.astype(np.int64) - start
    data = np.frombuffer(data_buffer, np.uint8)[start : start + int(offsets[-1])]
    return offsets, data


def all_empty(arr: Any) -> bool:
    """Whether every string of the pyarrow string array ``arr`` is empty or null (its texts
    take no byte: read from its offsets, without a look at each string)."""
    return len(arr) == 0 or len(_text_buffers(arr)[1]) == 0


#: strings hashed at a time by :func:`distinct_texts` (bounds its temporary arrays)
HASH_CHUNK = 1 << 20
_HASH_BASE = np.uint64(0x100000001B3)
_HASH_LENGTH = np.uint64(0x9E3779B97F4A7C15)


def _text_hashes(offsets: I64, data: NDArray[np.uint8]) -> NDArray[np.uint64]:
    """A 64-bit hash of every string (``offsets`` into ``data``): the polynomial of its bytes
    (each plus one) in a fixed odd base, modulo 2^64, mixed with its length."""
    out = np.zeros(len(offsets) - 1, np.uint64)
    for a in range(0, len(out), HASH_CHUNK):
        b = min(a + HASH_CHUNK, len(out))
        starts = offsets[a:b] - offsets[a]
        lengths = np.diff(offsets[a : b + 1])
        filled = lengths > 0
        if filled.any():
            chunk = data[offsets[a] : offsets[b]].astype(np.uint64) + np.uint64(1)
            position = np.arange(len(chunk), dtype=np.int64) - np.repeat(starts, lengths)
            chunk *= np.cumprod(np.full(int(lengths.max()), _HASH_BASE, np.uint64))[position]
            out[a:b][filled] = np.add.reduceat(chunk, starts[filled])
        out[a:b] ^= lengths.astype(np.uint64) * _HASH_LENGTH
    return out


def distinct_texts(arr: Any) -> bool:
    """Whether no string of the pyarrow string array ``arr`` (no nulls) appears twice. The
    bytes of every string are hashed at once (:func:`_text_hashes`) and the hashes sorted; the
    strings whose hashes meet are then compared as texts, so the answer is exact whatever the
    hash (a Python set of a million new strings, each hashed and stored in turn, takes several
    times as long)."""
    if len(arr) < 2:
        return True
    hashes = _text_hashes(*_text_buffers(arr))
    ordered = np.sort(hashes)
    met = ordered[1:] == ordered[:-1]
    if not met.any():
        return True
    suspects = np.flatnonzero(np.isin(hashes, ordered[1:][met]))
    texts = arr.take(_pa().array(suspects)).to_pylist()
    return len(set(texts)) == len(texts)


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
    offsets, data = _text_buffers(arr)
    lengths = np.diff(offsets)
    if lengths.min() == 0:
        return False
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
    every id among them (None: an id the row path would not keep as it is). A dictionary array
    (as a Parquet file's dictionary-encoded column reads) gives its dictionary and indices when
    its dictionary holds no text twice and only ids kept as they are; else it is decoded."""
    pa = _pa()
    if pa.types.is_dictionary(arr.type):
        words = arr.dictionary
        if not arr.null_count and is_text(words) and ids_ok(words, strip) and distinct_texts(words):
            return words.to_pylist(), arr.indices.to_numpy().astype(np.int64)
        arr = arr.dictionary_decode()
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
    for pattern, kind in ((_INT, pa.int64()), (FLOAT_TEXT, pa.float64()), (_NAIVE_TIME, None)):
        hit = pc.match_substring_regex(arr, pattern).to_numpy(zero_copy_only=False) & left
        if not hit.any():
            continue
        whole = bool(hit.all())  # (every time in one form, as a writer writes them)
        part = arr if whole else pc.filter(arr, pa.array(hit))
        try:
            values = part.cast(pa.timestamp("us") if kind is None else kind)
        except pa.ArrowException:
            return None
        if kind is None:
            micros = values.cast(pa.int64()).to_numpy()
            if micros.min() < MIN_TIME * 1_000_000 or micros.max() >= MAX_TIME * 1_000_000:
                return None
        elif not numbers_in_range(values.to_numpy()):
            return None
        if whole:
            got: list[Any] = values.to_pylist()
            return got
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


def numbers_in_range(a: NDArray[Any]) -> bool:
    """Whether every number of ``a`` is a valid match time (finite, in [MIN_TIME, MAX_TIME))."""
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
        return numbers_in_range(np.array(values, dtype=np.float64))
    try:  # datetimes, all naive or all aware: the extremes tell
        return time_problem(min(values)) is None and time_problem(max(values)) is None
    except TypeError:
        return all(time_problem(t) is None for t in values)


def located(got: tuple[Parts, I64] | None, first_line: int) -> Located | None:
    if got is None:
        return None
    parts, starts = got
    matches = build(parts)
    if matches is None:
        return None
    return (starts + first_line).tolist(), matches
