"""Setup rules, move generation on hand-built positions, the checked path, game end."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.junqi import (
    IllegalMoveError,
    Outcome,
    PieceKind,
    Rules,
    Setup,
    SetupError,
    State,
    parse_post,
    post_name,
    random_setup,
)
from mindsport.junqi.state import TERMINAL, decode_action, encode_action

K = PieceKind
GOOD = [
    "32121",  # front row: no bomb
    "7+6+4",
    "31+82",
    "B+5+7",
    "9MBM6",
    "MF435",  # flag in a headquarters (b1 / b12)
]


def test_setup_roundtrip_and_rules() -> None:
    setup = Setup.from_rows(GOOD)
    assert setup.rows() == GOOD
    bad = {
        "flag must be in a headquarters": ["32121", "7+6+4", "31+82", "B+5+7", "9MBM6", "FM435"],
        "no bomb in the front row": ["B2121", "7+6+4", "31+82", "3+5+7", "9MBM6", "MF435"],
        "mines only in the last two rows": ["32121", "7+6+4", "31+82", "M+5+7", "9BBM6", "MF435"],
        "3 REGIMENT .*need 2": ["32121", "7+6+4", "31+82", "B+5+7", "9MBM6", "MF455"],
        "is a camp": ["32121", "7464+", "31+82", "B+5+7", "9MBM6", "MF435"],
    }
    for message, rows in bad.items():
        with pytest.raises(SetupError, match=message):
            Setup.from_rows(rows)


def test_random_setups_are_legal() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        random_setup(rng)  # validated on construction


def position(pieces: dict[str, tuple[int, K]], to_move: int = 0, **rules: int) -> State:
    base = {"b1": (0, K.FLAG), "b12": (1, K.FLAG), "a12": (1, K.MINE)}
    base.update(pieces)
    return State.from_position({parse_post(k): v for k, v in base.items()}, to_move, Rules(**rules))


def targets(state: State, src: str) -> set[str]:
    s = parse_post(src)
    return {
        post_name(decode_action(a)[1]) for a in state.legal_actions() if decode_action(a)[0] == s
    }


def test_railway_straight_runs_and_engineer_turns() -> None:
    state = position({"a6": (0, K.REGIMENT), "e7": (1, K.COMPANY)})
    rail_straight = {"a7", "a8", "a9", "a10", "a11", "a5", "a4", "a3", "a2", "b6", "c6", "d6", "e6"}
    assert targets(state, "a6") == rail_straight | {"b5"}
    eng = position({"a6": (0, K.ENGINEER), "e7": (1, K.COMPANY)})
    # the whole railway network (32 posts) but its own post, with e7 an attack; plus camp b5
    assert len(targets(eng, "a6")) == 31 + 1
    assert "e7" in targets(eng, "a6") and "e7" not in targets(state, "a6")


def test_blocking_camps_and_headquarters() -> None:
    state = position(
        {
            "a6": (0, K.REGIMENT),
            "a4": (0, K.PLATOON),  # own piece blocks the run down column a
            "a8": (1, K.COMPANY),  # first enemy met going up: attack, no further
            "b5": (1, K.ENGINEER),  # enemy in a camp: cannot be attacked
            "d1": (0, K.GENERAL),  # in a headquarters: never moves
            "b2": (0, K.MINE),
        }
    )
    t = targets(state, "a6")
    assert "a5" in t and "a4" not in t and "a3" not in t
    assert "a8" in t and "a9" not in t and "a7" in t
    assert "b5" not in t
    assert targets(state, "d1") == set() and targets(state, "b2") == set()


def test_illegal_move_names_move_and_position() -> None:
    state = position({"a6": (0, K.REGIMENT), "d1": (0, K.GENERAL), "e7": (1, K.COMPANY)})
    with pytest.raises(IllegalMoveError, match=r"d1-d2 .*headquarters d1"):
        state.apply_action(state.string_to_action("d1-d2"))
    with pytest.raises(IllegalMoveError, match=r"a6-b4 .*cannot be reached"):
        state.apply_action(state.string_to_action("a6-b4"))
    with pytest.raises(IllegalMoveError, match="not in 0"):
        state.apply_action(99999)
    with pytest.raises(IllegalMoveError, match="'zz'"):
        state.string_to_action("zz")


def test_collision_announced_and_commander_reveals_flag() -> None:
    state = position({"a6": (0, K.DIVISION), "a7": (1, K.COMMANDER), "c12": (1, K.PLATOON)})
    state.apply_action(state.string_to_action("a6-a7"))
    event = state.events[-1]
    assert event.outcome is Outcome.DEFENDER_WINS
    assert state.post_of(parse_post("a6")) == -1
    # P0's division died; no flag shown. Now the commander attacks a bomb.
    state2 = position(
        {"a6": (0, K.BOMB), "a7": (1, K.COMMANDER), "c12": (1, K.PLATOON), "c1": (0, K.PLATOON)}
    )
    state2.apply_action(state2.string_to_action("a6-a7"))
    assert state2.events[-1].outcome is Outcome.BOTH_REMOVED
    assert state2.events[-1].revealed_flags == ((1, parse_post("b12")),)
    assert state2.observation(0).enemy_flag == parse_post("b12")
    assert state2.observation(1).enemy_flag is None


def test_flag_capture_wins() -> None:
    state = position({"b11": (0, K.ENGINEER), "c12": (1, K.PLATOON)})
    state.apply_action(state.string_to_action("b11-b12"))
    assert state.is_terminal() and state.winner == 0 and state.returns() == (1.0, -1.0)
    assert state.current_player() == TERMINAL and state.legal_actions() == []


def test_no_movable_piece_loses() -> None:
    # player 1 only has a mine and the flag after its platoon dies
    state = position({"c11": (0, K.GENERAL), "c12": (1, K.PLATOON)})
    state.apply_action(state.string_to_action("c11-c12"))
    assert state.is_terminal() and state.winner == 0 and "no movable piece" in state.reason


def test_no_capture_draw_is_a_setting() -> None:
    state = position({"c3": (0, K.GENERAL), "c10": (1, K.PLATOON)}, no_capture_limit=4)
    for move in ["c3-c2", "c10-c11", "c2-c3", "c11-c10"]:
        assert not state.is_terminal()
        state.apply_action(state.string_to_action(move))
    assert state.is_terminal() and state.winner is None and state.returns() == (0.0, 0.0)


def test_clone_is_independent() -> None:
    state = State.new_game(np.random.default_rng(1))
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert state.ply == 0 and copy.ply == 1
    assert encode_action(*decode_action(123)) == 123


def test_observation_hides_enemy_kinds() -> None:
    state = State.new_game(np.random.default_rng(2))
    obs = state.observation(0)
    assert len(obs.own) == 25 and len(obs.enemy) == 25
    assert all(isinstance(post, int) for post in obs.enemy.values())
    assert set(obs.own_kinds) == set(obs.own)
    assert not set(obs.enemy) & set(obs.own_kinds)
