"""Provider credentials as the client sees them, and the PKCE helpers (RFC 7636)."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TokenSet:
    """What the service stores (encrypted, PROV-5) for one user and provider.

    OAuth 2.0 grants have ``refresh_token`` and ``expires_at``; OAuth 1.0a grants
    (Garmin legacy) have ``token_secret`` and never expire.
    """

    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # Unix time
    token_type: str = "Bearer"  # noqa: S105 - a scheme name
    scope: str | None = None
    token_secret: str | None = field(default=None, repr=False)
    provider_user_id: str | None = None

    def expires_within(self, seconds: float, *, now: float | None = None) -> bool:
        """True when a refresh is due (PROV-6: refresh before expiry, not after)."""
        if self.expires_at is None:
            return False
        return self.expires_at - (time.time() if now is None else now) <= seconds

    def to_dict(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "token_type": self.token_type,
            "scope": self.scope,
            "token_secret": self.token_secret,
            "provider_user_id": self.provider_user_id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TokenSet:
        def text(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        expires = data.get("expires_at")
        return cls(
            access_token=str(data["access_token"]),
            refresh_token=text("refresh_token"),
            expires_at=None if expires is None else float(expires),
            token_type=text("token_type") or "Bearer",
            scope=text("scope"),
            token_secret=text("token_secret"),
            provider_user_id=text("provider_user_id"),
        )


@dataclass(frozen=True, slots=True)
class AuthorizationStart:
    """Everything the service must keep beside the ``state`` until the callback."""

    url: str
    state: str
    code_verifier: str | None = field(default=None, repr=False)  # PKCE providers
    request_token: str | None = None  # OAuth 1.0a
    request_token_secret: str | None = field(default=None, repr=False)


def new_code_verifier() -> str:
    """43-128 characters of the unreserved alphabet; 64 bytes of entropy gives 86."""
    return secrets.token_urlsafe(64)


def code_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
