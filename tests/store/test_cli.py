"""The store's command-line commands (typer), end to end on a SQLite file."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mindsport.cli.ratings import app
from mindsport.history import Match
from mindsport.store import Store

runner = CliRunner()


def write_jsonl(path: Path, matches: list[Match], bad_line: int | None = None) -> None:
    with path.open("w") as f:
        for i, m in enumerate(matches, 1):
            obj: dict[str, Any] = {
                "id": m.id,
                "time": m.time,
                "teams": [list(t) for t in m.teams],
                "ranks": list(m.ranks),
            }
            if i == bad_line:
                obj["ranks"] = [0, 1, 2]  # three ranks for two teams
            f.write(json.dumps(obj) + "\n")


def games(n: int, seed: int = 1) -> list[Match]:
    rng = random.Random(seed)
    pool = [f"u{i}" for i in range(8)]
    out = []
    for i in range(n):
        a, b = rng.sample(pool, 2)
        out.append(Match(f"c{i}", i, [[a], [b]], [0, 1] if rng.random() < 0.6 else [1, 0]))
    return out


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_commands_end_to_end(tmp_path: Path, reference: Any) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    ms = games(80)
    f = tmp_path / "games.jsonl"
    write_jsonl(f, ms)
    r = invoke("leagues", "create", "club", "--beta", "4.0", "--db", db)
    assert r.exit_code == 0, r.output
    r = invoke("rate", str(f), "--league", "club", "--db", db)
    assert r.exit_code == 0, r.output
    assert "80 new matches" in r.output
    r = invoke("rate", str(f), "--league", "club", "--db", db)
    assert "0 new matches, 80 already recorded" in r.output
    final, _ = reference(ms, beta=4.0)
    best = max(final, key=lambda p: (final[p][0] - 3 * final[p][1], p))
    r = invoke("leaderboard", "--league", "club", "--top", "3", "--db", db)
    assert r.exit_code == 0 and best in r.output and "8 players" in r.output
    png = tmp_path / "u1.png"
    r = invoke("player", "u1", "--league", "club", "--plot", str(png), "--db", db)
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    r = invoke("predict", "u1", "u2,u3", "--league", "club", "--db", db)
    assert r.exit_code == 0 and "match quality" in r.output and "P(u1 beats u2,u3)" in r.output
    r = invoke(
        "matchmake", "--players", "u0,u1,u2,u3,u4", "--shape", "2v2", "-l", "club", "--db", db
    )
    assert r.exit_code == 0 and "still waiting" in r.output
    r = invoke("keys", "create", "--league", "club", "--db", db)
    key = r.output.strip().splitlines()[0]  # the key on stdout, its number on stderr
    with Store(db) as st:
        assert st.check_key("club", key)
    r = invoke("leagues", "set", "club", "--tau", "0.5", "--db", db)
    assert r.exit_code == 0, r.output
    with Store(db) as st:
        assert st.get_league("club").params == {"beta": 4.0, "tau": 0.5}
        got = st.states("club")
    final2, _ = reference(ms, beta=4.0, tau=0.5)
    assert got["u1"].mu == pytest.approx(final2["u1"][0], abs=2e-5)
    r = invoke("recompute", "--db", db)
    assert "club: replayed 80 matches" in r.output
    r = invoke("leagues", "list", "--db", db)
    assert "club" in r.output


def test_bad_row_500_lines_in_writes_nothing(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    f = tmp_path / "games.jsonl"
    write_jsonl(f, games(800), bad_line=500)
    r = runner.invoke(app, ["rate", str(f), "--league", "club", "--db", db])
    assert r.exit_code == 2
    assert "500" in r.output and "ranks" in r.output
    with Store(db) as st:
        assert st.list_leagues() == []  # not even the league


def test_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    r = runner.invoke(app, ["leaderboard", "--league", "nope", "--db", db])
    assert r.exit_code == 2 and "cli.db' does not exist" in r.output
    assert not (tmp_path / "cli.db").exists()  # a reading command creates no database
    Store(db).close()
    r = runner.invoke(app, ["leaderboard", "--league", "nope", "--db", db])
    assert r.exit_code == 2 and "league 'nope' does not exist" in r.output
    assert "Traceback" not in r.output
    r = runner.invoke(app, ["leagues", "create", "x", "--model", "chess9", "--db", db])
    assert r.exit_code == 2 and "chess9" in r.output
    r = runner.invoke(app, ["rate", str(tmp_path / "missing.jsonl"), "--db", db])
    assert r.exit_code == 2 and "missing.jsonl" in r.output


def test_an_expiry_out_of_range_exits_2_with_one_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    for given in ("999999w", "36526d", "9999-12-31T23:59:59-05:00"):
        r = runner.invoke(app, ["keys", "create", "--admin", "--expires", given, "--db", db])
        assert r.exit_code == 2, (given, r.output)
        assert r.output.splitlines() == [
            f"error: expiry '{given}' is out of range: an expiry lies in the future, at most 100 "
            "years (36525 days) ahead"
        ]
    r = runner.invoke(app, ["keys", "create", "--admin", "--expires", "36525d", "--db", db])
    assert r.exit_code == 0, r.output
    with Store(db) as st:
        assert len(st.list_keys()) == 1  # the refused ones wrote nothing


def test_demo_run(tmp_path: Path, reference: Any) -> None:
    from mindsport.cli.demo import store_league as run

    ms = games(50, seed=3)
    page = run(tmp_path / "demo.db", ms, console=None)
    final, _ = reference(ms)
    order = sorted(final, key=lambda p: (-(final[p][0] - 3 * final[p][1]), p))
    assert [e.player for e in page.entries] == order


def test_leagues_of_any_registered_model_with_its_settings(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    r = invoke("leagues", "models")
    assert r.exit_code == 0 and "glicko2" in r.output and "period" in r.output
    r = invoke(
        "leagues", "create", "club", "--model", "glicko2", "--param", "period=7",
        "--param", "max_rd=none", "--db", db,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    with Store(db) as st:
        assert st.get_league("club").params == {"period": 7.0, "max_rd": None}
    r = runner.invoke(
        app, ["leagues", "create", "x", "--model", "glicko2", "--param", "tau=-1", "--db", db]
    )
    assert r.exit_code == 2 and "tau must be a number in [0.01, 10], got -1.0" in r.output
    f = tmp_path / "games.jsonl"
    write_jsonl(f, games(30))
    assert invoke("rate", str(f), "--league", "club", "--db", db).exit_code == 0
    r = invoke("leaderboard", "--league", "club", "--db", db)
    assert "rating - 2 RD" in r.output and "RD" in r.output
    r = invoke("player", "u1", "--league", "club", "--db", db)
    assert "rating - 2 RD" in r.output


def test_an_elo_leaderboard_has_no_deviation_column(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'elo.db'}"
    f = tmp_path / "games.jsonl"
    write_jsonl(f, games(30))
    assert invoke("rate", str(f), "--league", "e", "--model", "elo", "--db", db).exit_code == 0
    r = invoke("leaderboard", "--league", "e", "--db", db)
    header = next(line for line in r.output.splitlines() if "games" in line)
    assert "rating" in header and "games" in header
    assert "sigma" not in header and "mu" not in header and "RD" not in header


def test_names_print_as_they_are(tmp_path: Path) -> None:
    """Player ids are data, not markup: square brackets survive the tables."""
    db = f"sqlite:///{tmp_path / 'names.db'}"
    with Store(db) as st:
        st.add_matches(
            "main", [Match("1", 1, [["[bold]ann"], ["bob"]], [0, 1])], create=("elo", {})
        )
    assert "[bold]ann" in invoke("leaderboard", "--db", db).output
    assert "[bold]ann in 'main'" in invoke("player", "[bold]ann", "--db", db).output


def test_a_cardplay_leaderboard_prints_its_role_advantages(tmp_path: Path) -> None:
    from mindsport.rating.registry import build_model
    from mindsport.rating.replay.blocks import PlayerIndex

    db = f"sqlite:///{tmp_path / 'ddz.db'}"
    rng = random.Random(4)
    roles = [["landlord"], ["farmer1", "farmer2"]]
    ms = []
    for i in range(30):
        a, b, c = rng.sample([f"u{k}" for k in range(5)], 3)
        ranks = [0, 1] if rng.random() < 0.4 else [1, 0]
        ms.append(Match(f"d{i}", i, [[a], [b, c]], ranks, roles=roles, deal=f"deal{i}"))
    f = tmp_path / "ddz.jsonl"
    f.write_text(
        "".join(
            json.dumps({"id": m.id, "time": m.time, "teams": [list(t) for t in m.teams],
                        "ranks": list(m.ranks), "roles": roles, "deal": m.deal}) + "\n"
            for m in ms
        )
    )  # fmt: skip
    r = invoke("rate", str(f), "--league", "ddz", "--model", "cardplay", "--db", db)
    assert r.exit_code == 0, r.output
    replayer = build_model("cardplay").replayer()
    replayer.feed(replayer.encode(ms, PlayerIndex(), None), predict=False, keep=False)
    out = invoke("leaderboard", "--league", "ddz", "--db", db).output
    # issue 38: the sides against the average side with their 95% intervals (from the seat
    # statistics of the replay in memory), not the roles' prior-centred means
    assert "Seats against the average seat (95% intervals):" in out
    edges = replayer.seat_edges()
    assert [e.side for e in edges] == ["farmer1+farmer2", "landlord"]
    for e in edges:
        assert e.vs_average is not None and e.low is not None and e.high is not None
        kind = "seat" if e.side == "landlord" else "side"
        line = (
            f"{e.side} {kind}: {e.vs_average:+.2f} skill points against the average {kind} "
            f"(95%: {e.low:+.2f} to {e.high:+.2f})"
        )
        assert line in " ".join(out.split()), line


def test_the_last_admin_key_is_not_revoked(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    assert runner.invoke(app, ["keys", "create", "--admin", "--db", db]).exit_code == 0
    r = runner.invoke(app, ["keys", "revoke", "1", "--db", db])
    assert r.exit_code == 2 and r.output.startswith("error: API key 1 is the last active admin key")
    assert len(r.output.splitlines()) == 1
    assert runner.invoke(app, ["keys", "create", "--admin", "--db", db]).exit_code == 0
    r = runner.invoke(app, ["keys", "revoke", "1", "--db", db])
    assert r.exit_code == 0 and r.output.startswith("key 1 (")
    with Store(db) as st:
        assert [k.status() for k in st.list_keys()] == ["revoked", "active"]


def test_the_late_result_policy_through_the_cli(tmp_path: Path) -> None:
    """Set at creation, changed alone (nothing re-rated), shown by ``leagues list``; a bad one
    is refused naming it."""
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    r = invoke("leagues", "create", "club", "--late", "refuse:30", "--db", db)
    assert r.exit_code == 0 and "late results: refuse:30" in r.output, r.output
    r = invoke("leagues", "create", "fast", "--late", "arrival", "--db", db)
    assert r.exit_code == 0, r.output
    with Store(db) as st:
        st.add_matches("fast", [games(4)[3], *games(3)])  # the last three arrive late
        before = st.states("fast")
    r = invoke("leagues", "list", "--db", db)
    assert "club\ttrueskill\t{}\t0 matches\tlate: refuse:30" in r.output
    assert "fast\ttrueskill\t{}\t4 matches\tlate: arrival" in r.output
    r = invoke("leagues", "set", "fast", "--late", "replay", "--db", db)
    assert r.exit_code == 0 and "nothing re-rated" in r.output, r.output
    with Store(db) as st:
        assert st.get_league("fast").late.text() == "replay"
        assert st.states("fast") == before
    r = invoke("leagues", "set", "club", "--beta", "5", "--late", "arrival", "--db", db)
    assert r.exit_code == 0 and "late results: arrival" in r.output, r.output
    r = runner.invoke(app, ["leagues", "create", "x", "--late", "refuse", "--db", db])
    assert r.exit_code != 0 and "needs refuse_older_than" in r.output
    r = runner.invoke(app, ["leagues", "set", "club", "--late", "soon", "--db", db])
    assert r.exit_code != 0 and "'soon'" in r.output
