"""Ratings that see through the cards: plain TrueSkill against the role- and luck-aware model.

Simulated Dou Dizhu leagues of graded bots (``level:N``, N spread over 0..100) on random
seating, in three formats:

* ``random``: every game a new random deal;
* ``duplicate``: every deal is played three times by the same three bots, each in every seat
  (the seat rotations of the tournament module);
* ``equal``: every game a new deal, drawn among deals of nearly equal strength (the fast luck
  estimate within +-0.05 of the median landlord win rate);

several seeds each. The same games are rated by five models, each adding one term:

* ``plain``: TrueSkill (the landlord against the two farmers as a team of two);
* ``+roles``: the ``cardplay`` model with the seats (landlord, farmer1, farmer2) as roles;
* ``+offset``: and each deal's luck (the fast estimate: a ridge regression on hand features
  fitted to deals played out by three ``level:50`` bots);
* ``+duplicate``: and each deal as a latent player per side (luck cancels across tables);
* ``+margin``: and the LINEAR score margin.

Each model's settings (beta, tau and the settings of its own terms) are fitted by
``mindsport.history.fit`` (one-step-ahead log-loss) on a separate tuning league of random deals,
then used unchanged in every format and seed (``--no-fit``: the defaults).

Reported per format and model: Kendall's tau between the recovered order (by mu) and the true
order (by level) after 100, 200, 500, 1,000, 2,000 and 5,000 games (mean over seeds), the games
needed for tau 0.9 (the first checkpoint at which the mean tau reaches it) and the one-step-ahead
log-loss of the landlord's win on the last 30% of the games. A second experiment rates a
simulated four-player free-for-all (mahjong-like) with a known dealer (East) edge and shows the
role term recovering it.

    .venv/bin/python benchmarks/luck_rating.py --plot out/luck_rating.png
    .venv/bin/python benchmarks/luck_rating.py --quick
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable
from scipy.stats import kendalltau

from mindsport.doudizhu import Deal
from mindsport.history import fit
from mindsport.match import Match
from mindsport.rating import build_model
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.tournament.doudizhu.games import Game, play_games, random_deals, warm_engine
from mindsport.tournament.doudizhu.luck import LuckModel, played_luck
from mindsport.tournament.formats import rotated_seatings

CHECKPOINTS = (100, 200, 500, 1000, 2000, 5000)
FORMATS = ("random", "duplicate", "equal")
ROLES = (("landlord",), ("farmer1", "farmer2"))


@dataclass(frozen=True)
class Variant:
    name: str
    model: str
    params: dict[str, Any]
    roles: bool
    luck: bool
    deal: bool


VARIANTS = (
    Variant("plain", "trueskill", {"draw_probability": 0.0}, False, False, False),
    Variant("+roles", "cardplay", {"draw_probability": 0.0}, True, False, False),
    Variant("+offset", "cardplay", {"draw_probability": 0.0}, True, True, False),
    Variant(
        "+duplicate", "cardplay", {"draw_probability": 0.0, "deal_sigma": 4.0}, True, True, True
    ),
    Variant(
        "+margin",
        "cardplay",
        {"draw_probability": 0.0, "deal_sigma": 4.0, "margin_scale": 2.0, "margin_noise": 8.0},
        True,
        True,
        True,
    ),
)


#: the settings each model's fit searches (on a separate tuning league of random deals)
GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "plain": {"beta": (2.0, 25 / 6, 8.0, 12.0), "tau": (0.0, 0.1, 0.3)},
    "+roles": {
        "beta": (2.0, 25 / 6, 8.0, 12.0),
        "tau": (0.0, 0.1, 0.3),
        "role_sigma": (4.0, 8.0, 16.0),
    },
    "+offset": {
        "beta": (2.0, 25 / 6, 8.0, 12.0),
        "tau": (0.0, 0.1, 0.3),
        "luck_scale": (0.0, 4.0, 8.0, 12.0, 18.0, 26.0, 36.0),
    },
    "+duplicate": {
        "beta": (2.0, 25 / 6, 8.0, 12.0),
        "luck_scale": (0.0, 4.0, 8.0, 12.0, 18.0, 26.0, 36.0),
        "deal_sigma": (1.0, 4.0, 8.0),
    },
    "+margin": {
        "beta": (2.0, 25 / 6, 8.0, 12.0),
        "luck_scale": (0.0, 4.0, 8.0, 12.0, 18.0, 26.0, 36.0),
        "margin_scale": (0.5, 1.0, 2.0, 4.0),
        "margin_noise": (4.0, 8.0, 16.0),
    },
}


@dataclass(frozen=True)
class League:
    """One simulated league: per game the seats (bot indices), deal id, luck, landlord score."""

    seats: np.ndarray  # games x 3
    deal_ids: list[str]
    luck: np.ndarray
    scores: np.ndarray


def levels_of(n_bots: int) -> list[int]:
    return [round(100 * i / (n_bots - 1)) for i in range(n_bots)]


def make_deals(
    fmt: str, n_games: int, rng: np.random.Generator, luck_model: LuckModel
) -> tuple[list[Deal], list[int]]:
    """The deals of a league and, per game, which deal it plays."""
    if fmt == "random":
        deals = random_deals(n_games, rng)
        return deals, list(range(n_games))
    if fmt == "duplicate":
        deals = random_deals(math.ceil(n_games / 3), rng)
        return deals, [g // 3 for g in range(n_games)]
    pool: list[Deal] = []
    centre: float | None = None
    while len(pool) < n_games:
        batch = random_deals(max(2000, n_games), rng)
        rate = luck_model.win_rate(batch)
        if centre is None:
            centre = float(np.median(rate))
        pool += [d for d, r in zip(batch, rate, strict=True) if abs(r - centre) <= 0.05]
    return pool[:n_games], list(range(n_games))


def simulate(
    fmt: str,
    n_games: int,
    n_bots: int,
    seed: int,
    luck_model: LuckModel,
    exact_tables: int = 0,
) -> League:
    """One league; the deals' luck is the fast estimate, or (``exact_tables`` > 0) the deals
    played out at that many tables by the reference bots."""
    rng = np.random.default_rng([seed, FORMATS.index(fmt)])
    deals, which = make_deals(fmt, n_games, rng, luck_model)
    seats = np.empty((n_games, 3), np.int64)
    for g in range(n_games):
        if fmt == "duplicate":
            if g % 3 == 0:
                trio = rng.choice(n_bots, 3, replace=False).tolist()
                rotations = rotated_seatings(trio)
            seats[g] = rotations[g % 3]
        else:
            seats[g] = rng.choice(n_bots, 3, replace=False)
    names = [f"level:{lv}" for lv in levels_of(n_bots)]
    games = [
        Game(deals[which[g]], tuple(names[s] for s in seats[g]), (FORMATS.index(fmt), g))
        for g in range(n_games)
    ]
    scores = play_games(games, seed)
    if exact_tables > 0:
        luck = played_luck(deals, seed, tables=exact_tables, stage=7).luck[which]
    else:
        luck = luck_model.luck(deals)[which]
    return League(seats, [f"{fmt}-{seed}-{which[g]}" for g in range(n_games)], luck, scores)


def to_matches(league: League, v: Variant) -> list[Match]:
    out = []
    for g, (seat, score) in enumerate(
        zip(league.seats.tolist(), league.scores.tolist(), strict=True)
    ):
        teams = [[f"b{seat[0]}"], [f"b{seat[1]}", f"b{seat[2]}"]]
        out.append(
            Match(
                f"g{g}",
                g,
                teams,
                scores=[score, -score],
                roles=ROLES if v.roles else None,
                deal=league.deal_ids[g] if v.deal else None,
                luck=[float(league.luck[g]), 0.0] if v.luck else None,
            )
        )
    return out


@dataclass(frozen=True)
class Outcome:
    taus: tuple[float, ...]
    log_loss: float
    roles: dict[str, tuple[float, float]]
    seconds: float  # encoding and rating, predictions included


def tune(matches: Sequence[Match], v: Variant) -> dict[str, Any]:
    """The variant's settings fitted by one-step-ahead log-loss on a tuning league."""
    grid = GRIDS[v.name]
    fixed = {k: x for k, x in v.params.items() if k not in grid}
    result = fit(v.model, matches, 0.7, grid, fixed=fixed)
    return {**fixed, **result.params}


