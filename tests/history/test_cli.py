"""The evaluate command on a small match file."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mindsport.history import Match, write_matches
from mindsport.history.cli import app


def matches() -> list[Match]:
    out = []
    players = ["a", "b", "c", "d"]
    for t in range(40):
        i, j = t % 4, (t * 3 + 1) % 4
        if i == j:
            j = (j + 1) % 4
        out.append(Match(str(t), t, [[players[i]], [players[j]]], [0, 1] if i < j else [1, 0]))
    out.append(Match("team", 41, [["a", "b"], ["c", "d"]], [0, 1]))
    return out


def test_evaluate_writes_table_plot_and_predictions(tmp_path: Path) -> None:
    f = tmp_path / "m.jsonl"
    write_matches(f, matches())
    out = tmp_path / "out"
    res = CliRunner().invoke(app, [str(f), "--models", "elo,fide,glicko2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "elo" in res.output and "log-loss" in res.output
    assert "skipped glicko2" in res.output  # a team game: Glicko-2 says it can't
    png = (out / "calibration.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    rows = (out / "predictions.csv").read_text().splitlines()
    assert rows[0].startswith("model,match_index,match_id")
    assert len(rows) == 1 + 2 * 41
    assert (out / "metrics.csv").exists()


def test_evaluate_fit_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "m.csv"
    write_matches(f, matches())
    res = CliRunner().invoke(app, [str(f), "-m", "elo", "--fit"])
    assert res.exit_code == 0, res.output
    assert "k=" in res.output
    res = CliRunner().invoke(app, [str(f), "-m", "nope"])
    assert res.exit_code == 2 and "unknown model" in res.output
    res = CliRunner().invoke(app, [str(tmp_path / "missing.csv")])
    assert res.exit_code == 2 and "no such" in res.output


def test_import_writes_a_match_file_and_reports_drops(tmp_path: Path) -> None:
    from mindsport.cli import app as root
    from mindsport.history import read_matches

    src = tmp_path / "HeadToHead.csv"  # the Halo 2 format: one row per player
    src.write_text(
        "06 August 2004 18:19:41,281900,2,20,p3,0,3\n"
        "06 August 2004 18:19:41,281900,2,20,p4,1,6\n"
        "06 August 2004 18:25:00,281901,2,20,p3,0,2\n"
        "06 August 2004 18:25:00,281901,2,20,p4,0,6\n"  # one team only: dropped
    )
    out = tmp_path / "halo.csv"
    res = CliRunner().invoke(root, ["import", str(src), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "1 matches; dropped 1: every player in one team" in res.output
    (m,) = read_matches(out)
    assert m.teams == (("p3",), ("p4",)) and m.ranks == (1, 0) and m.scores == (3.0, 6.0)
    res = CliRunner().invoke(root, ["import", str(src), "--out", str(tmp_path / "no" / "x.csv")])
    assert res.exit_code == 2 and "does not exist" in res.output
