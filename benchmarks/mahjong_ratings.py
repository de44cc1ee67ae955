"""Which rating system ranks mahjong players fastest: simulated leagues of graded bots.

The question of the mahjong article behind the rating module (start with Tenhou R, move to
TrueSkill later), answered on riichienv's engine. A league is ``--bots`` graded bots
(``level:N``, the levels spread evenly over 0..100, so the true order is the level order)
playing east-only games at tables of four drawn at random, in two dealings:

* ``random``: every game new random walls, the four players in a random seat order;
* ``duplicate``: a set of walls played by the same four players in the four cyclic seat
  rotations (``mindsport.mahjong.duplicate``), so each player plays every seat on the same
  tiles; a set is four games, and the dealings are compared at equal numbers of games.

Each (seed, dealing) league is simulated once and cached (JSON Lines under ``--cache``, one game a
line; a rerun resumes where the cache ends), and every rating system replays the same games
through the one replay driver (``mindsport.history.replay``): Elo, Glicko-2, Tenhou R, the Tenhou
dan ladder (east-only points), TrueSkill (fitted, and with the article's mahjong settings: tau
0.1, draw 0.01, sigma floor 2; and those without the floor), TrueSkill with seats as roles and
the final points as score margins (``cardplay``), and that with the walls as a duplicate deal
(``deal_sigma``: the same walls' seat luck shared by the tables that play them). Each system's
free settings are fitted by one-step-ahead log-loss on a held-out league of the same dealing
(Tenhou R and the dan ladder: only the ``prob_scale`` of their win probability; their updates
are the platform's).
Measured per system and dealing (mean over seeds):

* Kendall's tau (tau-b) between the players' order by the system's leaderboard value and the
  true level order, after 100, 200, 500, 1,000, 2,000, 5,000, 10,000 games (those reached);
* the games needed to reach tau 0.9 (first of the taus measured every ``--step`` games at or
  above it, for the seeds' mean tau and per seed: the mean over the seeds that
  reach it, and how many did);
* one-step-ahead log-loss: before each game, each system's probability that one player of a
  pair finishes ahead of the other, for the six pairs of the table (``MatchPrediction.pairs``:
  every system of the registry gives one; Tenhou R and the dan ladder through the logistic of
  their ``prob_scale``, Elo and Glicko-2 their expected score), mean ``-ln p(observed order)``
  over the pairs of the games scored.

    .venv/bin/python benchmarks/mahjong_ratings.py --games 2000 --seeds 0,1,2,3,4 --workers 1
    .venv/bin/python benchmarks/mahjong_ratings.py --simulate-only --games 2000  # fill the cache
    .venv/bin/python benchmarks/mahjong_ratings.py --games 200 --seeds 0 --bots 8  # a quick look

Simulation is the cost (an east-only game of graded bots takes 0.1-0.3 s of one core); rating is
cheap. Every game's generator is named by (seed, dealing, game), so a run is reproduced by its
command line whatever the workers.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mindsport.match import Match

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mahjong_leagues import (  # the simulated leagues and their cache, beside this script
    CHECKPOINTS,
    DEALINGS,
    bot_levels,
    cache_path,
    player_id,
    read_cache,
    simulate,
)

# ---------------------------------------------------------------- the rating systems

SEATS = ("east", "south", "west", "north")  # seat 0 deals first


@dataclass(frozen=True)
class System:
    """A rating system of the comparison: a registry model, its fixed settings (the platform's
    rules; no ties in mahjong placements, so no draw probability) and the grid its free
    settings are fitted on (one-step-ahead pairwise log-loss on a held-out league)."""

    label: str
    model: str
    fixed: Mapping[str, Any]
    grid: Mapping[str, tuple[Any, ...]]


SYSTEMS: tuple[System, ...] = (
    System("Elo", "elo", {}, {"k": (8.0, 16.0, 32.0, 48.0, 64.0, 96.0, 128.0)}),
    System(
        "Glicko-2",
        "glicko2",
        {},
        {"initial_rd": (50.0, 100.0, 150.0, 250.0, 350.0), "tau": (0.1, 0.2, 0.5, 1.2)},
    ),
    System(
        "Tenhou R",
        "tenhou",
        {},
        {"prob_scale": (150.0, 200.0, 300.0, 450.0, 600.0, 900.0, 1300.0, 2763.0)},
    ),
    System(
        "Tenhou dan",
        "tenhou-dan",
        {"length": "tonpuu"},
        {"prob_scale": (1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0)},
    ),
    System(
        "TrueSkill",
        "trueskill",
        {"draw_probability": 0.0},
        {"beta": (3.0, 4.17, 6.0, 9.0, 13.0, 18.0), "tau": (0.0, 0.04, 0.0833, 0.2)},
    ),
    System(  # the mahjong settings the article gives (draw 0.01, a floor of 2 on sigma)
        "TrueSkill (article)",
        "trueskill",
        {"beta": 25.0 / 6, "tau": 0.1, "draw_probability": 0.01, "sigma_floor": 2.0},
        {},
    ),
    System(  # the same without the floor on sigma
        "TrueSkill (article, no floor)",
        "trueskill",
        {"beta": 25.0 / 6, "tau": 0.1, "draw_probability": 0.01},
        {},
    ),
    System(
        "TrueSkill+seats+points",
        "cardplay",
        {"draw_probability": 0.0},
        {
            "beta": (3.0, 4.17, 6.0, 9.0, 13.0),
            "margin_scale": (1e-4, 2e-4, 4e-4, 8e-4),
            "margin_noise": (1.0, 2.0, 4.17, 8.33),
        },
    ),
    System(
        "TrueSkill+seats+points+walls",
        "cardplay",
        {"draw_probability": 0.0},
        {
            "beta": (3.0, 4.17, 6.0, 9.0, 13.0),
            "margin_scale": (1e-4, 2e-4, 4e-4, 8e-4),
            "margin_noise": (1.0, 2.0, 4.17, 8.33),
            "deal_sigma": (0.25, 0.5, 1.0, 2.0, 4.0),
        },
    ),
)


def league_matches(games: Sequence[Mapping[str, Any]], name: str) -> list[Match]:
    """The cached games as matches: one player a team, ranks from the places (ties in points
    broken by seat, as on Tenhou), the final points as scores, the seats as roles and the walls
    as the deal (read only by ``cardplay``; the other systems rate the order alone)."""
    out = []
    for row in games:
        out.append(
            Match(
                f"{name}-{row['game']}",
                int(row["game"]),
                [[p] for p in row["players"]],
                [int(x) - 1 for x in row["places"]],
                scores=[float(x) for x in row["points"]],
                roles=[[seat] for seat in SEATS],
                deal=f"w{row['walls']}",
            )
        )
    return out


def fit_settings(system: System, matches: Sequence[Match], sweeps: int = 2) -> dict[str, Any]:
    """The free settings of ``system`` minimising the one-step-ahead pairwise log-loss on
    ``matches`` (a held-out league), by coordinate descent over its grid."""
    from mindsport.history.fit import train_log_loss
    from mindsport.rating import build_model

    best = {k: v[len(v) // 2] for k, v in system.grid.items()}
    if not best:
        return best

    def loss(params: Mapping[str, Any]) -> float:
        model = build_model(system.model, **system.fixed, **params)
        return train_log_loss(model, matches, "pairwise")

    best_loss = loss(best)
    for _ in range(sweeps):
        moved = False
        for name, values in system.grid.items():
            for v in values:
                if v == best[name]:
                    continue
                trial = {**best, name: v}
                ll = loss(trial)
                if ll < best_loss - 1e-12:
                    best, best_loss, moved = trial, ll, True
        if not moved:
            break
    return best


# ---------------------------------------------------------------- what is measured


def checkpoints_upto(games: int) -> list[int]:
    """The checkpoints reached by ``games`` games (and ``games`` itself when between two).

    >>> checkpoints_upto(1500)
    [100, 200, 500, 1000, 1500]
    """
    points = [c for c in CHECKPOINTS if c <= games]
    if not points or points[-1] != games:
        points.append(games)
    return points


def tau_grid(games: int, step: int) -> list[int]:
    """Where tau is measured: every ``step`` games and at every checkpoint, up to ``games``.

    >>> tau_grid(260, 50)
    [50, 100, 150, 200, 250, 260]
    """
    return sorted(set(range(step, games + 1, step)) | set(checkpoints_upto(games)))


def taus_at(
    history: Sequence[tuple[str, Mapping[str, Any]]],
    truth: Mapping[str, float],
    value: Callable[[Any], float],
    initial: float,
    checkpoints: Sequence[int],
) -> list[float]:
    """Kendall's tau-b between the players' order by ``value`` of their rating after the first
    ``c`` games (``initial`` for a player not yet seen) and ``truth``, for each ``c`` of
    ``checkpoints`` (``history``: per game the ratings after it of the players in it)."""
    from scipy.stats import kendalltau

    players = sorted(truth)
    current = dict.fromkeys(players, initial)
    out = []
    done = 0
    for c in checkpoints:
        if c > len(history):
            raise ValueError(f"checkpoint {c} beyond the {len(history)} games rated")
        for i in range(done, c):
            for player, rating in history[i][1].items():
                current[player] = value(rating)
        done = c
        tau = kendalltau([truth[p] for p in players], [current[p] for p in players]).statistic
        out.append(0.0 if math.isnan(tau) else float(tau))  # all tied: no order yet
    return out


def game_log_losses(predictions: Sequence[Any]) -> np.ndarray:
    """Per game, the mean over its decided pairs of ``-ln p`` (``p`` the pre-game probability
    of the order observed, clipped to [1e-12, 1 - 1e-12], as ``mindsport.history.evaluate``
    scores it); NaN for a game without a decided pair."""
    out = np.full(len(predictions), np.nan)
    for g, pred in enumerate(predictions):
        terms = [
            -math.log(min(max(p if y == 1.0 else 1.0 - p, 1e-12), 1.0 - 1e-12))
            for _, _, p, y in pred.pairs
            if y != 0.5
        ]
        if terms:
            out[g] = sum(terms) / len(terms)
    return out


def games_to_reach(taus: Sequence[float], checkpoints: Sequence[int], level: float) -> int | None:
    """The first checkpoint whose tau is at least ``level`` (None: not reached).

    >>> games_to_reach([0.5, 0.92, 0.88], [100, 200, 500], 0.9)
    200
    """
    for tau, c in zip(taus, checkpoints, strict=True):
        if tau >= level:
            return c
    return None


@dataclass(frozen=True)
class Rated:
    """One system on one league: tau at each checkpoint (against the level order, and against
    the pooled order by mean place when given), per-game log-losses, the settings."""

    taus: list[float]
    log_loss: np.ndarray
    params: dict[str, Any]
    pooled_taus: list[float]


def rate_league(
    system: System,
    matches: Sequence[Match],
    params: Mapping[str, Any],
    truth: Mapping[str, float],
    checkpoints: Sequence[int],
    pooled: Mapping[str, float] | None = None,
) -> Rated:
    """Replay ``matches`` through ``system`` with ``params`` (the one replay driver); taus
    against ``truth`` (and against ``pooled``, a second order, when given)."""
    from mindsport.history import replay
    from mindsport.rating import build_model

    model = build_model(system.model, **system.fixed, **params)
    run = replay(model, matches)
    initial = model.expose(model.rating())
    taus = taus_at(run.history, truth, model.expose, initial, checkpoints)
    second = (
        [] if pooled is None else taus_at(run.history, pooled, model.expose, initial, checkpoints)
    )
    return Rated(taus, game_log_losses(run.predictions), dict(params), second)


# ---------------------------------------------------------------- the comparison


@dataclass
class Comparison:
    """Every system on every league: ``rated[(dealing, system label)]`` one :class:`Rated` per
    seed (in seed order), its taus measured at ``grid`` (the table shows the ``checkpoints``)."""

    games: int
    seeds: list[int]
    checkpoints: list[int]
    grid: list[int]
    rated: dict[tuple[str, str], list[Rated]]
    ladder: dict[int, tuple[float, int]]  # level -> (mean place, seats) over every league


def _load(args: argparse.Namespace, levels: list[int], seeds: list[int]) -> dict[Any, list[Any]]:
    leagues = {
        (s, d): read_cache(cache_path(args.cache, len(levels), s, d))
        for s in seeds
        for d in DEALINGS
    }
    games = min(args.games, *(len(g) for g in leagues.values()))
    if games < 100:
        raise SystemExit(
            f"{args.cache}: only {games} games cached in the shortest league; rate at least 100"
        )
    return {k: v[:games] for k, v in leagues.items()}


def _ladder(leagues: Mapping[Any, Sequence[Mapping[str, Any]]]) -> dict[int, tuple[float, int]]:
    seats: dict[int, list[int]] = {}
    for games in leagues.values():
        for row in games:
            for player, place in zip(row["players"], row["places"], strict=True):
                seats.setdefault(int(player[2:]), []).append(int(place))
    return {lv: (float(np.mean(v)), len(v)) for lv, v in sorted(seats.items())}


def compare(args: argparse.Namespace, levels: list[int], seeds: list[int]) -> Comparison:
    """Rate every cached league with every system; each system's free settings fitted on a
    held-out league of the same dealing: the first seed's for every other seed, the second
    seed's for the first (with one seed, its own: then nothing is held out)."""
    from rich.progress import Progress

    leagues = _load(args, levels, seeds)
    games = len(next(iter(leagues.values())))
    checkpoints = checkpoints_upto(games)
    grid = tau_grid(games, args.step)
    truth = {player_id(lv): float(lv) for lv in levels}
    ladder = _ladder(leagues)
    pooled = {player_id(lv): -place for lv, (place, _) in ladder.items()}
    matches = {k: league_matches(v, f"s{k[0]}-{k[1]}") for k, v in leagues.items()}
    rated: dict[tuple[str, str], list[Rated]] = {}
    fitted: dict[tuple[int, str, str], dict[str, Any]] = {}
    with Progress() as progress:
        task = progress.add_task("fitting and rating", total=len(SYSTEMS) * len(leagues))
        for dealing in DEALINGS:
            for i, seed in enumerate(seeds):
                held_out = seeds[1 % len(seeds)] if i == 0 else seeds[0]
                tune = matches[(held_out, dealing)][: args.tune_games]
                for system in SYSTEMS:
                    key = (held_out, dealing, system.label)
                    if key not in fitted:
                        fitted[key] = fit_settings(system, tune)
                    params = fitted[key]
                    result = rate_league(
                        system, matches[(seed, dealing)], params, truth, grid, pooled
                    )
                    rated.setdefault((dealing, system.label), []).append(result)
                    progress.advance(task)
    return Comparison(games, seeds, checkpoints, grid, rated, ladder)


