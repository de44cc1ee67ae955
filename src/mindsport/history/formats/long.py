"""The long format (one row per player, a match's rows consecutive), as CSV and Parquet files
hold it: its row path, a match from its rows, each row and each match checked as it comes
(:func:`group_long`); its column path, the parts of every match from whole columns
(:func:`long_parts`, see :mod:`.columns`); and a match's rows for the writers
(:func:`long_rows`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mindsport.history.formats.columns import (
    FLOAT_TEXT,
    RANK_TEXT,
    Parts,
    all_empty,
    distinct_texts,
    ids_ok,
    interned,
    is_text,
    numbers_in_range,
    text_times,
    times_ok,
)
from mindsport.history.formats.common import (
    MatchFileError,
    field_of,
    parse_number,
    parse_rank,
    parse_time,
)
from mindsport.match import InvalidMatchError, Match

__all__ = ["group_long", "long_parts", "long_rows"]

I64 = NDArray[np.int64]
F64 = NDArray[np.float64]
#: the columns that the column path leaves to the row path when they hold values
_CHANCE = ("role", "deal", "luck")


class _LongBuilder:
    """Collects the consecutive rows of one match in the long format."""

    def __init__(self, path: str, mid: str, line: int, time_text: Any) -> None:
        self.path = path
        self.id = mid
        self.line = line
        self.time_raw = time_text
        self.team_labels: list[str] = []
        self.members: dict[str, list[str]] = {}
        self.rank: dict[str, int | None] = {}
        self.score: dict[str, float | None] = {}
        self.weights: dict[str, list[float | None]] = {}
        self.roles: dict[str, list[str | None]] = {}
        self.luck: dict[str, float | None] = {}
        self.deal: str | None = None

    def add(
        self,
        line: int,
        time_raw: Any,
        player: str,
        team: str,
        rank: int | None,
        numbers: dict[str, float | None],
        texts: dict[str, str | None],
    ) -> None:
        """One row: ``numbers`` holds its ``weight``, ``score`` and ``luck``, ``texts`` its
        ``role`` and ``deal`` (None: not given)."""
        weight, score, luck = numbers["weight"], numbers["score"], numbers["luck"]
        role, deal = texts["role"], texts["deal"]
        if time_raw != self.time_raw:
            raise MatchFileError(
                self.path,
                line,
                "time",
                f"match {self.id!r} has two times: {self.time_raw!r} and {time_raw!r}",
            )
        if not self.team_labels:
            self.deal = deal
        elif deal != self.deal:
            raise MatchFileError(
                self.path,
                line,
                "deal",
                f"match {self.id!r} has two deals: {self.deal!r} and {deal!r}",
            )
        if team not in self.members:
            self.team_labels.append(team)
            self.members[team] = []
            self.rank[team] = rank
            self.score[team] = score
            self.luck[team] = luck
            self.weights[team] = []
            self.roles[team] = []
        else:
            if self.luck[team] != luck:
                raise MatchFileError(
                    self.path,
                    line,
                    "luck",
                    f"team {team!r} of match {self.id!r} has two lucks: "
                    f"{self.luck[team]!r} and {luck!r}",
                )
            if self.rank[team] != rank:
                raise MatchFileError(
                    self.path,
                    line,
                    "rank",
                    f"team {team!r} of match {self.id!r} has two ranks: "
                    f"{self.rank[team]!r} and {rank!r}",
                )
            if self.score[team] != score:
                raise MatchFileError(
                    self.path,
                    line,
                    "score",
                    f"team {team!r} of match {self.id!r} has two scores: "
                    f"{self.score[team]!r} and {score!r}",
                )
        self.members[team].append(player)
        self.weights[team].append(weight)
        self.roles[team].append(role)

    def build(self, time: datetime | float | int) -> Match:
        teams = [self.members[t] for t in self.team_labels]
        ranks_l = [self.rank[t] for t in self.team_labels]
        scores_l = [self.score[t] for t in self.team_labels]
        flat_w = [w for t in self.team_labels for w in self.weights[t]]
        ranks: list[int | None] | None = ranks_l
        scores: list[float] | None = None
        if any(s is not None for s in scores_l):
            if any(s is None for s in scores_l):
                raise MatchFileError(
                    self.path,
                    self.line,
                    "score",
                    f"match {self.id!r}: some teams have a score, others not",
                )
            scores = [s for s in scores_l if s is not None]
            if all(r is None for r in ranks_l):
                ranks = None
        weights: list[list[float]] | None = None
        if any(w is not None for w in flat_w):
            if any(w is None for w in flat_w):
                raise MatchFileError(
                    self.path,
                    self.line,
                    "weight",
                    f"match {self.id!r}: some players have a weight, others not",
                )
            weights = [[w for w in self.weights[t] if w is not None] for t in self.team_labels]
        roles = self._all_or_none(
            "role",
            "some players have a role, others not",
            [self.roles[t] for t in self.team_labels],
        )
        lucks = self._all_or_none(
            "luck", "some teams have a luck, others not", [[self.luck[t] for t in self.team_labels]]
        )
        try:
            return Match(
                self.id,
                time,
                teams,
                ranks,
                weights,
                scores,
                roles=roles,
                deal=self.deal,
                luck=None if lucks is None else lucks[0],
            )
        except InvalidMatchError as exc:
            raise MatchFileError(self.path, self.line, field_of(str(exc)), str(exc)) from None

    def _all_or_none(self, column: str, why: str, rows: list[list[Any]]) -> list[list[Any]] | None:
        """``rows`` when every value is given, None when none is, else an error on ``column``."""
        given = [v is not None for row in rows for v in row]
        if not any(given):
            return None
        if not all(given):
            raise MatchFileError(self.path, self.line, column, f"match {self.id!r}: {why}")
        return rows


def long_rows(m: Match) -> Iterator[dict[str, Any]]:
    for ti, team in enumerate(m.teams):
        for pi, player in enumerate(team):
            yield {
                "match_id": m.id,
                "time": m.time,
                "player": player,
                "team": str(ti),
                "rank": m.ranks[ti],
                "weight": None if m.weights is None else m.weights[ti][pi],
                "score": None if m.scores is None else m.scores[ti],
                "role": None if m.roles is None else m.roles[ti][pi],
                "deal": m.deal,
                "luck": None if m.luck is None else m.luck[ti],
            }


def group_long(
    path: str, rows: Iterable[tuple[int, dict[str, Any]]], text_times: bool
) -> Iterator[tuple[int, Match]]:
    """Turn (line, row-dict) pairs with raw values into matches (rows of a match consecutive);
    a player id is one string object however many rows name it."""
    seen: set[str] = set()
    ids: dict[str, str] = {}
    cur: _LongBuilder | None = None
    for line, row in rows:
        mid = row.get("match_id")
        if mid is None or (isinstance(mid, str) and not mid.strip()):
            raise MatchFileError(path, line, "match_id", "empty")
        mid = str(mid).strip()
        player = row.get("player")
        if player is None or not str(player).strip():
            raise MatchFileError(path, line, "player", "empty")
        team = row.get("team")
        if team is None or not str(team).strip():
            raise MatchFileError(path, line, "team", "empty")
        time_raw = row.get("time")
        if time_raw is None or (isinstance(time_raw, str) and not time_raw.strip()):
            raise MatchFileError(path, line, "time", "empty")
        try:
            rank_v = row.get("rank")
            rank = (
                parse_rank(rank_v)
                if isinstance(rank_v, str)
                else None
                if rank_v is None or (isinstance(rank_v, float) and math.isnan(rank_v))
                else int(rank_v)
            )
        except ValueError as exc:
            raise MatchFileError(path, line, "rank", str(exc)) from None
        texts: dict[str, str | None] = {}
        for f in ("role", "deal"):
            v = row.get(f)
            texts[f] = None if v is None or (isinstance(v, str) and not v.strip()) else str(v)
        vals: dict[str, float | None] = {}
        for f in ("weight", "score", "luck"):
            v = row.get(f)
            if (
                v is None
                or (isinstance(v, str) and not v.strip())
                or (isinstance(v, float) and math.isnan(v))
            ):
                vals[f] = None
                continue
            try:
                vals[f] = parse_number(v, f) if isinstance(v, str) else float(v)
            except (ValueError, TypeError) as exc:
                raise MatchFileError(path, line, f, str(exc)) from None
        w = vals["weight"]
        if w is not None and not 0 <= w <= 1:
            raise MatchFileError(path, line, "weight", f"weights lie in [0, 1], got {w!r}")
        if cur is None or cur.id != mid:
            if cur is not None:
                yield cur.line, _finish(cur, text_times)
            if mid in seen:
                raise MatchFileError(
                    path,
                    line,
                    "match_id",
                    f"rows of match {mid!r} are not consecutive (or the id is used twice)",
                )
            seen.add(mid)
            cur = _LongBuilder(path, mid, line, time_raw)
        p = str(player).strip()
        p = ids.setdefault(p, p)
        if any(p in ms for ms in cur.members.values()):
            raise MatchFileError(
                path, line, "player", f"player {p!r} appears twice in match {mid!r}"
            )
        cur.add(line, time_raw, p, str(team).strip(), rank, vals, texts)
    if cur is not None:
        yield cur.line, _finish(cur, text_times)


def _finish(b: _LongBuilder, text_times: bool) -> Match:
    t = b.time_raw
    if text_times:
        try:
            t = parse_time(str(t))
        except ValueError as exc:
            raise MatchFileError(b.path, b.line, "time", str(exc)) from None
    elif isinstance(t, datetime):
        pass
    elif hasattr(t, "to_pydatetime"):
        t = t.to_pydatetime()
    elif isinstance(t, str):
        try:
            t = parse_time(t)
        except ValueError as exc:
            raise MatchFileError(b.path, b.line, "time", str(exc)) from None
    return b.build(t)


# ---------------------------------------------------------------------------- columns


def _numbers(arr: Any) -> F64 | None:
    """The numbers of a column of the long format (NaN: none given), as the row path reads
    them; None: a text it would read otherwise (or refuse)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_text(arr):
        if all_empty(arr):  # (as a written file's weight and score columns without values)
            return np.full(len(arr), math.nan)
        empty = pc.fill_null(pc.equal(arr, ""), True)  # null (Parquet): none given
        given = pc.invert(empty)
        if not pc.all(pc.or_kleene(empty, pc.match_substring_regex(arr, FLOAT_TEXT))).as_py():
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
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr is None:
        return np.full(n_rows, -1, np.int64)
    if is_text(arr):
        empty = pc.fill_null(pc.equal(arr, ""), True)  # null (Parquet): unranked
        if not pc.all(pc.or_kleene(empty, pc.match_substring_regex(arr, RANK_TEXT))).as_py():
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
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_text(arr):
        return not all_empty(arr)
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


