"""Bot entrants that run programs (``cmd:``), registered as docs/bots.md writes them (quoted),
played to the end of an event with the event's per-move time limit: one program crashes, one
times out. Every forfeit is stored with the event (round, table, board, entrant, reason) and
shown by ``event show``, on the event page and over HTTP.

The reference for the forfeits is the referee's rule, applied to the deal sheets: on every
board, the first of the two broken entrants to act (the landlord leads, then farmer 1, then
farmer 2; nobody can go out on a first move, so each seat acts once) forfeits the board, for
its own reason; boards without a broken entrant have no forfeit."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from typer.testing import CliRunner

from mindsport.cli.event import app
from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ddz_random_bot.py"

CRASH = """
import sys
sys.stdin.readline()
sys.stderr.write("crash bot: giving up\\n")
sys.exit(3)
"""
SLOW = """
import sys, time
for line in sys.stdin:
    time.sleep(30)
"""


def test_cmd_bots_play_to_the_end_and_forfeits_are_kept(db_url: str, tmp_path: Path) -> None:
    (tmp_path / "crash_bot.py").write_text(CRASH)
    (tmp_path / "slow_bot.py").write_text(SLOW)
    py = sys.executable

    def run(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db_url])
        assert out.exit_code == 0, out.output
        return out.output

    run("create", "bots", "-l", "l", "--create-league", "--rounds", "2", "--time-limit", "0.5")
    # as docs/bots.md writes them: cmd:"program args", the quotes grouping
    entrants = {
        "crash": f'cmd:"{py} {tmp_path / "crash_bot.py"}"',
        "slow": f'cmd:"{py} {tmp_path / "slow_bot.py"}"',
        "rand1": f'cmd:"{py} {EXAMPLE}"',
        "rand2": f'cmd:"{py} {EXAMPLE}"',
        "lv1": "level:30",
        "lv2": "level:60",
    }
    listed = tmp_path / "players.txt"
    listed.write_text("".join(f"{n},{b}\n" for n, b in entrants.items()))
    bad = runner.invoke(
        app, ["register", "bots", "x", "--bot", 'cmd:"no-such-prog-1 a"', "--db", db_url]
    )
    assert bad.exit_code == 2 and "bot of 'x'" in bad.output and "is not found" in bad.output
    run("register", "bots", "--file", str(listed))
    broken = {"crash": "crash", "slow": "timeout"}
    want = []
    for rnd in (1, 2):
        run("pair", "bots")
        sheet = json.loads(run("sheet", "bots", str(rnd)))
        run("play", "bots")
        for t in sheet["tables"]:
            for b in t["boards"]:
                seated = [s["player"] for s in b["seats"]]
                first = next((p for p in seated if p in broken), None)
                if first is not None:
                    want.append((rnd, t["table"], b["board"], first, broken[first]))
    assert want  # the broken entrants sat somewhere
    state = json.loads(run("standings", "bots", "--json").splitlines()[0])
    assert state["rounds"] == 2
    run("finish", "bots")
    with Store(db_url) as store, TestClient(create_app(store=store)) as client:
        got = client.get("/api/events/bots").json()
        page = client.get("/events/bots").text
    assert got["status"] == "finished" and got["settings"]["time_limit"] == 0.5
    stored = [
        (f["round"], f["table"], f["board"], f["player"], f["reason"]) for f in got["forfeits"]
    ]
    assert stored == want
    assert any("giving up" in f["detail"] for f in got["forfeits"] if f["player"] == "crash")
    shown = run("show", "bots")
    for rnd, table, board, player, reason in want:
        assert f"forfeit round {rnd} table {table} board {board}: {player} ({reason})" in shown
    assert page.count('<tr data-player="crash">') >= 1 and "id=forfeits" in page
    assert [p["bot"] for p in got["players"]] == list(entrants.values())