def _fmt_games(reached: Sequence[int | None]) -> str:
    hit = [r for r in reached if r is not None]
    if not hit:
        return f"not reached (0/{len(reached)})"
    return f"{np.mean(hit):,.0f} ({len(hit)}/{len(reached)})"


def report(comp: Comparison, args: argparse.Namespace, took: float) -> str:
    """The tables of the comparison as text."""
    from scipy.stats import kendalltau

    cps = comp.checkpoints
    shown = [comp.grid.index(c) for c in cps]
    half = comp.games // 2
    lines = [
        f"{comp.games} east-only games per league, {len(comp.seeds)} seeds {comp.seeds}, "
        f"{args.bots} bots (levels {bot_levels(args.bots)}), dealings {', '.join(DEALINGS)}",
        "settings fitted on a held-out league of the same dealing (seed "
        f"{comp.seeds[0]}'s for the other seeds, seed {comp.seeds[1 % len(comp.seeds)]}'s for "
        f"seed {comp.seeds[0]}: "
        f"its first {min(args.tune_games, comp.games)} games); rating took {took:.0f} s",
        "",
        "Kendall tau (mean over seeds) against the level order after N games; games to "
        f"tau {args.target}: first reached by the seeds' mean tau (measured every {args.step} "
        "games), and per seed (mean over the seeds reaching it, how many did); one-step-ahead "
        "pairwise log-loss over all games and over the second half",
        "",
    ]
    head = (
        f"{'system':<30} {'dealing':<10}"
        + "".join(f"{'N=' + str(c):>8}" for c in cps)
        + f" {'mean':>6} {'per seed':>18} {'logloss':>8} {'2nd half':>8}"
    )
    lines += [head, "-" * len(head)]
    for dealing in DEALINGS:
        for system in SYSTEMS:
            runs = comp.rated[(dealing, system.label)]
            taus = np.array([r.taus for r in runs])
            reached = [games_to_reach(r.taus, comp.grid, args.target) for r in runs]
            first = games_to_reach(list(taus.mean(axis=0)), comp.grid, args.target)
            ll = np.mean([np.nanmean(r.log_loss) for r in runs])
            ll2 = np.mean([np.nanmean(r.log_loss[half:]) for r in runs])
            lines.append(
                f"{system.label:<30} {dealing:<10}"
                + "".join(f"{t:>8.3f}" for t in taus.mean(axis=0)[shown])
                + f" {'-' if first is None else first:>6} {_fmt_games(reached):>18}"
                + f" {ll:>8.4f} {ll2:>8.4f}"
            )
        lines.append("")
    higher = round(min(1.0, args.target + 0.05), 3)
    lines += [
        f"games to tau {higher}: first reached by the seeds' mean tau, and per seed",
        f"{'system':<30} {'dealing':<10} {'mean':>6} {'per seed':>18}",
    ]
    for dealing in DEALINGS:
        for system in SYSTEMS:
            runs = comp.rated[(dealing, system.label)]
            mean = list(np.mean([r.taus for r in runs], axis=0))
            first = games_to_reach(mean, comp.grid, higher)
            reached = [games_to_reach(r.taus, comp.grid, higher) for r in runs]
            lines.append(
                f"{system.label:<30} {dealing:<10} {'-' if first is None else first:>6} "
                f"{_fmt_games(reached):>18}"
            )
    lines += ["", "s.d. of tau over seeds:", head.split("   mean")[0], "-" * len(head)]
    for dealing in DEALINGS:
        for system in SYSTEMS:
            taus = np.array([r.taus for r in comp.rated[(dealing, system.label)]])
            sd = taus.std(axis=0, ddof=1) if len(taus) > 1 else np.zeros(len(comp.grid))
            lines.append(
                f"{system.label:<30} {dealing:<10}" + "".join(f"{t:>8.3f}" for t in sd[shown])
            )
    lines += [
        "",
        "duplicate minus random walls: mean tau difference (its standard error over seeds)",
        f"{'system':<41}" + "".join(f"{'N=' + str(c):>16}" for c in cps),
    ]
    for system in SYSTEMS:
        dup = np.array([r.taus for r in comp.rated[("duplicate", system.label)]])[:, shown]
        rnd = np.array([r.taus for r in comp.rated[("random", system.label)]])[:, shown]
        diff = dup.mean(axis=0) - rnd.mean(axis=0)
        n = len(comp.seeds)
        se = np.sqrt((dup.var(axis=0, ddof=1) + rnd.var(axis=0, ddof=1)) / n) if n > 1 else diff * 0
        lines.append(
            f"{system.label:<30} {'':<10}"
            + "".join(f"{f'{d:+.3f}({e:.3f})':>16}" for d, e in zip(diff, se, strict=True))
        )
    lines += [
        "",
        "tau against the order by mean place pooled over every league's games (the strength the "
        "simulation shows, where neighbouring low levels swap; each league is a tenth of it)",
        head.split("   mean")[0],
        "-" * len(head),
    ]
    for dealing in DEALINGS:
        for system in SYSTEMS:
            runs = comp.rated[(dealing, system.label)]
            mean = np.mean([r.pooled_taus for r in runs], axis=0)
            lines.append(
                f"{system.label:<30} {dealing:<10}" + "".join(f"{t:>8.3f}" for t in mean[shown])
            )
    lines += ["", "fitted settings (per seed):"]
    for dealing in DEALINGS:
        for system in SYSTEMS:
            params = [r.params for r in comp.rated[(dealing, system.label)]]
            lines.append(f"  {system.label} / {dealing}: {params}")
    levels = sorted(comp.ladder)
    means = [comp.ladder[lv][0] for lv in levels]
    ceiling = kendalltau(levels, [-m for m in means]).statistic
    lines += [
        "",
        "the ladder over every league (mean place, seats), and Kendall tau of the order by "
        f"mean place over all {comp.games * len(comp.seeds) * len(DEALINGS)} games against the "
        f"level order: {ceiling:.3f}",
        "  "
        + ", ".join(
            f"{lv}: {m:.3f} ({comp.ladder[lv][1]})" for lv, m in zip(levels, means, strict=True)
        ),
    ]
    return "\n".join(lines)


