"""Plain, slow reference versions of the rating updates, in Python on floats.

These are the object-by-object implementations the compiled updates replaced; the tests check
the compiled ones against them (to 1e-9, most of them bit for bit). They reuse only the value
types and the truncated-Gaussian moments of :mod:`mindsport.rating.truncation` (themselves
checked against the ``trueskill`` package and a 60-digit evaluation).

Each ``*_rate`` takes teams as lists of rating values and returns new lists; each ``*_replay``
replays ``Match`` objects in order and returns every player's final rating.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from mindsport.match import Match, pair_outcome
from mindsport.rating.elo.model import EloRating, FideK
from mindsport.rating.glicko2.model import SCALE, Glicko2Rating
from mindsport.rating.rating import Rating
from mindsport.rating.tenhou.model import TenhouR
from mindsport.rating.truncation import v_draw, v_win, w_draw, w_win

# ------------------------------------------------------------------------------------ Elo


def logistic10(x: float) -> float:
    z = x * math.log(10.0)
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


def fide_k(k: FideK, r: EloRating) -> float:
    if r.games < k.new_games:
        return float(k.new_k)
    if r.reached_2400 or r.rating >= k.threshold:
        return float(k.top_k)
    return float(k.k)


def elo_rate(
    model: Any, teams: list[list[EloRating]], ranks: list[Any], weights: list[list[float]] | None
) -> list[list[EloRating]]:
    """:class:`mindsport.rating.Elo`'s rules (see its module docstring)."""
    ws = weights or [[1.0] * len(t) for t in teams]

    def strength(team: list[EloRating], w: list[float]) -> float:
        total = sum(x * r.rating for r, x in zip(team, w, strict=True))
        if model.team_strength == "sum":
            return total
        sw = sum(w)
        return total / sw if sw > 0 else sum(r.rating for r in team) / len(team)

    def k_of(r: EloRating) -> float:
        k = model.k
        if isinstance(k, FideK):
            return fide_k(k, r)
        return float(k(r)) if callable(k) else float(k)

    st = [strength(t, w) for t, w in zip(teams, ws, strict=True)]
    out = []
    for i in range(len(teams)):
        diff, count = 0.0, 0
        for j in range(len(teams)):
            if i == j:
                continue
            s = pair_outcome(ranks[i], ranks[j])
            if s is None:
                continue
            diff += s - logistic10((st[i] - st[j]) / model.scale)
            count += 1
        if model.multi_team == "mean" and count:
            diff /= count
        row = []
        for r, w in zip(teams[i], ws[i], strict=True):
            if count == 0 or w == 0:
                row.append(r)
                continue
            nr = r.rating + k_of(r) * w * diff
            row.append(EloRating(nr, r.games + 1, r.reached_2400 or nr >= 2400))
        out.append(row)
    return out


# ----------------------------------------------------------------------- Tenhou dan ladder
#: the published tables, written out again by hand (level: 0 新人, 1..9 9級..1級, 10..19 初段..
#: 十段, 20 天鳳位): targets, base points and the fourth place's loss in east-south games
DAN_TARGET = [20, 20, 20, 20, 40, 60, 80, 100, 100, 100, 400, 800, 1200, 1600, 2000, 2400,
              2800, 3200, 3600, 4000]  # fmt: skip
DAN_BASE = [0] * 10 + [200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 0]
DAN_LAST_HANCHAN = [0] * 8 + [15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180]
DAN_TOP_HANCHAN = {"ippan": (30, 15), "joukyuu": (60, 15), "tokujou": (75, 30), "houou": (90, 45)}


def tenhou_dan_rate(model: Any, players: list[Any], ranks: list[Any]) -> list[Any]:
    """:class:`~mindsport.rating.tenhou_dan.model.TenhouDanLadder`'s rule, one game of four
    single players, all ranked (ties share the mean of their places' points)."""
    from mindsport.rating.tenhou_dan.model import TenhouDan

    thirds = 3 if model.length == "hanchan" else 2  # east only: two thirds of the points
    room = model.room
    if room == "auto":
        lowest = min(p.level for p in players)
        room = (
            "houou"
            if lowest >= 16
            else "tokujou"
            if lowest >= 13
            else ("joukyuu" if lowest >= 9 else "ippan")
        )
    first, second = DAN_TOP_HANCHAN[room]
    out = []
    for p, r in zip(players, ranks, strict=True):
        if p.level == 20:
            out.append(p)
            continue
        places = [1 + sum(q < r for q in ranks) + j for j in range(sum(q == r for q in ranks))]
        points = {1: first, 2: second, 3: 0, 4: -DAN_LAST_HANCHAN[p.level]}
        pts = p.points + sum(points[k] for k in places) * thirds / 3 / len(places)
        level = p.level
        if pts >= DAN_TARGET[level]:
            level += 1
            pts = DAN_BASE[level]
        elif pts < 0:
            if level >= 10:
                level -= 1
                pts = DAN_BASE[level]
            else:
                pts = 0
        out.append(TenhouDan(level, float(pts)))
    return out


