"""Riichi mahjong events: tables of four, every deal (the walls) played in the four seat
rotations, each seat's final points entered and scored by the World Riichi Championship's
placement points and uma, through the same commands as every event (register, pair, sheets,
results, standings, exports, page, league); a played event of bots; bad results refused with
exact messages. Runs on SQLite and, when configured, on PostgreSQL.

The references are hand computations from the WRC rules (start 30,000, no oka, uma +15 / +5 /
-5 / -15 thousand, players tied on points sharing the uma of their places; score = (points -
30,000) / 1,000 + uma), written out below as literal numbers, and the brute-force standings of
``event_reference``."""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pytest
from event_reference import (
    PlayedRound,
    PlayedTable,
    brute_standings,
    holder,
    league_is_a_fresh_finish,
    repeats,
)
from typer.testing import CliRunner

from mindsport.cli.event import app
from mindsport.event.games import table_game
from mindsport.event.model import EventError, EventFormat, EventSpec
from mindsport.event.simulate import graded_field, kendall_tau, simulate_event
from mindsport.event.storage import EventStore
from mindsport.mahjong.scoring import WRC
from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytest.importorskip("riichienv")

runner = CliRunner()

#: final points of a board (east, south, west, north) -> its WRC scores, by hand:
HAND = {
    # south and west tie for second: each (30,000 - 30,000) / 1,000 + (5 - 5) / 2 = 0
    (42_300, 30_000, 30_000, 17_700): (27.3, 0.0, 0.0, -27.3),
    # two tie for first: 20 + (15 + 5) / 2 = 30; two for third: -20 + (-5 - 15) / 2 = -30
    (50_000, 50_000, 10_000, 10_000): (30.0, 30.0, -30.0, -30.0),
    # two riichi deposits (2,000) left on the table: 10 + 15, 1 + 5, -3 - 5, -10 - 15
    (40_000, 31_000, 27_000, 20_000): (25.0, 6.0, -8.0, -25.0),
    # three tie for first: 6 + (15 + 5 - 5) / 3 = 11; last -18 - 15 = -33
    (36_000, 36_000, 36_000, 12_000): (11.0, 11.0, 11.0, -33.0),
    # first 5 + 15 = 20; two tie for second 0; last -5 - 15 = -20
    (25_000, 35_000, 30_000, 30_000): (-20.0, 20.0, 0.0, 0.0),
    # nobody moved: every uma shared, 0 each
    (30_000, 30_000, 30_000, 30_000): (0.0, 0.0, 0.0, 0.0),
}


def test_wrc_scores_by_hand() -> None:
    for points, want in HAND.items():
        assert WRC.scores(points) == want, points
        assert WRC.problem(points) is None
    assert WRC.umas((30_000, 30_000, 40_000, 20_000)) == (0.0, 0.0, 15.0, -15.0)


def test_bad_final_points_and_walls_are_refused() -> None:
    game = table_game("mahjong")
    assert game.problem("wrc", (30_000, 30_000, 30_000, 30_500)) == (
        "final points [30000, 30000, 30000, 30500] sum to 120500: they sum to 120000 "
        "(4 x 30000) less the riichi deposits of 1000 left on the table"
    )
    assert game.problem("wrc", (30_000, 30_000, 30_000, 29_500)) == (
        "final points [30000, 30000, 30000, 29500] sum to 119500: they sum to 120000 "
        "(4 x 30000) less the riichi deposits of 1000 left on the table"
    )
    assert game.problem("wrc", (30_050, 30_000, 30_000, 29_950)) == (
        "final points 30050: points are whole hundreds"
    )
    for bad in (float("inf"), float("nan"), 1e300):
        assert game.problem("wrc", (bad, 30_000, 30_000, 30_000)) == (
            f"final points {bad:g}: a game's points are a number from -1,000,000 to 1,000,000"
        )
    with pytest.raises(EventError) as err:
        game.chance("12x")
    assert (
        str(err.value) == "walls '12x': write the walls' seed, a whole number from 0 to 2**64 - 1"
    )
    with pytest.raises(EventError, match=r"walls '18446744073709551616'"):
        game.chance(str(2**64))
    assert game.chance(" 18446744073709551615 ").seed == 2**64 - 1
    with pytest.raises(EventError, match="Riichi mahjong \\(east-south\\) events use wrc"):
        EventSpec("m", "l", game="mahjong", rule="linear")
    with pytest.raises(EventError, match="pool of hands is for Dou Dizhu"):
        EventSpec("m", "l", game="mahjong-east", source="pool", pool=("1",))


