"""A riichi mahjong game in progress, in the game contract, on riichienv's engine.

The rules are riichienv's (:class:`riichienv.RiichiEnv`, Tenhou's rule set
``GameRule.default_tenhou()``): this module only turns its gym-style loop into the contract's
one-player-at-a-time loop. After a discard several seats may be asked at once (to call or to
win); the contract asks them one after the other, in seat order, each seeing only its own
observation (no seat learns what another answered), and the engine receives their answers
together, as in its own loop.

A legal action is a :class:`Move`, a value (kind, tile, tiles taken from the hand, whether a
discard is the tile just drawn); the engine's actions that differ only in which copy of a tile
they use are one move, which the state plays as the first of them the engine lists.

The game ends when the engine ends it (the scheduled last hand, a player below zero points)
or at a forfeit (:meth:`MahjongState.forfeit`): the forfeiting seat pays a penalty as for a
mangan tsumo (12,000 as dealer, else 8,000: 4,000 from the dealer and 2,000 each from the
others), as the mjai.app league scores a bot error, and is placed last.

Riichi deposits left on the table when the game ends stay there, as the engine leaves them
(:attr:`MahjongState.riichi_sticks`): the seats' points plus 1,000 per deposit always make the
four starting 25,000.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from mindsport.errors import MindsportError
from mindsport.games.contract import TERMINAL, IllegalMoveError
from mindsport.mahjong.tiles import KINDS, RED_FIVES, kind_name, tile_name

__all__ = [
    "ACTION_NAMES",
    "PLACEMENT_RETURNS",
    "SCORES",
    "START_POINTS",
    "LegalMoves",
    "MahjongObservation",
    "MahjongState",
    "Move",
    "legal_moves",
    "move_key",
    "placements",
]

#: Points each seat starts with.
START_POINTS = 25_000
#: How returns are scored: ``points`` (final points minus 25,000, in thousands) or
#: ``placement`` (+1.5, +0.5, -0.5, -1.5 for first to fourth).
SCORES = ("points", "placement")
#: The returns of first to fourth place under ``placement``.
PLACEMENT_RETURNS = (1.5, 0.5, -0.5, -1.5)
#: Names of riichienv's action kinds (``int(action.action_type)``), as the text of a move says.
ACTION_NAMES = (
    "dahai",
    "chi",
    "pon",
    "daiminkan",
    "ron",
    "reach",
    "tsumo",
    "pass",
    "ankan",
    "kakan",
    "ryukyoku",
    "kita",
)
# the forfeit penalty (mjai.app's for a bot error): (dealer forfeits, other forfeits)
_PENALTY_DEALER = 12_000
_PENALTY_OTHER = 8_000

#: a move's value: (kind, tile code or -1, the codes of the tiles taken, sorted, tsumogiri);
#: a tile's code is 2 * its kind, plus 1 for a red five (copies of a tile are the same move)
Key = tuple[int, int, tuple[int, ...], bool]
_CODE = tuple(2 * (t >> 2) + (t in RED_FIVES) for t in range(136))
_NO_TILE_KINDS = (4, 5, 6, 7, 10)  # ron, reach, tsumo, pass, the nine-kinds draw


def _code_name(code: int) -> str:
    return kind_name(code >> 1) + ("r" if code & 1 else "")


def move_key(action: Any, drawn: int | None) -> Key:
    """The value of riichienv's ``action`` (``drawn``: the tile just drawn, which a discard
    of it throws away unseen: tsumogiri)."""
    kind = int(action.action_type)
    tile = action.tile
    if kind == 0:
        return (0, _CODE[tile], (), tile == drawn)
    code = -1 if tile is None or kind in _NO_TILE_KINDS else _CODE[tile]
    return (kind, code, tuple(sorted(_CODE[t] for t in action.consume_tiles)), False)


class Move(NamedTuple):
    """One legal action as a value (its :data:`Key`): riichienv's action kind
    (``action_type``, see :data:`ACTION_NAMES`), the tile's code (-1: none), the codes of the
    tiles taken from the hand, sorted, and whether a discard is the tile just drawn. Copies of
    one tile make one move (the engine lists a discard of each copy); the state plays a move
    as the first engine action of that value it lists."""

    action_type: int
    tile: int
    taken: tuple[int, ...]
    tsumogiri: bool

    @property
    def key(self) -> Key:
        """The move's value as a plain tuple."""
        return (self[0], self[1], self[2], self[3])

    @property
    def kind(self) -> str:
        """The action's mjai-style name (``dahai``, ``chi``, ``reach``, ``pass``, ...)."""
        return ACTION_NAMES[self[0]]

    def text(self) -> str:
        """``kind [tile] [tiles taken] [tsumogiri]`` in mjai tile names: ``dahai 5mr``,
        ``dahai 3p tsumogiri``, ``chi 8m 7m 9m``, ``reach``, ``pass``."""
        kind, tile, consumed, tsumogiri = self
        parts = [ACTION_NAMES[kind]]
        if tile >= 0:
            parts.append(_code_name(tile))
        parts.extend(_code_name(t) for t in consumed)
        if tsumogiri:
            parts.append("tsumogiri")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Move({self.text()!r})"


