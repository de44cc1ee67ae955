"""API keys in the store: roles, revocation and expiry taking effect at once, hashes only, and
keys written by an earlier version of the table."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select, text, update

from mindsport.errors import ConflictError, NotFoundError
from mindsport.store import Store, StoreError, resolve_url
from mindsport.store.keys import (
    MAX_EXPIRY,
    PREFIX_LENGTH,
    KeyRefusedError,
    KeyRole,
    MissingKeyError,
    hash_key,
    key_matches,
    key_prefix,
    parse_expiry,
)
from mindsport.store.schema import api_keys


def test_roles_and_refusals(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        st.create_league("other")
        write, info = st.issue_key("main", label="scorer")
        admin = st.create_key(admin=True)
        assert info.role is KeyRole.WRITE and info.league == "main" and info.label == "scorer"
        assert st.authorize(write, "main") is KeyRole.WRITE
        assert st.authorize(admin, "other") is KeyRole.ADMIN  # an admin key writes anywhere
        assert st.authorize(admin) is KeyRole.ADMIN
        with pytest.raises(KeyRefusedError, match="league 'other'"):
            st.authorize(write, "other")
        with pytest.raises(KeyRefusedError, match="admin"):
            st.authorize(write)
        with pytest.raises(MissingKeyError):
            st.authorize(None, "main")
        with pytest.raises(MissingKeyError):
            st.authorize("", "main")
        with pytest.raises(KeyRefusedError, match="not a valid key"):
            st.authorize(write[:-1] + ("A" if write[-1] != "A" else "B"), "main")
        with pytest.raises(KeyRefusedError, match="not a valid key"):
            st.authorize("x\x00y", "main")
        with pytest.raises(NotFoundError, match="'nope'"):
            st.authorize(write, "nope")  # a good key, a league that does not exist
        with pytest.raises(StoreError, match="either an admin key"):
            st.create_key("main", admin=True)
        with pytest.raises(StoreError, match="either an admin key"):
            st.create_key()
        with pytest.raises(NotFoundError):
            st.create_key("nope")


def test_revocation_and_expiry_hold_at_once(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        key, info = st.issue_key("main")
        soon, soon_info = st.issue_key("main", expires_at=datetime.now(UTC) + timedelta(hours=1))
        assert st.authorize(key, "main") and st.authorize(soon, "main")
        # a second store on the same database (another process, say) revokes the key: the
        # first store refuses it on the very next check (nothing cached)
        with Store(db_url, create_tables=False) as other:
            revoked = other.revoke_key(info.id)
        assert revoked.status() == "revoked" and revoked.revoked_at is not None
        with pytest.raises(KeyRefusedError, match="revoked"):
            st.authorize(key, "main")
        assert st.revoke_key(info.id).revoked_at == revoked.revoked_at  # revoking again: same
        # the expiry passes: refused from then on
        engine = create_engine(resolve_url(db_url))
        with engine.begin() as conn:
            conn.execute(
                update(api_keys)
                .where(api_keys.c.id == soon_info.id)
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        engine.dispose()
        with pytest.raises(KeyRefusedError, match="expired"):
            st.authorize(soon, "main")
        listed = {k.id: k.status() for k in st.list_keys()}
        assert listed == {info.id: "revoked", soon_info.id: "expired"}
        assert [k.id for k in st.list_keys("main")] == [info.id, soon_info.id]
        with pytest.raises(StoreError, match="not in the future"):
            st.create_key("main", expires_at=datetime.now(UTC) - timedelta(days=1))
        with pytest.raises(NotFoundError):
            st.revoke_key(999)


def test_only_hashes_and_prefixes_are_stored(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        keys = [st.create_key("main"), st.create_key(admin=True)]
        engine = create_engine(resolve_url(db_url))
        with engine.connect() as conn:
            rows = conn.execute(select(api_keys)).all()
        engine.dispose()
        stored = " ".join(str(v) for r in rows for v in r)
        for k in keys:
            assert k not in stored and k[PREFIX_LENGTH:] not in stored
            assert hash_key(k) in stored  # SHA-256, hex
        listed = st.list_keys()
        assert [k.prefix for k in listed] == [k[:PREFIX_LENGTH] for k in keys]


def test_key_helpers() -> None:
    key = "msk_" + "a" * 43
    assert key_prefix(key) == key[:PREFIX_LENGTH]
    assert key_prefix("msk_short") is None and key_prefix("x" * 47) is None
    hashes = [hash_key("msk_" + "b" * 43), hash_key(key), hash_key("msk_" + "c" * 43)]
    assert key_matches(hashes, key) == 1
    assert key_matches(hashes, "msk_" + "d" * 43) is None
    assert key_matches([], key) is None
    now = datetime(2025, 6, 1, 12, tzinfo=UTC)
    assert parse_expiry("90m", now) == now + timedelta(minutes=90)
    assert parse_expiry("2w", now) == now + timedelta(days=14)
    assert parse_expiry("2025-07-01T00:00:00+02:00") == datetime(2025, 6, 30, 22, tzinfo=UTC)
    with pytest.raises(ValueError, match="duration"):
        parse_expiry("tomorrow")


def test_expiry_is_bounded_at_100_years() -> None:
    """At most 36525 days (100 years of 365.25 days) ahead, to the microsecond; values past the
    calendar's end (or start) once moved to UTC are refused by name instead of overflowing."""
    now = datetime(2025, 6, 1, 12, tzinfo=UTC)
    assert timedelta(days=36525) == MAX_EXPIRY
    # 2025-06-01 to 2125-06-01 has 24 leap days (2028 ... 2124 but not 2100): 36524 days,
    # so the edge is one day later
    edge = datetime(2125, 6, 2, 12, tzinfo=UTC)
    assert edge - datetime(2125, 6, 1, 12, tzinfo=UTC) == timedelta(days=1)
    assert parse_expiry("36525d", now) == edge
    assert parse_expiry("876600h", now) == edge
    assert parse_expiry("2125-06-02T12:00:00", now) == edge
    assert parse_expiry("2125-06-02T14:00:00+02:00", now) == edge
    past_edge = ["36526d", "5218w", "876601h", "2125-06-02T12:00:00.000001+00:00", "2125-06-03"]
    for given in [*past_edge, "999999w", "999999h", "9999-12-31T23:59:59-05:00", "9999-12-31"]:
        with pytest.raises(ValueError, match=re.escape(f"expiry '{given}' is out of range")):
            parse_expiry(given, now)
    # before the calendar's start in UTC: out of range too (not an OverflowError)
    with pytest.raises(ValueError, match="out of range"):
        parse_expiry("0001-01-01T00:00:00+05:00", now)
    # the largest duration the form allows is accepted when within range
    assert parse_expiry("999999m", now) == now + timedelta(minutes=999999)