def _text(rows: list[tuple[int, ...]]) -> str:
    return ";".join(",".join(str(x) for x in row) for row in rows)


def test_a_mahjong_event_through_the_commands(db_url: str, tmp_path: Path) -> None:
    def ok(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db_url])
        assert out.exit_code == 0, out.output
        return out.output

    def refused(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db_url])
        assert out.exit_code != 0, out.output
        return " ".join(out.output.split())

    ok("create", "mj", "-l", "riichi", "--create-league", "--game", "mahjong-east")
    ok("create", "mj2", "-l", "riichi", "--game", "mahjong-east", "--rounds", "2", "--seed", "5")
    names = [f"m{i}" for i in range(9)]
    ok("register", "mj2", *names)
    hand = list(HAND)
    played: list[PlayedRound] = []
    for rnd in (1, 2):
        ok("pair", "mj2")
        sheet = json.loads(ok("sheet", "mj2", str(rnd)))
        assert sheet["game"] == "mahjong-east" and len(sheet["byes"]) == 1  # nine players
        walls = {t["boards"][0]["hand"] for t in sheet["tables"]}
        assert len(walls) == 1  # duplicate: every table the same walls
        table_game("mahjong-east").chance(walls.pop())  # a walls seed the game reads
        tables = []
        for t in sheet["tables"]:
            assert len(t["players"]) == 4 and len(t["boards"]) == 4
            for b, board in enumerate(t["boards"]):
                assert [s["seat"] for s in board["seats"]] == ["east", "south", "west", "north"]
                assert [s["player"] for s in board["seats"]] == [
                    holder(t["players"], b, s) for s in range(4)
                ]
            for s in range(4):  # every player holds every seat once on the same walls
                assert {b["seats"][s]["player"] for b in t["boards"]} == set(t["players"])
            k = 2 * (rnd - 1) + t["table"] - 1
            points = [hand[(k + b) % len(hand)] for b in range(4)]
            tables.append((t, points))
        (_, p1), (_, p2) = tables
        if rnd == 1:
            # bad results, refused with the table, board and what is wrong; nothing entered
            bad = [list(p) for p in p1]
            bad[1][3] += 500
            assert (
                "round 1 table 1 board 2: final points [50000, 50000, 10000, 10500] sum to "
                "120500: they sum to 120000 (4 x 30000) less the riichi deposits of 1000 left "
                "on the table"
            ) in refused("result", "mj2", "1", "1", "-s", _text([tuple(r) for r in bad]))
            assert (
                "round 1 table 1 board 1: expected 4 final points (east, south, west, north)"
                in (refused("result", "mj2", "1", "1", "-s", "30000,30000,30000;" * 3 + "1,2,3"))
            )
            assert "round 1 table 1: expected scores for 4 boards, got 3 rows" in refused(
                "result", "mj2", "1", "1", "-s", _text(p1[:3])
            )
            (tmp_path / "r1.txt").write_text(
                f"1 1 {_text(p1)}\n1 2 30000,30000,30000,30050;{_text(p2[1:])}\n"
            )
            assert (
                "r1.txt, line 2: round 1 table 2 board 1: final points 30050: points are whole "
                "hundreds"
            ) in refused("results", "mj2", str(tmp_path / "r1.txt"))
            with Store(db_url) as store:
                assert not EventStore(store).get("mj2").results
        ok("result", "mj2", str(rnd), "1", "-s", _text(p1))
        (tmp_path / f"r{rnd}.txt").write_text(f"{rnd} 2 {_text(p2)}\n")
        ok("results", "mj2", str(tmp_path / f"r{rnd}.txt"))
        with Store(db_url) as store:
            ev = EventStore(store).get("mj2")
        for t, points in tables:  # the stored scores are the hand-computed WRC scores
            got = [list(x) for x in ev.results[(rnd, t["table"])].scores]
            assert got == [list(HAND[p]) for p in points]
        tables_played = [
            PlayedTable(tuple(t["players"]), [list(HAND[p]) for p in pts]) for t, pts in tables
        ]
        played.append(PlayedRound(tables_played, list(sheet["byes"])))
    # nine players: round 2 seats round 1's bye with seven of round 1's two tables (4 + 3), so
    # the fewest repeats are 3 (tables 2 + 1 + bye, 2 + 2: one pair, then two pairs)
    assert repeats(played) == 3
    rows = [json.loads(line) for line in ok("standings", "mj2", "--json").splitlines()]
    got = {r["player"]: (r["place"], r["rank_points"], r["score"], r["opponents"]) for r in rows}
    assert got == brute_standings(names, played)
    exported = json.loads(ok("standings", "mj2", "--format", "json"))
    assert exported["standings"] == rows
    ok("standings", "mj2", "--format", "csv", "--out", str(tmp_path / "st.csv"))
    with open(tmp_path / "st.csv", newline="") as fh:
        parsed = list(csv.DictReader(fh))
    kinds = {"player": str, "score": float, "withdrawn": lambda x: x == "true"}
    assert [{k: kinds.get(k, int)(v) for k, v in r.items()} for r in parsed] == rows
    ok("sheet", "mj2", "2", "--html", str(tmp_path / "sheet.html"))
    page = (tmp_path / "sheet.html").read_text()
    assert page.count('<td class="box"></td>') == 2 * (4 * 4 + 2 * 4)
    assert "<th>east final points</th>" in page and "4 x 30,000 less the riichi" in page
    ok("show", "mj2", "--html", str(tmp_path / "mj2.html"))
    assert "Riichi mahjong (east-only)" in (tmp_path / "mj2.html").read_text()

    # the league: one four-player match per board, placed by points (ties share a place)
    assert "16 new match" in ok("finish", "mj2")
    with Store(db_url) as store:
        matches = {m.id: m for m in store.matches("riichi")}
    assert len(matches) == 16 and all(len(m.teams) == 4 for m in matches.values())
    board2 = matches["mj2:r1:t1:b2"]  # round 1, table 1, board 2
    seats = [holder(played[0].tables[0].players, 1, s) for s in range(4)]
    assert [team[0] for team in board2.teams] == seats
    points = hand[1]  # (50,000, 50,000, 10,000, 10,000): two share first, two share third
    assert list(board2.ranks) == [0, 0, 2, 2] and points == (50_000, 50_000, 10_000, 10_000)
    assert list(board2.scores or []) == [30.0, 30.0, -30.0, -30.0]

    # a correction after the finish: final points entered again, the league's boards replaced
    fixed = [hand[0], (10_000, 50_000, 50_000, 10_000), hand[2], hand[3]]
    ok("amend", "mj2", "1", "1", "-s", _text(fixed), "--who", "td", "--why", "board 2 misread")
    shown = " ".join(ok("show", "mj2").split())
    assert "amended round 1 table 1 by td" in shown
    assert "30,30,-30,-30;" in shown and "-30,30,30,-30;" in shown
    with Store(db_url) as store:
        matches = {m.id: m for m in store.matches("riichi")}
        assert list(matches["mj2:r1:t1:b2"].ranks) == [2, 0, 0, 2]
        assert list(matches["mj2:r1:t1:b2"].scores or []) == [-30.0, 30.0, 30.0, -30.0]
        league_is_a_fresh_finish(store, "mj2", "riichi", 16)


