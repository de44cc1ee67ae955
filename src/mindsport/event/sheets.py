"""What a director prints and shows: deal sheets (JSON and printable HTML) and the event page.

A deal sheet lists, for every table of a round, every board: the deal, the rotation, and which
player holds the landlord's, farmer 1's and farmer 2's cards (with the cards). The event page
shows the rounds and their tables (results entered and missing), the standings, and each
player's path round by round. Pages are self-contained (inline style and script, nothing
fetched) and every name is escaped.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from mindsport.errors import NotFoundError
from mindsport.event.exports import legend
from mindsport.event.games import table_game
from mindsport.event.standings import paths
from mindsport.event.storage import EventState

__all__ = ["PAGE_SCRIPT", "PAGE_STYLE", "deal_sheet", "deal_sheet_html", "event_page_html"]

#: the inline style of the pages (the service's Content-Security-Policy allows it by its hash)
PAGE_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.2em}
th,td{border:1px solid #bbb;padding:.25em .5em;text-align:left;font-variant-numeric:tabular-nums}
th{background:#eee} .missing{background:#fde2e2} .entered{background:#e3f5e3}
.cards{font-family:monospace} section.sheet{page-break-after:always}
td.box{min-width:5em;height:2.2em} .sign{margin-top:1.5em}
@media print{section.sheet{page-break-after:always}}
"""


def _round(state: EventState, number: int) -> Any:
    if not 1 <= number <= len(state.rounds):
        raise NotFoundError(
            f"event {state.spec.name!r} has no round {number} ({len(state.rounds)} paired)"
        )
    return state.rounds[number - 1]


def deal_sheet(state: EventState, number: int) -> dict[str, Any]:
    """The deal sheet of round ``number`` as JSON-ready data."""
    played = _round(state, number)
    game = table_game(state.spec.game)
    tables = []
    for t in played.tables:
        boards = []
        for b in t.boards():
            hands = game.hands(b.hand)
            boards.append(
                {
                    "board": b.number + 1,
                    "deal": b.deal + 1,
                    "rotation": b.rotation + 1,
                    "hand": b.hand,
                    "seats": [
                        {"seat": game.seats[s.seat], "player": s.player, "cards": hands[s.seat]}
                        for s in b.seats
                    ],
                }
            )
        tables.append({"table": t.number, "players": list(t.players), "boards": boards})
    return {
        "event": state.spec.name,
        "round": played.number,
        "format": str(state.spec.format),
        "game": state.spec.game,
        "tables": tables,
        "byes": list(played.byes),
    }


def deal_sheet_html(state: EventState, number: int) -> str:
    """The printable deal sheet of round ``number``: one page per table, each board with its
    seats' cards and an empty score box per seat for the table to fill in, a box per player
    for the totals, and lines for the players' signatures."""
    sheet = deal_sheet(state, number)
    game = table_game(state.spec.game)
    seats = game.seats
    parts = []
    for t in sheet["tables"]:
        rows = "".join(
            f'<tr data-board="{b["board"]}"><td>{b["board"]}</td><td>{b["deal"]}</td>'
            + "".join(
                f"<td>{escape(s['player'])}<br><span class=cards>{escape(s['cards'])}</span></td>"
                for s in b["seats"]
            )
            + "".join('<td class="box"></td>' for _ in b["seats"])
            + "</tr>"
            for b in t["boards"]
        )
        totals = "".join(
            f'<tr><td>{escape(p)}</td><td class="box"></td><td class="box"></td></tr>'
            for p in t["players"]
        )
        parts.append(
            f'<section class="sheet" data-table="{t["table"]}">'
            f"<h2>{escape(sheet['event'])} · round {sheet['round']} · table {t['table']}</h2>"
            f"<p>Players: {escape(', '.join(t['players']))}</p><table><thead><tr><th>Board</th>"
            "<th>Deal</th>"
            + "".join(f"<th>{s}</th>" for s in seats)
            + "".join(f"<th>{s} {game.box}</th>" for s in seats)
            + f"</tr></thead><tbody>{rows}</tbody></table>"
            "<table class=totals><thead><tr><th>Player</th><th>Total score</th>"
            f"<th>Signature</th></tr></thead><tbody>{totals}</tbody></table>"
            f"<p class=sign>{escape(game.sums)} Results: <code>mindsport event "
            f"result {escape(sheet['event'])} {sheet['round']} {t['table']} -s "
            f"{','.join(seats)};...</code> (one group per board, in board order)</p></section>"
        )
    byes = ", ".join(sheet["byes"]) or "none"
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{escape(sheet['event'])} round "
        f"{sheet['round']} deal sheets</title><style>{PAGE_STYLE}</style></head><body>"
        + "".join(parts)
        + f"<p>Byes: {escape(byes)}</p></body></html>"
    )


def _num(x: float) -> str:
    return f"{x:+g}"


def _scores(rows: Any) -> str:
    return ";".join(",".join(f"{x:g}" for x in row) for row in rows)


#: the inline script of the event page (allowed by its hash, as :data:`PAGE_STYLE`)
PAGE_SCRIPT = """
const box = document.getElementById('find');
box.addEventListener('input', () => {
  const q = box.value.trim().toLowerCase();
  for (const row of document.querySelectorAll('tr[data-player]')) {
    row.hidden = q !== '' && !row.dataset.player.toLowerCase().includes(q);
  }
});
document.body.dataset.ready = '1';
"""


