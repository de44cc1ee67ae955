"""Many matches as flat arrays: the input of the compiled replays.

A :class:`MatchBlock` holds matches in CSR layout (teams per match, player slots per team), with
players as dense integer indices (:class:`PlayerIndex`). Blocks are built from
:class:`~mindsport.match.Match` objects (:func:`encode_matches`), from the columns of stored
records (:func:`encode_columns`, the one encoder both use) or straight from a long-format table
without any per-match Python object (:func:`block_from_long_table`). The encoders run at C
level: a list of Match objects is read by compiled code (their teams, ranks and weights from the
addresses in their slots, :func:`mindsport._jit.layout.walk_slots`), and so are lists of teams
(:mod:`mindsport._jit.layout`: the
numbers of teams, the team sizes and the addresses of the player ids, which the player index looks
up by identity), other sequences by list comprehensions and :func:`itertools.chain`, so encoding
costs a few hundred nanoseconds per match.

>>> from mindsport.match import Match
>>> index = PlayerIndex()
>>> block = encode_matches([Match("m1", 0, [["a"], ["b", "c"]], [0, 1])], index)
>>> block.team_ptr.tolist(), block.player_ptr.tolist(), block.players.tolist(), index.ids
([0, 2], [0, 1, 3], [0, 1, 2], ['a', 'b', 'c'])
"""

from __future__ import annotations

import ctypes
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from itertools import chain, count, islice, repeat
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.match import Match

if TYPE_CHECKING:
    from mindsport._jit.id_table import TextTable

