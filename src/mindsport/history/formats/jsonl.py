"""JSON Lines match files: one match per line, an object with ``id``, ``time``, ``teams``,
``ranks`` and the optional fields of :class:`~mindsport.match.Match`.

:func:`iter_jsonl` reads line by line (the row path: each line parsed and checked as a match);
:func:`read_jsonl` reads a whole file on the column path (:mod:`.columns`) when it can."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from itertools import chain
from operator import itemgetter
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from mindsport.history.formats.columns import (
    Located,
    Parts,
    build,
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
    import pyarrow as pa

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
    import pyarrow as pa

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