def test_a_mahjong_event_of_bots(db_url: str, tmp_path: Path) -> None:
    """Five bot entrants (level bots and an mjai program) play an east-only event; each
    board's stored scores are the WRC scores of the points the game itself gives when the
    same walls are played again by the same bots with the same generator."""
    import sys

    from mindsport.games import get_game
    from mindsport.games.many import Table, play_many
    from mindsport.mahjong import Walls

    def ok(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db_url])
        assert out.exit_code == 0, out.output
        return out.output

    example = Path(__file__).resolve().parents[2] / "examples" / "mahjong_mjai_bot.py"
    bots = {
        "ann": "level:100",
        "bob": "level:60",
        "cat": "level:20",
        "dan": f'cmd:"{sys.executable} {example}"',
        "eve": "level:0",
    }
    ok("create", "mjb", "-l", "bots", "--create-league", "--game", "mahjong-east", "--rounds", "2")
    (tmp_path / "bots.txt").write_text("".join(f"{n},{b}\n" for n, b in bots.items()))
    ok("register", "mjb", "--file", str(tmp_path / "bots.txt"))
    played = []
    for rnd in (1, 2):
        ok("pair", "mjb")
        out = runner.invoke(app, ["play", "mjb", "--db", db_url])
        assert out.exit_code == 0 and "1 bot tables played" in out.output, out.output
        assert "forfeit" not in out.output
        with Store(db_url) as store:
            ev = EventStore(store).get("mjb")
        r = ev.rounds[-1]
        (t,) = r.tables
        rows = [list(x) for x in ev.results[(rnd, 1)].scores]
        game = get_game("mahjong-east")
        again = play_many(
            game,
            [
                Table(
                    Walls(int(b.hand)),
                    tuple(bots[s.player] for s in b.seats),
                    (17, rnd, 1, b.number),
                )
                for b in t.boards()
            ],
            ev.spec.seed,
            records=True,
        )
        for row, record in zip(rows, again, strict=True):
            # riichienv starts at 25,000: the same points won and lost on the WRC's 30,000
            assert row == list(WRC.scores([p + 5_000 for p in record.points]))
            # deposits left on the table: lost to the scores' sum
            assert sum(row) == pytest.approx(-record.riichi_sticks, abs=1e-9)
        played.append(PlayedRound([PlayedTable(t.players, rows)], list(r.byes)))
    rows = [json.loads(line) for line in ok("standings", "mjb", "--json").splitlines()]
    got = {r["player"]: (r["place"], r["rank_points"], r["score"], r["opponents"]) for r in rows}
    assert got == brute_standings(list(bots), played)
    assert "8 new match" in ok("finish", "mjb")


