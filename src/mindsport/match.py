"""The match value type: one recorded game, who played in which team, and how the teams finished.

This module sits at the bottom of the package (beside :mod:`mindsport.errors`): the rating
models, the history tools, the store and the service all speak :class:`Match`, and it imports
nothing of them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat
from typing import Any

from mindsport.errors import MindsportError

__all__ = [
    "BIDI_CONTROLS",
    "ID_NOT_VISIBLE",
    "ID_REFUSED",
    "INVISIBLE",
    "INVISIBLE_VERSION",
    "MAX_LABEL",
    "MAX_LUCK",
    "MAX_RANK",
    "MAX_SCORE",
    "MAX_TIME",
    "MIN_TIME",
    "InvalidMatchError",
    "Match",
    "assemble",
    "check_id",
    "check_roles",
    "id_problem",
    "normal_id",
    "pair_outcome",
    "ranks_from_scores",
    "regex_class",
    "search_key",
    "text_problem",
    "time_problem",
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

#: the bidirectional formatting characters (Unicode's Bidi_Control property: ALM, LRM, RLM, the
#: embeddings and overrides LRE-RLO, the isolates LRI-PDI), refused anywhere in an id: they
#: change how the text around them is shown, so two ids could look alike and differ
BIDI_CONTROLS = ((0x061C, 0x061C), (0x200E, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069))

#: Unicode version of :data:`INVISIBLE` (Python 3.11's ``unicodedata``; a test recomputes it)
INVISIBLE_VERSION = "14.0.0"
#: the characters that show nothing of their own (hexadecimal code points and ranges): format
#: characters (category Cf: zero-width space and joiners, soft hyphen, BOM, tags), combining marks
#: (Mn, Me: visible only on a base character), separators and whitespace (Zs, Zl, Zp) and the
#: Hangul fillers U+115F, U+1160, U+3164, U+FFA0; controls (Cc) and surrogates (Cs), never
#: allowed in an id, are not listed. An id needs one character outside this set.
INVISIBLE = (
    "0020 00A0 00AD 0300-036F 0483-0489 0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7 "
    "0600-0605 0610-061A 061C 064B-065F 0670 06D6-06DD 06DF-06E4 06E7-06E8 06EA-06ED "
    "070F 0711 0730-074A 07A6-07B0 07EB-07F3 07FD 0816-0819 081B-0823 0825-0827 "
    "0829-082D 0859-085B 0890-0891 0898-089F 08CA-0902 093A 093C 0941-0948 094D "
    "0951-0957 0962-0963 0981 09BC 09C1-09C4 09CD 09E2-09E3 09FE 0A01-0A02 0A3C "
    "0A41-0A42 0A47-0A48 0A4B-0A4D 0A51 0A70-0A71 0A75 0A81-0A82 0ABC 0AC1-0AC5 "
    "0AC7-0AC8 0ACD 0AE2-0AE3 0AFA-0AFF 0B01 0B3C 0B3F 0B41-0B44 0B4D 0B55-0B56 "
    "0B62-0B63 0B82 0BC0 0BCD 0C00 0C04 0C3C 0C3E-0C40 0C46-0C48 0C4A-0C4D 0C55-0C56 "
    "0C62-0C63 0C81 0CBC 0CBF 0CC6 0CCC-0CCD 0CE2-0CE3 0D00-0D01 0D3B-0D3C 0D41-0D44 "
    "0D4D 0D62-0D63 0D81 0DCA 0DD2-0DD4 0DD6 0E31 0E34-0E3A 0E47-0E4E 0EB1 0EB4-0EBC "
    "0EC8-0ECD 0F18-0F19 0F35 0F37 0F39 0F71-0F7E 0F80-0F84 0F86-0F87 0F8D-0F97 "
    "0F99-0FBC 0FC6 102D-1030 1032-1037 1039-103A 103D-103E 1058-1059 105E-1060 "
    "1071-1074 1082 1085-1086 108D 109D 115F-1160 135D-135F 1680 1712-1714 1732-1733 "
    "1752-1753 1772-1773 17B4-17B5 17B7-17BD 17C6 17C9-17D3 17DD 180B-180F 1885-1886 "
    "18A9 1920-1922 1927-1928 1932 1939-193B 1A17-1A18 1A1B 1A56 1A58-1A5E 1A60 1A62 "
    "1A65-1A6C 1A73-1A7C 1A7F 1AB0-1ACE 1B00-1B03 1B34 1B36-1B3A 1B3C 1B42 1B6B-1B73 "
    "1B80-1B81 1BA2-1BA5 1BA8-1BA9 1BAB-1BAD 1BE6 1BE8-1BE9 1BED 1BEF-1BF1 1C2C-1C33 "
    "1C36-1C37 1CD0-1CD2 1CD4-1CE0 1CE2-1CE8 1CED 1CF4 1CF8-1CF9 1DC0-1DFF 2000-200F "
    "2028-202F 205F-2064 2066-206F 20D0-20F0 2CEF-2CF1 2D7F 2DE0-2DFF 3000 302A-302D "
    "3099-309A 3164 A66F-A672 A674-A67D A69E-A69F A6F0-A6F1 A802 A806 A80B A825-A826 "
    "A82C A8C4-A8C5 A8E0-A8F1 A8FF A926-A92D A947-A951 A980-A982 A9B3 A9B6-A9B9 "
    "A9BC-A9BD A9E5 AA29-AA2E AA31-AA32 AA35-AA36 AA43 AA4C AA7C AAB0 AAB2-AAB4 "
    "AAB7-AAB8 AABE-AABF AAC1 AAEC-AAED AAF6 ABE5 ABE8 ABED FB1E FE00-FE0F FE20-FE2F "
    "FEFF FFA0 FFF9-FFFB 101FD 102E0 10376-1037A 10A01-10A03 10A05-10A06 10A0C-10A0F "
    "10A38-10A3A 10A3F 10AE5-10AE6 10D24-10D27 10EAB-10EAC 10F46-10F50 10F82-10F85 "
    "11001 11038-11046 11070 11073-11074 1107F-11081 110B3-110B6 110B9-110BA 110BD "
    "110C2 110CD 11100-11102 11127-1112B 1112D-11134 11173 11180-11181 111B6-111BE "
    "111C9-111CC 111CF 1122F-11231 11234 11236-11237 1123E 112DF 112E3-112EA "
    "11300-11301 1133B-1133C 11340 11366-1136C 11370-11374 11438-1143F 11442-11444 "
    "11446 1145E 114B3-114B8 114BA 114BF-114C0 114C2-114C3 115B2-115B5 115BC-115BD "
    "115BF-115C0 115DC-115DD 11633-1163A 1163D 1163F-11640 116AB 116AD 116B0-116B5 "
    "116B7 1171D-1171F 11722-11725 11727-1172B 1182F-11837 11839-1183A 1193B-1193C "
    "1193E 11943 119D4-119D7 119DA-119DB 119E0 11A01-11A0A 11A33-11A38 11A3B-11A3E "
    "11A47 11A51-11A56 11A59-11A5B 11A8A-11A96 11A98-11A99 11C30-11C36 11C38-11C3D "
    "11C3F 11C92-11CA7 11CAA-11CB0 11CB2-11CB3 11CB5-11CB6 11D31-11D36 11D3A "
    "11D3C-11D3D 11D3F-11D45 11D47 11D90-11D91 11D95 11D97 11EF3-11EF4 13430-13438 "
    "16AF0-16AF4 16B30-16B36 16F4F 16F8F-16F92 16FE4 1BC9D-1BC9E 1BCA0-1BCA3 "
    "1CF00-1CF2D 1CF30-1CF46 1D167-1D169 1D173-1D182 1D185-1D18B 1D1AA-1D1AD "
    "1D242-1D244 1DA00-1DA36 1DA3B-1DA6C 1DA75 1DA84 1DA9B-1DA9F 1DAA1-1DAAF "
    "1E000-1E006 1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A 1E130-1E136 1E2AE "
    "1E2EC-1E2EF 1E8D0-1E8D6 1E944-1E94A E0001 E0020-E007F E0100-E01EF "
)


def _ranges(spec: str) -> tuple[tuple[int, int], ...]:
    """The ranges of code points of a table such as :data:`INVISIBLE`."""
    out = []
    for item in spec.split():
        lo, _, hi = item.partition("-")
        out.append((int(lo, 16), int(hi or lo, 16)))
    return tuple(out)


def regex_class(ranges: Sequence[tuple[int, int]]) -> str:
    """The body of a regular expression character class holding ``ranges`` of code points,
    spelled alike in Python, ECMA-262 (with the ``u`` flag) and Rust: ASCII as ``\\xNN``,
    the rest of the first plane as ``\\uNNNN``, the other planes as the characters themselves."""

    def one(c: int) -> str:
        return f"\\x{c:02x}" if c < 0x80 else f"\\u{c:04x}" if c < 0x10000 else chr(c)

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


_CONTROLS = ((0x00, 0x1F), (0x7F, 0x9F))
#: what no id may hold anywhere: controls (Cc) and bidirectional controls (surrogates never
#: reach a pattern: JSON text and pydantic refuse them, and :func:`id_problem` checks them)
ID_REFUSED = regex_class(_CONTROLS + BIDI_CONTROLS)
#: characters of :data:`INVISIBLE`, controls and bidirectional controls: not a visible character
ID_NOT_VISIBLE = regex_class(_CONTROLS + BIDI_CONTROLS + _ranges(INVISIBLE))
_REFUSED = re.compile(f"[{ID_REFUSED}\\ud800-\\udfff]")
_VISIBLE = re.compile(f"[^{ID_NOT_VISIBLE}]")


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

    An id is a non-empty string with at least one visible character: no control character
    (Unicode category Cc: NUL, tab, newline, DEL, the C1 controls), no lone surrogate
    (category Cs), no bidirectional control (:data:`BIDI_CONTROLS`), and not made only of
    characters that show nothing (:data:`INVISIBLE`: whitespace, zero-width and other format
    characters, combining marks without a base). Ids are compared in Unicode NFC
    (:func:`normal_id`): canonically equal spellings are one id.

    >>> id_problem("ann"), id_problem(" "), id_problem("a\\x00b")
    (None, 'is whitespace only', 'contains the control character U+0000 at position 1')
    >>> id_problem("\\u200b")
    'has no visible character (only whitespace, format characters or combining marks)'
    >>> id_problem("ab\\u202e")
    'contains the bidirectional control character U+202E at position 2'
    """
    if not isinstance(value, str):
        return f"is not a string ({type(value).__name__})"
    if not value:
        return "is empty"
    bad = _REFUSED.search(value)
    if bad is not None:
        ch = bad.group()
        kind = (
            "lone surrogate"
            if "\ud800" <= ch <= "\udfff"
            else "control character"
            if _FORBIDDEN.match(ch)
            else "bidirectional control character"
        )
        return f"contains the {kind} U+{ord(ch):04X} at position {bad.start()}"
    if value.isspace():
        return "is whitespace only"
    if not value.isascii() and _VISIBLE.search(value) is None:
        return "has no visible character (only whitespace, format characters or combining marks)"
    return None


