"""The options and parsers the ``mindsport`` command groups share, written once.

* the database option (``--db``) and the store it opens;
* output paths (``--out``, ``--plot``, ...), checked before any work: a file that can be written,
  a folder that is created and takes files;
* comma-separated lists: of numbers (``-2,-1,1,2``), of bot levels, of counts, of names
  (``a,b,c``), of bot specs (split by :func:`mindsport.games.specs.split_specs`, so that a
  ``cmd:"..."`` command may hold commas); ``NAME=VALUE`` settings; the score groups
  (``L,F1,F2;L,F1,F2``) and seatings (``a,b,c;d,e,f``) of an event's tables.

A value that cannot be read raises :class:`OptionError` naming the option and the text; the error
boundary (:mod:`mindsport.cli.boundary`) prints it. This module imports only typer; the store and
the games load when a command runs.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from mindsport.errors import FileAccessError, MindsportError, file_error

if TYPE_CHECKING:
    from mindsport.store import Store

__all__ = [
    "DbOption",
    "OptionError",
    "check_output_file",
    "check_output_folder",
    "open_store",
    "output_file",
    "output_folder",
    "parse_bot_specs",
    "parse_counts",
    "parse_levels",
    "parse_names",
    "parse_numbers",
    "parse_scores",
    "parse_settings",
    "parse_tables",
]


class OptionError(MindsportError):
    """An option or argument of the command line that cannot be read."""


# -- the database ------------------------------------------------------------------------------

DbOption = typer.Option(
    None,
    "--db",
    help="Database URL or SQLite file [env MINDSPORT_DATABASE_URL; default ./mindsport.db].",
)


def open_store(db: str | None, *, create: bool) -> Store:
    """The store at ``db``; ``create=False`` for commands that only read (a missing database
    is an error, not created)."""
    from mindsport.store import Store

    return Store(db, create=create)


# -- output paths, checked before any work -----------------------------------------------------


def _probe(folder: Path, label: str) -> None:
    """Create and remove a file in ``folder``: the one sure test that it takes files."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mindsport-probe-", dir=folder)
    except OSError as exc:
        raise FileAccessError(f"{label}: cannot write there: {file_error(exc, folder)}") from None
    os.close(fd)
    os.unlink(tmp)


def check_output_file(path: Path, label: str = "output") -> None:
    """Raise :class:`~mindsport.errors.FileAccessError` unless ``path`` can be written: its
    folder exists and takes files, and it is not a folder itself."""
    if path.is_dir():
        raise FileAccessError(f"{label} {str(path)!r} is a folder; give a file name")
    folder = path.parent
    if not folder.exists():
        raise FileAccessError(
            f"{label} {str(path)!r}: folder {str(folder)!r} does not exist (create it first)"
        )
    if not folder.is_dir():
        raise FileAccessError(f"{label} {str(path)!r}: {str(folder)!r} is not a folder")
    if path.exists() and not os.access(path, os.W_OK):
        raise FileAccessError(f"{label} {str(path)!r} is not writable")
    _probe(folder, f"{label} {str(path)!r}")


def check_output_folder(path: Path, label: str = "output") -> None:
    """Create the folder ``path`` (and its parents) if missing and check that it takes files;
    raise :class:`~mindsport.errors.FileAccessError` if it cannot."""
    if path.exists() and not path.is_dir():
        raise FileAccessError(f"{label} {str(path)!r} exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileAccessError(
            f"{label}: cannot create the folder: {file_error(exc, path)}"
        ) from None
    _probe(path, f"{label} {str(path)!r}")


def _label(param: typer.CallbackParam) -> str:
    return max(param.opts, key=len) if param.opts else param.name or "output"


def output_file(ctx: typer.Context, param: typer.CallbackParam, value: Path | None) -> Path | None:
    """Option callback: the option names a file to write (checked before the command runs)."""
    if value is not None and not ctx.resilient_parsing:
        check_output_file(value, _label(param))
    return value