__all__ = [
    "BatchInputError",
    "BlockArrays",
    "MatchBlock",
    "PlayerIndex",
    "block_from_long_table",
    "encode_columns",
    "encode_matches",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

#: the time unit of ``datetime`` match times for elapsed-time computations: one day
DAY = 86400.0


class BatchInputError(MindsportError):
    """A block of matches is malformed (names the match or what is wrong)."""


#: Look-ups of at least this many ids, in an index of at least this many players, go by identity
#: first; below, the dict alone is faster (small dicts stay in the processor's caches).
BY_IDENTITY_FROM = 256
BY_IDENTITY_PLAYERS = 16_384

#: how many ids of a look-up are tried by identity to choose the table that goes first
IDENTITY_SAMPLE = 64

#: blocks of at least this many matches are read by compiled code (:func:`_walk_teams`)
WALK_FROM = 64


def _addresses(objs: NDArray[np.object_]) -> NDArray[np.intp]:
    """The addresses of the objects an object array holds, without a Python int for each: the
    array's buffer of object pointers seen as integers (valid while ``objs`` lives)."""
    buffer = (ctypes.c_ssize_t * len(objs)).from_address(objs.ctypes.data)
    return np.ctypeslib.as_array(buffer)


class PlayerIndex:
    """Player id <-> dense integer index, growing as new players appear.

    The ids map to their indices in a dict that numbers a missing key itself (a
    :class:`~collections.defaultdict` counting from 0), so :meth:`codes` assigns and looks up in
    one C-level pass over the players.

    Large look-ups (:meth:`codes`, :meth:`codes_in`) in a large index try the ids by identity
    first (:data:`BY_IDENTITY_FROM`, :data:`BY_IDENTITY_PLAYERS`). The dict's
    own key objects, one per player and alive as long as the index, have their addresses in a
    compiled table (:mod:`mindsport._jit.id_table`); an id that is that very object (as in
    a history whose matches share their id strings) is found there, many at once, instead of by
    a dict look-up each, which at random among 100,000 players waits on memory for about 400 ns.
    An id that is an equal string made elsewhere (``f"p{i}"`` built for every appearance, as
    from a database cursor or a DataFrame) is found in a second compiled table by its characters
    (:class:`~mindsport._jit.id_table.TextTable`; ASCII ids in CPython's layout, see
    :func:`mindsport._jit.layout.text_layout`). Any other id goes through the dict: the result
    is the same; when most ids of a look-up are found by neither table, later look-ups skip them.
    """

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._index: defaultdict[str, int] = defaultdict(count().__next__)
        # the identity table: addresses of the first ``_known`` keys of the dict -> their index
        self._addr = np.zeros(0, np.intp)
        self._code = np.zeros(0, np.int64)
        self._text: TextTable | None = None
        self._known = 0
        self._by_identity = True

    def __len__(self) -> int:
        self._sync()
        return len(self._ids)

    def __contains__(self, player: object) -> bool:
        return player in self._index

    def _sync(self) -> None:
        """Append the ids numbered since the last call to the list of ids."""
        if len(self._ids) < len(self._index):
            self._ids.extend(islice(self._index, len(self._ids), None))

    def get(self, player: str) -> int:
        """Index of ``player``, assigning the next one to a new player."""
        return self._index[player]

    def codes(self, players: Sequence[str]) -> I64:
        """Indices of many players, new ones numbered in order of first appearance."""
        return self._lookup(players, len(players))

    def codes_in(self, groups: Sequence[Sequence[str]], n: int) -> I64:
        """:meth:`codes` of the ``n`` players of ``groups`` (sequences of players, e.g. teams)
        in order, without a list of them in between."""
        return self._lookup(chain.from_iterable(groups), n)

    def codes_at(
        self,
        addresses: I64,
        ids_at: Callable[[I64], list[str]],
        ids: Callable[[], Iterable[str]],
    ) -> I64:
        """:meth:`codes` of players given by the addresses of their id objects (as
        :func:`~mindsport._jit.layout.walk_teams` reads them): ``ids_at(positions)`` gives
        the id objects at some positions, ``ids()`` all of them in order (each alive meanwhile).

        The addresses cost nothing here, so a look-up goes by identity first once the index has
        :data:`BY_IDENTITY_FROM` players, however many more (a small table is in cache too)."""
        n = len(addresses)
        if not self._identity(n, BY_IDENTITY_FROM):
            return np.fromiter(map(self._index.__getitem__, ids()), np.int64, n)
        return self._by_address(addresses, ids_at)

    def _identity(self, n: int, from_players: int) -> bool:
        """Whether a look-up of ``n`` ids goes by identity first, in an index that does so from
        ``from_players`` players on."""
        return n >= BY_IDENTITY_FROM and len(self._index) >= from_players and self._by_identity

    def _lookup(self, players: Iterable[str], n: int) -> I64:
        if not self._identity(n, BY_IDENTITY_PLAYERS):
            return np.fromiter(map(self._index.__getitem__, players), np.int64, n)
        objs = np.fromiter(players, object, n)
        return self._by_address(_addresses(objs), lambda at: objs[at].tolist())

    def _by_address(self, addresses: NDArray[np.intp], ids_at: Callable[[I64], list[str]]) -> I64:
        """Look-ups in the compiled tables (by identity, by text), then by the dict for the ids
        found in neither. The identity table goes first when most of a sample of the ids are the
        index's own objects, else the text table (a copy misses the identity table anyway)."""
        from mindsport._jit.id_table import find, find_text
        from mindsport._jit.layout import text_layout

        self._remember()
        n = len(addresses)
        out = np.empty(n, np.int64)
        layout = text_layout()
        if self._text is None or layout is None:
            missed = find(self._addr, self._code, addresses, out)
        else:
            sample = addresses[:IDENTITY_SAMPLE]
            if 2 * len(find(self._addr, self._code, sample, out[: len(sample)])) < len(sample):
                missed = find(self._addr, self._code, addresses, out)
                if len(missed):  # equal strings made elsewhere
                    missed = find_text(self._text, addresses, missed, out, layout)
            else:
                missed = find_text(self._text, addresses, np.arange(n), out, layout)
                if len(missed):  # ids not in the compact ASCII layout: their own objects?
                    found = np.empty(len(missed), np.int64)
                    left = find(self._addr, self._code, addresses[missed], found)
                    hit = np.ones(len(missed), dtype=bool)
                    hit[left] = False
                    out[missed[hit]] = found[hit]
                    missed = missed[left]
        if len(missed):  # new players, or ids found by neither table
            before = len(self._index)
            get = self._index.__getitem__
            out[missed] = np.fromiter(map(get, ids_at(missed)), np.int64, len(missed))
            copies = len(missed) - (len(self._index) - before)
            if 2 * copies > n:  # ids made apart from the index's own: the dict alone is faster
                self._by_identity = False
        return out

    def _remember(self) -> None:
        """Put the key objects of the players numbered since the last call into the identity
        table (a new table, twice as large, when it would be more than half full)."""
        from mindsport._jit.id_table import remember, remember_text, text_table
        from mindsport._jit.layout import text_layout

        n = len(self._index)
        layout = text_layout()
        if 2 * n >= len(self._addr):  # (an empty table too: a probe needs an empty slot)
            size = 1 << max(10, (2 * n).bit_length())
            self._addr = np.zeros(size, np.intp)
            self._code = np.zeros(size, np.int64)
            if layout is not None:
                self._text = text_table(size)
            self._known = 0
        if n == self._known:
            return
        self._sync()
        new = self._ids[self._known : n]
        addresses = np.fromiter(map(id, new), np.intp, len(new))
        codes = np.arange(self._known, n, dtype=np.int64)
        remember(self._addr, self._code, addresses, codes)
        if self._text is not None and layout is not None:
            remember_text(self._text, addresses.astype(np.int64), codes, layout)
        self._known = n

    def many(self, players: Sequence[str]) -> I64:
        """Indices of many players (:meth:`codes` of their ids as strings)."""
        return self.codes([str(p) for p in players])

    @property
    def ids(self) -> list[str]:
        """Player ids in index order (the list itself: do not change it)."""
        self._sync()
        return self._ids


class BlockArrays(NamedTuple):
    """The arrays of a :class:`MatchBlock` as the compiled replays take them (read by name)."""

    team_ptr: I64
    player_ptr: I64
    players: I64
    weights: F64
    ranks: F64
    times: F64


@dataclass(frozen=True)
class MatchBlock:
    """Matches in CSR layout.

    ``team_ptr[i]:team_ptr[i+1]`` are match ``i``'s teams; ``player_ptr[t]:player_ptr[t+1]``
    are team ``t``'s player slots; ``players``/``weights`` per slot; ``ranks`` per team (NaN
    for unranked); ``times`` per match, in the time unit of elapsed-time models (days for
    ``datetime`` match times, the number itself otherwise, see :func:`encode_matches`).
    """

    team_ptr: I64
    player_ptr: I64
    players: I64
    weights: F64
    ranks: F64
    times: F64

    def __len__(self) -> int:
        return len(self.team_ptr) - 1

    @property
    def arrays(self) -> BlockArrays:
        """The six arrays as the replay kernels take them."""
        return BlockArrays(
            self.team_ptr, self.player_ptr, self.players, self.weights, self.ranks, self.times
        )

    @property
    def match_of_team(self) -> I64:
        """The match of every team."""
        return np.repeat(np.arange(len(self)), np.diff(self.team_ptr))

    def first(self, bad_teams: NDArray[np.bool_]) -> int | None:
        """The first match with a team flagged in ``bad_teams`` (None: no such match)."""
        hit = np.flatnonzero(bad_teams)
        return None if len(hit) == 0 else int(self.match_of_team[hit[0]])

    def validate(self, *, present: bool = False, times: bool = False) -> None:
        """Raise :class:`BatchInputError` naming the first malformed match (its position in the
        block is the error's ``match_index``). With ``present`` every team needs a player of
        positive weight; with ``times`` match times must be finite. One compiled pass."""
        from mindsport.rating.replay.block_kernel import PROBLEMS, check_block

        at, problem = check_block(
            self.team_ptr, self.player_ptr, self.weights, self.ranks, self.times, present, times
        )
        if at >= 0:
            self._raise(int(at), PROBLEMS[problem])

    @staticmethod
    def _raise(i: int, what: str) -> None:
        err = BatchInputError(f"match {i} of the block {what}")
        err.match_index = i  # type: ignore[attr-defined]
        raise err


def _block(
    teams_per_match: I64, sizes: I64, players: I64, weights: F64, ranks: F64, times: F64
) -> MatchBlock:
    team_ptr = np.zeros(len(teams_per_match) + 1, np.int64)
    np.cumsum(teams_per_match, out=team_ptr[1:])
    player_ptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=player_ptr[1:])
    return MatchBlock(team_ptr, player_ptr, players, weights, ranks, times)