def markdown(comp: Comparison, target: float) -> str:
    """The main table as Markdown (what docs/mahjong.md shows)."""
    cps = comp.checkpoints
    shown = [comp.grid.index(c) for c in cps]
    half = comp.games // 2
    head = (
        "| system | walls | "
        + " | ".join(f"tau, {c:,} games" for c in cps)
        + f" | games to tau {target} (mean tau; per seed) | log-loss (all; 2nd half) |"
    )
    rows = [head, "|---|---|" + "---:|" * (len(cps) + 2)]
    for dealing in DEALINGS:
        for system in SYSTEMS:
            runs = comp.rated[(dealing, system.label)]
            taus = np.mean([r.taus for r in runs], axis=0)
            first = games_to_reach(list(taus), comp.grid, target)
            reached = [games_to_reach(r.taus, comp.grid, target) for r in runs]
            ll = np.mean([np.nanmean(r.log_loss) for r in runs])
            ll2 = np.mean([np.nanmean(r.log_loss[half:]) for r in runs])
            rows.append(
                f"| {system.label} | {dealing} | "
                + " | ".join(f"{t:.3f}" for t in taus[shown])
                + f" | {'-' if first is None else f'{first:,}'}; {_fmt_games(reached)}"
                + f" | {ll:.4f}; {ll2:.4f} |"
            )
    return "\n".join(rows)


