"""API keys: write keys of one league and admin keys, kept as SHA-256 hashes.

A key is ``msk_`` followed by 43 URL-safe characters (256 random bits). Its first
:data:`PREFIX_LENGTH` characters are its *prefix*, stored in clear: it finds the key's row and
tells keys apart in listings (48 of the 256 random bits; the other 208 stay secret). The key
itself is shown once, when it is created; only its SHA-256 is stored, and a presented key is
compared with the stored hash in constant time (:func:`hmac.compare_digest`).

* A **write** key posts matches to its league.
* An **admin** key does everything: posts matches to any league, creates and configures leagues,
  creates, lists and revokes keys. The first admin key is made on the server's command line
  (``mindsport keys create --admin``). The last active admin key cannot be revoked.

A key may carry an expiry, at most :data:`MAX_EXPIRY` (100 years) ahead; a revoked or expired
key is refused from that moment on (every request reads the key's row: there is no cache to go
stale).

:class:`Keys` issues, lists, revokes and checks the keys kept in a store's database; the
functions below are the keys' own rules (their form, hash, prefix and expiry).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, insert, select, update

from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.match import id_problem
from mindsport.store.database import Database
from mindsport.store.leagues import LEAGUE_NAME, Leagues
from mindsport.store.schema import api_keys, leagues
from mindsport.store.values import StoreError

__all__ = [
    "MAX_EXPIRY",
    "PREFIX_LENGTH",
    "ApiKey",
    "KeyRefusedError",
    "KeyRole",
    "Keys",
    "MissingKeyError",
    "as_time",
    "aware",
    "check_expiry",
    "hash_key",
    "key_matches",
    "key_prefix",
    "new_key",
    "parse_expiry",
]

#: how far ahead an expiry may lie (100 years of 365.25 days)
MAX_EXPIRY = timedelta(days=36525)
#: characters of a key stored in clear ("msk_" and 8 random characters)
PREFIX_LENGTH = 12
#: length of the public prefix of keys made by earlier versions
_OLD_PREFIX_LENGTH = 10
_KEY = re.compile(r"^msk_[A-Za-z0-9_-]{43}$")
_DURATION = re.compile(r"^\s*(\d{1,6})\s*([mhdw])\s*$")
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
_UNITS["w"] = timedelta(weeks=1)
# a hash no key has, compared when no stored key has the presented prefix (same work either way)
_NO_HASH = "0" * 64
_TOO_FAR = "is out of range: an expiry lies in the future, at most 100 years (36525 days) ahead"


class KeyRole(enum.Enum):
    """What a key may do."""

    WRITE = "write"
    ADMIN = "admin"


class MissingKeyError(MindsportError):
    """A request that needs an API key came without one (HTTP 401)."""


class KeyRefusedError(MindsportError):
    """The API key presented is unknown, revoked, expired or not allowed here (HTTP 403)."""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key as listed: never the key itself, only its public prefix."""

    id: int
    role: KeyRole
    league: str | None
    prefix: str
    label: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None

    def status(self, now: datetime | None = None) -> str:
        """``"active"``, ``"revoked"`` or ``"expired"`` at ``now`` (default: the current time)."""
        if self.revoked_at is not None:
            return "revoked"
        now = now or datetime.now(UTC)
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"


