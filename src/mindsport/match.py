"""The match value type: one recorded game, who played in which team, and how the teams finished.

This module sits at the bottom of the package (beside :mod:`mindsport.errors`): the rating
models, the history tools, the store and the service all speak :class:`Match`, and it imports
nothing of them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from mindsport.errors import MindsportError

__all__ = [
    "MAX_LABEL",
    "MAX_LUCK",
    "MAX_RANK",
    "MAX_SCORE",
    "MAX_TIME",
    "MIN_TIME",
    "InvalidMatchError",
    "Match",
    "check_id",
    "id_problem",
    "pair_outcome",
    "ranks_from_scores",
    "text_problem",
    "time_value",
]

#: the functions of this module that the rating kernels compile (see mindsport._jit.compiling)
__kernels__ = ("pair_outcome",)

Time = datetime | float | int

#: earliest match time, POSIX seconds (1800-01-01T00:00:00Z); numbers and datetimes alike
MIN_TIME = -5_364_662_400
#: first time past the latest allowed one, POSIX seconds (2200-01-01T00:00:00Z)
MAX_TIME = 7_258_118_400
#: largest rank (places are 0, 1, 2, ...; every rank is exact as a 64-bit float)
MAX_RANK = 2**31 - 1
#: longest role name or deal id, in characters
MAX_LABEL = 64
#: largest magnitude of a score: beyond any points, chips or goals a game counts, and small
#: enough that score differences (the margins a model may rate) are exact and finite
MAX_SCORE = 1e9
#: largest magnitude of a luck (standard-normal units): the probit of the smallest positive
#: double (5e-324) is -38.5, so every probability has a luck within 40
MAX_LUCK = 40.0

# Unicode categories Cc (C0 and C1 controls, NUL included) and Cs (lone surrogates)
_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class InvalidMatchError(MindsportError):
    """A match record is inconsistent (names the match id and the field; ``field`` holds the
    field's name when there is one)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def ranks_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Standard competition ranking (0 = best): higher score, better place; ties share a place.

    >>> ranks_from_scores([10, 30, 30, 5])
    (2, 0, 0, 3)
    """
    return tuple(sum(1 for other in scores if other > s) for s in scores)


def text_problem(value: str) -> str | None:
    """Why the string ``value`` cannot be stored as text, or ``None``: a control character
    (Unicode category Cc, NUL included) or a lone surrogate (category Cs)."""
    bad = _FORBIDDEN.search(value)
    if bad is None:
        return None
    ch = bad.group()
    kind = "lone surrogate" if "\ud800" <= ch <= "\udfff" else "control character"
    return f"contains the {kind} U+{ord(ch):04X} at position {bad.start()}"


def id_problem(value: object) -> str | None:
    """Why ``value`` cannot be a match or player id, or ``None`` when it can.

    An id is a non-empty string of printable characters: no control character (Unicode
    category Cc: NUL, tab, newline, DEL, the C1 controls), no lone surrogate (category Cs), and
    not whitespace only.

    >>> id_problem("ann"), id_problem(" "), id_problem("a\\x00b")
    (None, 'is whitespace only', 'contains the control character U+0000 at position 1')
    """
    if not isinstance(value, str):
        return f"is not a string ({type(value).__name__})"
    if not value:
        return "is empty"
    if _FORBIDDEN.search(value) is not None:
        return text_problem(value)
    if value.isspace():
        return "is whitespace only"
    return None


def check_id(value: object, what: str) -> str:
    """``value`` if it is a valid id (see :func:`id_problem`), else :class:`InvalidMatchError`
    naming ``what``."""
    why = id_problem(value)
    if why is not None:
        raise InvalidMatchError(f"{what} {_short(value)} {why}")
    return value  # type: ignore[return-value]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def time_value(t: Time) -> float:
    """A match time as a number on the store's one time axis: a datetime becomes POSIX seconds
    (a naive datetime is read as UTC, never as local time); a number is taken as it is.

    So ``2024-01-01T00:00:00``, ``2024-01-01T00:00:00Z``, ``2024-01-01T08:00:00+08:00`` and
    ``1704067200`` are one instant.

    >>> from datetime import datetime, timezone, timedelta
    >>> time_value(datetime(2024, 1, 1)), time_value(1704067200)
    (1704067200.0, 1704067200.0)
    >>> time_value(datetime(2024, 1, 1, 8, tzinfo=timezone(timedelta(hours=8))))
    1704067200.0
    """
    if isinstance(t, datetime):
        if t.tzinfo is None:
            t = t.replace(tzinfo=UTC)
        return t.timestamp()
    return float(t)


def _time_problem(t: object) -> str | None:
    if isinstance(t, datetime):
        try:
            v = time_value(t)
        except (OverflowError, ValueError):  # an offset pushing year 1 or 9999 out of range
            v = math.inf
        if not MIN_TIME <= v < MAX_TIME:
            lo = datetime.fromtimestamp(MIN_TIME, UTC).replace(tzinfo=None)
            hi = datetime.fromtimestamp(MAX_TIME, UTC).replace(tzinfo=None)
            return f"{t.isoformat()} is outside [{lo.isoformat()}Z, {hi.isoformat()}Z)"
        return None
    if isinstance(t, bool) or not isinstance(t, int | float):
        return f"expected a datetime or a number, got {_short(t)}"
    if isinstance(t, float) and not math.isfinite(t):
        return f"not a finite number: {t!r}"
    if not MIN_TIME <= t < MAX_TIME:
        return f"{_short(t)} is outside [{MIN_TIME}, {MAX_TIME}) (POSIX seconds of 1800-2199)"
    return None


def pair_outcome(ri: float | None, rj: float | None) -> float | None:
    """Outcome for team i against team j from their ranks: 1 ahead, 0.5 tie, 0 behind.

    ``None`` (or NaN, as in rank arrays) is an unranked team, which finished below every ranked
    team; two unranked teams are not compared (``None``). The compiled kernels compile this very
    function (NaN ranks).

    >>> pair_outcome(0, 1), pair_outcome(2, 2), pair_outcome(None, 3), pair_outcome(None, None)
    (1.0, 0.5, 0.0, None)
    """
    i_out = ri is None or ri != ri
    j_out = rj is None or rj != rj
    if i_out and j_out:
        return None
    if i_out:
        return 0.0
    if j_out:
        return 1.0
    return 1.0 if ri < rj else 0.5 if ri == rj else 0.0  # type: ignore[operator]


@dataclass(frozen=True, slots=True)
class Match:
    """A game result.

    ``teams`` are tuples of player ids; ``ranks`` (lower is better, equal is a tie, ``None`` is an
    unranked team that finished below every ranked one) may be omitted when ``scores`` are given.
    ``weights`` are partial-play fractions in [0, 1], one per player. ``time`` is a ``datetime``
    or any monotone number (seconds, days, a counter).

    Games of chance may say more (all optional; absent, a model rates the match as before):

    * ``roles``: one role or seat per player, in the shape of ``teams`` (``landlord``,
      ``farmer1``, ``farmer2`` in Dou Dizhu; ``East`` ... ``North`` in mahjong). Names are
      printable (as ids) and at most :data:`MAX_LABEL` characters; a role appears once per match.
    * ``deal``: the id of the cards dealt (the same id at several tables: a duplicate deal).
    Scores lie in [-:data:`MAX_SCORE`, :data:`MAX_SCORE`] and lucks in [-:data:`MAX_LUCK`,
    :data:`MAX_LUCK`]; a match with a number outside (or not finite) is refused, naming it.

    * ``luck``: the deal's expected result, one number per team, in standard-normal units of
      performance: for two teams a deal that the reference players win with probability ``p``
      for team 0 is ``(probit(p), 0)`` (any pair with that difference). A luck-aware model
      adds ``scale * luck[t]`` to team ``t``'s performance (see
      ``mindsport.rating.trueskill.cardplay``).

    >>> m = Match("g1", 3, [["ann", "bob"], ["cy"]], None, scores=[2, 5])
    >>> m.ranks
    (1, 0)
    >>> m.players
    ('ann', 'bob', 'cy')
    >>> Match("d1", 0, [["ann"], ["bob", "cy"]], [0, 1],
    ...       roles=[["landlord"], ["farmer1", "farmer2"]], deal="deal-7", luck=[0.4, 0]).roles
    (('landlord',), ('farmer1', 'farmer2'))
    """

    id: str
    time: Time
    teams: tuple[tuple[str, ...], ...]
    ranks: tuple[int | None, ...]
    weights: tuple[tuple[float, ...], ...] | None = None
    scores: tuple[float, ...] | None = None
    roles: tuple[tuple[str, ...], ...] | None = None
    deal: str | None = None
    luck: tuple[float, ...] | None = None

    def __init__(
        self,
        id: str,
        time: Time,
        teams: Sequence[Sequence[str]],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Sequence[float]] | None = None,
        scores: Sequence[float] | None = None,
        *,
        roles: Sequence[Sequence[str]] | None = None,
        deal: str | None = None,
        luck: Sequence[float] | None = None,
    ) -> None:
        def bad(field: str, why: str) -> InvalidMatchError:
            return InvalidMatchError(f"match {_short(id)}: {field}: {why}", field)

        why = id_problem(id)
        if why is not None:
            raise InvalidMatchError(f"match id {_short(id)} {why}", "id")
        why = _time_problem(time)
        if why is not None:
            raise bad("time", why)
        if isinstance(teams, str) or len(teams) < 2:
            raise bad("teams", f"need at least two teams, got {teams!r}")
        tteams: list[tuple[str, ...]] = []
        seen: set[str] = set()
        for t in teams:
            if isinstance(t, str) or len(t) == 0:
                raise bad("teams", f"each team is a non-empty list of player ids, got {t!r}")
            _distinct(t, seen, id_problem, ("teams", "player id", "player"), bad)
            tteams.append(tuple(t))
        tscores: tuple[float, ...] | None = None
        if scores is not None:
            if len(scores) != len(tteams):
                raise bad("scores", f"{len(scores)} scores for {len(tteams)} teams")
            for s in scores:
                why = _number_problem(s, MAX_SCORE)
                if why is not None:
                    raise bad("scores", why)
            tscores = tuple(float(s) for s in scores)
        if ranks is None:
            if tscores is None:
                raise bad("ranks", "give ranks or scores")
            tranks: tuple[int | None, ...] = ranks_from_scores(tscores)
        else:
            if len(ranks) != len(tteams):
                raise bad("ranks", f"{len(ranks)} ranks for {len(tteams)} teams")
            for r in ranks:
                if r is not None and (isinstance(r, bool) or not isinstance(r, int)):
                    raise bad("ranks", f"ranks are integers or None, got {_short(r)}")
                if r is not None and not 0 <= r <= MAX_RANK:
                    raise bad("ranks", f"ranks lie in [0, {MAX_RANK}], got {_short(r)}")
            if all(r is None for r in ranks):
                raise bad("ranks", "at least one team must be ranked")
            tranks = tuple(ranks)
            if tscores is not None:
                _check_agreement(tranks, tscores, bad)
        tweights: tuple[tuple[float, ...], ...] | None = None
        if weights is not None:
            if len(weights) != len(tteams):
                raise bad("weights", f"{len(weights)} weight lists for {len(tteams)} teams")
            wl = []
            for t, w in zip(tteams, weights, strict=True):
                if len(w) != len(t):
                    raise bad("weights", f"{len(w)} weights for team {list(t)}")
                for x in w:
                    if isinstance(x, bool) or not isinstance(x, int | float) or not 0 <= x <= 1:
                        raise bad("weights", f"weights lie in [0, 1], got {x!r}")
                wl.append(tuple(float(x) for x in w))
            tweights = tuple(wl)
        troles = _checked_roles(roles, tteams, bad)
        tdeal: str | None = None
        if deal is not None:
            why = _label_problem(deal)
            if why is not None:
                raise bad("deal", f"deal id {_short(deal)} {why}")
            tdeal = deal
        tluck: tuple[float, ...] | None = None
        if luck is not None:
            if isinstance(luck, str) or len(luck) != len(tteams):
                raise bad("luck", f"one number per team ({len(tteams)}), got {_short(luck)}")
            for x in luck:
                why = _number_problem(x, MAX_LUCK)
                if why is not None:
                    raise bad("luck", why)
            tluck = tuple(float(x) for x in luck)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "time", time)
        object.__setattr__(self, "teams", tuple(tteams))
        object.__setattr__(self, "ranks", tranks)
        object.__setattr__(self, "weights", tweights)
        object.__setattr__(self, "scores", tscores)
        object.__setattr__(self, "roles", troles)
        object.__setattr__(self, "deal", tdeal)
        object.__setattr__(self, "luck", tluck)

    @property
    def players(self) -> tuple[str, ...]:
        """Every player id, team by team."""
        return tuple(p for t in self.teams for p in t)

    def time_value(self) -> float:
        """``time`` as a number: :func:`time_value` (POSIX seconds for datetimes, naive = UTC)."""
        return time_value(self.time)


def _number_problem(x: object, bound: float) -> str | None:
    """Why ``x`` is not a finite number within ``bound`` in magnitude, or ``None``."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return f"not a finite number: {_short(x)}"
    if isinstance(x, float) and not math.isfinite(x):
        return f"not a finite number: {x!r}"
    if not -bound <= x <= bound:
        return f"{_short(x)} is outside [{-bound:g}, {bound:g}]"
    return None


