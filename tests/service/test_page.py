"""The leaderboard page: server-rendered HTML, and in headless Chromium (marker ``browser``)."""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindsport.history import Match
from mindsport.service import create_app
from mindsport.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CHROMIUM = os.environ.get("MINDSPORT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def league_matches(players: int = 40, n: int = 150, seed: int = 1) -> list[Match]:
    rng = random.Random(seed)
    pool = [f"player{i:02d}" for i in range(players)]
    out = []
    for i in range(n):
        a, b = rng.sample(pool, 2)
        out.append(Match(f"x{i}", i, [[a], [b]], [0, 1] if rng.random() < 0.6 else [1, 0]))
    return out


def test_server_rendered_page(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "page.db"))
    store.create_league("main")
    store.create_league("other")
    ms = [*league_matches(), Match("evil", 999, [["<script>x</script>"], ["player01"]], [0, 1])]
    store.add_matches("main", ms)
    with TestClient(create_app(store=store)) as client:
        html = client.get("/").text
        assert 'option value="main" selected' in html
        assert html.count("<tr data-player=") == 25  # first page, server-side
        assert "Page 1 of 2" in html  # 41 players, 25 a page
        html = client.get("/", params={"search": "<script>"}).text
        assert html.count("<tr data-player=") == 1
        assert "<script>x" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
        assert "https://" not in html and "http://" not in html  # no CDN, nothing external
        html = client.get("/", params={"league": "main", "search": "player0"}).text
        assert html.count("<tr data-player=") == 10
        html = client.get("/", params={"league": "main", "offset": 25}).text
        assert html.count("<tr data-player=") == 16 and "Page 2 of 2" in html
        html = client.get("/", params={"player": "player01"}).text
        assert '"player": "player01"' in html  # the chart opens on that player
        html = client.get("/", params={"league": "nope"}).text
        assert "does not exist" in html
        assert "<tr data-player=" not in client.get("/", params={"league": "other"}).text
        assert "Seats against" not in client.get("/", params={"league": "main"}).text
    store.close()


def test_a_cardplay_page_lists_its_role_advantages(tmp_path: Path) -> None:
    from mindsport.rating.registry import build_model
    from mindsport.rating.replay.blocks import PlayerIndex

    store = Store(str(tmp_path / "ddz.db"))
    store.create_league("ddz", "cardplay")
    rng = random.Random(2)
    ms = []
    for i in range(20):
        a, b, c = rng.sample(["ann", "bob", "cy", "dee"], 3)
        ranks = [0, 1] if rng.random() < 0.35 else [1, 0]
        ms.append(
            Match(f"d{i}", i, [[a], [b, c]], ranks, roles=[["landlord"], ["farmer1", "farmer2"]])
        )
    store.add_matches("ddz", ms)
    replayer = build_model("cardplay").replayer()
    replayer.feed(replayer.encode(ms, PlayerIndex(), None), predict=False, keep=False)
    with TestClient(create_app(store=store)) as client:
        html = client.get("/", params={"league": "ddz"}).text
    store.close()
    # issue 38: the seats against the average seat with their intervals, not the model's
    # role means (which depend on the prior's centring) with their marginal deviations
    assert "<h2>Seats against the average seat</h2>" in html
    assert html.count("<li data-side=") == 2  # the landlord, the farmers' side
    edges = replayer.seat_edges()
    assert [e.side for e in edges] == ["farmer1+farmer2", "landlord"]
    for e in edges:
        assert e.vs_average is not None and e.low is not None and e.high is not None
        kind = "side" if e.side == "farmer1+farmer2" else "seat"
        assert (
            f'<li data-side="{e.side}">{e.side} {kind}: {e.vs_average:+.2f} skill points '
            f"against the average {kind} (95%: {e.low:+.2f} to {e.high:+.2f})</li>"
        ) in html


def _browser() -> Any:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip(f"headless Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright Python package is not installed (pip install playwright)")
    return sync_playwright


def wait_until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Wait until ``expression`` is true on ``page``, evaluated from outside the page every
    50 ms (playwright's ``wait_for_function`` evaluates its text inside the page, which the
    page's Content-Security-Policy refuses)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        time.sleep(0.05)


def watch_policy(page: Any) -> list[str]:
    """What ``page`` reports as refused by the Content-Security-Policy (console messages, and
    every ``securitypolicyviolation`` event, read by :func:`policy_violations`)."""
    refused: list[str] = []
    page.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => document.documentElement"
        ".setAttribute('data-csp', (document.documentElement.getAttribute('data-csp') || '') +"
        " e.violatedDirective + ' '))"
    )
    return refused


def policy_violations(page: Any, refused: list[str]) -> list[str]:
    """The violations :func:`watch_policy` saw on ``page`` so far."""
    events = page.evaluate("document.documentElement.getAttribute('data-csp')")
    return [*refused, *([events] if events else [])]