def new_key() -> str:
    """A fresh random key (256 bits)."""
    return "msk_" + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """The SHA-256 (hex) stored for ``key``."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def key_prefix(key: str) -> str | None:
    """The public prefix of ``key``, or ``None`` when ``key`` is not shaped like a key."""
    return key[:PREFIX_LENGTH] if _KEY.match(key) else None


def key_matches(stored_hashes: list[str], key: str) -> int | None:
    """The index of the hash of ``key`` among ``stored_hashes`` (constant-time comparisons of
    every candidate; ``None`` when none matches)."""
    presented = hash_key(key)
    found: int | None = None
    for i, stored in enumerate(stored_hashes or [_NO_HASH]):
        if hmac.compare_digest(stored, presented) and stored_hashes:
            found = i
    return found


def parse_expiry(text: str, now: datetime | None = None) -> datetime:
    """An expiry given as a duration from ``now`` (``"90m"``, ``"12h"``, ``"30d"``, ``"2w"``) or
    as an ISO 8601 date or datetime (naive = UTC); the result is an aware UTC datetime at most
    :data:`MAX_EXPIRY` (100 years) after ``now`` (default: the current time).

    >>> now = datetime(2025, 1, 1, tzinfo=UTC)
    >>> parse_expiry("30d", now).isoformat(), parse_expiry("2025-03-01", now).isoformat()
    ('2025-01-31T00:00:00+00:00', '2025-03-01T00:00:00+00:00')
    """
    now = now or datetime.now(UTC)
    m = _DURATION.match(text)
    if m is not None:
        # compared before it is added: a duration of thousands of years would overflow a date
        delta = int(m.group(1)) * _UNITS[m.group(2)]
        if delta > MAX_EXPIRY:
            raise MindsportError(f"expiry {text!r} {_TOO_FAR}")
        return now + delta
    try:
        when = aware(datetime.fromisoformat(text.strip()))
    except ValueError:
        raise MindsportError(
            f"expiry {text!r}: use a duration like 90m, 12h, 30d, 2w or an ISO date/datetime"
        ) from None
    except OverflowError:  # a date at either end of the calendar, moved to UTC
        raise MindsportError(f"expiry {text!r} {_TOO_FAR}") from None
    return check_expiry(when, now, text)


def check_expiry(when: datetime, now: datetime, text: str | None = None) -> datetime:
    """``when`` (aware) if it lies at most :data:`MAX_EXPIRY` after ``now``; otherwise a
    :class:`~mindsport.store.values.StoreError` naming ``text`` (default: ``when``)."""
    if when - now > MAX_EXPIRY:
        raise StoreError(f"expiry {text or when.isoformat()!r} {_TOO_FAR}")
    return when


def aware(when: datetime) -> datetime:
    """``when`` as an aware UTC datetime (a naive one is read as UTC)."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def as_time(value: Any) -> datetime:
    """A stored timestamp as an aware UTC datetime (SQLite hands back text)."""
    return aware(datetime.fromisoformat(value) if isinstance(value, str) else value)