def encode_columns(
    teams: Sequence[Sequence[Sequence[str]]],
    ranks: Sequence[Sequence[float | None]],
    weights: Sequence[Sequence[Sequence[float]] | None],
    times: F64,
    index: PlayerIndex,
) -> MatchBlock:
    """A block from per-match columns: each match's teams (player ids), ranks (None:
    unranked), weights (None: everyone played fully) and ``times`` (already in the time unit).

    Lists of lists and tuples are read by compiled code (:func:`_walk_teams`); other sequences
    go through Python.
    """
    n = len(teams)
    walked = _walk_teams(teams)
    if walked is None:
        teams_per_match = np.fromiter(map(len, teams), np.int64, n)
        flat_teams = list(chain.from_iterable(teams))
        sizes = np.fromiter(map(len, flat_teams), np.int64, len(flat_teams))
        n_slots = int(sizes.sum())
        codes = index.codes_in(flat_teams, n_slots)
    else:
        teams_per_match, sizes, addresses = walked
        n_slots = len(addresses)

        def ids_at(slots: I64) -> list[str]:
            return _ids_at(teams.__getitem__, teams_per_match, sizes, slots)

        codes = index.codes_at(
            addresses, ids_at, lambda: chain.from_iterable(chain.from_iterable(teams))
        )
    rank_col = _rank_column(ranks, teams_per_match)
    if weights.count(None) == n:
        w = np.ones(n_slots)
    else:
        w = np.fromiter(
            chain.from_iterable(
                chain.from_iterable(ws) if ws is not None else repeat(1.0, sum(map(len, ts)))
                for ts, ws in zip(teams, weights, strict=True)
            ),
            np.float64,
            n_slots,
        )
    return _block(teams_per_match, sizes, codes, w, rank_col, times)


