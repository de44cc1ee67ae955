"""The evaluate command on a small match file."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mindsport.cli import app as root
from mindsport.history import Match, write_matches


def matches() -> list[Match]:
    out = []
    players = ["a", "b", "c", "d"]
    for t in range(40):
        i, j = t % 4, (t * 3 + 1) % 4
        if i == j:
            j = (j + 1) % 4
        out.append(Match(str(t), t, [[players[i]], [players[j]]], [0, 1] if i < j else [1, 0]))
    out.append(Match("team", 41, [["a", "b"], ["c", "d"]], [0, 1]))
    return out


def test_evaluate_writes_table_plot_and_predictions(tmp_path: Path) -> None:
    f = tmp_path / "m.jsonl"
    write_matches(f, matches())
    out = tmp_path / "out"
    res = CliRunner().invoke(
        root, ["evaluate", str(f), "--models", "elo,fide,glicko2", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "elo" in res.output and "log-loss" in res.output
    assert "skipped glicko2" in res.output  # a team game: Glicko-2 says it can't
    png = (out / "calibration.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    rows = (out / "predictions.csv").read_text().splitlines()
    assert rows[0].startswith("model,match_index,match_id")
    assert len(rows) == 1 + 2 * 41
    assert (out / "metrics.csv").exists()


def test_evaluate_fit_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "m.csv"
    write_matches(f, matches())
    res = CliRunner().invoke(root, ["evaluate", str(f), "-m", "elo", "--fit"])
    assert res.exit_code == 0, res.output
    assert "k=" in res.output
    res = CliRunner().invoke(root, ["evaluate", str(f), "-m", "nope"])
    assert res.exit_code == 2 and "unknown model" in res.output
    res = CliRunner().invoke(root, ["evaluate", str(tmp_path / "missing.csv")])
    assert res.exit_code == 2 and "no such" in res.output


def test_import_writes_a_match_file_and_reports_drops(tmp_path: Path) -> None:
    from mindsport.history import read_matches

    src = tmp_path / "HeadToHead.csv"  # the Halo 2 format: one row per player
    src.write_text(
        "06 August 2004 18:19:41,281900,2,20,p3,0,3\n"
        "06 August 2004 18:19:41,281900,2,20,p4,1,6\n"
        "06 August 2004 18:25:00,281901,2,20,p3,0,2\n"
        "06 August 2004 18:25:00,281901,2,20,p4,0,6\n"  # one team only: dropped
    )
    out = tmp_path / "halo.csv"
    res = CliRunner().invoke(root, ["import", str(src), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "1 matches; dropped 1: every player in one team" in res.output
    (m,) = read_matches(out)
    assert m.teams == (("p3",), ("p4",)) and m.ranks == (1, 0) and m.scores == (3.0, 6.0)
    res = CliRunner().invoke(root, ["import", str(src), "--out", str(tmp_path / "no" / "x.csv")])
    assert res.exit_code == 2 and "does not exist" in res.output


def test_rate_reads_the_public_data_sets_and_says_what_it_dropped(tmp_path: Path) -> None:
    """``rate`` reads the same sources as ``evaluate`` and ``import`` (tiny files in the
    published ATP, Halo 2 and TI4 formats), names ATP players, and reports every dropped row."""
    import importlib.util

    from mindsport.store import Store

    # the published formats' headers and rows, as the importer tests write them
    spec = importlib.util.spec_from_file_location(
        "importer_fixtures", Path(__file__).with_name("test_importers.py")
    )
    assert spec is not None and spec.loader is not None
    fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixtures)
    ATP_HEADER, TI4_HEADER, atp_row = fixtures.ATP_HEADER, fixtures.TI4_HEADER, fixtures.atp_row

    atp = tmp_path / "tennis_atp"
    atp.mkdir()
    (atp / "atp_matches_2001.csv").write_text(
        "\n".join(
            [
                ATP_HEADER,
                atp_row("2001-1", "20010101", 1, "1", "2"),
                atp_row("2001-1", "20010101", 2, "2", "3"),
                atp_row("2001-1", "20010101", 3, "1", "199999"),  # the placeholder: dropped
            ]
        )
        + "\n"
    )
    (atp / "atp_players.csv").write_text(
        "player_id,name_first,name_last,hand,dob,ioc,height,wikidata_id\n"
        "1,Ann,Alpha,R,,AUS,,\n2,Bea,Beta,R,,USA,,\n3,Cid,Gamma,L,,FRA,,\n"
    )
    halo = tmp_path / "HeadToHead.csv"
    halo.write_text(
        "06 August 2004 18:19:41,281900,2,20,p3,0,3\n"
        "06 August 2004 18:19:41,281900,2,20,p4,1,6\n"
        "07 August 2004 09:00:02,290002,1,10,p4,1,5\n"  # one team only: dropped
        "07 August 2004 09:00:02,290002,1,10,p5,1,2\n"
    )
    cells = TI4_HEADER.split(",")

    def ti4_row(ts: str, races: list[str]) -> str:
        r = [""] * len(cells)
        r[cells.index("Timestamp")] = ts
        r[cells.index("Player Count")] = str(len(races))
        for k, race in enumerate(races):
            r[cells.index(["Winning Race", "2nd Race", "3rd Race"][k])] = race
        return ",".join(r)

    ti4 = tmp_path / "ti4.csv"
    ti4.write_text(
        "\n".join(
            [
                TI4_HEADER,
                ti4_row("12/3/2017 8:19:36", ["Arborec", "Winnu", "Sol"]),
                ti4_row("12/4/2017 8:00:00", ["Sol", "Sol", "Yin"]),  # a faction twice: dropped
            ]
        )
        + "\n"
    )
    db = f"sqlite:///{tmp_path / 'public.db'}"
    expected = {
        "atp": (atp, 2, {"Ann Alpha", "Bea Beta", "Cid Gamma"}, "199999"),
        "halo": (halo, 1, {"p3", "p4"}, "one team"),
        "ti4": (ti4, 1, {"Arborec", "Winnu", "Sol"}, "twice"),
    }
    for league, (source, n, players, why) in expected.items():
        res = CliRunner().invoke(root, ["rate", str(source), "--league", league, "--db", db])
        assert res.exit_code == 0, res.output
        assert f"{n} new match" in res.output
        assert "dropped 1" in res.output and why in res.output
        with Store(db) as store:
            page = store.leaderboard(league, limit=10)
        assert {e.player for e in page.entries} == players
