"""``compare`` end to end: the same report serially and on worker processes for a seed, the
duplicate sets' games are the line-ups of the rotation, a bot against itself by duplicate, the
SPRT and width stops, bad input, and the command line with an external (cmd:) bot."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mindsport.cli.root import app
from mindsport.errors import MindsportError
from mindsport.games import Table, get_game, play_many
from mindsport.games.compare import CompareSettings, Sprt, Width, compare
from mindsport.games.compare.play import SetsTask, play_sets
from mindsport.games.many import Seeding
from mindsport.tournament.executors import ProcessExecutor, SerialExecutor

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "examples" / "ddz_random_bot.py"


def test_serial_and_processes_give_the_same_report() -> None:
    game = get_game("doudizhu")
    settings = CompareSettings(seed=4, max_games=300, batch=40, calibration=2)
    with SerialExecutor() as ex:
        one = compare(game, "level:30", "level:60", settings, executor=ex)
    with ProcessExecutor(2) as ex:
        two = compare(game, "level:30", "level:60", settings, executor=ex)
    assert one.to_json() == two.to_json()
    # 150 sets of 2 line-ups; the one reference pair plays each line-up on the set's deal and
    # on 2 calibration deals
    assert one.games == 300 and one.sets == 150 and one.reference_games == 150 * 3 * 2
    assert one.win.corrected.se > 0


def test_luzhanqi_sets_swap_the_sides_on_the_same_setups() -> None:
    game = get_game("junqi")
    report = compare(game, "greedy", "random", CompareSettings(max_games=8, calibration=1))
    assert report.lineups == 2 and report.sets == 4
    assert report.win.duplicate.mean > 0.5


def test_a_set_plays_each_lineup_on_the_sets_outcome() -> None:
    """The set's margins are what the referee gives for each line-up on the set's deal."""
    game = get_game("doudizhu")
    task = SetsTask(game, "level:30", "level:70", (("strong", "greedy"),), 2, 9, (5,))
    out = play_sets(task)
    deal = game.sample_chance(Seeding.SPAWN.rng(9, (0, 5)))
    r = play_many(
        game,
        [
            Table(deal, ("level:30", "level:70", "level:70"), (1, 5, 0)),
            Table(deal, ("level:70", "level:30", "level:30"), (1, 5, 1)),
        ],
        9,
    )
    assert out.margins[0].tolist() == [2 * r[0, 0], -2 * r[1, 0]]
    ref = play_many(
        game,
        [
            Table(deal, ("strong", "greedy", "greedy"), (2, 5, 0, 0)),
            Table(deal, ("greedy", "strong", "strong"), (2, 5, 0, 1)),
        ],
        9,
    )
    margins = np.array([2 * ref[0, 0], -2 * ref[1, 0]])
    assert out.features[0].tolist() == [margins.mean(), (0.5 * (np.sign(margins) + 1)).mean()]
    assert out.games == 2 and out.reference_games == 2 * (1 + 2)


def test_a_bot_against_itself_is_even_under_duplicate() -> None:
    """The strong bot is deterministic: on the same deal with the sides swapped it scores
    exactly what it concedes, so every set's margin is zero."""
    report = compare(
        get_game("doudizhu"),
        "strong",
        "strong",
        CompareSettings(seed=1, max_games=200, batch=50, references=()),
    )
    assert report.margin.duplicate.mean == 0.0 and report.margin.duplicate.se == 0.0
    assert report.win.corrected.mean == 0.5 and report.elo.mean == 0.0


def test_sprt_stops_early_on_a_large_gap_and_width_stops_when_narrow() -> None:
    game = get_game("doudizhu")
    sprt = compare(
        game,
        "level:90",
        "level:10",
        CompareSettings(seed=2, max_games=4000, batch=20, stop=Sprt(0.0, 50.0)),
    )
    assert sprt.stopped == "SPRT accepted H1" and sprt.games < 4000
    assert sprt.sprt is not None and sprt.sprt.llr >= sprt.sprt.upper
    wide = compare(
        game,
        "level:90",
        "level:10",
        CompareSettings(seed=2, max_games=4000, batch=20, stop=Width(0.2)),
    )
    assert wide.stopped.startswith("the win interval") and wide.win.corrected.width <= 0.2


def test_bad_input_is_named() -> None:
    game = get_game("doudizhu")
    with pytest.raises(MindsportError, match="level:500"):
        compare(game, "level:500", "strong")
    with pytest.raises(MindsportError, match="max_games"):
        compare(game, "strong", "greedy", CompareSettings(max_games=3))
    with pytest.raises(MindsportError, match="references are fixed built-in bots"):
        compare(game, "strong", "greedy", CompareSettings(references=(("cmd:x", "strong"),)))
    with pytest.raises(MindsportError, match="alpha"):
        Sprt(alpha=0.7)


def test_the_command_compares_an_external_bot(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    bot = f'cmd:"{sys.executable} {EXAMPLE_BOT}"'
    args = ["games", "compare", bot, "level:20", "--max-games", "20", "--batch", "5"]
    args += ["--executor", "serial", "--stop", "none", "--json", str(out), "--quiet"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "duplicate sets of 2 line-ups" in result.output
    report = json.loads(out.read_text())
    assert report["games"] == 20 and report["sets"] == 10
    assert 0.0 <= report["win"]["corrected"]["mean"] <= 1.0
    bad = CliRunner().invoke(app, ["games", "compare", "strong", "greedy", "--stop", "maybe"])
    assert bad.exit_code != 0 and "--stop" in bad.output


@pytest.mark.ray_cluster
def test_ray_gives_the_serial_report() -> None:
    """A tiny case (Ray takes half a minute to start here)."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'mindsport[ray]')")
    from mindsport.tournament.executors import RayExecutor

    game = get_game("doudizhu")
    settings = CompareSettings(seed=4, max_games=40, batch=10, calibration=1)
    serial = compare(game, "level:30", "level:60", settings)
    with RayExecutor(workers=2) as ex:
        remote = compare(game, "level:30", "level:60", settings, executor=ex)
    assert remote.to_json() == serial.to_json()


def test_merged_batches_report_the_playouts_of_those_that_valued_decisions() -> None:
    """A batch that valued no decision says 0 playouts; merged with batches that valued by K,
    the report's K is theirs, and 0 only when no batch valued anything."""
    from mindsport.games.compare.play import PlayedSets
    from mindsport.games.compare.run import _merge

    def part(sets: tuple[int, ...], valued: int, playouts: int) -> PlayedSets:
        n = len(sets)
        return PlayedSets(
            sets, np.zeros((n, 2)), np.zeros((n, 2)), np.zeros((n, 2)), 2 * n, 0,
            np.zeros((n, 1)), valued, playouts,
        )  # fmt: skip

    merged = _merge([part((0, 1), 30, 48), part((2,), 0, 0), part((3,), 12, 48)])
    assert merged.sets == (0, 1, 2, 3) and merged.valued == 42 and merged.playouts == 48
    assert _merge([part((0,), 0, 0), part((1,), 0, 0)]).playouts == 0