class LegalMoves(NamedTuple):
    """A seat's legal actions now (:func:`legal_moves`): the moves, and the engine action that
    plays each (``kept``, in the same order)."""

    kept: list[Any]
    moves: list[Move]

    def action_of(self, move: object) -> Any:
        """The engine action of ``move`` (or of a value equal to it); None if it is not legal."""
        try:
            return self.kept[self.moves.index(move)]  # type: ignore[arg-type]
        except ValueError:
            return None


_NO_LEGAL = LegalMoves([], [])
_new_legal = tuple.__new__
# a discard's slot: twice the thrown tile's code, plus 1 when it is the tile just drawn
_SLOTS = tuple(2 * _CODE[t] for t in range(136))
# the slot of a discard of a kind without a red five that is not the tile just drawn (-1: the
# fives, whose slot depends on the tile)
_PLAIN_SLOTS = tuple(-1 if 4 * k in RED_FIVES else 4 * k for k in range(KINDS))
# the move of each slot (moves are values: every state lists these same objects)
_DISCARDS: tuple[Move, ...] = tuple(Move(0, s >> 1, (), bool(s & 1)) for s in range(4 * KINDS))


def legal_moves(obs: Any) -> LegalMoves:
    """The legal moves of riichienv's observation ``obs``: the engine's actions in its order,
    the first of the actions of one value standing for them all."""
    drawn = obs.drawn_tile
    drawn_kind = -1 if drawn is None else drawn >> 2
    kept: list[Any] = []
    moves: list[Move] = []
    seen: set[int | Move] = set()
    for action in obs.legal_actions():
        # riichienv's action id (encode()): below 34 a discard of that kind; each call on an
        # engine action costs, so the tile is read only where it tells the move (a five may be
        # red, the drawn kind may be the drawn tile)
        kind = action.encode()
        if kind < 34:
            slot = _PLAIN_SLOTS[kind]
            if slot < 0 or kind == drawn_kind:
                tile = action.tile
                slot = _SLOTS[tile] + (tile == drawn)
            if slot in seen:
                continue
            seen.add(slot)
            moves.append(_DISCARDS[slot])
        else:
            move = Move(*move_key(action, drawn))
            if move in seen:
                continue
            seen.add(move)
            moves.append(move)
        kept.append(action)
    return _new_legal(LegalMoves, (kept, moves))  # tuple.__new__: no Python frame