def test_issue_refuses_an_expiry_past_the_horizon(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        with pytest.raises(StoreError, match="out of range"):
            st.create_key("main", expires_at=datetime.now(UTC) + timedelta(days=36526))
        far = datetime.now(UTC) + timedelta(days=36524)
        _, info = st.issue_key("main", expires_at=far)
        assert info.expires_at == far
        assert st.list_keys()[0].expires_at == far


def test_keys_of_an_earlier_table_stay_valid(tmp_path: Path) -> None:
    """A database whose key table predates roles and expiry: its write keys keep working."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    with Store(url) as st:
        st.create_league("main")
    key = "msk_" + "Q" * 43
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE ms_api_keys"))
        conn.execute(
            text(
                "CREATE TABLE ms_api_keys (id INTEGER PRIMARY KEY, league_id INTEGER NOT NULL, "
                "key_hash VARCHAR(64) NOT NULL UNIQUE, prefix VARCHAR(16) NOT NULL, "
                "created_at DATETIME NOT NULL)"
            )
        )
        conn.execute(
            text("INSERT INTO ms_api_keys VALUES (7, 1, :h, :p, '2024-01-01 00:00:00.000000')"),
            {"h": hash_key(key), "p": key[:10]},
        )
    engine.dispose()
    with Store(url) as st:
        assert st.authorize(key, "main") is KeyRole.WRITE
        (old,) = st.list_keys()
        assert (old.id, old.role, old.league, old.status()) == (7, KeyRole.WRITE, "main", "active")
        st.revoke_key(7)
        with pytest.raises(KeyRefusedError):
            st.authorize(key, "main")


def test_the_last_active_admin_key_is_not_revoked(db_url: str) -> None:
    """Refused while no other admin key is active (neither revoked nor expired); write keys,
    revoked and expired admin keys, and an admin key with another active one beside it are
    revoked as before."""
    with Store(db_url) as st:
        st.create_league("main")
        _, write_info = st.issue_key("main")
        first, first_info = st.issue_key(admin=True)
        with pytest.raises(ConflictError, match=f"API key {first_info.id} is the last active"):
            st.revoke_key(first_info.id)
        assert st.authorize(first) is KeyRole.ADMIN  # still valid: nothing written
        assert st.revoke_key(write_info.id).status() == "revoked"  # write keys as before
        # an admin key about to expire counts while it is active ...
        _, soon = st.issue_key(admin=True, expires_at=datetime.now(UTC) + timedelta(hours=1))
        assert st.revoke_key(first_info.id).status() == "revoked"
        with pytest.raises(ConflictError, match="last active admin key"):
            st.revoke_key(soon.id)
        # ... and not once it has expired: the new admin key is then the last one
        _, third = st.issue_key(admin=True)
        engine = create_engine(resolve_url(db_url))
        with engine.begin() as conn:
            conn.execute(
                update(api_keys)
                .where(api_keys.c.id == soon.id)
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        engine.dispose()
        with pytest.raises(ConflictError, match=f"API key {third.id} is the last active"):
            st.revoke_key(third.id)
        # revoking an expired or a revoked admin key is allowed (it changes no active key)
        assert st.revoke_key(soon.id).status() == "revoked"
        assert st.revoke_key(first_info.id).status() == "revoked"
        assert [k.status() for k in st.list_keys()] == ["revoked", "revoked", "revoked", "active"]


def test_two_admins_revoking_each_others_keys_at_once_leave_one(db_url: str) -> None:
    """Two admin keys, each revoked by its own thread: the second revocation starts while the
    first one's transaction is open (held just before its commit); it waits for that commit and
    is then refused. Deciding on what it read before the first committed would leave no admin
    key at all."""
    from sqlalchemy import Engine, event

    with Store(db_url) as st:
        _, a = st.issue_key(admin=True)
        _, b = st.issue_key(admin=True)
        at_commit, release = threading.Event(), threading.Event()
        first_thread: list[threading.Thread] = []

        def hold(_conn: Any) -> None:  # runs just before a transaction commits
            if threading.current_thread() in first_thread:
                at_commit.set()
                release.wait(10)

        outcome: dict[int, str] = {}

        def revoke(key_id: int) -> None:
            try:
                outcome[key_id] = st.revoke_key(key_id).status()
            except ConflictError:
                outcome[key_id] = "refused"

        event.listen(Engine, "commit", hold)
        try:
            first_thread.append(threading.Thread(target=revoke, args=(a.id,)))
            second = threading.Thread(target=revoke, args=(b.id,))
            first_thread[0].start()
            assert at_commit.wait(10)
            second.start()
            second.join(0.5)
            waited = second.is_alive()  # it waits for the first transaction
            release.set()
            first_thread[0].join(10)
            second.join(10)
        finally:
            event.remove(Engine, "commit", hold)
            release.set()
        assert waited
        assert outcome == {a.id: "revoked", b.id: "refused"}
        assert [k.status() for k in st.list_keys()] == ["revoked", "active"]
