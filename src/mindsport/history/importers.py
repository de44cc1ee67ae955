"""Importers for public match data in their published formats, and format auto-detection.

* :func:`read_atp`: Jeff Sackmann's ``tennis_atp`` singles files (``atp_matches_YYYY.csv``),
  one row per match, winner first. Ordered by ``tourney_date`` then ``match_num`` (stable: file
  order breaks ties); match id ``"{tourney_id}-{match_num}"``, time = the tournament's date.
* :func:`read_halo`: the Halo 2 beta files of the TrueSkill paper (``HeadToHead.csv`` and its
  siblings): headerless rows ``time, game id, variant, map, player, team, score``; a game's
  teams are its distinct team values, ranked by the sum of their members' scores (equal sums are
  a draw). Ordered by time (stable).
* :func:`read_ti4`: the Twilight Imperium 4 free-for-all table (``ti4.csv``): one game per row,
  players listed in finishing order (``Winning Race``, ``2nd Race``, ...). A "player" is a
  faction at an experience level: ``"Federation of Sol (Beginner)"``, or the bare faction name
  when the level is blank. Ranks are the finishing order (victory points kept as scores).
  Ordered by timestamp (stable). Rows naming one faction twice (impossible in TI4, a few
  data-entry slips in the published file) and rows without a timestamp are skipped.

:func:`load_matches` accepts a match file (JSONL/CSV/Parquet) or one of the public files/folders
and picks the reader.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from mindsport.errors import MindsportError, NotFoundError
from mindsport.history.io import MatchFileError, read_matches
from mindsport.match import InvalidMatchError, Match

__all__ = ["detect_source", "load_matches", "read_atp", "read_halo", "read_ti4"]

_ATP_FILE = re.compile(r"^atp_matches_\d{4}\.csv$")
_ATP_UNKNOWN = "199999"
_PLACE_COLS = [
    ("Winning Race", "Winner Exp Level", "Winner VP"),
    ("2nd Race", "2nd Exp Level", "2nd Race VP"),
    ("3rd Race", "3rd Exp Level", "3rd Race VP"),
    ("4th Race", "4th Exp Level", "4th Race VP"),
    ("5th Race", "5th Exp Level", "5th Race VP"),
    ("6th Race", "6th Exp Level", "6th Race VP"),
]


def _paths(source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    if isinstance(source, str | os.PathLike):
        p = os.fspath(source)
        if os.path.isdir(p):
            files = sorted(f for f in os.listdir(p) if _ATP_FILE.match(f))
            if not files:
                raise NotFoundError(f"{p}: no atp_matches_YYYY.csv files in this folder")
            return [os.path.join(p, f) for f in files]
        if not os.path.exists(p):
            raise NotFoundError(f"{p}: no such file or folder")
        return [p]
    out = [os.fspath(s) for s in source]
    for p in out:
        if not os.path.isfile(p):
            raise NotFoundError(f"{p}: no such file")
    if not out:
        raise MindsportError("read_atp: no files given")
    return out


def read_atp(
    source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    skip_unknown: bool = True,
) -> list[Match]:
    """ATP singles matches from a ``tennis_atp`` folder, one file, or a list of files.

    ``skip_unknown``: drop matches involving the placeholder player ``199999`` ("Unknown"; it
    stands for many different people, sometimes on both sides of one match).
    """
    rows: list[tuple[int, int, int, Match]] = []
    order = 0
    for path in _paths(source):
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            need = ("tourney_id", "tourney_date", "match_num", "winner_id", "loser_id")
            header = reader.fieldnames or []
            for col in need:
                if col not in header:
                    raise MatchFileError(path, 1, col, "missing column (not an ATP matches file?)")
            for row in reader:
                line = reader.line_num
                date_s = (row["tourney_date"] or "").strip()
                try:
                    date = datetime.strptime(date_s, "%Y%m%d")
                except ValueError:
                    raise MatchFileError(
                        path, line, "tourney_date", f"expected YYYYMMDD, got {date_s!r}"
                    ) from None
                try:
                    num = int((row["match_num"] or "").strip())
                except ValueError:
                    raise MatchFileError(
                        path, line, "match_num", f"expected an integer, got {row['match_num']!r}"
                    ) from None
                w, lo = (row["winner_id"] or "").strip(), (row["loser_id"] or "").strip()
                if not w:
                    raise MatchFileError(path, line, "winner_id", "empty")
                if not lo:
                    raise MatchFileError(path, line, "loser_id", "empty")
                if skip_unknown and _ATP_UNKNOWN in (w, lo):
                    continue
                mid = f"{row['tourney_id'].strip()}-{num}"
                try:
                    m = Match(mid, date, [[w], [lo]], [0, 1])
                except InvalidMatchError as exc:
                    raise MatchFileError(path, line, None, str(exc)) from None
                rows.append((int(date_s), num, order, m))
                order += 1
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return _unique_ids([r[3] for r in rows])


def _unique_ids(matches: list[Match]) -> list[Match]:
    """Make ids unique (a repeated id gets ``#2``, ``#3``...), keeping everything else."""
    seen: dict[str, int] = {}
    out = []
    for m in matches:
        k = seen.get(m.id, 0)
        seen[m.id] = k + 1
        if k:
            m = Match(f"{m.id}#{k + 1}", m.time, m.teams, m.ranks, m.weights, m.scores)
        out.append(m)
    return out


def _halo_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%d %B %Y %H:%M:%S")


@dataclass
class _HaloGame:
    time: datetime
    line: int
    teams: dict[str, list[str]] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)


