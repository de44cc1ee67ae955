"""Loads the plain-Python reference implementations beside these tests (the test oracles the
compiled engine is checked against) as importable modules."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def _load(name: str) -> None:
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


_load("reference_moves")
_load("reference_plan")
