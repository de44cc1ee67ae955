"""Game logs (JSONL and the seeds' score table) and the ``ddz`` command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mindsport.cli.doudizhu import app
from mindsport.doudizhu import (
    CCPC2016,
    Deal,
    GameState,
    LogError,
    deal,
    play,
    read_logs,
    read_score_table,
    write_logs,
    write_score_table,
)
from mindsport.doudizhu.bots import GreedyBot, StrongBot

runner = CliRunner()


def _records(n: int) -> list:
    rng = np.random.default_rng(1)
    bots = [StrongBot(), GreedyBot(), GreedyBot()]
    return [play(deal(rng), bots, scoring=CCPC2016, rng=rng) for _ in range(n)]


def test_jsonl_round_trip(tmp_path: Path) -> None:
    records = _records(5)
    path = tmp_path / "games.jsonl"
    write_logs(path, records)
    assert read_logs(path) == records
    first = json.loads(path.read_text().splitlines()[0])
    assert first["deal"] == str(records[0].deal)
    assert first["landlord_score"] == records[0].scores[0]
    assert first["scoring"] == "ccpc2016"
    # the logged moves replay to the logged winner
    s = GameState(Deal.parse(first["deal"]))
    for _seat, text in first["moves"]:
        s.apply_action(text)
    assert s.winner == first["winner"]
    assert not list(tmp_path.glob(".*.tmp"))


def test_score_table(tmp_path: Path) -> None:
    records = _records(3)
    path = tmp_path / "scores.txt"
    write_score_table(path, records)
    line = path.read_text().splitlines()[0]
    assert line.startswith(str(records[0].deal)) and "\t" in line
    assert read_score_table(path) == [(r.deal, r.landlord_score) for r in records]


def test_bad_log_lines_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    write_logs(path, _records(1))
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(LogError, match=r"bad.jsonl, line 2: not JSON"):
        read_logs(path)
    path.write_text('{"deal": "[3][4][5]", "moves": []}\n')
    with pytest.raises(LogError, match="line 1"):
        read_logs(path)


def test_atomic_write_leaves_old_file_on_error(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("old\n")

    def broken():  # type: ignore[no-untyped-def]
        yield _records(1)[0]
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_logs(path, broken())
    assert path.read_text() == "old\n"
    assert not list(tmp_path.glob(".*.tmp"))


def test_cli_deal_and_play() -> None:
    res = runner.invoke(app, ["deal", "--seed", "5"])
    assert res.exit_code == 0
    d = Deal.parse(res.output.strip())
    assert len(d.landlord) == 20
    res = runner.invoke(app, ["play", "--seed", "5", "--bots", "strong,level:40,level:40"])
    assert res.exit_code == 0, res.output
    assert "landlord" in res.output and " win" in res.output
    res = runner.invoke(app, ["play", "--bots", "wizard"])
    assert res.exit_code == 2 and "unknown bot" in res.output


def test_cli_simulate_is_independent_of_jobs(tmp_path: Path) -> None:
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"g{jobs}.jsonl"
        res = runner.invoke(
            app,
            [
                "simulate",
                "--games",
                "12",
                "--bots",
                "strong,level:40,level:40",
                "--out",
                str(out),
                "--seed",
                "3",
                "--jobs",
                str(jobs),
            ],
        )
        assert res.exit_code == 0, res.output
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    assert len(outs[0].splitlines()) == 12


def test_doubles_per_farmer_in_logs_and_play(tmp_path: Path) -> None:
    """The 2016 rules' doublings per farmer: logged as [farmer 1, farmer 2], read back equal;
    an older log's single number counts for both farmers; ``ddz play`` takes them."""
    rng = np.random.default_rng(4)
    bots = [StrongBot(), GreedyBot(), GreedyBot()]
    records = [play(deal(rng), bots, CCPC2016, rng, call=3, doubles=(2, 0)) for _ in range(3)]
    path = tmp_path / "games.jsonl"
    write_logs(path, records)
    assert read_logs(path) == records
    line = json.loads(path.read_text().splitlines()[0])
    assert line["doubles"] == [2, 0] and line["call"] == 3
    f1, f2 = line["scores"][1:]
    assert f1 == 4 * f2 and line["scores"][0] == -(f1 + f2)
    line["doubles"] = 1  # an older log
    path.write_text(json.dumps(line) + "\n")
    assert read_logs(path)[0].doubles == (1, 1)
    line["doubles"] = [3, 0]
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(LogError, match=r"games.jsonl, line 1: doubles"):
        read_logs(path)
    res = runner.invoke(
        app, ["play", "--seed", "3", "--scoring", "ccpc2016", "--call", "3", "--doubles", "2,0"]
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "call 3, doubles 2,0" in text
    land, one, two = (float(x) for x in text.rsplit("(ccpc2016) ", 1)[1].split(", "))
    assert one == 4 * two and land == -(one + two)
    res = runner.invoke(app, ["play", "--doubles", "1,x"])
    assert res.exit_code == 2 and "--doubles '1,x'" in res.output
