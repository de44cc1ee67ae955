"""Game-log records for tournament science: (initial hand, landlord score) pairs.

The seeds' log shape is one game per record: the three initial hands written
``"[landlord][farmer1][farmer2]"`` and the landlord's score. :func:`read_hand_scores` reads

* JSONL, one object a line, with the hand under ``deal``, ``hand``, ``initial_hand`` or
  ``hands`` (a list of the three hands) and the score under ``landlord_score`` or ``score``
  (a list of seat scores is read as landlord first); or a JSON array ``["[..][..][..]", 2]``;
* plain text, one game a line: the hand and the score separated by a comma, a tab or spaces.

Blank lines and lines starting with ``#`` are skipped. Bad lines raise an error naming the file
and line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.tournament.errors import TournamentError

__all__ = ["HandScore", "group_scores", "read_hand_scores", "score_distributions"]

HandScore = tuple[str, float]

_HAND_KEYS = ("deal", "hand", "initial_hand", "hands")
_SCORE_KEYS = ("landlord_score", "score", "scores")


def _normalise_hand(value: Any, where: str) -> str:
    if (
        isinstance(value, list | tuple)
        and len(value) == 3
        and all(isinstance(h, str) for h in value)
    ):
        value = "".join(f"[{h.strip().strip('[]')}]" for h in value)
    if not isinstance(value, str) or not value.strip():
        raise TournamentError(
            f"{where}: the initial hand must be a non-empty string, got {value!r}"
        )
    return "".join(value.split())


def _score(value: Any, where: str) -> float:
    if isinstance(value, list | tuple) and value:
        value = value[0]
    if isinstance(value, bool):
        raise TournamentError(f"{where}: the landlord score must be a number, got {value!r}")
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise TournamentError(
            f"{where}: the landlord score must be a number, got {value!r}"
        ) from None
    if not math.isfinite(score):
        raise TournamentError(f"{where}: the landlord score must be finite, got {value!r}")
    return score


def _record(item: Any, where: str) -> HandScore:
    if isinstance(item, Mapping):
        hand_key = next((k for k in _HAND_KEYS if k in item), None)
        score_key = next((k for k in _SCORE_KEYS if k in item), None)
        if hand_key is None or score_key is None:
            raise TournamentError(
                f"{where}: a record needs a hand ({'/'.join(_HAND_KEYS)}) and a landlord score "
                f"({'/'.join(_SCORE_KEYS)}); got keys {sorted(item)}"
            )
        return _normalise_hand(item[hand_key], where), _score(item[score_key], where)
    if isinstance(item, list | tuple) and len(item) == 2:
        return _normalise_hand(item[0], where), _score(item[1], where)
    raise TournamentError(f"{where}: expected (hand, landlord score), got {item!r}")


def _parse_line(line: str, where: str) -> HandScore:
    text = line.strip()
    if text.startswith("{") or (text.startswith("[") and '"' in text):
        return _record(json.loads(text), where)
    for sep in (",", "\t"):
        if sep in text:
            hand, _, score = text.rpartition(sep)
            return _record((hand, score.strip()), where)
    parts = text.split()
    if len(parts) < 2:
        raise TournamentError(f"{where}: expected a hand and a landlord score, got {text!r}")
    return _record(("".join(parts[:-1]), parts[-1]), where)


def read_hand_scores(path: str | Path) -> list[HandScore]:
    """Read (hand, landlord score) records from a JSONL or plain-text game log."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise TournamentError(f"{file}: cannot read the game log ({exc.strerror})") from None
    out: list[HandScore] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{file}, line {number}"
        try:
            out.append(_parse_line(line, where))
        except json.JSONDecodeError as exc:
            raise TournamentError(f"{where}: invalid JSON ({exc.msg})") from None
    return out


def group_scores(records: Iterable[Any]) -> dict[str, list[float]]:
    """Landlord scores per initial hand, hands in order of first appearance."""
    grouped: dict[str, list[float]] = {}
    for index, item in enumerate(records):
        hand, score = _record(item, f"records[{index}]")
        grouped.setdefault(hand, []).append(score)
    return grouped


def score_distributions(
    records: Iterable[Any], min_plays: int = 50
) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Empirical landlord-score distribution of every hand played at least ``min_plays`` times.

    ``records`` are (hand, landlord score) pairs or mappings (see :mod:`.records`). The DIH paper
    keeps hands with more than 50 plays. Returns ``{hand: (scores ascending, probabilities)}``.

    >>> d = score_distributions([("[A][B][C]", 1), ("[A][B][C]", -1), ("[A][B][C]", 1)], 2)
    >>> d["[A][B][C]"][0].tolist(), d["[A][B][C]"][1].round(4).tolist()
    ([-1.0, 1.0], [0.3333, 0.6667])
    """
    if isinstance(min_plays, bool) or int(min_plays) != min_plays or min_plays < 1:
        raise TournamentError(f"min_plays must be a positive integer, got {min_plays!r}")
    out: dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = {}
    for hand, scores in group_scores(records).items():
        if len(scores) < min_plays:
            continue
        values, counts = np.unique(np.asarray(scores, dtype=np.float64), return_counts=True)
        out[hand] = (values, counts / counts.sum())
    return out
