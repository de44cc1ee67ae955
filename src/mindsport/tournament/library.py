"""Hand libraries: initial hands with their landlord-score distribution and GDI, on disk.

A :class:`HandLibrary` is an immutable collection of :class:`HandEntry` built from game logs
(:meth:`HandLibrary.from_records`) and stored as JSONL (a header line, then one hand a line) or
Parquet (needs pyarrow), chosen by the file suffix. Files are written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.files import write_atomically
from mindsport.tournament.distribution import score_distribution
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.gdi import _levels, equal_strength, grade_difficulty
from mindsport.tournament.records import group_scores

__all__ = ["FORMAT_NAME", "HandEntry", "HandLibrary"]

FORMAT_NAME = "mindsport.hand_library"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class HandEntry:
    """One initial hand: its landlord-score distribution, number of plays and optional GDI."""

    hand: str
    scores: tuple[float, ...]
    probs: tuple[float, ...]
    plays: int
    gdi: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.hand, str) or not self.hand:
            raise TournamentError(f"hand must be a non-empty string, got {self.hand!r}")
        values, probs = score_distribution(self.scores, self.probs)
        object.__setattr__(self, "scores", tuple(float(v) for v in values))
        object.__setattr__(self, "probs", tuple(float(p) for p in probs))
        if isinstance(self.plays, bool) or int(self.plays) != self.plays or self.plays < 1:
            raise TournamentError(
                f"plays of {self.hand} must be a positive integer: {self.plays!r}"
            )
        object.__setattr__(self, "plays", int(self.plays))
        if self.gdi is not None:
            g = tuple(float(x) for x in self.gdi)
            if not all(0.0 <= x <= 1.0 for x in g):
                raise TournamentError(f"gdi of {self.hand} must lie in [0, 1], got {list(g)}")
            object.__setattr__(self, "gdi", g)

    @property
    def distribution(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(scores, probs) as numpy arrays."""
        return np.array(self.scores), np.array(self.probs)

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "plays": self.plays,
            "scores": list(self.scores),
            "probs": list(self.probs),
            "gdi": None if self.gdi is None else list(self.gdi),
        }


