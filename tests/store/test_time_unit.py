"""What a league's numeric times mean (``time_unit``): stored, shown by the API and the command
line, changed without re-rating, given to databases of earlier versions; and the command line
showing times by it (dates for POSIX seconds, ``round N``; never ``1.79576e+09``)."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from mindsport.cli.ratings import app, rating_figure
from mindsport.match import Match
from mindsport.store import Store, StoreError
from mindsport.store.values import TIME_UNITS, time_text

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
runner = CliRunner()
T0 = 1795760000  # 2026-11-27 06:13:20 UTC


def games(n: int, step: float = 86400.0, t0: float = T0) -> list[Match]:
    return [Match(f"g{i}", t0 + i * step, [["ann"], ["bob"]], [i % 2, 1 - i % 2]) for i in range(n)]


def test_time_text_by_hand() -> None:
    assert time_text(T0, "seconds") == "2026-11-27 06:13:20"
    assert time_text(T0 + 0.5, "seconds") == "2026-11-27 06:13:20.500000"
    assert time_text(T0, "number") == "1795760000"
    assert time_text(2.5, "number") == "2.5"
    assert time_text(3.0, "days") == "day 3" and time_text(7.0, "rounds") == "round 7"
    assert datetime.fromtimestamp(T0, UTC).isoformat().startswith("2026-11-27T06:13:20")


def test_the_unit_is_kept_and_changed_without_re_rating(db_url: str) -> None:
    with Store(db_url) as st:
        assert st.create_league("plain").time_unit == "number"
        lg = st.create_league("dated", time_unit="seconds")
        assert lg.time_unit == "seconds" and st.get_league("dated").time_unit == "seconds"
        st.add_matches("dated", games(6))
        before = st.states("dated")
        assert st.update_league("dated", time_unit="days").time_unit == "days"
        assert st.states("dated") == before and st.get_league("dated").time_unit == "days"
        # with a re-rating: both change, the unit kept as asked
        lg = st.update_league("dated", params={"beta": 5.0}, time_unit="rounds")
        assert lg.time_unit == "rounds" and lg.params == {"beta": 5.0}
        assert st.update_league("dated", params={"beta": 4.0}).time_unit == "rounds"
        with pytest.raises(StoreError, match="number, seconds, days, rounds"):
            st.create_league("bad", time_unit="weeks")
        with pytest.raises(StoreError, match="time unit"):
            st.update_league("dated", params={"beta": 6.0}, time_unit="hours")
        assert st.get_league("dated").params == {"beta": 4.0}  # nothing changed
        assert [lg.time_unit for lg in st.list_leagues()] == ["rounds", "number"]


def test_an_earlier_database_gives_its_leagues_number(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("old")
    engine = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE ms_leagues DROP COLUMN time_unit"))
    engine.dispose()
    with Store(db_url, create=False) as st:
        assert st.get_league("old").time_unit == "number"
        st.update_league("old", time_unit="seconds")
    with Store(db_url, create=False) as st:
        assert st.get_league("old").time_unit == "seconds"


def test_over_http(db_url: str) -> None:
    from mindsport.service import create_app
    from mindsport.service.schemas import LeagueOut

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    assert LeagueOut.model_fields["time_unit"].annotation.__args__ == TIME_UNITS  # type: ignore[union-attr]
    store = Store(db_url)
    h = {"X-API-Key": store.create_key(admin=True)}
    with TestClient(create_app(store=store)) as client:
        r = client.post("/api/leagues", json={"name": "d", "time_unit": "seconds"}, headers=h)
        assert r.status_code == 201 and r.json()["time_unit"] == "seconds", r.text
        r = client.post("/api/leagues", json={"name": "n"}, headers=h)
        assert r.json()["time_unit"] == "number"
        r = client.post("/api/leagues", json={"name": "w", "time_unit": "weeks"}, headers=h)
        assert r.status_code == 422 and "time_unit" in r.text
        r = client.patch("/api/leagues/d", json={"time_unit": "rounds"}, headers=h)
        assert r.status_code == 200 and r.json()["time_unit"] == "rounds"
        listed = {
            lg["name"]: lg["time_unit"] for lg in client.get("/api/leagues").json()["leagues"]
        }
        assert listed == {"d": "rounds", "n": "number"}
    store.close()


def invoke(*args: str) -> str:
    r = runner.invoke(app, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_command_line_shows_times_by_the_unit(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    out = invoke("leagues", "create", "dated", "--time-unit", "seconds", "--db", db)
    assert "times: seconds" in out
    invoke("leagues", "create", "raw", "--db", db)
    invoke("leagues", "create", "rounds", "--time-unit", "rounds", "--db", db)
    with Store(db) as st:
        st.add_matches("dated", games(5))
        st.add_matches("raw", games(5))
        st.add_matches("rounds", games(5, step=1.0, t0=1.0))
    shown = invoke("player", "ann", "--league", "dated", "--db", db)
    assert "2026-11-27 06:13:20" in shown and "2026-12-01 06:13:20" in shown
    assert "e+09" not in shown
    raw = invoke("player", "ann", "--league", "raw", "--db", db)
    assert "1795760000" in raw and "e+09" not in raw
    assert "round 5" in invoke("player", "ann", "--league", "rounds", "--db", db)
    listed = json.loads(invoke("leagues", "list", "--json", "--db", db))["leagues"]
    assert {lg["name"]: lg["time_unit"] for lg in listed} == {
        "dated": "seconds",
        "raw": "number",
        "rounds": "rounds",
    }
    assert "times: rounds" in invoke("leagues", "list", "--db", db)
    out = invoke("leagues", "set", "raw", "--time-unit", "days", "--db", db)
    assert "nothing re-rated" in out and "times: days" in out
    invoke("player", "ann", "--league", "dated", "--plot", str(tmp_path / "a.png"), "--db", db)
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")


def test_the_plot_axis_by_the_unit() -> None:
    from mindsport.rating.registry import MODELS
    from mindsport.store.values import HistoryPoint

    pts = [HistoryPoint(f"g{i}", i, T0 + i * 86400.0, 25.0 + i, 8.0) for i in range(5)]
    d = MODELS["trueskill"].display
    fig = rating_figure("ann", pts, d, False, "seconds")
    ax = fig.axes[0]
    fig.canvas.draw()
    assert ax.get_xlabel() == "date (UTC)"
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all("2026" in x or "11-" in x or "12-" in x for x in labels), labels
    fig = rating_figure("ann", pts, d, False, "number")
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert ax.get_xlabel() == "time" and not any("e" in x for x in labels)
    assert ax.xaxis.get_offset_text().get_text() == ""
    rounds = [HistoryPoint(f"g{i}", i, float(i), 25.0, 8.0) for i in range(1, 6)]
    assert rating_figure("ann", rounds, d, False, "rounds").axes[0].get_xlabel() == "round"
