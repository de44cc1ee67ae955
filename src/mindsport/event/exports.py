"""The standings in forms other tools read: CSV and JSON, with a legend of every column and of
the event's tie-breaks.

The CSV has one header line (the column names of :data:`COLUMNS`) and one line per player in
standing order; numbers are written as Python writes them (``repr`` of a float: they read back
exactly), ``withdrawn`` as ``true``/``false``. The JSON is the same rows as objects, with the
legend. :func:`rows_from_csv` reads a CSV written here back into rows equal to the JSON's.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from mindsport.event.model import EventError, EventSpec, Scoring, Standing, TieBreak

__all__ = ["COLUMNS", "legend", "rows_from_csv", "standings_csv", "standings_json"]

#: the columns of the standings, in order
COLUMNS = ("place", "player", "rank_points", "score", "opponents", "rounds", "byes", "withdrawn")


def legend(spec: EventSpec) -> dict[str, str]:
    """What every column means, and the order of the tie-breaks, for ``spec``'s event."""
    n = "the players seated in the round" if spec.scoring is Scoring.FIELD else "the table"
    breaks = ", then ".join(
        "score (total game score)" if t is TieBreak.SCORE else "opponents (Buchholz)"
        for t in spec.tie_breaks
    )
    late = (
        "nothing for the rounds they missed"
        if str(spec.late_points) == "zero"
        else "each missed round's mean (what a bye earns)"
    )
    return {
        "place": "1 is first; players equal on rank points and every tie-break share a place "
        "(the next place is skipped)",
        "player": "the registered name",
        "rank_points": f"RP: the sum over complete rounds of R = 2(n - place + 1), n = {n}, ties "
        f"sharing the best place; a bye earns the round's mean (n + 1); a late entrant starts "
        f"with {late}",
        "score": "the total game score: the sum of the scores of the seats the player held",
        "opponents": "Opp. RP (Buchholz): the sum of the final rank points of every opponent "
        "met, once per meeting",
        "rounds": "complete rounds the player took part in (a bye counts)",
        "byes": "rounds the player sat out on a bye",
        "withdrawn": "whether the player has withdrawn (results kept)",
        "order": f"by rank points, then {breaks}",
    }


def standings_json(spec: EventSpec, after: int, rows: Sequence[Standing]) -> dict[str, Any]:
    """The standings after ``after`` rounds as JSON-ready data, with the legend."""
    return {
        "event": spec.name,
        "after": after,
        "tie_breaks": [str(t) for t in spec.tie_breaks],
        "legend": legend(spec),
        "standings": [asdict(s) for s in rows],
    }


def standings_csv(rows: Sequence[Standing]) -> str:
    """The standings as CSV text: a header of :data:`COLUMNS`, one line per player."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for s in rows:
        line = asdict(s)
        line["withdrawn"] = "true" if s.withdrawn else "false"
        line["score"] = repr(float(s.score))
        writer.writerow([line[c] for c in COLUMNS])
    return out.getvalue()


def rows_from_csv(text: str, name: str = "standings") -> list[dict[str, Any]]:
    """The rows of a standings CSV written by :func:`standings_csv`, typed as in the JSON;
    errors name the line."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(header) != COLUMNS:
        raise EventError(f"{name}, line 1: expected the header {','.join(COLUMNS)}")
    out = []
    for number, line in enumerate(reader, start=2):
        if len(line) != len(COLUMNS):
            raise EventError(f"{name}, line {number}: expected {len(COLUMNS)} fields")
        place, player, rp, score, opp, rounds, byes, withdrawn = line
        try:
            out.append(
                {
                    "place": int(place),
                    "player": player,
                    "rank_points": int(rp),
                    "score": float(score),
                    "opponents": int(opp),
                    "rounds": int(rounds),
                    "byes": int(byes),
                    "withdrawn": {"true": True, "false": False}[withdrawn],
                }
            )
        except (ValueError, KeyError):
            raise EventError(f"{name}, line {number}: a field is not of its type") from None
    return out