# ----------------------------------------------------------------------------- Tenhou R


def tenhou_rate(model: Any, players: list[TenhouR], ranks: list[Any]) -> list[TenhouR]:
    """:class:`mindsport.rating.TenhouRating`'s rule for single players, all ranked."""
    n = len(players)
    avg = sum(p.rating for p in players) / n

    def bonus(place: int) -> float:
        for b in model.bonuses:
            if len(b) == n:
                return float(b[place - 1])
        return model.top_bonus - 2.0 * model.top_bonus * (place - 1) / (n - 1)

    def adjustment(games: int) -> float:
        if games < model.adjust_games:
            return max(model.adjust_floor, 1.0 - model.adjust_step * games)
        return model.adjust_floor

    out = []
    for i, p in enumerate(players):
        ahead = sum(1 for r in ranks if r < ranks[i])
        tied = sum(1 for r in ranks if r == ranks[i])
        b = sum(bonus(ahead + k) for k in range(1, tied + 1)) / tied
        d = adjustment(p.games) * (b + (avg - p.rating) / model.divisor)
        out.append(TenhouR(p.rating + d, p.games + 1))
    return out


# ---------------------------------------------------------------------------- Glicko-2


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


def glicko2_idle(model: Any, p: Glicko2Rating, periods: float = 1.0) -> Glicko2Rating:
    phi = math.sqrt(p.phi * p.phi + periods * p.volatility * p.volatility)
    if model.max_rd is not None:
        phi = min(phi, model.max_rd / SCALE)
    return Glicko2Rating(p.rating, phi * SCALE, p.volatility)


def _volatility(model: Any, phi: float, sigma: float, v: float, delta: float) -> float:
    a = math.log(sigma * sigma)
    tau2 = model.tau * model.tau
    phi2 = phi * phi
    d2 = delta * delta

    def f(x: float) -> float:
        if x > 700.0:
            first = -0.5
        else:
            ex = math.exp(x)
            s = phi2 + v + ex
            first = 0.5 * (ex / s) * ((d2 - phi2 - v - ex) / s)
        return first - (x - a) / tau2

    big_a = a
    if d2 > phi2 + v:
        big_b = math.log(d2 - phi2 - v)
    else:
        k = 1
        while f(a - k * model.tau) < 0:
            k += 1
        big_b = a - k * model.tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > model.epsilon:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2.0
        big_b, fb = c, fc
    return math.exp(big_a / 2.0)


def glicko2_period(
    model: Any, player: Glicko2Rating, results: list[tuple[Glicko2Rating, float]]
) -> Glicko2Rating:
    """Glickman's steps 2-8 for one rating period (no games: the deviation grows)."""
    if not results:
        return glicko2_idle(model, player)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    inv_v = total = 0.0
    for opp, score in results:
        g = _g(opp.phi)
        e = _logistic(g * (mu - opp.mu))
        inv_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    if inv_v < 1e-100:
        return glicko2_idle(model, player)
    v = 1.0 / inv_v
    new_sigma = _volatility(model, phi, sigma, v, v * total)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * total
    if model.max_rd is not None:
        new_phi = min(new_phi, model.max_rd / SCALE)
    return Glicko2Rating(1500.0 + SCALE * new_mu, SCALE * new_phi, new_sigma)


def glicko2_rate(
    model: Any, players: list[Glicko2Rating], ranks: list[Any], elapsed: list[float] | None
) -> list[Glicko2Rating]:
    """One game as one rating period for every player (idle periods first)."""
    ps = list(players)
    if elapsed is not None and model.period is not None:
        ps = [
            glicko2_idle(model, p, x / model.period) if x > 0 else p
            for p, x in zip(ps, elapsed, strict=True)
        ]
    out = []
    for i, p in enumerate(ps):
        res = [
            (q, pair_outcome(ranks[i], ranks[j]))
            for j, q in enumerate(ps)
            if j != i and pair_outcome(ranks[i], ranks[j]) is not None
        ]
        out.append(glicko2_period(model, p, res))  # type: ignore[arg-type]
    return out


# ----------------------------------------------------------------- TrueSkill and pairwise


