"""Dou Dizhu as a game of the shared contract, and whole games: :func:`play` one deal,
:func:`simulate` many.

:class:`DouDizhuGame` is the game factory of :mod:`mindsport.games` (name ``doudizhu``): three
players (landlord, farmer 1, farmer 2), the deal as chance outcome (:func:`~.deal.deal`,
the DIH paper's Algorithm 2), returns under a scoring rule (they sum to zero). Its bots are made
by :func:`mindsport.games.make_bot` (built-in names through :mod:`mindsport.doudizhu.bots`,
which this module never imports); its batch path (:meth:`DouDizhuGame.play_batch`) is the
compiled engine (:mod:`.engine`).

:func:`play` plays one deal. When the three bots are built-in bots of the compiled engine
(:class:`~mindsport.doudizhu.player.EngineBot`), the engine's game loop plays the whole game in
one call; otherwise the referee of :mod:`mindsport.games.referee` asks each bot in turn. Both
give the same game for the same bots and generator (the built-in bots are the engine's
decision kernel either way), and both draw the same numbers from ``rng``.

:func:`simulate` plays many games with deterministic per-game seeds (game ``i`` deals and
plays from :func:`game_rng` ``(seed, i)``), through :func:`mindsport.games.many.play_many`:
the same records whatever the number of jobs.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from mindsport.doudizhu.deal import Deal, deal
from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.player import Bot, EngineBot
from mindsport.doudizhu.record import GameRecord, record_of
from mindsport.doudizhu.scoring import LINEAR, NO_DOUBLES, SCORING_RULES, ScoringRule
from mindsport.doudizhu.state import GameState, action_text
from mindsport.errors import MindsportError
from mindsport.games.contract import DecisionTerms, GameInfo
from mindsport.games.many import Seeding, Table, play_many
from mindsport.games.referee import Playthrough, play_state
from mindsport.games.registry import make_bot
from mindsport.games.specs import split_specs

__all__ = ["PLAYOUT_STREAM", "DouDizhuGame", "game_rng", "play", "simulate"]

_MAX_TURNS = 1000
#: the last entry of the keys of a table's playout generators (:meth:`DouDizhuGame.play_valued`):
#: a key one entry longer than the table's, so no table of the same batch is seeded alike
PLAYOUT_STREAM = 7919

Bots = str | Sequence[Bot]


def _scoring(rule: ScoringRule | str) -> ScoringRule:
    if not isinstance(rule, str):
        return rule
    found = SCORING_RULES.get(rule.strip().lower())
    if found is None:
        raise MindsportError(f"unknown scoring {rule!r}; use one of {', '.join(SCORING_RULES)}")
    return found


class DouDizhuGame:
    """Dou Dizhu under a scoring rule (a rule value or its name: linear, ccpc2016, classic)."""

    def __init__(self, scoring: ScoringRule | str = LINEAR) -> None:
        self.scoring = _scoring(scoring)

    @property
    def info(self) -> GameInfo:
        return GameInfo(
            name="doudizhu",
            title="Dou Dizhu",
            players=3,
            returns_sum=0.0,
            chance="the deal: [landlord][farmer1][farmer2] (the DIH paper's Algorithm 2)",
            sides=((0,), (1, 2)),
            references=(("strong", "greedy"),),
        )

    def sample_chance(self, rng: np.random.Generator) -> Deal:
        return deal(rng)

    def new_initial_state(self, chance: Deal) -> GameState:
        if not isinstance(chance, Deal):
            raise MindsportError(f"a Dou Dizhu game starts from a Deal, got {chance!r}")
        return GameState(chance, self.scoring)

    def action_to_string(self, action: Move | None) -> str:
        return action_text(action)

    def bot_names(self) -> Sequence[str]:
        return ("random", "greedy", "strong", "tracking", "level:N", "cmd:COMMAND")

    def record(self, result: Playthrough) -> GameRecord:
        """The record of a game the referee played."""
        state = result.final
        assert isinstance(state, GameState)
        return record_of(state, self.scoring, forfeit=result.forfeit)

    def play_batch(
        self,
        chances: Sequence[Deal | None],
        lineups: Sequence[Sequence[Bot]],
        keys: Sequence[tuple[int, ...]],
        seed: int,
        seeding: Seeding,
        records: bool,
    ) -> np.ndarray | list[GameRecord] | None:
        """Many games on the compiled engine (see :class:`~mindsport.games.contract.BatchGame`);
        None when a line-up has a bot without an engine code, or when some games are dealt and
        others not."""
        from mindsport.doudizhu.engine import lineup_codes, play_records, play_tables

        found = lineup_codes(lineups)
        batch = None if found is None else _engine_batch(chances, keys, seed, seeding)
        if found is None or batch is None:
            return None
        deals, states = batch
        if records:
            return play_records(states, deals, found[0], found[1], self.scoring)
        return play_tables(deals, found[0], found[1], states, self.scoring)

    def decision_terms(
        self, records: Sequence[GameRecord], seats: Sequence[Sequence[str | Bot]]
    ) -> DecisionTerms | None:
        """AIVAT's action terms of recorded games for the decisions of ``random`` and
        ``level:N`` bots, of the two fixed value functions (the landlord's win score and
        score: :mod:`mindsport.doudizhu.action_terms`); None when no seat holds such a bot."""
        from mindsport.doudizhu.action_terms import decision_terms, policy_codes

        codes, levels = policy_codes(seats)
        if not _values_any(codes, levels):
            return None
        terms, valued = decision_terms(records, seats)
        returns = np.array([r.scores for r in records], dtype=np.float64).reshape(-1, 3)
        return _terms(returns, terms, valued)

    def play_valued(
        self,
        tables: Sequence[Table],
        seed: int,
        seeding: Seeding = Seeding.SPAWN,
        playouts: int = 0,
    ) -> DecisionTerms | None:
        """:meth:`decision_terms` of ``tables`` played as :func:`~mindsport.games.many.play_many`
        plays them (the same games), on the compiled engine with the turns kept as arrays (no
        record objects); no decision valued when no seat holds a ``random`` or ``level:N`` bot.
        None when the engine cannot play them (a bot without an engine code, some tables dealt
        and others not). ``playouts``: value each move by that many playouts of the game's own
        bots instead (:func:`~mindsport.doudizhu.action_terms.playout_row_terms`), their
        generators keyed by each table's key extended by :data:`PLAYOUT_STREAM` under ``seed``
        (spawned, whatever ``seeding``)."""
        from mindsport.doudizhu.action_terms import playout_row_terms, policy_codes, row_terms
        from mindsport.doudizhu.engine import (
            play_rows,
            play_tables,
            result_scores,
            seeded_states,
        )

        codes, levels = policy_codes([t.bots for t in tables])  # refuses a table not of 3
        if (codes < 0).any():
            return None
        keys = [tuple(t.key) for t in tables]
        batch = _engine_batch([t.chance for t in tables], keys, seed, seeding)
        if batch is None:
            return None
        deals, states = batch
        if not _values_any(codes, levels):
            returns = play_tables(deals, codes, levels, states, self.scoring)
            n = len(tables)
            return _terms(returns, np.zeros((n, 3, 2)), np.zeros((n, 3), np.int64))
        played = play_rows(states, deals, codes, levels)
        if playouts:
            bases = seeded_states(seed, [(*k, PLAYOUT_STREAM) for k in keys], Seeding.SPAWN)
            terms, valued = playout_row_terms(played, codes, levels, bases, playouts)
        else:
            terms, valued = row_terms(played, codes, levels)
        return _terms(result_scores(played.results, self.scoring), terms, valued)

    def __repr__(self) -> str:
        return f"DouDizhuGame(scoring={self.scoring.name!r})"


def _engine_batch(
    chances: Sequence[Deal | None], keys: Sequence[tuple[int, ...]], seed: int, seeding: Seeding
) -> tuple[list[Deal] | None, np.ndarray] | None:
    """The deals (None: every game deals from its generator) and the generator states of a
    batch for the engine; None when it cannot play it (some games dealt, others not; entropy
    seeding by keys of more than one number)."""
    from mindsport.doudizhu.engine import seeded_states

    dealt = [c is not None for c in chances]
    if any(dealt) and not all(dealt):
        return None
    if seeding is Seeding.ENTROPY and any(len(k) != 1 for k in keys):
        return None
    deals = [c for c in chances if c is not None] if all(dealt) and chances else None
    return deals, seeded_states(seed, keys, seeding)


def _values_any(codes: np.ndarray, levels: np.ndarray) -> bool:
    """Whether any seat's bot (engine ``codes`` / ``levels``) has a known random policy."""
    from mindsport.doudizhu.compiled.policy import strong_share

    known = {(int(c), int(lv)) for c, lv in zip(codes.ravel(), levels.ravel(), strict=True)}
    return any(strong_share(c, lv) >= 0 for c, lv in known)


