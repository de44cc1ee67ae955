"""Help of the command line: plain text that keeps every character of the option texts (square
brackets included), shows defaults, and is printed without loading the heavy modules."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from mindsport.cli import app

runner = CliRunner()

HEAVY = (
    "numpy",
    "numba",
    "scipy",
    "sqlalchemy",
    "fastapi",
    "uvicorn",
    "matplotlib",
    "mindsport.rating",
    "mindsport.store.facade",
    "mindsport.doudizhu.game",
    "mindsport.doudizhu.compiled",
    "mindsport.tournament.dih",
)


def commands() -> Iterator[tuple[list[str], object]]:
    """Every command of the tree with its path of names."""

    def walk(cmd: object, path: list[str]) -> Iterator[tuple[list[str], object]]:
        yield path, cmd
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            yield from walk(sub, [*path, name])

    yield from walk(get_command(app), [])


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_database_option_and_the_ray_hint_keep_their_brackets() -> None:
    r = runner.invoke(app, ["leaderboard", "--help"])
    assert r.exit_code == 0
    assert "[env MINDSPORT_DATABASE_URL; default ./mindsport.db]" in flat(r.output)
    r = runner.invoke(app, ["tournament", "validate", "--help"])
    assert "pip install 'mindsport[ray]'" in flat(r.output)


def test_defaults_are_shown() -> None:
    out = flat(runner.invoke(app, ["leaderboard", "--help"]).output)
    assert "[default: 20; x>=1]" in out and "[default: main]" in out
    out = flat(runner.invoke(app, ["ddz", "simulate", "--help"]).output)
    assert "[default: logs.jsonl]" in out


@pytest.mark.parametrize("path", [p for p, _ in commands()], ids=lambda p: " ".join(p) or "root")
def test_every_help_text_is_printed_whole(path: list[str]) -> None:
    cmd = dict((tuple(p), c) for p, c in commands())[tuple(path)]
    r = runner.invoke(app, [*path, "--help"])
    assert r.exit_code == 0, r.output
    out = flat(r.output)
    for param in getattr(cmd, "params", []):
        text = getattr(param, "help", None)
        if text:
            assert flat(text) in out, f"{' '.join(path)} {param.name}: help text altered"


@pytest.mark.parametrize("args", [["--help"], ["tournament", "--help"], ["rate", "--help"]])
def test_help_loads_no_heavy_module(args: list[str]) -> None:
    code = (
        "import json, sys\n"
        f"sys.argv = ['mindsport', *{args!r}]\n"
        "from mindsport.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []


def test_the_tournament_defaults_are_the_equal_strength_constants() -> None:
    """The tournament commands write the equal-strength paper's defaults out (their help loads
    no NumPy); they are the library's constants."""
    from mindsport.cli import tournament as cli
    from mindsport.tournament.gdi import (
        EQUAL_STRENGTH_CENTRE,
        EQUAL_STRENGTH_EPSILON,
        ONE_BOMB_LEVELS,
    )

    assert tuple(float(x) for x in cli.GDI_LEVELS.split(",")) == ONE_BOMB_LEVELS
    assert tuple(float(x) for x in cli.GDI_CENTRE.split(",")) == EQUAL_STRENGTH_CENTRE
    assert cli._EPSILON == EQUAL_STRENGTH_EPSILON
