"""Round trip of arbitrary matches through every file format (hypothesis)."""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindsport.history import Match, ranks_from_scores, read_matches, write_matches
from mindsport.match import id_problem

ids = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=8
).filter(lambda s: s.strip() == s and s != "" and id_problem(s) is None)


@st.composite
def match_lists(draw: st.DrawFn) -> list[Match]:
    n = draw(st.integers(1, 4))
    out = []
    names = draw(st.lists(ids, min_size=12, max_size=12, unique=True))
    mids = draw(st.lists(ids, min_size=n, max_size=n, unique=True))
    for k in range(n):
        n_teams = draw(st.integers(2, 3))
        sizes = [draw(st.integers(1, 2)) for _ in range(n_teams)]
        pool = iter(names)
        teams = [[next(pool) for _ in range(s)] for s in sizes]
        ranks = draw(
            st.lists(
                st.one_of(st.none(), st.integers(0, 3)), min_size=n_teams, max_size=n_teams
            ).filter(lambda r: any(x is not None for x in r))
        )
        weights = None
        if draw(st.booleans()):
            weights = [[draw(st.floats(0, 1)) for _ in t] for t in teams]
        scores = None
        if draw(st.booleans()):
            scores = [draw(st.floats(-1e6, 1e6, allow_nan=False)) for _ in teams]
            # ranks given with scores must agree with them (or be left to be derived)
            ranks = draw(st.sampled_from([None, list(ranks_from_scores(scores))]))
        time = draw(
            st.one_of(
                st.integers(-(10**9), 10**9),
                st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
                st.builds(
                    lambda s: datetime(2020, 1, 1) + timedelta(seconds=s), st.integers(0, 10**8)
                ),
            )
        )
        out.append(Match(mids[k], time, teams, ranks, weights, scores))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match_lists())
def test_any_matches_round_trip(ms: list[Match]) -> None:
    with tempfile.TemporaryDirectory() as d:
        for ext in ("jsonl", "csv", "parquet"):
            path = Path(d) / f"m.{ext}"
            write_matches(path, ms)
            assert read_matches(path) == ms, ext
