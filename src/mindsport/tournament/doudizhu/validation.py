"""Validation of the DIH paper (test cases) and the equal-strength paper (equal strength) at scale.

Both experiments run in two stages:

1. **Engine games**, on any executor (:mod:`mindsport.tournament.executors`), every game
   seeded by its key (:mod:`.games`): the bots play each hand of a random library (and fresh
   replays of the hands the method selects) into an *outcome table*
   ``scores[entrant, hand, replay]``;
2. **Events**, resampled from the outcome tables (cheap, so the seeds' 1,000 events per cell
   cost nothing): in an event each (entrant, hand) cell takes one of its recorded replays at
   random. Within one event every entrant's score on every hand is an independent engine game,
   exactly as in a freshly played event; across events the recorded games are reused, which
   adds Monte Carlo correlation (more noise), not bias. Hands chosen *because* of their recorded
   scores (the DIH paper's top-DIH test cases) are replayed afresh before being used in events, so
   no selection bias (winner's curse) leaks into P2.

The DIH paper (:func:`run_dih_grid`): pool line-ups are the cross product of landlord, farmer-1 and
farmer-2 bots (Algorithm 1, step 1); every line-up plays every library hand once, which gives
each hand its landlord-score distribution (for DIH) and each line-up its Algorithm 1 total over
the first ``probe_hands``. For each event of a cell (n players, m rounds) Algorithm 1 draws the
n entrants (one random line-up per score-rate bucket, w = n buckets; empty buckets leave gaps,
which are filled by random other line-ups, a deviation the paper's 441 line-ups did not need).
P1: each round all entrants play the same random library hand; P2: the m hands of highest DIH
(n players, ``top`` distinct places; the paper's "r = 1, unique champion" is ``top = 2``).
Both rank by the DIH paper's rank points; a hit is an event whose best ``top`` totals are distinct.

The equal-strength paper (:func:`run_format_comparison`): one-bomb deals graded at ``graders``
tables (landlord bots with fixed farmers) give each hand its GDI; entrants are further landlord bots
with the same farmers. Duplicate: each round all entrants play one random library hand; equal
strength: each round distinct hands from the library's hands within epsilon of the centre; random:
each entrant an independent library hand. Entrants are ranked by total landlord score; tables give
P(entrant finishes at place k).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu import Deal
from mindsport.tournament.doudizhu.games import Game, landlord_table, play_games, random_deals
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor, task_rng
from mindsport.tournament.formats import event_places, place_probabilities
from mindsport.tournament.gdi import EQUAL_STRENGTH_CENTRE, ONE_BOMB_LEVELS, grade_difficulty
from mindsport.tournament.library import HandLibrary
from mindsport.tournament.rank_points import total_rank_points
from mindsport.tournament.selection import cross_combinations, score_rates, select_test_cases

__all__ = [
    "PAPER_001_GAINS",
    "DihGridSettings",
    "FormatsResult",
    "FormatsSettings",
    "GridCell",
    "GridResult",
    "OrderAgreement",
    "algorithm1_buckets",
    "consensus_order",
    "draw_entrants",
    "order_agreement",
    "run_dih_grid",
    "run_format_comparison",
    "top_distinct_share",
]

#: gains (P2 - P1) / P1 that the DIH paper's text states (its Table 4 is not in the text we have):
#: m = 5: n = 10, 20, 30 -> +25.24 %, +49 %, +76.79 %; m = 2, n = 30 -> +346.75 %
PAPER_001_GAINS: dict[tuple[int, int], float] = {
    (10, 5): 0.2524,
    (20, 5): 0.49,
    (30, 5): 0.7679,
    (30, 2): 3.4675,
}

Progress = Callable[[int], None]
Stage = Callable[[str, int], None]  #: stage(description, engine games in it)


def _announce(stage: Stage | None, description: str, games: int) -> None:
    if stage is not None:
        stage(description, games)


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise TournamentError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------------------------
# the DIH paper
# ---------------------------------------------------------------------------------------------
def algorithm1_buckets(totals: Sequence[float], w: int) -> list[list[int]]:
    """Algorithm 1, steps 7-9: line-up indices per score-rate bucket ((i-1)/w, i/w].

    When every total is the same the rates are undefined; all line-ups then share the first
    bucket (the bots do not discriminate, and :func:`draw_entrants` draws at random).

    >>> algorithm1_buckets([0, 1, 2, 3, 4], 2)
    [[0, 1, 2], [3, 4]]
    >>> algorithm1_buckets([5, 5, 5], 2)
    [[0, 1, 2], []]
    """
    w = _positive("w", w)
    if len(set(totals)) == 1:
        return [list(range(len(totals)))] + [[] for _ in range(w - 1)]
    rates = score_rates({i: float(t) for i, t in enumerate(totals)})
    buckets: list[list[int]] = [[] for _ in range(w)]
    for i, rate in rates.items():
        buckets[min(w - 1, max(0, int(np.ceil(rate * w)) - 1))].append(i)
    return buckets


def draw_entrants(
    buckets: Sequence[Sequence[int]], count: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Algorithm 1, step 10: one random line-up per non-empty bucket (lowest bucket first),
    topped up to ``count`` with random line-ups not yet drawn."""
    pool = sorted({i for b in buckets for i in b})
    if len(pool) < count:
        raise TournamentError(f"{len(pool)} line-ups cannot field {count} entrants")
    chosen = [int(b[int(rng.integers(len(b)))]) for b in buckets if len(b)]
    if len(chosen) < count:
        rest = np.array([i for i in pool if i not in set(chosen)], dtype=np.int64)
        chosen += rng.choice(rest, size=count - len(chosen), replace=False).tolist()
    return np.array(chosen[:count], dtype=np.int64)


