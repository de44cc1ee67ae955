"""External bots speaking the JSON-lines protocol: the example bot through the library and the
command line, and each cause of a forfeit (timeout, crash, illegal answer) with its record, its
log and a reaped process."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from programs import PY, reaped, script
from typer.testing import CliRunner

from mindsport.doudizhu import LINEAR, GameState, deal, play, read_logs
from mindsport.doudizhu.bots import StrongBot, make_bots
from mindsport.doudizhu.game import DouDizhuGame
from mindsport.games import ForfeitReason, get_game, make_bot, play_game
from mindsport.games.external import ExternalBot, ExternalBotError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ddz_random_bot.py"


def test_the_example_bot_plays_whole_games_through_the_library() -> None:
    with ExternalBot(f'"{PY}" "{EXAMPLE}"', DouDizhuGame(), time_limit=10) as bot:
        players = [bot, StrongBot(), StrongBot()]
        records = []
        for seed in range(3):
            rng = np.random.default_rng(seed)
            records.append(play(deal(rng), players, LINEAR, rng))
        pid = bot.pid
        assert pid is not None  # one program for the whole session
        rng = np.random.default_rng(0)
        again = play(deal(rng), players, LINEAR, rng)
        assert bot.pid == pid
    assert reaped(pid) and bot.pid is None
    for record in records:
        assert record.forfeit is None
        state = GameState(record.deal)  # every move replays through the checked path
        for _, move in record.moves:
            state.apply_action(move)
        assert state.is_terminal()
    assert again.moves == records[0].moves  # the seed in each request makes it replayable


def test_the_example_bot_through_the_command_line(tmp_path: Path) -> None:
    from mindsport.cli.doudizhu import app

    spec = f'cmd:"{PY} {EXAMPLE}",strong,strong'
    runner = CliRunner()
    result = runner.invoke(app, ["play", "--seed", "3", "--bots", spec])
    assert result.exit_code == 0, result.output
    assert "forfeit" not in result.output and "win" in result.output
    out = tmp_path / "games.jsonl"
    args = ["simulate", "--games", "4", "--bots", spec, "--out", str(out), "--time-limit", "5"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert [r.forfeit for r in read_logs(out)] == [None] * 4


def test_the_same_program_plays_luzhanqi_through_the_contract() -> None:
    game = get_game("junqi")
    with make_bot(game, f'cmd:"{PY}" "{EXAMPLE}"') as bot:  # type: ignore[attr-defined]
        result = play_game(game, [bot, make_bot(game, "random")], np.random.default_rng(2))
    assert result.forfeit is None and result.plies > 0


def _forfeit_game(spec: str) -> tuple[object, ExternalBot]:
    players = make_bots(f"strong,{spec},strong", time_limit=0.5)
    bot = players[1]
    assert isinstance(bot, ExternalBot)
    rng = np.random.default_rng(4)
    record = play(deal(rng), players, LINEAR, rng)
    return record, bot


def test_a_timeout_forfeits_stops_the_program_and_scores_a_farmer_loss(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spec = "cmd:" + script(
        tmp_path,
        "slow.py",
        """
        import sys, time
        for line in sys.stdin:
            print("thinking hard", file=sys.stderr, flush=True)
            time.sleep(30)
        """,
    )
    with caplog.at_level(logging.INFO):
        record, bot = _forfeit_game(spec)
    f = record.forfeit  # type: ignore[attr-defined]
    assert f is not None and f.player == 1 and f.reason is ForfeitReason.TIMEOUT
    assert "no reply within 0.5 s" in f.detail and "thinking hard" in f.detail
    assert record.winner_side == "landlord"  # type: ignore[attr-defined]
    bombs = record.bombs + record.rockets  # type: ignore[attr-defined]
    assert record.scores == (1.0 + bombs, -(1 + bombs) / 2, -(1 + bombs) / 2)  # type: ignore[attr-defined]
    assert bot.pid is None  # stopped, and started afresh at its next decision
    assert "forfeited (timeout)" in caplog.text and "thinking hard" in caplog.text


def test_a_crash_forfeits_with_the_programs_last_words(tmp_path: Path) -> None:
    spec = "cmd:" + script(
        tmp_path,
        "crash.py",
        """
        import sys
        sys.stdin.readline()
        print("out of memory, giving up", file=sys.stderr, flush=True)
        sys.exit(3)
        """,
    )
    record, bot = _forfeit_game(spec)
    f = record.forfeit  # type: ignore[attr-defined]
    assert f is not None and f.reason is ForfeitReason.CRASH and f.player == 1
    assert "closed its output" in f.detail and "exit status 3" in f.detail
    assert "out of memory, giving up" in f.detail
    assert bot.pid is None


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ('{"action": "pair:XD"}', "'pair:XD', which is not a legal action"),
        ("I pass", 'not {"action": <a legal action>}'),
        ('{"move": "pass"}', 'not {"action": <a legal action>}'),
    ],
)
def test_an_illegal_answer_forfeits(tmp_path: Path, reply: str, message: str) -> None:
    spec = "cmd:" + script(
        tmp_path,
        "wrong.py",
        f"""
        import sys
        for line in sys.stdin:
            print({reply!r}, flush=True)
        """,
    )
    record, bot = _forfeit_game(spec)
    f = record.forfeit  # type: ignore[attr-defined]
    assert f is not None and f.reason is ForfeitReason.ILLEGAL and message in f.detail
    pid = bot.pid
    assert pid is not None  # an illegal answer does not stop the program ...
    bot.close()
    assert reaped(pid)  # ... closing does, and waits for it


def test_a_forfeit_is_written_to_the_logs_and_read_back(tmp_path: Path) -> None:
    from mindsport.doudizhu import write_logs

    spec = "cmd:" + script(tmp_path, "mute.py", "import sys\nsys.exit(0)\n")
    record, _ = _forfeit_game(spec)
    path = tmp_path / "log.jsonl"
    write_logs(path, [record])  # type: ignore[list-item]
    line = json.loads(path.read_text())
    assert line["forfeit"]["reason"] == "crash" and line["forfeit"]["player"] == 1
    assert read_logs(path)[0].forfeit == record.forfeit  # type: ignore[attr-defined]


def test_bad_commands_are_refused_up_front() -> None:
    with pytest.raises(ExternalBotError, match="needs a command"):
        ExternalBot("", DouDizhuGame())
    with pytest.raises(ExternalBotError, match="is not found"):
        ExternalBot("no-such-program-xyz --flag", DouDizhuGame())
    with pytest.raises(ExternalBotError, match="time limit"):
        ExternalBot(f'"{PY}" "{EXAMPLE}"', DouDizhuGame(), time_limit=0)