def _label_problem(value: object) -> str | None:
    """Why ``value`` cannot be a role name or a deal id (an id of at most :data:`MAX_LABEL`
    characters), or ``None``."""
    why = id_problem(value)
    if why is None and len(value) > MAX_LABEL:  # type: ignore[arg-type]
        why = f"is longer than {MAX_LABEL} characters"
    return why


def _checked_roles(
    roles: Sequence[Sequence[str]] | None,
    teams: list[tuple[str, ...]],
    bad: Callable[[str, str], InvalidMatchError],
) -> tuple[tuple[str, ...], ...] | None:
    """``roles`` in the shape of ``teams`` (one printable, short, distinct name per player)."""
    if roles is None:
        return None
    if isinstance(roles, str) or len(roles) != len(teams):
        raise bad("roles", f"one list of roles per team ({len(teams)}), got {_short(roles)}")
    out: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for team, rs in zip(teams, roles, strict=True):
        if isinstance(rs, str) or len(rs) != len(team):
            raise bad("roles", f"one role per player of team {list(team)}, got {_short(rs)}")
        _distinct(rs, seen, _label_problem, ("roles", "role", "role"), bad)
        out.append(tuple(rs))
    return tuple(out)


def _distinct(
    names: Sequence[str],
    seen: set[str],
    problem: Callable[[object], str | None],
    words: tuple[str, str, str],
    bad: Callable[[str, str], InvalidMatchError],
) -> None:
    """Check ``names`` (each allowed by ``problem``, none in ``seen``) and add them to ``seen``;
    ``words``: the field, and what a name is called when bad and when repeated."""
    field, noun, repeated = words
    for name in names:
        why = problem(name)
        if why is not None:
            raise bad(field, f"{noun} {_short(name)} {why}")
        if name in seen:
            raise bad(field, f"{repeated} {name!r} appears twice")
        seen.add(name)


def _check_agreement(
    ranks: tuple[int | None, ...],
    scores: tuple[float, ...],
    bad: Callable[[str, str], InvalidMatchError],
) -> None:
    """Ranks and scores given together must not contradict each other: for every pair of teams
    the ranks compare (:func:`pair_outcome`), the team ahead has a score at least as high and
    tied teams have equal scores. Distinct ranks on equal scores are a tie-break, not a
    contradiction."""
    n = len(ranks)
    for i in range(n):
        for j in range(i + 1, n):
            by_rank = pair_outcome(ranks[i], ranks[j])
            si, sj = scores[i], scores[j]
            if (
                (by_rank == 1.0 and si < sj)
                or (by_rank == 0.0 and si > sj)
                or (by_rank == 0.5 and si != sj)
            ):
                raise bad(
                    "ranks",
                    f"ranks {list(ranks)} contradict scores {list(scores)} (teams {i} and {j})",
                )
