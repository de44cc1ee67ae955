"""Tournament science: rank points, hand discrimination (DIH), difficulty (GDI), hand libraries,
test-case selection, formats (duplicate / equal-strength / random, Swiss tables of three), plots.

The modules of this package import no game. Games are played by :mod:`.runner` through the
game contract of :mod:`mindsport.games` (any registered game, by name) on an :mod:`.executors`
executor (serial, local processes, Ray) with per-game seeds, so results do not depend on the
executor or the number of workers. The Dou Dizhu experiments (bulk games and seed 004's
one-bomb deals, seed 001's P1/P2 grid, seed 004's format comparison, deals of a requested GDI,
Swiss events played by bots) are in the subpackage :mod:`mindsport.tournament.doudizhu`,
imported explicitly.

Importing this package does no I/O and keeps no global state (plots import matplotlib lazily).

>>> from mindsport.tournament import discrimination
>>> round(discrimination([-2, -1, 1, 2], [0, 0.6, 0.4, 0], players=9, rounds=2, top=2), 5)
0.35816
"""

from __future__ import annotations

from mindsport.tournament.dih import (
    discrimination,
    discrimination_curve,
    discrimination_of_total,
    log_discrimination,
    log_discrimination_of_total,
)
from mindsport.tournament.distribution import score_distribution, total_distribution
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import make_executor, task_rng, task_seed
from mindsport.tournament.formats import (
    duplicate_plan,
    equal_strength_plan,
    event_places,
    place_probabilities,
    play_event,
    random_plan,
    rotated_seatings,
    simulate_format,
)
from mindsport.tournament.gdi import (
    SEED_004_CENTRE,
    SEED_004_EPSILON,
    SEED_004_LEVELS,
    equal_strength,
    gdi_distance,
    grade_difficulty,
)
from mindsport.tournament.library import HandEntry, HandLibrary
from mindsport.tournament.rank_points import competition_places, rank_points, total_rank_points
from mindsport.tournament.records import read_hand_scores, score_distributions
from mindsport.tournament.selection import (
    RankedHand,
    cross_combinations,
    rank_by_discrimination,
    score_rates,
    select_discriminating_players,
    select_test_cases,
)
from mindsport.tournament.swiss import SwissRound, swiss_round, swiss_schedule

__all__ = [
    "SEED_004_CENTRE",
    "SEED_004_EPSILON",
    "SEED_004_LEVELS",
    "HandEntry",
    "HandLibrary",
    "RankedHand",
    "SwissRound",
    "TournamentError",
    "competition_places",
    "cross_combinations",
    "discrimination",
    "discrimination_curve",
    "discrimination_of_total",
    "duplicate_plan",
    "equal_strength",
    "equal_strength_plan",
    "event_places",
    "gdi_distance",
    "grade_difficulty",
    "log_discrimination",
    "log_discrimination_of_total",
    "make_executor",
    "place_probabilities",
    "play_event",
    "random_plan",
    "rank_by_discrimination",
    "rank_points",
    "read_hand_scores",
    "rotated_seatings",
    "score_distribution",
    "score_distributions",
    "score_rates",
    "select_discriminating_players",
    "select_test_cases",
    "simulate_format",
    "swiss_round",
    "swiss_schedule",
    "task_rng",
    "task_seed",
    "total_distribution",
    "total_rank_points",
]