def rate_league(
    matches: Sequence[Match],
    v: Variant,
    params: dict[str, Any],
    true_skill: Sequence[float],
    checkpoints: Sequence[int],
) -> Outcome:
    model = build_model(v.model, **params)
    replayer = model.replayer()
    index = PlayerIndex()
    for b in range(len(true_skill)):
        index.get(f"b{b}")
    taus = []
    clock = 0.0
    probs: list[np.ndarray] = []
    outcomes: list[np.ndarray] = []
    start = 0
    for stop in checkpoints:
        t0 = time.perf_counter()
        fed = replayer.feed(
            replayer.encode(list(matches[start:stop]), index, None), predict=True, keep=False
        )
        clock += time.perf_counter() - t0
        probs.append(fed.prob)
        outcomes.append(fed.outcome)
        mus = [replayer.value(index.get(f"b{b}")).mu for b in range(len(true_skill))]
        taus.append(float(kendalltau(mus, true_skill).statistic))
        start = stop
    p = np.clip(np.concatenate(probs), 1e-12, 1 - 1e-12)
    y = np.concatenate(outcomes)
    tail = int(0.7 * len(p))
    ll = -np.mean(y[tail:] * np.log(p[tail:]) + (1 - y[tail:]) * np.log(1 - p[tail:]))
    roles_fn = getattr(replayer, "roles", None)
    roles = {k: (r.mu, r.sigma) for k, r in roles_fn().items()} if roles_fn else {}
    return Outcome(tuple(taus), float(ll), roles, clock)


