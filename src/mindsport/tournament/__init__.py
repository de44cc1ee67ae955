"""Tournament science: rank points, hand discrimination (DIH), difficulty (GDI), hand libraries,
test-case selection, formats (duplicate / equal-strength / random, Swiss tables of three), plots.

May import: errors, files, belief, games and the game packages (doudizhu, junqi); never event,
store, service or the command line (its commands are :mod:`mindsport.cli.tournament`).

The modules of this package outside :mod:`mindsport.tournament.doudizhu` import no game.
Games are played by :mod:`.runner` through :func:`mindsport.games.many.play_many` (any
registered game, by name) on an :mod:`.executors`
executor (serial, local processes, Ray) with per-game seeds, so results do not depend on the
executor or the number of workers. The Dou Dizhu experiments (bulk games and the equal-strength
paper's one-bomb deals, the DIH paper's P1/P2 grid, the equal-strength paper's format comparison,
deals of a requested GDI, Swiss events played by bots) are in the subpackage
:mod:`mindsport.tournament.doudizhu`, imported explicitly.

Sources: "the DIH paper" is Chen Zipeng, Li Shuqin, Zheng Lanzhou, Meng Kun and Ding Meng,
"區分二打一游戲競技者能力的測試用例研究" (test cases that tell apart the ability of Dou Dizhu
players: DIH, rank points, Algorithm 1's line-ups and Algorithm 2's deal); "the equal-strength
paper" is Li Shuqin, Chen Zipeng, Zheng Lanzhou and Meng Kun's study of equal card strength
(同等牌力) in competitive Dou Dizhu (GDI, one-bomb deals, duplicate vs equal-strength vs random
dealing).

Importing this package does no I/O and keeps no global state (plots import matplotlib lazily).

>>> from mindsport.tournament import discrimination
>>> round(discrimination([-2, -1, 1, 2], [0, 0.6, 0.4, 0], players=9, rounds=2, top=2), 5)
0.35816
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
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
        EQUAL_STRENGTH_CENTRE,
        EQUAL_STRENGTH_EPSILON,
        ONE_BOMB_LEVELS,
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

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "discrimination": "mindsport.tournament.dih",
    "discrimination_curve": "mindsport.tournament.dih",
    "discrimination_of_total": "mindsport.tournament.dih",
    "log_discrimination": "mindsport.tournament.dih",
    "log_discrimination_of_total": "mindsport.tournament.dih",
    "score_distribution": "mindsport.tournament.distribution",
    "total_distribution": "mindsport.tournament.distribution",
    "TournamentError": "mindsport.tournament.errors",
    "make_executor": "mindsport.tournament.executors",
    "task_rng": "mindsport.tournament.executors",
    "task_seed": "mindsport.tournament.executors",
    "duplicate_plan": "mindsport.tournament.formats",
    "equal_strength_plan": "mindsport.tournament.formats",
    "event_places": "mindsport.tournament.formats",
    "place_probabilities": "mindsport.tournament.formats",
    "play_event": "mindsport.tournament.formats",
    "random_plan": "mindsport.tournament.formats",
    "rotated_seatings": "mindsport.tournament.formats",
    "simulate_format": "mindsport.tournament.formats",
    "EQUAL_STRENGTH_CENTRE": "mindsport.tournament.gdi",
    "EQUAL_STRENGTH_EPSILON": "mindsport.tournament.gdi",
    "ONE_BOMB_LEVELS": "mindsport.tournament.gdi",
    "equal_strength": "mindsport.tournament.gdi",
    "gdi_distance": "mindsport.tournament.gdi",
    "grade_difficulty": "mindsport.tournament.gdi",
    "HandEntry": "mindsport.tournament.library",
    "HandLibrary": "mindsport.tournament.library",
    "competition_places": "mindsport.tournament.rank_points",
    "rank_points": "mindsport.tournament.rank_points",
    "total_rank_points": "mindsport.tournament.rank_points",
    "read_hand_scores": "mindsport.tournament.records",
    "score_distributions": "mindsport.tournament.records",
    "RankedHand": "mindsport.tournament.selection",
    "cross_combinations": "mindsport.tournament.selection",
    "rank_by_discrimination": "mindsport.tournament.selection",
    "score_rates": "mindsport.tournament.selection",
    "select_discriminating_players": "mindsport.tournament.selection",
    "select_test_cases": "mindsport.tournament.selection",
    "SwissRound": "mindsport.tournament.swiss",
    "swiss_round": "mindsport.tournament.swiss",
    "swiss_schedule": "mindsport.tournament.swiss",
}

lazy_exports(__name__, _EXPORTS)


__all__ = [
    "EQUAL_STRENGTH_CENTRE",
    "EQUAL_STRENGTH_EPSILON",
    "ONE_BOMB_LEVELS",
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