@contextlib.contextmanager
def _chromium_page() -> Iterator[Any]:
    """A page of headless Chromium (skips the test without Chromium or playwright); at the end
    nothing on it may have been refused by the Content-Security-Policy."""
    sync_playwright = _browser()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            refused = watch_policy(page)
            yield page
            assert policy_violations(page, refused) == []
        finally:
            browser.close()


def _inner(img: Any) -> Any:
    """The canvas screenshot without its 1px CSS border."""
    w, h = img.size
    return img.convert("RGB").crop((3, 3, w - 3, h - 3))


@pytest.mark.browser
def test_page_in_chromium(tmp_path: Path, live_server: Any) -> None:
    from PIL import Image

    base, store = live_server(f"sqlite:///{tmp_path / 'browser.db'}")
    store.create_league("main")
    store.add_matches("main", league_matches())
    top = store.leaderboard("main", limit=60)
    with _chromium_page() as page:
        page.goto(base + "/?league=main")
        page.wait_for_selector("body[data-ready='1']")
        rows = page.locator("#rows tr")
        assert rows.count() == 25
        assert rows.first.get_attribute("data-player") == top.entries[0].player
        # paging (live, through the JSON API)
        page.click("#next")
        wait_until(page, "document.querySelector('#pageinfo').textContent === 'Page 2 of 2'")
        assert page.locator("#rows tr").count() == 15
        assert page.locator("#rows tr").first.get_attribute("data-player") == top.entries[25].player
        # search
        page.fill("#search", "PLAYER1")
        wait_until(page, "document.querySelectorAll('#rows tr').length === 10")
        names = page.eval_on_selector_all("#rows tr", "rs => rs.map(r => r.dataset.player)")
        assert sorted(names) == [f"player1{i}" for i in range(10)]
        # blank canvas before a player is chosen
        chart = page.locator("#chart")
        before = _inner(Image.open(io.BytesIO(chart.screenshot())))
        assert len(set(before.getdata())) == 1
        # click a player: the chart draws mu and the mu +- sigma band
        target = names[0]
        page.click(f"#rows tr[data-player='{target}'] td:nth-child(3)")
        page.wait_for_selector(f"#chart[data-player='{target}']")
        assert target in page.text_content("#chart-title")
        img = _inner(Image.open(io.BytesIO(chart.screenshot())))
        colours = img.getcolors(maxcolors=1 << 20)
        assert colours is not None
        background = max(colours)[1]
        drawn = sum(c for c, rgb in colours if rgb != background)
        assert drawn > 0.05 * img.width * img.height  # band, line and axes, not a blank box
        blue = sum(c for c, (r, g, b) in colours if b > 150 and r < 120)
        assert blue > 200  # the mu line in blue
        # the rating after each game, with a band of one deviation
        history = store.player("main", target).history
        assert chart.get_attribute("data-points") == str(len(history))
        assert chart.get_attribute("data-band") == "1"


def _band_pixels(colours: list[tuple[int, tuple[int, int, int]]]) -> int:
    """Pixels of the light blue band (25% blue over white)."""
    return sum(c for c, (r, g, b) in colours if 180 < r < 225 and 195 < g < 235 and b > 240)


@pytest.mark.browser
def test_whole_history_league_draws_the_smoothed_curve_in_chromium(
    tmp_path: Path, live_server: Any
) -> None:
    from PIL import Image

    base, store = live_server(f"sqlite:///{tmp_path / 'smooth.db'}")
    store.create_league("smooth", "trueskill-history", {"drift": 0.3})
    ms = league_matches(players=8, n=120)
    store.add_matches("smooth", ms[60:])
    store.add_matches("smooth", ms[:60])  # late results: the past is revised
    target = store.leaderboard("smooth").entries[0].player
    curve = store.player("smooth", target).curve
    assert len(curve) == sum(target in m.players for m in ms)  # one time step per game here
    with _chromium_page() as page:
        page.goto(base + "/?league=smooth")
        page.wait_for_selector("body[data-ready='1']")
        assert "smoothed" in (page.text_content("#legend") or "")
        assert "± 2 sigma" in (page.text_content("#legend") or "")
        page.click(f"#rows tr[data-player='{target}'] td:nth-child(3)")
        page.wait_for_selector(f"#chart[data-player='{target}']")
        assert "smoothed skill curve" in (page.text_content("#chart-title") or "")
        chart = page.locator("#chart")
        assert chart.get_attribute("data-points") == str(len(curve))
        assert chart.get_attribute("data-band") == "2"
        img = _inner(Image.open(io.BytesIO(chart.screenshot())))
        colours = img.getcolors(maxcolors=1 << 20)
        assert colours is not None
        assert _band_pixels(colours) > 0.03 * img.width * img.height  # the 2-sigma band
        blue = sum(c for c, (r, g, b) in colours if b > 150 and r < 120)
        assert blue > 200  # the smoothed mu line