def top_distinct_share(totals: npt.ArrayLike, top: int) -> float:
    """Share of rows (events) whose best ``top`` values are pairwise distinct.

    >>> top_distinct_share([[3, 5, 5, 1], [3, 5, 4, 4]], 2)
    0.5
    """
    matrix = np.sort(np.asarray(totals, dtype=np.float64), axis=1)[:, ::-1]
    if top < 1 or top > matrix.shape[1]:
        raise TournamentError(f"top must be between 1 and {matrix.shape[1]}, got {top}")
    head = matrix[:, :top]
    return float(np.mean(np.all(head[:, :-1] > head[:, 1:], axis=1)))


@dataclass(frozen=True)
class GridCell:
    """One (players, rounds) cell: P1 (random hands), P2 (top-DIH hands), the hands used."""

    players: int
    rounds: int
    p_random: float
    p_selected: float
    events: int
    hands: tuple[str, ...]

    @property
    def gain(self) -> float:
        """(P2 - P1) / P1 (``inf`` when P1 = 0 < P2; 0 when both are 0)."""
        if self.p_random == 0:
            return 0.0 if self.p_selected == 0 else float("inf")
        return (self.p_selected - self.p_random) / self.p_random

    @property
    def paper_gain(self) -> float | None:
        """The gain the DIH paper states for this cell, if it states one."""
        return PAPER_001_GAINS.get((self.players, self.rounds))


@dataclass(frozen=True)
class GridResult:
    """All cells plus the sizes that produced them."""

    cells: tuple[GridCell, ...]
    lineups: int
    library_hands: int
    replays: int
    games: int
    top: int
    filled_buckets: dict[int, int] = field(default_factory=dict)

    def cell(self, players: int, rounds: int) -> GridCell:
        for c in self.cells:
            if c.players == players and c.rounds == rounds:
                return c
        raise TournamentError(f"no cell for {players} players and {rounds} rounds")


@dataclass(frozen=True, kw_only=True)
class DihGridSettings:
    """What :func:`run_dih_grid` runs: the cells (``players`` x ``rounds``), the bots of the
    line-ups (landlords x farmers1 x farmers2), the library and probe hands, the fresh
    ``replays`` of each selected hand, the ``events`` per cell and arm, the ``seed``, and the
    ``top`` places that must be distinct."""

    landlords: Sequence[str]
    farmers1: Sequence[str]
    farmers2: Sequence[str]
    library_hands: int
    probe_hands: int
    replays: int
    events: int
    seed: int
    players: Sequence[int] = (10, 20, 30)
    rounds: Sequence[int] = (2, 3, 4, 5)
    top: int = 2