@dataclass(frozen=True)
class HandLibrary:
    """Immutable set of hands (unique by hand string); ``levels`` are the GDI grades if any."""

    entries: tuple[HandEntry, ...]
    levels: tuple[float, ...] | None = None
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        entries = tuple(self.entries)
        object.__setattr__(self, "entries", entries)
        index: dict[str, int] = {}
        for i, entry in enumerate(entries):
            if not isinstance(entry, HandEntry):
                raise TournamentError(f"entries[{i}] is not a HandEntry: {entry!r}")
            if entry.hand in index:
                raise TournamentError(f"hand {entry.hand} appears twice in the library")
            index[entry.hand] = i
        object.__setattr__(self, "_index", index)
        if self.levels is not None:
            grades = tuple(float(x) for x in _levels(self.levels))
            object.__setattr__(self, "levels", grades)
            for entry in entries:
                if entry.gdi is not None and len(entry.gdi) != len(grades) - 1:
                    raise TournamentError(
                        f"gdi of {entry.hand} has {len(entry.gdi)} values; levels {list(grades)} "
                        f"need {len(grades) - 1}"
                    )

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_records(
        cls,
        records: Iterable[Any],
        min_plays: int = 50,
        levels: Sequence[float] | None = None,
    ) -> HandLibrary:
        """Library of the hands played at least ``min_plays`` times in (hand, score) records.

        With ``levels`` every hand also gets its GDI, each record counting as one table.

        >>> recs = [("[A][B][C]", s) for s in (2, 1, 1, -1, -2)]
        >>> lib = HandLibrary.from_records(recs, min_plays=5, levels=(-2, -1, 1, 2))
        >>> lib["[A][B][C]"].gdi
        (0.8, 0.6, 0.2)
        """
        if isinstance(min_plays, bool) or int(min_plays) != min_plays or min_plays < 1:
            raise TournamentError(f"min_plays must be a positive integer, got {min_plays!r}")
        entries = []
        for hand, scores in group_scores(records).items():
            if len(scores) < min_plays:
                continue
            values, counts = np.unique(np.asarray(scores, dtype=np.float64), return_counts=True)
            gdi = None
            if levels is not None:
                gdi = tuple(float(x) for x in grade_difficulty(scores, levels))
            entries.append(
                HandEntry(
                    hand=hand,
                    scores=tuple(float(v) for v in values),
                    probs=tuple(float(c) / len(scores) for c in counts),
                    plays=len(scores),
                    gdi=gdi,
                )
            )
        return cls(tuple(entries), None if levels is None else tuple(float(x) for x in levels))

    # -- access -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[HandEntry]:
        return iter(self.entries)

    def __contains__(self, hand: object) -> bool:
        return hand in self._index

    def __getitem__(self, hand: str) -> HandEntry:
        try:
            return self.entries[self._index[hand]]
        except KeyError:
            raise TournamentError(f"hand {hand} is not in the library") from None

    @property
    def hands(self) -> list[str]:
        return [e.hand for e in self.entries]

    def distributions(self) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
        """``{hand: (scores, probs)}`` for DIH ranking."""
        return {e.hand: e.distribution for e in self.entries}

    def gdis(self) -> dict[str, tuple[float, ...]]:
        """``{hand: GDI}`` for the hands that have one."""
        return {e.hand: e.gdi for e in self.entries if e.gdi is not None}

    def equal_strength(self, centre: Sequence[float], epsilon: float) -> HandLibrary:
        """Sub-library of the hands whose GDI is within ``epsilon`` of ``centre``, nearest first."""
        chosen = equal_strength(self.gdis(), centre, epsilon)
        return HandLibrary(tuple(self[h] for h, _ in chosen), self.levels)

    # -- storage ------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the library (``.parquet`` -> Parquet, anything else -> JSONL), atomically."""
        target = Path(path)
        if target.suffix.lower() == ".parquet":
            return write_atomically(target, self._write_parquet)
        return write_atomically(target, self._write_jsonl)

    def _header(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "levels": None if self.levels is None else list(self.levels),
        }

    def _write_jsonl(self, tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(json.dumps(self._header()) + "\n")
            for entry in self.entries:
                out.write(json.dumps(entry.to_json()) + "\n")

    def _write_parquet(self, tmp: Path) -> None:
        pa, pq = _pyarrow()
        table = pa.table(
            {
                "hand": pa.array([e.hand for e in self.entries], pa.string()),
                "plays": pa.array([e.plays for e in self.entries], pa.int64()),
                "scores": pa.array([list(e.scores) for e in self.entries], pa.list_(pa.float64())),
                "probs": pa.array([list(e.probs) for e in self.entries], pa.list_(pa.float64())),
                "gdi": pa.array(
                    [None if e.gdi is None else list(e.gdi) for e in self.entries],
                    pa.list_(pa.float64()),
                ),
            }
        ).replace_schema_metadata({"mindsport": json.dumps(self._header())})
        pq.write_table(table, tmp)

    @classmethod
    def load(cls, path: str | Path) -> HandLibrary:
        """Read a library written by :meth:`save`; errors name the file and line or row."""
        source = Path(path)
        if not source.exists():
            raise TournamentError(f"{source}: no such hand library")
        if source.suffix.lower() == ".parquet":
            return cls._load_parquet(source)
        return cls._load_jsonl(source)

    @classmethod
    def _load_jsonl(cls, source: Path) -> HandLibrary:
        lines = source.read_text(encoding="utf-8").splitlines()
        if not lines:
            raise TournamentError(f"{source}: empty file, not a hand library")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            raise TournamentError(f"{source}, line 1: not a {FORMAT_NAME} header")
        entries = []
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            where = f"{source}, line {number}"
            try:
                entries.append(_entry(json.loads(line), where))
            except json.JSONDecodeError as exc:
                raise TournamentError(f"{where}: invalid JSON ({exc.msg})") from None
        return cls(tuple(entries), header.get("levels"))

    @classmethod
    def _load_parquet(cls, source: Path) -> HandLibrary:
        _, pq = _pyarrow()
        try:
            table = pq.read_table(source)
        except Exception as exc:  # pyarrow raises its own error types
            raise TournamentError(f"{source}: not a Parquet hand library ({exc})") from None
        meta = (table.schema.metadata or {}).get(b"mindsport")
        header = json.loads(meta) if meta else {}
        if header.get("format") != FORMAT_NAME:
            raise TournamentError(f"{source}: Parquet file without a {FORMAT_NAME} header")
        rows = table.to_pylist()
        entries = [_entry(row, f"{source}, row {i}") for i, row in enumerate(rows)]
        return cls(tuple(entries), header.get("levels"))


def _entry(obj: Any, where: str) -> HandEntry:
    if not isinstance(obj, dict):
        raise TournamentError(f"{where}: expected an object, got {obj!r}")
    missing = [k for k in ("hand", "plays", "scores", "probs") if k not in obj]
    if missing:
        raise TournamentError(f"{where}: missing field(s) {', '.join(missing)}")
    try:
        gdi = obj.get("gdi")
        return HandEntry(
            hand=obj["hand"],
            scores=tuple(obj["scores"]),
            probs=tuple(obj["probs"]),
            plays=obj["plays"],
            gdi=None if gdi is None else tuple(gdi),
        )
    except (TournamentError, TypeError) as exc:
        raise TournamentError(f"{where}: {exc}") from None


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow is an optional extra
        raise TournamentError(
            "Parquet needs pyarrow: pip install 'mindsport[parquet]' (or use a .jsonl file)"
        ) from None
    return pa, pq