def _long_times(arr: Any, match_starts: I64) -> list[Any] | None:
    """Each match's time from a long-format column (every row of a match with the same raw
    value: each row's as the row's before, unless it starts a match), as the row path reads
    it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        return None
    if len(arr) > 1:
        same = pc.equal(arr[1:], arr[:-1]).to_numpy(zero_copy_only=False)
        starts = np.zeros(len(same), dtype=bool)
        starts[match_starts[1:] - 1] = True  # (a row that starts a match may differ)
        if not (same | starts).all():
            return None
    first = arr.take(pa.array(match_starts))
    if is_text(arr):
        return text_times(first)
    if pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type):
        if not numbers_in_range(first.to_numpy(zero_copy_only=False)):
            return None  # (checked on the column: no pass over a million Python numbers)
        numbers: list[Any] = first.to_pylist()
        return numbers
    if not pa.types.is_timestamp(arr.type):
        return None
    values: list[Any] = first.to_pylist()
    return values if times_ok(values) else None


def long_parts(cols: dict[str, Any]) -> tuple[Parts, I64] | None:
    """Parts from the columns of a long-format file (pyarrow arrays by name, one row per player
    slot) and the row each match starts on (None: leave the file to the row path)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if any(name in cols and _has_values(cols[name]) for name in _CHANCE):
        return None
    mid = cols["match_id"]
    n_rows = len(mid)
    if pa.types.is_integer(mid.type):
        mid = mid.cast(pa.string())
    if mid.null_count or not is_text(mid):
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
    if not ids_ok(ids_arr, strip=True):
        return None
    if not distinct_texts(ids_arr):
        return None  # a match's rows apart, or an id used twice
    ids = ids_arr.to_pylist()
    team = cols["team"]
    if is_text(team):
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
    times = _long_times(cols["time"], match_starts)
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
        ids,
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
