"""Replaying long histories: mindsport beside ``trueskill`` and ``openskill``, in one run.

Synthetic histories (seeded): 1,000,000 one-against-one matches among 100,000 players,
300,000 four-player free-for-all matches among 100,000 players and, for a small league whose
players stay in the caches, 200,000 one-against-one matches among 1,000 players (``--scale``
shrinks all three).

1. ``replay(TrueSkill(), matches)`` from a list of ``Match`` objects, predictions and history
   kept (the documented way), with ids shared (one string per player, as ``read_matches``
   makes them) and with ids built per appearance by the caller (``f"p{i}"`` each time), beside
   the peers rating the same matches one by one with their
   object APIs (a subsample: their cost per match does not depend on the history's length).
2. The column path: the same matches as a long table (one row per player, the CSV long format)
   turned into a block (``block_from_long_table``) and fed to the compiled replayer, predictions
   and history kept.
3. The other registered models: ``replay`` (compiled replayer) against ``replay(...,
   fast=False)`` (``model.rate`` match by match) on a subsample, Match objects in.

Beside (1) stands a yardstick for encoders that start from ``Match`` objects: a bare Python
loop that does nothing but look up every player of every match in a dict of the ids (string ids
spread over 100,000 players miss the caches; on a 2-core test machine one look-up cost ~500 ns).
It was the ceiling of an encoder with a dict look-up per id; ``PlayerIndex`` now finds ids that
are its own key objects by identity, many at once, so ``replay`` can come close to it or pass it.

Reports matches per second, the ratios, the load average and the peak memory of the run.

    python benchmarks/bench_replay.py [--scale 1.0] [--peer-matches 20000]
        [--object-matches 5000] [--skip-models]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from mindsport.history import Match, replay
from mindsport.rating import build_model, model_names
from mindsport.rating.replay.blocks import MatchBlock, PlayerIndex, block_from_long_table

SHAPES = {
    "1v1": (2, 1_000_000, 100_000),
    "ffa4": (4, 300_000, 100_000),
    "1v1, 1k players": (2, 200_000, 1_000),
}


def players_of(rng: np.random.Generator, n: int, k: int, n_players: int) -> np.ndarray:
    """``n`` matches of ``k`` distinct players each (rows), and a random finishing order."""
    players = rng.integers(0, n_players, (n, k))
    for i in range(1, k):  # distinct players in a match: shift the rare duplicates
        for j in range(i):
            dup = players[:, i] == players[:, j]
            players[dup, i] = (players[dup, i] + 1 + j) % n_players
    return players


def history(rng: np.random.Generator, n: int, k: int, n_players: int) -> tuple[Any, ...]:
    players = players_of(rng, n, k, n_players)
    ranks = rng.permuted(np.tile(np.arange(k), (n, 1)), axis=1)
    return players, ranks


def as_matches(players: np.ndarray, ranks: np.ndarray) -> list[Match]:
    """Matches whose ids are one string object per player (as ``read_matches`` makes them)."""
    names = [f"p{i}" for i in range(int(players.max()) + 1)]
    return [
        Match(f"m{i}", float(i), [[names[p]] for p in row], rk)
        for i, (row, rk) in enumerate(zip(players.tolist(), ranks.tolist(), strict=True))
    ]


def as_built_matches(players: np.ndarray, ranks: np.ndarray) -> list[Match]:
    """The same matches with ids built per appearance (``f"p{i}"`` each time: equal strings,
    different objects), as from a database cursor or a DataFrame."""
    return [
        Match(f"m{i}", float(i), [[f"p{p}"] for p in row], rk)
        for i, (row, rk) in enumerate(zip(players.tolist(), ranks.tolist(), strict=True))
    ]


def per_second(n: int, run: Any, repeat: int = 1) -> float:
    best = min(_timed(run) for _ in range(repeat))
    return n / best


def _timed(run: Any) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def time_trueskill(players: np.ndarray, ranks: np.ndarray) -> float:
    import trueskill

    env = trueskill.TrueSkill()
    ratings: dict[int, Any] = {}

    def run() -> None:
        for row, rk in zip(players.tolist(), ranks.tolist(), strict=True):
            groups = [{p: ratings.get(p) or env.create_rating()} for p in row]
            for g in env.rate(groups, ranks=rk):
                ratings.update(g)

    return per_second(len(players), run)


def time_openskill(players: np.ndarray, ranks: np.ndarray) -> float:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[int, Any] = {}

    def run() -> None:
        for row, rk in zip(players.tolist(), ranks.tolist(), strict=True):
            new = model.rate([[ratings.get(p) or model.rating()] for p in row], ranks=rk)
            for p, team in zip(row, new, strict=True):
                ratings[p] = team[0]

    return per_second(len(players), run)


def lookup_loop(matches: list[Match]) -> float:
    """Matches a second of a loop that only looks up each match's players by id in a dict."""
    index: dict[str, int] = {}
    for m in matches:
        for team in m.teams:
            for p in team:
                index.setdefault(p, len(index))
    get = index.__getitem__
    return per_second(
        len(matches), lambda: [get(p) for m in matches for t in m.teams for p in t], repeat=2
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def replay_table(rng: np.random.Generator, scale: float, peer_n: int, console: Console) -> Table:
    env = build_model("trueskill")
    table = Table(
        title="replay(TrueSkill(), matches): Match objects in, predictions and history kept"
    )
    cols = ("shape", "matches", "mindsport", "built ids", "dict look-up loop", "trueskill",
            "openskill PL")  # fmt: skip
    for col in (*cols, "built/shared", "vs loop", "vs ts", "vs os"):
        table.add_column(col, justify="right")
    for name, (k, n, n_players) in SHAPES.items():
        n = int(n * scale)
        players, ranks = history(rng, n, k, n_players)
        matches = as_matches(players, ranks)
        built = as_built_matches(players, ranks)
        replay(env, matches[:100])  # load the compiled code
        ours = per_second(n, lambda m=matches: replay(env, m))
        theirs = per_second(n, lambda m=built: replay(env, m))
        del built
        ceiling = lookup_loop(matches)
        ts = time_trueskill(players[: peer_n // 4], ranks[: peer_n // 4])
        os_ = time_openskill(players[:peer_n], ranks[:peer_n])
        table.add_row(
            name, f"{n:,}", f"{ours:,.0f}", f"{theirs:,.0f}", f"{ceiling:,.0f}", f"{ts:,.0f}",
            f"{os_:,.0f}", f"{theirs / ours:.2f}", f"{ours / ceiling:.2f}x", f"{ours / ts:,.0f}x",
            f"{ours / os_:,.1f}x",
        )  # fmt: skip
        console.print(f"  {name}: done (load {load()})")
    return table


def column_table(rng: np.random.Generator, scale: float, console: Console) -> Table:
    env = build_model("trueskill")
    table = Table(
        title="Column path: long table -> block -> compiled replayer (predictions, history kept)"
    )
    for col in ("shape", "matches", "table -> block", "feed", "feed, nothing kept"):
        table.add_column(col, justify="right")
    for name, (k, n, n_players) in SHAPES.items():
        n = int(n * scale)
        players, ranks = history(rng, n, k, n_players)
        ids = np.repeat(np.arange(n), k)
        cols = (ids, ids.astype(np.float64), players.ravel(), np.tile(np.arange(k), n))
        build = per_second(
            n,
            lambda c=cols, r=ranks: block_from_long_table(
                c[0], c[1], [f"p{p}" for p in c[2].tolist()], c[3], r.ravel(), PlayerIndex()
            ),
        )
        block = block_from_long_table(
            cols[0], cols[1], [f"p{p}" for p in cols[2].tolist()], cols[3], ranks.ravel(),
            PlayerIndex(),
        )  # fmt: skip
        env.replayer().feed(_head(block, 10), predict=True, keep=True)
        feed = per_second(
            n, lambda b=block: env.replayer().feed(b, predict=True, keep=True), repeat=3
        )
        bare = per_second(
            n, lambda b=block: env.replayer().feed(b, predict=False, keep=False), repeat=3
        )
        table.add_row(name, f"{n:,}", f"{build:,.0f}", f"{feed:,.0f}", f"{bare:,.0f}")
        console.print(f"  {name}: done (load {load()})")
    return table


def _head(block: MatchBlock, n: int) -> MatchBlock:
    t1 = int(block.team_ptr[n])
    s1 = int(block.player_ptr[t1])
    return MatchBlock(
        block.team_ptr[: n + 1], block.player_ptr[: t1 + 1], block.players[:s1],
        block.weights[:s1], block.ranks[:t1], block.times[:n],
    )  # fmt: skip


def models_table(rng: np.random.Generator, scale: float, object_n: int, console: Console) -> Table:
    table = Table(title="Every registered model: replay (compiled) vs model.rate match by match")
    for col in ("model", "shape", "matches", "replay", "object path", "ratio"):
        table.add_column(col, justify="right")
    for name, (k, n, n_players) in SHAPES.items():
        n = int(n * scale) // 4
        players, ranks = history(rng, n, k, n_players)
        matches = as_matches(players, ranks)
        for model_name in model_names():
            model = build_model(model_name)
            if model_name == "glicko2" and k > 2:
                continue  # one game is one rating period for every player: same kernel as 1v1
            replay(model, matches[:50])
            quick = per_second(n, lambda m=matches, mo=model: replay(mo, m))
            m_obj = matches[:object_n]
            slow = per_second(len(m_obj), lambda m=m_obj, mo=model: replay(mo, m, fast=False))
            table.add_row(
                model_name, name, f"{n:,}", f"{quick:,.0f}", f"{slow:,.0f}", f"{quick / slow:,.1f}x"
            )
        console.print(f"  {name}: done (load {load()})")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the match counts")
    parser.add_argument("--peer-matches", type=int, default=20000, help="peer subsample size")
    parser.add_argument("--object-matches", type=int, default=5000, help="object-path subsample")
    parser.add_argument("--skip-models", action="store_true", help="no table of other models")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    console = Console(width=150)
    console.print(f"load average at start: {load()}")
    tables = [
        replay_table(rng, args.scale, args.peer_matches, console),
        column_table(rng, args.scale, console),
    ]
    if not args.skip_models:
        tables.append(models_table(rng, args.scale, args.object_matches, console))
    for t in tables:
        console.print(t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    console.print(f"load average at end: {load()}; peak resident memory: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