def dealer_edge(
    seed: int, n_games: int, edge: float, n_players: int = 16
) -> list[tuple[int, float, float]]:
    """A four-player free-for-all whose East seat adds ``edge`` to the performance: per
    checkpoint, (games, learned East-minus-others advantage, its deviation)."""
    rng = np.random.default_rng([seed, 99])
    beta = 25 / 6
    skills = rng.normal(25.0, 4.0, n_players)
    seats = ("East", "South", "West", "North")
    matches = []
    for k in range(n_games):
        table = rng.choice(n_players, 4, replace=False)
        perf = skills[table] + rng.normal(0, beta, 4)
        perf[0] += edge
        ranks = np.argsort(np.argsort(-perf)).tolist()
        matches.append(
            Match(f"m{k}", k, [[f"p{p}"] for p in table], ranks, roles=[[s] for s in seats])
        )
    replayer = build_model("cardplay", draw_probability=0.0).replayer()
    index = PlayerIndex()
    out = []
    start = 0
    for stop in [c for c in (50, 100, 200, 500, 1000, 2000, 5000) if c <= n_games]:
        replayer.feed(replayer.encode(matches[start:stop], index, None), predict=False, keep=False)
        roles = replayer.roles()
        others = [roles[s] for s in seats[1:]]
        learned = roles["East"].mu - sum(r.mu for r in others) / 3
        sd = math.sqrt(roles["East"].sigma ** 2 + sum(r.sigma**2 for r in others) / 9)
        out.append((stop, learned, sd))
        start = stop
    return out


def games_to(taus: Sequence[float], checkpoints: Sequence[int], goal: float) -> int | None:
    for n, t in zip(checkpoints, taus, strict=True):
        if t >= goal:
            return n
    return None


