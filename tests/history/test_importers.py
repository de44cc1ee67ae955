"""Importers on tiny fixture files written in the published formats."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from mindsport.errors import MindsportError
from mindsport.history import MatchFileError, read_atp, read_halo, read_matches, read_ti4
from mindsport.history.importers import atp_sets, detect_source, import_matches

ATP_HEADER = (
    "tourney_id,tourney_name,surface,draw_size,tourney_level,tourney_date,match_num,winner_id,"
    "winner_seed,winner_entry,winner_name,winner_hand,winner_ht,winner_ioc,winner_age,loser_id,"
    "loser_seed,loser_entry,loser_name,loser_hand,loser_ht,loser_ioc,loser_age,score,best_of,"
    "round,minutes,w_ace,w_df,w_svpt,w_1stIn,w_1stWon,w_2ndWon,w_SvGms,w_bpSaved,w_bpFaced,"
    "l_ace,l_df,l_svpt,l_1stIn,l_1stWon,l_2ndWon,l_SvGms,l_bpSaved,l_bpFaced,winner_rank,"
    "winner_rank_points,loser_rank,loser_rank_points"
)


def atp_row(tid: str, date: str, num: int, w: str, lo: str, score: str = "6-4 6-4") -> str:
    cells = [
        tid,
        "Somewhere",
        "Hard",
        "32",
        "A",
        date,
        str(num),
        w,
        "",
        "",
        f"P{w}",
        "R",
        "",
        "AUS",
        "",
        lo,
        "",
        "",
        f"P{lo}",
        "R",
        "",
        "USA",
        "",
        score,
        "3",
        "R32",
    ]
    cells += [""] * (49 - len(cells))
    return ",".join(cells)


def test_atp_order_and_ids(tmp_path: Path) -> None:
    (tmp_path / "atp_matches_2000.csv").write_text(
        "\n".join(
            [
                ATP_HEADER,
                atp_row("2000-1", "20000110", 2, "11", "12"),
                atp_row("2000-1", "20000110", 1, "13", "14"),
                atp_row("2000-2", "20000103", 5, "15", "16"),
                atp_row("2000-2", "20000103", 6, "199999", "16"),  # the "Unknown" placeholder
            ]
        )
        + "\n"
    )
    (tmp_path / "atp_matches_1999.csv").write_text(
        "\n".join(
            [
                ATP_HEADER,
                atp_row("1999-9", "19991227", 300, "11", "15"),
            ]
        )
        + "\n"
    )
    # the players table names 11 and 15; 13 and 14 share a name; the rest keep the row names
    (tmp_path / "atp_players.csv").write_text(
        "player_id,name_first,name_last\n11,Ann,Lee\n15,,Solo\n13,Bo,Ng\n14,Bo,Ng\n"
    )
    ms = read_atp(tmp_path)
    assert [m.id for m in ms] == ["1999-9-300", "2000-2-5", "2000-1-1", "2000-1-2"]
    assert ms[0].teams == (("Ann Lee",), ("Solo",)) and ms[0].ranks == (0, 1)
    assert ms[1].teams == (("Solo",), ("P16",))
    assert ms[2].teams == (("Bo Ng (13)",), ("Bo Ng (14)",))
    assert ms[1].time == datetime(2000, 1, 3)
    ids = read_atp(tmp_path, named=False)
    assert ids[0].teams == (("11",), ("15",))
    assert len(read_atp(tmp_path, skip_unknown=False)) == 5
    assert len(read_atp([tmp_path / "atp_matches_2000.csv"])) == 3
    assert detect_source(tmp_path) == "atp"
    assert read_matches(tmp_path) == ms
    report = import_matches(tmp_path)
    assert report.kind == "atp" and report.matches == ms
    assert report.n_dropped == 1  # the one match of the placeholder player 199999
    (drop,) = report.dropped
    assert "199999" in drop.reason and drop.first_at == "atp_matches_2000.csv, line 5"


@pytest.mark.parametrize(
    ("score", "sets"),
    [
        ("6-4 6-4", (2, 0)),
        ("6-4 3-6 7-6(5)", (2, 1)),  # the deciding set in a tiebreak
        ("7-6(5) 6-7(3) 7-6(10)", (2, 1)),  # every set in a tiebreak, 10 points in the last
        ("3-6 6-4 4-6 7-6(4) 6-2", (3, 2)),  # a five-setter, won from behind
        ("6-1 6-2 6-3", (3, 0)),
        ("8-6 6-8 11-9 4-6 17-15", (3, 2)),  # before tiebreaks: long sets
        ("6-7(15) 7-6(2) [10-7]", (2, 1)),  # a match tiebreak instead of a third set
        ("6-4 5-7 [13-11]", (2, 1)),
        ("6-3 2-1 RET", None),  # retirement
        ("1-0 RET", None),
        ("W/O", None),  # walkover
        ("Walkover", None),
        ("DEF", None),  # default
        ("6-0 4-4 Def.", None),
        ("2-6 6-3 0-3 Default", None),
        ("6-4 3-1 ABD", None),  # abandoned
        ("6-3 1-2 Played and unfinished", None),
        ("UNK", None),
        ("3-6 ?-? ?-?", None),
        ("7-5 6-2 6-1?", None),  # a doubtful last set
        ("6-36-3", None),  # a missing blank: unreadable
        ("6-6", None),  # a level set was not finished
        ("", None),
        ("7-6(5) 5-7 [3-10]", None),  # the winner took fewer sets: contradicts the result
        ("8-6", (1, 0)),  # a one-set (pro set) match
    ],
)
def test_atp_sets(score: str, sets: tuple[int, int] | None) -> None:
    assert atp_sets(score) == sets


def test_atp_scores_kept(tmp_path: Path) -> None:
    (tmp_path / "atp_matches_2019.csv").write_text(
        "\n".join(
            [
                ATP_HEADER,
                atp_row("2019-1", "20190107", 1, "1", "2", "3-6 6-4 4-6 7-6(4) 6-2"),
                atp_row("2019-1", "20190107", 2, "3", "4", "6-3 2-1 RET"),
                atp_row("2019-1", "20190107", 3, "5", "6", "W/O"),
                atp_row("2019-1", "20190107", 4, "7", "8", "6-7(3) 7-5 [10-8]"),
                atp_row("2019-1", "20190107", 5, "9", "10", "7-6(5) 5-7 [3-10]"),
            ]
        )
        + "\n"
    )
    ms = read_atp(tmp_path, named=False)
    assert [m.scores for m in ms] == [(3.0, 2.0), None, None, (2.0, 1.0), None]
    # the winner (rank 0, listed first) has the higher score wherever there is one
    for m in ms:
        assert m.ranks == (0, 1)
        assert m.scores is None or m.scores[0] > m.scores[1]
    assert [m.teams[0][0] for m in ms] == ["1", "3", "5", "7", "9"]  # retirements stay in


def test_atp_bad_date(tmp_path: Path) -> None:
    f = tmp_path / "atp_matches_2001.csv"
    f.write_text(ATP_HEADER + "\n" + atp_row("2001-1", "2001-01-01", 1, "1", "2") + "\n")
    with pytest.raises(MatchFileError, match=r"line 2, field 'tourney_date'"):
        read_atp(f)


def test_halo(tmp_path: Path) -> None:
    f = tmp_path / "HeadToHead.csv"
    f.write_text(
        "06 August 2004 18:19:41,281900,2,20,p3,0,3\n"
        "06 August 2004 18:19:41,281900,2,20,p4,1,6\n"
        "06 August 2004 18:13:50,281884,2,50,p1,1,4\n"
        "06 August 2004 18:13:50,281884,2,50,p2,0,8\n"
        "07 August 2004 09:00:00,290000,1,10,p1,0,5\n"
        "07 August 2004 09:00:00,290000,1,10,p5,0,3\n"
        "07 August 2004 09:00:00,290000,1,10,p2,1,7\n"
        "07 August 2004 09:00:01,290001,1,10,p1,0,5\n"
        "07 August 2004 09:00:01,290001,1,10,p3,1,5\n"
        "07 August 2004 09:00:02,290002,1,10,p4,1,5\n"
        "07 August 2004 09:00:02,290002,1,10,p5,1,2\n"
    )
    ms = read_halo(tmp_path)
    report = import_matches(f)  # the last game has a single team: dropped, and said so
    assert report.matches == ms
    assert [(d.count, d.first_at) for d in report.dropped] == [(1, "line 10")]
    assert [m.id for m in ms] == ["281884", "281900", "290000", "290001"]  # by time
    first = ms[0]
    assert first.teams == (("p1",), ("p2",)) and first.ranks == (1, 0)
    assert first.scores == (4.0, 8.0)
    team_game = ms[2]
    assert team_game.teams == (("p1", "p5"), ("p2",)) and team_game.ranks == (0, 1)
    assert ms[3].ranks == (0, 0)  # equal scores: a draw
    assert detect_source(f) == "halo" and read_matches(f) == ms
    bad = tmp_path / "bad.csv"
    bad.write_text("06 August 2004 18:19:41,281900,2,20,p3,0,lots\n")
    with pytest.raises(MatchFileError, match=r"line 1, field 'score'"):
        read_halo(bad)


def test_ti4(tmp_path: Path) -> None:
    header = TI4_HEADER
    cells = header.split(",")
    n = len(cells)

    def row(ts: str, players: list[tuple[str, str, str]]) -> str:
        r = [""] * n
        r[cells.index("Timestamp")] = ts
        r[cells.index("Player Count")] = str(len(players))
        names = ["Winning Race", "2nd Race", "3rd Race", "4th Race", "5th Race", "6th Race"]
        exps = [
            "Winner Exp Level",
            "2nd Exp Level",
            "3rd Exp Level",
            "4th Exp Level",
            "5th Exp Level",
            "6th Exp Level",
        ]
        vps = [
            "Winner VP",
            "2nd Race VP",
            "3rd Race VP",
            "4th Race VP",
            "5th Race VP",
            "6th Race VP",
        ]
        for k, (race, exp, vp) in enumerate(players):
            r[cells.index(names[k])] = race
            r[cells.index(exps[k])] = exp
            r[cells.index(vps[k])] = vp
        return ",".join(r)

    f = tmp_path / "ti4.csv"
    f.write_text(
        "\n".join(
            [
                header,
                row(
                    "12/3/2017 8:19:36",
                    [("Arborec", "", "10"), ("Winnu", "", "8"), ("Sol", "", "8")],
                ),
                row(
                    "11/26/2017 8:18:26",
                    [
                        ("Sol", "Beginner", "10"),
                        ("Hacan", "Expert", "9"),
                        ("Arborec", "", "7"),
                        ("Yin", "", "6"),
                    ],
                ),
                row("12/4/2017 8:00:00", [("Sol", "", "10"), ("Sol", "", "9"), ("Yin", "", "4")]),
            ]
        )
        + "\n"
    )
    ms = read_ti4(f)
    assert len(ms) == 2  # the row naming one faction twice is dropped, and said so
    report = import_matches(f)
    assert [(d.count, d.first_at) for d in report.dropped] == [(1, "line 4")]
    assert "twice" in report.summary()
    a, b = ms
    assert a.time == datetime(2017, 11, 26, 8, 18, 26)
    assert a.teams == (("Sol (Beginner)",), ("Hacan (Expert)",), ("Arborec",), ("Yin",))
    assert a.ranks == (0, 1, 2, 3) and a.scores == (10.0, 9.0, 7.0, 6.0)
    assert b.ranks == (0, 1, 2)  # finishing order, even with equal points
    assert detect_source(tmp_path) == "ti4" and read_matches(f) == ms


def test_detect_errors(tmp_path: Path) -> None:
    with pytest.raises(MindsportError, match="no known match data"):
        detect_source(tmp_path)
    with pytest.raises(MindsportError, match="no such"):
        read_matches(tmp_path / "nothing.csv")


TI4_HEADER = (
    "Plyrs/Score,,,,,,Arborec,Barony,Saar,Embers,Hacan,Sol,Creuss,L1Z1X,Mentak,Naalu,Nekro,Sard"
    "akk,Jol-Nar,Winnu,Xxcha,Yin,Yssaril,Timestamp,Player Count,Playtime (Hours),Winning Race,W"
    "inner Exp Level,Winner VP,2nd Race,2nd Exp Level,2nd Race VP,3rd Race,3rd Exp Level,3rd Ra"
    "ce VP,4th Race,4th Exp Level,4th Race VP,5th Race,5th Exp Level,5th Race VP,6th Race,6th E"
    "xp Level,6th Race VP"
)


def test_read_matches_reads_every_source_and_takes_a_named_one(tmp_path: Path) -> None:
    """One reader for every source: a data set named by ``format=`` is read by its importer even
    under a name that would not be detected; a match file named by its format likewise; an
    unknown name is refused, naming it."""
    from mindsport.history import Match, write_matches

    halo = tmp_path / "games.txt"  # not a name detection knows
    halo.write_text(
        "06 August 2004 18:13:50,281884,2,50,p1,1,4\n06 August 2004 18:13:50,281884,2,50,p2,0,8\n"
    )
    assert read_matches(halo, format="halo") == [
        Match("281884", datetime(2004, 8, 6, 18, 13, 50), [["p1"], ["p2"]], scores=[4, 8])
    ]
    ms = [Match("g1", 1, [["a"], ["b"]], [0, 1]), Match("g2", 2, [["b"], ["c"]], [1, 0])]
    written = tmp_path / "games.csv"
    write_matches(written, ms)
    renamed = tmp_path / "games.data"
    renamed.write_bytes(written.read_bytes())
    assert read_matches(written) == read_matches(renamed, format="csv") == ms
    with pytest.raises(MindsportError, match="unknown source 'cricket'"):
        read_matches(written, format="cricket")
