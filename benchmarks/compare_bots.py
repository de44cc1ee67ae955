"""How many games tell two bots apart: random deals (DouZero's protocol) against duplicate deals
in rotated seats, and duplicate plus the luck correction (issue 39); with honesty checks.

For each pair of graded Dou Dizhu bots with a known order (``level:N`` is stronger for larger N):

* the long-run difference: one duplicate run of ``--truth-games`` games;
* (a) random deals: ``--naive-games`` games, each on a fresh random deal, the two seat
  assignments alternating (A landlord against B farmers, then B landlord against A farmers), as
  DouZero's evaluation plays them; its variance per game;
* (b) duplicate, (b') duplicate + the deal correction and (c) duplicate + the deal and action
  corrections (AIVAT's action terms for the level bots' decisions): the variance per game of
  :func:`mindsport.games.compare.compare`'s duplicate, deal-corrected and corrected estimates
  (from the long-run run);
  With ``--playouts K`` the action correction of every comparison values each move by ``K``
  playouts of the game's own bots instead of its fixed value functions (a playout costs about
  as much as a game: use a shorter ``--truth-games``);
* the cost of the action correction: the long run's seconds with and without it (one run,
  the same games), as a ratio; and for the two bots' games alone (``--cost-games`` games on
  one core: played, played with records, the action terms valued);
* the games each needs for a 95% interval of ``--width`` on the win score (and on the margin),
  ``n = (2 * 1.96 * sd / width)^2``, and the ratio (a) / (c) (goal: at least 5);
* honesty over ``--reps`` runs of ``--rep-games`` games (seeds 1..reps): the corrected and naive
  estimates agree (the corrected mean lies in the naive interval), the corrected 95% interval
  covers the long-run difference (goal: at least 93%), and the SPRT (``H0: elo = 0`` against
  ``H1: elo = --elo1``, alpha = beta = 0.05) accepts H1 for the stronger bot against the weaker
  (true Elo above elo1:
  an error is accepting H0, rate at most beta) and H0 for the stronger bot against itself
  (true Elo 0: an error is accepting H1, rate at most alpha).

``--cover-reps`` more runs measure the coverage of the 95% intervals more finely (20 runs
measure it to about +-5 points).

Luzhanqi gets the same (a) / (b) / (c) comparison on ``--junqi-sets`` setup pairs (the long
run on ``--junqi-truth-sets``, by default as many; no honesty
repetitions unless ``--junqi-reps``: ``--junqi-rep-games`` games each, the SPRT's H1 at
``--junqi-elo1``). For bots other than ``level:N`` the stronger bot of a pair is the one the long
run finds ahead; the SPRT's acceptance of H0 for the pair counts as an error only when the long
run's Elo difference is at least H1's.

    python benchmarks/compare_bots.py --plot compare_bots.png

Mahjong (``--mahjong-pairs``, none by default: its games are slow) gets the same on
``--mahjong-sets`` walls, each played in the 14 line-ups of two bots at four seats
(``--mahjong-game``: ``mahjong-east`` by default).

The plot shows the games needed by each design per pair.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from mindsport.games import Table, get_game, play_many
from mindsport.games.compare import CompareSettings, Report, Sprt, compare
from mindsport.games.compare.schedule import rotation, win_scores
from mindsport.games.many import Seeding
from mindsport.tournament.executors import make_executor

Z = 1.959963984540054


def needed(variance: float, width: float) -> float:
    """Games for a 95% interval of ``width`` at ``variance`` per game."""
    return (2 * Z * math.sqrt(variance) / width) ** 2


def naive_variances(game_name: str, a: str, b: str, games: int, seed: int) -> tuple[float, float]:
    """(a): per-game variances of the win score and the margin with a fresh deal per game and
    the line-ups of the rotation in turn (stratified by line-up, as the design cycles them)."""
    game = get_game(game_name)
    rot = rotation(game.info)
    lineups = len(rot)
    tables = [
        Table(None, rot.seating(g % lineups, a, b), (7, g)) for g in range(games - games % lineups)
    ]
    returns = play_many(game, tables, seed).reshape(-1, lineups, game.info.players)
    margins = rot.margins(returns)
    wins = win_scores(margins)
    return float(wins.var(axis=0, ddof=1).mean()), float(margins.var(axis=0, ddof=1).mean())


def action_cost(game_name: str, a: str, b: str, games: int) -> dict[str, float]:
    """Seconds to play ``games`` games of the two bots on one core, to play them with records,
    and to value their decisions (the action terms), in one run."""
    game = get_game(game_name)
    valuer = getattr(game, "decision_terms", None)
    rot = rotation(game.info)
    lineups = len(rot)
    deals = [game.sample_chance(np.random.default_rng([5, s])) for s in range(games // lineups)]
    tables = [
        Table(d, rot.seating(m, a, b), (1, s, m))
        for s, d in enumerate(deals)
        for m in range(lineups)
    ]
    warm = play_many(game, tables[:lineups], 5, records=True)  # load the compiled kernels
    if callable(valuer):
        valuer(warm, [t.bots for t in tables[:lineups]])
    t0 = time.perf_counter()
    play_many(game, tables, 5)
    played = time.perf_counter() - t0
    t0 = time.perf_counter()
    records = play_many(game, tables, 5, records=True)
    recorded = time.perf_counter() - t0
    t0 = time.perf_counter()
    terms = valuer(records, [t.bots for t in tables]) if callable(valuer) else None
    valued = time.perf_counter() - t0
    decisions = 0 if terms is None else int(terms.valued.sum())
    fast = getattr(game, "play_valued", None)
    at_once = math.nan
    if callable(fast):
        t0 = time.perf_counter()
        fast(tables, 5, Seeding.SPAWN)
        at_once = time.perf_counter() - t0
    print(
        f"   cost, the two bots' {len(tables)} games alone on one core: played {played:.2f} s, "
        f"with records {recorded:.2f} s (x{recorded / played:.1f}), {decisions} decisions "
        f"valued in {valued:.2f} s: x{(recorded + valued) / played:.1f} in all; played and "
        f"valued at once without records (what the comparison runs) {at_once:.2f} s "
        f"(x{at_once / played:.1f})"
    )
    return {"played": played, "recorded": recorded, "valued": valued, "at_once": at_once}


def per_game_variances(report: object) -> dict[str, float]:
    """(b) and (c) per game: units x se^2 / games-per-unit... i.e. lineups x sets x se^2."""
    out = {}
    for name in ("win", "margin"):
        comp = getattr(report, name)
        n, lineups = report.sets, report.lineups  # type: ignore[attr-defined]
        out[f"{name}_dup"] = lineups * n * comp.duplicate.se**2
        out[f"{name}_deal"] = lineups * n * comp.deal.se**2
        out[f"{name}_cor"] = lineups * n * comp.corrected.se**2
    return out


class Runs(NamedTuple):
    """A game's run lengths and SPRT: the long run's games, (a)'s, an honesty run's, H1's Elo."""

    truth: int
    naive: int
    rep: int
    elo1: float


