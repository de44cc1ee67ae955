"""The leaderboard page, ``GET /``: server-rendered from a template in the package (no build
step, no CDN).

The first page of the table is rendered on the server, so it reads without JavaScript (search and
paging then work as plain links and a form). Inline JavaScript makes search, paging and the
per-player chart (the rating over time, with its deviation band when the model has one, drawn
on a canvas with rounded ticks and axis titles) live, using the JSON API. In a whole-history
league (model ``trueskill-history``) the chart is the player's smoothed skill curve (his skill at
each time step he played in, given every game) with a band of two deviations. Column headings and
chart labels are the league's model's (:class:`~mindsport.rating.registry.Display`): Glicko-2
shows rating, RD and "rating - 2 RD"; Elo shows its rating alone, with no deviation column.
"""

from __future__ import annotations

import json
from functools import cache
from html import escape
from importlib.resources import files
from string import Template
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from mindsport.errors import NotFoundError
from mindsport.rating.registry import MODELS, Estimate
from mindsport.service.dependencies import RuntimeDep
from mindsport.service.limits import MAX_ID_LENGTH, PAGE_SIZE
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import page_responses
from mindsport.service.schemas import ID_PATTERN, LEAGUE_PATTERN, Offset, Search
from mindsport.store import Store
from mindsport.store.display import seat_line

if TYPE_CHECKING:
    from mindsport.rating.registry import Display
    from mindsport.store import LeaderboardPage

__all__ = ["leaderboard_template", "render_page", "router"]


@cache
def leaderboard_template() -> Template:
    """The page's template (``templates/leaderboard.html`` of the package)."""
    text = files("mindsport.service").joinpath("templates/leaderboard.html").read_text("utf-8")
    return Template(text)


def _href(league: str, search: str, offset: int, player: str | None = None) -> str:
    q: dict[str, str] = {"league": league}
    if search:
        q["search"] = search
    if offset:
        q["offset"] = str(offset)
    if player:
        q["player"] = player
    return "?" + urlencode(q)


def _json_script(data: object) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _columns(display: Display | None) -> list[tuple[str, str]]:
    """The leaderboard's columns (key of the JSON entry, heading) as the league's model shows a
    rating: the value the board is sorted by, the rating itself when that differs, and the
    deviation only for a model that has one (none for Elo or Tenhou R)."""
    if display is None:  # a model this installation does not know: the raw values
        return [("rank", "#"), ("player", "Player"), ("exposed", "exposed"), ("mu", "mu"),
                ("sigma", "sigma"), ("games", "Games")]  # fmt: skip
    out = [("rank", "#"), ("player", "Player"), ("exposed", display.conservative)]
    if display.conservative != display.value_label:
        out.append(("mu", display.value_label))
    if display.deviation_label is not None:
        out.append(("sigma", display.deviation_label))
    return [*out, ("games", "Games")]


def _legend(columns: list[tuple[str, str]], smoothed: bool) -> str:
    labels = dict(columns)
    value = labels.get("mu", labels["exposed"])
    if smoothed:
        return (
            f"Line: smoothed {value} at each time step, given every game; "
            f"band: {value} ± 2 {labels.get('sigma', 'sigma')}."
        )
    if "sigma" in labels:
        return f"Line: {value} after each game; band: {value} ± {labels['sigma']}."
    return f"Line: {value} after each game."


def _roles(board: LeaderboardPage) -> str:
    """The league's seats (sides) against the average seat, with their 95% intervals, as a
    small list (empty when it has none)."""
    if not board.seats:
        return ""
    items = "".join(
        f'<li data-side="{escape(e.side)}">{escape(seat_line(e))}</li>' for e in board.seats
    )
    return f'<div id="roles"><h2>Seats against the average seat</h2><ul>{items}</ul></div>'