class MahjongObservation:
    """What seat ``player`` sees when it decides: riichienv's observation (``engine``: its
    hand, the rivers, melds, scores, and ``events``, the mjai events new to this seat since its
    previous decision) and the engine's legal actions (``actions``, in the order of the
    state's ``legal_actions()``; empty when the seat is not to move)."""

    __slots__ = ("_earlier", "actions", "engine", "player")

    def __init__(
        self, player: int, engine: Any, actions: Sequence[Any], earlier: Sequence[Any] = ()
    ) -> None:
        self.player = player
        self.engine = engine
        self.actions = actions
        self._earlier = earlier

    def events(self) -> list[dict[str, Any]]:
        """The mjai events new to this seat since its previous decision, oldest first."""
        return [
            e if isinstance(e, dict) else json.loads(e)
            for e in (*self._earlier, *self.engine.events)
        ]

    def to_json(self) -> dict[str, Any]:
        """The seat's view as JSON (tiles in mjai names): ``seat``, ``hand``, per seat its
        ``melds`` (``type``, ``tiles``, ``from``), ``discards``, and ``riichi_declared``,
        ``scores``; ``dora_indicators``, ``round_wind`` (0 east), ``oya`` (the dealer),
        ``honba``, ``riichi_sticks``; ``events``, the mjai events new to the seat."""
        view = self.engine.to_dict()
        return {
            "seat": self.player,
            "hand": [tile_name(t) for t in view["hands"][self.player]],
            "melds": [
                [
                    {
                        "type": str(m.meld_type).rpartition(".")[2].lower(),
                        "tiles": [tile_name(t) for t in m.tiles],
                        "from": int(m.from_who),
                    }
                    for m in melds
                ]
                for melds in view["melds"]
            ],
            "discards": [[tile_name(t) for t in river] for river in view["discards"]],
            "riichi_declared": list(view["riichi_declared"]),
            "scores": list(view["scores"]),
            "dora_indicators": [tile_name(t) for t in view["dora_indicators"]],
            "round_wind": int(view["round_wind"]),
            "oya": int(view["oya"]),
            "honba": int(view["honba"]),
            "riichi_sticks": int(view["riichi_sticks"]),
            "events": self.events(),
        }


def placements(points: Sequence[int], last: int | None = None) -> tuple[int, ...]:
    """Places 1..4 by points, ties to the seat nearer the first dealer (seat 0), as Tenhou
    ranks; ``last`` (a forfeiting seat) is placed fourth whatever its points."""
    order = sorted(range(len(points)), key=lambda s: (s == last, -points[s], s))
    places = [0] * len(points)
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    return tuple(places)


