"""API keys: write keys of one league and admin keys, kept as SHA-256 hashes.

A key is ``msk_`` followed by 43 URL-safe characters (256 random bits). Its first
:data:`PREFIX_LENGTH` characters are its *prefix*, stored in clear: it finds the key's row and
tells keys apart in listings (48 of the 256 random bits; the other 208 stay secret). The key
itself is shown once, when it is created; only its SHA-256 is stored, and a presented key is
compared with the stored hash in constant time (:func:`hmac.compare_digest`).

* A **write** key posts matches to its league.
* An **admin** key does everything: posts matches to any league, creates and configures leagues,
  creates, lists and revokes keys. The first admin key is made on the server's command line
  (``mindsport keys create --admin``).

A key may carry an expiry; a revoked or expired key is refused from that moment on (every
request reads the key's row: there is no cache to go stale).
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

from mindsport.errors import MindsportError

__all__ = [
    "PREFIX_LENGTH",
    "ApiKey",
    "KeyRefusedError",
    "KeyRole",
    "MissingKeyError",
    "as_time",
    "aware",
    "hash_key",
    "key_matches",
    "key_prefix",
    "new_key",
    "parse_expiry",
]

#: characters of a key stored in clear ("msk_" and 8 random characters)
PREFIX_LENGTH = 12
_KEY = re.compile(r"^msk_[A-Za-z0-9_-]{43}$")
_DURATION = re.compile(r"^\s*(\d{1,6})\s*([mhdw])\s*$")
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
_UNITS["w"] = timedelta(weeks=1)
# a hash no key has, compared when no stored key has the presented prefix (same work either way)
_NO_HASH = "0" * 64


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
    as an ISO 8601 date or datetime (naive = UTC); the result is an aware UTC datetime.

    >>> now = datetime(2025, 1, 1, tzinfo=UTC)
    >>> parse_expiry("30d", now).isoformat(), parse_expiry("2025-03-01").isoformat()
    ('2025-01-31T00:00:00+00:00', '2025-03-01T00:00:00+00:00')
    """
    now = now or datetime.now(UTC)
    m = _DURATION.match(text)
    if m is not None:
        return now + int(m.group(1)) * _UNITS[m.group(2)]
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise MindsportError(
            f"expiry {text!r}: use a duration like 90m, 12h, 30d, 2w or an ISO date/datetime"
        ) from None
    return aware(when)


def aware(when: datetime) -> datetime:
    """``when`` as an aware UTC datetime (a naive one is read as UTC)."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def as_time(value: Any) -> datetime:
    """A stored timestamp as an aware UTC datetime (SQLite hands back text)."""
    return aware(datetime.fromisoformat(value) if isinstance(value, str) else value)