def normal_id(value: str) -> str:
    """The one spelling of an id: its Unicode normal form C (NFC), so that canonically equal
    strings (``"caf\\u00e9"`` and ``"cafe\\u0301"``) are one id.

    >>> normal_id("cafe\\u0301") == "caf\\u00e9"
    True
    """
    return value if value.isascii() else unicodedata.normalize("NFC", value)


def search_key(text: str) -> str:
    """What case-insensitive search compares: the Unicode case folding of the NFC form
    (``str.casefold``, full folding: ``"Straße"`` and ``"STRASSE"`` fold alike). A search
    text finds the ids whose key contains the text's key.

    >>> search_key("\\u00c9mile") == search_key("e\\u0301MILE") == "\\u00e9mile"
    True
    """
    return normal_id(text).casefold()


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


def time_problem(t: object) -> str | None:
    """Why ``t`` cannot be a match time (a datetime or a finite number within
    [:data:`MIN_TIME`, :data:`MAX_TIME`)), or ``None``."""
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
        id = normal_id(id)
        why = time_problem(time)
        if why is not None:
            raise bad("time", why)
        if isinstance(teams, str) or len(teams) < 2:
            raise bad("teams", f"need at least two teams, got {teams!r}")
        tteams: list[tuple[str, ...]] = []
        seen: set[str] = set()
        for t in teams:
            if isinstance(t, str) or len(t) == 0:
                raise bad("teams", f"each team is a non-empty list of player ids, got {t!r}")
            tteams.append(_distinct(t, seen, id_problem, ("teams", "player id", "player"), bad))
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
            tdeal = normal_id(deal)
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

    @classmethod
    def recorded(cls, id: str, time: Time, fields: Mapping[str, Any]) -> Match:
        """A match as a store recorded it: ``fields`` (``teams``, ``ranks``, ``weights``,
        ``scores``, ``roles``, ``deal``, ``luck``, as in the constructor) taken as they are.
        They were checked when the match was recorded, maybe by an earlier version whose rules
        on ids were looser (before the visible-character and bidirectional-control rules and
        NFC): a recorded id keeps its stored spelling, so the log reads back as it was rated."""

        def nested(v: Any) -> Any:
            return None if v is None else tuple(tuple(x) for x in v)

        def flat(v: Any, kind: Callable[[Any], Any]) -> Any:
            return None if v is None else tuple(kind(x) for x in v)

        m = object.__new__(cls)
        for name, value in (
            ("id", id),
            ("time", time),
            ("teams", nested(fields["teams"])),
            ("ranks", tuple(fields["ranks"])),
            ("weights", None if fields["weights"] is None else flat(fields["weights"], _floats)),
            ("scores", flat(fields["scores"], float)),
            ("roles", nested(fields["roles"])),
            ("deal", fields["deal"]),
            ("luck", flat(fields["luck"], float)),
        ):
            object.__setattr__(m, name, value)
        return m

    @property
    def players(self) -> tuple[str, ...]:
        """Every player id, team by team."""
        return tuple(p for t in self.teams for p in t)

    def time_value(self) -> float:
        """``time`` as a number: :func:`time_value` (POSIX seconds for datetimes, naive = UTC)."""
        return time_value(self.time)


