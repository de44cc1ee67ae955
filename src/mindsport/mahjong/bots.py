"""Riichi mahjong bots of graded skill: ``random`` and ``level:N`` (N in 0..100).

Every bot decides from riichienv's observation and legal actions alone (:meth:`choose`), so
the same bot plays through the game contract (:meth:`act`, which the referee calls) and in the
engine's own loop (``env.step({seat: actions[bot.choose(obs, actions, rng)]})``), drawing the
same numbers from the generator either way.

``level:N`` is one knob over a hand-efficiency and defence heuristic; each part switches on at
a level and the share of careless discards falls with the level:

* it always wins when it can (tsumo, ron) -- level 0 alone is uniformly random;
* a discard is careless (a uniformly random legal discard) with probability
  ``1 - N/100``; otherwise it keeps the fewest shanten (riichienv's
  ``calculate_shanten``), ties to the tile of least use (honours and terminals first);
* N >= 20 declares riichi when it can;
* N >= 40 ranks discards of equal shanten by their ukeire: the unseen tiles that would bring
  the hand nearer to tenpai;
* N >= 50 calls pon on a dragon or its own seat or round wind (a hand with a yaku), and draws
  the hand on nine kinds of terminals and honours;
* N >= 60 defends: facing a riichi while it is not tenpai itself, it folds, discarding the
  safest tile it holds: the riichi player's own discards (genbutsu), then honours by how many
  are visible, then suji (the tiles three steps from a discard of the riichi player), terminals
  before middle tiles.

Other calls, kans and the nine-terminal draw below N 50 are passed on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindsport.errors import MindsportError
from mindsport.mahjong.state import MahjongObservation, legal_moves
from mindsport.mahjong.tiles import KINDS, RED_FIVES, is_honour, is_terminal_or_honour

__all__ = ["LevelBot", "RandomBot", "make_bot"]

# riichienv's action kinds (int(action.action_type))
DISCARD, CHI, PON, DAIMINKAN, RON, RIICHI, TSUMO, PASS, ANKAN, KAKAN, NINE_KINDS = range(11)

MAX_LEVEL = 100
_RIICHI_LEVEL = 20
_UKEIRE_LEVEL = 40
_CALL_LEVEL = 50
_DEFENCE_LEVEL = 60


class RandomBot:
    """A uniformly random legal action."""

    name = "random"

    def choose(self, obs: Any, actions: Sequence[Any], rng: np.random.Generator) -> int:
        """The index of the action to play among riichienv's ``actions``."""
        return int(rng.integers(len(actions)))

    def act(
        self,
        observation: MahjongObservation,
        legal_actions: Sequence[Any],
        rng: np.random.Generator,
    ) -> Any:
        return legal_actions[self.choose(observation.engine, legal_actions, rng)]

    def __repr__(self) -> str:
        return "RandomBot()"


def _neighbours(kind: int) -> range | tuple[int]:
    """Kinds a draw of which may join a tile of ``kind`` (itself, and +-2 in its suit)."""
    if is_honour(kind):
        return (kind,)
    base = kind - kind % 9
    return range(max(base, kind - 2), min(base + 8, kind + 2) + 1)


def _visible(obs: Any) -> list[int]:
    """How many tiles of each kind the seat can see: its hand, every river, every meld, the
    dora indicators."""
    seen = [0] * KINDS
    for tile in obs.hand:
        seen[tile >> 2] += 1
    for river in obs.discards:
        for tile in river:
            seen[tile >> 2] += 1
    for melds in obs.melds:
        for meld in melds:
            for tile in meld.tiles:
                seen[tile >> 2] += 1
    for tile in obs.dora_indicators:
        seen[tile >> 2] += 1
    return seen


