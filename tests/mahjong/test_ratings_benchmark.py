"""The analysis functions of ``benchmarks/mahjong_ratings.py`` (the rating-systems comparison on
simulated mahjong leagues): Kendall's tau at a checkpoint, the one-step-ahead log-loss, the
cache and the schedule, against independent references (brute-force tau-b over the ratings of
a second replay of the prefix, hand-computed log-losses, the evaluation module's scorer)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import sys
from pathlib import Path

import pytest

from mindsport.history import MatchPrediction, replay
from mindsport.history.evaluate import score_predictions
from mindsport.mahjong import rotations
from mindsport.rating import build_model

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "mahjong_ratings.py"


@pytest.fixture(scope="module")
def bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("mahjong_ratings_bench", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def leagues(bench):  # type: ignore[no-untyped-def]
    """``benchmarks/mahjong_leagues.py``, the simulated leagues the benchmark imports."""
    return sys.modules["mahjong_leagues"]


def brute_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b by counting every pair."""
    conc = disc = tx = ty = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tx += 1
        elif dy == 0:
            ty += 1
        elif dx * dy > 0:
            conc += 1
        else:
            disc += 1
    return (conc - disc) / math.sqrt((conc + disc + tx) * (conc + disc + ty))


def _row(game: int, players: list[str], points: list[int], walls: int = 7) -> dict:
    order = sorted(range(4), key=lambda s: (-points[s], s))
    places = [0] * 4
    for place, seat in enumerate(order, 1):
        places[seat] = place
    return {
        "game": game,
        "players": players,
        "points": points,
        "places": places,
        "walls": walls,
        "set": game,
    }


# a tiny league of six players (levels 0..100 by 20): lv100 and lv080 win more, lv000 loses
_GAMES = [
    _row(0, ["lv000", "lv020", "lv040", "lv060"], [10000, 22000, 30000, 38000]),
    _row(1, ["lv080", "lv100", "lv000", "lv020"], [35000, 41000, 9000, 15000]),
    _row(2, ["lv040", "lv060", "lv080", "lv100"], [18000, 25000, 25000, 32000]),
    _row(3, ["lv100", "lv000", "lv060", "lv020"], [45000, 5000, 30000, 20000]),
    _row(4, ["lv020", "lv080", "lv040", "lv000"], [21000, 33000, 26000, 20000]),
]


