"""Game logs: JSONL (one game a line, full move list) and the seeds' short shape.

JSONL fields: ``deal`` (``[landlord][farmer1][farmer2]``), ``moves`` (``[seat, "kind:cards"]`` or
``[seat, "pass"]``), ``winner`` (seat), ``winner_side``, ``bombs``, ``rockets``, ``spring``,
``scoring``, ``call``, ``doubles`` (``[farmer1, farmer2]``: the doublings on each farmer's
stake, 0 to 2; a single number in older logs, read as that number for both farmers), ``scores``
(landlord, farmer1, farmer2),
``landlord_score`` and, for a game ended by a forfeit, ``forfeit`` (``player``: the seat,
``reason``: ``timeout``, ``crash`` or ``illegal``, ``detail``).

The seeds' shape (what tournament tools use to compute DIH/GDI) is one game a line:
``[landlord][farmer1][farmer2]<TAB>landlord_score``.

Files are written atomically (a temporary file in the same folder, then ``os.replace``): a failed
write leaves nothing half-written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import Move, parse_move
from mindsport.doudizhu.record import GameRecord
from mindsport.doudizhu.scoring import check_doubles
from mindsport.errors import MindsportError
from mindsport.files import write_atomically
from mindsport.games.referee import Forfeit

__all__ = [
    "LogError",
    "read_logs",
    "read_score_table",
    "record_from_json",
    "record_to_json",
    "write_logs",
    "write_score_table",
]


class LogError(MindsportError):
    """A log file line that cannot be read (the message names file, line and field)."""


def _move_text(move: Move | None) -> str:
    return "pass" if move is None else f"{move.kind.value}:{move.cards}"


def record_to_json(record: GameRecord) -> dict[str, Any]:
    """The JSON object of one game."""
    return {
        "deal": str(record.deal),
        "moves": [[seat, _move_text(m)] for seat, m in record.moves],
        "winner": record.winner,
        "winner_side": record.winner_side,
        "bombs": record.bombs,
        "rockets": record.rockets,
        "spring": record.spring,
        "scoring": record.scoring,
        "call": record.call,
        "doubles": list(record.doubles),
        "scores": list(record.scores),
        "landlord_score": record.landlord_score,
        **({} if record.forfeit is None else {"forfeit": record.forfeit.to_json()}),
    }


def _doubles(value: Any) -> tuple[int, int]:
    """The ``doubles`` of a log line: ``[farmer1, farmer2]``, or one number (older logs, when
    every doubling counted for both farmers)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    try:
        return check_doubles(tuple(value) if isinstance(value, list) else value)
    except MindsportError as exc:
        raise LogError(str(exc)) from None


def record_from_json(obj: dict[str, Any]) -> GameRecord:
    """Inverse of :func:`record_to_json`."""
    moves = tuple((int(seat), parse_move(text)) for seat, text in obj["moves"])
    scores = tuple(float(x) for x in obj["scores"])
    if len(scores) != 3:
        raise LogError(f"scores {obj['scores']!r} must have 3 entries")
    return GameRecord(
        deal=Deal.parse(obj["deal"]),
        moves=moves,
        winner=int(obj["winner"]),
        bombs=int(obj["bombs"]),
        rockets=int(obj["rockets"]),
        spring=bool(obj["spring"]),
        scores=(scores[0], scores[1], scores[2]),
        scoring=str(obj.get("scoring", "linear")),
        call=int(obj.get("call", 1)),
        doubles=_doubles(obj.get("doubles", 0)),
        forfeit=None if obj.get("forfeit") is None else Forfeit.from_json(obj["forfeit"]),
    )


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` (one per line) to ``path`` whole or not at all."""

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                fh.write("\n")

    write_atomically(path, write)


def write_logs(path: str | os.PathLike[str], records: Iterable[GameRecord]) -> None:
    """Write games as JSONL, atomically."""
    _write_lines(
        Path(path), (json.dumps(record_to_json(r), separators=(",", ":")) for r in records)
    )


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if line.strip():
                    yield number, line
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror}") from None


def read_logs(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Read a JSONL game log written by :func:`write_logs`."""
    out = []
    for number, line in _lines(Path(path)):
        try:
            obj = json.loads(line)
            out.append(record_from_json(obj))
        except json.JSONDecodeError as exc:
            raise LogError(f"{path}, line {number}: not JSON ({exc.msg})") from None
        except KeyError as exc:
            raise LogError(f"{path}, line {number}: missing field {exc.args[0]!r}") from None
        except (ValueError, TypeError) as exc:
            raise LogError(f"{path}, line {number}: {exc}") from None
    return out


def write_score_table(path: str | os.PathLike[str], records: Iterable[GameRecord]) -> None:
    """Write the seeds' shape: ``[landlord][farmer1][farmer2]<TAB>landlord score`` per line."""
    _write_lines(Path(path), (f"{r.deal}\t{r.landlord_score:g}" for r in records))


def read_score_table(path: str | os.PathLike[str]) -> list[tuple[Deal, float]]:
    """Read ``[landlord][farmer1][farmer2]<TAB>landlord score`` lines."""
    out = []
    for number, line in _lines(Path(path)):
        parts = line.split()
        if len(parts) != 2:
            raise LogError(f"{path}, line {number}: expected '<deal> <landlord score>'")
        try:
            out.append((Deal.parse(parts[0]), float(parts[1])))
        except ValueError as exc:
            raise LogError(f"{path}, line {number}: {exc}") from None
    return out
