"""The write path: canonical records (one instant, any player order), group commit (each request
stands or falls alone), late matches, and a refused ingest leaving nothing behind."""

from __future__ import annotations

import hashlib
import json
import pickle
import random
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Index,
    Integer,
    MetaData,
    Table,
    UniqueConstraint,
    create_engine,
    inspect,
    text,
    update,
)

from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.history import Match
from mindsport.store import IngestResult, Store, StoreError, resolve_url
from mindsport.store.codec import prepare_matches
from mindsport.store.commit import GroupCommitter, WorkItem
from mindsport.store.ingest import _Request
from mindsport.store.schema import LEAGUE_DATA, SURROGATE_ID_TABLES
from mindsport.store.schema import matches as matches_table
from mindsport.store.schema import rating_history as history_table

TOL = 2e-5


def _states_equal(st: Store, league: str, ref: dict[str, tuple[float, float]]) -> None:
    got = st.states(league)
    assert set(got) == set(ref)
    for p, (mu, sigma) in ref.items():
        assert got[p].mu == pytest.approx(mu, abs=TOL)
        assert got[p].sigma == pytest.approx(sigma, abs=TOL)


def test_one_instant_however_written_and_any_player_order(db_url: str) -> None:
    base = datetime(2024, 1, 1)
    spellings: list[Any] = [
        base,  # naive: UTC
        base.replace(tzinfo=UTC),
        base.replace(hour=8, tzinfo=timezone(timedelta(hours=8))),
        1704067200,
        1704067200.0,
    ]
    with Store(db_url) as st:
        st.create_league("main")
        first = st.add_match("main", Match("g", spellings[0], [["a", "b"], ["c"]], [0, 1]))
        assert first.added == 1
        for t in spellings[1:]:
            again = st.add_match("main", Match("g", t, [["b", "a"], ["c"]], [0, 1]))
            assert (again.added, again.duplicates) == (0, 1)
        with pytest.raises(ConflictError, match="'g'"):  # another instant: another result
            st.add_match("main", Match("g", 1704067201, [["a", "b"], ["c"]], [0, 1]))
        with pytest.raises(ConflictError, match="'g'"):  # players moved between teams
            st.add_match("main", Match("g", base, [["a", "c"], ["b"]], [0, 1]))
        (stored,) = st.matches("main")
        assert stored.time == datetime(2024, 1, 1, tzinfo=UTC)  # one stored form: UTC
        assert st.match_count("main") == 1


def test_rows_of_an_earlier_digest_form_are_recognised(db_url: str) -> None:
    """A log written with another digest form: an identical re-post is still a duplicate."""
    m = Match("g", datetime(2024, 3, 1, 12), [["a"], ["b"]], [0, 1])
    with Store(db_url) as st:
        st.create_league("main")
        st.add_match("main", m)
        engine = create_engine(resolve_url(db_url))
        with engine.begin() as conn:
            conn.execute(update(matches_table).values(digest="0" * 64))
        engine.dispose()
        assert st.add_match("main", m).duplicates == 1
        with pytest.raises(ConflictError):
            st.add_match("main", Match("g", m.time, m.teams, [1, 0]))