class MahjongState:
    """A game from its walls' ``seed`` (riichienv's game mode ``mode``: 1 east-only, 2
    east-south), its returns scored as ``score`` (see :data:`SCORES`)."""

    def __init__(self, seed: int, mode: int, score: str = "points") -> None:
        from riichienv import GameRule, RiichiEnv

        if score not in SCORES:
            raise MindsportError(f"unknown score {score!r}; use one of {', '.join(SCORES)}")
        self.seed = int(seed)
        self.mode = mode
        self.score = score
        self._env = RiichiEnv(game_mode=mode, seed=self.seed, rule=GameRule.default_tenhou())
        self._obs: dict[int, Any] = self._env.reset()
        self._waiting: list[int] = sorted(self._obs)
        self._chosen: dict[int, Any] = {}
        self._legal: LegalMoves | None = None
        self._forfeited: int | None = None
        self._final: tuple[int, ...] | None = None
        # events the engine handed out for a seat's observation between its decisions
        self._unseen: list[list[Any]] = [[], [], [], []]

    # -- the contract ---------------------------------------------------------------------
    def current_player(self) -> int:
        waiting = self._waiting  # empty once the game is over (finished or forfeited)
        return waiting[0] if waiting else TERMINAL

    def is_terminal(self) -> bool:
        return not self._waiting

    def _current_legal(self) -> LegalMoves:
        legal = self._legal
        if legal is None:
            if not self._waiting:
                return _NO_LEGAL
            legal = self._legal = legal_moves(self._obs[self._waiting[0]])
        return legal

    def legal_actions(self) -> list[Move]:
        return self._current_legal().moves

    def apply_action(self, action: Move) -> None:
        if not self._waiting:
            raise IllegalMoveError(f"the game is over: {action!r} cannot be played")
        player = self._waiting[0]
        legal = self._legal or self._current_legal()
        try:
            chosen = legal.kept[legal.moves.index(action)]
        except ValueError:
            raise IllegalMoveError(
                f"{action!r} is not a legal action of seat {player} now"
            ) from None
        self._chosen[player] = chosen
        if self._unseen[player]:
            self._unseen[player] = []
        self._legal = None
        del self._waiting[0]
        if self._waiting:
            return
        obs = self._env.step(self._chosen)
        self._chosen = {}
        if self._env.done():
            self._obs = obs
            self._final = tuple(int(p) for p in self._env.scores())
            return
        if not obs:
            raise MindsportError(f"riichienv asked no seat to move (walls {self.seed})")
        self._obs = obs
        self._waiting = sorted(obs)

    def clone(self) -> MahjongState:
        twin = object.__new__(MahjongState)
        twin.seed, twin.mode, twin.score = self.seed, self.mode, self.score
        twin._env = self._env.clone()
        twin._obs = dict(self._obs)
        twin._waiting = list(self._waiting)
        twin._chosen = dict(self._chosen)
        twin._legal = self._legal
        twin._forfeited = self._forfeited
        twin._final = self._final
        twin._unseen = [list(e) for e in self._unseen]
        return twin

    def observation(self, player: int) -> MahjongObservation:
        waiting = self._waiting
        if waiting and player == waiting[0]:  # the seat to move (the referee's question)
            kept = (self._legal or self._current_legal()).kept
            return MahjongObservation(player, self._obs[player], kept, self._unseen[player])
        if not 0 <= player < 4:
            raise MindsportError(f"a mahjong seat is 0..3, got {player!r}")
        if player in waiting:
            return MahjongObservation(player, self._obs[player], [], self._unseen[player])
        # a seat not asked now: the events the engine hands out are kept for the seat's next
        # decision (the engine hands each event out once)
        engine = self._env.get_observation(player)
        earlier = tuple(self._unseen[player])
        self._unseen[player].extend(engine.events)
        return MahjongObservation(player, engine, [], earlier)

    def action_to_string(self, action: Move) -> str:
        return action.text()

    def returns(self) -> list[float]:
        if self.score == "placement":
            return [PLACEMENT_RETURNS[p - 1] for p in self.placements()]
        return [(p - START_POINTS) / 1000.0 for p in self.points()]

    def forfeit(self, player: int) -> None:
        """End the game against ``player``: it pays a mangan tsumo's penalty and is last."""
        if self.is_terminal():
            raise MindsportError("the game is over: nobody can forfeit it")
        if not 0 <= player < 4:
            raise MindsportError(f"a mahjong seat is 0..3, got {player!r}")
        points = [int(p) for p in self._env.scores()]
        dealer = int(self._env.oya)
        if player == dealer:
            share = [_PENALTY_DEALER // 3] * 4
        else:
            share = [_PENALTY_OTHER // 4] * 4
            share[dealer] = _PENALTY_OTHER // 2
        share[player] = 0
        for seat in range(4):
            points[seat] += share[seat]
        points[player] -= sum(share)
        self._forfeited = player
        self._final = tuple(points)
        self._waiting = []
        self._chosen = {}
        self._legal = None

    # -- the result -----------------------------------------------------------------------
    def points(self) -> tuple[int, ...]:
        """Each seat's points (final once the game is over)."""
        if self._final is not None:
            return self._final
        return tuple(int(p) for p in self._env.scores())

    def placements(self) -> tuple[int, ...]:
        """Each seat's place 1..4 (see :func:`placements`)."""
        return placements(self.points(), self._forfeited)

    @property
    def riichi_sticks(self) -> int:
        """Riichi deposits on the table (1,000 points each)."""
        return int(self._env.riichi_sticks)

    @property
    def forfeited(self) -> int | None:
        """The seat that forfeited, if one did."""
        return self._forfeited

    @property
    def engine(self) -> Any:
        """riichienv's game (read it, do not step it)."""
        return self._env

    def mjai_log(self) -> list[dict[str, Any]]:
        """Every mjai event of the game so far (all hands shown), oldest first."""
        return [e if isinstance(e, dict) else json.loads(e) for e in self._env.mjai_log]

    def __repr__(self) -> str:
        return f"MahjongState(seed={self.seed}, mode={self.mode}, points={self.points()})"
