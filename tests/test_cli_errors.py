"""The command line's error boundary: every mistake of the user, in every command group, is one
line on stderr that names the offending input, with exit status 2 and no traceback; an internal
failure prints its traceback and a request to report it, with exit status 70.

The bad invocations run in process through the root app (the same code path as the installed
``mindsport`` command, whose entry point only calls it); two run the real entry point in a
subprocess.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindsport.cli import app

runner = CliRunner()

MISSING = "/nonexistent/dir"
DIH = ["tournament", "dih", "--probs", ".5,.5", "--players", "3", "--rounds", "2", "--top", "2"]

# (arguments, text the error line must contain); {tmp} is a scratch folder, {db} a mindsport
# database with the league "club" (players a, b, c), {csv} a CSV file that is no database,
# {other} a SQLite database of another program,
# {good} a valid match file, {bad} a match file whose second line is wrong
CASES: list[tuple[list[str], str]] = [
    # root
    (["--nope"], "--nope"),
    (["nocmd"], "nocmd"),
    (["demo", "--players", "2"], "--players"),
    # store commands
    (["leaderboard", "--db", "{csv}"], "games.csv"),
    (["leaderboard", "--db", "{tmp}/nodb.db"], "nodb.db"),
    (["leaderboard", "--db", "{other}"], "other.db' holds no mindsport data"),
    (["leaderboard", "--db", "postgresql://x:secret@127.0.0.1:1/nope"], "127.0.0.1:1/nope"),
    (["leaderboard", "--league", "nope", "--db", "{db}"], "'nope'"),
    (["leaderboard", "--top", "0", "--db", "{db}"], "--top"),
    (["rate", "{tmp}/missing.jsonl", "--db", "{db}"], "missing.jsonl"),
    (["rate", "{bad}", "--db", "{db}"], "line 2"),
    (["rate", "{good}", "--model", "chess9", "--db", "{db}"], "chess9"),
    (["rate", "{good}", "--db", "{tmp}/nofolder/x.db"], "nofolder"),
    (["rate", "{good}", "--db", "/proc/x.db"], "/proc/x.db"),
    (["player", "ghost", "--league", "club", "--db", "{db}"], "ghost"),
    (["player", "a", "--league", "club", "--db", "{db}", "--plot", f"{MISSING}/p.png"], MISSING),
    (["predict", "a", "--league", "club", "--db", "{db}"], "'a'"),
    (["predict", "a", "zed", "--league", "club", "--db", "{db}"], "zed"),
    (["matchmake", "--players", "a,b", "--shape", "xyz", "-l", "club", "--db", "{db}"], "xyz"),
    (["recompute", "--league", "nope", "--db", "{db}"], "nope"),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--db", "{csv}"], "games.csv"),
    # evaluate, import
    (["evaluate", "{tmp}/missing.csv"], "missing.csv"),
    (["evaluate", "{good}", "--models", "nope"], "nope"),
    (["evaluate", "{good}", "--out", "/proc/x"], "/proc/x"),
    (["evaluate", "{good}", "--train", "2"], "--train"),
    (["import", "{good}", "--out", f"{MISSING}/g.jsonl"], MISSING),
    (["import", "{good}", "--out", "{tmp}/x.txt"], "x.txt"),
    (["import", "{tmp}/empty", "--out", "{tmp}/o.jsonl"], "empty"),
    # keys, leagues
    (["keys", "create", "--expires", "soon", "--db", "{db}"], "soon"),
    (["keys", "revoke", "999", "--db", "{db}"], "999"),
    (["keys", "revoke", "abc"], "key_id"),
    (["keys", "list", "--db", "{csv}"], "games.csv"),
    (["leagues", "create", "x", "--model", "elo", "--param", "kk=5", "--db", "{db}"], "kk"),
    (["leagues", "create", "x", "--param", "tau", "--db", "{db}"], "tau"),
    (["leagues", "create", "bad name!", "--db", "{db}"], "bad name!"),
    (["leagues", "set", "nope", "--db", "{db}"], "nope"),
    (["leagues", "list", "--db", "{tmp}/none.db"], "none.db"),
    (["leagues", "models", "extra"], "extra"),
    # Dou Dizhu
    (["ddz", "simulate", "--out", f"{MISSING}/x.jsonl"], MISSING),
    (["ddz", "simulate", "--bots", "superbot", "--out", "{tmp}/l.jsonl"], "superbot"),
    (["ddz", "simulate", "--games", "0"], "--games"),
    (["ddz", "play", "--scoring", "nope"], "nope"),
    (["ddz", "deal", "--seed", "x"], "--seed"),
    # any game, Luzhanqi
    (["games", "play", "chess", "--bots", "a,b"], "chess"),
    (["games", "play", "doudizhu", "--bots", "random"], "random"),
    (["games", "list", "x"], "x"),
    (["junqi", "play", "--bots", "random"], "random"),
    (["junqi", "play", "--bots", "random,wizard"], "wizard"),
    # tournaments
    (
        [*DIH, "--scores", "-1,1", "--plot", f"{MISSING}/d.png"],
        MISSING,
    ),
    (
        [*DIH, "--scores", "a,b"],
        "--scores",
    ),
    (["tournament", "select", "{tmp}/nolog.jsonl", "--players", "9", "--rounds", "2"], "nolog"),
    (["tournament", "gdi", "{tmp}/nolog.jsonl"], "nolog.jsonl"),
    (["tournament", "gdi", "{good}", "--out", f"{MISSING}/lib.jsonl"], MISSING),
    (["tournament", "swiss", "--players", "2"], "--players"),
    (["tournament", "generate", "--out", f"{MISSING}/g.jsonl"], MISSING),
    (["tournament", "generate", "--save-model", "/proc/m.json"], "/proc"),
    (["tournament", "validate", "--landlords", "0,500"], "--landlords"),
    (["tournament", "compare", "--landlords", "x"], "--landlords"),
    (["tournament", "validate-grid", "--players", "0"], "--players"),
    (["tournament", "validate-formats", "--farmers", "a,b,c"], "--farmers"),
    (["tournament", "validate-formats", "--plots", "{csv}"], "games.csv"),
    # events
    (["event", "create", "e1", "-l", "nope", "--db", "{db}"], "nope"),
    (["event", "create", "e1", "-l", "club", "--rounds", "0", "--db", "{db}"], "rounds"),
    (["event", "show", "ghost", "--db", "{db}"], "ghost"),
    (["event", "standings", "ghost", "--db", "{tmp}/none.db"], "none.db"),
    (["event", "result", "ghost", "1", "1", "-s", "1,2", "--db", "{db}"], "ghost"),
    (["event", "sheet", "ghost", "1", "--html", f"{MISSING}/s.html", "--db", "{db}"], MISSING),
    (["event", "simulate", "--events", "0"], "--events"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from mindsport.store import Store

    tmp = tmp_path_factory.mktemp("cli-errors")
    (tmp / "games.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (tmp / "empty").mkdir()
    import sqlite3

    with contextlib.closing(sqlite3.connect(tmp / "other.db")) as other:  # not mindsport's
        other.execute("CREATE TABLE notes (text TEXT)")
    good = tmp / "good.jsonl"
    good.write_text(
        "".join(
            f'{{"id": "m{i}", "time": {i}, "teams": [["{p}"], ["{q}"]], "ranks": [0, 1]}}\n'
            for i, (p, q) in enumerate([("a", "b"), ("b", "c"), ("c", "a")] * 3)
        ),
        encoding="utf-8",
    )
    bad = tmp / "bad.jsonl"
    bad.write_text(
        '{"id": "m0", "time": 0, "teams": [["a"], ["b"]], "ranks": [0, 1]}\n'
        '{"id": "m1", "time": 1, "teams": [["a"], ["b"]], "ranks": [0]}\n',
        encoding="utf-8",
    )
    db = f"sqlite:///{tmp / 'league.db'}"
    with Store(db) as store:
        store.create_league("club", "trueskill", {})
        from mindsport.match import Match

        store.add_matches(
            "club", [Match("x", 0, [["a"], ["b"]], [0, 1]), Match("y", 1, [["b"], ["c"]], [0, 1])]
        )
    return {
        "tmp": str(tmp),
        "db": db,
        "csv": str(tmp / "games.csv"),
        "good": str(good),
        "bad": str(bad),
        "other": str(tmp / "other.db"),
    }


def test_the_table_covers_every_command_group() -> None:
    from typer.main import get_command

    groups = set(get_command(app).commands)  # type: ignore[attr-defined]
    covered = {args[0] for args, _ in CASES}
    assert groups - {"demo"} <= covered, f"no bad invocation of {sorted(groups - covered)}"
    assert len(CASES) >= 40


@pytest.mark.parametrize(("args", "named"), CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_a_mistake_is_one_line_naming_the_input(
    args: list[str], named: str, files: dict[str, str]
) -> None:
    argv = [a.format(**files) for a in args]
    r = runner.invoke(app, argv, catch_exceptions=False)
    assert r.exit_code == 2, (argv, r.output)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: "), lines
    assert "Traceback" not in r.output
    assert named.format(**files) in lines[0], lines[0]
    assert "secret" not in lines[0]  # a database password is never shown


def test_reading_commands_create_no_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MINDSPORT_DATABASE_URL", raising=False)
    r = runner.invoke(app, ["leaderboard", "--league", "x"])  # the default ./mindsport.db
    assert r.exit_code == 2
    assert "'./mindsport.db' does not exist" in r.stderr
    assert not (tmp_path / "mindsport.db").exists()
    r = runner.invoke(app, ["leagues", "create", "x"])  # a writing command creates it
    assert r.exit_code == 0, r.output
    assert (tmp_path / "mindsport.db").exists()


def test_an_internal_error_prints_the_traceback_and_asks_for_a_report(
    monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    from mindsport.cli import ratings as store_cli
    from mindsport.errors import InternalError
    from mindsport.rating import ConvergenceError

    assert issubclass(ConvergenceError, InternalError)
    assert not issubclass(ConvergenceError, ValueError)

    def broken(db: str | None, *, create: bool) -> object:
        raise ConvergenceError("message passing did not converge within 100 sweeps")

    monkeypatch.setattr(store_cli, "open_store", broken)
    r = runner.invoke(app, ["leaderboard", "--league", "club", "--db", files["db"]])
    assert r.exit_code == 70
    assert "Traceback" in r.stderr and "ConvergenceError" in r.stderr
    assert "please report it" in r.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "argv",
    [
        ["leaderboard", "--db", "{csv}"],
        ["ddz", "simulate", "--out", f"{MISSING}/x.jsonl"],
    ],
)
def test_the_installed_entry_point_exits_2_with_one_line(
    argv: list[str], files: dict[str, str]
) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mindsport", *(a.format(**files) for a in argv)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("error: ")
