"""Importers for public match data in their published formats, and format auto-detection.

* :func:`read_atp`: Jeff Sackmann's ``tennis_atp`` singles files (``atp_matches_YYYY.csv``),
  one row per match, winner first. Ordered by ``tourney_date`` then ``match_num`` (stable: file
  order breaks ties); match id ``"{tourney_id}-{match_num}"``, time = the tournament's date.
  Players are named ``"First Last"`` from ``atp_players.csv`` beside the files (else from the
  rows' ``winner_name``/``loser_name``); a name shared by two people gets the ATP id in
  brackets, ``"Name (104745)"``. Matches with the placeholder player ``199999`` ("Unknown",
  standing for many different people) are dropped. A completed match keeps the sets each player
  won as its ``scores`` (winner first; :func:`atp_sets`); a retirement, walkover, default,
  abandoned or unreadable score keeps the match without scores.
* :func:`read_halo`: the Halo 2 beta files of the TrueSkill paper (``HeadToHead.csv`` and its
  siblings): headerless rows ``time, game id, variant, map, player, team, score``; a game's
  teams are its distinct team values, ranked by the sum of their members' scores (equal sums are
  a draw). Ordered by time (stable).
* :func:`read_ti4`: the Twilight Imperium 4 free-for-all table (``ti4.csv``): one game per row,
  players listed in finishing order (``Winning Race``, ``2nd Race``, ...). A "player" is a
  faction at an experience level: ``"Federation of Sol (Beginner)"``, or the bare faction name
  when the level is blank. Ranks are the finishing order (victory points kept as scores).
  Ordered by timestamp (stable). Rows naming one faction twice (impossible in TI4, a few
  data-entry slips in the published file) and rows without a timestamp are dropped.

:func:`import_matches` accepts a match file (JSONL/CSV/Parquet) or one of the public
files/folders, picks the reader (:func:`detect_source`, or the one named) and says what it
dropped and why (:class:`Imported`); :func:`mindsport.history.read_matches` returns just the
matches. Every command that reads matches (``rate``, ``evaluate``, ``import``) goes through it.
"""

from __future__ import annotations

import csv
import itertools
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from mindsport.errors import MindsportError, NotFoundError
from mindsport.history.io import MatchFileError, read_located
from mindsport.match import InvalidMatchError, Match

__all__ = [
    "Dropped",
    "Imported",
    "atp_sets",
    "detect_source",
    "import_matches",
    "read_atp",
    "read_halo",
    "read_ti4",
]

_ATP_FILE = re.compile(r"^atp_matches_\d{4}\.csv$")
_ATP_UNKNOWN = "199999"
_ATP_UNKNOWN_REASON = "a player is the ATP placeholder 199999 ('Unknown', many people)"
#: one set of a score line: games of the winner and the loser, a tiebreak's points in
#: brackets (``7-6(5)``), or a match tiebreak played instead of a deciding set (``[10-7]``)
_ATP_SET = re.compile(r"(\d+)-(\d+)(?:\(\d+\))?|\[(\d+)-(\d+)\]")
_TI4_NO_TIME = "no timestamp"
_TI4_TWICE = "one faction listed twice (a data-entry slip: impossible in TI4)"
_HALO_ONE_TEAM = "every player in one team (nothing to compare)"


@dataclass(frozen=True, slots=True)
class Dropped:
    """Rows of a source that did not become matches, for one reason."""

    reason: str
    count: int
    first_at: str | None = None


@dataclass(frozen=True)
class Imported:
    """The matches read from a source, which reader read them, and what was dropped and why."""

    source: str
    kind: str
    matches: list[Match]
    dropped: tuple[Dropped, ...] = ()

    @property
    def n_dropped(self) -> int:
        """Rows (or games) dropped, all reasons together."""
        return sum(d.count for d in self.dropped)

    def summary(self) -> str:
        """One line per fact: what was read, then each reason for a drop with its count.

        >>> Imported("x.csv", "ti4", [], (Dropped("no timestamp", 3, "line 17"),)).summary()
        'x.csv (ti4): 0 matches; dropped 3: no timestamp (3, first at line 17)'
        """
        head = f"{self.source} ({self.kind}): {len(self.matches):,} matches"
        if not self.dropped:
            return head
        parts = []
        for d in self.dropped:
            where = "" if d.first_at is None else f", first at {d.first_at}"
            parts.append(f"{d.reason} ({d.count:,}{where})")
        return f"{head}; dropped {self.n_dropped:,}: " + "; ".join(parts)


