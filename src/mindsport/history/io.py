"""Match files: JSONL, CSV long format and Parquet; streaming readers and atomic writers.

Formats (chosen by file extension, or ``format=``):

* **JSONL** (``.jsonl``/``.ndjson``): one match per line, an object with ``id``, ``time`` (ISO 8601
  string or number), ``teams`` (list of lists of player ids), ``ranks`` (list of ints or null;
  may be omitted when ``scores`` are given), optional ``weights`` (same shape as ``teams``) and
  ``scores`` (one number per team); for games of chance, optional ``roles`` (one role name per
  player, same shape as ``teams``), ``deal`` (the id of the cards dealt) and ``luck`` (the deal's
  expected result, one number per team; see :class:`mindsport.match.Match`).
* **CSV long format** (``.csv``): header
  ``match_id,time,player,team,rank[,weight][,score][,role][,deal][,luck]``, one row per player; a
  match's rows are consecutive; teams are told apart by the ``team`` label and ordered by first
  appearance. ``rank`` is the team's rank (empty: unranked); ``score`` is the team's score,
  repeated on each of its rows (empty ``rank`` column with scores: ranks from scores). ``time``
  is an ISO datetime or a number. Empty ``weight`` means no weights. ``role`` is the player's
  role (empty on every row of a match: no roles), ``deal`` the match's deal id (repeated on each
  row), ``luck`` the team's expected result (repeated on each of its rows).
* **Parquet** (``.parquet``, needs pyarrow): the same long columns.

Reading errors raise :class:`MatchFileError` naming the file, the line (1-based, the header is
line 1 in CSV; the row number in Parquet) and the field. Writes are atomic: the data go to a
temporary file in the same folder that replaces the target only when complete, so a file is
written whole or not at all.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Literal

from mindsport.errors import MindsportError, NotFoundError
from mindsport.files import write_atomically
from mindsport.match import InvalidMatchError, Match

__all__ = [
    "CSV_COLUMNS",
    "MatchFileError",
    "detect_format",
    "iter_located",
    "iter_matches",
    "read_matches",
    "write_matches",
]

Format = Literal["jsonl", "csv", "parquet"]
CSV_COLUMNS = (
    "match_id",
    "time",
    "player",
    "team",
    "rank",
    "weight",
    "score",
    "role",
    "deal",
    "luck",
)
_REQUIRED = ("match_id", "time", "player", "team")


class MatchFileError(MindsportError):
    """A match file is malformed: the message names the file, line and field."""

    def __init__(
        self, path: str | os.PathLike[str], line: int | None, field: str | None, why: str
    ) -> None:
        where = str(path)
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {why}")
        self.path = str(path)
        self.line = line
        self.field = field


def detect_format(path: str | os.PathLike[str]) -> Format:
    """The format of a match file from its extension."""
    name = str(path).lower()
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    raise MindsportError(f"{path}: unknown match file type (name it .jsonl, .csv or .parquet)")


# ---------------------------------------------------------------------------- values


def _time_to_text(t: datetime | float | int) -> str:
    if isinstance(t, datetime):
        return t.isoformat()
    return repr(t) if isinstance(t, float) else str(t)


def _parse_time(text: str) -> datetime | float | int:
    s = text.strip()
    if not s:
        raise ValueError("empty time")
    try:
        return int(s)
    except ValueError:
        pass
    try:
        x = float(s)
    except ValueError:
        pass
    else:
        if math.isnan(x):
            raise ValueError(f"time is not a number: {s!r}")
        return x
    try:
        return datetime.fromisoformat(s)
    except ValueError:
        raise ValueError(f"expected an ISO datetime or a number, got {s!r}") from None


def _parse_number(text: str, what: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise ValueError(f"expected a number for {what}, got {text!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{what} must be finite, got {text!r}")
    return x


def _parse_rank(text: str) -> int | None:
    s = text.strip()
    if not s:
        return None
    try:
        return int(s)
    except ValueError:
        x = _parse_number(s, "rank")
        if x != int(x):
            raise ValueError(f"rank must be an integer, got {s!r}") from None
        return int(x)


# ---------------------------------------------------------------------------- JSONL


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


_JSON_KEYS = {"id", "time", "teams", "ranks", "weights", "scores", "roles", "deal", "luck"}


def _match_from_json(obj: Any, path: str, line: int) -> Match:
    if not isinstance(obj, dict):
        raise MatchFileError(path, line, None, f"expected a JSON object, got {obj!r}")
    for key in ("id", "time", "teams"):
        if key not in obj:
            raise MatchFileError(path, line, key, "missing")
    extra = set(obj) - _JSON_KEYS
    if extra:
        raise MatchFileError(path, line, sorted(extra)[0], "unknown field")
    mid = obj["id"]
    if isinstance(mid, int) and not isinstance(mid, bool):
        mid = str(mid)
    t = obj["time"]
    if isinstance(t, str):
        try:
            t = _parse_time(t)
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
        field = _field_of(str(exc))
        raise MatchFileError(path, line, field, str(exc)) from None
    except TypeError as exc:
        raise MatchFileError(path, line, None, f"malformed match: {exc}") from None


def _field_of(message: str) -> str | None:
    for f in ("time", "teams", "ranks", "weights", "scores", "roles", "deal", "luck", "id"):
        if f": {f}:" in message or message.startswith(f"match {f}"):
            return f
    return None


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


def _iter_jsonl(path: str) -> Iterator[tuple[int, Match]]:
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


def _write_jsonl(fh: IO[str], matches: Iterable[Match]) -> int:
    n = 0
    for m in matches:
        fh.write(json.dumps(_match_to_json(_check(m)), ensure_ascii=False) + "\n")
        n += 1
    return n


# ---------------------------------------------------------------------------- long rows


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
            raise MatchFileError(self.path, self.line, _field_of(str(exc)), str(exc)) from None

    def _all_or_none(self, column: str, why: str, rows: list[list[Any]]) -> list[list[Any]] | None:
        """``rows`` when every value is given, None when none is, else an error on ``column``."""
        given = [v is not None for row in rows for v in row]
        if not any(given):
            return None
        if not all(given):
            raise MatchFileError(self.path, self.line, column, f"match {self.id!r}: {why}")
        return rows


def _long_rows(m: Match) -> Iterator[dict[str, Any]]:
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


def _group_long(
    path: str, rows: Iterable[tuple[int, dict[str, Any]]], parse_time: bool
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
                _parse_rank(rank_v)
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
                vals[f] = _parse_number(v, f) if isinstance(v, str) else float(v)
            except (ValueError, TypeError) as exc:
                raise MatchFileError(path, line, f, str(exc)) from None
        w = vals["weight"]
        if w is not None and not 0 <= w <= 1:
            raise MatchFileError(path, line, "weight", f"weights lie in [0, 1], got {w!r}")
        if cur is None or cur.id != mid:
            if cur is not None:
                yield cur.line, _finish(cur, parse_time)
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
        yield cur.line, _finish(cur, parse_time)


def _finish(b: _LongBuilder, parse_time: bool) -> Match:
    t = b.time_raw
    if parse_time:
        try:
            t = _parse_time(str(t))
        except ValueError as exc:
            raise MatchFileError(b.path, b.line, "time", str(exc)) from None
    elif isinstance(t, datetime):
        pass
    elif hasattr(t, "to_pydatetime"):
        t = t.to_pydatetime()
    elif isinstance(t, str):
        try:
            t = _parse_time(t)
        except ValueError as exc:
            raise MatchFileError(b.path, b.line, "time", str(exc)) from None
    return b.build(t)


# ---------------------------------------------------------------------------- CSV


def _iter_csv(path: str) -> Iterator[tuple[int, Match]]:
    with open(path, encoding="utf-8", newline="") as fh:
        delim = "\t" if path.lower().endswith(".tsv") else ","
        reader = csv.reader(fh, delimiter=delim)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            return
        missing = [c for c in _REQUIRED if c not in header]
        if missing:
            raise MatchFileError(path, 1, missing[0], f"missing column (header: {header!r})")
        unknown = [c for c in header if c not in CSV_COLUMNS]
        if unknown:
            raise MatchFileError(path, 1, unknown[0], "unknown column")
        if "rank" not in header and "score" not in header:
            raise MatchFileError(path, 1, "rank", "need a rank or a score column")

        def rows() -> Iterator[tuple[int, dict[str, Any]]]:
            for row in reader:
                line = reader.line_num
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise MatchFileError(
                        path, line, None, f"{len(row)} fields, the header has {len(header)}"
                    )
                yield line, dict(zip(header, row, strict=True))

        yield from _group_long(path, rows(), parse_time=True)


def _write_csv(fh: IO[str], matches: Iterable[Match]) -> int:
    # The columns must be known before the first row: buffer nothing, write all optional ones.
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for m in matches:
        for r in _long_rows(_check(m)):
            writer.writerow(
                [
                    r["match_id"],
                    _time_to_text(r["time"]),
                    r["player"],
                    r["team"],
                    "" if r["rank"] is None else r["rank"],
                    "" if r["weight"] is None else repr(r["weight"]),
                    "" if r["score"] is None else repr(r["score"]),
                    "" if r["role"] is None else r["role"],
                    "" if r["deal"] is None else r["deal"],
                    "" if r["luck"] is None else repr(r["luck"]),
                ]
            )
        n += 1
    return n


# ---------------------------------------------------------------------------- Parquet


def _iter_parquet(path: str) -> Iterator[tuple[int, Match]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise MindsportError(
            f"{path}: reading Parquet needs pyarrow (pip install pyarrow)"
        ) from None
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own error types
        raise MatchFileError(path, None, None, f"not a Parquet file: {exc}") from None
    names = pf.schema_arrow.names
    missing = [c for c in _REQUIRED if c not in names]
    if missing:
        raise MatchFileError(path, None, missing[0], f"missing column (columns: {names!r})")
    if "rank" not in names and "score" not in names:
        raise MatchFileError(path, None, "rank", "need a rank or a score column")

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        line = 0
        for batch in pf.iter_batches(batch_size=65536):
            cols = {name: batch.column(name).to_pylist() for name in batch.schema.names}
            for i in range(batch.num_rows):
                line += 1
                yield line, {k: v[i] for k, v in cols.items()}

    yield from _group_long(path, rows(), parse_time=False)


def _write_parquet(path: str, matches: Iterable[Match]) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover
        raise MindsportError(
            f"{path}: writing Parquet needs pyarrow (pip install pyarrow)"
        ) from None
    cols: dict[str, list[Any]] = {c: [] for c in CSV_COLUMNS}
    n = 0
    for m in matches:
        for r in _long_rows(_check(m)):
            for c in CSV_COLUMNS:
                cols[c].append(r[c])
        n += 1
    times = cols["time"]
    if times and all(isinstance(t, datetime) for t in times):
        aware = {t.tzinfo is not None for t in times}
        if len(aware) > 1:
            time_arr = pa.array([t.isoformat() for t in times], pa.string())
        else:
            time_arr = pa.array(times)
    elif all(isinstance(t, int) for t in times):
        time_arr = pa.array(times, pa.int64())
    elif all(isinstance(t, int | float) and not isinstance(t, datetime) for t in times):
        time_arr = pa.array([float(t) for t in times], pa.float64())
    else:
        time_arr = pa.array([_time_to_text(t) for t in times], pa.string())
    table = pa.table(
        {
            "match_id": pa.array(cols["match_id"], pa.string()),
            "time": time_arr,
            "player": pa.array(cols["player"], pa.string()),
            "team": pa.array(cols["team"], pa.string()),
            "rank": pa.array(cols["rank"], pa.int64()),
            "weight": pa.array(cols["weight"], pa.float64()),
            "score": pa.array(cols["score"], pa.float64()),
            "role": pa.array(cols["role"], pa.string()),
            "deal": pa.array(cols["deal"], pa.string()),
            "luck": pa.array(cols["luck"], pa.float64()),
        }
    )
    pq.write_table(table, path)
    return n


# ---------------------------------------------------------------------------- public


def _check(m: Any) -> Match:
    if not isinstance(m, Match):
        raise MindsportError(f"write_matches: expected Match objects, got {m!r}")
    return m


def iter_matches(path: str | os.PathLike[str], format: Format | None = None) -> Iterator[Match]:
    """Stream the matches of a file one by one (constant memory apart from the seen ids)."""
    return (m for _, m in iter_located(path, format))


def iter_located(
    path: str | os.PathLike[str], format: Format | None = None
) -> Iterator[tuple[int, Match]]:
    """:func:`iter_matches` with the line each match starts on (1-based; the header is line 1
    of a CSV file; the row number in Parquet), for messages about a match found later."""
    p = os.fspath(path)
    fmt = format or detect_format(p)
    if not os.path.exists(p):
        raise NotFoundError(f"{p}: no such match file")
    if fmt == "jsonl":
        return _iter_jsonl(p)
    if fmt == "csv":
        return _iter_csv(p)
    if fmt == "parquet":
        return _iter_parquet(p)
    raise MindsportError(f"{p}: unknown format {fmt!r}")


def read_matches(path: str | os.PathLike[str], format: Format | None = None) -> list[Match]:
    """All matches of a JSONL, CSV (long format) or Parquet file, in file order."""
    return list(iter_matches(path, format))


def write_matches(
    path: str | os.PathLike[str], matches: Iterable[Match], format: Format | None = None
) -> int:
    """Write matches atomically (whole file or nothing); returns the number written."""
    p = os.fspath(path)
    fmt = format or detect_format(p)
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise NotFoundError(f"{p}: folder {folder} does not exist")
    written = 0

    def write(tmp: Path) -> None:
        nonlocal written
        if fmt == "parquet":
            written = _write_parquet(str(tmp), matches)
            return
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            written = _write_jsonl(fh, matches) if fmt == "jsonl" else _write_csv(fh, matches)

    write_atomically(p, write)
    return written