class LevelBot:
    """The graded heuristic bot ``level:N`` (see the module note)."""

    def __init__(self, level: int) -> None:
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
            raise MindsportError(f"a mahjong bot level is an integer 0..100, got {level!r}")
        self.level = level
        self.name = f"level:{level}"
        self._careless = 1.0 - level / MAX_LEVEL

    def __repr__(self) -> str:
        return f"LevelBot({self.level})"

    def act(
        self,
        observation: MahjongObservation,
        legal_actions: Sequence[Any],
        rng: np.random.Generator,
    ) -> Any:
        actions = observation.actions
        if len(actions) != len(legal_actions):  # not the state's own list: the moves' actions
            played = legal_moves(observation.engine)
            actions = [played.action_of(m) for m in legal_actions]
        return legal_actions[self.choose(observation.engine, actions, rng)]

    # -- the decision -----------------------------------------------------------------------
    def choose(self, obs: Any, actions: Sequence[Any], rng: np.random.Generator) -> int:
        """The index of the action to play among riichienv's ``actions``."""
        if self.level == 0:
            return int(rng.integers(len(actions)))
        kinds = [int(a.action_type) for a in actions]
        for wanted in (TSUMO, RON):
            if wanted in kinds:
                return kinds.index(wanted)
        if self.level >= _CALL_LEVEL and NINE_KINDS in kinds:
            return kinds.index(NINE_KINDS)
        if self.level >= _RIICHI_LEVEL and RIICHI in kinds:
            return kinds.index(RIICHI)
        discards = [i for i, k in enumerate(kinds) if k == DISCARD]
        if not discards:
            return self._respond(obs, actions, kinds)
        if len(discards) == 1:
            return discards[0]
        if rng.random() < self._careless:
            return discards[int(rng.integers(len(discards)))]
        return self._discard(obs, actions, discards)

    def _respond(self, obs: Any, actions: Sequence[Any], kinds: list[int]) -> int:
        """A call or a pass (no discard is among the actions)."""
        if self.level >= _CALL_LEVEL and not any(obs.riichi_declared):
            seat = int(obs.player_id)
            wind = 27 + (seat - int(obs.oya)) % 4
            valued = {31, 32, 33, wind, 27 + int(obs.round_wind)}
            for i, kind in enumerate(kinds):
                if kind == PON and (int(actions[i].tile) >> 2) in valued:
                    return i
        if PASS in kinds:
            return kinds.index(PASS)
        return 0  # no pass offered (cannot happen in riichienv): the first action

    def _discard(self, obs: Any, actions: Sequence[Any], discards: list[int]) -> int:
        from riichienv import calculate_shanten

        hand = list(obs.hand)
        # one candidate per kind, a plain tile before a red five
        by_kind: dict[int, int] = {}
        for i in discards:
            tile = int(actions[i].tile)
            kind = tile >> 2
            if kind not in by_kind or int(actions[by_kind[kind]].tile) in RED_FIVES:
                by_kind[kind] = i
        shanten: dict[int, int] = {}
        rest: dict[int, list[int]] = {}
        for kind, i in by_kind.items():
            tile = int(actions[i].tile)
            left = list(hand)
            left.remove(tile)
            rest[kind] = left
            shanten[kind] = calculate_shanten(left)
        if self.level >= _DEFENCE_LEVEL:
            folded = self._fold(obs, by_kind, min(shanten.values()))
            if folded is not None:
                return folded
        best = min(shanten.values())
        candidates = [k for k in by_kind if shanten[k] == best]
        if len(candidates) > 1 and self.level >= _UKEIRE_LEVEL:
            seen = _visible(obs)
            uke = {k: self._ukeire(rest[k], best, seen) for k in candidates}
            top = max(uke.values())
            candidates = [k for k in candidates if uke[k] == top]
        # ties: the tile of least use first (honours, terminals, then the edges of a suit)
        return by_kind[min(candidates, key=_usefulness)]

    @staticmethod
    def _ukeire(left: list[int], shanten: int, seen: list[int]) -> int:
        """Unseen tiles whose draw lowers the shanten of the 13 tiles ``left``."""
        from riichienv import calculate_shanten

        kinds = {n for t in left for n in _neighbours(t >> 2)}
        total = 0
        for kind in kinds:
            unseen = 4 - seen[kind]
            if unseen > 0 and calculate_shanten([*left, 4 * kind + 1]) < shanten:
                total += unseen
        return total

    def _fold(self, obs: Any, by_kind: dict[int, int], shanten: int) -> int | None:
        """The safest discard against the riichi players, when folding is called for."""
        seat = int(obs.player_id)
        threats = [p for p, r in enumerate(obs.riichi_declared) if r and p != seat]
        if not threats or shanten <= 0:
            return None
        seen = _visible(obs)
        rivers = [{t >> 2 for t in obs.discards[p]} for p in threats]

        def danger(kind: int) -> float:
            total = 0.0
            for river in rivers:
                if kind in river:
                    continue  # genbutsu
                if is_honour(kind):
                    total += 1.0 + (4 - seen[kind])  # honours: safer the more are visible
                    continue
                rank = kind % 9
                suji = (rank >= 3 and kind - 3 in river) or (rank <= 5 and kind + 3 in river)
                total += (3.0 if suji else 8.0) + (0.0 if rank in (0, 8) else 2.0)
            return total

        return by_kind[min(by_kind, key=lambda k: (danger(k), _usefulness(k)))]


def _usefulness(kind: int) -> tuple[int, int]:
    """A discard order among equal choices: honours, then terminals, then by distance from the
    suit's middle (edges first), then the kind's number."""
    if is_honour(kind):
        return (0, kind)
    if is_terminal_or_honour(kind):
        return (1, kind)
    return (2 + (4 - abs(kind % 9 - 4)), kind)


def make_bot(spec: str) -> RandomBot | LevelBot:
    """The game's bot factory (the registry names it ``"mindsport.mahjong.bots:make_bot"``):
    ``random`` or ``level:N`` with N in 0..100. External programs (``cmd:COMMAND``) are made by
    :func:`mindsport.games.make_bot`."""
    text = spec.strip().lower()
    if text == "random":
        return RandomBot()
    name, colon, value = text.partition(":")
    if name == "level" and colon:
        try:
            level = int(value)
        except ValueError:
            level = -1
        if 0 <= level <= MAX_LEVEL:
            return LevelBot(level)
    raise MindsportError(
        f"unknown mahjong bot {spec!r}: use random, level:N with N in 0..100, or cmd:COMMAND"
    )