class _Drops:
    """Counts dropped rows per reason, remembering where each reason first occurred."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.first: dict[str, str] = {}

    def add(self, reason: str, where: str) -> None:
        """One more row dropped for ``reason``; ``where`` names it (``"line 12"``)."""
        self.counts[reason] += 1
        self.first.setdefault(reason, where)

    def result(self) -> tuple[Dropped, ...]:
        return tuple(Dropped(r, c, self.first[r]) for r, c in self.counts.most_common())


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


def _atp_names(folder: str) -> dict[str, str]:
    """``player_id -> "First Last"`` from ``atp_players.csv`` in ``folder`` (empty if absent)."""
    path = os.path.join(folder, "atp_players.csv")
    if not os.path.isfile(path):
        return {}
    out: dict[str, str] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            pid = (row.get("player_id") or "").strip()
            name = " ".join(
                x
                for x in (
                    (row.get("name_first") or "").strip(),
                    (row.get("name_last") or "").strip(),
                )
                if x
            )
            if pid and name:
                out[pid] = name
    return out


def _player_keys(ids: Iterable[str], names: dict[str, str]) -> dict[str, str]:
    """Each id's player key: its name, or ``"Name (id)"`` when people share the name, or the id
    when no name is known."""
    by_name: dict[str, set[str]] = {}
    for pid in ids:
        name = names.get(pid)
        if name:
            by_name.setdefault(name, set()).add(pid)
    keys = {}
    for pid in ids:
        name = names.get(pid)
        if not name:
            keys[pid] = pid
        elif len(by_name[name]) > 1:
            keys[pid] = f"{name} ({pid})"
        else:
            keys[pid] = name
    return keys


def atp_sets(score: str) -> tuple[int, int] | None:
    """Sets won by the winner and by the loser in an ATP score line (winner's games first), or
    None when the match was not played to its end or the line cannot be read.

    Each set is ``W-L`` games (a tiebreak's points in brackets, ``7-6(5)``, count for
    nothing) or a match tiebreak ``[W-L]`` in place of a deciding set; a set goes to the side
    with more games. A retirement (``RET``), walkover (``W/O``), default (``DEF``, ``Def.``),
    abandoned or unfinished match, an unknown score (``UNK``, ``?-?``), a level set or a line
    in which the winner did not win more sets than the loser gives None.

    >>> atp_sets("6-4 3-6 7-6(5)"), atp_sets("6-7(15) 7-6(2) [10-7]")
    ((2, 1), (2, 1))
    >>> atp_sets("6-3 2-1 RET"), atp_sets("W/O"), atp_sets("6-6 Played and unfinished")
    (None, None, None)
    """
    won = lost = 0
    parts = score.split()
    if not parts:
        return None
    for part in parts:
        m = _ATP_SET.fullmatch(part)
        if m is None:
            return None
        a, b = (int(x) for x in (m.groups()[:2] if m.group(1) is not None else m.groups()[2:]))
        if a == b:
            return None
        if a > b:
            won += 1
        else:
            lost += 1
    return (won, lost) if won > lost else None


def _atp(
    source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    skip_unknown: bool,
    named: bool,
) -> tuple[list[Match], tuple[Dropped, ...]]:
    files = _paths(source)
    drops = _Drops()
    raw: list[tuple[int, int, int, str, datetime, str, str, tuple[int, int] | None]] = []
    row_names: dict[str, str] = {}
    dates: dict[str, datetime] = {}
    order = 0
    for path in files:
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
                date = dates.get(date_s)
                if date is None:
                    try:
                        date = dates[date_s] = datetime.strptime(date_s, "%Y%m%d")
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
                    drops.add(_ATP_UNKNOWN_REASON, f"{os.path.basename(path)}, line {line}")
                    continue
                if w == lo:
                    raise MatchFileError(path, line, "loser_id", f"the winner {w!r} again")
                for pid, col in ((w, "winner_name"), (lo, "loser_name")):
                    name = (row.get(col) or "").strip()
                    if name and pid != _ATP_UNKNOWN:
                        row_names.setdefault(pid, name)
                mid = f"{(row['tourney_id'] or '').strip()}-{num}"
                sets = atp_sets(row.get("score") or "")
                raw.append((int(date_s), num, order, mid, date, w, lo, sets))
                order += 1
    raw.sort(key=lambda r: (r[0], r[1], r[2]))
    ids = {p for r in raw for p in (r[5], r[6])}
    if named:
        names = {**row_names, **_atp_names(os.path.dirname(files[0]))}
        keys = _player_keys(sorted(ids), names)
    else:
        keys = {p: p for p in ids}
    out = [Match(r[3], r[4], [[keys[r[5]]], [keys[r[6]]]], [0, 1], scores=r[7]) for r in raw]
    return _unique_ids(out), drops.result()


def read_atp(
    source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    skip_unknown: bool = True,
    named: bool = True,
) -> list[Match]:
    """ATP singles matches from a ``tennis_atp`` folder, one file, or a list of files.

    ``skip_unknown``: drop matches involving the placeholder player ``199999`` ("Unknown"; it
    stands for many different people, sometimes on both sides of one match). ``named``: players
    are keyed by name (see the module docstring); ``False`` keeps the numeric ATP ids.
    """
    return _atp(source, skip_unknown, named)[0]


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


def _halo(path: str | os.PathLike[str]) -> tuple[list[Match], tuple[Dropped, ...]]:
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
    drops = _Drops()
    for gid, g in games.items():
        labels = list(g.teams)
        if len(labels) < 2:
            drops.add(_HALO_ONE_TEAM, f"line {g.line}")
            continue
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
    return out, drops.result()


def read_halo(path: str | os.PathLike[str]) -> list[Match]:
    """Halo 2 beta games (``HeadToHead.csv`` or a folder holding it; other modes work too)."""
    return _halo(path)[0]


def _ti4_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%m/%d/%Y %H:%M:%S")


def _ti4(path: str | os.PathLike[str]) -> tuple[list[Match], tuple[Dropped, ...]]:
    p = os.fspath(path)
    if os.path.isdir(p):
        p = os.path.join(p, "ti4.csv")
    if not os.path.isfile(p):
        raise NotFoundError(f"{p}: no such file")
    out: list[Match] = []
    drops = _Drops()
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
                drops.add(_TI4_NO_TIME, f"line {line}")
                continue
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
                drops.add(_TI4_TWICE, f"line {line}")
                continue
            # the columns are the finishing order; victory points that disagree with it (a few
            # games list a lower score above a higher one) are left out, the order stands
            ordered = all(a >= b for a, b in itertools.pairwise(vps))
            scores = vps if ordered and all(v == v for v in vps) else None
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
    return out, drops.result()


def read_ti4(path: str | os.PathLike[str]) -> list[Match]:
    """Twilight Imperium 4 free-for-all games (``ti4.csv`` or a folder holding it)."""
    return _ti4(path)[0]


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


#: the public data sets by name (what :func:`detect_source` says, and ``source=`` may name)
DATA_SETS = ("atp", "halo", "ti4")
#: the project's match file formats (``source=`` may name one)
FILE_FORMATS = ("jsonl", "csv", "parquet")


def import_matches(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], source: str | None = None
) -> Imported:
    """Matches from a match file or a public data file/folder, with what was dropped and why.

    ``source`` names the reader: a data set (``"atp"``, ``"halo"``, ``"ti4"``) or a file format
    (``"jsonl"``, ``"csv"``, ``"parquet"``); by default it is detected (:func:`detect_source`).
    A list of paths is read as ATP files."""
    if source is not None and source not in DATA_SETS + FILE_FORMATS:
        known = ", ".join(DATA_SETS + FILE_FORMATS)
        raise MindsportError(f"unknown source {source!r} (known: {known})")
    if not isinstance(path, str | os.PathLike):
        if source not in (None, "atp"):
            raise MindsportError(f"a list of files is read as ATP files, not as {source!r}")
        ms, dropped = _atp(path, True, True)
        return Imported(", ".join(str(x) for x in path), "atp", ms, dropped)
    kind = source or detect_source(path)
    if kind == "atp":
        ms, dropped = _atp(path, True, True)
    elif kind == "halo":
        ms, dropped = _halo(path)
    elif kind == "ti4":
        ms, dropped = _ti4(path)
    else:
        fmt = kind if kind in FILE_FORMATS else None
        ms, dropped = read_located(path, fmt)[1], ()  # type: ignore[arg-type]
    return Imported(os.fspath(path), kind, ms, dropped)
