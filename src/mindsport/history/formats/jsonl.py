"""JSON Lines match files: one match per line, an object with ``id``, ``time``, ``teams``,
``ranks`` and the optional fields of :class:`~mindsport.match.Match`.

:func:`iter_jsonl` reads line by line (the row path: each line parsed and checked as a match);
:func:`read_jsonl` reads a whole file on the column path (:mod:`.columns`) when it can."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import IO, Any

from mindsport.history.formats.common import (
    JSON_KEYS,
    MatchFileError,
    checked_match,
    field_of,
    parse_time,
)
from mindsport.match import InvalidMatchError, Match

__all__ = ["iter_jsonl", "write_jsonl"]


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
