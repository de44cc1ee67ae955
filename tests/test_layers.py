"""The package's layers point one way, no two modules import each other (directly or through
others: the whole package is checked), a game's modules never import its bots, only the command
line imports typer, and importing :mod:`mindsport` loads neither numba nor SciPy.

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
    "frames": {"errors"},
    # the match values (their column-wise assembly sets slots in compiled code)
    "match": {"errors", "_jit"},
    "rating": {"errors", "match", "_jit"},
    "history": {"errors", "match", "rating"},
    "matchmaking": {"errors"},
    "store": {"errors", "match", "rating", "history"},
    # predictions and matchmaking over a store's ratings
    "forecast": {"errors", "match", "matchmaking", "store"},
    "service": {
        "errors",
        "match",
        "rating",
        "history",
        "matchmaking",
        "store",
        "forecast",
        "event",
    },
    # belief < games < the game packages < tournament < event
    "belief": {"errors"},
    # the game contract, the referee, the registry (games and their bot factories are named
    # there as strings), make_bot and play_many
    "games": {"errors", "belief"},
    "doudizhu": {"errors", "belief", "games"},
    "junqi": {"errors", "belief", "games"},
    # riichi mahjong on riichienv's engine
    "mahjong": {"errors", "games"},
    "tournament": {"errors", "belief", "games", "doudizhu", "junqi"},
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
        "junqi",
        "mahjong",
        "tournament",
    },
    # the computation of the demo: simulated leagues and a ladder of Dou Dizhu bots
    "demo": {"errors", "match", "rating", "doudizhu"},
}
# the command line sits on top of every part and may import any of them; no part imports it
ALLOWED["cli"] = set(ALLOWED)
# like the errors, writing files whole and making DataFrames are at the bottom: any part above
# may use them
for _part, _allowed in ALLOWED.items():
    if _part not in {"errors", "files", "frames", "_jit"}:
        _allowed.add("files")
        _allowed.add("frames")
# the package root and ``python -m mindsport`` may import anything
TOP = {"__init__", "__main__"}
# the only part that may import typer (and its click)
COMMAND_LINE = "cli"
# the game packages, whose bots (``PACKAGE.bots``) import the game and never the reverse
GAME_PACKAGES = {"doudizhu", "junqi", "mahjong"}


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


def outside_imports(path: Path) -> set[str]:
    """The top-level names of the packages outside mindsport that the module at ``path``
    imports (those inside functions included)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out - {"mindsport"}


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


def test_only_the_command_line_imports_typer() -> None:
    wrong = [
        f"{mod} imports {name}"
        for mod, path in sorted(modules().items())
        if part(mod) != COMMAND_LINE
        for name in sorted(outside_imports(path) & {"typer", "click"})
    ]
    assert not wrong, "\n".join(wrong)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of two or more modules
    (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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
    return cycles


def bots_imported_by_games(graph: dict[str, set[str]]) -> list[str]:
    """Modules of a game package, outside its ``bots``, that import its bots (the package's
    exports and its commands sit on top of both and may)."""
    wrong = []
    for mod, deps in sorted(graph.items()):
        pieces = mod.split(".")
        if len(pieces) < 3 or pieces[1] not in GAME_PACKAGES or pieces[2] in TOP:
            continue
        bots = f"mindsport.{pieces[1]}.bots"
        if mod == bots or mod.startswith(bots + "."):
            continue
        wrong += [
            f"{mod} imports {d}" for d in sorted(deps) if d == bots or d.startswith(bots + ".")
        ]
    return wrong


def test_no_import_cycles() -> None:
    """Every module of the package, every layer: no cycle."""
    assert not find_cycles(GRAPH), find_cycles(GRAPH)


def test_no_game_module_imports_its_bots() -> None:
    assert not bots_imported_by_games(GRAPH), "\n".join(bots_imported_by_games(GRAPH))


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
    graph = {"mindsport.rating.a": a, "mindsport.rating.b": b, "mindsport.rating": set()}
    assert find_cycles(graph) == [["mindsport.rating.a", "mindsport.rating.b"]]


def test_the_checker_sees_a_game_and_its_bots_importing_each_other() -> None:
    """A cycle through three modules of a game package is found, and so is a game module
    importing the game's bots (the cycles the game packages once had)."""
    graph = {
        "mindsport.doudizhu.game": {"mindsport.doudizhu.bots"},
        "mindsport.doudizhu.bots": {"mindsport.doudizhu.engine"},
        "mindsport.doudizhu.engine": {"mindsport.doudizhu.game"},
        "mindsport.junqi.bots": {"mindsport.junqi.game"},
        "mindsport.junqi.game": set(),
    }
    assert find_cycles(graph) == [
        ["mindsport.doudizhu.bots", "mindsport.doudizhu.engine", "mindsport.doudizhu.game"]
    ]
    assert bots_imported_by_games(graph) == [
        "mindsport.doudizhu.game imports mindsport.doudizhu.bots"
    ]


def test_the_checker_sees_typer_imported_inside_a_function(tmp_path: Path) -> None:
    code = "import numpy as np\n\ndef f():\n    from typer.testing import CliRunner\n"
    (tmp_path / "m.py").write_text(code)
    assert outside_imports(tmp_path / "m.py") == {"numpy", "typer"}


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
