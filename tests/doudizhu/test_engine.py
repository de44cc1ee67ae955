"""The compiled engine against independent references: NumPy's generator and SeedSequence, the
plain-Python move generator of ``reference_moves`` (same moves, same order, same main ranks),
the plain-Python split of ``reference_plan``; and the two game loops (the engine's and the
referee's, move by move) against each other on seeded games."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from reference_moves import reference_legal, reference_reading
from reference_plan import base_plan

from mindsport.doudizhu import CCPC2016, CLASSIC, LINEAR, Deal, Kind, deal, legal_moves, play
from mindsport.doudizhu.bots import GreedyBot, LevelBot, StrongBot, make_bots
from mindsport.doudizhu.cards import DECK_COUNTS
from mindsport.doudizhu.compiled.movegen import legal, new_buffers
from mindsport.doudizhu.compiled.planner import plan_groups
from mindsport.doudizhu.compiled.rng import bounded, next_double, permutation, state_array
from mindsport.doudizhu.engine import (
    bot_codes,
    game_states,
    keyed_states,
    play_fast,
    simulate_fast,
    simulate_records,
    supported,
)
from mindsport.doudizhu.game import game_rng, simulate
from mindsport.doudizhu.moves import can_beat, move_table, moves_of_cards
from mindsport.doudizhu.record import GameRecord
from mindsport.errors import MindsportError


def _sub_hand(rng: np.random.Generator, hand: tuple[int, ...]) -> tuple[int, ...]:
    cards = [r for r, n in enumerate(hand) for _ in range(n)]
    keep = rng.choice(len(cards), size=int(rng.integers(1, len(cards) + 1)), replace=False)
    sub = [0] * 15
    for k in keep:
        sub[cards[k]] += 1
    return tuple(sub)


def _full(record: GameRecord) -> tuple[object, ...]:
    """Everything in a record, main ranks included (Move equality ignores them)."""
    moves = tuple(
        (s, None if m is None else (m.kind, m.cards, m.main, m.counts)) for s, m in record.moves
    )
    return (record, moves)


def _triples(moves: list) -> list[tuple[Kind, tuple[int, ...], int]]:  # type: ignore[type-arg]
    return [(m.kind, m.counts, m.main) for m in moves]


def test_pcg64_matches_numpy() -> None:
    for seed in range(300):
        g = np.random.default_rng([seed, 5])
        st = state_array(g)
        assert (permutation(st, 54) == g.permutation(54)).all()
        for k in range(40):
            n = (seed * 7 + k * 13) % 300 + 1
            if k % 3 == 0:
                assert next_double(st) == g.random()
            else:
                assert bounded(st, n) == g.integers(n)
        assert (state_array(g) == st).all()


def test_game_states_are_numpys_seedsequence_pcg64() -> None:
    for seed in (0, 7, 2**32 - 1, 2**32, 12345678901234567890):
        indices = [*range(120), 2**33 + 1, 5, 0]
        states = game_states(seed, indices)
        for j, i in enumerate(indices):
            assert (states[j] == state_array(np.random.default_rng([seed, i]))).all()


def test_keyed_states_are_numpys_spawned_generators() -> None:
    keys = np.array([[0, 0, 0, 0], [1, 2, 3, 4], [7, 0, 2**32 - 1, 9]])
    for seed in (0, 5, 2**40 + 3):
        states = keyed_states(seed, keys)
        for j, key in enumerate(keys.tolist()):
            ref = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(key)))
            assert (states[j] == state_array(ref)).all()
    short = keyed_states(3, np.array([[4]]))
    assert (
        short[0] == state_array(np.random.default_rng(np.random.SeedSequence(3, spawn_key=(4,))))
    ).all()
    with pytest.raises(MindsportError, match="keys"):
        keyed_states(1, np.array([[-1]]))


def test_legal_moves_match_the_reference_generator() -> None:
    rng = np.random.default_rng(1)
    checked = 0
    for it in range(250):
        hands = deal(rng).counts()
        hand = hands[it % 3] if it % 4 == 0 else _sub_hand(rng, hands[it % 3])
        assert _triples(legal_moves(hand)) == reference_legal(hand)
        whole = moves_of_cards(hand)
        for kind in Kind:
            mains = [m.main for m in whole if m.kind is kind]
            assert (mains[0] if mains else None) == reference_reading(hand, kind)
        others = hands[(it + 1) % 3]
        unseen = tuple(a + b for a, b in zip(others, hands[(it + 2) % 3], strict=True))
        options = legal_moves(others)
        for j in rng.choice(len(options), size=min(10, len(options)), replace=False):
            p = options[j]
            expected = reference_legal(hand, (p.kind, p.counts, p.main))
            assert _triples(legal_moves(hand, p)) == expected
            assert can_beat(hand, p) == bool(expected)
            assert can_beat(unseen, p) == bool(reference_legal(unseen, (p.kind, p.counts, p.main)))
            checked += 1
    assert checked > 2000


def test_the_move_table_is_every_move_of_the_deck() -> None:
    table = move_table()
    deck = tuple(DECK_COUNTS)
    reference = {(k, c): m for k, c, m in reference_legal(deck)}
    assert len(table) == len(reference) == 27854
    assert {(m.kind, m.counts): m.main for m in table.moves} == reference
    assert list(table.keys) == sorted(table.keys)  # the engine's keys, sorted, each once


def test_planner_split_matches_the_reference_split() -> None:
    rng = np.random.default_rng(5)
    gk, gm, gs = (np.zeros(24, np.int64) for _ in range(3))
    gc = np.zeros((24, 15), np.int64)
    for it in range(400):
        hand = deal(rng).counts()[it % 3]
        sub = list(hand if it % 3 == 0 else _sub_hand(rng, hand))
        for r in range(12):  # no chain (5 singles, 3 pairs): the base split
            if r % 3 == 2:  # a gap every third rank
                sub[r] = 0
        n = plan_groups(np.array(sub, np.int64), gk, gm, gs, gc)
        got = [(Kind(list(Kind)[int(gk[i])]), int(gm[i]), tuple(gc[i].tolist())) for i in range(n)]
        assert got == list(base_plan(tuple(sub)).groups), sub


@dataclass(frozen=True)
class MoveByMove:
    """Wraps a bot so that the referee asks it move by move (no engine code: no whole-game
    path), to compare the referee's loop with the engine's on the same games."""

    inner: object

    @property
    def name(self) -> str:
        return f"move-by-move {self.inner.name}"  # type: ignore[attr-defined]

    def act(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return self.inner.act(view, legal, rng)  # type: ignore[attr-defined]


GAME_SETS = [
    ("strong", 60),
    ("greedy", 40),
    ("random", 30),
    ("level:50,level:30,level:80", 60),
    ("strong,greedy,random", 30),
    ("level:0,level:100,level:1", 30),
]


@pytest.mark.parametrize(("bots", "games"), GAME_SETS)
def test_the_referee_and_the_engine_play_the_same_games(bots: str, games: int) -> None:
    seed = 11
    records = simulate_records(range(games), bots, seed=seed, scoring=CCPC2016)
    players = [MoveByMove(b) for b in make_bots(bots)]
    for i, record in enumerate(records):
        rng = game_rng(seed, i)
        expected = play(deal(rng), players, scoring=CCPC2016, rng=rng)
        assert _full(record) == _full(expected), f"game {i} of {bots}: {expected.deal}"


def test_play_fast_mirrors_play_and_its_generator() -> None:
    players = [LevelBot(60), GreedyBot(), LevelBot(20)]
    slow = [MoveByMove(p) for p in players]
    for i in range(40):
        rng_a = game_rng(3, i)
        rng_b = game_rng(3, i)
        d = deal(rng_a)
        deal(rng_b)
        expected = play(d, slow, scoring=CLASSIC, rng=rng_a)
        got = play_fast(d, players, scoring=CLASSIC, seed=rng_b)
        assert _full(got) == _full(expected)
        assert rng_a.bit_generator.state == rng_b.bit_generator.state
    deals = [deal(np.random.default_rng(k)) for k in range(20)]
    batch = play_fast(deals, "level:40,strong,random", seed=9)
    slow = [MoveByMove(b) for b in make_bots("level:40,strong,random")]
    for i, (d, got) in enumerate(zip(deals, batch, strict=True)):
        assert _full(got) == _full(play(d, slow, rng=game_rng(9, i)))
    with pytest.raises(MindsportError, match="int seed"):
        play_fast(deals, "strong", seed=np.random.default_rng(0))


def test_simulate_fast_matches_the_records() -> None:
    games = 200
    bots = "strong,level:50,level:50"
    for rule in (LINEAR, CCPC2016):
        res = simulate_fast(games, bots, scoring=rule, seed=21)
        ref = simulate(games, bots, seed=21, scoring=rule)
        assert len(res) == games
        assert res.landlord_score.tolist() == [r.landlord_score for r in ref]
        assert res.bombs.tolist() == [r.bombs for r in ref]
        assert res.rockets.tolist() == [r.rockets for r in ref]
        assert res.spring.tolist() == [r.spring for r in ref]
        assert res.winner.tolist() == [r.winner for r in ref]
        assert res.turns.tolist() == [len(r.moves) for r in ref]
    part = simulate_fast(80, bots, scoring=LINEAR, seed=21, start=120)
    assert part.winner.tolist() == res.winner[120:].tolist()


def test_custom_bots_play_move_by_move() -> None:
    bots = [MoveByMove(GreedyBot()), StrongBot(), GreedyBot()]
    assert not supported(bots)
    assert bot_codes("strong,level:3,random") is not None
    records = simulate(20, bots, seed=2)
    assert [_full(r) for r in records] == [
        _full(r) for r in simulate(20, "greedy,strong,greedy", seed=2)
    ]
    with pytest.raises(MindsportError):
        simulate_fast(3, bots)


def test_records_split_over_small_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    import mindsport.doudizhu.engine as engine

    monkeypatch.setattr(engine, "_REC_ROWS", 1100)  # room for ~one game per kernel call
    records = simulate_records(range(20), "random", seed=8)
    players = [MoveByMove(b) for b in make_bots("random")]
    for i, record in enumerate(records):
        rng = game_rng(8, i)
        assert _full(record) == _full(play(deal(rng), players, rng=rng))


def test_move_buffer_overflow_raises_instead_of_writing_past_it() -> None:
    hand = np.array(
        Deal.parse("[33334444555566667XD2][777888999TTTJJJQQ][89TJQQKKKKAAAA222]").counts()[0],
        np.int64,
    )
    small = (np.zeros((3, 15), np.int64), *(np.zeros(3, np.int64) for _ in range(3)))
    with pytest.raises(ValueError, match="overflow"):
        legal(hand, -1, -1, 0, *small)
    assert legal(hand, -1, -1, 0, *new_buffers()) == len(legal_moves(hand))
