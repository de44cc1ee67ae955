"""Rolling-origin evaluation for rating models that are refitted rather than updated game by game.

Protocol: the matches are in time order and cut into blocks (calendar months, or blocks of N
matches). Before each block the model is fitted on everything before it; it then predicts every
decided pair of teams of the block (the same pairs :func:`mindsport.history.evaluate` scores for
online models, which predict one match ahead). Predictions are
:class:`~mindsport.history.MatchPrediction` values, scored by the same code as the online models.

mindsport's whole-history TrueSkill goes through its own rolling-origin predictions
(:func:`mindsport.history.rolling.rolling_predictions`, kept current by incremental adds) on the
same blocks. The peers are engines here (``add(matches)`` then ``predict(matches)``):

* :class:`PeerTTT`: the ``trueskillthroughtime`` package (1.1.0), rebuilt and converged on the
  whole history before each block (it has no incremental use); teams are handed to it in finishing
  order (with three or more teams it otherwise gives each team another team's message), and its
  own ``Game`` computes the probabilities;
* :class:`PeerWHR`: the ``whr`` package (2.2.0, Coulom's Whole-History Rating), games added and
  iterated until the log-likelihood settles before each block; two-player games only, so a
  free-for-all enters as all its pairs; Bradley-Terry probabilities on the Elo scale from its
  ratings at the game's day;
* :func:`elo_mmr_predictions`: the ``elo-mmr-py`` package (2.0.0, Elo-MMR), an online system, one
  match ahead; its package has no win probability, so a pair is predicted as
  ``Phi((mu_a - mu_b) / sqrt(sig_a^2 + sig_b^2 + 2 scale^2))`` from the ratings after each
  player's previous contest, with ``scale`` fitted like the rest.

:func:`search` is the coordinate descent of :func:`mindsport.history.fit` (start in the middle of
each grid, scan one setting at a time, repeat while anything improves, at most three rounds).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from scipy.special import ndtr

from mindsport.history import Match, MatchPrediction
from mindsport.history.evaluate import score_predictions
from mindsport.match import pair_outcome

_EPOCH = datetime(1970, 1, 1)


def days(t: datetime | float) -> float:
    """A match time in days (datetimes) or as it is (numbers)."""
    if isinstance(t, datetime):
        base = _EPOCH if t.tzinfo is None else _EPOCH.replace(tzinfo=UTC)
        return (t - base).total_seconds() / 86400.0
    return float(t)


def step_time(t: datetime | float, time_step: float) -> float:
    """The start of ``t``'s time step, as the whole-history model counts them."""
    return math.floor(days(t) / time_step) * time_step


def decided(m: Match) -> list[tuple[int, int, float]]:
    """Pairs of teams ``(i, j, outcome for i)`` whose order the result tells (ties included)."""
    n = len(m.teams)
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            o = pair_outcome(m.ranks[i], m.ranks[j])
            if o is not None:
                out.append((i, j, o))
    return out


# ------------------------------------------------------------------------------- blocks


def month_blocks(matches: Sequence[Match], start: int) -> list[tuple[int, int]]:
    """Index ranges of the calendar months from ``start`` on (the first may be a part month)."""
    out: list[tuple[int, int]] = []
    i = start
    while i < len(matches):
        t = matches[i].time
        key = (t.year, t.month) if isinstance(t, datetime) else None
        j = i + 1
        while j < len(matches):
            u = matches[j].time
            if not isinstance(u, datetime) or (u.year, u.month) != key:
                break
            j += 1
        out.append((i, j))
        i = j
    return out


def size_blocks(matches: Sequence[Match], start: int, size: int) -> list[tuple[int, int]]:
    """Index ranges of ``size`` matches from ``start`` on."""
    return [(i, min(i + size, len(matches))) for i in range(start, len(matches), size)]


def step_blocks(matches: Sequence[Match], start: int) -> list[tuple[int, int]]:
    """Index ranges of the runs of equal match times from ``start`` on (ATP: a tournament's
    start date; a whole-history model's time step when it is a day)."""
    out: list[tuple[int, int]] = []
    i = start
    while i < len(matches):
        j = i + 1
        while j < len(matches) and matches[j].time == matches[i].time:
            j += 1
        out.append((i, j))
        i = j
    return out


def blocks(matches: Sequence[Match], start: int, rule: str | int) -> list[tuple[int, int]]:
    """``"month"``, ``"step"`` (each distinct match time), or a block size."""
    if rule == "month":
        return month_blocks(matches, start)
    if rule == "step":
        return step_blocks(matches, start)
    return size_blocks(matches, start, int(rule))


# ------------------------------------------------------------------------------- engines


class Engine(Protocol):
    def add(self, matches: Sequence[Match]) -> None: ...

    def predict(self, matches: Sequence[Match]) -> list[list[tuple[int, int, float]]]:
        """For each match, ``(i, j, p)`` for its decided pairs: ``p`` = P(team i ahead of j)."""
        ...


