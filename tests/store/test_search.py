"""The leaderboard's case-insensitive search, one definition on SQLite and PostgreSQL (issue
42: ``émile`` found 1 player on SQLite and 3 on PostgreSQL). The reference is Python's own
``str.casefold`` of the NFC forms, written here: ``[p for p in ids if q.casefold() in
p.casefold()]``."""

from __future__ import annotations

import unicodedata

import pytest
from sqlalchemy import create_engine, text

from mindsport.match import Match
from mindsport.store import Store


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


#: ASCII, accented in NFC and NFD, Greek (final sigma), Cyrillic, German sharp s, Turkish
#: dotted and dotless i, a ligature, the Kelvin sign
IDS = [
    "emile", "\u00e9mile", "\u00c9mile", "\u00c9MILE_2", "e\u0301mile3", "EMILE4",
    "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3",
    "\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03c5\u03c2",
    "\u0416\u0443\u043a\u043e\u0432", "\u0436\u0443\u043a", "Stra\u00dfe", "STRASSE", "strasse7",
    "\u0130stanbul", "istanbul", "\u0131sparta", "ISPARTA", "\ufb01sh", "FISH2", "\u212aelvin",
    "kelvin",
]  # fmt: skip
QUERIES = [
    "\u00e9mile", "\u00c9MILE", "e\u0301mile", "emile", "mile", "\u03c3", "\u03a3\u03a3",
    "\u03c2", "\u0436\u0443\u043a", "\u0416\u0423\u041a", "\u00df", "ss", "STRA\u00dfE",
    "\u0130", "i", "\u0131", "I", "fi", "\ufb01", "k", "\u212a", "_", "%", "", "zz",
]  # fmt: skip


def _reference(q: str) -> list[str]:
    return sorted(p for p in map(nfc, IDS) if nfc(q).casefold() in p.casefold())


def _found(st: Store, league: str, q: str) -> list[str]:
    page = st.leaderboard(league, limit=500, search=q)
    assert page.total == len(page.entries)
    return sorted(e.player for e in page.entries)


def _matches() -> list[Match]:
    return [Match(f"m{i}", i, [[p], ["zz-anchor"]], [0, 1]) for i, p in enumerate(IDS)]


@pytest.mark.parametrize("model", ["trueskill", "trueskill-history"])
def test_search_equals_the_casefold_reference(db_url: str, model: str) -> None:
    assert len({nfc(p) for p in IDS}) == len(IDS)
    with Store(db_url) as st:
        st.create_league("s", model)
        st.add_matches("s", _matches())
        for q in QUERIES:
            want = _reference(q) if q else sorted([*map(nfc, IDS), "zz-anchor"])
            if q == "zz":
                want = ["zz-anchor"]
            assert _found(st, "s", q) == want, q
        # the case: the accented name in any case and spelling finds all four
        assert len(_found(st, "s", "\u00e9mile")) == 4
        assert _found(st, "s", "\u00e9mile") == _found(st, "s", "E\u0301MILE")


def test_search_keys_follow_late_matches(db_url: str) -> None:
    """A late match re-rates its players: their rows are written again, search keys with them."""
    with Store(db_url) as st:
        st.create_league("s")
        st.add_matches("s", _matches())
        st.add_match("s", Match("late", -1, [["\u00c9MILE_2"], ["Stra\u00dfe"]], [0, 1]))
        assert _found(st, "s", "SS") == _reference("SS")
        assert _found(st, "s", "\u00e9mile_") == [nfc("\u00c9MILE_2")]


def test_an_older_database_gets_its_search_keys(db_url: str) -> None:
    """The ratings of an earlier version (no search key column) are brought up on opening, the
    keys computed for the players already rated."""
    with Store(db_url) as st:
        st.create_league("s")
        st.add_matches("s", _matches())
    engine = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE ms_ratings DROP COLUMN search_key"))
    engine.dispose()
    with Store(db_url, create=False) as st:
        for q in QUERIES[:14]:
            if q:
                assert _found(st, "s", q) == _reference(q), q