class Keys:
    """The API keys kept in ``db``, of the leagues of ``leagues``."""

    def __init__(self, db: Database, leagues: Leagues) -> None:
        self._db = db
        self._leagues = leagues

    def issue(
        self,
        league: str | None = None,
        *,
        admin: bool = False,
        expires_at: datetime | None = None,
        label: str | None = None,
    ) -> tuple[str, ApiKey]:
        """A new random key and its record: a write key of ``league``, or with ``admin=True``
        (and no league) an admin key. The key is returned once; only its SHA-256 is stored.
        ``expires_at`` (naive = UTC) must lie in the future, at most :data:`MAX_EXPIRY` ahead;
        ``label`` is a free note (at most
        100 printable characters)."""
        if admin == (league is not None):
            raise StoreError(
                "a key is either an admin key (admin=True, no league) or a write key of one league"
            )
        if label is not None:
            why = id_problem(label)
            if why is None and len(label) > 100:
                why = "is longer than 100 characters"
            if why is not None:
                raise StoreError(f"key label {label[:40]!r} {why}")
        now = datetime.now(UTC)
        expiry = None if expires_at is None else aware(expires_at)
        if expiry is not None and expiry <= now:
            raise StoreError(f"expiry {expiry.isoformat()} is not in the future")
        if expiry is not None:
            check_expiry(expiry, now)
        key = new_key()
        role = KeyRole.ADMIN if admin else KeyRole.WRITE
        with self._db.write() as conn:
            lid = None if league is None else self._leagues.id_of(conn, league)
            res = conn.execute(
                insert(api_keys).values(
                    league_id=lid,
                    role=role.value,
                    key_hash=hash_key(key),
                    prefix=key_prefix(key),
                    label=label,
                    created_at=now,
                    expires_at=expiry,
                    revoked_at=None,
                )
            )
            pk = res.inserted_primary_key
            assert pk is not None
            key_id = int(pk[0])
        return key, ApiKey(key_id, role, league, key[:PREFIX_LENGTH], label, now, expiry, None)

    @staticmethod
    def _rows() -> Any:
        k = api_keys.c
        return select(
            k.id, k.role, leagues.c.name.label("league"), k.prefix, k.label, k.created_at,
            k.expires_at, k.revoked_at,
        ).select_from(api_keys.outerjoin(leagues, leagues.c.id == k.league_id))  # fmt: skip

    @staticmethod
    def _key_of(row: Any) -> ApiKey:
        return ApiKey(
            int(row.id),
            KeyRole(row.role),
            row.league,
            row.prefix,
            row.label,
            aware(row.created_at),
            None if row.expires_at is None else aware(row.expires_at),
            None if row.revoked_at is None else aware(row.revoked_at),
        )

    def list_keys(self, league: str | None = None) -> list[ApiKey]:
        """Every key (revoked and expired ones included), or the write keys of ``league``."""
        with self._db.read() as conn:
            q = self._rows().order_by(api_keys.c.id)
            if league is not None:
                q = q.where(api_keys.c.league_id == self._leagues.id_of(conn, league))
            return [self._key_of(r) for r in conn.execute(q)]

    def revoke(self, key_id: int) -> ApiKey:
        """Revoke key ``key_id`` (by its number in :meth:`list_keys`): it is refused from now on.
        Revoking a revoked key changes nothing. The last active admin key is not revoked
        (:class:`~mindsport.errors.ConflictError`): decided in the revoking transaction, with the
        active admin keys' rows locked on PostgreSQL, so two admins revoking each other's keys
        at once cannot leave none."""
        if isinstance(key_id, bool) or not isinstance(key_id, int) or not 0 < key_id < 2**31:
            raise NotFoundError(f"no API key number {key_id!r}")
        with self._db.write() as conn:
            now = datetime.now(UTC)
            role = conn.execute(select(api_keys.c.role).where(api_keys.c.id == key_id)).scalar()
            if role == KeyRole.ADMIN.value and self._active_admins(conn, now) == [key_id]:
                raise ConflictError(
                    f"API key {key_id} is the last active admin key: revoking it would leave no "
                    "key to administer the server; create another admin key first (POST "
                    '/api/keys with {"admin": true}, or mindsport keys create --admin)'
                )
            conn.execute(
                update(api_keys)
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            row = conn.execute(self._rows().where(api_keys.c.id == key_id)).first()
        if row is None:
            raise NotFoundError(f"no API key number {key_id}")
        return self._key_of(row)

    @staticmethod
    def _active_admins(conn: Connection, now: datetime) -> list[int]:
        """The ids of the admin keys neither revoked nor expired at ``now``. On PostgreSQL the
        rows of the unrevoked admin keys stay locked to the end of the transaction (taken in id
        order: a concurrent revocation waits, then reads what this one committed)."""
        k = api_keys.c
        rows = conn.execute(
            select(k.id, k.expires_at)
            .where(k.role == KeyRole.ADMIN.value, k.revoked_at.is_(None))
            .order_by(k.id)
            .with_for_update()
        )
        return [int(r.id) for r in rows if r.expires_at is None or as_time(r.expires_at) > now]

    def authorize(self, key: str | None, league: str | None = None) -> KeyRole:
        """The role of ``key`` when it may write to ``league`` (``None``: admin actions).

        Raises :class:`MissingKeyError` without a key, :class:`KeyRefusedError` for a key that
        is unknown, revoked, expired or of another league (or not an admin key where one is
        needed), and :class:`NotFoundError` for a good key and an unknown league. Reads the
        key's row on every call (a revocation holds at once); the comparison is constant-time.
        """
        if not key:
            raise MissingKeyError("header X-API-Key is required")
        prefix = key_prefix(key)
        rows: list[Any] = []
        if prefix is not None:
            sql = "SELECT key_hash, role, league_id, expires_at, revoked_at"
            # keys made before prefixes had 12 characters are stored with 10
            args: tuple[Any, ...] = (prefix, prefix[:_OLD_PREFIX_LENGTH])
            if league is not None and LEAGUE_NAME.match(league):
                sql += ", (SELECT id FROM ms_leagues WHERE name = ?)"
                args = (league, *args)
            rows = self._db.fetch(sql + " FROM ms_api_keys WHERE prefix IN (?, ?)", args)
        found = key_matches([r[0] for r in rows], key)
        if found is None:
            raise KeyRefusedError("X-API-Key is not a valid key")
        _, role_name, key_league, expires_at, revoked_at, *rest = rows[found]
        if revoked_at is not None:
            raise KeyRefusedError(f"X-API-Key {key[:PREFIX_LENGTH]}... was revoked")
        if expires_at is not None and as_time(expires_at) <= datetime.now(UTC):
            raise KeyRefusedError(
                f"X-API-Key {key[:PREFIX_LENGTH]}... expired at {as_time(expires_at).isoformat()}"
            )
        role = KeyRole(role_name)
        if league is None:
            if role is not KeyRole.ADMIN:
                raise KeyRefusedError("this needs an admin key")
            return role
        target = rest[0] if rest else None
        if target is None:
            raise NotFoundError(f"league {league!r} does not exist")
        if role is not KeyRole.ADMIN and key_league != target:
            raise KeyRefusedError(f"X-API-Key is not a write key of league {league!r}")
        return role

    def check(self, league: str, key: str | None) -> bool:
        """Whether ``key`` may write to ``league`` (:class:`NotFoundError` if no such league)."""
        try:
            self.authorize(key, league)
        except (MissingKeyError, KeyRefusedError):
            self._leagues.get(league)
            return False
        return True