def run_dih_grid(
    settings: DihGridSettings,
    executor: Executor | None = None,
    *,
    progress: Progress | None = None,
    stage: Stage | None = None,
) -> GridResult:
    """The DIH paper's Table 4: P1 and P2 for every (players, rounds); see the module docstring.

    Engine games: ``lineups x library_hands`` plus ``lineups x selected hands x replays``.
    """
    players, rounds, top, seed = settings.players, settings.rounds, settings.top, settings.seed
    landlords, farmers1, farmers2 = settings.landlords, settings.farmers1, settings.farmers2
    library_hands, probe_hands = settings.library_hands, settings.probe_hands
    replays, events = settings.replays, settings.events
    hands_n = _positive("library_hands", library_hands)
    probe = _positive("probe_hands", probe_hands)
    reps = _positive("replays", replays)
    count = _positive("events", events)
    if probe > hands_n:
        raise TournamentError(f"probe_hands ({probe}) exceeds library_hands ({hands_n})")
    lineups = cross_combinations(list(landlords), list(farmers1), list(farmers2))
    if max(players) > len(lineups):
        raise TournamentError(
            f"{len(lineups)} line-ups (landlords x farmers1 x farmers2) cannot field "
            f"{max(players)} players"
        )
    for m in rounds:
        _positive("rounds", m)
        if m > hands_n:
            raise TournamentError(f"rounds {m} exceeds the {hands_n} library hands")
    deals = random_deals(hands_n, task_rng(seed, 0))
    games = [
        Game(d, lineup, (1, i, j)) for i, lineup in enumerate(lineups) for j, d in enumerate(deals)
    ]
    _announce(stage, "line-ups x library hands", len(games))
    table = play_games(games, seed, executor, progress=progress).reshape(len(lineups), hands_n)
    records = [
        (str(deals[j]), float(table[i, j])) for j in range(hands_n) for i in range(len(lineups))
    ]
    by_text = {str(d): d for d in deals}
    library = HandLibrary.from_records(records, min_plays=len(lineups))
    totals = table[:, :probe].sum(axis=1)

    selections: dict[tuple[int, int], tuple[str, ...]] = {}
    for n in players:
        for m in rounds:
            picked = select_test_cases(library, _positive("players", n), m, top)
            selections[(n, m)] = tuple(r.hand for r in picked)
    chosen = list(dict.fromkeys(h for hs in selections.values() for h in hs))
    replay_games = [
        Game(by_text[h], lineup, (2, i, k, r))
        for i, lineup in enumerate(lineups)
        for k, h in enumerate(chosen)
        for r in range(reps)
    ]
    _announce(stage, "replays of the test cases", len(replay_games))
    fresh = play_games(replay_games, seed, executor, progress=progress).reshape(
        len(lineups), len(chosen), reps
    )
    where = {h: k for k, h in enumerate(chosen)}

    cells = []
    filled: dict[int, int] = {}
    for n in players:
        buckets = algorithm1_buckets(totals.tolist(), n)
        filled[n] = sum(1 for b in buckets if b)
        for m in rounds:
            rng = task_rng(seed, 3, n, m)
            sel = np.array([where[h] for h in selections[(n, m)]], dtype=np.int64)
            p1 = np.empty((count, n))
            p2 = np.empty((count, n))
            for e in range(count):
                ent = draw_entrants(buckets, n, rng)
                hs = rng.choice(hands_n, size=m, replace=False)
                p1[e] = total_rank_points(table[np.ix_(ent, hs)].T)
                picks = rng.integers(reps, size=(n, m))
                p2[e] = total_rank_points(fresh[ent[:, None], sel[None, :], picks].T)
            cells.append(
                GridCell(
                    n,
                    m,
                    top_distinct_share(p1, top),
                    top_distinct_share(p2, top),
                    count,
                    selections[(n, m)],
                )
            )
    return GridResult(
        tuple(cells),
        len(lineups),
        hands_n,
        reps,
        len(games) + len(replay_games),
        top,
        filled,
    )