def runs_of(game_name: str, args: argparse.Namespace) -> Runs:
    """The options that apply to a game: Dou Dizhu's lengths in games, the others' in sets of
    the game's rotation (Luzhanqi 2 games a set, mahjong 14)."""
    if game_name == "doudizhu":
        return Runs(args.truth_games, args.naive_games, args.rep_games, args.elo1)
    lineups = len(rotation(get_game(game_name).info))
    if game_name == "junqi":
        truth = args.junqi_truth_sets or args.junqi_sets
        return Runs(
            lineups * truth, lineups * args.junqi_sets, args.junqi_rep_games, args.junqi_elo1
        )
    sets = lineups * args.mahjong_sets
    return Runs(sets, sets, args.mahjong_rep_games, args.mahjong_elo1)


def study(
    game_name: str, a: str, b: str, args: argparse.Namespace, ex: object, reps: int
) -> dict[str, object]:
    game = get_game(game_name)
    t0 = time.perf_counter()
    runs = runs_of(game_name, args)
    settings = CompareSettings(
        seed=1000,
        max_games=runs.truth,
        batch=2000,
        calibration=args.calibration,
        playouts=args.playouts if args.truth_playouts is None else args.truth_playouts,
    )
    long_run = compare(game, a, b, settings, executor=ex)  # type: ignore[arg-type]
    seconds_on = time.perf_counter() - t0
    plain, seconds_off = long_run, seconds_on  # nothing valued: the run is the plain one
    if long_run.valued:  # the same run without the action correction: what it costs
        t1 = time.perf_counter()
        plain = compare(game, a, b, replace(settings, actions=False), executor=ex)  # type: ignore[arg-type]
        seconds_off = time.perf_counter() - t1
    var_a_win, var_a_margin = naive_variances(game_name, a, b, runs.naive, 2000)
    v = per_game_variances(long_run)
    row: dict[str, object] = {
        "pair": f"{a} vs {b}",
        "truth_win": long_run.win.corrected.mean,
        "truth_margin": long_run.margin.corrected.mean,
        "truth_elo": long_run.elo.mean,
        "seconds": (seconds_off, seconds_on),
        "var": {"win_a": var_a_win, "margin_a": var_a_margin, **v},
    }
    for name, var_a, width in (
        ("win", var_a_win, args.width),
        ("margin", var_a_margin, args.margin_width),
    ):
        na, nb = needed(var_a, width), needed(v[f"{name}_dup"], width)
        nd, nc = needed(v[f"{name}_deal"], width), needed(v[f"{name}_cor"], width)
        row[f"{name}_needed"] = (na, nb, nc)
        row[f"{name}_deal_needed"] = nd
        print(
            f"{game_name} {a} vs {b} {name}: width {width}: (a) {na:.0f} games, (b) {nb:.0f}, "
            f"(b') deal-corrected {nd:.0f}, (c) {nc:.0f}; (a)/(b) {na / nb:.2f}, "
            f"(b)/(c) {nb / nc:.2f}, (a)/(c) {na / nc:.2f}"
        )
    print(
        f"   long run ({long_run.games} games, {long_run.reference_games} reference games): "
        f"win {long_run.win.corrected.mean:.4f} +- {long_run.win.corrected.se:.4f}, "
        f"margin {long_run.margin.corrected.mean:.4f}, Elo {long_run.elo.mean:.1f}; "
        f"in-run gains win x{long_run.win.duplicate_gain:.2f} then deal x"
        f"{long_run.win.correction_gain:.2f} then actions x{long_run.win.action_gain:.2f}; "
        f"{long_run.valued} decisions valued"
    )
    print(
        f"   cost of the action correction: {seconds_on:.1f} s with it, {seconds_off:.1f} s "
        f"without (the same {plain.games} games and {plain.reference_games} reference games): "
        f"x{seconds_on / max(seconds_off, 1e-9):.2f}"
    )
    if args.cost_games:
        row["cost"] = action_cost(game_name, a, b, args.cost_games)
    if reps:
        row["honesty"] = honesty(game_name, a, b, args, ex, reps, long_run)
    if args.cover_reps and game_name == "doudizhu":
        row["coverage"] = coverage(game_name, a, b, args, long_run, ex)
    return row


