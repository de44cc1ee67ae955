"""Replaying long histories: compiled TrueSkill kernel beside ``trueskill`` and ``openskill``.

Synthetic histories (seeded): 1,000,000 1v1 matches among 100,000 players, 300,000 four-player
free-for-all matches and 300,000 one-against-two matches (Dou Dizhu shape). mindsport replays
every match with the exact TrueSkill model (the same numbers as ``TrueSkill.rate``); the peers
replay a subsample (their per-match cost does not depend on history length) and are scaled.
Reports matches per second, the ratios, and the peak memory of the kernel replay.

A second table does the same for the compiled Elo (constant K and FIDE K), Glicko-2 and Tenhou R
kernels (1v1 1,000,000 and ffa4 300,000 matches at ``--scale 1``) against the object path of the
same model (:func:`mindsport.history.replay` with ``fast=False``, i.e. ``model.rate`` match by
match) on a subsample, and the end-to-end compiled ``replay`` (``fast=True``, Match objects in)
on the same subsample (predictions and history off in both).

    python benchmarks/bench_replay.py [--scale 1.0] [--peer-matches 20000]
        [--object-matches 20000] [--skip-trueskill] [--skip-classic]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from mindsport.history import Match, replay
from mindsport.rating import Elo, FideK, Glicko2, TenhouRating, TrueSkill
from mindsport.rating.batch import BatchTrueSkill, MatchBlock
from mindsport.rating.batch_classic import BatchElo, BatchGlicko2, BatchTenhou


def synthetic(rng: np.random.Generator, n_matches: int, shape: tuple[int, ...], n_players: int):
    sizes = np.array(shape)
    per_match = int(sizes.sum())
    players = np.empty((n_matches, per_match), np.int64)
    for i in range(per_match):  # distinct players in a match: offset draws
        players[:, i] = rng.integers(0, n_players, n_matches)
    # resolve the rare duplicates within a match by shifting
    for i in range(1, per_match):
        for j in range(i):
            dup = players[:, i] == players[:, j]
            players[dup, i] = (players[dup, i] + 1 + j) % n_players
    n_teams = len(shape)
    team_ptr = np.arange(0, n_matches * n_teams + 1, n_teams, dtype=np.int64)
    team_sizes = np.tile(sizes, n_matches)
    player_ptr = np.concatenate([[0], np.cumsum(team_sizes)]).astype(np.int64)
    ranks = np.tile(np.arange(n_teams, dtype=np.float64), n_matches)
    perm = rng.permuted(ranks.reshape(n_matches, n_teams), axis=1).ravel()
    block = MatchBlock(
        team_ptr,
        player_ptr,
        players.ravel(),
        np.ones(n_matches * per_match),
        perm,
        np.arange(n_matches, dtype=np.float64),
    )
    return block


def time_mindsport(block: MatchBlock, env: TrueSkill) -> float:
    warm = BatchTrueSkill(env)
    small = MatchBlock(
        block.team_ptr[:11] - block.team_ptr[0],
        block.player_ptr[: block.team_ptr[10] + 1],
        block.players,
        block.weights,
        block.ranks,
        block.times[:10],
    )
    warm.feed(small)  # compile
    replayer = BatchTrueSkill(env, capacity=int(block.players.max()) + 1)
    start = time.perf_counter()
    replayer.feed(block)
    return len(block) / (time.perf_counter() - start)


def peer_games(block: MatchBlock, n: int):
    games = []
    for i in range(min(n, len(block))):
        teams = []
        for t in range(block.team_ptr[i], block.team_ptr[i + 1]):
            teams.append(
                (
                    int(block.ranks[t]),
                    list(block.players[block.player_ptr[t] : block.player_ptr[t + 1]]),
                )
            )
        games.append(teams)
    return games


def time_trueskill(games) -> float:
    import trueskill

    env = trueskill.TrueSkill()
    ratings: dict[int, trueskill.Rating] = {}
    start = time.perf_counter()
    for teams in games:
        groups = [{p: ratings.get(p) or env.create_rating() for p in ps} for _, ps in teams]
        new = env.rate(groups, ranks=[r for r, _ in teams])
        for g in new:
            ratings.update(g)
    return len(games) / (time.perf_counter() - start)


def time_openskill(games) -> float:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[int, object] = {}
    start = time.perf_counter()
    for teams in games:
        groups = [[ratings.get(p) or model.rating() for p in ps] for _, ps in teams]
        new = model.rate(groups, ranks=[r for r, _ in teams])
        for (_, ps), g in zip(teams, new, strict=True):
            for p, r in zip(ps, g, strict=True):
                ratings[p] = r
    return len(games) / (time.perf_counter() - start)


def head(block: MatchBlock, n: int) -> MatchBlock:
    """The first ``n`` matches of ``block``."""
    n = min(n, len(block))
    t1 = int(block.team_ptr[n])
    s1 = int(block.player_ptr[t1])
    return MatchBlock(
        block.team_ptr[: n + 1],
        block.player_ptr[: t1 + 1],
        block.players[:s1],
        block.weights[:s1],
        block.ranks[:t1],
        block.times[:n],
    )


def block_matches(block: MatchBlock, n: int) -> list[Match]:
    """The first ``n`` matches of ``block`` as :class:`Match` objects."""
    out = []
    for i in range(min(n, len(block))):
        teams = []
        ranks = []
        for t in range(block.team_ptr[i], block.team_ptr[i + 1]):
            ps = block.players[block.player_ptr[t] : block.player_ptr[t + 1]]
            teams.append([f"p{int(p)}" for p in ps])
            ranks.append(int(block.ranks[t]))
        out.append(Match(f"m{i}", float(block.times[i]), teams, ranks))
    return out


def time_classic(block: MatchBlock, model: object) -> float:
    """Kernel matches per second over the whole block (compiled beforehand)."""
    make = {Elo: BatchElo, Glicko2: BatchGlicko2, TenhouRating: BatchTenhou}[type(model)]
    make(model).feed(head(block, 10))  # type: ignore[arg-type]  # compile / load the cache
    replayer = make(model, capacity=int(block.players.max()) + 1)  # type: ignore[arg-type]
    start = time.perf_counter()
    replayer.feed(block)
    return len(block) / (time.perf_counter() - start)


def time_replay(matches: list[Match], model: object, fast: bool) -> float:
    """``replay`` matches per second (Match objects in, predictions and history off)."""
    replay(model, matches[:10], fast=fast)  # warm up
    start = time.perf_counter()
    replay(model, matches, fast=fast, predict=False, keep_history=False)
    return len(matches) / (time.perf_counter() - start)


def classic_table(rng: np.random.Generator, scale: float, n_object: int) -> Table:
    models: list[tuple[str, object]] = [
        ("Elo k=20", Elo()),
        ("Elo FIDE K", Elo(k=FideK())),
        ("Glicko-2", Glicko2()),
        ("Tenhou R", TenhouRating()),
    ]
    cases = [("1v1", (1, 1), 1_000_000, 100_000), ("ffa4", (1, 1, 1, 1), 300_000, 100_000)]
    table = Table(title="Elo, Glicko-2, Tenhou R: matches per second (one core)")
    for col in (
        "model",
        "history",
        "matches",
        "kernel",
        "replay fast",
        "object path",
        "kernel / object",
        "replay fast / object",
    ):
        table.add_column(col, justify="right")
    for name, shape, n, players in cases:
        n = int(n * scale)
        block = synthetic(rng, n, shape, players)
        matches = block_matches(block, n_object)
        for label, model in models:
            ours = time_classic(block, model)
            quick = time_replay(matches, model, fast=True)
            slow = time_replay(matches, model, fast=False)
            table.add_row(
                label,
                name,
                f"{n:,}",
                f"{ours:,.0f}",
                f"{quick:,.0f}",
                f"{slow:,.0f}",
                f"{ours / slow:,.0f}x",
                f"{quick / slow:,.1f}x",
            )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the match counts")
    parser.add_argument("--peer-matches", type=int, default=20000, help="peer subsample size")
    parser.add_argument(
        "--object-matches", type=int, default=20000, help="object-path subsample size"
    )
    parser.add_argument("--skip-trueskill", action="store_true", help="no TrueSkill table")
    parser.add_argument("--skip-classic", action="store_true", help="no Elo/Glicko-2/Tenhou table")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    env = TrueSkill()
    cases = [
        ("1v1", (1, 1), 1_000_000, 100_000),
        ("ffa4", (1, 1, 1, 1), 300_000, 100_000),
        ("1v2", (1, 2), 300_000, 100_000),
    ]
    table = Table(title="Replaying histories: matches per second (one core)")
    for col in ("history", "matches", "mindsport", "trueskill", "openskill PL", "vs ts", "vs os"):
        table.add_column(col, justify="right")
    for name, shape, n, players in [] if args.skip_trueskill else cases:
        n = int(n * args.scale)
        block = synthetic(rng, n, shape, players)
        ours = time_mindsport(block, env)
        games = peer_games(block, args.peer_matches)
        ts = time_trueskill(games[: args.peer_matches // 4])
        os_ = time_openskill(games)
        table.add_row(
            name,
            f"{n:,}",
            f"{ours:,.0f}",
            f"{ts:,.0f}",
            f"{os_:,.0f}",
            f"{ours / ts:,.0f}x",
            f"{ours / os_:,.1f}x",
        )
    if not args.skip_trueskill:
        Console().print(table)
    if not args.skip_classic:
        Console(width=160).print(classic_table(rng, args.scale, args.object_matches))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Console().print(f"peak resident memory of the whole run: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
