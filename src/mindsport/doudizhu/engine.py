"""The Dou Dizhu engine seen from Python: many games at once on the compiled game loop
(:mod:`.compiled.engine`), the batch path of :func:`~.game.play`, of :func:`~.game.simulate`
and of :func:`mindsport.games.many.play_many` (through
:meth:`~.game.DouDizhuGame.play_batch`).

Random-stream convention: a game owns one NumPy ``PCG64`` generator; game ``i`` of a run seeded
``s`` uses ``np.random.default_rng([s, i])`` (:func:`game_states`), a game named by a key in a
tournament ``np.random.default_rng(SeedSequence(s, spawn_key=key))`` (:func:`keyed_states`);
both are computed inside the engine, bit for bit as NumPy would. The deal (when the engine
deals) draws ``permutation(54)`` from it, then the bots draw on it; the engine carries NumPy's
PCG64 bit for bit, so a game played here and the same game played move by move through
:func:`~mindsport.doudizhu.game.play` are the same.

Only bots with an ``engine_code`` (:class:`~mindsport.doudizhu.player.EngineBot`: ``random``,
``greedy``, ``strong``, ``level:N``) play here; :func:`bot_codes` says whether a line-up can.
Line-ups are bot objects or spec strings of those four bots
(:func:`~mindsport.doudizhu.player.engine_code`); the engine builds no bot.

>>> from mindsport.doudizhu.engine import simulate_fast
>>> res = simulate_fast(20, "strong,greedy,greedy", seed=3)
>>> res.landlord_score.shape, bool(set(res.winner.tolist()) <= {0, 1, 2})
((20,), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, overload

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.kinds import Kind
from mindsport.doudizhu.moves import Move, move_table
from mindsport.doudizhu.player import Bot, EngineBot, engine_code
from mindsport.doudizhu.record import GameRecord
from mindsport.doudizhu.scoring import LINEAR, NO_DOUBLES, Outcome, ScoringRule
from mindsport.errors import MindsportError
from mindsport.games.many import Seeding
from mindsport.games.specs import split_specs

if TYPE_CHECKING:
    from mindsport.doudizhu.compiled.engine import Played

__all__ = [
    "FastResults",
    "Recorded",
    "bot_codes",
    "deal_counts",
    "game_states",
    "keyed_states",
    "lineup_codes",
    "play_fast",
    "play_one",
    "play_records",
    "play_rows",
    "play_tables",
    "result_scores",
    "seeded_states",
    "simulate_fast",
    "simulate_records",
    "supported",
]

_KINDS = tuple(Kind)
_BATCH = 2048
_REC_ROWS = 200_000

Bots = str | Sequence[Bot]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class FastResults:
    """Per-game outcomes of :func:`simulate_fast` (arrays of length ``n_games``)."""

    landlord_score: FloatArray  # under the scoring rule
    bombs: IntArray
    rockets: IntArray
    spring: npt.NDArray[np.bool_]
    winner: IntArray  # seat that went out first (0 = landlord)
    turns: IntArray  # actions played, passes included

    def __len__(self) -> int:
        return int(self.winner.shape[0])


def _code(bot: str | Bot) -> tuple[int, int] | None:
    if isinstance(bot, str):
        return engine_code(bot)
    return bot.engine_code if isinstance(bot, EngineBot) else None


def bot_codes(bots: Bots) -> tuple[IntArray, IntArray] | None:
    """Kernel codes and levels of three bots (objects, or a spec list: one spec or three),
    or None when one has no engine code."""
    players: list[str | Bot] = [*split_specs(bots)] if isinstance(bots, str) else [*bots]
    if isinstance(bots, str) and len(players) == 1:
        players = players * 3
    if len(players) != 3:
        raise MindsportError(f"a game needs 3 players, got {len(players)}")
    codes = np.zeros(3, np.int64)
    levels = np.zeros(3, np.int64)
    for seat, bot in enumerate(players):
        found = _code(bot)
        if found is None:
            return None
        codes[seat], levels[seat] = found
    return codes, levels


def supported(bots: Bots) -> bool:
    """True when all three bots have engine codes."""
    return bot_codes(bots) is not None


def _codes(bots: Bots) -> tuple[IntArray, IntArray]:
    found = bot_codes(bots)
    if found is None:
        raise MindsportError(
            "the compiled engine plays only random, greedy, strong and level:N bots; "
            "use mindsport.doudizhu.play for other bots"
        )
    return found


def game_states(seed: int, indices: Sequence[int] | range | np.ndarray) -> np.ndarray:
    """PCG64 state arrays (G x 6) of the games ``indices`` of a run seeded ``seed``: the states
    of ``np.random.default_rng([seed, i])``, computed in the engine (SeedSequence and all)."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.rng import int_words, seed_games

    ensure_compiled()
    words = int_words(int(seed))
    idx = [int(i) for i in indices]
    out = np.zeros((len(idx), 6), np.uint64)
    if not idx:
        return out
    if idx == list(range(idx[0], idx[0] + len(idx))) and idx[0] >= 0:
        seed_games(words, idx[0], out)
        return out
    for j, i in enumerate(idx):
        if i < 0:
            raise MindsportError(f"game indices must be non-negative, got {i}")
        seed_games(words, i, out[j : j + 1])
    return out


