"""The package's layers point one way, no two modules import each other (directly or through
others), and importing :mod:`mindsport` loads neither numba nor SciPy.

Imports are read from the source (``ast``), those inside functions included: a lazy import is
still a dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import mindsport

SRC = Path(mindsport.__file__).parent

# which top-level parts each part may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    # compiling with numba (lanes, object layouts, id tables): no rating code, nothing above
    "_jit": {"errors"},
    # writing a file whole or not at all
    "files": {"errors"},
    # the command line's error boundary, app settings and output-path checks (typer only)
    "commandline": {"errors"},
    "match": {"errors"},
    "rating": {"errors", "match", "_jit"},
    "history": {"errors", "match", "rating", "commandline"},
    "matchmaking": {"errors"},
    "store": {"errors", "match", "rating", "history", "matchmaking", "commandline"},
    "service": {
        "errors",
        "match",
        "rating",
        "history",
        "matchmaking",
        "store",
        "event",
        "commandline",
    },
    "belief": {"errors"},
    # the game contract, the referee and the registry (games are named there as strings)
    "games": {"errors", "commandline"},
    "doudizhu": {"errors", "belief", "games", "commandline"},
    "junqi": {"errors", "belief", "games", "commandline"},
    "tournament": {"errors", "belief", "games", "doudizhu", "junqi", "commandline"},
    # a director's events: stored beside the leagues, on the tournament science
    "event": {
        "errors",
        "match",
        "rating",
        "history",
        "matchmaking",
        "store",
        "belief",
        "games",
        "doudizhu",
        "tournament",
        "commandline",
    },
}
# like the errors, writing files whole is at the bottom: any part above may use it
for _part, _allowed in ALLOWED.items():
    if _part not in {"errors", "files", "_jit"}:
        _allowed.add("files")
# the package root and the commands may import anything
TOP = {"__init__", "__main__", "cli", "demo"}
# the layers whose modules must form no import cycle (the rating core and what sits on it)
ACYCLIC = {"errors", "_jit", "match", "rating", "history", "matchmaking", "store", "service"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in SRC.rglob("*.py")}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The mindsport modules ``name`` imports (``from a import b`` counts ``a.b`` when that is a
    module, else ``a``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("mindsport"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            if not base.startswith("mindsport"):
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in known else base)
    return {m for m in out if m in known and m != name}


def part(module: str) -> str:
    pieces = module.split(".")
    return "__init__" if len(pieces) == 1 else pieces[1]


GRAPH = {n: imports(n, p, set(modules())) for n, p in modules().items()}


def test_the_layers_point_one_way() -> None:
    wrong = []
    for mod, deps in sorted(GRAPH.items()):
        src = part(mod)
        if src in TOP:
            continue
        assert src in ALLOWED, f"{mod}: part {src!r} has no place in the layer table"
        for dep in sorted(deps):
            dst = part(dep)
            if (
                dst != src
                and dst not in ALLOWED[src]
                and not (dst == "__init__" and dep == "mindsport")
            ):
                wrong.append(f"{mod} imports {dep}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    graph = {
        m: {d for d in deps if part(d) in ACYCLIC}
        for m, deps in GRAPH.items()
        if part(m) in ACYCLIC
    }
    # Tarjan's strongly connected components: any component of two or more modules is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_the_checker_sees_lazy_imports_and_cycles(tmp_path: Path) -> None:
    """The checker itself: an import inside a function counts, and a cycle is found."""
    pkg = tmp_path / "mindsport"
    (pkg / "rating").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "rating" / "__init__.py").write_text("")
    (pkg / "rating" / "a.py").write_text("def f():\n    from mindsport.rating import b\n")
    (pkg / "rating" / "b.py").write_text("from mindsport.rating.a import f\n")
    known = {"mindsport", "mindsport.rating", "mindsport.rating.a", "mindsport.rating.b"}
    a = imports("mindsport.rating.a", pkg / "rating" / "a.py", known)
    b = imports("mindsport.rating.b", pkg / "rating" / "b.py", known)
    assert a == {"mindsport.rating.b"} and b == {"mindsport.rating.a"}


@pytest.mark.parametrize(
    "module", ["mindsport", "mindsport.history", "mindsport.store", "mindsport.rating.registry"]
)
def test_import_loads_neither_numba_nor_scipy(module: str) -> None:
    code = (
        f"import sys, {module}; "
        "bad = sorted(m for m in ('numba', 'scipy') if m in sys.modules); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import {module} loaded {out.stdout.strip()}"