def _floats(values: Sequence[float]) -> tuple[float, ...]:
    return tuple(float(x) for x in values)


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
        out.append(_distinct(rs, seen, _label_problem, ("roles", "role", "role"), bad))
    return tuple(out)


def check_roles(
    roles: Sequence[Sequence[str]], teams: Sequence[Sequence[str]]
) -> tuple[tuple[str, ...], ...]:
    """``roles`` for a game of ``teams`` (one printable, short, distinct name per player, in
    the shape of ``teams``, in NFC), as a match takes them; else :class:`InvalidMatchError`
    naming what is wrong (field ``roles``)."""

    def bad(field: str, message: str) -> InvalidMatchError:
        return InvalidMatchError(f"{field}: {message}", field)

    checked = _checked_roles(roles, [tuple(t) for t in teams], bad)
    assert checked is not None
    return checked


def _distinct(
    names: Sequence[str],
    seen: set[str],
    problem: Callable[[object], str | None],
    words: tuple[str, str, str],
    bad: Callable[[str, str], InvalidMatchError],
) -> tuple[str, ...]:
    """``names`` in NFC (:func:`normal_id`), each allowed by ``problem`` and none in ``seen``
    (canonically equal spellings are one name), added to ``seen``; ``words``: the field, and
    what a name is called when bad and when repeated."""
    field, noun, repeated = words
    out = []
    for raw in names:
        why = problem(raw)
        if why is not None:
            raise bad(field, f"{noun} {_short(raw)} {why}")
        name = normal_id(raw)
        if name in seen:
            raise bad(field, f"{repeated} {name!r} appears twice")
        seen.add(name)
        out.append(name)
    return tuple(out)


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