def corrected_in_naive(rep: Report) -> bool:
    """The corrected win score lies in the naive interval."""
    return rep.win.naive.low <= rep.win.corrected.mean <= rep.win.naive.high


def luck_covers_zero(rep: Report) -> bool:
    """The interval of the luck removed from the win score contains 0 (its expectation)."""
    return rep.win.luck.low <= 0.0 <= rep.win.luck.high


def interval_coverage(
    game_name: str,
    a: str,
    b: str,
    args: argparse.Namespace,
    ex: object,
    reps: int,
    long_run: object,
) -> dict[str, object]:
    """``reps`` runs of the game's honesty length: how often the corrected (and the duplicate)
    95% interval covers the long run, and how often corrected and naive agree; printed, and as
    fractions of ``reps``."""
    game = get_game(game_name)
    truth_w = long_run.win.corrected.mean  # type: ignore[attr-defined]
    truth_m = long_run.margin.corrected.mean  # type: ignore[attr-defined]
    cover_w = cover_m = cover_dup = agree = within = luck = 0
    ses = []
    games = runs_of(game_name, args).rep
    for r in range(1, reps + 1):
        rep = compare(
            game,
            a,
            b,
            CompareSettings(
                seed=r,
                max_games=games,
                batch=games,
                calibration=args.calibration,
                playouts=args.playouts,
            ),
            executor=ex,  # type: ignore[arg-type]
        )
        c, n = rep.win.corrected, rep.win.naive
        ses.append(c.se)
        cover_w += c.low <= truth_w <= c.high
        cover_dup += rep.win.duplicate.low <= truth_w <= rep.win.duplicate.high
        cover_m += rep.margin.corrected.low <= truth_m <= rep.margin.corrected.high
        agree += corrected_in_naive(rep) and (c.low <= n.mean <= c.high)
        within += corrected_in_naive(rep)
        luck += luck_covers_zero(rep)
    # the long-run value has its own error: a 95% interval covers it less often than 95%
    from scipy.stats import norm

    se_rep = float(np.sqrt(np.mean(np.square(ses))))
    se_truth = long_run.win.corrected.se  # type: ignore[attr-defined]
    expected = 2 * norm.cdf(Z * se_rep / math.hypot(se_rep, se_truth)) - 1
    print(
        f"   honesty, {reps} runs of {games} games: corrected 95% interval covers the long-run "
        f"win score {cover_w}/{reps}, margin {cover_m}/{reps} (duplicate, win: "
        f"{cover_dup}/{reps}); corrected and naive agree {agree}/{reps} (each mean in the "
        f"other's interval; the corrected mean in the naive interval {within}/{reps}: a "
        f"correction that removes most of the variance leaves the naive mean outside its "
        f"narrow interval often, by design); the luck removed covers 0 {luck}/{reps}; the long "
        f"run's own error (se {se_truth:.4f} against {se_rep:.4f}) makes the expected coverage "
        f"{100 * expected:.1f}%"
    )
    return {
        "cover_win": cover_w / reps,
        "expected_cover": expected,
        "cover_margin": cover_m / reps,
        "agree": agree / reps,
        "corrected_in_naive": within / reps,
        "luck_covers_zero": luck / reps,
    }