def _walk_teams(teams: Sequence[Sequence[Sequence[str]]]) -> tuple[I64, I64, I64] | None:
    """Teams per match, team sizes and the addresses of the ids, read by compiled code from a
    list of lists or tuples (None: ``teams`` has another shape or type; go through Python)."""
    from mindsport._jit import layout

    if type(teams) is not list or len(teams) < WALK_FROM or not layout.available():
        return None
    teams_per_match, sizes, addresses, bad = layout.walk_teams(id(teams), id(tuple), id(list))
    return None if bad >= 0 else (teams_per_match, sizes, addresses)


def _ids_at(
    teams: Callable[[int], Sequence[Sequence[str]]], teams_per_match: I64, sizes: I64, slots: I64
) -> list[str]:
    """The player ids at some slots of a block's teams (slots in increasing order; ``teams(m)``:
    the teams of match ``m``)."""
    team_ptr = np.concatenate(([0], np.cumsum(teams_per_match)))
    player_ptr = np.concatenate(([0], np.cumsum(sizes)))
    team = np.searchsorted(player_ptr, slots, "right") - 1
    match = np.searchsorted(team_ptr, team, "right") - 1
    return [
        teams(m)[t][k]
        for m, t, k in zip(
            match.tolist(),
            (team - team_ptr[match]).tolist(),
            (slots - player_ptr[team]).tolist(),
            strict=True,
        )
    ]


#: rank objects read by identity in compiled code: None (unranked, NaN) and the integers that
#: CPython keeps one object each of; other ranks are converted in Python
_RANK_OBJECTS: tuple[int | None, ...] = (None, *range(-5, 257))


def _rank_column(ranks: Sequence[Sequence[float | None]], teams_per_match: I64) -> F64:
    """Every team's rank as a float (NaN: unranked), in order."""
    n_teams = int(teams_per_match.sum())
    table = _rank_table()
    if table is not None and type(ranks) is list:
        from mindsport._jit import layout
        from mindsport._jit.id_table import find

        counts, addresses, bad = layout.walk_pairs(id(ranks), id(tuple), id(list))
        if bad < 0 and np.array_equal(counts, teams_per_match):
            out = np.empty(n_teams)
            if len(find(table[0], table[1], addresses, out)) == 0:
                return out
    try:  # ranks as numbers; None (unranked) needs the slower conversion to NaN
        return np.fromiter(chain.from_iterable(ranks), np.float64, n_teams)
    except TypeError:
        return np.array(list(chain.from_iterable(ranks)), dtype=np.float64)


