"""PNG plots (atomic) and the ``tournament`` command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mindsport.cli.tournament import app
from mindsport.tournament.plots import plot_dih_curve, plot_gdi_distribution, plot_rank_heatmap

PNG = b"\x89PNG\r\n\x1a\n"
runner = CliRunner()


def test_plots_write_png_and_nothing_else(tmp_path: Path) -> None:
    plot_dih_curve([(1, 0.1), (2, 0.4), (3, 0.6)], tmp_path / "dih.png")
    plot_dih_curve({"a": [(1, 0.1)], "b": [(1, 0.2)]}, tmp_path / "dih2.png")
    plot_gdi_distribution(
        np.random.default_rng(0).random((50, 3)), tmp_path / "gdi.png", centre=(0.9, 0.8, 0.7)
    )
    plot_rank_heatmap(np.eye(4), tmp_path / "heat.png", labels=list("abcd"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["dih.png", "dih2.png", "gdi.png", "heat.png"]
    for name in names:
        assert (tmp_path / name).read_bytes().startswith(PNG)


def test_plot_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="labels"):
        plot_rank_heatmap(np.eye(2), tmp_path / "x.png", labels=["a"])
    assert list(tmp_path.iterdir()) == []


def test_cli_dih_worked_example(tmp_path: Path) -> None:
    args = ["dih", "--scores", "-2,-1,1,2", "--probs", "0,0.6,0.4,0"]
    args += ["--players", "9", "--rounds", "2", "--top", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "0.35816"
    result = runner.invoke(app, [*args, "--plot", str(tmp_path / "c.png"), "--plot-rounds", "5"])
    assert result.exit_code == 0
    assert (tmp_path / "c.png").read_bytes().startswith(PNG)


def test_cli_dih_bad_input_exits_2() -> None:
    args = ["dih", "--scores", "-1,1", "--probs", "0.5,0.6", "--players", "3"]
    result = runner.invoke(app, [*args, "--rounds", "1", "--top", "2"])
    assert result.exit_code == 2
    assert "probs sum to" in result.output
    result = runner.invoke(
        app,
        [
            "dih",
            "--scores",
            "-1,1",
            "--probs",
            "0.5,0.5",
            "--players",
            "3",
            "--rounds",
            "1",
            "--top",
            "4",
        ],
    )
    assert result.exit_code == 2 and "top (4) exceeds players (3)" in result.output


def _log(tmp_path: Path) -> Path:
    log = tmp_path / "games.jsonl"
    rows = []
    for s in (2, 1, 1, -1, -2, 1):
        rows.append({"deal": "[A][B][C]", "landlord_score": s})
    for s in (1, 1, 1, 1, 1, 1):
        rows.append({"deal": "[D][E][F]", "landlord_score": s})
    for s in (2, 2, 2, 1, 1, 2):
        rows.append({"deal": "[G][H][I]", "landlord_score": s})
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return log


def test_cli_select(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "select",
            str(_log(tmp_path)),
            "--players",
            "6",
            "--rounds",
            "2",
            "--top",
            "2",
            "--min-plays",
            "5",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "[A][B][C]" in result.output and "[D][E][F]" not in result.output
    result = runner.invoke(app, ["select", str(_log(tmp_path)), "--players", "6", "--rounds", "2"])
    assert result.exit_code == 2 and "no hand was played at least 50 times" in result.output


def test_cli_gdi(tmp_path: Path) -> None:
    out, plot = tmp_path / "lib.jsonl", tmp_path / "gdi.png"
    result = runner.invoke(
        app,
        [
            "gdi",
            str(_log(tmp_path)),
            "--centre",
            "1,1,0.5",
            "--epsilon",
            "0.2",
            "--out",
            str(out),
            "--plot",
            str(plot),
        ],
    )
    assert result.exit_code == 0, result.output
    # [G][H][I]: GDI (1, 1, 4/6), distance 1/6 from the centre; the others are further
    assert "3 hands; 1 within 0.2" in result.output and "[G][H][I]" in result.output
    assert out.exists() and plot.read_bytes().startswith(PNG)
    bad = runner.invoke(app, ["gdi", str(_log(tmp_path)), "--centre", "1,1"])
    assert bad.exit_code == 2 and "--centre has 2 values" in bad.output


def test_cli_swiss() -> None:
    result = runner.invoke(app, ["swiss", "--players", "9", "--rounds", "3", "--seed", "4"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 3 and all("[repeats 0]" in line for line in lines)
    pairs: set[frozenset[str]] = set()
    for line in lines:
        for table in line.split(": ", 1)[1].split("  "):
            a, b, c = table.strip("()").split()
            for pair in ({a, b}, {a, c}, {b, c}):
                assert frozenset(pair) not in pairs
                pairs.add(frozenset(pair))