def test_stored_forms_are_the_json_encoders() -> None:
    """The encoder-free spellings of a match's digest and of its teams column are the JSON
    module's own, for names with quotes, backslashes and characters beyond ASCII."""
    rng = random.Random(5)
    alphabet = 'ab"\\/é中\u2028 😀'
    for i in range(300):
        names = {"".join(rng.choices(alphabet, k=rng.randint(1, 6))) for _ in range(5)}
        names = [n for n in names if n.strip()]
        if len(names) < 2:
            continue
        teams = [names[: len(names) // 2], names[len(names) // 2 :]]
        ranks = rng.choice([[0, 1], [1, 0], [0, 0], [None, 0]])
        t = rng.choice([i, i + 0.1, 1.7e9 + i / 3, datetime(2024, 1, 1, tzinfo=UTC)])
        enc = prepare_matches([Match(f"m{i}", t, teams, ranks)]).records[f"m{i}"]
        body = [enc["time_value"], [sorted(x) for x in teams], ranks, None, None]
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        assert enc["digest"] == hashlib.sha256(text.encode()).hexdigest()
        assert enc["json"][0] == json.dumps(teams)


def _request(league: str, ms: list[Match]) -> WorkItem[IngestResult]:
    return WorkItem(
        domain=None,
        part=league,
        size=len(ms),
        payload=_Request(league, prepare_matches(ms), None, None),
    )


def test_a_refused_request_does_not_sink_its_group(db_url: str, reference: Any) -> None:
    good1 = [Match("a1", 1, [["p"], ["q"]], [0, 1]), Match("a2", 2, [["q"], ["r"]], [0, 0])]
    clash = [Match("b1", 3, [["p"], ["r"]], [0, 1]), Match("a1", 1, [["p"], ["q"]], [1, 0])]
    good2 = [Match("c1", 4, [["r"], ["s"]], [1, 0]), Match("a2", 2, [["q"], ["r"]], [0, 0])]
    with Store(db_url) as st:
        st.create_league("main")
        items = [_request("main", good1), _request("main", clash), _request("main", good2)]
        st._commit_group(items)
        assert items[0].future.result() == IngestResult(2, 0, 0)
        with pytest.raises(ConflictError, match=r"'a1'.*concurrent request"):
            items[1].future.result()
        assert items[2].future.result() == IngestResult(1, 1, 0)  # a2 came in the group before
        assert sorted(m.id for m in st.matches("main")) == ["a1", "a2", "c1"]
        final, _ = reference([*good1, good2[0]])
        _states_equal(st, "main", final)


def test_a_model_refusal_fails_only_its_own_request(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("g", "glicko2")
        st.create_league("t")
        items = [
            _request("g", [Match("x1", 1, [["a"], ["b"]], [0, 1])]),
            _request("g", [Match("x2", 2, [["a", "c"], ["b"]], [0, 1])]),  # teams: refused
            _request("t", [Match("y1", 1, [["a", "c"], ["b"]], [0, 1])]),
            _request("g", [Match("x3", 3, [["b"], ["c"]], [1, 0])]),
            _request("nope", [Match("z1", 1, [["a"], ["b"]], [0, 1])]),
        ]
        st._commit_group(items)
        assert items[0].future.result().added == 1
        with pytest.raises(StoreError, match="'x2'"):
            items[1].future.result()
        assert items[2].future.result().added == 1
        assert items[3].future.result().added == 1
        with pytest.raises(NotFoundError, match="'nope'"):
            items[4].future.result()
        assert sorted(m.id for m in st.matches("g")) == ["x1", "x3"]
        assert st.match_count("t") == 1


def test_a_refusal_after_rows_were_streamed_leaves_nothing(db_url: str) -> None:
    """PostgreSQL streams each block of rated matches' history rows while the next block is
    rated: a match refused in a later block must still take its whole request back."""
    many = [Match(f"m{i}", i, [[f"p{i % 7}"], [f"q{i % 5}"]], [0, 1]) for i in range(600)]
    many[450] = Match("m450", 450, [["p1", "p2"], ["q1"]], [0, 1])  # teams: glicko2 refuses
    with Store(db_url) as st:
        st.create_league("g", "glicko2")
        items = [_request("g", many), _request("g", [Match("ok", 1000, [["a"], ["b"]], [1, 0])])]
        st._commit_group(items)
        with pytest.raises(StoreError, match="'m450'"):
            items[0].future.result()
        assert items[1].future.result().added == 1
        assert [m.id for m in st.matches("g")] == ["ok"]
        assert sorted(st.states("g")) == ["a", "b"]
        assert [h.match_id for h in st.player("g", "a").history] == ["ok"]


def test_committer_groups_by_league_budget_and_runs_alone_items_alone() -> None:
    seen: list[list[str]] = []
    release = threading.Event()

    def run(group: Any) -> None:
        release.wait(10)
        seen.append([item.payload for item in group])
        for item in group:
            item.future.set_result(len(group))

    committer: GroupCommitter[int] = GroupCommitter(run, max_group_size=10, workers=1)

    def item(name: str, part: str, size: int, alone: bool = False) -> WorkItem[int]:
        return WorkItem(domain=0, part=part, size=size, payload=name, alone=alone)

    first = committer.submit(item("first", "a", 1))  # its writer waits for `release`
    rest = [
        item("a6", "a", 6),
        item("a5", "a", 5),  # would pass a's budget of 10: next group
        item("b9", "b", 9),  # b's own budget: same group as a6
        item("solo", "a", 1, alone=True),
        item("a4", "a", 4),
        item("big", "c", 25),  # larger than the budget: alone in its part
    ]
    futures = [committer.submit(x) for x in rest]
    release.set()
    first.result(10)
    for f in futures:
        f.result(10)
    committer.close()
    assert seen == [["first"], ["a6", "b9", "a4", "big"], ["a5"], ["solo"]]


def _recording_committer(hold: float) -> tuple[GroupCommitter[int], list[list[str]], Any, Any]:
    """A committer that records every group; a group sets ``entered`` and waits for
    ``release``."""
    seen: list[list[str]] = []
    release = threading.Event()
    entered = threading.Event()

    def run(group: Any) -> None:
        entered.set()
        release.wait(10)
        seen.append([item.payload for item in group])
        for item in group:
            item.future.set_result(len(group))

    return GroupCommitter(run, max_group_size=10, workers=1, hold=hold), seen, release, entered


def _item(name: str, part: str) -> WorkItem[int]:
    return WorkItem(domain=0, part=part, size=1, payload=name)


def test_a_group_waits_for_the_oldest_reservation_of_its_league() -> None:
    """Posts sent together reach the server in any order: a commit about to start waits for the
    post still being prepared that arrived first and takes it into the group."""
    committer, seen, release, entered = _recording_committer(hold=10.0)
    first = committer.submit(_item("first", "a"))
    assert entered.wait(10)  # its group is committing (until `release`)
    early = committer.reserve(0, "a")  # arrived first, still being parsed
    later = committer.reserve(0, "a")
    second = committer.submit(_item("second", "a"))
    release.set()
    first.result(10)
    time.sleep(0.2)  # the writer waits for `early` (not for `later`)
    assert seen == [["first"]]
    late_future = committer.submit(_item("early", "a"), early)
    for f in (second, late_future):
        f.result(10)
    assert seen == [["first"], ["second", "early"]]
    committer.release(later)
    committer.release(later)  # twice: nothing happens
    committer.close()


def test_a_paced_league_waits_while_other_leagues_commit() -> None:
    """A paced part (a league being brought up to date) is not committed before its pace ends;
    its items queued meanwhile go in one group, in arrival order, and another part's item is
    committed at once (the clock is the reference)."""
    seen: list[list[str]] = []
    when: dict[str, float] = {}

    def run(group: Any) -> None:
        seen.append([item.payload for item in group])
        for item in group:
            when[item.payload] = time.monotonic()
            item.future.set_result(len(group))

    committer: GroupCommitter[int] = GroupCommitter(run, max_group_size=10, workers=1)
    start = time.monotonic()
    committer.pace("a", 0.4)
    paced = [committer.submit(_item(name, "a")) for name in ("a1", "a2")]
    other = committer.submit(_item("b1", "b"))
    other.result(10)
    for f in paced:
        f.result(10)
    committer.pace("a", 0.0)  # an expired pace holds nothing back
    committer.submit(_item("a3", "a")).result(10)
    committer.close()
    assert seen == [["b1"], ["a1", "a2"], ["a3"]]
    assert when["b1"] < start + 0.4 <= when["a1"]


def test_a_group_does_not_wait_for_a_post_that_arrived_after_it() -> None:
    """Two clients posting in turn: while one client's post commits, the other's is queued, and
    the first client's next post (sent once it was answered) is still being parsed. It arrived
    after the queued post and after the answer, so the writer does not wait for it; a post that
    arrived before the answer, even after the queued one, is waited for."""
    committer, seen, release, entered = _recording_committer(hold=10.0)
    first = committer.submit(_item("a1", "a"))
    assert entered.wait(10)
    queued = committer.submit(_item("b1", "a"), committer.reserve(0, "a"))
    t0 = time.perf_counter()
    release.set()
    first.result(10)
    next_post = committer.reserve(0, "a")  # a1's client, after its answer: still parsing
    queued.result(10)
    assert time.perf_counter() - t0 < 5  # not the 10 s hold
    assert seen == [["a1"], ["b1"]]
    committer.release(next_post)
    # c1 is queued while c0 commits, and d1 registered after it but before c0's answer: the
    # two arrived together, d1 may be the earlier one, so c1's group waits for it
    release.clear()
    entered.clear()
    c0 = committer.submit(_item("c0", "a"))
    assert entered.wait(10)
    c1 = committer.submit(_item("c1", "a"), committer.reserve(0, "a"))
    d1 = committer.reserve(0, "a")  # registered after c1, before c0's answer
    release.set()
    c0.result(10)
    time.sleep(0.2)
    assert seen[-1] == ["c0"]  # c1 waits for d1
    committer.submit(_item("d1", "a"), d1).result(10)
    c1.result(10)
    assert seen[-1] == ["c1", "d1"]
    committer.close()


def test_a_released_or_stale_reservation_does_not_hold_a_group() -> None:
    committer, seen, release, _ = _recording_committer(hold=0.3)
    release.set()
    gone = committer.reserve(0, "a")
    committer.release(gone)
    t0 = time.perf_counter()
    committer.submit(_item("x", "a")).result(10)
    assert time.perf_counter() - t0 < 0.25  # nothing open: committed at once
    stuck = committer.reserve(0, "a")  # never submitted nor released
    t0 = time.perf_counter()
    committer.submit(_item("y", "a")).result(10)
    assert 0.25 <= time.perf_counter() - t0 < 5  # waited for it, but only `hold` seconds
    committer.release(stuck)
    other = committer.reserve(0, "b")  # another league's preparation
    t0 = time.perf_counter()
    committer.submit(_item("z", "a")).result(10)
    assert time.perf_counter() - t0 < 0.25
    committer.release(other)
    committer.close()
    assert seen == [["x"], ["y"], ["z"]]


def test_a_group_of_several_leagues_does_not_wait() -> None:
    """On SQLite one writer serves every league: a league's commit never waits for another
    league's preparation, nor a mixed group for anyone's."""
    committer, seen, release, entered = _recording_committer(hold=10.0)
    first = committer.submit(_item("first", "a"))
    assert entered.wait(10)
    committer.reserve(0, "a")
    rest = [committer.submit(_item("a2", "a")), committer.submit(_item("b1", "b"))]
    t0 = time.perf_counter()
    release.set()
    for f in (first, *rest):
        f.result(10)
    assert time.perf_counter() - t0 < 5
    a3 = committer.submit(_item("a3", "a"))  # waits for the open reservation of "a" ...
    time.sleep(0.2)
    t0 = time.perf_counter()
    committer.submit(_item("b2", "b")).result(10)  # ... until another league's item comes
    a3.result(10)
    assert time.perf_counter() - t0 < 5
    assert seen == [["first"], ["a2", "b1"], ["a3", "b2"]]
    committer.close()


def test_late_matches_nothing_depends_on_are_appended(db_url: str, reference: Any) -> None:
    """A match earlier than the latest whose players have no later match: no replay, same
    ratings as replaying everything in time order."""
    log = [Match("m1", 10, [["a"], ["b"]], [0, 1]), Match("m2", 20, [["c"], ["d"]], [1, 0])]
    late = Match("m0", 15, [["a"], ["e"]], [0, 1])  # a's last game was at 10: nothing depends
    dep = Match("m3", 12, [["c"], ["f"]], [0, 0])  # c played at 20: m2 must be re-rated
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", log)
        assert st.add_match("main", late) == IngestResult(1, 0, 0)
        assert st.add_match("main", dep) == IngestResult(1, 0, 1)
        final, hist = reference(sorted([*log, late, dep], key=lambda m: m.time))
        _states_equal(st, "main", final)
        assert len(st.player("main", "c").history) == len(hist["c"]) == 2


def test_a_prepared_batch_travels_and_is_stored_as_its_matches(db_url: str, reference: Any) -> None:
    """A batch prepared elsewhere (pickled, as between processes) is stored like the matches
    themselves: the same counts, stored form and ratings as the reference replay."""
    rng = random.Random(11)
    ms = [
        Match(f"g{i}", datetime(2024, 5, 1, tzinfo=UTC) + timedelta(hours=i),
              [list(t) for t in (rng.sample("abcdefg", 2), rng.sample("hijk", 1))],
              rng.choice([[0, 1], [1, 0], [0, 0]]))
        for i in range(60)
    ]  # fmt: skip
    prepared = prepare_matches([*ms, ms[7]])  # an identical repeat counts once
    assert prepared.size == 61 and len(prepared.records) == 60
    travelled = pickle.loads(pickle.dumps(prepared))
    with Store(db_url) as st:
        st.create_league("main")
        assert st.add_matches("main", travelled) == IngestResult(60, 1, 0)
        assert st.add_matches("main", prepare_matches(ms[:5])) == IngestResult(0, 5, 0)
        assert st.matches("main") == ms
        final, _ = reference(ms)
        _states_equal(st, "main", final)
    with pytest.raises(ConflictError, match="'g3' appears twice"):
        prepare_matches([*ms, Match("g3", ms[3].time, ms[3].teams, [None, 0])])


def test_refused_ingest_with_create_leaves_no_league(db_url: str) -> None:
    ms = [Match(f"g{i}", i, [["a"], ["b"]], [0, 1]) for i in range(5)]
    ms[3] = Match("g3", 3, [["a", "c"], ["b"]], [0, 1])  # Glicko-2 takes no teams
    with Store(db_url) as st:
        with pytest.raises(MindsportError, match="'g3'"):
            st.add_matches("new", ms, create=("glicko2", {}))
        assert st.list_leagues() == []
        got = st.add_matches("new", ms[:3], create=("glicko2", {}))
        assert got.added == 3 and st.get_league("new").model == "glicko2"
        # an existing league keeps its settings
        assert st.add_matches("new", ms[4:], create=("trueskill", {})).added == 1
        assert st.get_league("new").model == "glicko2"


def test_concurrent_clients_of_one_store_share_commits(db_url: str, reference: Any) -> None:
    """Many threads posting through one store (the service's case): every match once, ratings
    equal to the reference replaying the committed order."""
    rng = random.Random(3)
    pool = [f"u{i}" for i in range(10)]
    ms = []
    for i in range(120):
        a, b = rng.sample(pool, 2)
        ms.append(Match(f"s{i}", 0, [[a], [b]], [0, 1] if rng.random() < 0.5 else [1, 0]))
    errors: list[BaseException] = []
    queue = list(ms)
    lock = threading.Lock()
    with Store(db_url) as st:
        st.create_league("main")

        def work() -> None:
            while True:
                with lock:
                    if not queue:
                        return
                    m = queue.pop()
                try:
                    st.add_match("main", m)
                except BaseException as exc:  # pragma: no cover - reported below
                    errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        committed = st.matches("main")  # equal times: commit order
        assert sorted(m.id for m in committed) == sorted(m.id for m in ms)
        final, _ = reference(committed)
        _states_equal(st, "main", final)


def _league_keys(url: str) -> set[str]:
    """The tables of the match log and the derived tables with a foreign key to the leagues."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            found = inspect(conn)
            return {
                t
                for t in LEAGUE_DATA
                for key in found.get_foreign_keys(t)
                if key["referred_table"] == "ms_leagues"
            }
    finally:
        engine.dispose()


def test_written_tables_have_no_league_foreign_key(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        st.add_match("main", Match("g", 1, [["a"], ["b"]], [0, 1]))
    assert _league_keys(db_url) == set()


def test_league_foreign_keys_of_an_earlier_version_are_dropped(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite keeps the keys of an earlier version (dropping one rebuilds a table)")
    postgres_url = db_url
    ms = [Match(f"g{i}", i, [["a", "b"], ["c"]], [i % 2, 1 - i % 2]) for i in range(3)]
    with Store(postgres_url) as st:
        st.create_league("main")
        st.add_matches("main", ms[:2])
        before = st.states("main")
    engine = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:  # the constraints as an earlier version made them
        for t in LEAGUE_DATA:
            conn.execute(
                text(
                    f"ALTER TABLE {t} ADD CONSTRAINT {t}_league_id_fkey FOREIGN KEY (league_id) "
                    "REFERENCES ms_leagues (id) ON DELETE CASCADE"
                )
            )
    engine.dispose()
    assert _league_keys(postgres_url) == set(LEAGUE_DATA)
    with Store(postgres_url, create=False) as st:  # a reading command drops them
        assert st.states("main") == before
    assert _league_keys(postgres_url) == set()
    with Store(postgres_url) as st:
        assert st.add_matches("main", ms).duplicates == 2
        assert st.match_count("main") == 3


def test_numbers_come_back_as_the_same_doubles(db_url: str) -> None:
    """Rows travel to PostgreSQL as JSON text read back through the server's decimal numbers:
    every double must come back bit for bit."""
    rng = random.Random(7)
    times = sorted(
        [1 / 3, 0.1 + 0.2, 1e-7, 2.0**-40, 5e-324, 2.0**32 + 0.5, 123456.789e3, 7.2e9 - 1 / 7]
        + [rng.uniform(-5e9, 7e9) for _ in range(40)]
    )
    ms = [Match(f"g{i}", t, [["a"], ["b"]], [i % 2, 1 - i % 2]) for i, t in enumerate(times)]
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", ms)
        assert [m.time for m in st.matches("main")] == times
        record = st.player("main", "a")
        assert [h.time for h in record.history] == times
        assert (record.history[-1].mu, record.history[-1].sigma) == (
            record.state.mu,
            record.state.sigma,
        )


def _old_log_tables() -> MetaData:
    """The match log and the rating history as earlier versions made them: each row numbered by
    an ``id`` primary key, a history indexed (not keyed) by player."""
    old = MetaData()
    Table(
        "ms_matches",
        old,
        Column("id", Integer, primary_key=True, autoincrement=True),
        *_plain_columns(matches_table),
        UniqueConstraint("league_id", "match_id", name="uq_ms_matches_league_match"),
        UniqueConstraint("league_id", "seq", name="uq_ms_matches_league_seq"),
        Index("ix_ms_matches_order", "league_id", "time_value", "seq"),
    )
    Table(
        "ms_rating_history",
        old,
        Column("id", Integer, primary_key=True, autoincrement=True),
        *_plain_columns(history_table),
        Index("ix_ms_history_player", "league_id", "player", "time_value", "seq"),
        Index("ix_ms_history_order", "league_id", "time_value", "seq"),
    )
    return old


def _plain_columns(table: Table) -> list[Column[Any]]:
    """``table``'s columns with their types and nullability, in no key."""
    return [Column(c.name, c.type, nullable=c.nullable) for c in table.c]


def test_row_numbers_of_an_earlier_version(db_url: str, reference: Any) -> None:
    """Tables with the ``id`` column of earlier versions: PostgreSQL drops it when the database
    is opened, SQLite keeps it (its row number); on both, the history's time-order index is
    dropped, and late matches re-rate the players from their latest history rows as a replay
    of the whole log does."""
    engine = create_engine(resolve_url(db_url))
    try:
        _old_log_tables().create_all(engine)
        log = [Match(f"m{i}", 10 * i, [["a", "b"], ["c"]], [i % 2, 1 - i % 2]) for i in range(6)]
        late = [Match("late", 25, [["c"], ["a"]], [0, 1]), Match("new", 99, [["d"], ["b"]], [1, 0])]
        with Store(db_url) as st:
            st.create_league("main")
            st.add_matches("main", log)
            assert st.add_matches("main", late) == IngestResult(2, 0, 3)
            final, hist = reference(sorted([*log, *late], key=lambda m: m.time))
            _states_equal(st, "main", final)
            got = [(h.time, h.mu) for h in st.player("main", "a").history]
            assert [t for t, _ in got] == [0, 10, 20, 25, 30, 40, 50]
            assert [mu for _, mu in got] == pytest.approx([mu for mu, _ in hist["a"]], abs=TOL)
        found = inspect(engine)
        has_id = {t: "id" in {c["name"] for c in found.get_columns(t)} for t in SURROGATE_ID_TABLES}
        assert has_id == {t: engine.dialect.name == "sqlite" for t in SURROGATE_ID_TABLES}
        # the history's time-order index of earlier versions is gone; its player index stays
        indexes = {i["name"] for i in found.get_indexes("ms_rating_history")}
        assert "ix_ms_history_order" not in indexes
        assert "ix_ms_history_player" in indexes
    finally:
        engine.dispose()