def test_tau_at_a_checkpoint_matches_a_second_replay_and_brute_force(
    bench, leagues, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "league.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _GAMES), encoding="utf-8")
    games = leagues.read_cache(path)
    matches = bench.league_matches(games, "t")
    truth = {bench.player_id(lv): float(lv) for lv in (0, 20, 40, 60, 80, 100)}
    system = next(s for s in bench.SYSTEMS if s.model == "elo")
    rated = bench.rate_league(system, matches, {"k": 32.0}, truth, [1, 3, 5])
    model = build_model("elo", k=32.0)
    for c, tau in zip([1, 3, 5], rated.taus, strict=True):
        after = replay(model, matches[:c]).ratings  # the prefix replayed on its own
        values = [after[p].rating if p in after else model.rating().rating for p in sorted(truth)]
        assert tau == pytest.approx(brute_tau_b([truth[p] for p in sorted(truth)], values))
    # by hand: after game 0 only its four players moved, in their order there (lv060 first,
    # lv040 second: both above the start value; lv020, lv000 below it), while lv080 and lv100
    # still tie at the start value: ranks 1, 2, 5, 6, 3.5, 3.5 for levels 0, 20, ..., 100
    assert rated.taus[0] == pytest.approx(
        brute_tau_b([0, 20, 40, 60, 80, 100], [1, 2, 5, 6, 3.5, 3.5])
    )


def test_game_log_losses_by_hand_and_against_the_evaluation_scorer(bench) -> None:  # type: ignore[no-untyped-def]
    preds = [
        MatchPrediction(0, "a", ((0, 1, 0.8, 1.0), (0, 2, 0.3, 0.0), (1, 2, 0.5, 0.5))),
        MatchPrediction(1, "b", ((0, 1, 0.25, 1.0), (0, 2, 0.9, 1.0))),
        MatchPrediction(2, "c", ((0, 1, 0.5, 0.5),)),  # only a tie: nothing scored
    ]
    got = bench.game_log_losses(preds)
    assert got[0] == pytest.approx((-math.log(0.8) - math.log(0.7)) / 2)
    assert got[1] == pytest.approx((-math.log(0.25) - math.log(0.9)) / 2)
    assert math.isnan(got[2])
    # every game has two decided pairs, so the mean of the games' means is the pairs' mean
    assert (got[0] + got[1]) / 2 == pytest.approx(score_predictions(preds).log_loss)


def test_games_to_reach_and_checkpoints(bench) -> None:  # type: ignore[no-untyped-def]
    assert bench.games_to_reach([0.2, 0.89, 0.9], [100, 200, 500], 0.9) == 500
    assert bench.games_to_reach([0.2, 0.89], [100, 200], 0.9) is None
    assert bench.checkpoints_upto(2000) == [100, 200, 500, 1000, 2000]
    assert bench.checkpoints_upto(60) == [60]


def test_cache_drops_a_torn_last_line_and_names_a_bad_one(bench, leagues, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.jsonl"
    lines = [json.dumps(r) for r in _GAMES[:2]]
    path.write_text("\n".join(lines) + '\n{"game": 2, "pla', encoding="utf-8")
    assert [g["game"] for g in leagues.read_cache(path)] == [0, 1]
    assert leagues._repair(path) == 2  # the torn line goes, so the next game starts a line
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert [g["game"] for g in leagues.read_cache(path)] == [0, 1]
    path.write_text(lines[0] + "\nnot json\n" + lines[1] + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"c\.jsonl, line 2: not JSON"):
        leagues.read_cache(path)
    path.write_text(lines[1] + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="line 1: expected game 0"):
        leagues.read_cache(path)


def test_schedule_duplicate_sets_are_rotations_and_a_longer_league_extends(bench, leagues) -> None:  # type: ignore[no-untyped-def]
    levels = leagues.bot_levels(16)
    assert levels[:4] == [0, 7, 13, 20] and levels[-1] == 100 and len(set(levels)) == 16
    dup = leagues.schedule(levels, "duplicate", 3, 12)
    for s in range(3):
        four = dup[4 * s : 4 * s + 4]
        assert len({t.chance for t in four}) == 1
        base = four[0].bots
        for k, t in enumerate(four):  # rotation k: player i at seat (i + k) % 4
            assert all(t.bots[(i + k) % 4] == base[i] for i in range(4))
    assert leagues.schedule(levels, "duplicate", 3, 6) == dup[:6]
    rnd = leagues.schedule(levels, "random", 3, 50)
    assert len({t.chance for t in rnd}) == 50
    assert all(len(set(t.bots)) == 4 for t in rnd)
    assert leagues.schedule(levels, "random", 4, 50) != rnd


def test_a_handful_of_simulated_games_are_cached_as_played(bench, leagues, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bench.main(
        [
            "--games",
            "4",
            "--block",
            "4",
            "--seeds",
            "1",
            "--bots",
            "4",
            "--cache",
            str(tmp_path),
            "--simulate-only",
        ]
    )
    dup = leagues.read_cache(leagues.cache_path(tmp_path, 4, 1, "duplicate"))
    assert len(dup) == 4 and len({g["walls"] for g in dup}) == 1
    for g in dup:
        assert sorted(g["places"]) == [1, 2, 3, 4]
        assert sum(g["points"]) <= 100_000 and (100_000 - sum(g["points"])) % 1000 == 0
        ahead = sorted(range(4), key=lambda s: (-g["points"][s], s))
        assert [g["places"][s] for s in ahead] == [1, 2, 3, 4]
    assert [g["players"] for g in dup] == [list(t) for t in rotations(dup[0]["players"])]


def test_seat_interval_coverage_against_the_other_leagues_by_hand(bench) -> None:  # type: ignore[no-untyped-def]
    """``benchmarks/mahjong_seats.py``'s check by hand: three leagues estimate every seat at 0,
    0 and 3 with standard deviation 1 (95% intervals +-1.96); the first two cover the others'
    mean (1.5), the third does not cover 0; the expected rate is ``2 Phi(1.96 / sqrt(1.5)) -
    1`` (the others' mean has variance 1/2)."""
    path = _PATH.parent / "mahjong_seats.py"
    spec = importlib.util.spec_from_file_location("mahjong_seats_bench", path)
    assert spec is not None and spec.loader is not None
    seats = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seats)
    z = 1.959963984540054
    leagues = [{s: (v, v - z, v + z) for s in seats.SEATS} for v in (0.0, 0.0, 3.0)]
    hits, total, expected = seats.coverage(leagues)
    assert (hits, total) == (8, 12)
    phi = 0.5 * (1 + math.erf(z / math.sqrt(1.5) / math.sqrt(2)))
    assert expected == pytest.approx(2 * phi - 1, abs=1e-9)
