"""Win/draw/loss (three-way) evaluation of rating models where draws occur, against a constant
baseline.

Two histories of two-team matches:

* **Halo 2 head-to-head** (6,227 games of the Halo 2 beta, 1 vs 1, about 8% drawn; the data set
  of the TrueSkill paper; read by path from ``--data``, see /work/shared/data/README.md). The
  team listed first is whichever the file lists first: there is no home side.
* **generated**: ``--players`` players with skills drawn from N(0, 1); each match pairs two
  players at random, one at home (listed first, role ``home``), one away (role ``away``); the
  home side performs ``s_home + h + e1`` and the away side ``s_away + e2`` with independent
  N(0, 1) noises, and the match is drawn when the two performances are within ``eps`` of each
  other. ``h`` and ``eps`` are solved for so that, over the skills drawn, the expected draw rate
  and home win rate are ``--draw-rate`` and ``--home-rate`` exactly (so the truth is known:
  the **oracle** row scores the true probabilities of every match, the floor any model can
  reach).

Protocol (each model, one run): settings chosen on the first 70% by one-step-ahead log-loss
(:func:`mindsport.history.fit`, its default grid; since the training part has draws, the
objective is the three-way log-loss), the chosen model then replays the whole history and is
scored on the last 30% only: the pairwise metrics of decisive pairs (draws skipped) and the
three-way ones (:mod:`mindsport.history.threeway`). TrueSkill and ``cardplay`` predict the
draw probability from their draw margin; Elo and Glicko-2 give an expected score, turned into
three probabilities by Davidson's draw model with its one parameter fitted on the training part.
``cardplay`` is given the home/away roles and learns the home advantage; the others have no
roles. The **constant** row forecasts every scored match with the training part's rates of
first-listed wins, draws and first-listed losses.

Run (from the repository root; one core, about a minute):

    .venv/bin/python benchmarks/evaluate_three_way.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from mindsport.history import fit, read_matches
from mindsport.history.threeway import constant_baseline, score_forecasts, two_team_outcomes
from mindsport.match import Match

MODELS = ("trueskill", "elo", "glicko2", "cardplay")


def _rates(h: float, eps: float, gaps: np.ndarray) -> tuple[float, float]:
    """Expected (draw rate, home win rate) over skill gaps ``s_home - s_away``."""
    c = math.sqrt(2.0)
    win = norm.cdf((gaps + h - eps) / c)
    loss = norm.cdf((-gaps - h - eps) / c)
    return float(np.mean(1.0 - win - loss)), float(np.mean(win))


def generated(
    n_matches: int, n_players: int, draw_rate: float, home_rate: float, seed: int
) -> tuple[list[Match], np.ndarray, dict[str, float]]:
    """The generated history (see the module docstring), each match's true three-way
    probabilities, and the solved ``h`` and ``eps``."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, n_players)
    pairs = np.array([rng.choice(n_players, 2, replace=False) for _ in range(n_matches)])
    gaps = skill[pairs[:, 0]] - skill[pairs[:, 1]]

    def solve_eps(h: float) -> float:
        return brentq(lambda e: _rates(h, e, gaps)[0] - draw_rate, 0.0, 10.0)

    h = brentq(lambda x: _rates(x, solve_eps(x), gaps)[1] - home_rate, -3.0, 3.0)
    eps = solve_eps(h)
    diff = gaps + h + rng.normal(0.0, math.sqrt(2.0), n_matches)
    c = math.sqrt(2.0)
    win = norm.cdf((gaps + h - eps) / c)
    loss = norm.cdf((-gaps - h - eps) / c)
    truth = np.stack([win, 1.0 - win - loss, loss], axis=1)
    ms = []
    for i, ((a, b), d) in enumerate(zip(pairs.tolist(), diff.tolist(), strict=True)):
        ranks = [0, 0] if abs(d) < eps else ([0, 1] if d > 0 else [1, 0])
        ms.append(Match(f"g{i}", i, [[f"p{a}"], [f"p{b}"]], ranks, roles=[["home"], ["away"]]))
    return ms, truth, {"h": h, "eps": eps}


def strip_roles(ms: list[Match]) -> list[Match]:
    """The matches without roles (what the models without roles are given)."""
    return [Match(m.id, m.time, m.teams, m.ranks) for m in ms]


def run(ms: list[Match], truth: np.ndarray | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    plain = strip_roles(ms) if any(m.roles for m in ms) else ms
    n_train = 0
    for name in MODELS:
        t0 = time.perf_counter()
        data = ms if name == "cardplay" else plain
        res = fit(name, data, 0.7)
        n_train = res.n_train
        tw = res.test.three_way
        assert tw is not None
        rows.append(
            {
                "model": name,
                "roles": name == "cardplay" and data is ms and any(m.roles for m in ms),
                "settings": {
                    k: round(v, 4) if isinstance(v, float) else v for k, v in res.params.items()
                },
                "objective": res.objective,
                "pairwise_log_loss": res.test.log_loss,
                **tw.as_dict(),
                "seconds": time.perf_counter() - t0,
            }
        )
    base = constant_baseline(ms, n_train)
    assert base is not None
    rows.append({"model": "constant", **base.as_dict()})
    if truth is not None:
        idx, cls = two_team_outcomes(ms)
        test = idx >= n_train
        oracle = score_forecasts(truth[idx[test]], cls[test], source="truth")
        assert oracle is not None
        rows.append({"model": "oracle", **oracle.as_dict()})
    return rows


def show(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(
        f"{'model':<10} {'pairwise LL':>11} {'W/D/L LL':>9} {'W/D/L Brier':>11} "
        f"{'draws pred/obs':>15} {'1st wins pred/obs':>18}  settings"
    )
    for r in rows:
        pll = r.get("pairwise_log_loss")
        nu = "" if r.get("nu") is None else f" nu={r['nu']:.3g}"
        print(
            f"{r['model']:<10} {'' if pll is None else f'{pll:.4f}':>11} "
            f"{r['wdl_log_loss']:>9.4f} {r['wdl_brier']:>11.4f} "
            f"{r['draw_rate_predicted']:>7.3f}/{r['draw_rate_observed']:.3f} "
            f"{r['ahead_rate_predicted']:>10.3f}/{r['ahead_rate_observed']:.3f}  "
            f"{r.get('settings', '')}{nu}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--matches", type=int, default=20_000)
    ap.add_argument("--players", type=int, default=400)
    ap.add_argument("--draw-rate", type=float, default=0.25)
    ap.add_argument("--home-rate", type=float, default=0.45)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {}
    halo = args.data / "halo2" / "HeadToHead.csv"
    if halo.exists():
        ms = read_matches(halo)
        _i, cls = two_team_outcomes(ms)
        out["halo2"] = run(ms, None)
        show(f"Halo 2 head-to-head: {len(ms)} games, {np.mean(cls == 1):.3f} drawn", out["halo2"])
    else:
        print(f"(no {halo}: Halo 2 skipped)", file=sys.stderr)
    ms, truth, solved = generated(
        args.matches, args.players, args.draw_rate, args.home_rate, args.seed
    )
    out["generated"] = run(ms, truth)
    show(
        f"generated: {len(ms)} matches, {args.players} players, expected draw rate "
        f"{args.draw_rate}, home win rate {args.home_rate} (h={solved['h']:.3f}, "
        f"eps={solved['eps']:.3f}, seed {args.seed})",
        out["generated"],
    )
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
