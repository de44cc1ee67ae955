"""What the seats of riichi mahjong are worth, as the ``cardplay`` model shows them, on the
engine's games: each seat against the average seat with its interval, next to what needs no
model (the mean place and final points by seat), and the intervals checked against the other
leagues.

The games are the leagues of ``benchmarks/mahjong_ratings.py`` (its cache: 16 graded bots at
random tables of four, east-only, random and duplicate walls, one league per seed and dealing;
fill it with ``mahjong_ratings.py --simulate-only``). Each league is rated by TrueSkill with the
seats as roles and the final points as score margins (``cardplay``, the settings fitted on a
held-out league by ``mahjong_ratings.py``: ``beta`` 4.17, ``margin_scale`` 0.0004,
``margin_noise`` 4.17), and the model's seat estimate read
(:meth:`~mindsport.rating.trueskill.cardplay.CardPlayReplayer.seat_edges`: each seat against
the average seat, in skill points, with its 95% interval).

Two checks that need no truth given in advance:

* **order**: the seats ordered by the model's estimate against the seats ordered by the mean
  place they finished in (the same games, no model), per league;
* **coverage**: every league estimates the same thing (the engine's seat advantage for these
  bots), so each league's interval is checked against the precision-weighted mean of the
  *other* leagues of its dealing (their estimates are independent of its own). That mean has
  its own error (half of one league's when four others are pooled), so an exact 95% interval
  covers it less often than 95% (the expected rate, 92% with five leagues, is printed beside
  the count).

    .venv/bin/python benchmarks/mahjong_seats.py --cache /tmp/mjrate-cache --games 10000
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import kendalltau, norm

from mindsport.rating import build_model
from mindsport.rating.replay.blocks import PlayerIndex

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mahjong_leagues import DEALINGS, cache_path, read_cache  # beside this script
from mahjong_ratings import SEATS, league_matches

SETTINGS = {"draw_probability": 0.0, "beta": 4.17, "margin_scale": 0.0004, "margin_noise": 4.17}


def seat_estimates(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float, float, float]]:
    """The model's estimate of each seat against the average seat after the league's games:
    ``seat -> (estimate, low, high)`` (skill points, the 95% interval)."""
    model = build_model("cardplay", **SETTINGS)
    replayer = model.replayer()
    matches = league_matches(rows, "seats")
    replayer.feed(replayer.encode(matches, PlayerIndex(), None), predict=False, keep=False)
    return {e.side: (e.vs_average, e.low, e.high) for e in replayer.seat_edges()}


def by_seat(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[np.ndarray, np.ndarray]:
    """The mean of ``key`` (``places`` or ``points``) by seat and its standard error."""
    x = np.array([r[key] for r in rows], dtype=np.float64)
    return x.mean(axis=0), x.std(axis=0, ddof=1) / math.sqrt(len(x))


def coverage(
    estimates: Sequence[Mapping[str, tuple[float, float, float]]],
) -> tuple[int, int, float]:
    """How many of the leagues' intervals cover the precision-weighted mean of the other
    leagues' estimates, out of how many, and the rate expected of exact 95% intervals given
    the others' mean's own error."""
    z = norm.ppf(0.975)
    hits = total = 0
    expected = []
    for seat in SEATS:
        est = np.array([e[seat][0] for e in estimates])
        sd = np.array([(e[seat][2] - e[seat][1]) / (2 * z) for e in estimates])
        w = 1.0 / sd**2
        for i in range(len(est)):
            others = np.arange(len(est)) != i
            pooled = float((w[others] * est[others]).sum() / w[others].sum())
            pooled_sd = math.sqrt(1.0 / w[others].sum())
            lo, hi = estimates[i][seat][1], estimates[i][seat][2]
            hits += int(lo <= pooled <= hi)
            total += 1
            # P(|est_i - pooled| <= z sd_i) when est_i - pooled ~ N(0, sd_i^2 + pooled_sd^2)
            expected.append(2 * norm.cdf(z * sd[i] / math.hypot(sd[i], pooled_sd)) - 1)
    return hits, total, float(np.mean(expected))


def report(cache: Path, bots: int, seeds: Sequence[int], games: int) -> str:
    lines = [
        f"seats of east-only games, {bots} graded bots, seeds {list(seeds)}, the first {games} "
        f"games of each league; the model: cardplay {SETTINGS}",
        "",
        f"{'dealing':10} {'seed':>4} {'seat':6} {'vs average (95%)':>26} {'mean place':>17} "
        f"{'mean points':>19}",
    ]
    summary = []
    for dealing in DEALINGS:
        estimates = []
        agree = []
        for seed in seeds:
            rows = read_cache(cache_path(cache, bots, seed, dealing))[:games]
            if len(rows) < games:
                raise SystemExit(f"{cache}: league {seed}/{dealing} has {len(rows)} games")
            est = seat_estimates(rows)
            place, place_se = by_seat(rows, "places")
            points, points_se = by_seat(rows, "points")
            for k, seat in enumerate(SEATS):
                v, lo, hi = est[seat]
                lines.append(
                    f"{dealing:10} {seed:>4} {seat:6} {v:+8.3f} [{lo:+7.3f}, {hi:+7.3f}] "
                    f"{place[k]:8.3f} +- {place_se[k]:.3f} {points[k]:10.0f} +- {points_se[k]:4.0f}"
                )
            tau = kendalltau([est[s][0] for s in SEATS], -place).statistic
            agree.append(float(tau))
            estimates.append(est)
        hits, total, expected = coverage(estimates)
        summary.append(
            f"{dealing}: the model's order of the seats against their order by mean place, "
            f"Kendall tau per league {', '.join(f'{t:.2f}' for t in agree)}; the intervals "
            f"cover the other leagues' pooled estimate {hits}/{total} "
            f"(expected {expected * total:.1f}/{total}, {expected:.1%})"
        )
        lines.append("")
    return "\n".join([*lines, *summary])


def main(argv: Sequence[str] | None = None) -> None:
    class _Help(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
        pass

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=_Help)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/mindsport-mahjong-ratings"))
    parser.add_argument("--games", type=int, default=2000, help="games per league")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated league seeds")
    parser.add_argument("--bots", type=int, default=16, help="graded bots of the leagues")
    parser.add_argument("--out", type=Path, default=None, help="write the report here too")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    if len(seeds) < 3 or args.games < 100:
        parser.error("--seeds: at least three leagues; --games: at least 100")
    text = report(args.cache, args.bots, seeds, args.games)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
