"""Identifier rules (issue 42): ids made only of invisible characters and ids holding a
bidirectional control are refused, canonically equal spellings are one id (NFC), and the
service's schema pattern states exactly the rule of :func:`mindsport.match.id_problem`.

The references are written here: lists of known invisible and bidirectional code points, and
``unicodedata`` (categories, NFC)."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest

from mindsport.match import (
    INVISIBLE,
    INVISIBLE_VERSION,
    InvalidMatchError,
    Match,
    id_problem,
    normal_id,
    search_key,
)

#: known characters that show nothing alone: zero-width space, non-joiner, joiner, word
#: joiner, BOM, soft hyphen, Mongolian vowel separator, combining acute (Mn), combining
#: enclosing circle (Me), variation selector 16, ideographic space, no-break space, em space,
#: Hangul filler, tag LATIN SMALL A and language tag (Cf, plane 14), combining grapheme joiner
INVISIBLES = [
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u0301", "\u20dd",
    "\ufe0f", "\u3000", "\u00a0", "\u2003", "\u3164", "\U000e0061", "\U000e0001", "\u034f",
]  # fmt: skip
#: the bidirectional controls: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI
BIDI = [
    "\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
    "\u2066", "\u2067", "\u2068", "\u2069",
]  # fmt: skip
VISIBLE = ["ann", "caf\u00e9", "cafe\u0301", "\U0001f600", "\u540d\u4eba", "a\u200db", "x\u0301"]


@pytest.mark.parametrize("ch", INVISIBLES)
def test_ids_made_only_of_invisible_characters_are_refused(ch: str) -> None:
    for value in (ch, ch * 3, ch + "\u200b" + ch, " " + ch):
        why = id_problem(value)
        assert why is not None and ("visible" in why or "whitespace" in why), (value, why)
        with pytest.raises(InvalidMatchError, match="match id"):
            Match(value, 0, [["a"], ["b"]], [0, 1])
        with pytest.raises(InvalidMatchError, match="player id"):
            Match("m", 0, [[value], ["b"]], [0, 1])
    assert id_problem("a" + ch) is None and id_problem(ch + "a") is None  # with a visible base


@pytest.mark.parametrize("ch", BIDI)
def test_bidirectional_controls_are_refused_anywhere(ch: str) -> None:
    for at in range(4):
        value = "abc"[:at] + ch + "abc"[at:]
        why = id_problem(value)
        assert why == (
            f"contains the bidirectional control character U+{ord(ch):04X} at position {at}"
        )
    with pytest.raises(InvalidMatchError, match=f"U\\+{ord(ch):04X}"):
        Match("m", 0, [["a"], ["b"]], [0, 1], roles=[["x" + ch], ["y"]])


@pytest.mark.parametrize("value", VISIBLE)
def test_visible_ids_are_accepted(value: str) -> None:
    assert id_problem(value) is None


def test_the_invisible_table_is_what_unicodedata_says() -> None:
    """:data:`INVISIBLE` recomputed from the categories (Cf, Mn, Me, Zs, Zl, Zp, whitespace,
    the four Hangul fillers; controls and surrogates aside)."""
    if unicodedata.unidata_version != INVISIBLE_VERSION:
        pytest.skip(f"Unicode {unicodedata.unidata_version}: the table is of {INVISIBLE_VERSION}")
    listed = set()
    for item in INVISIBLE.split():
        lo, _, hi = item.partition("-")
        listed.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    expected = {
        c
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) not in ("Cc", "Cs")
        and (
            unicodedata.category(chr(c)) in ("Cf", "Mn", "Me", "Zs", "Zl", "Zp")
            or chr(c).isspace()
            or c in (0x115F, 0x1160, 0x3164, 0xFFA0)
        )
    }
    assert listed == expected
    assert {ord(c) for c in INVISIBLES} <= listed


def _reference_ok(value: str) -> bool:
    """The rule from ``unicodedata`` directly."""
    if not value or any(unicodedata.category(c) in ("Cc", "Cs") for c in value):
        return False
    if any(c in BIDI for c in value):
        return False
    hidden = ("Cf", "Mn", "Me", "Zs", "Zl", "Zp")
    return any(
        not (unicodedata.category(c) in hidden or c.isspace() or c in "\u115f\u1160\u3164\uffa0")
        for c in value
    )


def test_id_problem_and_the_schema_pattern_agree_with_the_reference_on_every_character() -> None:
    """Every code point alone, and after a visible letter: :func:`id_problem`, the service's
    :data:`ID_PATTERN` (Python's ``re``) and pydantic's validator (Rust's regex) agree with the
    reference. Checked under the Unicode version of the table."""
    if unicodedata.unidata_version != INVISIBLE_VERSION:
        pytest.skip(f"Unicode {unicodedata.unidata_version}: the table is of {INVISIBLE_VERSION}")
    from typing import Annotated

    from pydantic import Field, TypeAdapter, ValidationError

    from mindsport.service.schemas import ID_PATTERN

    pattern = re.compile(ID_PATTERN)
    adapter = TypeAdapter(Annotated[str, Field(pattern=ID_PATTERN)])
    for c in range(sys.maxunicode + 1):
        if 0xD800 <= c <= 0xDFFF:
            assert id_problem(chr(c)) is not None
            continue
        for value in (chr(c), "a" + chr(c)):
            ok = _reference_ok(value)
            assert (id_problem(value) is None) == ok, (hex(c), value)
            assert (pattern.fullmatch(value) is not None) == ok, (hex(c), value)
            if c % 97 == 0 or not ok:  # pydantic on a sample and on every refusal
                try:
                    adapter.validate_python(value)
                    accepted = True
                except ValidationError:
                    accepted = False
                assert accepted == ok, (hex(c), value)


def test_canonically_equal_ids_are_one_id() -> None:
    nfd, nfc = "cafe\u0301", "caf\u00e9"
    assert nfd != nfc and unicodedata.normalize("NFC", nfd) == nfc
    m = Match("\u00c5ngstr\u00f6m", 0, [[nfd], ["b"]], [0, 1], roles=[["r\u0301"], ["s"]])
    assert m.teams == ((nfc,), ("b",))
    assert m.id == unicodedata.normalize("NFC", "A\u030angstro\u0308m")
    assert m.roles == (("\u0155",), ("s",))
    # NFC reorders the marks (dot below before dot above) and composes: U+1E0D U+0307
    assert Match("m", 0, [["a"], ["b"]], [0, 1], deal="d\u0307\u0323").deal == "\u1e0d\u0307"
    assert Match("m", 0, [["a"], ["b"]], [0, 1], deal="d\u0307").deal == "\u1e0b"
    with pytest.raises(InvalidMatchError, match="appears twice"):
        Match("m", 0, [[nfd], [nfc]], [0, 1])
    assert normal_id(nfd) == nfc and normal_id("plain") == "plain"


def test_a_recorded_match_keeps_its_spelling() -> None:
    """A match read back from a store keeps the ids as stored (even ones the rules now refuse:
    stored by an earlier version)."""
    m = Match.recorded(
        "cafe\u0301",
        5,
        {"teams": [["\u200b"], ["b"]], "ranks": [0, 1], "weights": None, "scores": [2, 1],
         "roles": None, "deal": None, "luck": None},
    )  # fmt: skip
    assert m.id == "cafe\u0301" and m.teams == (("\u200b",), ("b",))
    assert m.scores == (2.0, 1.0) and m.ranks == (0, 1)


def test_search_key_is_the_casefold_of_the_nfc_form() -> None:
    for text in ["\u00c9mile", "E\u0301MILE", "Stra\u00dfe", "\u0130stanbul", "\u03a3\u039f\u03a6"]:
        assert search_key(text) == unicodedata.normalize("NFC", text).casefold()
    assert search_key("STRASSE") == search_key("stra\u00dfe")