def output_folder(
    ctx: typer.Context, param: typer.CallbackParam, value: Path | None
) -> Path | None:
    """Option callback: the option names a folder to write files in (created, checked)."""
    if value is not None and not ctx.resilient_parsing:
        check_output_folder(value, _label(param))
    return value


# -- comma-separated lists ---------------------------------------------------------------------


def parse_numbers(text: str, option: str) -> list[float]:
    """``"-2, -1,1,2"`` -> ``[-2.0, -1.0, 1.0, 2.0]`` (spaces and empty items are ignored; at
    least one number)."""
    try:
        values = [float(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise OptionError(f"{option} must be comma-separated numbers, got {text!r}") from None
    if not values:
        raise OptionError(f"{option} is empty")
    return values


def parse_levels(text: str, option: str) -> list[int]:
    """Bot levels, whole numbers from 0 to 100: ``"0,50,100"`` -> ``[0, 50, 100]``."""
    values = parse_numbers(text, option)
    if not all(v.is_integer() and 0 <= v <= 100 for v in values):
        raise OptionError(f"{option} must be bot levels between 0 and 100, got {text!r}")
    return [int(v) for v in values]


def parse_counts(text: str, option: str) -> list[int]:
    """Counts of one or more: ``"10,20,30"`` -> ``[10, 20, 30]``."""
    values = parse_numbers(text, option)
    if not all(v.is_integer() and v >= 1 for v in values):
        raise OptionError(f"{option} must be positive integers, got {text!r}")
    return [int(v) for v in values]


def parse_names(text: str, option: str, kind: str = "names") -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]`` (empty items are ignored; at least one name;
    ``kind`` says what the names are in the error)."""
    found = [p.strip() for p in text.split(",") if p.strip()]
    if not found:
        raise OptionError(f"{option}: expected comma-separated {kind}, got {text!r}")
    return found


def parse_bot_specs(text: str, option: str, *, bare_levels: bool = False) -> list[str]:
    """Bot specs, comma-separated (``strong,level:40,cmd:"python bot.py --x 1,2"``), split by
    :func:`mindsport.games.specs.split_specs`; ``bare_levels``: a bare number ``N`` is the
    spec ``level:N``."""
    from mindsport.games.specs import SpecError, split_specs

    try:
        specs = split_specs(text)
    except SpecError as exc:
        raise OptionError(f"{option}: {exc}") from None
    if bare_levels:
        specs = [f"level:{s}" if s.lstrip("-").isdigit() else s for s in specs]
    return specs


def parse_settings(items: Iterable[str], option: str) -> list[tuple[str, str]]:
    """``["tau=0.5", "k = 32"]`` -> ``[("tau", "0.5"), ("k", " 32")]`` (names stripped; the
    values are parsed by whoever knows their types)."""
    out = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise OptionError(f"{option} {item!r}: expected NAME=VALUE")
        out.append((key.strip(), value))
    return out


# -- an event's tables -------------------------------------------------------------------------


def parse_scores(text: str) -> list[list[float]]:
    """``"2,-1,-1;-2,1,1"`` -> ``[[2, -1, -1], [-2, 1, 1]]``: one group per board, the landlord's,
    farmer 1's and farmer 2's score (errors name the board)."""
    rows = []
    for b, group in enumerate(text.split(";"), start=1):
        try:
            rows.append([float(x) for x in group.split(",")])
        except ValueError:
            raise OptionError(
                f"scores {text!r}: board {b} ({group!r}) is not three numbers L,F1,F2"
            ) from None
    return rows


def parse_tables(text: str) -> list[list[str]]:
    """``"a,b,c;d,e,f"`` -> ``[["a", "b", "c"], ["d", "e", "f"]]`` (an empty seat stays, for
    the event to refuse by name)."""
    return [[p.strip() for p in t.split(",")] for t in text.split(";") if t.strip()]
