"""The documentation cannot drift from the code: the examples of docs/formats.md are read by the
match readers, the field tables name every column and key the readers accept, docs/models.md's
tables are the model registry's, and docs/cli.md shows every command group.

``python tests/test_docs.py`` rewrites the generated part of docs/models.md from the registry.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from mindsport.history import read_matches

DOCS = Path(__file__).resolve().parent.parent / "docs"
BEGIN = "<!-- generated from the model registry by tests/test_docs.py: do not edit -->"
END = "<!-- end of the generated part -->"


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def read_example(tmp_path: Path, text: str, suffix: str, k: int) -> list:  # type: ignore[type-arg]
    f = tmp_path / f"example{k}{suffix}"
    f.write_text(text, encoding="utf-8")
    return read_matches(f)


def test_the_format_examples_are_read_as_documented(tmp_path: Path) -> None:
    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    jsonl, csv = blocks(text, "jsonl"), blocks(text, "csv")
    assert len(jsonl) == 2 and len(csv) == 2
    first = read_example(tmp_path, jsonl[0], ".jsonl", 0)
    assert [m.id for m in first] == ["g1", "g2", "g3", "g4", "g5"]
    g1, g2, g3, g4, g5 = first
    assert g1.teams == (("ann",), ("bob",)) and g1.ranks == (0, 1)
    assert g2.ranks == (0, 0) and g2.time.utcoffset() is not None  # type: ignore[union-attr]
    assert g3.ranks == (2, 0, 1, None)
    assert g4.weights == ((1.0, 0.5), (1.0,))
    assert g5.ranks == (0, 2, 0)  # from the scores: ann and cid share first place
    # the CSV long example holds the same five matches
    assert read_example(tmp_path, csv[0], ".csv", 1) == first
    numbers = read_example(tmp_path, jsonl[1], ".jsonl", 2)
    assert [m.time for m in numbers] == [1, 1] and numbers[1].scores == (3.0, 1.0)
    scores_only = read_example(tmp_path, csv[1], ".csv", 3)
    assert scores_only[0].ranks == (1, 0)


def test_the_field_tables_name_every_column_and_key() -> None:
    from mindsport.history import io

    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| (\w+) \|", text, flags=re.M))
    assert set(io.CSV_COLUMNS) <= rows
    assert rows >= io._JSON_KEYS


def models_markdown() -> str:
    """The generated part of docs/models.md: one section per registered model."""
    from mindsport.rating.registry import MODELS

    out = [BEGIN, ""]
    for spec in MODELS.values():
        d = spec.display
        out += [
            f"## `{spec.name}`: {spec.title}",
            "",
            f"{spec.summary[0].upper()}{spec.summary[1:]}.",
        ]
        shown = f"sorted by **{d.conservative}**; shows {d.value_label}"
        shown += "" if d.deviation_label is None else f" and {d.deviation_label}"
        out += ["", f"Leaderboard: {shown}.", ""]
        out += ["| parameter | default | allowed | meaning |", "|---|---|---|---|"]
        for p in spec.params:
            default = repr(p.default).replace("|", "\\|")
            out.append(f"| `{p.name}` | `{default}` | {p.allowed()} | {p.help} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def api_models_markdown() -> str:
    """The generated part of docs/api.md: every model a league can use, its settings as
    ``POST /api/leagues`` and ``GET /api/leagues`` write them, and a body that creates it."""
    from mindsport.rating.registry import MODELS

    out = [BEGIN, ""]
    for spec in MODELS.values():
        params = {p.name: p.default for p in spec.params if p.default is not None}
        body = json.dumps({"name": "club", "model": spec.name, "params": params})
        out += [f"#### `{spec.name}`: {spec.title}", ""]
        out += ["| setting | default (JSON) | allowed |", "|---|---|---|"]
        for p in spec.params:
            default = json.dumps(p.default).replace("|", "\\|")
            out.append(f"| `{p.name}` | `{default}` | {p.allowed()} |")
        out += ["", "```json", body, "```", ""]
    out.append(END)
    return "\n".join(out)


def test_the_api_guide_covers_every_model() -> None:
    """docs/api.md lists every registered model with its settings, and each example body names
    settings the model accepts as they are written."""
    from mindsport.rating.registry import MODELS

    text = (DOCS / "api.md").read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == api_models_markdown(), "run: python tests/test_docs.py"
    bodies = [json.loads(b) for b in blocks(text[start:end], "json")]
    assert sorted(b["model"] for b in bodies) == sorted(MODELS)
    for b in bodies:
        spec = MODELS[b["model"]]
        spec.build(**spec.check(b["params"]))


def test_the_model_reference_is_the_registry() -> None:
    text = (DOCS / "models.md").read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == models_markdown(), "run: python tests/test_docs.py"


def test_the_cli_guide_shows_every_command_group() -> None:
    from typer.main import get_command

    from mindsport.cli import app

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    examples = " ".join(blocks(text, "sh"))
    for name, cmd in get_command(app).commands.items():  # type: ignore[attr-defined]
        assert f"mindsport {name}" in examples, f"docs/cli.md: no example of `mindsport {name}`"
        for sub in getattr(cmd, "commands", {}):
            assert f"mindsport {name} {sub}" in examples, f"no example of {name} {sub}"


@pytest.mark.parametrize("doc", ["README.md", "docs/cli.md", "docs/formats.md", "docs/models.md"])
def test_the_documents_point_nowhere_outside_the_repository(doc: str) -> None:
    text = (DOCS.parent / doc).read_text(encoding="utf-8")
    assert "../shared" not in text and "DESIGN.md" not in text
    assert not re.search(r"seed 00\d|SEED_00\d", text, flags=re.I)


if __name__ == "__main__":
    for name, make in (("models.md", models_markdown), ("api.md", api_models_markdown)):
        path = DOCS / name
        text = path.read_text(encoding="utf-8")
        start, end = text.index(BEGIN), text.index(END) + len(END)
        path.write_text(text[:start] + make() + text[end:], encoding="utf-8")
    sys.exit(0)


# the examples of docs/cli.md that need no compiled engine, no server, no long run and no public
# data set: run in order, in a scratch folder holding the files they name
QUICK = (
    "leagues",
    "rate games.jsonl",
    "leaderboard",
    "player",
    "predict",
    "matchmake",
    "recompute",
    "evaluate",
    "import",
    "keys",
    "ddz deal",
    "games",
    "tournament dih",
    "tournament swiss",
)


def test_the_cli_guide_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    from typer.testing import CliRunner

    from mindsport.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MINDSPORT_DATABASE_URL", raising=False)
    people = ["ann", "bob", "cid", "dan", "eve", "fay"]
    pairs = [(people[i % 6], people[(i * 5 + 1) % 6]) for i in range(60)]
    lines = [
        json.dumps({"id": f"m{i}", "time": i, "teams": [[a], [b]], "ranks": [i % 2, 1 - i % 2]})
        for i, (a, b) in enumerate(pairs)
        if a != b
    ]
    Path("games.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    CliRunner().invoke(app, ["import", "games.jsonl", "--out", "games.csv"])
    Path("halo2").mkdir()
    Path("halo2/HeadToHead.csv").write_text(
        "06 August 2004 18:19:41,281900,2,20,p3,0,3\n06 August 2004 18:19:41,281900,2,20,p4,1,6\n",
        encoding="utf-8",
    )
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    ran = 0
    for block in blocks(text, "sh"):
        for line in block.splitlines():
            args = shlex.split(line, comments=True)
            if not args or not " ".join(args[1:]).startswith(QUICK):
                continue
            r = CliRunner().invoke(app, args[1:])
            assert r.exit_code == 0, f"{line}\n{r.output}"
            ran += 1
    assert ran >= 20
    assert Path("ann.png").read_bytes().startswith(b"\x89PNG")
    assert Path("ann-curve.png").read_bytes().startswith(b"\x89PNG")  # a whole-history league
    assert Path("report/metrics.csv").exists() and Path("halo.jsonl").exists()


def test_the_analysis_examples_run() -> None:
    """docs/analysis.md's Python blocks run, in order, in one namespace."""
    text = (DOCS / "analysis.md").read_text(encoding="utf-8")
    code = blocks(text, "python")
    assert code
    namespace: dict[str, object] = {}
    for k, block in enumerate(code):
        exec(compile(block, f"docs/analysis.md block {k}", "exec"), namespace)