def test_a_mahjong_event_over_http(db_url: str) -> None:
    store = Store(db_url)
    store.create_league("riichi")
    admin = {"X-API-Key": store.create_key(admin=True)}
    with TestClient(create_app(store=store)) as client:
        body = {"name": "mh", "league": "riichi", "rounds": 1, "game": "mahjong"}
        r = client.post("/api/events", json=body, headers=admin)
        assert r.status_code == 201 and r.json()["settings"]["rule"] == "wrc", r.text
        players = {"players": [{"name": n} for n in "abcd"]}
        assert client.post("/api/events/mh/players", json=players, headers=admin).status_code == 201
        r = client.post("/api/events/mh/rounds", json={"tables": [list("abcd")]}, headers=admin)
        assert r.status_code == 201, r.text
        url = "/api/events/mh/rounds/1/tables/1/result"
        points = [list(p) for p in list(HAND)[:4]]
        wrong = [*points[:3], [30_000, 30_000, 30_000, 31_000]]
        r = client.put(url, json={"scores": wrong}, headers=admin)
        assert r.status_code == 400 and r.json()["detail"] == (
            "round 1 table 1 board 4: final points [30000, 30000, 30000, 31000] sum to 121000: "
            "they sum to 120000 (4 x 30000) less the riichi deposits of 1000 left on the table"
        )
        r = client.put(url, json={"scores": points}, headers=admin)
        assert r.status_code == 201, r.text
        st = {
            s["player"]: s["score"]
            for s in client.get("/api/events/mh/standings").json()["standings"]
        }
        want = dict.fromkeys("abcd", 0.0)
        for b, p in enumerate(list(HAND)[:4]):
            for s in range(4):
                want[holder(list("abcd"), b, s)] += HAND[p][s]
        assert st == pytest.approx(want)
        assert client.post("/api/events/mh/finish", headers=admin).json()["added"] == 4
    store.close()