def test_columns_follow_the_league_model(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "labels.db"))
    store.create_league("g", "glicko2")
    store.create_league("e", "elo")
    store.create_league("t", "trueskill")
    for name in ("g", "e", "t"):
        store.add_matches(name, league_matches(players=6, n=20))
    with TestClient(create_app(store=store)) as client:
        heads = {
            name: client.get("/", params={"league": name})
            .text.split("<thead>")[1]
            .split("</thead>")[0]
            for name in ("g", "e", "t")
        }
    store.close()
    assert ">rating - 2 RD<" in heads["g"] and ">rating<" in heads["g"] and ">RD<" in heads["g"]
    assert ">sigma<" not in heads["g"] and ">mu<" not in heads["g"]
    assert ">rating<" in heads["e"] and 'data-column="sigma"' not in heads["e"]
    assert 'data-column="mu"' not in heads["e"]  # the rating is the sorted value itself
    assert ">mu - 3 sigma<" in heads["t"] and ">sigma<" in heads["t"]


@pytest.mark.browser
def test_page_labels_and_empty_state_in_chromium(tmp_path: Path, live_server: Any) -> None:
    from PIL import Image

    base, store = live_server(f"sqlite:///{tmp_path / 'labels.db'}")
    store.create_league("g", "glicko2")
    store.create_league("e", "elo")
    store.create_league("empty", "elo")
    store.add_matches("g", league_matches(players=6, n=30))
    store.add_matches("e", league_matches(players=6, n=30))
    with _chromium_page() as page:
        page.goto(base + "/?league=g")
        page.wait_for_selector("body[data-ready='1']")
        heads = page.eval_on_selector_all("#board th", "hs => hs.map(h => h.textContent)")
        assert heads == ["#", "Player", "rating - 2 RD", "rating", "RD", "Games"]
        first = page.locator("#rows tr").first.get_attribute("data-player")
        page.click(f"#rows tr[data-player='{first}'] td:nth-child(3)")
        page.wait_for_selector(f"#chart[data-player='{first}']")
        title = page.text_content("#chart-title") or ""
        assert "rating" in title and "RD" in title and "\u03bc" not in title
        # Elo: no deviation column, and cells line up with the headings
        page.goto(base + "/?league=e")
        page.wait_for_selector("body[data-ready='1']")
        heads = page.eval_on_selector_all("#board th", "hs => hs.map(h => h.textContent)")
        assert heads == ["#", "Player", "rating", "Games"]
        cells = page.eval_on_selector_all("#rows tr:first-child td", "ts => ts.length")
        assert cells == len(heads)
        assert "band" not in (page.text_content("#legend") or "")
        # a league without matches: the chart says so
        page.goto(base + "/?league=empty")
        page.wait_for_selector("#chart[data-empty='1']")
        img = _inner(Image.open(io.BytesIO(page.locator("#chart").screenshot())))
        assert len(set(img.getdata())) > 1  # the message is drawn, not a blank box
        assert "No matches yet" in (page.text_content("#chart-title") or "")


@pytest.mark.browser
def test_role_advantages_show_in_chromium(tmp_path: Path, live_server: Any) -> None:
    base, store = live_server(f"sqlite:///{tmp_path / 'roles.db'}")
    store.create_league("ddz", "cardplay")
    roles = [["landlord"], ["farmer1", "farmer2"]]
    store.add_matches(
        "ddz", [Match(f"d{i}", i, [["ann"], ["bob", "cy"]], [i % 2, 1 - i % 2], roles=roles)
                for i in range(6)],
    )  # fmt: skip
    want = {e.side: e for e in store.leaderboard("ddz").seats}
    with _chromium_page() as page:
        page.goto(base + "/?league=ddz")
        page.wait_for_selector("body[data-ready='1']")
        items = page.locator("#roles li")
        assert items.count() == 2 and page.locator("#roles").is_visible()
        shown = {
            items.nth(k).get_attribute("data-side"): items.nth(k).inner_text() for k in range(2)
        }
        assert set(shown) == set(want) == {"landlord", "farmer1+farmer2"}
        for side, text in shown.items():
            e = want[side]
            assert e.vs_average is not None
            assert text.startswith(f"{side} s") and f"{e.vs_average:+.2f} skill points" in text