def honesty(
    game_name: str,
    a: str,
    b: str,
    args: argparse.Namespace,
    ex: object,
    reps: int,
    long_run: object,
) -> dict[str, object]:
    game = get_game(game_name)
    truth_elo = long_run.elo.mean  # type: ignore[attr-defined]
    runs = runs_of(game_name, args)
    found = {} if args.sprt_only else interval_coverage(game_name, a, b, args, ex, reps, long_run)
    wrong_h1 = wrong_h0 = 0
    used_pair, used_self = [], []
    elo1 = runs.elo1
    sprt = Sprt(0.0, elo1, 0.05, 0.05)
    # the stronger bot: the one the long run finds ahead (for level:N, the larger N)
    strong, weak = (a, b) if truth_elo >= 0 else (b, a)
    h1_holds = abs(truth_elo) >= elo1  # accepting H0 is an error only then
    for r in range(1, reps + 1):
        settings = CompareSettings(
            seed=100 + r,
            max_games=args.sprt_games,
            batch=50,
            stop=sprt,
            calibration=args.calibration,
            playouts=args.playouts,
        )
        pair = compare(game, strong, weak, settings, executor=ex)  # type: ignore[arg-type]
        wrong_h0 += pair.sprt is not None and pair.sprt.verdict == "H0"
        used_pair.append(pair.games)
        same = compare(game, strong, strong, settings, executor=ex)  # type: ignore[arg-type]
        wrong_h1 += same.sprt is not None and same.sprt.verdict == "H1"
        used_self.append(same.games)
    print(
        f"   SPRT H0 elo=0 vs H1 elo={elo1:g}, alpha=beta=0.05, {reps} runs each: "
        f"{strong} against {weak} (true Elo {abs(truth_elo):.0f}"
        f"{'' if h1_holds else ', between H0 and H1: no verdict is an error'}) accepted H0 "
        f"{wrong_h0}/{reps} "
        f"(median {np.median(used_pair):.0f} games); {strong} against itself accepted H1 "
        f"{wrong_h1}/{reps} (median {np.median(used_self):.0f} games, budget {args.sprt_games})"
    )
    return {**found, "sprt_wrong_h0": wrong_h0 / reps, "sprt_wrong_h1": wrong_h1 / reps}


