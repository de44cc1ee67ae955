"""The root command: version, ``python -m mindsport``."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from typer.testing import CliRunner

from mindsport.cli import app


def test_version_is_the_installed_distribution() -> None:
    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.output.strip() == f"mindsport {version('mindsport')}"


def test_python_dash_m_runs_the_same_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mindsport", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"mindsport {version('mindsport')}"
