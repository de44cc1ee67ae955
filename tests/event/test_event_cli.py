"""A 90-player, 6-round event through ``mindsport event`` (CliRunner), from registration to the
league, checked against the brute-force reference (``event_reference``): standings recomputed
from the entered results and the rank-point formula, no repeated opponents, byes to players
without one, every player holding every seat's cards once per deal, the same deal at every
table of a duplicate round."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from event_reference import (
    PlayedRound,
    PlayedTable,
    board_scores,
    brute_standings,
    check_sheet,
    league_is_a_fresh_finish,
    repeats,
    round_scores,
    text,
)
from typer.testing import CliRunner

from mindsport.cli import app as root_app
from mindsport.cli.event import app
from mindsport.store import Store

runner = CliRunner()


def test_ninety_players_six_rounds(tmp_path: Path, db_url: str) -> None:
    db = db_url  # SQLite, and PostgreSQL when configured

    def ok(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db])
        assert out.exit_code == 0, out.output
        return out.output

    names = [f"p{i:03d}" for i in range(90)]
    ok("create", "weekend", "--league", "open", "--create-league", "--rounds", "6", "--seed", "7")
    ok("register", "weekend", *names)
    rng = random.Random(3)
    played: list[PlayedRound] = []
    for rnd in range(1, 7):
        if rnd == 3:
            ok("withdraw", "weekend", "p005")
        if rnd == 4:
            assert "from round 4" in ok("register", "weekend", "late1", "late2")
        ok("pair", "weekend")
        if rnd == 5:  # undo the pairing, take back p005's withdrawal, pair again
            assert "round 5 unpaired" in ok("unpair", "weekend", "--why", "p005 came back")
            refused = runner.invoke(app, ["unpair", "weekend", "--why", "x", "--db", db])
            assert "round 4 of event 'weekend' cannot be unpaired: table 1 has a result" in (
                " ".join(refused.output.split())
            )
            ok("reinstate", "weekend", "p005", "--why", "came back", "--who", "td")
            ok("pair", "weekend")
        ok("sheet", "weekend", str(rnd), "--json", str(tmp_path / "sheet.json"))
        sheet = json.loads((tmp_path / "sheet.json").read_text())
        check_sheet(sheet, deals=1)
        tables = [
            PlayedTable(tuple(t["players"]), board_scores(rng, len(t["boards"])))
            for t in sheet["tables"]
        ]
        first = tables[0]
        if rnd == 2:  # a wrong result, then its logged correction
            wrong = [[-x for x in row] for row in first.scores]
            ok("result", "weekend", "2", "1", "-s", text(wrong))
            ok(
                "amend",
                "weekend",
                "2",
                "1",
                "-s",
                text(first.scores),
                "--who",
                "td",
                "--why",
                "swap",
            )
        else:
            ok("result", "weekend", str(rnd), "1", "-s", text(first.scores))
        lines = [f"{rnd} {t + 1} {text(tb.scores)}" for t, tb in enumerate(tables) if t > 0]
        (tmp_path / "results.txt").write_text("# round table scores\n" + "\n".join(lines))
        ok("results", "weekend", str(tmp_path / "results.txt"))
        played.append(PlayedRound(tables, sheet["byes"]))

    # pairing: no repeated opponents, byes where the field is not a multiple of three
    assert repeats(played) == 0
    assert [len(r.byes) for r in played] == [0, 0, 2, 1, 2, 2]  # p005 back from round 5
    byes = [p for r in played for p in r.byes]
    assert len(set(byes)) == len(byes)  # nobody had a second bye while others had none
    seated = [{p for t in r.tables for p in t.players} for r in played]
    assert all("p005" not in s | set(r.byes) for s, r in zip(seated[2:4], played[2:4], strict=True))
    assert all("p005" in s | set(r.byes) for s, r in zip(seated[4:], played[4:], strict=True))
    # late entrants are seated in the round they join; the bye goes to a player already there
    assert all("late1" not in s for s in seated[:3]) and {"late1", "late2"} <= seated[3]

    # standings equal the brute-force reference
    rows = [json.loads(line) for line in ok("standings", "weekend", "--json").splitlines()]
    want = brute_standings([*names, "late1", "late2"], played)
    got = {r["player"]: (r["place"], r["rank_points"], r["score"], r["opponents"]) for r in rows}
    assert got == want
    assert [r["place"] for r in rows] == sorted(r["place"] for r in rows)
    assert next(r for r in rows if r["player"] == "p005")["withdrawn"] is False

    # exports: the CSV parsed back (by the csv module) equals the JSON standings; the legend
    # names every column and the tie-breaks in order
    exported = json.loads(ok("standings", "weekend", "--format", "json"))
    assert exported["standings"] == rows and exported["tie_breaks"] == ["score", "opponents"]
    assert set(exported["legend"]) == {*rows[0], "order"}
    assert "score (total game score), then opponents" in exported["legend"]["order"]
    ok("standings", "weekend", "--format", "csv", "--out", str(tmp_path / "st.csv"))
    with open(tmp_path / "st.csv", newline="") as fh:
        parsed = list(csv.DictReader(fh))
    kinds = {"player": str, "score": float, "withdrawn": lambda x: x == "true"}
    assert [{k: kinds.get(k, int)(v) for k, v in r.items()} for r in parsed] == rows
    table = ok("standings", "weekend")
    assert "Opp. RP (Buchholz): the sum of the final rank points" in " ".join(table.split())
    ok("sheet", "weekend", "6", "--html", str(tmp_path / "sheet.html"))
    page = (tmp_path / "sheet.html").read_text()
    assert page.count('<td class="box"></td>') == sum(3 * 3 + 2 * 3 for _ in played[5].tables)

    # the amendment is logged; finishing writes every table once, idempotently
    shown = runner.invoke(root_app, ["event", "show", "weekend", "--db", db]).output
    assert "6 complete" in shown and "amended round 2 table 1 by td" in shown and "swap" in shown
    assert "unpair by director" in shown and "why: p005 came back" in shown
    assert "reinstate by td" in shown and "p005 (withdrawn from round 3) reinstated" in shown
    wrong = text([[-x for x in row] for row in played[1].tables[0].scores])
    assert f"(scores {wrong} -> {text(played[1].tables[0].scores)})" in shown
    ok("show", "weekend", "--html", str(tmp_path / "page.html"))
    page = (tmp_path / "page.html").read_text()
    assert "<h2>Log</h2>" in page and "round 5 unpaired" in page and "p005 came back" in page
    tables = sum(len(r.tables) for r in played)
    assert f"{tables} new match" in ok("finish", "weekend")
    assert "0 new match" in ok("finish", "weekend")
    with Store(db) as store:
        matches = store.matches("open")
    assert len(matches) == tables
    m = next(m for m in matches if m.id == "weekend:r2:t1")
    t = played[1].tables[0]
    assert [team[0] for team in m.teams] == list(t.players)
    # the league ranks the table by the corrected scores
    s = round_scores(PlayedRound([t]))
    assert list(m.ranks) == [sum(1 for q in t.players if s[q] > s[p]) for p in t.players]
    refused = runner.invoke(app, ["result", "weekend", "6", "1", "-s", text(t.scores), "--db", db])
    assert refused.exit_code == 2 and "finished" in refused.output

    # a correction after the finish: the league's matches are replaced, the league equals a
    # fresh finish of the corrected event
    fixed = [[-x for x in row] for row in played[2].tables[1].scores]
    ok("amend", "weekend", "3", "2", "-s", text(fixed), "--who", "td", "--why", "late appeal")
    played[2].tables[1].scores = fixed
    with Store(db) as store:
        league_is_a_fresh_finish(store, "weekend", "open", tables)
    rows = [json.loads(line) for line in ok("standings", "weekend", "--json").splitlines()]
    got = {r["player"]: (r["place"], r["rank_points"], r["score"], r["opponents"]) for r in rows}
    assert got == brute_standings([*names, "late1", "late2"], played)
    assert "league by td" in ok("show", "weekend")
    refused = runner.invoke(app, ["delete", "weekend", "--yes", "--db", db])
    assert refused.exit_code == 2 and "is finished" in refused.output


def test_refusals_on_the_command_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'refuse.db'}"

    def run(*args: str) -> tuple[int, str]:
        out = runner.invoke(app, [*args, "--db", db])
        return out.exit_code, " ".join(out.output.split())

    assert run("create", "e", "--league", "nope")[1].startswith("error: league 'nope' does not")
    assert run("create", "e", "--league", "l", "--create-league", "--rounds", "2")[0] == 0
    assert run("register", "e", "a", "b", "c", "d")[0] == 0
    code, out = run("register", "e", "x", "--bot", "levle:3")
    assert code == 2 and "bot of 'x': unknown bot 'levle:3'" in out
    code, out = run("register", "e", "e", "b")
    assert code == 2 and "player 'b' is already registered in event 'e' as number 2" in out
    code, out = run("pair", "e", "--tables", "a,b,c;a,d,b")
    assert code == 2 and "'a' is seated twice (tables 1 and 2)" in out
    assert run("pair", "e")[0] == 0
    code, out = run("result", "e", "1", "2", "-s", "2,-1,-1;2,-1,-1;2,-1,-1")
    assert code == 2 and "there is no table 2" in out
    code, out = run("result", "e", "1", "1", "-s", "2,-1,-1;2,-1,x;2,-1,-1")
    assert code == 2 and "board 2 ('2,-1,x') is not three numbers" in out
    code, out = run("result", "e", "1", "1", "-s", "2,-1,-1;2,-1,-1;2,-1,0")
    assert code == 2 and "board 3: scores [2.0, -1.0, 0.0] do not add up to 0" in out
    code, out = run("pair", "e")
    assert code == 2 and "round 1 has no result for table 1" in out
    code, out = run("finish", "e")
    assert code == 2 and "0 of 2 rounds have all their results" in out
    code, out = run("standings", "e", "--after", "1")
    assert code == 2 and "has 0 complete rounds" in out
    (tmp_path / "bad.txt").write_text("# results\n1 1 2,-1,-1;2,-1,-1;2,-1,-1\n1 2 1,-1,0\n")
    code, out = run("results", "e", str(tmp_path / "bad.txt"))
    assert (
        code == 2
        and "bad.txt, line 3: round 1 of event 'e' has tables 1 to 1; there is no table 2" in out
    )
    (tmp_path / "bad.txt").write_text("\n1 1 2,-1,-1;2,-1,-1;2,-1,0\n")
    code, out = run("results", "e", str(tmp_path / "bad.txt"))
    assert code == 2 and "bad.txt, line 2: round 1 table 1 board 3: scores" in out
    (tmp_path / "who.txt").write_text("zed\nyan,levle:3\n")
    code, out = run("register", "e", "--file", str(tmp_path / "who.txt"))
    assert code == 2 and "who.txt, line 2: bot of 'yan': unknown bot 'levle:3'" in out
    code, out = run("reinstate", "e", "a", "--why", "x")
    assert code == 2 and "player 'a' has not withdrawn; nothing to reinstate" in out
    code, out = run("delete", "e", "--yes")
    assert code == 0 and "event e deleted (4 players, 1 rounds, 0 table results)" in out
    assert "event 'e' does not exist" in run("show", "e")[1]
