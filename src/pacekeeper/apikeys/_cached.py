"""A looked-up key as this process keeps it: what every request needs, built once.

The entry is tagged with the revocation version read before the database read, and is
replaced as soon as that version moves (`_revocation.py`). Everything that does not
change between two requests of one key is prepared here, once: the digest as bytes, the
refusal if the key or its owner is no longer usable, the owner's `Principal`, the tier's
limits and the bucket's name. A request then only hashes its secret, compares, and
counts (`_service.py`).
"""

from __future__ import annotations

import math
from datetime import datetime

from pacekeeper.apikeys import _secret
from pacekeeper.apikeys._store import ApiKey, KeyLookup
from pacekeeper.apikeys._usage import KeyWindow
from pacekeeper.auth import Claims, Principal
from pacekeeper.db import UserStatus
from pacekeeper.errors import AUTHENTICATION_REQUIRED, INVALID_TOKEN, Unauthenticated
from pacekeeper.ratelimit import Bucket

CHALLENGE = 'ApiKey realm="pacekeeper", header="X-API-Key"'


def rejected(reason: str | None) -> Unauthenticated:
    """401 with `WWW-Authenticate: ApiKey ...` (ERR-2); no reason: no key was sent."""
    if reason is None:
        return Unauthenticated(
            AUTHENTICATION_REQUIRED, code="authentication_required", www_authenticate=CHALLENGE
        )
    return Unauthenticated(
        f"{INVALID_TOKEN}: {reason}",
        code="invalid_token",
        www_authenticate=f'{CHALLENGE}, error="invalid_token"',
    )


def _claims(found: KeyLookup) -> Claims:
    """JWT-shaped claims for a key's owner, so tools see one `Principal` type.

    `jti` names the key; `exp` is the key's expiry (0: none); `kid` is empty (no token).
    """
    key = found.key
    return Claims(
        sub=key.user_id, tenant_id=found.owner_tenant_id, email=found.owner_email,
        role=found.owner_role, iat=int(key.created_at.timestamp()),
        exp=int(key.expires_at.timestamp()) if key.expires_at else 0,
        jti=f"apikey:{key.id}", ver=found.owner_token_version, kid="", aud=(),
    )


def _refusal(found: KeyLookup, now: datetime) -> str | None:
    """Why this key cannot pass now (KEY-5, KEY-7, ACC-8), or None; checked in this order."""
    key = found.key
    if key.deleted_at is not None:
        return "API key deleted"
    if key.expires_at is not None and now >= key.expires_at:
        return "API key expired (trial keys last 14 days)"
    if found.owner_status is not UserStatus.ACTIVE:
        return "the key's user is disabled"
    return None


class CachedKey:
    """One key's entry in a process's cache (see the module docstring)."""

    __slots__ = (
        "bucket", "burst", "claims", "digest", "expires", "expires_at", "found", "key",
        "meter", "principal", "quota", "usable", "version",
    )

    def __init__(self, version: str | bytes, found: KeyLookup, burst: int,
                 quota: int | None) -> None:
        key = found.key
        self.version = version
        self.found = found
        self.key: ApiKey = key
        self.digest = bytes.fromhex(key.secret_hash)
        # Deleted or disabled: refused for as long as this entry is current.
        self.usable = key.deleted_at is None and found.owner_status is UserStatus.ACTIVE
        self.expires_at: datetime | None = key.expires_at
        # The same in Unix seconds for the hot path (inf: never).
        self.expires = key.expires_at.timestamp() if key.expires_at else math.inf
        self.claims = _claims(found)
        # One Principal for all of this key's requests: the per-request limits are on
        # the `KeyCaller` (its `rate`), so this one carries none.
        self.principal = Principal(
            key.user_id, found.owner_tenant_id, found.owner_email, found.owner_role,
            "api_key", self.claims, "",
        )
        self.burst = burst
        self.quota = quota
        self.bucket = f"apikey:{key.id}"
        # Set once the in-memory bucket and quota window of this key exist: the live
        # handles the synchronous path counts on (it cannot await the database read
        # that loads the window). None: take the general path.
        self.meter: tuple[Bucket, KeyWindow] | None = None

    def check(self, plaintext: str, now: datetime) -> None:
        """401 unless the secret matches and key and owner are usable (KEY-3/5/7, ACC-8).

        The SHA-256 of the presented key is compared in constant time on every request.
        """
        if not _secret.verify_secret(plaintext, self.digest):
            raise rejected("unknown API key")
        if not self.usable or (self.expires_at is not None and now >= self.expires_at):
            raise rejected(_refusal(self.found, now))


__all__ = ["CHALLENGE", "CachedKey", "rejected"]