def rolling(
    engine: Engine,
    matches: Sequence[Match],
    start: int,
    bounds: Sequence[tuple[int, int]],
    only: Container[int] | None = None,
) -> list[MatchPrediction]:
    """Fit on everything before each block, predict the block; predictions of the blocks (with
    ``only``, of the blocks whose positions in ``bounds`` it holds: the others are added to the
    history without a refit, so several processes can share one protocol's refits)."""
    if start > 0:
        engine.add(matches[:start])
    out: list[MatchPrediction] = []
    for position, (i, j) in enumerate(bounds):
        block = matches[i:j]
        if only is not None and position not in only:
            engine.add(block)
            continue
        for k, (m, pairs) in enumerate(zip(block, engine.predict(block), strict=True)):
            outcome = {(a, b): o for a, b, o in decided(m)}
            out.append(
                MatchPrediction(i + k, m.id, tuple((a, b, p, outcome[a, b]) for a, b, p in pairs))
            )
        engine.add(block)
    return out


def _pair_p(win: float, loss: float) -> float:
    s = win + loss
    return 0.5 if s <= 0 else win / s


class PeerTTT:
    """``trueskillthroughtime``: rebuilt on the whole history and converged before each block."""

    def __init__(
        self,
        mu: float = 25.0,
        sigma: float = 25 / 3,
        beta: float = 25 / 6,
        drift: float = 25 / 300,
        draw_probability: float = 0.1,
        time_step: float = 1.0,
        tolerance: float = 1e-6,
        iterations: int = 30,
    ) -> None:
        import trueskillthroughtime as ttt

        self.ttt = ttt
        self.mu, self.sigma, self.beta, self.gamma = mu, sigma, beta, drift
        self.p_draw, self.time_step = draw_probability, time_step
        self.epsilon, self.iterations = tolerance, iterations
        self.composition: list[list[list[str]]] = []
        self.results: list[list[float]] = []
        self.times: list[float] = []
        self.last: dict[str, tuple[float, Any]] = {}
        self.stale = False
        self.seconds = 0.0
        self.sweeps: list[int] = []

    def add(self, matches: Sequence[Match]) -> None:
        for m in matches:
            order = sorted(range(len(m.teams)), key=lambda i, m=m: (m.ranks[i] is None, m.ranks[i]))
            self.composition.append([list(m.teams[i]) for i in order])
            self.results.append([-float(m.ranks[i]) for i in order])  # type: ignore[arg-type]
            self.times.append(step_time(m.time, self.time_step))
        self.stale = True

    def _converge(self) -> None:
        import time

        t0 = time.perf_counter()
        h = self.ttt.History(
            self.composition,
            self.results,
            self.times,
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            gamma=self.gamma,
            p_draw=self.p_draw,
        )
        _, n = h.convergence(epsilon=self.epsilon, iterations=self.iterations, verbose=False)
        self.sweeps.append(n)
        self.last = {p: curve[-1] for p, curve in h.learning_curves().items()}
        self.seconds += time.perf_counter() - t0
        self.stale = False

    def _player(self, p: str, t: float) -> Any:
        ttt = self.ttt
        if p in self.last:
            t0, g = self.last[p]
            g = g.forget(self.gamma, t - t0)
        else:
            g = ttt.Gaussian(self.mu, self.sigma)
        return ttt.Player(g, self.beta, self.gamma)

    def predict(self, matches: Sequence[Match]) -> list[list[tuple[int, int, float]]]:
        if self.stale and self.composition:
            self._converge()
        out = []
        for m in matches:
            t = step_time(m.time, self.time_step)
            teams = [[self._player(p, t) for p in team] for team in m.teams]
            pairs = []
            for i, j, _ in decided(m):
                win = self.ttt.Game([teams[i], teams[j]], [1.0, 0.0], p_draw=self.p_draw).evidence
                loss = self.ttt.Game([teams[i], teams[j]], [0.0, 1.0], p_draw=self.p_draw).evidence
                pairs.append((i, j, _pair_p(win, loss)))
            out.append(pairs)
        return out


