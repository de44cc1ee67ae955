"""The event page and the printable deal sheets: server-rendered HTML, and in headless Chromium
(marker ``browser``): standings in the library's order, results entered and missing, each
player's path, the search box, one sheet page per table."""

from __future__ import annotations

import importlib.util
import random
import warnings
from pathlib import Path
from typing import Any

import pytest
from schema_conformance import undocumented

from mindsport.event.model import EventSpec
from mindsport.event.storage import EventState, EventStore
from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def scores(rng: random.Random) -> list[list[float]]:
    out = []
    for _ in range(3):
        lord = rng.choice([-2, -1, 1, 2])
        out.append([lord, -lord / 2, -lord / 2])
    return out


def two_rounds(store: Store) -> EventState:
    """10 players (one named with markup), round 1 complete, round 2 missing table 3."""
    store.create_league("open")
    events = EventStore(store)
    events.create(EventSpec("night", "open", rounds=3, seed=1))
    events.register("night", [(f"p{i:02d}", None) for i in range(9)] + [("<b>x</b>", None)])
    rng = random.Random(2)
    for rnd in (1, 2):
        played = events.pair("night")
        for t in played.tables:
            if (rnd, t.number) != (2, 3):
                events.enter_result("night", rnd, t.number, scores(rng))
    return events.get("night")


def test_server_rendered_event_page(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "page.db"))
    state = two_rounds(store)
    with TestClient(create_app(store=store)) as client:
        html = client.get("/events/night").text
        order = [s.player for s in state.standings()]
        standings = html.split("<table id=standings>")[1].split("</table>")[0]
        rows = [r.split('"')[0] for r in standings.split('<tr data-player="')[1:]]
        assert rows == [o.replace("<", "&lt;").replace(">", "&gt;") for o in order]
        assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
        assert html.count('class="missing"') == 1 and "Round 2: 2 of 3 results in" in html
        assert "1 of 3 rounds complete, 2 paired" in html
        assert "https://" not in html and "http://" not in html
        sheet = client.get("/events/night/rounds/2/sheet").text
        assert sheet.count('<section class="sheet"') == 3
        assert client.get("/events/nope").status_code == 404
        # every answer of the pages, refusals included, as the OpenAPI schema documents it
        paths = ["/events/night", "/events/nope", "/events/night/rounds/2/sheet"]
        paths += ["/events/night/rounds/9/sheet", "/events/night/rounds/0/sheet", "/events/a%20b"]
        paths += ["/", "/?league=open", "/?offset=-1", "/?league=bad%20name"]
        answers = []
        for path in paths:
            r = client.get(path)
            media = r.headers["content-type"].split(";")[0]
            answers.append(("GET", r.request.url.path, r.status_code, media))
        assert {a[2] for a in answers} == {200, 404, 422}
        assert undocumented(client.app.openapi(), answers) == set()  # type: ignore[attr-defined]
    store.close()


def _page_helpers() -> Any:
    """The leaderboard page test's Chromium helpers (where to find it, how to start it)."""
    spec = importlib.util.spec_from_file_location(
        "leaderboard_page_test", Path(__file__).with_name("test_page.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.browser
def test_event_page_in_chromium(tmp_path: Path, live_server: Any) -> None:
    helpers = _page_helpers()
    sync_playwright = helpers._browser()
    base, store = live_server(f"sqlite:///{tmp_path / 'browser.db'}")
    state = two_rounds(store)
    order = [s.player for s in state.standings()]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=helpers.CHROMIUM, args=helpers.CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            refused = helpers.watch_policy(page)
            page.goto(base + "/events/night")
            page.wait_for_selector("body[data-ready='1']")
            names = page.eval_on_selector_all(
                "#standings tbody tr", "rs => rs.map(r => r.dataset.player)"
            )
            assert names == order
            assert page.locator("tr.missing").count() == 1
            assert page.locator("tr.entered").count() == 5
            missing = page.locator("tr.missing")
            assert missing.get_attribute("data-round") == "2"
            assert missing.get_attribute("data-table") == "3"
            # each player's path: a table or a bye in both rounds, rank points for round 1
            path = page.text_content("#paths tr[data-player='p00']") or ""
            assert path.count("T") + path.count("bye") >= 2 and "RP" in path
            # the search box filters standings and paths
            page.fill("#find", "p0")
            helpers.wait_until(
                page, "document.querySelectorAll('#standings tbody tr:not([hidden])').length === 9"
            )
            assert page.locator("#paths tbody tr:not([hidden])").count() == 9
            assert helpers.policy_violations(page, refused) == []
            page.goto(base + "/events/night/rounds/1/sheet")
            assert page.locator("section.sheet").count() == 3
            cards = page.locator("section.sheet[data-table='1'] .cards")
            assert cards.count() == 9  # 3 boards x 3 seats
            # the sheet's style applied: its table cells have their border
            border = page.eval_on_selector("td", "c => getComputedStyle(c).borderTopStyle")
            assert border == "solid"
            assert helpers.policy_violations(page, refused) == []
        finally:
            browser.close()
