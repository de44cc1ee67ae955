"""The long format's row path: a match from its consecutive rows (one row per player), as CSV
and Parquet files hold them, each row and each match checked as it comes (:func:`group_long`);
and a match's rows for the writers (:func:`long_rows`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from mindsport.history.formats.common import (
    MatchFileError,
    field_of,
    parse_number,
    parse_rank,
    parse_time,
)
from mindsport.match import InvalidMatchError, Match

__all__ = ["group_long", "long_rows"]


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
