"""Whole events played by graded bots: how well do the final standings recover the true order?

Each player is a bot (``level:N`` of :mod:`mindsport.doudizhu.bots`, stronger as N grows). An
event is run by the same functions a director's event uses (:func:`~.pairing.pair_round`,
:func:`~.standings.check_scores`, :func:`~.standings.standings`), with every board played on
the compiled Dou Dizhu engine through the tournament runner
(:func:`mindsport.tournament.runner.play_tables`, linear scoring): board b of table t in round
r plays with the generator ``task_rng(seed, 17, r, t, b)``, so an event is the same on any
executor. The recovery of the true order is Kendall's tau-b between the bots' levels and their
final places (1: the standings are the true order, ties aside; 0: no relation).

The formats are run on the same bots and seeds (equal-strength for Dou Dizhu only):

* ``duplicate``: every table plays the same random deals;
* ``equal-strength``: every table plays different deals of equal strength, drawn from a pool
  graded here: the equal-strength paper's one-bomb deals, each played ``grading`` times by
  reference bots, their GDI over the levels (-2, -1, 1, 2), the hands nearest the median GDI kept
  (:func:`equal_strength_pool`);
* ``random``: every table plays its own random deals.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mindsport.event.deals import pool_by_gdi
from mindsport.event.games import table_game
from mindsport.event.model import (
    DealSource,
    EventError,
    EventFormat,
    EventSpec,
    Player,
    Result,
    Round,
    Scoring,
    Standing,
)
from mindsport.event.model import Table as TableOfRound
from mindsport.event.pairing import pair_round
from mindsport.event.standings import check_scores, standings
from mindsport.games.many import Table
from mindsport.tournament.doudizhu.games import landlord_table, random_deals
from mindsport.tournament.executors import Executor, task_rng
from mindsport.tournament.gdi import ONE_BOMB_LEVELS
from mindsport.tournament.library import HandLibrary
from mindsport.tournament.runner import GameSpec, play_tables

__all__ = [
    "FormatRecovery",
    "SimulatedEvent",
    "bot_field",
    "equal_strength_pool",
    "graded_field",
    "kendall_tau",
    "play_round",
    "simulate_event",
    "simulate_formats",
]

#: reference line-up that grades the hands of the equal-strength pool
REFERENCE = ("level:50", "level:50", "level:50")

Progress = Callable[[int], None]


def bot_field(players: int) -> list[str]:
    """``players`` graded Dou Dizhu bots, levels spread evenly over 0..100 (weakest first)."""
    return [bot for bot, _ in graded_field(players)]


def graded_field(players: int, game: str = "doudizhu") -> list[tuple[str, float]]:
    """``players`` graded bots of the event game ``game`` with their true strengths, weakest
    first: levels spread evenly over 0..100 (strength: the level), or the game's graded bots
    in equal shares (strength: their rank, 0 the weakest)."""
    size = table_game(game).size
    if isinstance(players, bool) or not isinstance(players, int) or players < size:
        raise EventError(f"players must be an integer of at least {size}, got {players!r}")
    graded = table_game(game).graded
    if graded:
        tiers = [i * len(graded) // players for i in range(players)]
        return [(graded[k], float(k)) for k in tiers]
    levels = [round(100 * i / (players - 1)) if players > 1 else 100 for i in range(players)]
    return [(f"level:{n}", float(n)) for n in levels]


def kendall_tau(truth: Sequence[float], places: Sequence[int]) -> float:
    """Kendall's tau-b between true strengths (higher: stronger) and places (1: best)."""
    from scipy.stats import kendalltau

    tau = kendalltau(np.asarray(truth, float), -np.asarray(places, float)).statistic
    return float(tau)


@dataclass(frozen=True)
class SimulatedEvent:
    spec: EventSpec
    rounds: tuple[Round, ...]
    results: dict[tuple[int, int], Result]
    standings: tuple[Standing, ...]


def play_round(
    spec: EventSpec,
    players: Sequence[Player],
    played: Round,
    tables: Sequence[TableOfRound],
    executor: Executor | None = None,
) -> dict[tuple[int, int], Result]:
    """The results of ``tables`` of round ``played``, every seat held by the player's bot:
    board b of table t plays with ``task_rng(spec.seed, 17, round, t, b)``."""
    bot = {p.name: p.bot for p in players}
    for t in tables:
        humans = [p for p in t.players if not bot.get(p)]
        if humans:
            raise EventError(
                f"round {played.number} table {t.number}: {', '.join(humans)} "
                f"{'is not a bot' if len(humans) == 1 else 'are not bots'}"
            )
    judge = table_game(spec.game)
    games = [
        Table(
            judge.chance(b.hand),
            tuple(str(bot[s.player]) for s in b.seats),
            (17, played.number, t.number, b.number),
        )
        for t in tables
        for b in t.boards()
    ]
    game = GameSpec(judge.name, judge.params(spec.rule))
    returns = play_tables(game, games, spec.seed, executor)
    per = spec.boards
    return {
        (played.number, t.number): check_scores(
            t,
            [judge.entered(tuple(row)) for row in returns[i * per : (i + 1) * per].tolist()],
            spec.rule,
            spec.game,
        )
        for i, t in enumerate(tables)
    }


