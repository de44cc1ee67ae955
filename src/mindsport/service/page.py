"""The server-rendered leaderboard page (a template in the package, no build step, no CDN).

The first page of the table is rendered on the server, so it reads without JavaScript (search and
paging then work as plain links and a form). Inline JavaScript makes search, paging and the
per-player chart (mu with a mu +- sigma band over time, drawn on a canvas) live, using the JSON
API.
"""

from __future__ import annotations

import json
from functools import cache
from html import escape
from importlib.resources import files
from string import Template
from urllib.parse import urlencode

from mindsport.errors import NotFoundError
from mindsport.store import Store

__all__ = ["PAGE_SIZE", "render_page"]

#: rows per page of the leaderboard
PAGE_SIZE = 25


@cache
def _template() -> Template:
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
    total = 0
    chart_title = "Select a player to see their rating history"
    if league is not None:
        board = store.leaderboard(league, offset=offset, limit=PAGE_SIZE, search=search or None)
        total = board.total
        for e in board.entries:
            cls = ' class="selected"' if e.player == player else ""
            link = escape(_href(league, search, offset, e.player))
            rows.append(
                f'<tr data-player="{escape(e.player)}"{cls}><td>{e.rank}</td>'
                f'<td><a href="{link}">{escape(e.player)}</a></td>'
                f"<td>{e.exposed:.2f}</td><td>{e.mu:.2f}</td><td>{e.sigma:.2f}</td>"
                f"<td>{e.games}</td></tr>"
            )
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
    }
    return _template().substitute(
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
        initial_json=_json_script(initial),
    )
