"""Bot entrants: a player registered with a bot spec, checked at registration, made for play
with the event's per-move time limit, and a round's bot tables played with every forfeit kept.

A spec is read by the one parser of bot specs (:func:`mindsport.games.specs.parse_spec`) and
made by the one factory (:func:`mindsport.games.registry.make_bot`), exactly as ``ddz play``
and ``games play`` read and make theirs: ``level:40``, ``strong``, or ``cmd:"node bot.js"``
(an external program speaking the JSON-lines bot protocol; the quotes group and are dropped).
Registration makes the bot once without starting it, so a misspelt name or a program that is
not found is refused then, naming the player.

:func:`play_bot_tables` plays every board of the given tables, board b of table t of round r
with the generator ``task_rng(seed, 17, r, t, b)`` (as :func:`~.simulate.play_round`), each
entrant one bot (one program) for the whole round, and returns what the tables enter (checked
by the event's rule; entered as a director's results are) and the forfeits: a program that
times out, crashes or answers an illegal move loses the board for its side (the game's forfeit
rule) and the forfeit names the round, table, board and entrant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mindsport.errors import MindsportError
from mindsport.event.games import table_game
from mindsport.event.model import BoardForfeit, EventError, EventSpec, Player, Round, Table
from mindsport.event.standings import check_scores
from mindsport.games.contract import Bot, Game
from mindsport.games.registry import make_bot
from mindsport.games.specs import parse_spec

__all__ = ["check_bot", "event_game", "play_bot_tables"]

#: what a table enters: ``rows[board][seat]``
Entered = tuple[tuple[float, ...], ...]

#: the longest bot spec a player may be registered with
MAX_SPEC = 200


def event_game(spec: EventSpec) -> Game:
    """The game an event's bots play: its game under its scoring rule."""
    return table_game(spec.game).game(spec.rule)


def _close(bots: Mapping[str, Bot]) -> None:
    for bot in bots.values():
        close = getattr(bot, "close", None)
        if callable(close):
            close()


def check_bot(spec: EventSpec, player: str, text: str) -> str:
    """The bot spec ``text`` of ``player`` checked (the bot is made, a program is looked up but
    not started); returns it as it is stored (stripped)."""
    if not isinstance(text, str) or not text.strip():
        raise EventError(f"bot of {player!r} must be a non-empty text")
    if len(text) > MAX_SPEC:
        raise EventError(f"bot of {player!r} has {len(text)} characters; at most {MAX_SPEC}")
    try:
        parsed = parse_spec(text)
        bot = make_bot(event_game(spec), parsed.text, time_limit=spec.time_limit)
    except MindsportError as exc:
        raise EventError(f"bot of {player!r}: {exc}") from None
    _close({player: bot})
    return parsed.text


def _outcome(record: Any) -> tuple[tuple[float, ...], Any]:
    """(returns, forfeit or None) of one played game's record: a game's own record (Dou
    Dizhu's :class:`~mindsport.doudizhu.record.GameRecord`: ``scores``) or the referee's
    :class:`~mindsport.games.referee.Playthrough` (``returns``)."""
    returns = getattr(record, "scores", None)
    if returns is None:
        returns = record.returns
    return tuple(float(x) for x in returns), getattr(record, "forfeit", None)


def play_bot_tables(
    spec: EventSpec, players: Sequence[Player], played: Round, tables: Sequence[Table]
) -> tuple[dict[tuple[int, int], Entered], list[BoardForfeit]]:
    """Play every board of ``tables`` (every seat a bot entrant): per table what it enters
    (``rows[board][seat]``, as a director would enter them:
    :meth:`~mindsport.event.games.TableGame.entered`), checked by the event's rule, and the
    forfeits, in board order."""
    from mindsport.games.many import Table as Game1
    from mindsport.games.many import play_many

    specs = {p.name: p.bot for p in players}
    for t in tables:
        humans = [p for p in t.players if not specs.get(p)]
        if humans:
            raise EventError(
                f"round {played.number} table {t.number}: {', '.join(humans)} "
                f"{'is not a bot' if len(humans) == 1 else 'are not bots'}"
            )
    game = event_game(spec)
    bots: dict[str, Bot] = {}
    try:
        for name in sorted({p for t in tables for p in t.players}):
            try:
                bots[name] = make_bot(game, str(specs[name]), time_limit=spec.time_limit)
            except MindsportError as exc:
                raise EventError(f"bot of {name!r}: {exc}") from None
        boards = [(t, b) for t in tables for b in t.boards()]
        games = [
            Game1(
                table_game(spec.game).chance(b.hand),
                tuple(bots[s.player] for s in b.seats),
                (17, played.number, t.number, b.number),
            )
            for t, b in boards
        ]
        records = play_many(game, games, spec.seed, records=True)
    finally:
        _close(bots)
    rows: dict[int, list[tuple[float, ...]]] = {}
    forfeits = []
    judge = table_game(spec.game)
    for (t, b), record in zip(boards, records, strict=True):
        returns, forfeit = _outcome(record)
        rows.setdefault(t.number, []).append(judge.entered(returns))
        if forfeit is not None:
            forfeits.append(
                BoardForfeit(
                    played.number,
                    t.number,
                    b.number + 1,
                    b.seats[forfeit.player].player,
                    forfeit.reason.value,
                    forfeit.detail,
                )
            )
    entered = {}
    for t in tables:
        check_scores(t, rows[t.number], spec.rule, spec.game)  # refused here, not half-entered
        entered[(played.number, t.number)] = tuple(rows[t.number])
    return entered, forfeits