# ---------------------------------------------------------------------------------------------
# the equal-strength paper
# ---------------------------------------------------------------------------------------------
def consensus_order(table: npt.ArrayLike) -> list[int]:
    """Entrants ordered by the paper's ranking: most likely place, ties by expected place.

    >>> consensus_order([[0.1, 0.9], [0.8, 0.2]])
    [1, 0]
    """
    t = np.asarray(table, dtype=np.float64)
    likely = np.argmax(t, axis=1)
    expected = t @ np.arange(1, t.shape[1] + 1)
    return sorted(range(t.shape[0]), key=lambda i: (int(likely[i]), float(expected[i]), i))


def _concordance(places: npt.NDArray[np.int64], order: Sequence[int]) -> float:
    """Share of entrant pairs that ``places`` orders as ``order`` does (ties count half)."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[list(order)] = np.arange(len(order))
    total = 0.0
    pairs = 0
    for a in range(len(order)):
        for b in range(a + 1, len(order)):
            pairs += 1
            better = a if rank[a] < rank[b] else b
            worse = b if better == a else a
            if places[better] < places[worse]:
                total += 1.0
            elif places[better] == places[worse]:
                total += 0.5
    return total / pairs


@dataclass(frozen=True)
class OrderAgreement:
    """How a format's ranking agrees with duplicate's (the paper's criterion and two finer ones)."""

    same_order: bool  #: the consensus orders (most likely place) are identical
    same_winner: bool  #: both tables give the same most likely winner
    event_concordance: float  #: mean share of pairs each event orders as duplicate's consensus
    exact_events: float  #: share of events whose final places equal duplicate's order exactly


def order_agreement(
    table: npt.ArrayLike, reference: npt.ArrayLike, places: npt.ArrayLike
) -> OrderAgreement:
    """Compare a format (its place table and per-event ``places``) with a reference table."""
    ref = consensus_order(reference)
    own = consensus_order(table)
    matrix = np.asarray(places, dtype=np.int64)
    target = np.empty(len(ref), dtype=np.int64)
    target[ref] = np.arange(1, len(ref) + 1)
    concord = float(np.mean([_concordance(row, ref) for row in matrix]))
    exact = float(np.mean(np.all(matrix == target[None, :], axis=1)))
    return OrderAgreement(own == ref, own[0] == ref[0], concord, exact)


@dataclass(frozen=True)
class FormatsResult:
    """The equal-strength paper's experiment 3: place tables per (format, epsilon, rounds) and
    agreement."""

    entrants: tuple[str, ...]
    centre: tuple[float, ...]
    tables: dict[tuple[str, float | None, int], npt.NDArray[np.float64]]
    agreement: dict[tuple[str, float | None, int], OrderAgreement]
    pool_sizes: dict[float, int]
    gdis: npt.NDArray[np.float64]
    hands: tuple[Deal, ...]
    games: int
    events: int


@dataclass(frozen=True, kw_only=True)
class FormatsSettings:
    """What :func:`run_format_comparison` runs: the grading bots (``graders``), the
    ``entrants`` and the two fixed ``farmers``, the one-bomb ``library_hands`` (plus
    ``extra_hands``, graded like the rest), the ``epsilons`` and ``rounds`` of the grid, the
    ``events`` per cell, the ``replays`` of each entrant on each hand, the ``seed``, the GDI
    ``centre`` (None: the library's median GDI) and the score ``levels``."""

    graders: Sequence[str]
    entrants: Sequence[str]
    farmers: tuple[str, str]
    library_hands: int
    epsilons: Sequence[float] = (0.15, 0.20, 0.25)
    rounds: Sequence[int] = (5, 10, 20)
    events: int = 20
    replays: int = 2
    seed: int = 0
    centre: Sequence[float] | None = EQUAL_STRENGTH_CENTRE
    levels: Sequence[float] = ONE_BOMB_LEVELS
    extra_hands: Sequence[Deal] = ()


def run_format_comparison(
    settings: FormatsSettings,
    executor: Executor | None = None,
    *,
    progress: Progress | None = None,
    stage: Stage | None = None,
) -> FormatsResult:
    """The equal-strength paper's experiment 3 (see the module docstring) as ``settings`` says;
    ``extra_hands`` join the library (e.g. deals proposed by :mod:`.generator` near the centre)
    and are graded like the rest; ``centre=None`` takes the library's median GDI."""
    graders, entrants, farmers = settings.graders, settings.entrants, settings.farmers
    library_hands, epsilons, rounds = settings.library_hands, settings.epsilons, settings.rounds
    events, replays, seed = settings.events, settings.replays, settings.seed
    centre, levels, extra_hands = settings.centre, settings.levels, settings.extra_hands
    hands_n = _positive("library_hands", library_hands)
    count = _positive("events", events)
    reps = _positive("replays", replays)
    n = len(entrants)
    if n < 2:
        raise TournamentError(f"entrants must be at least two bots, got {n}")
    if centre is not None and len(centre) != len(levels) - 1:
        raise TournamentError(f"centre has {len(centre)} values; levels need {len(levels) - 1}")
    deals = list(
        dict.fromkeys([*random_deals(hands_n, task_rng(seed, 0), one_bomb=True), *extra_hands])
    )
    _announce(stage, "grading (GDI tables)", len(deals) * len(graders))
    graded = landlord_table(deals, graders, farmers, seed, 1, executor, progress=progress)[:, :, 0]
    gdis = np.array([grade_difficulty(graded[:, j], levels) for j in range(len(deals))])
    # no centre: the median GDI of the library (a difficulty every library can reach)
    middle = np.median(gdis, axis=0) if centre is None else np.asarray(centre, dtype=np.float64)
    _announce(stage, "entrants' games", len(deals) * n * reps)
    outcome = landlord_table(
        deals, entrants, farmers, seed, 2, executor, replays=reps, progress=progress
    )
    distance = np.linalg.norm(gdis - middle[None, :], axis=1)
    randoms = np.arange(
        hands_n, dtype=np.int64
    )  # duplicate and random deal from the random one-bomb deals
    pools = {float(eps): np.nonzero(distance < eps)[0] for eps in epsilons}
    for threshold, pool in pools.items():
        if pool.size < n:
            raise TournamentError(
                f"only {pool.size} of {len(deals)} graded hands lie within {threshold:g} of GDI "
                f"{middle.tolist()}; {n} entrants need {n} (grade more hands or add generated "
                "ones)"
            )

    def scores_of(
        hands: npt.NDArray[np.int64], rng: np.random.Generator
    ) -> npt.NDArray[np.float64]:
        # hands[round, entrant] -> scores[round, entrant] with a random replay per cell
        picks = rng.integers(reps, size=hands.shape)
        return outcome[np.arange(n)[None, :], hands, picks]

    tables: dict[tuple[str, float | None, int], npt.NDArray[np.float64]] = {}
    placings: dict[tuple[str, float | None, int], npt.NDArray[np.int64]] = {}
    for m in (_positive("rounds", r) for r in rounds):
        plans: list[tuple[str, float | None, npt.NDArray[np.int64] | None]] = [
            ("duplicate", None, None),
            ("random", None, randoms),
        ]
        plans += [("equal_strength", e, pool) for e, pool in pools.items()]
        for k, (name, eps, source) in enumerate(plans):
            rng = task_rng(seed, 4, m, k)
            places = np.empty((count, n), dtype=np.int64)
            for e in range(count):
                if source is None:  # duplicate: one random hand per round for everyone
                    hands = np.repeat(rng.choice(randoms, size=m, replace=False)[:, None], n, 1)
                else:  # distinct hands per round from the source set
                    hands = np.stack([rng.choice(source, size=n, replace=False) for _ in range(m)])
                places[e] = event_places(scores_of(hands, rng), "total")
            tables[(name, eps, m)] = place_probabilities(places)
            placings[(name, eps, m)] = places
    agreement = {
        key: order_agreement(tables[key], tables[("duplicate", None, key[2])], placings[key])
        for key in tables
    }
    return FormatsResult(
        tuple(entrants),
        tuple(float(x) for x in middle),
        tables,
        agreement,
        {e: int(pool.size) for e, pool in pools.items()},
        gdis,
        tuple(deals),
        int(graded.size + outcome.size),
        count,
    )