def read_halo(path: str | os.PathLike[str]) -> list[Match]:
    """Halo 2 beta games (``HeadToHead.csv`` or a folder holding it; other modes work too)."""
    p = os.fspath(path)
    if os.path.isdir(p):
        p = os.path.join(p, "HeadToHead.csv")
    if not os.path.isfile(p):
        raise NotFoundError(f"{p}: no such file")
    games: dict[str, _HaloGame] = {}
    with open(p, encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.reader(fh), 1):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 7:
                raise MatchFileError(
                    p,
                    line,
                    None,
                    "expected 7 fields (time, game, variant, map, player, team, score), "
                    f"got {len(row)}",
                )
            try:
                t = _halo_time(row[0])
            except ValueError:
                raise MatchFileError(
                    p, line, "time", f"expected like '06 August 2004 18:13:50', got {row[0]!r}"
                ) from None
            gid, player, team = row[1].strip(), row[4].strip(), row[5].strip()
            for name, val in (("game", gid), ("player", player), ("team", team)):
                if not val:
                    raise MatchFileError(p, line, name, "empty")
            try:
                score = float(row[6])
            except ValueError:
                raise MatchFileError(p, line, "score", f"not a number: {row[6]!r}") from None
            g = games.get(gid)
            if g is None:
                g = games[gid] = _HaloGame(t, line)
            g.teams.setdefault(team, []).append(player)
            g.scores[team] = g.scores.get(team, 0.0) + score
    out: list[Match] = []
    for gid, g in games.items():
        labels = list(g.teams)
        if len(labels) < 2:
            continue  # a game with one team carries no comparison
        try:
            out.append(
                Match(
                    gid,
                    g.time,
                    [g.teams[x] for x in labels],
                    None,
                    scores=[g.scores[x] for x in labels],
                )
            )
        except InvalidMatchError as exc:
            raise MatchFileError(p, g.line, None, str(exc)) from None
    out.sort(key=lambda m: m.time)
    return out


def _ti4_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%m/%d/%Y %H:%M:%S")


def read_ti4(path: str | os.PathLike[str]) -> list[Match]:
    """Twilight Imperium 4 free-for-all games (``ti4.csv`` or a folder holding it)."""
    p = os.fspath(path)
    if os.path.isdir(p):
        p = os.path.join(p, "ti4.csv")
    if not os.path.isfile(p):
        raise NotFoundError(f"{p}: no such file")
    out: list[Match] = []
    with open(p, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        for col in ("Timestamp", "Player Count", "Winning Race", "2nd Race"):
            if col not in header:
                raise MatchFileError(p, 1, col, "missing column (not a TI4 results table?)")
        for row in reader:
            line = reader.line_num
            ts = (row.get("Timestamp") or "").strip()
            if not ts:
                continue  # rows without a timestamp (none in the published file) are skipped
            try:
                t = _ti4_time(ts)
            except ValueError:
                raise MatchFileError(
                    p, line, "Timestamp", f"expected like '12/29/2017 19:16:05', got {ts!r}"
                ) from None
            players: list[str] = []
            vps: list[float] = []
            for race_c, exp_c, vp_c in _PLACE_COLS:
                race = (row.get(race_c) or "").strip()
                if not race:
                    continue
                exp = (row.get(exp_c) or "").strip()
                players.append(f"{race} ({exp})" if exp else race)
                vp_s = (row.get(vp_c) or "").strip().rstrip("+")
                try:
                    vps.append(float(vp_s) if vp_s else float("nan"))
                except ValueError:
                    raise MatchFileError(p, line, vp_c, f"not a number: {vp_s!r}") from None
            if len(players) < 2:
                raise MatchFileError(p, line, "Winning Race", "fewer than two players")
            if len(set(players)) != len(players):
                # the same faction twice at one table is impossible in TI4: a data-entry slip
                # in the published file; such rows are skipped
                continue
            scores = vps if all(v == v for v in vps) else None
            try:
                out.append(
                    Match(
                        f"ti4-{line}",
                        t,
                        [[x] for x in players],
                        list(range(len(players))),
                        scores=scores,
                    )
                )
            except InvalidMatchError as exc:
                raise MatchFileError(p, line, None, str(exc)) from None
    out.sort(key=lambda m: m.time)
    return out


def detect_source(path: str | os.PathLike[str]) -> str:
    """``"atp"``, ``"halo"``, ``"ti4"`` or ``"matches"`` (a JSONL/CSV/Parquet match file)."""
    p = Path(path)
    if p.is_dir():
        names = {x.name for x in p.iterdir()}
        if any(_ATP_FILE.match(n) for n in names):
            return "atp"
        if "HeadToHead.csv" in names:
            return "halo"
        if "ti4.csv" in names:
            return "ti4"
        raise MindsportError(f"{p}: no known match data in this folder")
    if not p.exists():
        raise NotFoundError(f"{p}: no such file or folder")
    if _ATP_FILE.match(p.name):
        return "atp"
    if p.suffix.lower() == ".csv":
        with open(p, encoding="utf-8", newline="") as fh:
            first = fh.readline()
        if first.startswith("tourney_id,"):
            return "atp"
        if "Winning Race" in first:
            return "ti4"
        if first.strip() and not first.startswith("match_id") and len(first.split(",")) == 7:
            try:
                _halo_time(first.split(",")[0])
                return "halo"
            except ValueError:
                pass
    return "matches"


def load_matches(path: str | os.PathLike[str] | Sequence[str]) -> list[Match]:
    """Matches from a match file or a public data file/folder (auto-detected)."""
    if not isinstance(path, str | os.PathLike):
        return read_atp(path)
    kind = detect_source(path)
    if kind == "atp":
        return read_atp(path)
    if kind == "halo":
        return read_halo(path)
    if kind == "ti4":
        return read_ti4(path)
    return read_matches(path)