@pytest.mark.parametrize("game", ["junqi", "mahjong-east"])
def test_simulate_every_game(game: str) -> None:
    size = table_game(game).size
    field = graded_field(2 * size + 1, game)
    assert field[0][1] == min(s for _, s in field) and field[-1][1] == max(s for _, s in field)
    spec = EventSpec("sim", "l", format=EventFormat.DUPLICATE, rounds=2, seed=4, game=game)
    done = simulate_event(spec, [b for b, _ in field])
    played = [
        PlayedRound(
            [
                PlayedTable(t.players, [list(x) for x in done.results[(r.number, t.number)].scores])
                for t in r.tables
            ],
            list(r.byes),
        )
        for r in done.rounds
    ]
    names = [f"bot{i:03d}" for i in range(len(field))]
    want = brute_standings(names, played)
    assert {
        s.player: (s.place, s.rank_points, s.score, s.opponents) for s in done.standings
    } == want
    place = {s.player: s.place for s in done.standings}
    assert -1 <= kendall_tau([s for _, s in field], [place[n] for n in names]) <= 1
    out = runner.invoke(
        app,
        [
            "simulate",
            "--game",
            game,
            "--players",
            str(2 * size),
            "--rounds",
            "1",
            "--events",
            "1",
            "--quiet",
        ],
    )
    assert out.exit_code == 0, out.output
    assert "duplicate: Kendall tau" in out.output and "random: Kendall tau" in out.output
    assert "equal-strength" not in out.output
    out = runner.invoke(app, ["simulate", "--game", game, "--format", "equal-strength", "--quiet"])
    assert out.exit_code != 0 and "equal-strength is for Dou Dizhu events" in out.output


def test_the_documented_mahjong_workflow_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The block of docs/events.md under "Riichi mahjong", line by line as it stands (SQLite);
    its table's scores are the hand-computed ones of :data:`HAND`."""
    import shlex

    from mindsport.cli import app as root_app

    text = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    section = text[text.index("### Riichi mahjong") :]
    block = section.split("```")[1]
    monkeypatch.chdir(tmp_path)
    ran = 0
    for line in block.strip().splitlines():
        args = shlex.split(line, comments=True)
        if args[0] == "export":
            key, value = args[1].split("=", 1)
            monkeypatch.setenv(key, value)
        elif args[0] == "printf":
            assert args[2] == ">"
            Path(args[3]).write_text(args[1].encode().decode("unicode_escape"))
        else:
            assert args[0] == "mindsport", line
            out = runner.invoke(root_app, args[1:])
            assert out.exit_code == 0, f"{line}\n{out.output}"
            ran += 1
    assert ran == 13
    with Store("sqlite:///riichi.db") as store:
        ev = EventStore(store).get("table4")
        assert [tuple(r) for r in ev.results[(1, 1)].scores] == [HAND[p] for p in list(HAND)[:4]]
        assert len(store.matches("riichi")) == 4
        bots = EventStore(store).get("bots4")
        assert len(bots.rounds) == 1 and (1, 1) in bots.results