def render_page(
    store: Store, league: str | None, search: str, offset: int, player: str | None
) -> str:
    """The HTML of the leaderboard page of ``league`` (default: the first league)."""
    leagues = [lg.name for lg in store.list_leagues()]
    message = ""
    if league is None and leagues:
        league = leagues[0]
    if league is not None and league not in leagues:
        message = f"League {league!r} does not exist."
        league = None
    if league is None and not message:
        message = "No leagues yet: create one with `mindsport leagues create NAME`."
    options = "".join(
        f'<option value="{escape(n)}"{" selected" if n == league else ""}>{escape(n)}</option>'
        for n in leagues
    )
    rows: list[str] = []
    roles = ""
    total = 0
    columns = _columns(None)
    smoothed = False
    chart_title = "Select a player to see their rating history"
    if league is not None:
        spec = MODELS.get(store.get_league(league).model)
        smoothed = spec is not None and spec.estimate is Estimate.WHOLE_HISTORY
        if smoothed:
            chart_title = "Select a player to see their smoothed skill curve"
        board = store.leaderboard(league, offset=offset, limit=PAGE_SIZE, search=search or None)
        total = board.total
        columns = _columns(board.display)
        roles = _roles(board)
        if board.updating:
            message = (
                "This league is being brought up to date after a late result: the ratings "
                "shown are the last consistent ones until it is done."
            )
        if board.total == 0 and not search:
            chart_title = "No matches yet"
        for e in board.entries:
            cls = ' class="selected"' if e.player == player else ""
            link = escape(_href(league, search, offset, e.player))
            values = {
                "rank": str(e.rank),
                "exposed": escape(board.display.shown(e.exposed))
                if board.display is not None
                else f"{e.exposed:.2f}",
                "mu": f"{e.mu:.2f}",
                "sigma": f"{e.sigma:.2f}",
                "games": str(e.games),
            }
            cells = "".join(
                f'<td><a href="{link}">{escape(e.player)}</a></td>'
                if key == "player"
                else f"<td>{values[key]}</td>"
                for key, _ in columns
            )
            rows.append(f'<tr data-player="{escape(e.player)}"{cls}>{cells}</tr>')
        if player is not None:
            try:
                store.player(league, player, history=False)
            except NotFoundError:
                message = f"Player {player!r} has no rating in league {league!r}."
                player = None
    pages = max(1, -(-total // PAGE_SIZE))
    lg = league or ""
    initial = {
        "league": league,
        "search": search,
        "offset": offset,
        "limit": PAGE_SIZE,
        "total": total,
        "player": player,
        "columns": columns,
        "smoothed": smoothed,
        "empty": league is not None and total == 0 and not search,
    }
    return leaderboard_template().substitute(
        title=escape(f"{lg} leaderboard · mindsport" if lg else "mindsport leaderboard"),
        league_options=options,
        league_attr=escape(lg),
        search_attr=escape(search),
        count_text=f"{total} player{'' if total == 1 else 's'}",
        rows="".join(rows),
        prev_href=escape(_href(lg, search, max(0, offset - PAGE_SIZE), player)),
        next_href=escape(_href(lg, search, offset + PAGE_SIZE, player)),
        page_text=f"Page {offset // PAGE_SIZE + 1} of {pages}",
        message=escape(message),
        chart_title=escape(chart_title),
        head="".join(f'<th data-column="{key}">{escape(label)}</th>' for key, label in columns),
        legend=escape(_legend(columns, smoothed)),
        initial_json=_json_script(initial),
        roles=roles,
    )


router = APIRouter(route_class=ApiRoute, tags=["page"])


@router.get("/", response_class=HTMLResponse, responses=page_responses(422))
async def page(
    runtime: RuntimeDep,
    league: Annotated[str | None, Query(pattern=LEAGUE_PATTERN)] = None,
    search: Annotated[Search, Query()] = "",
    offset: Annotated[Offset, Query()] = 0,
    player: Annotated[
        str | None, Query(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)
    ] = None,
) -> HTMLResponse:
    """The leaderboard page (server-rendered; search, paging and a rating chart)."""
    html = await runtime.run(render_page, runtime.store, league, search, offset, player)
    return HTMLResponse(html)
