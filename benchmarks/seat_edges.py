"""Seats against the average seat: coverage and width of the intervals, before and after issue 38.

Simulated leagues from TrueSkill's own performance model (skill plus ``N(0, beta^2)`` noise per
player, a team's performance the sum of its players', the seat's edge added to its team; 16
players of skills ``N(25, 4^2)``, random tables), rated by ``cardplay`` (``draw_probability=0``):

* ``mahjong``: four single-player teams, East +3.00 over the other seats, so +2.25 against the
  average seat;
* ``ddz``: the landlord alone against two farmers, the landlord's side +24 performance points;
  at a table of three players of the league's mean skill ``m`` that is ``(24 - m) / 2`` above
  the average side (the farmers' side: the opposite).

For each league size, over many leagues (seeds), the East (landlord) row is scored three ways:

* ``before (shown)``: what the board showed, the role's learned mean with its marginal
  deviation (``east seat: +2.35 skill points (± 0.08)``), read as an estimate of the seat
  against the average seat (the mean minus the mean of the roles' means; for the landlord,
  half of its mean minus the farmers' means), band ``± 1.96 sigma``;
* ``before (contrast)``: the same estimate with the deviation of that contrast as if the roles
  were independent (``sqrt(sigma_E^2 + sum sigma_o^2 / 9)``; the landlord: half the root of the
  sum of the three variances); for Dou Dizhu the target of both is the landlord's edge of
  the simulation, +12 against the average side, which the model's values stand for when its
  players' ratings sit at their true level;
* ``after``: the side against the average side from the seat statistics
  (:mod:`mindsport.rating.trueskill.seats`) with its 95% interval (the sandwich); ``after (H
  only)``: the same estimate with the variance of the information alone, for comparison.

Reported: coverage of the truth (with its 95% Clopper-Pearson interval over the leagues), mean
width of the interval, mean error (bias) and root mean square error. Every league takes an
explicit seed.

    .venv/bin/python benchmarks/seat_edges.py                 # 200 leagues a size
    .venv/bin/python benchmarks/seat_edges.py --leagues 50 --sizes 300,1000
    .venv/bin/python benchmarks/seat_edges.py --leagues 2 --sizes 300 --speed  # the cost
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mindsport.match import Match
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.rating.trueskill.cardplay import CardPlay
from mindsport.rating.trueskill.seats import COUNT, LEVEL, SIZE, SLOPE

BETA = 25 / 6
SEATS = ("East", "South", "West", "North")
Z = float(stats.norm.ppf(0.975))


@dataclass(frozen=True)
class League:
    matches: list[Match]
    truth: float  # the side against the average side
    old_truth: float  # what the model's own role values stand for


def mahjong(seed: int, n: int, players: int = 16, edge: float = 3.0) -> League:
    rng = np.random.default_rng([seed, 4])
    skills = rng.normal(25.0, 4.0, players)
    out = []
    for k in range(n):
        table = rng.choice(players, 4, replace=False)
        perf = skills[table] + rng.normal(0.0, BETA, 4)
        perf[0] += edge
        ranks = np.argsort(np.argsort(-perf)).tolist()
        out.append(Match(f"m{k}", k, [[f"p{p}"] for p in table], ranks,
                         roles=[[s] for s in SEATS]))  # fmt: skip
    return League(out, edge * 3 / 4, edge * 3 / 4)


def doudizhu(seed: int, n: int, players: int = 16, edge: float = 24.0) -> League:
    rng = np.random.default_rng([seed, 5])
    skills = rng.normal(25.0, 4.0, players)
    out = []
    for k in range(n):
        a, b, c = rng.choice(players, 3, replace=False)
        perf = skills[[a, b, c]] + rng.normal(0.0, BETA, 3)
        ranks = [0, 1] if perf[0] + edge > perf[1] + perf[2] else [1, 0]
        out.append(Match(f"d{k}", k, [[f"p{a}"], [f"p{b}", f"p{c}"]], ranks,
                         roles=[["landlord"], ["farmer1", "farmer2"]]))  # fmt: skip
    return League(out, (edge - float(skills.mean())) / 2, edge / 2)


def score(league: League) -> dict[str, tuple[float, float]]:
    """Per method: (estimate, half-width of its 95% band) for East (the landlord)."""
    replayer = CardPlay(draw_probability=0.0).replayer()
    replayer.feed(replayer.encode(league.matches, PlayerIndex(), None), predict=False, keep=False)
    roles = replayer.roles()
    if "East" in roles:
        mean = sum(roles[s].mu for s in SEATS) / 4
        old = roles["East"].mu - mean
        shown = roles["East"].sigma
        contrast = math.sqrt(
            roles["East"].sigma ** 2 + sum(roles[s].sigma ** 2 for s in SEATS[1:]) / 9
        )
        side = "East"
    else:
        old = (roles["landlord"].mu - roles["farmer1"].mu - roles["farmer2"].mu) / 2
        shown = roles["landlord"].sigma
        contrast = math.sqrt(sum(r.sigma**2 for r in roles.values())) / 2
        side = "landlord"
    (edge,) = (e for e in replayer.seat_edges() if e.side == side)
    assert edge.vs_average is not None and edge.high is not None
    # the information alone (no sandwich): the variance H^+ of the same estimate (the side at
    # the league's mean rating: kappa's coefficient as in seats.seat_edges)
    names = replayer.seats.names
    st = replayer.seats.stats
    idx = [*range(len(names)), SLOPE, LEVEL]
    h_plus = np.linalg.pinv(st[np.ix_(idx, idx)], hermitian=True)
    sizes = st[: len(names), SIZE] / st[: len(names), COUNT]
    c = np.zeros(len(idx))
    c[: len(names)] = -1.0 / len(names)
    c[names.index(side)] += 1.0
    rating = st[SLOPE, SIZE] / st[SLOPE, COUNT]
    c[-1] = (sizes[names.index(side)] - sizes.mean()) * rating
    return {
        "before (shown)": (old, Z * shown),
        "before (contrast)": (old, Z * contrast),
        "after (H only)": (edge.vs_average, Z * math.sqrt(float(c @ h_plus @ c))),
        "after": (edge.vs_average, edge.high - edge.vs_average),
    }


def run(make: Callable[[int, int], League], n: int, leagues: int) -> dict[str, list[float]]:
    rows: dict[str, list[tuple[float, float, float]]] = {}
    for seed in range(leagues):
        lg = make(seed, n)
        for method, (est, half) in score(lg).items():
            truth = lg.truth if method.startswith("after") else lg.old_truth
            rows.setdefault(method, []).append((est - truth, half, truth))
    out = {}
    for method, r in rows.items():
        a = np.asarray(r)
        covered = int(np.sum(np.abs(a[:, 0]) <= a[:, 1]))
        lo, hi = stats.binomtest(covered, leagues).proportion_ci(0.95)
        out[method] = [
            covered / leagues, lo, hi, 2 * float(a[:, 1].mean()), float(a[:, 0].mean()),
            float(np.sqrt(np.mean(a[:, 0] ** 2))), float(a[:, 2].mean()),
        ]  # fmt: skip
    return out


def speed(n: int = 20000, repeats: int = 5) -> tuple[float, float]:
    """Seconds to feed ``n`` four-seat matches with roles to the compiled replay, with the
    seat statistics and without them (every side untracked), best of ``repeats``."""
    matches = mahjong(1, n).matches

    def once(off: bool) -> float:
        replayer = CardPlay(draw_probability=0.0).replayer()
        if off:
            replayer.seats.index = lambda side: -1
        block = replayer.encode(matches, PlayerIndex(), None)
        start = time.perf_counter()
        replayer.feed(block, predict=True, keep=True)
        return time.perf_counter() - start

    once(False), once(True)  # compile
    return min(once(False) for _ in range(repeats)), min(once(True) for _ in range(repeats))


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--leagues", type=int, default=200, help="leagues (seeds) per size")
    ap.add_argument("--sizes", default="300,1000,3000", help="matches per league")
    ap.add_argument("--speed", action="store_true", help="also time the replay with and without")
    args = ap.parse_args(argv)
    if args.leagues < 2:
        ap.error(f"--leagues {args.leagues}: must be at least 2")
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"{args.leagues} leagues of 16 players per row; 95% bands; truth: the seat against "
          "the average seat (before: what the model's values stand for)")  # fmt: skip
    print(f"{'setting':8} {'matches':>7}  {'method':18} {'coverage':>8} {'(95% CI)':>15} "
          f"{'width':>7} {'bias':>7} {'rmse':>7} {'truth':>7}")  # fmt: skip
    for name, make in (("mahjong", mahjong), ("ddz", doudizhu)):
        for n in sizes:
            start = time.perf_counter()
            res = run(make, n, args.leagues)
            for method, (cov, lo, hi, width, bias, rmse, truth) in res.items():
                print(f"{name:8} {n:7d}  {method:18} {cov:8.3f} ({lo:.3f}, {hi:.3f}) "
                      f"{width:7.3f} {bias:+7.3f} {rmse:7.3f} {truth:+7.3f}")  # fmt: skip
            print(f"{'':8} {'':7}  ({time.perf_counter() - start:.1f} s)")
    if args.speed:
        on, off = speed()
        print(f"replay of 20,000 four-seat matches with roles: {on:.3f} s with the seat "
              f"statistics, {off:.3f} s without (ratio {on / off:.2f}; best of 5)")  # fmt: skip


if __name__ == "__main__":
    main()
