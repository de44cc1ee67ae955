"""External mahjong bots speaking mjai: the example bot through ``mindsport games play``, what a
program is sent, and each cause of a forfeit (malformed or illegal message, crash, timeout)
with its record, its penalty, its log and a reaped program."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from programs import PY, reaped, script
from typer.testing import CliRunner

from mindsport.games import ForfeitReason, get_game, make_bot, play_game
from mindsport.mahjong import MahjongRecord, Walls
from mindsport.mahjong.mjai import MjaiBot

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mahjong_mjai_bot.py"


def _game_with(spec: str, time_limit: float = 5.0) -> tuple[MahjongRecord, MjaiBot]:
    """One east-only game, the program in seat 1 (seat 0 deals first)."""
    game = get_game("mahjong-east")
    bot = make_bot(game, spec, time_limit=time_limit)
    assert isinstance(bot, MjaiBot)
    bots = [make_bot(game, "level:60"), bot, make_bot(game, "level:60"), make_bot(game, "level:60")]
    result = play_game(game, bots, np.random.default_rng(1), Walls(99))
    return game.record(result), bot  # type: ignore[attr-defined]


def test_the_example_bot_through_the_command_line() -> None:
    from mindsport.cli.games import app

    example = f'cmd:"{PY} {EXAMPLE}"'
    spec = f"{example},level:60,{example},level:60"
    result = CliRunner().invoke(app, ["play", "mahjong-east", "--bots", spec, "--games", "2"])
    assert result.exit_code == 0, result.output
    assert "forfeit" not in result.output and "total returns" in result.output


def test_a_program_is_sent_its_unseen_events_and_answers_one_action(tmp_path: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    spec = "cmd:" + script(
        tmp_path,
        "recorder.py",
        f"""
        import json, sys
        sys.path.insert(0, {str(EXAMPLE.parent)!r})
        from mahjong_mjai_bot import Player
        player = Player()
        with open({str(seen)!r}, "w") as out:
            for line in sys.stdin:
                out.write(line)
                out.flush()
                events = json.loads(line)
                for event in events:
                    player.see(event)
                print(json.dumps(player.act(events[-1])), flush=True)
        """,
    )
    record, bot = _game_with(spec)
    bot.close()
    assert record.forfeit is None
    lines = [json.loads(x) for x in seen.read_text().splitlines()]
    assert lines[0][0] == {"type": "start_game", "id": 1}
    assert lines[0][1]["type"] == "start_kyoku"
    # the seat's own hand is shown, the others hidden
    tehais = lines[0][1]["tehais"]
    assert "?" not in tehais[1] and all(set(t) == {"?"} for i, t in enumerate(tehais) if i != 1)
    events = [e for batch in lines for e in batch]
    # other seats' draws are hidden; the program saw every hand of the game
    assert all(e["pai"] == "?" for e in events if e["type"] == "tsumo" and e["actor"] != 1)
    assert sum(e["type"] == "start_kyoku" for e in events) >= 4


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I pass", "not an mjai action"),
        ('{"pai": "1m"}', "not an mjai action"),
        ('{"type": "dahai", "actor": 1, "pai": "9z", "tsumogiri": false}', "not a legal action"),
        ('{"type": "hora", "actor": 1, "target": 1}', "not a legal action"),
    ],
)
def test_a_malformed_or_illegal_message_forfeits(
    tmp_path: Path, reply: str, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    spec = "cmd:" + script(
        tmp_path,
        "wrong.py",
        f"""
        import sys
        for line in sys.stdin:
            print({reply!r}, flush=True)
        """,
    )
    with caplog.at_level(logging.WARNING):
        record, bot = _game_with(spec)
    f = record.forfeit
    assert f is not None and f.player == 1 and f.reason is ForfeitReason.ILLEGAL
    assert message in f.detail
    # seat 1 is not the dealer at its first decision: 8,000 penalty, 4,000 to the dealer
    assert record.points == (29_000, 17_000, 27_000, 27_000)
    assert record.placements == (1, 4, 2, 3)
    assert "forfeited (illegal)" in caplog.text
    bot.close()


def test_a_crash_forfeits_with_the_programs_last_words(tmp_path: Path) -> None:
    spec = "cmd:" + script(
        tmp_path,
        "crash.py",
        """
        import sys
        sys.stdin.readline()
        print("model file missing", file=sys.stderr, flush=True)
        sys.exit(2)
        """,
    )
    record, _ = _game_with(spec)
    f = record.forfeit
    assert f is not None and f.reason is ForfeitReason.CRASH and f.player == 1
    assert "exit status 2" in f.detail and "model file missing" in f.detail


def test_a_hang_forfeits_and_the_program_is_stopped(tmp_path: Path) -> None:
    spec = "cmd:" + script(
        tmp_path,
        "slow.py",
        """
        import sys, time
        for line in sys.stdin:
            time.sleep(30)
        """,
    )
    record, bot = _game_with(spec, time_limit=0.5)
    f = record.forfeit
    assert f is not None and f.reason is ForfeitReason.TIMEOUT and "0.5 s" in f.detail
    assert sum(record.points) + 1000 * record.riichi_sticks == 100_000
    assert all(program.pid is None for program in bot._seats.values())


def test_one_program_per_seat_and_allreaped(tmp_path: Path) -> None:
    game = get_game("mahjong-east")
    bot = make_bot(game, f'cmd:"{PY}" "{EXAMPLE}"', time_limit=5)
    assert isinstance(bot, MjaiBot)
    result = play_game(game, [bot, bot, make_bot(game, "random"), bot], np.random.default_rng(2))
    assert result.forfeit is None
    pids = {seat: p.pid for seat, p in bot._seats.items()}
    assert set(pids) == {0, 1, 3} and len(set(pids.values())) == 3
    bot.close()
    assert all(pid is not None and reaped(pid) for pid in pids.values())