def assemble(
    ids: Sequence[str],
    times: Sequence[Time],
    teams: Sequence[tuple[tuple[str, ...], ...]],
    ranks: Sequence[tuple[int | None, ...]],
    weights: Sequence[tuple[tuple[float, ...], ...] | None],
    scores: Sequence[tuple[float, ...] | None],
) -> list[Match]:
    """Matches from columns (one value per match) whose every value has been checked already,
    as the constructor would have made them: ids in NFC, times within range, teams, ranks,
    weights and scores as tuples in the constructor's types, ranks agreeing with the scores (the
    column path of the match files, which checks whole columns at once). The fields are set as
    given: in one compiled pass where :func:`mindsport._jit.fill.made` can (lists of values),
    else one column at a time, without a Python call per match; no roles, deal or luck."""
    from mindsport._jit.fill import made

    names = ("id", "time", "teams", "ranks", "weights", "scores", "roles", "deal", "luck")
    columns = (ids, times, teams, ranks, weights, scores, None, None, None)
    filled = made(Match, names, columns, len(ids))
    if filled is not None:
        return filled
    out = list(map(object.__new__, repeat(Match, len(ids))))
    slot = Match.__dict__
    for name, values in (
        ("id", ids),
        ("time", times),
        ("teams", teams),
        ("ranks", ranks),
        ("weights", weights),
        ("scores", scores),
    ):
        deque(map(slot[name].__set__, out, values), maxlen=0)
    for name in ("roles", "deal", "luck"):
        deque(map(slot[name].__set__, out, repeat(None)), maxlen=0)
    return out