@cache
def _rank_table() -> tuple[NDArray[np.intp], F64] | None:
    """The identity table of :data:`_RANK_OBJECTS` (None: lists cannot be read compiled here)."""
    from mindsport._jit import layout
    from mindsport._jit.id_table import remember

    if not layout.available():
        return None
    keys = np.zeros(1024, np.intp)
    values = np.zeros(1024)
    addresses = np.fromiter(map(id, _RANK_OBJECTS), np.intp, len(_RANK_OBJECTS))
    ranks = np.array([np.nan if r is None else r for r in _RANK_OBJECTS], dtype=np.float64)
    remember(keys, values, addresses, ranks)
    return keys, values


def match_times(times: Sequence[Any], time_unit: float | None = None) -> F64:
    """Match times as numbers in the time unit of elapsed-time models.

    ``time_unit`` divides every time (a ``datetime`` counts in POSIX seconds); by default a
    ``datetime`` counts in days and a number as it is.
    """
    try:
        out = np.array(times, dtype=np.float64)
    except TypeError:  # datetimes among them
        out = np.array(
            [
                t.timestamp() / (DAY if time_unit is None else 1.0)
                if isinstance(t, datetime)
                else float(t)
                for t in times
            ],
            dtype=np.float64,
        )
    if time_unit is not None:
        out = out / time_unit
    return out


def encode_matches(
    matches: Iterable[Match], index: PlayerIndex, time_unit: float | None = None
) -> MatchBlock:
    """Pack :class:`Match` objects into a block (times as :func:`match_times` gives them).

    A list of (exact) Match objects is read by compiled code (:func:`_walked_block`: each
    match's teams, ranks and weights without a Python attribute access per match); anything
    else goes through :func:`encode_columns`."""
    ms = matches if isinstance(matches, list) else list(matches)
    block = _walked_block(ms, index, time_unit)
    if block is not None:
        return block
    return encode_columns(
        [m.teams for m in ms],
        [m.ranks for m in ms],
        [m.weights for m in ms],
        match_times([m.time for m in ms], time_unit),
        index,
    )


#: the slots of a :class:`Match` that :func:`_walked_block` reads in compiled code
_WALKED = ("teams", "ranks", "weights", "time")


def _match_slots(ms: list[Match], names: tuple[str, ...] = _WALKED) -> I64 | None:
    """The addresses of the values of the slots ``names`` (by default the teams, ranks, weights
    and time) of every match, one row per match, read by compiled code
    (:func:`mindsport._jit.layout.walk_slots`); None: too few matches to pay, not readable here,
    or an item that is not exactly a :class:`Match`."""
    from mindsport._jit import layout

    if type(ms) is not list or len(ms) < WALK_FROM or not layout.available():
        return None
    offsets = layout.slot_offsets(Match, names)
    if offsets is None:
        return None
    slots, bad = layout.walk_slots(id(ms), id(Match), offsets, id(list))
    return None if bad >= 0 else slots


def match_ids(ms: list[Match]) -> list[str]:
    """The ids of a list of matches, read from their slots and listed in compiled code when it
    can (:func:`mindsport._jit.fill.listed`), else with a Python pass."""
    slots = _match_slots(ms, ("id",))
    if slots is not None:
        from mindsport._jit.fill import listed

        ids = listed(slots[:, 0])
        if ids is not None:
            return ids
    return [m.id for m in ms]


def only_matches(items: list[Any]) -> bool:
    """Whether every item is a :class:`Match` (a compiled pass over an exact list of exact
    Match objects; ``isinstance`` for the rest)."""
    from mindsport._jit import layout

    if type(items) is list and len(items) >= WALK_FROM and layout.available():
        no_slots = np.zeros(0, np.int64)
        if layout.walk_slots(id(items), id(Match), no_slots, id(list))[1] < 0:
            return True
    return all(map(isinstance, items, repeat(Match)))


