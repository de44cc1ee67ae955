"""The simulated mahjong leagues of ``mahjong_ratings.py``: who plays whom, on which walls, and the
cache of their games.

A league is graded bots (``level:N``) at tables of four drawn at random, under one of two
dealings (``random`` walls and seats per game, or ``duplicate``: one walls played in the four
cyclic seat rotations). Every table's generator is named by (seed, dealing, game), so a league is
reproduced whatever the workers; its games are cached as JSON Lines (one game a line) so that a
rerun resumes where the cache ends.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mindsport.games.many import Table
from mindsport.mahjong import Walls, duplicate_tables, placements
from mindsport.tournament.executors import ProcessExecutor, SerialExecutor, task_rng
from mindsport.tournament.runner import GameSpec, play_tables

DEALINGS = ("random", "duplicate")
_DEALING_KEY = {"random": 0, "duplicate": 1}
GAME = "mahjong-east"
CHECKPOINTS = (100, 200, 500, 1000, 2000, 5000, 10000)


# ---------------------------------------------------------------- the league and its games


def bot_levels(bots: int) -> list[int]:
    """``bots`` distinct levels spread evenly over 0..100 (the true order: higher is better).

    >>> bot_levels(6)
    [0, 20, 40, 60, 80, 100]
    """
    if not 4 <= bots <= 101:
        raise ValueError(f"--bots: a league of 4 to 101 distinct levels, got {bots}")
    return [round(float(x)) for x in np.linspace(0, 100, bots)]


def player_id(level: int) -> str:
    return f"lv{level:03d}"


def schedule(levels: Sequence[int], dealing: str, seed: int, games: int) -> list[Table]:
    """The first ``games`` tables of the league (seed, dealing): four distinct players drawn at
    random per game (random walls, random seats) or per duplicate set (one walls, the four
    rotations). The draws depend only on (seed, dealing), so a longer league begins with the
    tables of a shorter one."""
    code = _DEALING_KEY[dealing]
    rng = task_rng(seed, code, 1_000_000_000)  # the schedule's own stream, apart from the games'
    specs = [f"level:{lv}" for lv in levels]
    tables: list[Table] = []
    index = 0
    while len(tables) < games:
        four = [specs[i] for i in rng.choice(len(specs), size=4, replace=False)]
        walls = Walls(int(rng.integers(0, 2**63)))
        if dealing == "random":
            tables.append(Table(walls, tuple(four), (code, index)))
        else:
            tables.extend(duplicate_tables(walls, four, (code, index)))
        index += 1
    return tables[:games]


def cache_path(cache: Path, bots: int, seed: int, dealing: str) -> Path:
    return cache / f"{GAME}_bots{bots}_seed{seed}_{dealing}.jsonl"


def read_cache(path: Path) -> list[dict[str, Any]]:
    """The games cached in ``path`` (one JSON object a line), in order; a torn last line (a run
    stopped mid-write) is dropped, any other bad line is an error naming it."""
    if not path.exists():
        return []
    games: list[dict[str, Any]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise SystemExit(f"{path}, line {number}: not JSON ({exc})") from exc
        if row.get("game") != len(games) or len(row.get("players", ())) != 4:
            raise SystemExit(f"{path}, line {number}: expected game {len(games)} with 4 players")
        games.append(row)
    return games


def _game_rows(tables: Sequence[Table], returns: np.ndarray, first: int) -> list[dict[str, Any]]:
    rows = []
    for i, (table, ret) in enumerate(zip(tables, returns, strict=True)):
        # returns are final points / 1000 - 25 (integers in points); places by points, ties to
        # the seat nearer the first dealer (as on Tenhou; the built-in bots never forfeit)
        points = [round(25_000 + 1000 * float(r)) for r in ret]
        rows.append(
            {
                "game": first + i,
                "players": [player_id(int(str(b).split(":")[1])) for b in table.bots],
                "points": points,
                "places": list(placements(points)),
                "walls": table.chance.seed,
                "set": table.key[1],
            }
        )
    return rows


def _repair(path: Path) -> int:
    """The number of games cached in ``path``, after dropping a torn last line (a run stopped
    mid-write) so that the games appended next start on a line of their own."""
    games = read_cache(path)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if text.count("\n") != len(games) or not text.endswith("\n"):
        path.write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    return len(games)


def simulate(args: argparse.Namespace, levels: list[int], seeds: list[int]) -> None:
    """Fill the cache to ``args.games`` games per (seed, dealing), ``args.block`` games at a
    time to the shortest league, so that every league grows at the same pace (a run stopped
    early leaves all of them usable at nearly the same length)."""
    from rich.progress import Progress

    args.cache.mkdir(parents=True, exist_ok=True)
    leagues = [(s, d) for s in seeds for d in DEALINGS]
    have = {k: _repair(cache_path(args.cache, len(levels), *k)) for k in leagues}
    todo = sum(max(0, args.games - n) for n in have.values())
    if todo == 0:
        return
    spec = GameSpec(GAME)
    executor = ProcessExecutor(args.workers) if args.workers > 1 else SerialExecutor()
    start = time.perf_counter()
    with executor as pool, Progress(transient=False) as progress:
        task = progress.add_task("simulating games", total=todo)
        while any(n < args.games for n in have.values()):
            key = min(leagues, key=lambda k: have[k])  # the shortest league first
            n = have[key]
            upto = min(args.games, n + args.block)
            tables = schedule(levels, key[1], key[0], upto)[n:]
            chunk = max(1, math.ceil(len(tables) / max(1, args.workers)))
            returns = play_tables(spec, tables, key[0], executor=pool, chunk=chunk)
            path = cache_path(args.cache, len(levels), *key)
            with path.open("a", encoding="utf-8") as out:
                for row in _game_rows(tables, returns, n):
                    out.write(json.dumps(row) + "\n")
            have[key] = upto
            progress.advance(task, len(tables))
    took = time.perf_counter() - start
    print(f"simulated {todo} games in {took:.0f} s ({todo / took:.2f} games/s)")
