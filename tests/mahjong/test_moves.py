"""Mahjong moves as the contract lists them, held to references that do not share the fast
path: each engine action's value computed one by one (``move_key``), and the games that main's
code (commit 6041970, before the contract's overhead was cut) played from fixed seeds."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from mindsport.games import get_game, make_bot
from mindsport.games.many import Seeding, Table, play_many
from mindsport.games.referee import play_state
from mindsport.mahjong import MahjongGame, MahjongState, Move, Walls
from mindsport.mahjong.state import legal_moves, move_key

# walls 1000 + i, generator Seeding.SPAWN (5, (i,)): (final points, plies, the first 16 hex
# digits of the SHA-256 of "seat:move text" joined by "|"), recorded with main's code
RECORDED = {
    ("random",) * 4: [
        ((25000, 25000, 25000, 25000), 728, "63c1f57b0a18c517"),
        ((25000, 25000, 25000, 25000), 714, "0e0f39955b78808f"),
        ((25000, 25000, 25000, 25000), 714, "ffb90cd94660bcbc"),
    ],
    ("level:100",) * 4: [
        ((25600, 29900, 9900, 34600), 299, "a79f73c9d3835f8f"),
        ((14000, 33900, 13900, 38200), 253, "054bb3176e30b959"),
        ((24700, 17300, 33800, 24200), 370, "d50193dc8294a3fe"),
    ],
    ("level:100", "level:60", "level:30", "level:0"): [
        ((76200, -2100, 22100, 3800), 268, "ee8db031e4c4ba38"),
        ((72700, 20200, 20200, -13100), 309, "03baaca1ed3aa283"),
        ((34200, 44300, 3200, 18300), 397, "86695bcb07677688"),
    ],
}


@pytest.mark.parametrize("specs", list(RECORDED))
def test_fixed_seeds_play_the_games_main_recorded(specs: tuple[str, ...]) -> None:
    game = get_game("mahjong-east")
    tables = [Table(Walls(1000 + i), specs, (i,)) for i in range(3)]
    records = play_many(game, tables, 5, records=True)
    for table, record, expected in zip(tables, records, RECORDED[specs], strict=True):
        points, plies, digest = expected
        bots = [make_bot(game, s) for s in specs]
        rng = Seeding.SPAWN.rng(5, table.key)
        result = play_state(game.new_initial_state(table.chance), bots, rng)
        text = "|".join(f"{seat}:{game.action_to_string(move)}" for seat, move in result.actions)
        assert (record.points, result.plies) == (points, plies)
        assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest


def _one_by_one(obs: object) -> tuple[list[object], list[Move]]:
    """The reference: every engine action's value from ``move_key``, the first action of each
    value kept, in the engine's order."""
    kept: list[object] = []
    moves: list[Move] = []
    for action in obs.legal_actions():  # type: ignore[attr-defined]
        move = Move(*move_key(action, obs.drawn_tile))  # type: ignore[attr-defined]
        if move not in moves:
            moves.append(move)
            kept.append(action)
    return kept, moves


def test_legal_moves_are_the_engine_actions_valued_one_by_one() -> None:
    rng = np.random.default_rng(17)
    kinds: set[str] = set()
    game = MahjongGame("east")
    bots = [make_bot(game, s) for s in ("level:100", "level:50", "random", "random")]
    for walls in (Walls(3), Walls(2**63 + 5), Walls(77)):
        state = game.new_initial_state(walls)
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            kept, moves = _one_by_one(obs.engine)
            legal = legal_moves(obs.engine)
            assert legal.moves == moves and state.legal_actions() == moves
            assert [a.to_dict() for a in legal.kept] == [a.to_dict() for a in kept]
            assert [a.to_dict() for a in obs.actions] == [a.to_dict() for a in kept]
            for move, action in zip(moves, kept, strict=True):
                assert legal.action_of(move).to_dict() == action.to_dict()
                assert legal.action_of(Move(*move)) is legal.action_of(move)  # equal is enough
            kinds.update(m.kind for m in moves)
            state.apply_action(bots[seat].act(obs, state.legal_actions(), rng))
    assert {"dahai", "pass", "reach", "pon", "chi"} <= kinds  # discards, claims, riichi seen
    assert legal_moves(MahjongState(3, 1).observation(0).engine).action_of("dahai 1m") is None