def plot(
    path: str,
    checkpoints: Sequence[int],
    mean_tau: dict[tuple[str, str], np.ndarray],
    edge_curve: list[tuple[int, float, float]],
    edge: float,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(FORMATS) + 1, figsize=(5 * (len(FORMATS) + 1), 4.2))
    for ax, fmt in zip(axes, FORMATS, strict=False):
        for v in VARIANTS:
            ax.plot(checkpoints, mean_tau[fmt, v.name], marker="o", label=v.name)
        ax.axhline(0.9, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_title(f"Dou Dizhu, {fmt} deals")
        ax.set_xlabel("games")
        ax.set_ylabel("Kendall tau (recovered vs true order)")
        ax.legend(fontsize=8)
    ax = axes[-1]
    xs = [c for c, _, _ in edge_curve]
    ms = np.array([m for _, m, _ in edge_curve])
    sds = np.array([s for _, _, s in edge_curve])
    ax.plot(xs, ms, marker="o", label="learned East advantage")
    ax.fill_between(xs, ms - 2 * sds, ms + 2 * sds, alpha=0.25, label="+- 2 sigma")
    ax.axhline(edge, color="black", ls="--", label="true edge")
    ax.set_xscale("log")
    ax.set_title("4-player free-for-all, dealer edge")
    ax.set_xlabel("games")
    ax.set_ylabel("skill points")
    ax.legend(fontsize=8)
    fig.tight_layout()
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, path)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=12, help="graded bots, levels 0..100")
    parser.add_argument("--games", type=int, default=5000, help="games per league")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--luck-deals", type=int, default=2000, help="deals to fit luck on")
    parser.add_argument("--luck-tables", type=int, default=20, help="tables per fitted deal")
    parser.add_argument("--edge", type=float, default=3.0, help="the dealer's edge (skill)")
    parser.add_argument("--plot", default="out/luck_rating.png")
    parser.add_argument("--quick", action="store_true", help="small run (about a minute)")
    parser.add_argument(
        "--exact-luck",
        type=int,
        default=0,
        metavar="TABLES",
        help="luck of each league deal played out at TABLES tables (default: the fast estimate)",
    )
    parser.add_argument(
        "--no-fit", dest="fit", action="store_false", help="default settings, no tuning league"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.seeds, args.luck_deals = 1000, 2, 400
    checkpoints = [c for c in CHECKPOINTS if c <= args.games]
    console = Console(width=140)
    started = time.perf_counter()
    warm_engine()
    true_skill = [float(lv) for lv in levels_of(args.bots)]
    results: dict[tuple[str, str], list[Outcome]] = {}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("fitting the deal-luck regression", total=args.luck_deals)
        luck_model = LuckModel.simulate(
            args.luck_deals,
            12345,
            tables=args.luck_tables,
            progress=lambda k: progress.advance(task, k / args.luck_tables),
        )
        task = progress.add_task("fitting each model on a tuning league", total=len(VARIANTS))
        tuning = simulate("random", args.games, args.bots, 1000, luck_model, args.exact_luck)
        settings: dict[str, dict[str, Any]] = {}
        for v in VARIANTS:
            settings[v.name] = tune(to_matches(tuning, v), v) if args.fit else dict(v.params)
            progress.advance(task)
        runs = len(FORMATS) * args.seeds
        task = progress.add_task("leagues", total=runs * (1 + len(VARIANTS)))
        for fmt in FORMATS:
            for seed in range(args.seeds):
                league = simulate(fmt, args.games, args.bots, seed, luck_model, args.exact_luck)
                progress.advance(task)
                for v in VARIANTS:
                    out = rate_league(
                        to_matches(league, v), v, settings[v.name], true_skill, checkpoints
                    )
                    results.setdefault((fmt, v.name), []).append(out)
                    progress.advance(task)
        edge_curve = dealer_edge(0, max(args.games, 2000), args.edge)
    elapsed = time.perf_counter() - started

    mean_tau = {k: np.mean([o.taus for o in v], axis=0) for k, v in results.items()}
    for fmt in FORMATS:
        table = RichTable(title=f"{fmt} deals: mean Kendall tau over {args.seeds} seeds")
        table.add_column("model")
        for c in checkpoints:
            table.add_column(str(c), justify="right")
        table.add_column("games to 0.9", justify="right")
        table.add_column("log-loss (last 30%)", justify="right")
        table.add_column("rating time vs plain", justify="right")
        plain_time = sum(o.seconds for o in results[fmt, "plain"])
        for v in VARIANTS:
            taus = mean_tau[fmt, v.name]
            ratio = sum(o.seconds for o in results[fmt, v.name]) / plain_time
            reach = games_to(taus, checkpoints, 0.9)
            ll = np.mean([o.log_loss for o in results[fmt, v.name]])
            table.add_row(
                v.name,
                *(f"{t:.3f}" for t in taus),
                "not reached" if reach is None else str(reach),
                f"{ll:.4f}",
                f"{ratio:.2f}x",
            )
        console.print(table)
    for v in VARIANTS:
        shown = ", ".join(f"{k}={x:.3g}" for k, x in sorted(settings[v.name].items()))
        console.print(f"settings {v.name}: {shown}")
    roles = results["random", "+roles"][0].roles
    console.print(
        "learned role advantages (random deals, seed 0, +roles): "
        + ", ".join(f"{k}: {m:+.2f} +- {s:.2f}" for k, (m, s) in sorted(roles.items()))
    )
    console.print(
        f"dealer edge {args.edge:+.2f}: learned "
        + ", ".join(f"{n} games {m:+.2f} +- {s:.2f}" for n, m, s in edge_curve)
    )
    plot(args.plot, checkpoints, mean_tau, edge_curve, args.edge)
    load = os.getloadavg()
    console.print(
        f"wall time {elapsed:.1f} s, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"plot: {args.plot}"
    )


if __name__ == "__main__":
    main()
