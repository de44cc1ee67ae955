"""Many games to the end, checking invariants after every move."""

from __future__ import annotations

import numpy as np

from mindsport.junqi import (
    BeliefMethod,
    EnemyTracker,
    IllegalMoveError,
    PieceKind,
    State,
    collide,
    make_bot,
)
from mindsport.junqi.board import CAMPS, HEADQUARTERS
from mindsport.junqi.state import decode_action, encode_action


def check_state(state: State, pinned: dict[int, int]) -> None:
    board = state.board
    for post, pid in enumerate(board):
        if pid >= 0:
            assert state.post_of(pid) == post
    for player in (0, 1):
        alive = state.alive(player)
        assert len(alive) <= 25
        assert sum(1 for pid in alive if state.kind_of(pid) is PieceKind.FLAG) <= 1
        for pid in alive:
            kind = state.kind_of(pid)
            if not kind.movable:
                assert state.post_of(pid) == pid, "mines and flags never move"
            if pid in pinned:
                assert state.post_of(pid) == pinned[pid], "pieces in a headquarters never move"
            if state.post_of(pid) in HEADQUARTERS:
                pinned[pid] = state.post_of(pid)


def test_random_games_keep_invariants() -> None:
    rng = np.random.default_rng(2024)
    outcomes = {"flag": 0, "stuck": 0, "draw": 0}
    for game in range(30):
        state = State.new_game(rng)
        names = ["random", "greedy", "belief"]
        pair = (names[game % 3], names[(game // 3) % 3]) if game < 12 else ("random", "random")
        bots = [make_bot(pair[0]), make_bot(pair[1])]
        trackers = [
            EnemyTracker(p, m) for p in (0, 1) for m in (BeliefMethod.FITTED, BeliefMethod.PATENT)
        ]
        pinned: dict[int, int] = {}
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            assert legal == sorted(set(legal))
            # a move not in the list is refused without changing anything
            for bad in (encode_action(0, 0), encode_action(30, 59)):
                if bad not in legal:
                    snapshot = state.board
                    try:
                        state.clone().apply_action(bad)
                    except IllegalMoveError:
                        pass
                    else:
                        raise AssertionError(f"illegal {bad} accepted")
                    assert state.board == snapshot
            obs = state.observation(player)
            assert obs.legal_actions == tuple(legal)
            action = bots[player].act(obs, legal, rng)
            assert action in legal
            src, dst = decode_action(action)
            mover, defender = state.piece_at(src), state.piece_at(dst)
            assert dst not in CAMPS or defender < 0
            state.apply_action(action)
            event = state.events[-1]
            if defender >= 0:
                assert event.outcome is collide(state.kind_of(mover), state.kind_of(defender))
            else:
                assert event.outcome is None
            check_state(state, pinned)
            o0, o1 = state.observation(0), state.observation(1)
            assert o0.events == o1.events
            for tr in trackers:
                tr.update(o0 if tr.player == 0 else o1)
        assert sum(state.returns()) == 0
        for tr in trackers:
            p = tr.probabilities
            truth = [int(state.kind_of(pid)) for pid in tr.ids]
            assert np.all(p[np.arange(25), truth] > 0), (tr.method, game)
            if tr.method is BeliefMethod.FITTED:
                np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-6)
        if state.winner is None:
            outcomes["draw"] += 1
        elif "flag" in state.reason:
            outcomes["flag"] += 1
        else:
            outcomes["stuck"] += 1
    assert outcomes["flag"] > 0 and outcomes["draw"] > 0