def two_team_update(
    left: list[list[float]],
    right: list[list[float]],
    w_left: list[float],
    w_right: list[float],
    drawn: bool,
    margin: float,
    tau2: float,
    beta2: float,
) -> None:
    """TrueSkill's two-team closed form, in place on ``[mu, variance]`` pairs (``left`` ahead
    of or tied with ``right``); ``tau2`` is added to each variance first."""
    mean = 0.0
    c2 = 0.0
    for team, ws, sign in ((left, w_left, 1.0), (right, w_right, -1.0)):
        for (mu, var), w in zip(team, ws, strict=True):
            mean += sign * w * mu
            c2 += w * w * (var + tau2 + beta2)
    c = math.sqrt(c2)
    x, e = mean / c, margin / c
    v, w_ = (v_draw(x, e), w_draw(x, e)) if drawn else (v_win(x, e), w_win(x, e))
    for team, ws, sign in ((left, w_left, 1.0), (right, w_right, -1.0)):
        for r, w in zip(team, ws, strict=True):
            if w == 0:
                continue
            pv = r[1] + tau2
            r[0] += sign * w * pv / c * v
            r[1] = pv * (1.0 - w * w * pv / c2 * w_)


def pairwise_rate(
    model: Any, teams: list[list[Rating]], ranks: list[Any], weights: list[list[float]] | None
) -> list[list[Rating]]:
    """The mahjong article's pairwise update: every (ordered) pair, ``iterations``
    times, sequentially."""
    from mindsport.rating.trueskill.model import draw_margin

    ws = weights or [[1.0] * len(t) for t in teams]
    cur = [[[r.mu, r.sigma**2] for r in t] for t in teams]
    n = len(teams)
    pairs = []
    for i in range(n):
        for j in range(n):
            if i == j or (not model.both_orders and j < i):
                continue
            s = pair_outcome(ranks[i], ranks[j])
            if s is not None:
                pairs.append((i, j, s))
    for _ in range(model.iterations):
        for i, j, s in pairs:
            a, b = (i, j) if s >= 0.5 else (j, i)
            size = sum(x > 0 for x in ws[a]) + sum(x > 0 for x in ws[b])
            margin = draw_margin(model.draw_probability, size, model.beta)
            two_team_update(
                cur[a], cur[b], ws[a], ws[b], s == 0.5, margin, model.tau**2, model.beta**2
            )
    return [
        [
            r if w == 0 else Rating(m, math.sqrt(var))
            for r, (m, var), w in zip(t, ct, wt, strict=True)
        ]
        for t, ct, wt in zip(teams, cur, ws, strict=True)
    ]


# ----------------------------------------------------------------------------- replays


def elapsed_units(m: Match, prev: float | None, time_unit: float | None = None) -> float:
    """Time since ``prev`` (a previous ``time_value``) in the replay's units."""
    if prev is None:
        return 0.0
    unit = (
        time_unit if time_unit is not None else (86400.0 if isinstance(m.time, datetime) else 1.0)
    )
    return max(0.0, (m.time_value() - prev) / unit)


def replay_reference(
    model: Any, matches: list[Match], time_unit: float | None = None
) -> dict[str, Any]:
    """Every player's final rating, replaying with the reference updates above (TrueSkill by
    its factor graph, with drift from elapsed times; Glicko-2 with rating periods)."""
    from mindsport.rating.elo.model import Elo
    from mindsport.rating.glicko2.model import Glicko2
    from mindsport.rating.tenhou.model import TenhouRating
    from mindsport.rating.tenhou_dan.model import TenhouDanLadder
    from mindsport.rating.trueskill.model import TrueSkill
    from mindsport.rating.trueskill.pairwise import PairwiseTrueSkill

    ratings: dict[str, Any] = {}
    last: dict[str, float] = {}
    for m in matches:
        teams = [[ratings.get(p, model.rating()) for p in t] for t in m.teams]
        weights = None if m.weights is None else [list(w) for w in m.weights]
        el = [[elapsed_units(m, last.get(p), time_unit) for p in t] for t in m.teams]
        if isinstance(model, TrueSkill):
            new = [list(t) for t in model.factor_graph(teams, list(m.ranks), weights, el)]
        elif isinstance(model, PairwiseTrueSkill):
            new = pairwise_rate(model, teams, list(m.ranks), weights)
        elif isinstance(model, Elo):
            new = elo_rate(model, teams, list(m.ranks), weights)
        elif isinstance(model, TenhouRating):
            new = [[r] for r in tenhou_rate(model, [t[0] for t in teams], list(m.ranks))]
        elif isinstance(model, TenhouDanLadder):
            new = [[r] for r in tenhou_dan_rate(model, [t[0] for t in teams], list(m.ranks))]
        elif isinstance(model, Glicko2):
            flat_el = [e[0] for e in el]
            new = [[r] for r in glicko2_rate(model, [t[0] for t in teams], list(m.ranks), flat_el)]
        else:
            raise TypeError(model)
        for k, (t, rs) in enumerate(zip(m.teams, new, strict=True)):
            for j, (p, r) in enumerate(zip(t, rs, strict=True)):
                ratings[p] = r
                if m.weights is None or m.weights[k][j] > 0:
                    last[p] = m.time_value()
    return ratings