def _terms(returns: np.ndarray, terms: np.ndarray, valued: np.ndarray) -> DecisionTerms:
    """The game's :class:`DecisionTerms` (the landlord's side; each farmer holds half the
    other side)."""
    from mindsport.doudizhu.action_terms import VALUE_NAMES

    return DecisionTerms(returns, terms, valued, (1.0, -0.5, -0.5), VALUE_NAMES)


def play(
    deal: Deal,
    players: Sequence[Bot],
    scoring: ScoringRule = LINEAR,
    rng: np.random.Generator | None = None,
    call: int = 1,
    doubles: tuple[int, int] = NO_DOUBLES,
) -> GameRecord:
    """Play one game between three bots (seat order landlord, farmer1, farmer2).

    ``call`` (the landlord's bid, 1-3) enters the score under :data:`CCPC2016` and
    :data:`CLASSIC`, ``doubles`` (per farmer, the doublings announced on his stake: his double
    and the landlord's redouble against him, each 0 to 2) under :data:`CCPC2016`; bidding itself
    is not simulated.
    A bot that answers an illegal move (or, for an external bot, times out or crashes)
    forfeits: see :class:`GameRecord`.
    """
    if len(players) != 3:
        raise MindsportError(f"a game needs 3 players, got {len(players)}")
    rng = np.random.default_rng() if rng is None else rng
    if all(isinstance(p, EngineBot) for p in players):
        from mindsport.doudizhu.engine import play_one

        return play_one(deal, players, scoring, rng, call=call, doubles=doubles)
    result = play_state(GameState(deal, scoring), players, rng, max_turns=_MAX_TURNS)
    state = result.final
    assert isinstance(state, GameState)
    return record_of(state, scoring, call, doubles, result.forfeit)


