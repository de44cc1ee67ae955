"""Every registered game through the contract alone: seeded random play to the end, checking
what the contract promises (legal actions applied, clones independent, returns summing as the
game's rules say, the end reached, forfeits ending the game against the forfeiter)."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.games import (
    TERMINAL,
    Game,
    IllegalMoveError,
    State,
    game_names,
    get_game,
    make_bot,
    play_game,
)
from mindsport.games.registry import GameNotFoundError


def _snapshot(state: State, players: int) -> tuple[object, ...]:
    """What can be seen of a state: the player to move, its actions, every observation."""
    return (
        state.current_player(),
        [state.action_to_string(a) for a in state.legal_actions()],
        [state.observation(p).to_json() for p in range(players)],
    )


def test_the_registry_lists_both_games() -> None:
    assert {"doudizhu", "junqi"} <= set(game_names())
    with pytest.raises(GameNotFoundError, match="unknown game 'chess'"):
        get_game("chess")


@pytest.mark.parametrize("name", game_names())
def test_seeded_random_play_keeps_the_contract(name: str) -> None:
    game = get_game(name)
    assert isinstance(game, Game)
    info = game.info
    assert info.name == name and info.players >= 2
    for seed in range(4):
        rng = np.random.default_rng([seed, 99])
        state = game.new_initial_state(game.sample_chance(rng))
        assert isinstance(state, State)
        turns = 0
        while not state.is_terminal():
            player = state.current_player()
            assert 0 <= player < info.players
            legal = list(state.legal_actions())
            assert legal, "a live state has a legal action"
            texts = [state.action_to_string(a) for a in legal]
            assert len(set(texts)) == len(texts), "actions are named uniquely"
            assert state.observation(player).player == player
            action = legal[int(rng.integers(len(legal)))]
            if turns % 7 == 0:  # a clone is independent of its original, both ways
                before = _snapshot(state, info.players)
                twin = state.clone()
                twin.apply_action(action)
                assert _snapshot(state, info.players) == before
                state.apply_action(action)
                assert _snapshot(state, info.players) == _snapshot(twin, info.players)
            else:
                state.apply_action(action)
            turns += 1
            assert turns < 5000, "the game ends"
        assert state.current_player() == TERMINAL
        assert list(state.legal_actions()) == []
        returns = list(state.returns())
        assert len(returns) == info.players
        if info.returns_sum is not None:
            assert sum(returns) == pytest.approx(info.returns_sum)
        with pytest.raises(IllegalMoveError):
            state.apply_action(action)


@pytest.mark.parametrize("name", game_names())
def test_a_forfeit_ends_the_game_against_the_forfeiter(name: str) -> None:
    game = get_game(name)
    rng = np.random.default_rng(5)
    state = game.new_initial_state(game.sample_chance(rng))
    state.apply_action(state.legal_actions()[0])
    loser = state.current_player()
    state.forfeit(loser)
    assert state.is_terminal()
    returns = list(state.returns())
    assert returns[loser] == min(returns) < max(returns)
    if game.info.returns_sum is not None:
        assert sum(returns) == pytest.approx(game.info.returns_sum)


@pytest.mark.parametrize("name", game_names())
def test_the_referee_plays_built_in_bots(name: str) -> None:
    game = get_game(name)
    bots = [make_bot(game, "random") for _ in range(game.info.players)]
    a = play_game(game, bots, np.random.default_rng(3))
    b = play_game(game, bots, np.random.default_rng(3))
    assert a.forfeit is None and a.plies > 0
    assert [game.action_to_string(x) for _, x in a.actions] == [
        game.action_to_string(x) for _, x in b.actions
    ]
    assert a.returns == b.returns
