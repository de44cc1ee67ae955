"""Seating a round: Swiss tables of three, byes, and the tables' deals.

The order for pairing is the standings after the previous rounds (ties by lot, so the first
round is seated by lot). :func:`mindsport.tournament.swiss.swiss_round` then seats the players
at tables of three with no two players who have met before whenever such a split exists, the
fewest repeats otherwise, and gives the byes (when the field is not a multiple of three) to
the lowest-standing players with the fewest byes so far. A director may also seat a round by
hand (``manual``): the given tables are checked (every player at most once, all of them
players of the round) and the players left over are paired by the same Swiss rule among
themselves (``rest="pair"``, the byes by the usual rule among them) or all sit out
(``rest="byes"``).

A late entrant is seated in the round he joins: the byes go by the usual rule among the players
already there, a late entrant sitting out only when they cannot fill the round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mindsport.event.deals import round_deals
from mindsport.event.model import EventError, EventSpec, Player, Result, Round, Table
from mindsport.event.standings import complete_rounds, lot, standings
from mindsport.tournament.swiss import swiss_round

__all__ = ["history", "pair_round"]


def history(rounds: Sequence[Round]) -> tuple[dict[str, set[str]], dict[str, int]]:
    """Who has sat with whom, and how many byes each player has had, over ``rounds``."""
    met: dict[str, set[str]] = {}
    byes: dict[str, int] = {}
    for r in rounds:
        for table in r.tables:
            for p in table.players:
                met.setdefault(p, set()).update(q for q in table.players if q != p)
        for p in r.byes:
            byes[p] = byes.get(p, 0) + 1
    return met, byes


#: byes counted for a player who joins this very round: the last to be given one
_JOINING = 1 << 30


def _manual(
    number: int, field: list[str], manual: Sequence[Sequence[str]], size: int
) -> tuple[list[tuple[str, ...]], list[str]]:
    """The hand-seated tables, checked, and the players of ``field`` left over (in order)."""
    known = set(field)
    seen: dict[str, int] = {}
    tables = []
    for t, table in enumerate(manual, start=1):
        if len(table) != size:
            raise EventError(
                f"round {number} table {t}: a table seats {size} players, got {len(table)}"
            )
        for p in table:
            if p not in known:
                raise EventError(
                    f"round {number} table {t}: {p!r} is not a player of this round "
                    "(not registered, withdrawn or not yet joined)"
                )
            if p in seen:
                raise EventError(
                    f"round {number}: {p!r} is seated twice (tables {seen[p]} and {t})"
                )
            seen[p] = t
        tables.append(tuple(table))
    return tables, [p for p in field if p not in seen]


def pair_round(
    spec: EventSpec,
    players: Sequence[Player],
    rounds: Sequence[Round],
    results: Mapping[tuple[int, int], Result],
    manual: Sequence[Sequence[str]] | None = None,
    rest: str = "pair",
) -> Round:
    """The next round: its tables (with their deals) and byes. Refused when the event has all
    its rounds, when the previous round is missing a result, or with fewer than 3 players.
    ``manual``: tables seated by hand; the players left over are paired (``rest="pair"``) or
    sit out (``rest="byes"``)."""
    if rest not in ("pair", "byes"):
        raise EventError(f"rest {rest!r}: use pair (the rest are paired) or byes")
    number = len(rounds) + 1
    if number > spec.rounds:
        raise EventError(f"event {spec.name!r} has {spec.rounds} rounds; all are paired")
    if complete_rounds(rounds, results) < len(rounds):
        last = rounds[-1]
        missing = [t.number for t in last.tables if (last.number, t.number) not in results]
        shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
        raise EventError(
            f"round {number} cannot be paired: round {last.number} has no result for "
            f"table{'s' if len(missing) > 1 else ''} {shown}"
        )
    order = [s.player for s in standings(spec, players, rounds, results)]
    active = {p.name for p in players if p.active_in(number)}
    field = [p for p in order if p in active]
    size = spec.size
    if len(field) < size:
        raise EventError(f"round {number} needs at least {size} players; {len(field)} can play")
    met, byes_taken = history(rounds)
    for p in players:  # a late entrant is seated in the round he joins
        if p.joined == number and number > 1:
            byes_taken[p.name] = _JOINING
    seated: list[tuple[str, ...]] = []
    left = field
    if manual is not None:
        seated, left = _manual(number, field, manual, size)
    if (manual is not None and rest == "byes") or len(left) < size:
        byes = left
    else:
        # ties of the standings are ordered by lot (standings sorts them that way)
        paired = swiss_round(left, met, byes_taken, size=size)
        seated, byes = seated + list(paired.tables), list(paired.byes)
    if not seated:
        raise EventError(f"round {number}: no table is seated")
    deals = round_deals(spec, number, len(seated))
    tables = tuple(
        Table(number, t, players_, deals[t - 1]) for t, players_ in enumerate(seated, start=1)
    )
    return Round(number, tables, tuple(sorted(byes, key=lambda p: lot(spec.seed, p))))
