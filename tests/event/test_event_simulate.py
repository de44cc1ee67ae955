"""Bots as players: events played on the engine, Kendall's tau against a brute-force tau-b,
the equal-strength pool, and ``mindsport event play`` for the bot tables of a stored event."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
from event_reference import PlayedRound, PlayedTable, brute_standings
from typer.testing import CliRunner

from mindsport.cli.event import app
from mindsport.doudizhu import Deal
from mindsport.event.model import DealSource, EventFormat, EventSpec
from mindsport.event.simulate import (
    bot_field,
    equal_strength_pool,
    kendall_tau,
    simulate_event,
)
from mindsport.tournament.doudizhu.games import bomb_count


def brute_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b by counting every pair."""
    concordant = discordant = tie_x = tie_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tie_x += 1
        elif dy == 0:
            tie_y += 1
        elif dx * dy > 0:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / math.sqrt(
        (concordant + discordant + tie_x) * (concordant + discordant + tie_y)
    )


def test_kendall_tau_is_tau_b() -> None:
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 5, 40).astype(float).tolist()
    places = rng.integers(1, 12, 40).tolist()
    assert math.isclose(
        kendall_tau(truth, places), brute_tau_b(truth, [-p for p in places]), abs_tol=1e-12
    )
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == 1.0


def test_a_bot_event_scores_by_the_rules() -> None:
    bots = bot_field(14)
    assert bots[0] == "level:0" and bots[-1] == "level:100"
    spec = EventSpec("sim", "l", format=EventFormat.RANDOM, rounds=3, seed=2)
    done = simulate_event(spec, bots)
    played = [
        PlayedRound(
            [
                PlayedTable(t.players, [list(x) for x in done.results[(r.number, t.number)].scores])
                for t in r.tables
            ],
            list(r.byes),
        )
        for r in done.rounds
    ]
    for r in played:
        for t in r.tables:
            for row in t.scores:
                assert sum(row) == 0 and row[1] == row[2] and row[0] != 0
    want = brute_standings([f"bot{i:03d}" for i in range(14)], played)
    assert {
        s.player: (s.place, s.rank_points, s.score, s.opponents) for s in done.standings
    } == want


def test_equal_strength_pool() -> None:
    hands, epsilon = equal_strength_pool(6, seed=3, grading=4, candidates=12)
    assert len(hands) == len(set(hands)) == 6 and epsilon > 0
    assert all(bomb_count(Deal.parse(h)) == 1 for h in hands)  # one-bomb deals
    spec = EventSpec(
        "es", "l", format=EventFormat.EQUAL_STRENGTH, rounds=1, source=DealSource.POOL, pool=hands
    )
    done = simulate_event(spec, bot_field(6))
    assert {t.deals[0] for t in done.rounds[0].tables} <= set(hands)


def test_play_enters_the_bot_tables(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'bots.db'}"
    runner = CliRunner()

    def ok(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db])
        assert out.exit_code == 0, out.output
        return out.output

    ok("create", "botcup", "--league", "bots", "--create-league", "--rounds", "2")
    ok("register", "botcup", "b1", "b2", "b3", "b4", "b5", "b6", "--bot", "level:30")
    ok("register", "botcup", "human")
    ok("pair", "botcup", "--tables", "b1,b2,b3;b4,b5,human")
    assert "1 bot tables played" in ok("play", "botcup")
    shown = ok("show", "botcup")
    assert "round 1: 1/2 results; missing tables 2" in shown
