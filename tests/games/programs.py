"""Outside programs for the tests of external bots (Dou Dizhu's protocol and mjai): a script
written to a file and the command that runs it, and whether a program was waited for."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

PY = sys.executable


def script(tmp_path: Path, name: str, body: str) -> str:
    """``body`` (dedented) written to ``tmp_path / name``; the quoted command that runs it."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return f'"{PY}" "{path}"'


def reaped(pid: int) -> bool:
    """True when ``pid`` is no child of ours any more (exited and waited for)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
