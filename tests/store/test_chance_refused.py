"""A store league does not keep roles, deals or luck: such matches are refused whole, by name."""

from __future__ import annotations

import pytest

from mindsport.match import Match
from mindsport.store import Store
from mindsport.store.store import MatchRefusedError


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"roles": [["landlord"], ["farmer1"]]}, "roles"),
        ({"deal": "d1"}, "deal"),
        ({"luck": [0.3, 0.0]}, "luck"),
    ],
)
def test_matches_with_roles_deals_or_luck_are_refused(db_url: str, extra: dict, field: str) -> None:
    with Store(db_url) as st:
        st.create_league("ddz", "cardplay")
        with pytest.raises(MatchRefusedError, match=field) as info:
            st.add_matches(
                "ddz",
                [
                    Match("1", 1, [["a"], ["b"]], [0, 1]),
                    Match("2", 2, [["a"], ["b"]], [0, 1], **extra),
                ],
            )
        assert (info.value.match_id, info.value.field) == ("2", field)
        assert st.match_count("ddz") == 0
        st.add_match("ddz", Match("1", 1, [["a"], ["b"]], [0, 1]))
        assert st.states("ddz")["a"].mu > st.states("ddz")["b"].mu
