"""CSRF tokens for cookie sessions (spec 5.2; CSRF-1..8), checked in one place.

A token is 32 random bytes (base64url), bound to one user and valid 30 minutes. Only
its SHA-256 is stored, with the user id and expiry, so a check is one key lookup.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from pacekeeper.db import CsrfRecord, CsrfTokenRepository
from pacekeeper.errors import CsrfFailed

CSRF_TOKEN_BYTES = 32
CSRF_LIFETIME = timedelta(minutes=30)
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_MAX_TOKEN_CHARS = 128


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class IssuedCsrf:
    token: str
    expires_at: datetime


class CsrfService:
    def __init__(self, repo: CsrfTokenRepository, clock: Callable[[], datetime]) -> None:
        self._repo = repo
        self._clock = clock

    async def issue(self, user_id: uuid.UUID) -> IssuedCsrf:
        now = self._clock()
        token = secrets.token_urlsafe(CSRF_TOKEN_BYTES)
        record = CsrfRecord(user_id=user_id, expires_at=now + CSRF_LIFETIME)
        await self._repo.purge_expired(now)
        await self._repo.add(_digest(token), record)
        return IssuedCsrf(token, record.expires_at)

    async def revoke(self, token: str) -> None:
        if token and len(token) <= _MAX_TOKEN_CHARS:
            await self._repo.delete(_digest(token))

    async def check(
        self, method: str, cookie_value: str | None, header_value: str | None, user_id: uuid.UUID
    ) -> None:
        """Raise CsrfFailed unless a state-changing request carries this user's token.

        The caller has already validated the JWT from the `auth_token` cookie.
        """
        if method.upper() in SAFE_METHODS:
            return
        if not header_value:
            raise CsrfFailed("CSRF token missing: send the X-CSRF-Token header")
        if not cookie_value or not hmac.compare_digest(
            cookie_value.encode("utf-8", "surrogatepass"),
            header_value.encode("utf-8", "surrogatepass"),
        ):
            raise CsrfFailed("CSRF token does not match the csrf_token cookie")
        if len(header_value) > _MAX_TOKEN_CHARS:
            raise CsrfFailed("CSRF token invalid")
        record = await self._repo.get(_digest(header_value))
        if record is None or record.user_id != user_id:
            raise CsrfFailed("CSRF token invalid")
        if record.expires_at <= self._clock():
            raise CsrfFailed("CSRF token expired")


__all__ = ["CSRF_HEADER", "CSRF_LIFETIME", "SAFE_METHODS", "CsrfService", "IssuedCsrf"]