def game_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of game ``index`` of a run seeded ``seed`` (deal and bots both draw on it)."""
    return Seeding.ENTROPY.rng(seed, (index,))


def _lineup(bots: Bots) -> tuple[str | Bot, ...]:
    """Three seats from a spec list (one spec or three) or three bot objects; bad specs fail
    here, before any game."""
    if isinstance(bots, str):
        seats: list[str | Bot] = list(split_specs(bots))
        if len(seats) == 1:
            seats *= 3
        if len(seats) != 3:
            raise MindsportError(f"{bots!r}: give one bot or three (landlord,farmer1,farmer2)")
        game = DouDizhuGame()
        for spec in set(seats):
            bot = make_bot(game, str(spec))
            close = getattr(bot, "close", None)
            if callable(close):
                close()
    else:
        seats = list(bots)
        if len(seats) != 3:
            raise MindsportError(f"a game needs 3 players, got {len(seats)}")
    return tuple(seats)


def _run_chunk(args: tuple[tuple[str | Bot, ...], int, Sequence[int], ScoringRule]) -> list[Any]:
    lineup, seed, indices, scoring = args
    tables = [Table(None, lineup, (i,)) for i in indices]
    return play_many(DouDizhuGame(scoring), tables, seed, seeding=Seeding.ENTROPY, records=True)


def _chunks(games: int, size: int) -> Iterator[range]:
    for start in range(0, games, size):
        yield range(start, min(games, start + size))


def simulate(
    games: int,
    bots: Bots,
    seed: int = 0,
    jobs: int = 1,
    scoring: ScoringRule = LINEAR,
    progress: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games between ``bots``: a spec (e.g. ``"strong,level:40,level:40"``) or
    three :class:`~mindsport.doudizhu.player.Bot` objects (landlord, farmer1, farmer2).

    Game i deals and plays from :func:`game_rng` ``(seed, i)``, so the records are the same for
    any ``jobs``. ``progress(n)`` is called with the number of games just finished. Games
    between built-in bots run whole on the compiled engine, others move by move through the
    referee (:func:`mindsport.games.many.play_many`); the games are the same either way.
    """
    lineup = _lineup(bots)
    chunk = max(1, min(200, games // (4 * max(1, jobs)) or 1))
    tasks = [(lineup, seed, list(r), scoring) for r in _chunks(games, chunk)]
    results: list[GameRecord] = []
    if jobs <= 1:
        for task in tasks:
            part = _run_chunk(task)
            results.extend(part)
            if progress is not None:
                progress(len(part))
        return results
    # fork shares the parent's compiled numba kernels; load them once before forking
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        from mindsport.doudizhu.compiled import ensure_compiled
        from mindsport.doudizhu.moves import move_table

        ensure_compiled()
        move_table()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(jobs) as pool:
        for part in pool.imap(_run_chunk, tasks):
            results.extend(part)
            if progress is not None:
                progress(len(part))
    return results
