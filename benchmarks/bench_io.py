"""Reading match files: ``read_matches`` beside the raw readers of the same file, in one run.

A synthetic history (seeded): 1,000,000 one-against-one matches among 50,000 players (``--matches``
changes the count), written once by ``write_matches`` as Parquet, CSV and JSON Lines. Each file
is read by

* ``read_matches`` (the column path: whole columns checked at once, ``Match`` objects out, one
  string object per player);
* its baseline, the bare parse of the same file with nothing checked and nothing built:
  ``pyarrow.parquet.read_table``, ``pyarrow.csv.read_csv``, and for JSON Lines the standard
  library's ``json.loads`` of every line (and ``orjson.loads``, when installed);
* the row path (``iter_matches``, each row parsed and checked in turn, as every read went before
  the column path) on the first ``--row-matches`` matches, for scale.

Each reading is timed ``--repeat`` times and the best is kept; the reads run in one process, so
the garbage collector's work on what a read leaves behind is counted where it falls. Reports
matches per second and the ratio to the baseline, with the load average (the machine is
shared: ratios are what to compare).

    python benchmarks/bench_io.py [--matches 1000000] [--players 50000] [--repeat 3]
        [--row-matches 50000]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import tempfile
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from mindsport.history import Match, iter_matches, read_matches, write_matches


def history(n: int, n_players: int, seed: int = 0) -> list[Match]:
    """``n`` one-against-one matches of distinct random players, numeric times."""
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, n_players, (n, 2))
    same = pairs[:, 0] == pairs[:, 1]
    pairs[same, 1] = (pairs[same, 1] + 1) % n_players
    winner_first = rng.random(n) < 0.5
    names = [f"p{i}" for i in range(n_players)]
    return [
        Match(f"m{i}", 1_600_000_000 + i, [[names[a]], [names[b]]], [0, 1] if w else [1, 0])
        for i, ((a, b), w) in enumerate(zip(pairs.tolist(), winner_first.tolist(), strict=True))
    ]


def best_of(repeat: int, run: Callable[[], Any]) -> float:
    """The shortest of ``repeat`` timed runs (what a run returns is dropped before the next)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
        del out
        gc.collect()
    return best


def json_lines(path: Path, loads: Callable[[Any], Any], binary: bool) -> list[Any]:
    with open(path, "rb" if binary else "r", encoding=None if binary else "utf-8") as fh:
        return [loads(line) for line in fh]


def baselines(path: Path) -> dict[str, Callable[[], Any]]:
    """The bare parses of a file, by name."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return {"pyarrow.parquet.read_table": lambda: pq.read_table(path)}
    if path.suffix == ".csv":
        import pyarrow.csv as pcsv

        return {"pyarrow.csv.read_csv": lambda: pcsv.read_csv(path)}
    out: dict[str, Callable[[], Any]] = {
        "json.loads per line": lambda: json_lines(path, json.loads, False)
    }
    try:
        import orjson
    except ImportError:
        return out
    out["orjson.loads per line"] = lambda: json_lines(path, orjson.loads, True)
    return out


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--row-matches", type=int, default=50_000)
    args = parser.parse_args()
    console = Console(width=140)
    n = args.matches
    console.print(f"{n:,} matches among {args.players:,} players; load average {load()}")
    matches = history(n, args.players)
    table = Table(title=f"Reading {n:,} matches (matches per second; ratio: to the baseline)")
    for col in ("file", "read_matches", "baseline", "baseline rate", "ratio", "row path"):
        table.add_column(col, justify="right")
    with tempfile.TemporaryDirectory() as folder:
        for ext in ("parquet", "csv", "jsonl"):
            path = Path(folder) / f"history.{ext}"
            write_matches(path, matches)
            got = read_matches(path)
            assert got == matches, f"{ext}: read back differently"
            players = {p for m in got for t in m.teams for p in t}
            assert len({id(p) for m in got for t in m.teams for p in t}) == len(players)
            del got
            ours = n / best_of(args.repeat, lambda p=path: read_matches(p))
            k = min(n, args.row_matches)
            row = k / best_of(1, lambda p=path, k=k: list(islice(iter_matches(p), k)))
            for name, run in baselines(path).items():
                base = n / best_of(args.repeat, run)
                table.add_row(
                    f"{ext} ({path.stat().st_size / 2**20:,.0f} MiB)", f"{ours:,.0f}", name,
                    f"{base:,.0f}", f"{ours / base:.2f}", f"{row:,.0f}",
                )  # fmt: skip
            console.print(f"  {ext}: done (load {load()})")
    console.print(table)
    console.print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