def keyed_states(seed: int, keys: npt.ArrayLike) -> np.ndarray:
    """PCG64 state arrays (G x 6) of ``np.random.default_rng(SeedSequence(seed, spawn_key=k))``
    for each row ``k`` of ``keys`` (G x K integers in 0 .. 2**32 - 1): the generators of
    :func:`mindsport.tournament.executors.task_rng`, computed in the engine."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.rng import seed_keys, spawn_entropy

    ensure_compiled()
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise MindsportError(f"seed must be a non-negative integer, got {seed!r}")
    try:
        words, lengths = spawn_entropy(int(seed), np.asarray(keys, dtype=np.int64))
    except ValueError as exc:
        raise MindsportError(f"bad game keys: {exc}") from None
    out = np.zeros((words.shape[0], 6), np.uint64)
    seed_keys(words, lengths, out)
    return out


def deal_counts(deals: Sequence[Deal]) -> IntArray:
    """The deals as a (G x 3 x 15) count array (the engine's input)."""
    if not deals:
        return np.zeros((0, 3, 15), np.int64)
    return np.array([d.counts() for d in deals], dtype=np.int64)


def result_scores(
    results: IntArray,
    scoring: ScoringRule,
    call: int = 1,
    doubles: tuple[int, int] = NO_DOUBLES,
) -> FloatArray:
    """Scores of the three seats (G x 3) of the engine's ``results`` (G x 8, see
    :class:`Recorded`) via ``scoring.scores``, once per distinct outcome."""
    keys = np.stack(
        [(results[:, 0] == 0).astype(np.int64), results[:, 1], results[:, 2], results[:, 3]],
        axis=1,
    )
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    values = np.array(
        [
            scoring.scores(
                Outcome(
                    landlord_won=bool(w),
                    bombs=int(b),
                    rockets=int(r),
                    spring=bool(s),
                    call=call,
                    doubles=doubles,
                )
            )
            for w, b, r, s in uniq
        ],
        dtype=np.float64,
    ).reshape(-1, 3)
    return values[inverse.reshape(-1)]


def lineup_codes(lineups: Sequence[Sequence[str | Bot]]) -> tuple[IntArray, IntArray] | None:
    """Kernel codes and levels (G x 3) of line-ups of bots (objects or specs); None when a bot
    has no engine code (an external program, the tracking bot)."""
    codes = np.zeros((len(lineups), 3), np.int64)
    levels = np.zeros((len(lineups), 3), np.int64)
    for g, lineup in enumerate(lineups):
        if len(lineup) != 3:
            raise MindsportError(f"a game needs 3 players, got {len(lineup)}: {list(lineup)}")
        for seat, bot in enumerate(lineup):
            found = _code(bot)
            if found is None:
                return None
            codes[g, seat], levels[g, seat] = found
    return codes, levels


def seeded_states(seed: int, keys: Sequence[Sequence[int]], seeding: Seeding) -> np.ndarray:
    """PCG64 state arrays (G x 6) of the generators ``seeding.rng(seed, keys[g])``
    (:class:`~mindsport.games.many.Seeding`), computed in the engine: :func:`keyed_states`
    for spawn keys, :func:`game_states` for ``default_rng([seed, i])`` (keys ``(i,)``)."""
    n = len(keys)
    if seeding is Seeding.ENTROPY:
        if any(len(k) != 1 for k in keys):
            raise MindsportError("the engine seeds default_rng([seed, i]) from keys (i,) only")
        return game_states(seed, [int(k[0]) for k in keys])
    states = np.zeros((n, 6), np.uint64)
    by_length: dict[int, list[int]] = {}
    for g, key in enumerate(keys):
        by_length.setdefault(len(key), []).append(g)
    for rows in by_length.values():
        states[rows] = keyed_states(seed, np.array([keys[g] for g in rows], dtype=np.int64))
    return states


def _unique_counts(deals: Sequence[Deal]) -> IntArray:
    """:func:`deal_counts` of ``deals``, each distinct deal object counted once."""
    index: dict[int, int] = {}
    unique: list[Deal] = []
    where = np.empty(len(deals), np.int64)
    for g, d in enumerate(deals):
        i = index.get(id(d))
        if i is None:
            i = index[id(d)] = len(unique)
            unique.append(d)
        where[g] = i
    return deal_counts(unique)[where]


def play_tables(
    deals: Sequence[Deal] | None,
    codes: IntArray,
    levels: IntArray,
    states: np.ndarray,
    scoring: ScoringRule = LINEAR,
) -> FloatArray:
    """Returns (G x 3) of games ``g``: ``deals[g]`` (None: each game deals from its state first)
    played by the bots ``codes[g]`` / ``levels[g]`` from the generator state ``states[g]``
    (:func:`seeded_states`). The engine at full speed: no records."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.engine import Games, deck, run_games

    ensure_compiled()
    n = states.shape[0]
    if (deals is not None and len(deals) != n) or codes.shape != (n, 3) or levels.shape != (n, 3):
        raise MindsportError(f"{n} games need {n} deals and (n, 3) codes and levels")
    counts = _NO_DEALS if deals is None else _unique_counts(deals)
    games = Games(
        np.ascontiguousarray(states),
        counts,
        np.ascontiguousarray(codes, dtype=np.int64),
        np.ascontiguousarray(levels, dtype=np.int64),
        deck(),
    )
    played = _results_only(n)
    run_games(games, played)
    return result_scores(played.results, scoring)


_NO_DEALS = np.zeros((0, 3, 15), np.int64)


def _results_only(n: int) -> Played:
    """Outputs of :func:`run_games` for ``n`` games that keep the results only."""
    from mindsport.doudizhu.compiled.engine import REC_WIDTH, Played

    return Played(
        results=np.zeros((n, 8), np.int64),
        deals=_NO_DEALS,
        rec=np.zeros((0, REC_WIDTH), np.int64),
        rec_count=np.zeros(1, np.int64),
        game_turns=np.zeros(0, np.int64),
    )


def simulate_fast(
    n_games: int,
    bots: Bots,
    scoring: ScoringRule = LINEAR,
    seed: int = 0,
    start: int = 0,
) -> FastResults:
    """Play games ``start .. start + n_games - 1`` of the run seeded ``seed`` (game i deals and
    plays from ``default_rng([seed, i])``, as :func:`mindsport.doudizhu.game.simulate`
    does) and return the outcomes as arrays; one core, no records."""
    from mindsport.doudizhu.compiled.engine import Games, deck, run_games

    code, level = _codes(bots)
    played = _results_only(n_games)
    results = played.results
    for lo in range(0, n_games, _BATCH):
        hi = min(n_games, lo + _BATCH)
        states = game_states(seed, range(start + lo, start + hi))
        codes, levels = _lineup(code, level, hi - lo)
        run_games(
            Games(states, _NO_DEALS, codes, levels, deck()), played._replace(results=results[lo:hi])
        )
    return FastResults(
        landlord_score=result_scores(results, scoring)[:, 0],
        bombs=results[:, 1].copy(),
        rockets=results[:, 2].copy(),
        spring=results[:, 3].astype(bool),
        winner=results[:, 0].copy(),
        turns=results[:, 7].copy(),
    )


def _lineup(code: IntArray, level: IntArray, n: int) -> tuple[IntArray, IntArray]:
    """One line-up's codes and levels for ``n`` games (n x 3)."""
    return np.repeat(code[None, :], n, axis=0), np.repeat(level[None, :], n, axis=0)


class Recorded(NamedTuple):
    """Games played with every turn kept, as arrays (:func:`play_rows`)."""

    #: G x 3 x 15: each game's deal (counts)
    deals: IntArray
    #: the turns of every game, one row each: seat, kind (-1: pass), main rank, 15 counts
    rows: IntArray
    #: G + 1: game ``g``'s turns are ``rows[starts[g] : starts[g + 1]]``
    starts: IntArray
    #: G x 8: winner seat, bombs, rockets, spring, plays of seats 0, 1, 2, turns
    results: IntArray


def play_rows(
    states: np.ndarray, deals: Sequence[Deal] | None, codes: IntArray, levels: IntArray
) -> Recorded:
    """Games ``g``: ``deals[g]`` (None: dealt from the state) played by the bots ``codes[g]``
    / ``levels[g]`` (G x 3) from the generator state ``states[g]``, every turn kept as a row
    (no Python object per move: :func:`play_records` builds the records from these)."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.engine import (
        MAX_TURNS,
        REC_WIDTH,
        Games,
        Played,
        deck,
        run_games,
    )

    ensure_compiled()
    n = states.shape[0]
    given = deal_counts(deals) if deals is not None else _NO_DEALS
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    levels = np.ascontiguousarray(levels, dtype=np.int64)
    out_deals = np.zeros((n, 3, 15), np.int64)
    results = np.zeros((n, 8), np.int64)
    # room for ~100 turns a game; a game starts only when MAX_TURNS rows are left
    rec = np.zeros((min(_REC_ROWS, MAX_TURNS + 100 * n), REC_WIDTH), np.int64)
    game_turns = np.zeros(n, np.int64)
    chunks: list[IntArray] = []
    done = 0
    while done < n:
        count = np.zeros(1, np.int64)
        sub_deals = given[done:] if deals is not None else given
        played = run_games(
            Games(states[done:], sub_deals, codes[done:], levels[done:], deck()),
            Played(results[done:], out_deals[done:], rec, count, game_turns[done:]),
        )
        chunks.append(rec[: int(count[0])].copy())
        done += played
    starts = np.zeros(n + 1, np.int64)
    np.cumsum(game_turns, out=starts[1:])
    rows = np.concatenate(chunks) if chunks else np.zeros((0, REC_WIDTH), np.int64)
    return Recorded(out_deals, rows, starts, results)


def play_records(
    states: np.ndarray,
    deals: Sequence[Deal] | None,
    codes: IntArray,
    levels: IntArray,
    scoring: ScoringRule = LINEAR,
    *,
    call: int = 1,
    doubles: tuple[int, int] = NO_DOUBLES,
) -> list[GameRecord]:
    """Full records of games ``g``: ``deals[g]`` (None: dealt from the state) played by the
    bots ``codes[g]`` / ``levels[g]`` (G x 3) from the generator state ``states[g]``."""
    played = play_rows(states, deals, codes, levels)
    rows, starts = played.rows, played.starts
    table = move_table()
    records: list[GameRecord] = []
    for g, res in enumerate(played.results):
        history: list[tuple[int, Move | None]] = []
        for k in range(int(starts[g]), int(starts[g + 1])):
            kind = int(rows[k, 1])
            move = None if kind < 0 else table.find(_KINDS[kind], rows[k, 3:].tolist())
            history.append((int(rows[k, 0]), move))
        the_deal = deals[g] if deals is not None else Deal._trusted(played.deals[g].tolist())
        outcome = Outcome(
            landlord_won=bool(res[0] == 0),
            bombs=int(res[1]),
            rockets=int(res[2]),
            spring=bool(res[3]),
            call=call,
            doubles=doubles,
        )
        records.append(
            GameRecord(
                deal=the_deal,
                moves=tuple(history),
                winner=int(res[0]),
                bombs=int(res[1]),
                rockets=int(res[2]),
                spring=bool(res[3]),
                scores=scoring.scores(outcome),
                scoring=scoring.name,
                call=call,
                doubles=doubles,
            )
        )
    return records


def simulate_records(
    indices: Sequence[int] | range, bots: Bots, seed: int = 0, scoring: ScoringRule = LINEAR
) -> list[GameRecord]:
    """Full records of games ``indices`` of the run seeded ``seed`` (deal and play from
    ``default_rng([seed, i])``): what :func:`mindsport.doudizhu.game.simulate` returns."""
    code, level = _codes(bots)
    states = game_states(seed, indices)
    return play_records(states, None, *_lineup(code, level, len(states)), scoring)


def play_one(
    deal: Deal,
    bots: Bots,
    scoring: ScoringRule,
    rng: np.random.Generator,
    call: int = 1,
    doubles: tuple[int, int] = NO_DOUBLES,
) -> GameRecord:
    """One deal played by the engine with the bots drawing on ``rng``, which is advanced
    exactly as :func:`~mindsport.doudizhu.game.play` advances it."""
    from mindsport.doudizhu.compiled.rng import state_array, store_state

    code, level = _codes(bots)
    states = state_array(rng)[None, :].copy()
    codes, levels = _lineup(code, level, 1)
    record = play_records(states, [deal], codes, levels, scoring, call=call, doubles=doubles)[0]
    store_state(rng, states[0])
    return record


@overload
def play_fast(
    deal_or_batch: Deal,
    bot_specs: Bots,
    scoring: ScoringRule = ...,
    seed: int | np.random.Generator = ...,
) -> GameRecord: ...


@overload
def play_fast(
    deal_or_batch: Sequence[Deal],
    bot_specs: Bots,
    scoring: ScoringRule = ...,
    seed: int | np.random.Generator = ...,
) -> list[GameRecord]: ...


def play_fast(
    deal_or_batch: Deal | Sequence[Deal],
    bot_specs: Bots,
    scoring: ScoringRule = LINEAR,
    seed: int | np.random.Generator = 0,
) -> GameRecord | list[GameRecord]:
    """Play given deals with the compiled engine and return full :class:`GameRecord` s.

    * One deal and a ``np.random.Generator`` (PCG64): the game ``play(deal, bots, scoring,
      rng)`` gives, and the generator is advanced exactly as ``play`` would advance it.
    * An int ``seed``: deal ``i`` of the batch (a single deal is deal 0) is played with the
      bots drawing on ``default_rng([seed, i])`` (nothing is drawn for the deal itself).
    """
    if isinstance(deal_or_batch, Deal):
        if isinstance(seed, np.random.Generator):
            return play_one(deal_or_batch, bot_specs, scoring, seed)
        code, level = _codes(bot_specs)
        codes, levels = _lineup(code, level, 1)
        return play_records(game_states(seed, [0]), [deal_or_batch], codes, levels, scoring)[0]
    if isinstance(seed, np.random.Generator):
        raise MindsportError("pass an int seed to play a batch of deals")
    deals = list(deal_or_batch)
    code, level = _codes(bot_specs)
    codes, levels = _lineup(code, level, len(deals))
    return play_records(game_states(seed, range(len(deals))), deals, codes, levels, scoring)
