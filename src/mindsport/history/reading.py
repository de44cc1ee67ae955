"""One reader for every source of matches: the project's match files and the public data sets.

>>> import tempfile, os
>>> from mindsport.history import Match, write_matches
>>> folder = tempfile.TemporaryDirectory()
>>> path = os.path.join(folder.name, "games.csv")
>>> write_matches(path, [Match("g1", 1, [["ann"], ["bob"]], [0, 1])])
1
>>> read_matches(path)[0].teams, read_matches(path, format="csv")[0].ranks
((('ann',), ('bob',)), (0, 1))
>>> folder.cleanup()
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mindsport.errors import NotFoundError
from mindsport.history.importers import FILE_FORMATS, import_matches
from mindsport.history.io import read_located
from mindsport.match import Match

__all__ = ["read_matches"]


def read_matches(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], format: str | None = None
) -> list[Match]:
    """All matches of a match file (JSONL, CSV long format, Parquet: in file order) or of a
    public data set in its published form (the ``tennis_atp`` folder or some of its files, Halo
    2's ``HeadToHead.csv``, TI4's ``ti4.csv``: in time order, see
    :mod:`mindsport.history.importers`).

    ``format`` names the file format (``"jsonl"``, ``"csv"``, ``"parquet"``) or the data set
    (``"atp"``, ``"halo"``, ``"ti4"``); by default it is detected from the name and, for CSV
    files, the first line. A list of paths is read as ATP files. Match files are read on the
    column path when they allow it (:mod:`mindsport.history.io`)."""
    if isinstance(path, str | os.PathLike):
        if not os.path.exists(path):
            raise NotFoundError(f"{os.fspath(path)}: no such match file")
        if format in FILE_FORMATS:
            return read_located(path, format)[1]  # type: ignore[arg-type]
    return import_matches(path, format).matches
