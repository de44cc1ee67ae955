"""The compiled engine against the Python engine (the reference): RNG, moves, plans, games.

Everything here compares the numba kernels with independent Python code -- NumPy's own
generator, :func:`legal_moves`, :func:`can_beat`, :func:`moves_of_cards`, fastplan's planner and
:func:`play` with the Python bots -- on thousands of seeded hands and games.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mindsport.doudizhu import CCPC2016, CLASSIC, LINEAR, Deal, Kind, deal, legal_moves, play
from mindsport.doudizhu.bots import GreedyBot, LevelBot, StrongBot, make_bots
from mindsport.doudizhu.bots.fastplan import best_cost
from mindsport.doudizhu.compiled import (
    bot_codes,
    play_fast,
    simulate_fast,
    simulate_records,
    supported,
)
from mindsport.doudizhu.compiled.movegen import can_beat, legal, new_buffers, reading
from mindsport.doudizhu.compiled.planner import best
from mindsport.doudizhu.compiled.rng import bounded, next_double, permutation, state_array
from mindsport.doudizhu.game import GameRecord
from mindsport.doudizhu.moves import can_beat as py_can_beat
from mindsport.doudizhu.moves import moves_of_cards
from mindsport.doudizhu.simulate import game_rng, simulate
from mindsport.errors import MindsportError

KIND_CODE = {k: i for i, k in enumerate(Kind)}


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


def test_legal_moves_match_python_order_and_mains() -> None:
    rng = np.random.default_rng(1)
    mc, mk, mm, ms = new_buffers()

    def listed(n: int) -> list[tuple[int, tuple[int, ...], int]]:
        return [(int(mk[i]), tuple(int(x) for x in mc[i]), int(mm[i])) for i in range(n)]

    checked = 0
    for it in range(250):
        hands = deal(rng).counts()
        hand = hands[it % 3] if it % 4 == 0 else _sub_hand(rng, hands[it % 3])
        c = np.array(hand, np.int64)
        expected = [(KIND_CODE[m.kind], m.counts, m.main) for m in legal_moves(hand)]
        assert listed(legal(c, -1, -1, 0, mc, mk, mm, ms)) == expected
        whole = moves_of_cards(hand)
        for kind in Kind:
            mains = [m.main for m in whole if m.kind is kind]
            assert reading(c, KIND_CODE[kind], mc, mk, mm, ms) == (mains[0] if mains else -1)
        others = hands[(it + 1) % 3]
        unseen = tuple(a + b for a, b in zip(others, hands[(it + 2) % 3], strict=True))
        options = legal_moves(others)
        for j in rng.choice(len(options), size=min(10, len(options)), replace=False):
            p = options[j]
            code = KIND_CODE[p.kind]
            expected = [(KIND_CODE[m.kind], m.counts, m.main) for m in legal_moves(hand, p)]
            assert listed(legal(c, code, p.main, p.size, mc, mk, mm, ms)) == expected
            u = np.array(unseen, np.int64)
            assert can_beat(u, code, p.main, p.size) == py_can_beat(unseen, p)
            assert can_beat(c, code, p.main, p.size) == py_can_beat(hand, p)
            checked += 1
    assert checked > 2000


def test_planner_cost_is_bit_identical() -> None:
    rng = np.random.default_rng(5)
    for it in range(1000):
        hand = deal(rng).counts()[it % 3]
        sub = np.array(hand if it % 3 == 0 else _sub_hand(rng, hand), np.int64)
        c = sub.copy()
        assert best(c, 0) == best_cost(sub)
        assert (c == sub).all()


GAME_SETS = [
    ("strong", 1000),
    ("greedy", 400),
    ("random", 200),
    ("level:50,level:30,level:80", 500),
    ("strong,greedy,random", 300),
    ("level:0,level:100,level:1", 250),
]


@pytest.mark.parametrize(("bots", "games"), GAME_SETS)
def test_games_identical_to_python(bots: str, games: int) -> None:
    seed = 11
    records = simulate_records(range(games), bots, seed=seed, scoring=CCPC2016)
    players = make_bots(bots)
    for i, record in enumerate(records):
        rng = game_rng(seed, i)
        expected = play(deal(rng), players, scoring=CCPC2016, rng=rng)
        assert _full(record) == _full(expected), f"game {i} of {bots}: {expected.deal}"


def test_play_fast_mirrors_play_and_its_generator() -> None:
    players = [LevelBot(60), GreedyBot(), LevelBot(20)]
    for i in range(200):
        rng_a = game_rng(3, i)
        rng_b = game_rng(3, i)
        d = deal(rng_a)
        deal(rng_b)
        expected = play(d, players, scoring=CLASSIC, rng=rng_a)
        got = play_fast(d, players, scoring=CLASSIC, seed=rng_b)
        assert _full(got) == _full(expected)
        assert rng_a.bit_generator.state == rng_b.bit_generator.state
    deals = [deal(np.random.default_rng(k)) for k in range(50)]
    batch = play_fast(deals, "level:40,strong,random", seed=9)
    players = make_bots("level:40,strong,random")
    for i, (d, got) in enumerate(zip(deals, batch, strict=True)):
        assert _full(got) == _full(play(d, players, rng=game_rng(9, i)))
    the_deal = Deal.parse("[33334444555566667XD2][777888999TTTJJJQQ][89TJQQKKKKAAAA222]")
    assert _full(play_fast(the_deal, "strong", seed=0)) == _full(
        play(the_deal, make_bots("strong"), rng=game_rng(0, 0))
    )


def test_simulate_fast_matches_python_records() -> None:
    games = 200
    bots = "strong,level:50,level:50"
    for rule in (LINEAR, CCPC2016):
        res = simulate_fast(games, bots, scoring=rule, seed=21)
        ref = simulate(games, bots, seed=21, scoring=rule, engine="python")
        assert len(res) == games
        assert res.landlord_score.tolist() == [r.landlord_score for r in ref]
        assert res.bombs.tolist() == [r.bombs for r in ref]
        assert res.rockets.tolist() == [r.rockets for r in ref]
        assert res.spring.tolist() == [r.spring for r in ref]
        assert res.winner.tolist() == [r.winner for r in ref]
        assert res.turns.tolist() == [len(r.moves) for r in ref]
    part = simulate_fast(80, bots, scoring=LINEAR, seed=21, start=120)
    assert part.winner.tolist() == res.winner[120:].tolist()


def test_simulate_routes_to_compiled_with_identical_results() -> None:
    auto = simulate(120, "level:70,greedy,strong", seed=4, scoring=CLASSIC)
    python = simulate(120, "level:70,greedy,strong", seed=4, scoring=CLASSIC, engine="python")
    assert [_full(r) for r in auto] == [_full(r) for r in python]


class EchoBot:
    """A custom Python bot (not compiled): the greedy bot under another name."""

    name = "echo"

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        return GreedyBot().act(view, rng)


def test_custom_bots_stay_on_python() -> None:
    bots = [EchoBot(), StrongBot(), GreedyBot()]
    assert not supported(bots)
    assert bot_codes("strong,level:3,random") is not None
    records = simulate(30, bots, seed=2)
    assert [_full(r) for r in records] == [
        _full(r) for r in simulate(30, "greedy,strong,greedy", seed=2, engine="compiled")
    ]
    with pytest.raises(MindsportError):
        simulate(3, bots, engine="compiled")
    with pytest.raises(MindsportError):
        simulate_fast(3, bots)


def test_game_states_are_numpys_seedsequence_pcg64() -> None:
    from mindsport.doudizhu.compiled import game_states

    for seed in (0, 7, 2**32 - 1, 2**32, 12345678901234567890):
        indices = [*range(120), 2**33 + 1, 5, 0]
        states = game_states(seed, indices)
        for j, i in enumerate(indices):
            assert (states[j] == state_array(np.random.default_rng([seed, i]))).all()


def test_cli_simulate_same_logs_from_either_engine(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mindsport.doudizhu.cli import app

    texts = []
    for engine in ("auto", "python"):
        out = tmp_path / f"{engine}.jsonl"
        args = ["simulate", "--games", "25", "--bots", "strong,level:40,random"]
        args += ["--out", str(out), "--seed", "5", "--engine", engine]
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        texts.append(out.read_text())
    assert texts[0] == texts[1]
    assert len(texts[0].splitlines()) == 25


def test_records_split_over_small_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    import mindsport.doudizhu.compiled as compiled

    monkeypatch.setattr(compiled, "_REC_ROWS", 1100)  # room for ~one game per kernel call
    records = simulate_records(range(40), "random", seed=8)
    players = make_bots("random")
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