def event_page_html(state: EventState) -> str:
    """The event page: rounds and tables (results entered or missing), standings, paths."""
    spec = state.spec
    rows = "".join(
        f'<tr data-player="{escape(s.player)}"><td>{s.place}</td><td>{escape(s.player)}'
        f"{' (withdrawn)' if s.withdrawn else ''}</td><td>{s.rank_points}</td>"
        f"<td>{_num(s.score)}</td><td>{s.opponents}</td><td>{s.rounds}</td><td>{s.byes}</td></tr>"
        for s in state.standings()
    )
    rounds = []
    for r in reversed(state.rounds):
        cells = []
        for t in r.tables:
            result = state.results.get((r.number, t.number))
            if result is None:
                status, cls = "missing", "missing"
            else:
                got = result.player_scores(t)
                status = ", ".join(f"{escape(p)} {_num(got[p])}" for p in t.players)
                cls = "entered"
            cells.append(
                f'<tr class="{cls}" data-round="{r.number}" data-table="{t.number}">'
                f"<td>{t.number}</td><td>{escape(', '.join(t.players))}</td><td>{status}</td></tr>"
            )
        missing = sum(1 for t in r.tables if (r.number, t.number) not in state.results)
        byes = escape(", ".join(r.byes)) or "none"
        rounds.append(
            f'<section class="round" id="round-{r.number}"><h3>Round {r.number}: '
            f"{len(r.tables) - missing} of {len(r.tables)} results in</h3><p>Byes: {byes}</p>"
            "<table><thead><tr><th>Table</th><th>Players</th><th>Result</th></tr></thead>"
            f"<tbody>{''.join(cells)}</tbody></table></section>"
        )
    forfeit_rows = "".join(
        f'<tr data-player="{escape(f.player)}"><td>{f.round}</td><td>{f.table}</td>'
        f"<td>{f.board}</td><td>{escape(f.player)}</td><td>{escape(f.reason)}</td>"
        f"<td>{escape(f.detail)}</td></tr>"
        for f in state.forfeits
    )
    forfeits = (
        "<h2>Forfeits</h2><table id=forfeits><thead><tr><th>Round</th><th>Table</th>"
        "<th>Board</th><th>Player</th><th>Reason</th><th>Detail</th></tr></thead>"
        f"<tbody>{forfeit_rows}</tbody></table>"
        if state.forfeits
        else ""
    )
    log_rows = [
        (
            a.at.isoformat(),
            "amend",
            f"round {a.round} table {a.table}: {_scores(a.old)} → {_scores(a.new)}",
            a.who,
            a.why,
        )
        for a in state.amendments
    ] + [(e.at.isoformat(), e.action, e.detail, e.who, e.why) for e in state.log]
    log = (
        "<h2>Log</h2><table id=log><thead><tr><th>When</th><th>What</th><th>Detail</th>"
        "<th>Who</th><th>Why</th></tr></thead><tbody>"
        + "".join(
            "<tr>" + "".join(f"<td>{escape(x)}</td>" for x in row) + "</tr>"
            for row in sorted(log_rows)
        )
        + "</tbody></table>"
        if log_rows
        else ""
    )
    legend_html = (
        "<dl id=legend>"
        + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in legend(spec).items())
        + "</dl>"
    )
    walked = paths(spec, state.players, state.rounds, state.results)
    path_rows = []
    for name, steps in walked.items():
        cells = []
        for st in steps:
            if st.bye:
                text = "bye"
            elif st.table is None:
                text = "–"
            else:
                text = f"T{st.table} v {', '.join(st.opponents)}"
            if st.rank_points is not None:
                text += f" · {st.rank_points} RP"
            cells.append(f"<td>{escape(text)}</td>")
        path_rows.append(
            f'<tr data-player="{escape(name)}"><td>{escape(name)}</td>{"".join(cells)}</tr>'
        )
    heads = "".join(f"<th>R{r.number}</th>" for r in state.rounds)
    info = {
        "event": spec.name,
        "status": str(state.status),
        "rounds_paired": len(state.rounds),
        "rounds_complete": state.complete,
        "rounds": spec.rounds,
    }
    data = json.dumps(info).replace("<", "\\u003c")
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{escape(spec.name)} · "
        f"mindsport event</title><style>{PAGE_STYLE}</style></head><body>"
        f"<h1>{escape(spec.name)}</h1><p id=summary>{escape(str(spec.format))} format, "
        f"{escape(table_game(spec.game).title)}, {spec.deals} deal(s) a round in every seat "
        f"rotation, {escape(str(spec.scoring))} rank "
        f"points; {state.complete} of {spec.rounds} rounds complete, {len(state.rounds)} paired; "
        f"{len(state.players)} players; {escape(str(state.status))}; league "
        f"{escape(spec.league)}</p>"
        '<p><input id=find placeholder="Find a player" autocomplete=off></p>'
        "<h2>Standings</h2><table id=standings><thead><tr><th>Place</th><th>Player</th>"
        "<th>Rank points</th><th>Score</th><th>Opponents</th><th>Rounds</th><th>Byes</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>{legend_html}"
        f"<h2>Rounds</h2>{''.join(rounds)}{forfeits}{log}"
        f"<h2>Paths</h2><table id=paths><thead><tr><th>Player</th>{heads}</tr></thead>"
        f"<tbody>{''.join(path_rows)}</tbody></table>"
        f'<script type="application/json" id=info>{data}</script>'
        f"<script>{PAGE_SCRIPT}</script></body></html>"
    )