def coverage(
    game_name: str, a: str, b: str, args: argparse.Namespace, long_run: object, ex: object
) -> dict[str, float]:
    """The coverage of the 95% intervals over ``--cover-reps`` more runs of ``--cover-games``
    games (seeds from ``--cover-seed``, ``--cover-calibration`` calibration deals): 20 runs
    measure a coverage to about +-5 points only."""
    game = get_game(game_name)
    truth = {"win": long_run.win.corrected.mean, "margin": long_run.margin.corrected.mean}  # type: ignore[attr-defined]
    z: dict[str, list[float]] = {f"{m} {k}": [] for m in truth for k in ("corrected", "duplicate")}
    within = 0  # the corrected win score in the naive interval
    luck = 0  # the luck removed from the win score: its interval covers 0
    for seed in range(args.cover_seed, args.cover_seed + args.cover_reps):
        settings = CompareSettings(
            seed=seed,
            max_games=args.cover_games,
            batch=args.cover_games,
            calibration=args.cover_calibration,
            playouts=args.playouts,
        )
        rep = compare(game, a, b, settings, executor=ex)  # type: ignore[arg-type]
        inside, zero = corrected_in_naive(rep), luck_covers_zero(rep)
        within += inside
        luck += zero
        for m, comp in (("win", rep.win), ("margin", rep.margin)):
            for k, e in (("corrected", comp.corrected), ("duplicate", comp.duplicate)):
                z[f"{m} {k}"].append((e.mean - truth[m]) / e.se if e.se > 0 else 0.0)
        print(  # one line a run, so that a long series can be pooled or cut short
            f"     run {seed}: z "
            + " ".join(f"{key} {v[-1]:+.3f}" for key, v in z.items())
            + f"; corrected win in the naive interval {'yes' if inside else 'no'}"
            + f"; the luck removed covers 0 {'yes' if zero else 'no'}"
            + "; win naive/duplicate/corrected mean (se) "
            + " ".join(
                f"{e.mean:.4f} ({e.se:.4f})"
                for e in (rep.win.naive, rep.win.duplicate, rep.win.corrected)
            ),
            flush=True,
        )
    from scipy.stats import t

    q = float(t.ppf(0.975, args.cover_games // 2 - 1))
    out = {key: float(np.mean(np.abs(v) <= q)) for key, v in z.items()}
    print(
        f"   coverage, {args.cover_reps} runs of {args.cover_games} games (seeds "
        f"{args.cover_seed}..): "
        + ", ".join(
            f"{key} {100 * out[key]:.1f}% (sd of z {np.std(v, ddof=1):.3f})" for key, v in z.items()
        )
        + f"; the corrected win score in the naive interval {within}/{args.cover_reps}"
        + f"; the luck removed from the win score covers 0 {luck}/{args.cover_reps}"
    )
    return {
        **out,
        "corrected_in_naive": within / args.cover_reps,
        "luck_covers_zero": luck / args.cover_reps,
    }


def plot(rows: list[dict[str, object]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, name in zip(axes, ("win", "margin"), strict=True):
        labels = [str(r["pair"]) for r in rows]
        values = np.array([r[f"{name}_needed"] for r in rows], dtype=float)
        x = np.arange(len(rows))
        for k, design in enumerate(("(a) random deals", "(b) duplicate", "(c) duplicate + luck")):
            ax.bar(x + (k - 1) * 0.27, values[:, k], 0.27, label=design)
        ax.set_xticks(x, labels, rotation=15, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("games for the 95% interval")
        ax.set_title(f"{name}: games needed")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--pairs",
        default="level:90/level:70,level:90/level:30",
        help="Dou Dizhu pairs A/B, comma-separated (empty: none)",
    )
    p.add_argument(
        "--truth-games", type=int, default=20000, help="games of the long run of each pair"
    )
    p.add_argument(
        "--naive-games", type=int, default=20000, help="(a): games on fresh random deals"
    )
    p.add_argument("--reps", type=int, default=20, help="honesty runs per pair (0: none)")
    p.add_argument("--rep-games", type=int, default=2000, help="games of each honesty run")
    p.add_argument("--sprt-games", type=int, default=6000, help="game budget of each SPRT run")
    p.add_argument(
        "--sprt-only",
        action="store_true",
        help="of the honesty checks, the SPRT's error rates only (no interval coverage runs)",
    )
    p.add_argument("--elo1", type=float, default=30.0, help="the Dou Dizhu SPRT's H1 (Elo)")
    p.add_argument("--width", type=float, default=0.04, help="win-score interval width")
    p.add_argument("--margin-width", type=float, default=0.2, help="margin interval width")
    p.add_argument(
        "--calibration",
        type=int,
        default=4,
        help="calibration deals per set the deal correction's reference bots play",
    )
    p.add_argument(
        "--playouts",
        type=int,
        default=0,
        help="the action correction's value of a move: the mean of this many playouts of the "
        "game's own bots (0: the fixed value functions); every comparison of the run",
    )
    p.add_argument(
        "--truth-playouts",
        type=int,
        default=None,
        help="--playouts of the long run alone (default: --playouts): a long run with the fixed "
        "values is cheap, and its estimate is as unbiased",
    )
    p.add_argument(
        "--cost-games",
        type=int,
        default=2000,
        help="games of the action correction's cost on one core (0: not measured)",
    )
    p.add_argument(
        "--cover-reps", type=int, default=0, help="more coverage runs per pair (0: none)"
    )
    p.add_argument("--cover-games", type=int, default=400, help="games of each coverage run")
    p.add_argument("--cover-seed", type=int, default=3000, help="seed of the first coverage run")
    p.add_argument(
        "--cover-calibration", type=int, default=2, help="--calibration of the coverage runs"
    )
    p.add_argument(
        "--junqi-pairs", default="belief/greedy", help="Luzhanqi pairs A/B (empty: none)"
    )
    p.add_argument(
        "--junqi-sets", type=int, default=150, help="Luzhanqi (a): set-up pairs, fresh each"
    )
    p.add_argument(
        "--junqi-truth-sets", type=int, default=0, help="the long run's sets (0: --junqi-sets)"
    )
    p.add_argument("--junqi-reps", type=int, default=0, help="Luzhanqi honesty runs")
    p.add_argument(
        "--junqi-rep-games", type=int, default=100, help="games of each Luzhanqi honesty run"
    )
    p.add_argument("--junqi-elo1", type=float, default=60.0, help="the Luzhanqi SPRT's H1")
    p.add_argument("--mahjong-pairs", default="", help="e.g. level:15/level:0 (slow games)")
    p.add_argument("--mahjong-game", default="mahjong-east", help="the registered mahjong game")
    p.add_argument("--mahjong-sets", type=int, default=100, help="walls, 14 games each")
    p.add_argument("--mahjong-reps", type=int, default=0, help="mahjong honesty runs")
    p.add_argument(
        "--mahjong-rep-games", type=int, default=280, help="games of each mahjong honesty run"
    )
    p.add_argument("--mahjong-elo1", type=float, default=60.0, help="the mahjong SPRT's H1")
    p.add_argument(
        "--workers", type=int, default=1, help="worker processes (1: serial, in this process)"
    )
    p.add_argument(
        "--plot", type=Path, default=None, help="write the games-needed bar chart (PNG) here"
    )
    args = p.parse_args()
    rows = []
    kind = "serial" if args.workers == 1 else "local"
    with make_executor(kind, args.workers) as ex:
        for pair in filter(None, args.pairs.split(",")):
            a, b = pair.split("/")
            rows.append(study("doudizhu", a, b, args, ex, args.reps))
        for pair in filter(None, args.junqi_pairs.split(",")):
            a, b = pair.split("/")
            rows.append(study("junqi", a, b, args, ex, args.junqi_reps))
        for pair in filter(None, args.mahjong_pairs.split(",")):
            a, b = pair.split("/")
            rows.append(study(args.mahjong_game, a, b, args, ex, args.mahjong_reps))
    if args.plot is not None:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