def plot(comp: Comparison, path: Path, target: float) -> None:
    """Mean tau against games played (log scale), one panel per dealing, the seeds' range
    shaded."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(DEALINGS), figsize=(11, 4.2), sharey=True)
    for ax, dealing in zip(axes, DEALINGS, strict=True):
        for system in SYSTEMS:
            taus = np.array([r.taus for r in comp.rated[(dealing, system.label)]])
            (line,) = ax.plot(comp.grid, taus.mean(axis=0), marker="o", ms=3, label=system.label)
            ax.fill_between(
                comp.grid,
                taus.min(axis=0),
                taus.max(axis=0),
                color=line.get_color(),
                alpha=0.08,
            )
        ax.axhline(target, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("games played")
        ax.set_title(f"{dealing} walls")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Kendall tau against the true order")
    axes[-1].legend(fontsize=7, loc="lower right")
    fig.suptitle(
        f"{len(comp.seeds)} seeds of {comp.games}-game leagues, "
        f"{len(comp.ladder)} graded mahjong bots (mean; seeds' range shaded)",
        fontsize=10,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- command line


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: Sequence[str] | None = None) -> None:
    class _Help(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
        pass

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=_Help)
    parser.add_argument("--games", type=int, default=2000, help="games per (seed, dealing)")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated league seeds")
    parser.add_argument("--bots", type=int, default=16, help="graded bots (levels over 0..100)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes simulating")
    parser.add_argument(
        "--block", type=int, default=50, help="games simulated at a time (for the shortest league)"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path("/tmp/mindsport-mahjong-ratings"),
        help="directory of the cached games (outside the repository)",
    )
    parser.add_argument("--simulate-only", action="store_true", help="fill the cache and stop")
    parser.add_argument(
        "--no-simulate",
        action="store_true",
        help="rate the cached games only (every league cut to the shortest)",
    )
    parser.add_argument(
        "--tune-games",
        type=int,
        default=1000,
        help="games of the held-out league the settings are fitted on",
    )
    parser.add_argument("--step", type=int, default=50, help="games between two taus measured")
    parser.add_argument("--target", type=float, default=0.9, help="the tau to reach")
    parser.add_argument("--out", type=Path, default=None, help="write the report here too")
    parser.add_argument("--plot", type=Path, default=None, help="write the plot (PNG) here")
    args = parser.parse_args(argv)
    if args.games < 4 or args.workers < 1 or args.block < 4:
        parser.error("--games and --block: at least 4; --workers: at least 1")
    if args.tune_games < 20 or args.step < 1 or not 0 < args.target <= 1:
        parser.error("--tune-games: at least 20; --step: at least 1; --target: a tau in (0, 1]")
    try:
        levels = bot_levels(args.bots)
    except ValueError as exc:
        parser.error(str(exc))
    seeds = _ints(args.seeds)
    if not seeds or any(s < 0 for s in seeds):
        parser.error("--seeds: one or more non-negative integers, comma-separated")
    if not args.no_simulate:
        simulate(args, levels, seeds)
    if args.simulate_only:
        return
    start = time.perf_counter()
    comp = compare(args, levels, seeds)
    text = report(comp, args, time.perf_counter() - start)
    text += "\n\nthe table as Markdown:\n\n" + markdown(comp, args.target)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.plot is not None:
        plot(comp, args.plot, args.target)


if __name__ == "__main__":
    main()