class PeerWHR:
    """``whr``: Whole-History Rating, its games added and iterated to convergence per block."""

    def __init__(self, w2: float = 300.0, virtual_games: int = 2, time_step: float = 1.0) -> None:
        import whr

        self.whr = whr
        self.base = whr.Base(config={"w2": w2, "virtual_games": virtual_games})
        self.time_step = time_step
        self.evaluate: Any = None

    def _step(self, m: Match) -> int:
        return math.floor(days(m.time) / self.time_step)

    def add(self, matches: Sequence[Match]) -> None:
        games = []
        for m in matches:
            for i, j, o in decided(m):
                if len(m.teams[i]) != 1 or len(m.teams[j]) != 1:
                    raise SystemExit("whr: two-player games only")
                winner = "B" if o == 1.0 else "W" if o == 0.0 else "D"
                games.append([m.teams[i][0], m.teams[j][0], winner, self._step(m)])
        if games:
            self.base.create_games(games)
            self._converge()
        self.evaluate = None

    def _converge(self, chunk: int = 20, max_iterations: int = 4000) -> None:
        """Newton rounds until a chunk of them gains less than ``1e-4`` log-likelihood (the
        package's own ``iterate_until_converge`` takes thousands of rounds on a long history)."""
        ll = self.base.log_likelihood()
        for _ in range(0, max_iterations, chunk):
            self.base.iterate(chunk)
            new = self.base.log_likelihood()
            if abs(new - ll) < 1e-4:
                return
            ll = new

    def predict(self, matches: Sequence[Match]) -> list[list[tuple[int, int, float]]]:
        if self.evaluate is None:
            self.evaluate = self.whr.Evaluate(self.base)
        ev = self.evaluate
        out = []
        for m in matches:
            s = self._step(m)
            pairs = []
            for i, j, _ in decided(m):
                ra = ev.get_rating(m.teams[i][0], s) or 0.0
                rb = ev.get_rating(m.teams[j][0], s) or 0.0
                pairs.append((i, j, 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))))
            out.append(pairs)
        return out


def elo_mmr_predictions(
    matches: Sequence[Match],
    drift_per_day: float = 0.0,
    weight_limit: float = 0.2,
    sig_noob: float = 350.0,
    scale: float = 200.0,
) -> list[MatchPrediction]:
    """Elo-MMR one match ahead: every contest rated in one call of the package, each match
    predicted from its players' ratings after their previous contest (as the package reports
    them: rounded to whole rating points; its drift enters at the next update)."""
    import elo_mmr_py as em

    origin = min((days(m.time) for m in matches), default=0.0)
    contests = []
    for m in matches:
        if any(len(t) != 1 for t in m.teams) or any(r is None for r in m.ranks):
            raise SystemExit("elo-mmr: individual contests with every place known only")
        ranks = [r for r in m.ranks if r is not None]
        standings = []
        for t, r in zip(m.teams, m.ranks, strict=True):
            lo = sum(1 for x in ranks if x < r)  # type: ignore[operator]
            hi = lo + sum(1 for x in ranks if x == r) - 1
            standings.append((t[0], lo, hi))
        standings.sort(key=lambda x: x[1])  # the package takes them best first
        secs = round((days(m.time) - origin) * 86400.0)  # the package takes no negatives
        contests.append(em.Contest(standings, name=m.id, time_seconds=secs))
    config = em.EloMmrConfig("mmr", drift_per_day=drift_per_day, weight_limit=weight_limit)
    players = em.rate(contests, config, mu_noob=1500.0, sig_noob=sig_noob)
    after: dict[tuple[str, int], tuple[float, float]] = {}
    for name, p in players.items():
        for e in p.events:
            after[(name, e.contest_index)] = (float(e.rating_mu), float(e.rating_sig))
    last: dict[str, tuple[float, float]] = {}
    out = []
    for k, m in enumerate(matches):
        pre = [last.get(t[0], (1500.0, sig_noob)) for t in m.teams]
        pairs = []
        for i, j, o in decided(m):
            (ma, sa), (mb, sb) = pre[i], pre[j]
            z = (ma - mb) / math.sqrt(sa * sa + sb * sb + 2 * scale * scale)
            pairs.append((i, j, float(ndtr(z)), o))
        out.append(MatchPrediction(k, m.id, tuple(pairs)))
        for t in m.teams:  # a contest of all tied players leaves the ratings as they were
            got = after.get((t[0], k))
            if got is not None:
                last[t[0]] = got
    return out


# ------------------------------------------------------------------------------- search


def search(
    grid: dict[str, tuple[Any, ...]],
    objective: Callable[[dict[str, Any]], float],
    progress: Callable[[dict[str, Any], float], None] | None = None,
    max_rounds: int = 3,
) -> tuple[dict[str, Any], float, int]:
    """Coordinate descent over ``grid``; returns the best settings, their score and the number
    of settings tried."""
    cache: dict[tuple[tuple[str, Any], ...], float] = {}

    def score(p: dict[str, Any]) -> float:
        key = tuple(sorted(p.items()))
        if key not in cache:
            cache[key] = objective(p)
            if progress is not None:
                progress(p, cache[key])
        return cache[key]

    best = {k: v[len(v) // 2] for k, v in grid.items()}
    best_v = score(best)
    for _ in range(max_rounds):
        changed = False
        for k, values in grid.items():
            for val in values:
                cand = {**best, k: val}
                v = score(cand)
                if v < best_v - 1e-12:
                    best, best_v, changed = cand, v, True
        if not changed:
            break
    return best, best_v, len(cache)


def log_loss(predictions: Iterator[MatchPrediction] | list[MatchPrediction]) -> float:
    ll = score_predictions(predictions).log_loss
    return math.inf if math.isnan(ll) else ll