def simulate_event(
    spec: EventSpec,
    bots: Sequence[str],
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> SimulatedEvent:
    """Run ``spec`` with player ``bot{i}`` the bot ``bots[i]``; ``progress(k)`` after each
    round of k games."""
    players = [Player(f"bot{i:03d}", i + 1, b) for i, b in enumerate(bots)]
    rounds: list[Round] = []
    results: dict[tuple[int, int], Result] = {}
    for _ in range(spec.rounds):
        this = pair_round(spec, players, rounds, results)
        results.update(play_round(spec, players, this, this.tables, executor))
        rounds.append(this)
        if progress is not None:
            progress(len(this.tables) * spec.boards)
    final = standings(spec, players, rounds, results)
    return SimulatedEvent(spec, tuple(rounds), results, tuple(final))


def equal_strength_pool(
    count: int, seed: int, *, grading: int = 16, candidates: int | None = None
) -> tuple[tuple[str, ...], float]:
    """``count`` equal-strength hands and the epsilon they lie within: the equal-strength
    paper's one-bomb deals graded by ``grading`` games each of the reference line-up, the
    ``count`` whose GDI lies nearest the median GDI."""
    many = candidates if candidates is not None else 3 * count
    deals = random_deals(many, task_rng(seed, 18), one_bomb=True)
    scores = landlord_table(deals, [REFERENCE[0]], REFERENCE[1:], seed, 18, replays=grading)[0]
    records = [(str(d), s) for d, row in zip(deals, scores, strict=True) for s in row]
    library = HandLibrary.from_records(records, min_plays=grading, levels=ONE_BOMB_LEVELS)
    gdis = np.array([e.gdi for e in library])
    centre = np.median(gdis, axis=0)
    distance = np.sort(np.linalg.norm(gdis - centre, axis=1))
    if len(distance) < count:
        raise EventError(f"graded {len(distance)} hands, fewer than the {count} needed")
    epsilon = float(distance[count - 1]) + 1e-9
    hands = pool_by_gdi(library, centre.tolist(), epsilon)[:count]
    return hands, epsilon


@dataclass(frozen=True)
class FormatRecovery:
    """Kendall's tau of each simulated event of one format, and the seconds they took."""

    format: EventFormat
    taus: tuple[float, ...]
    seconds: float

    @property
    def mean(self) -> float:
        return float(np.mean(self.taus))

    @property
    def sd(self) -> float:
        return float(np.std(self.taus, ddof=1)) if len(self.taus) > 1 else 0.0


def simulate_formats(
    players: int,
    rounds: int,
    formats: Sequence[EventFormat],
    *,
    deals: int = 1,
    events: int = 1,
    seed: int = 0,
    scoring: Scoring = Scoring.FIELD,
    executor: Executor | None = None,
    progress: Progress | None = None,
    game: str = "doudizhu",
) -> list[FormatRecovery]:
    """``events`` events of each format of ``game`` between :func:`graded_field` bots, same
    seeds across formats; the recovery of the true order per format."""
    field = graded_field(players, game)
    bots = [b for b, _ in field]
    truth = [strength for _, strength in field]
    tables = players // table_game(game).size
    out = []
    for fmt in formats:
        start = time.perf_counter()
        taus = []
        for e in range(events):
            pool: tuple[str, ...] = ()
            if fmt is EventFormat.EQUAL_STRENGTH:
                pool, _ = equal_strength_pool(tables * deals, seed + e)
            spec = EventSpec(
                name=f"sim-{fmt}-{e}",
                league="simulation",
                format=fmt,
                rounds=rounds,
                deals=deals,
                source=DealSource.POOL if pool else DealSource.RANDOM,
                scoring=scoring,
                seed=seed + e,
                pool=pool,
                game=game,
            )
            done = simulate_event(spec, bots, executor, progress)
            place = {s.player: s.place for s in done.standings}
            taus.append(kendall_tau(truth, [place[f"bot{i:03d}"] for i in range(players)]))
        out.append(FormatRecovery(fmt, tuple(taus), time.perf_counter() - start))
    return out