def _walked_block(
    ms: list[Match], index: PlayerIndex, time_unit: float | None
) -> MatchBlock | None:
    """:func:`encode_matches` of a list of Match objects read by compiled code: their teams
    (:func:`mindsport._jit.layout.walk_groups`), ranks (the identity table of the rank
    objects), weights (all None) and times (numbers: :func:`_walked_times`) from the addresses
    in their slots; None (and the index untouched) when they cannot be read so: the caller then
    takes the Python path."""
    from mindsport._jit import layout
    from mindsport._jit.id_table import find

    slots = _match_slots(ms)
    table = _rank_table()
    if slots is None or table is None or not bool((slots[:, 2] == id(None)).all()):
        return None
    teams_per_match, sizes, addresses, bad = layout.walk_groups(
        np.ascontiguousarray(slots[:, 0]), id(tuple), id(list)
    )
    if bad >= 0:
        return None
    rank_counts, rank_addresses, bad = layout.gather(
        np.ascontiguousarray(slots[:, 1]), id(tuple), id(list)
    )
    if bad >= 0 or not np.array_equal(rank_counts, teams_per_match):
        return None
    ranks = np.empty(len(rank_addresses))
    if len(find(table[0], table[1], rank_addresses, ranks)):
        return None  # a rank that is not one of the small integers or None

    def ids_at(at: I64) -> list[str]:
        return _ids_at(lambda m: ms[m].teams, teams_per_match, sizes, at)

    codes = index.codes_at(
        addresses, ids_at, lambda: chain.from_iterable(chain.from_iterable(m.teams for m in ms))
    )
    times = _walked_times(slots[:, 3], time_unit)
    if times is None:
        times = match_times([m.time for m in ms], time_unit)
    return _block(teams_per_match, sizes, codes, np.ones(len(addresses)), ranks, times)


def _walked_times(addresses: I64, time_unit: float | None) -> F64 | None:
    """:func:`match_times` of the times at ``addresses`` when every one is an exact ``float`` or
    a small exact ``int`` (:func:`mindsport._jit.layout.read_numbers`: the same doubles as
    ``float(t)``), read by compiled code; None otherwise (datetimes among them)."""
    from mindsport._jit import layout

    numbers = layout.number_layout()
    if numbers is None:
        return None
    raw, is_int, bad = layout.read_numbers(np.ascontiguousarray(addresses), numbers)
    if bad >= 0:
        return None
    out = np.where(is_int, raw.astype(np.float64), raw.view(np.float64))
    return out if time_unit is None else out / time_unit


def block_from_long_table(
    match_ids: Sequence[object],
    times: Sequence[float],
    players: Sequence[str],
    teams: Sequence[object],
    ranks: Sequence[float],
    index: PlayerIndex,
    weights: Sequence[float] | None = None,
) -> MatchBlock:
    """Build a block from long-format columns (one row per player, rows of a match together).

    Columns as in the CSV long format: ``match_id, time, player, team, rank[, weight]``. A
    match's rows must be contiguous and, within it, a team's rows contiguous (as written by
    :func:`mindsport.history.write_matches`). Vectorised: no Python object per match.
    """
    mid = np.asarray(match_ids)
    tid = np.asarray(teams)
    n = len(mid)
    if n == 0:
        empty = np.zeros(0, np.int64)
        return MatchBlock(
            np.zeros(1, np.int64),
            np.zeros(1, np.int64),
            empty,
            np.zeros(0),
            np.zeros(0),
            np.zeros(0),
        )
    new_match = np.ones(n, bool)
    new_match[1:] = mid[1:] != mid[:-1]
    new_team = new_match.copy()
    new_team[1:] |= tid[1:] != tid[:-1]
    team_starts = np.flatnonzero(new_team)
    match_starts = np.flatnonzero(new_match)
    player_ptr = np.append(team_starts, n).astype(np.int64)
    team_ptr = np.append(np.searchsorted(team_starts, match_starts), len(team_starts)).astype(
        np.int64
    )
    rank_col = np.asarray(ranks, dtype=np.float64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    return MatchBlock(
        team_ptr,
        player_ptr,
        index.many(players),
        w,
        rank_col[team_starts],
        np.asarray(times, dtype=np.float64)[match_starts],
    )
