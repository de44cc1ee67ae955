"""The phase-2 commands at tiny sizes: validate-grid, validate-formats, generate, swiss."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mindsport.cli.tournament import app

PNG = b"\x89PNG\r\n\x1a\n"
runner = CliRunner()
FAST = ["--executor", "serial", "--quiet"]


def test_validate_grid_prints_the_table_and_the_paper(tmp_path: Path) -> None:
    args = ["validate-grid", "--players", "3,4", "--rounds", "1,2", "--landlords", "0,greedy"]
    args += ["--farmers1", "0", "--farmers2", "0,greedy", "--library-hands", "4"]
    args += ["--probe-hands", "3", "--replays", "1", "--events", "20", "--plot"]
    result = runner.invoke(app, [*args, str(tmp_path / "grid.png"), *FAST])
    assert result.exit_code == 0, result.output
    assert "4 line-ups, 4 library hands, 1 replays, 20 events per cell" in result.output
    assert (tmp_path / "grid.png").read_bytes().startswith(PNG)
    bad = runner.invoke(app, [*args[:-1], "--players", "9", *FAST])
    assert bad.exit_code == 2 and "cannot field 9 players" in bad.output


def test_validate_formats_writes_heatmaps(tmp_path: Path) -> None:
    args = ["validate-formats", "--entrants", "0,greedy", "--graders", "0,greedy"]
    args += ["--library-hands", "4", "--epsilons", "1.8", "--rounds", "2", "--events", "5"]
    args += ["--replays", "1", "--plots", str(tmp_path / "heat")]
    result = runner.invoke(app, [*args, *FAST])
    assert result.exit_code == 0, result.output
    assert "Agreement with duplicate" in result.output and "eps 1.8: 4" in result.output
    names = sorted(p.name for p in (tmp_path / "heat").iterdir())
    assert names == ["duplicate_m2.png", "equal_strength_eps1.8_m2.png", "random_m2.png"]
    bad = runner.invoke(app, [*args[:-2], "--farmers", "0,0,0", *FAST])
    assert bad.exit_code == 2 and "--farmers takes one or two" in bad.output


def test_generate_trains_proposes_and_verifies(tmp_path: Path) -> None:
    out, model = tmp_path / "deals.jsonl", tmp_path / "model.json"
    args = ["generate", "--target", "0.9,0.8,0.6", "--epsilon", "1.8", "--count", "2"]
    args += ["--library-hands", "12", "--graders", "0,greedy", "--seed", "1"]
    result = runner.invoke(app, [*args, "--out", str(out), "--save-model", str(model), *FAST])
    assert result.exit_code == 0, result.output
    assert "held-out R^2" in result.output and "acceptance" in result.output
    assert "verified by simulation" in result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and all(len(r["simulated"]) == 3 for r in rows)
    again = runner.invoke(app, [*args, "--model", str(model), "--no-verify", *FAST])
    assert again.exit_code == 0 and "held-out" not in again.output
    bad = runner.invoke(app, ["generate", "--target", "0.9,0.8", *FAST])
    assert bad.exit_code == 2 and "--target needs 3 values" in bad.output


def test_swiss_from_results_and_with_bots(tmp_path: Path) -> None:
    results = tmp_path / "r.csv"
    rows = ["round,table,player,points"]
    # names in square brackets are shown as written, not read as console markup
    names = ["a", "[b]", "c", "d", "e", "[red]f"]
    rows += [
        f"1,{1 + i // 3},{p},{s}" for i, (p, s) in enumerate(zip(names, (4, 2, 0) * 2, strict=True))
    ]
    results.write_text("\n".join(rows) + "\n")
    result = runner.invoke(app, ["swiss", "--results", str(results)])
    assert result.exit_code == 0, result.output
    # a, b, c met at one table and d, e, f at the other: two new tables of three must each
    # seat two who met (pigeonhole), so the fewest repeats is 2
    assert "round 2 [repeats 2]" in result.output
    assert [line.split()[3] for line in result.output.splitlines() if line.startswith("│")] == [
        "a",
        "d",
        "[b]",
        "e",
        "[red]f",  # ties go by name: "[" sorts before "c"
        "c",
    ]
    played = runner.invoke(app, ["swiss", "--bots", "0,greedy,0,greedy,0,greedy", "--rounds", "2"])
    assert played.exit_code == 0, played.output
    assert "round 2 [repeats" in played.output and "Final standings" in played.output
    both = runner.invoke(app, ["swiss", "--bots", "0,0,0", "--results", str(results)])
    assert both.exit_code == 2 and "not both" in both.output