def test_security_headers_on_pages_and_api(tmp_path: Path) -> None:
    """Every answer (pages, JSON, errors) carries nosniff, no framing and no referrer; the pages
    and the API a Content-Security-Policy that allows exactly the pages' own inline elements
    (their SHA-256, computed here from the pages as served) and requests to this server;
    FastAPI's documentation page, which loads Swagger UI from a CDN, gets no policy."""
    import base64
    import hashlib
    import re

    from mindsport.event.model import EventSpec
    from mindsport.event.storage import EventStore

    store = Store(str(tmp_path / "page.db"))
    store.create_league("main")
    store.add_matches("main", league_matches(players=6, n=20))
    EventStore(store).create(EventSpec("night", "main", rounds=3, seed=1))
    with TestClient(create_app(store=store)) as client:
        answers = {
            path: client.get(path)
            for path in ("/", "/?league=nope", "/events/night", "/api/leagues", "/api/x", "/docs")
        }
        answers["post"] = client.post("/api/leagues/main/matches", json={})
        expected_status = {"/api/x": 404, "post": 401}
        for path, r in answers.items():
            assert r.status_code == expected_status.get(path, 200), path
            assert r.headers["x-content-type-options"] == "nosniff", path
            assert r.headers["x-frame-options"] == "DENY", path
            assert r.headers["referrer-policy"] == "no-referrer", path
            assert ("content-security-policy" in r.headers) == (path != "/docs"), path
        policy = answers["/"].headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["default-src"] == "'none'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["connect-src"] == "'self'" and directives["form-action"] == "'self'"
        assert "unsafe" not in policy and "*" not in policy and "http" not in policy

        def inline(html: str, tag: str) -> set[str]:
            texts = re.findall(rf"<{tag}(?![^>]*application/json)[^>]*>(.*?)</{tag}>", html, re.S)
            digests = (hashlib.sha256(t.encode()).digest() for t in texts)
            return {f"'sha256-{base64.b64encode(d).decode()}'" for d in digests}

        pages = [answers["/"].text, answers["/events/night"].text]
        scripts = set().union(*(inline(h, "script") for h in pages))
        styles = set().union(*(inline(h, "style") for h in pages))
        assert len(scripts) == 2 and len(styles) == 2
        assert set(directives["script-src"].split()) == scripts
        assert set(directives["style-src"].split()) == styles
        for html in pages:  # no inline handler or style attribute the policy would refuse
            assert not re.search(r"<[^>]+\s(on[a-z]+|style)=", html), html[:200]
    store.close()


@pytest.mark.browser
def test_the_league_menu_and_styles_work_under_the_policy(tmp_path: Path, live_server: Any) -> None:
    """The league menu (its handler now in the page's script) switches leagues, and the page's
    style applies: nothing the policy refuses."""
    base, store = live_server(f"sqlite:///{tmp_path / 'menu.db'}")
    store.create_league("first")
    store.create_league("second", "elo")
    store.add_matches("second", league_matches(players=6, n=30))
    with _chromium_page() as page:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready='1']")
        size = page.eval_on_selector("#chart-title", "h => getComputedStyle(h).fontSize")
        assert size == "16px"
        background = page.eval_on_selector("header", "h => getComputedStyle(h).backgroundColor")
        assert background == "rgb(29, 35, 48)"  # #1d2330
        page.select_option("#league", "second")
        page.wait_for_url("**/?league=second")
        page.wait_for_selector("body[data-ready='1']")
        assert page.locator("#rows tr").count() == 6


@pytest.mark.browser
def test_a_dan_ladder_league_shows_level_names_in_chromium(
    tmp_path: Path, live_server: Any
) -> None:
    """A Tenhou dan ladder league: the rows the page's script renders from the JSON API (after a
    search) show each player's level by name and his points, as the server-rendered rows do."""
    base, store = live_server(f"sqlite:///{tmp_path / 'dan.db'}")
    store.create_league("dan", "tenhou-dan", {"room": "houou"})
    rng = random.Random(3)
    pool = [f"p{i}" for i in range(6)]
    ms = []
    for i in range(60):
        table = ["p0", *rng.sample(pool[1:], 3)]
        ranks = [1, *rng.sample([2, 3, 4], 3)] if i % 3 else [2, 1, 3, 4]
        ms.append(Match(f"d{i}", i, [[p] for p in table], ranks))
    store.add_matches("dan", ms)
    ratings = store.ratings("dan")
    with _chromium_page() as page:
        page.goto(base + "/?league=dan")
        page.wait_for_selector("body[data-ready='1']")
        heads = page.eval_on_selector_all("#board th", "hs => hs.map(h => h.textContent)")
        assert heads == ["#", "Player", "dan", "pt", "Games"]
        page.fill("#search", "p")
        wait_until(page, "document.querySelectorAll('#rows tr').length === 6")
        page.fill("#search", "p0")
        wait_until(page, "document.querySelectorAll('#rows tr').length === 1")
        cells = page.eval_on_selector_all(
            "#rows tr:first-child td", "ts => ts.map(t => t.textContent)"
        )
        assert cells[2:4] == [ratings["p0"].name, f"{ratings['p0'].points:.2f}"]
        assert ratings["p0"].level >= 10  # the strong player reached the dan ranks
