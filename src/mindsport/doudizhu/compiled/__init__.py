"""Compiled Dou Dizhu: move generation, the built-in bots and the game loop in numba.

The compiled path plays exactly the games of the Python path: for the same deal and the same
generator, every move, the record and the scores are identical (the tests check thousands of
seeded games against :func:`mindsport.doudizhu.game.play`). Random-stream convention: a game
owns one NumPy ``PCG64`` generator (game ``i`` of a run seeded ``s`` uses
:func:`~mindsport.doudizhu.simulate.game_rng` ``(s, i)``); the deal draws ``permutation(54)``
from it, then the bots draw on it exactly like the Python bots (see
:mod:`mindsport.doudizhu.compiled.bots`). The kernels carry NumPy's PCG64 bit for bit.

Supported bots: :class:`RandomBot`, :class:`GreedyBot`, :class:`StrongBot` and
:class:`LevelBot` (exactly these classes, or their spec strings ``random``, ``greedy``,
``strong``, ``level:N``). Anything else -- a custom :class:`~mindsport.doudizhu.bots.Bot` --
needs the Python engine (:func:`supported` says which).

>>> from mindsport.doudizhu.compiled import simulate_fast
>>> res = simulate_fast(20, "strong,greedy,greedy", seed=3)
>>> res.landlord_score.shape, bool(set(res.winner.tolist()) <= {0, 1, 2})
((20,), True)

Numba compiles (or loads its cache) on the first call, never at import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from mindsport.doudizhu.bots import make_bots
from mindsport.doudizhu.bots.base import Bot
from mindsport.doudizhu.bots.graded import LevelBot
from mindsport.doudizhu.bots.simple import GreedyBot, RandomBot
from mindsport.doudizhu.bots.strong import StrongBot
from mindsport.doudizhu.cards import format_counts
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.game import GameRecord
from mindsport.doudizhu.moves import Kind, Move
from mindsport.doudizhu.scoring import LINEAR, Outcome, ScoringRule
from mindsport.errors import MindsportError

__all__ = [
    "FastResults",
    "bot_codes",
    "game_states",
    "play_fast",
    "simulate_fast",
    "simulate_records",
    "supported",
]

_KINDS = list(Kind)
_BATCH = 2048
_REC_ROWS = 200_000

Bots = str | Sequence[Bot]


@dataclass(frozen=True, slots=True)
class FastResults:
    """Per-game outcomes of :func:`simulate_fast` (arrays of length ``n_games``)."""

    landlord_score: np.ndarray  # float64, under the scoring rule
    bombs: np.ndarray  # int64
    rockets: np.ndarray  # int64
    spring: np.ndarray  # bool
    winner: np.ndarray  # int64 seat that went out first (0 = landlord)
    turns: np.ndarray  # int64 actions played, passes included

    def __len__(self) -> int:
        return int(self.winner.shape[0])


def _as_bots(bots: Bots) -> list[Bot]:
    return make_bots(bots) if isinstance(bots, str) else list(bots)


def bot_codes(bots: Bots) -> tuple[np.ndarray, np.ndarray] | None:
    """Kernel codes and levels of three bots, or None when one has no compiled version."""
    players = _as_bots(bots)
    if len(players) != 3:
        raise MindsportError(f"a game needs 3 players, got {len(players)}")
    codes = np.zeros(3, np.int64)
    levels = np.zeros(3, np.int64)
    for seat, bot in enumerate(players):
        kind = type(bot)
        if kind is RandomBot:
            codes[seat] = 0
        elif kind is GreedyBot:
            codes[seat] = 1
        elif kind is StrongBot:
            codes[seat] = 2
        elif kind is LevelBot:
            codes[seat] = 3
            levels[seat] = bot.level  # type: ignore[attr-defined]
        else:
            return None
    return codes, levels


def supported(bots: Bots) -> bool:
    """True when all three bots have compiled versions."""
    return bot_codes(bots) is not None


def game_states(seed: int, indices: Sequence[int] | np.ndarray) -> np.ndarray:
    """PCG64 state arrays (G x 6) of the games ``indices`` of a run seeded ``seed``: the states
    of ``np.random.default_rng([seed, i])``, computed in numba (SeedSequence and all)."""
    from mindsport.doudizhu.compiled.rng import int_words, seed_games

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


def _codes(bots: Bots) -> tuple[np.ndarray, np.ndarray]:
    found = bot_codes(bots)
    if found is None:
        raise MindsportError(
            "the compiled engine plays only random, greedy, strong and level:N bots; "
            "use mindsport.doudizhu.play for custom bots"
        )
    return found


def _scores(results: np.ndarray, scoring: ScoringRule) -> np.ndarray:
    """Landlord scores via ``scoring.scores`` (called once per distinct outcome)."""
    keys = np.stack(
        [(results[:, 0] == 0).astype(np.int64), results[:, 1], results[:, 2], results[:, 3]],
        axis=1,
    )
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    values = np.array(
        [
            scoring.scores(
                Outcome(landlord_won=bool(w), bombs=int(b), rockets=int(r), spring=bool(s))
            )[0]
            for w, b, r, s in uniq
        ],
        dtype=np.float64,
    )
    return values[inverse.reshape(-1)]


def simulate_fast(
    n_games: int,
    bots: Bots,
    scoring: ScoringRule = LINEAR,
    seed: int = 0,
    start: int = 0,
) -> FastResults:
    """Play games ``start .. start + n_games - 1`` of the run seeded ``seed`` (game i deals and
    plays from ``game_rng(seed, i)``, as :func:`mindsport.doudizhu.simulate.simulate` does) and
    return the outcomes as arrays. Same games as the Python path, one core, no records."""
    from mindsport.doudizhu.compiled.engine import deck, run_games

    codes, levels = _codes(bots)
    results = np.zeros((n_games, 8), np.int64)
    empty3 = np.zeros((0, 3, 15), np.int64)
    empty_rec = np.zeros((0, 18), np.int64)
    count = np.zeros(1, np.int64)
    turns = np.zeros(0, np.int64)
    for lo in range(0, n_games, _BATCH):
        hi = min(n_games, lo + _BATCH)
        states = game_states(seed, range(start + lo, start + hi))
        run_games(
            states, empty3, codes, levels, deck(), empty3, results[lo:hi], empty_rec, count, turns
        )
    return FastResults(
        landlord_score=_scores(results, scoring),
        bombs=results[:, 1].copy(),
        rockets=results[:, 2].copy(),
        spring=results[:, 3].astype(bool),
        winner=results[:, 0].copy(),
        turns=results[:, 7].copy(),
    )


class _Moves:
    """Move objects of recorded turns, built once per distinct move."""

    def __init__(self) -> None:
        self._cache: dict[bytes, Move] = {}

    def get(self, row: np.ndarray) -> Move | None:
        kind = int(row[1])
        if kind < 0:
            return None
        key = row[1:].tobytes()
        move = self._cache.get(key)
        if move is None:
            counts = tuple(int(x) for x in row[3:])
            move = Move(_KINDS[kind], format_counts(counts), int(row[2]), counts)
            self._cache[key] = move
        return move


def _records(
    states: np.ndarray,
    deals: list[Deal] | None,
    codes: np.ndarray,
    levels: np.ndarray,
    scoring: ScoringRule,
) -> list[GameRecord]:
    from mindsport.doudizhu.compiled.engine import MAX_TURNS, REC_WIDTH, deck, run_games

    n = states.shape[0]
    given = (
        np.array([d.counts() for d in deals], dtype=np.int64)
        if deals is not None
        else np.zeros((0, 3, 15), np.int64)
    )
    out_deals = np.zeros((n, 3, 15), np.int64)
    results = np.zeros((n, 8), np.int64)
    # room for ~100 turns a game; a game starts only when MAX_TURNS rows are left
    rec = np.zeros((min(_REC_ROWS, MAX_TURNS + 100 * n), REC_WIDTH), np.int64)
    game_turns = np.zeros(n, np.int64)
    moves = _Moves()
    records: list[GameRecord] = []
    done = 0
    while done < n:
        count = np.zeros(1, np.int64)
        sub_deals = given[done:] if deals is not None else given
        played = run_games(
            states[done:],
            sub_deals,
            codes,
            levels,
            deck(),
            out_deals[done:],
            results[done:],
            rec,
            count,
            game_turns[done:],
        )
        row = 0
        for g in range(done, done + played):
            t = int(game_turns[g])
            history = tuple((int(rec[k, 0]), moves.get(rec[k])) for k in range(row, row + t))
            row += t
            res = results[g]
            the_deal = deals[g] if deals is not None else Deal._trusted(out_deals[g].tolist())
            outcome = Outcome(
                landlord_won=bool(res[0] == 0),
                bombs=int(res[1]),
                rockets=int(res[2]),
                spring=bool(res[3]),
            )
            records.append(
                GameRecord(
                    deal=the_deal,
                    moves=history,
                    winner=int(res[0]),
                    bombs=int(res[1]),
                    rockets=int(res[2]),
                    spring=bool(res[3]),
                    scores=scoring.scores(outcome),
                    scoring=scoring.name,
                )
            )
        done += played
    return records


def simulate_records(
    indices: Sequence[int] | range, bots: Bots, seed: int = 0, scoring: ScoringRule = LINEAR
) -> list[GameRecord]:
    """Full records of games ``indices`` of the run seeded ``seed`` (deal and play from
    ``game_rng(seed, i)``): the records :func:`mindsport.doudizhu.simulate.simulate` returns."""
    codes, levels = _codes(bots)
    return _records(game_states(seed, indices), None, codes, levels, scoring)


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

    * One deal and a ``np.random.Generator`` (PCG64): the same game as
      ``play(deal, bots, scoring, rng)``, and the generator is advanced exactly as ``play``
      would advance it.
    * An int ``seed``: deal ``i`` of the batch (a single deal is deal 0) is played with the
      bots drawing on ``game_rng(seed, i)`` (nothing is drawn for the deal itself).
    """
    from mindsport.doudizhu.compiled.rng import state_array

    codes, levels = _codes(bot_specs)
    single = isinstance(deal_or_batch, Deal)
    deals = [deal_or_batch] if isinstance(deal_or_batch, Deal) else list(deal_or_batch)
    if isinstance(seed, np.random.Generator):
        if not single:
            raise MindsportError("pass an int seed to play a batch of deals")
        states = state_array(seed)[None, :].copy()
        records = _records(states, deals, codes, levels, scoring)
        seed.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(states[0, 0]) << 64) | int(states[0, 1]),
                "inc": (int(states[0, 2]) << 64) | int(states[0, 3]),
            },
            "has_uint32": int(states[0, 4]),
            "uinteger": int(states[0, 5]),
        }
    else:
        records = _records(game_states(seed, range(len(deals))), deals, codes, levels, scoring)
    return records[0] if single else records
