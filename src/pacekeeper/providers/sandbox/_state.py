"""Mutable sandbox state: clients, grants, tokens, rate-limit windows, injected failures."""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..registry import PROVIDER_IDS
from ..registry import PROVIDERS as SPECS
from ._generator import forget_recorded

PROVIDERS = PROVIDER_IDS

FAILURE_MODES = frozenset({"500", "502", "503", "504", "timeout", "429", "revoke"})


@dataclass(slots=True)
class Grant:
    """One user's authorization of the sandbox client for one provider."""

    provider: str
    athlete_id: int
    scope: str
    access_token: str
    refresh_token: str | None
    expires_at: float
    token_secret: str | None = None  # OAuth 1.0a grants
    revoked: bool = False


@dataclass(slots=True)
class PendingCode:
    provider: str
    athlete_id: int
    client_id: str
    redirect_uri: str
    scope: str
    code_challenge: str | None
    expires_at: float
    # Google issues a refresh token only to ``access_type=offline`` requests.
    offline: bool = True


@dataclass(slots=True)
class RequestToken:
    """OAuth 1.0a temporary credentials, then the verifier once the user approved."""

    secret: str
    callback: str
    athlete_id: int | None = None
    verifier: str | None = None


@dataclass(slots=True)
class Window:
    limit: int
    seconds: float
    used: int = 0
    started: float = 0.0

    def resets_at(self) -> float:
        return self.started + self.seconds


@dataclass(slots=True)
class Failure:
    mode: str
    retry_after: float = 1.0


@dataclass(slots=True)
class SandboxState:
    clock: Callable[[], float] = time.time
    clients: dict[str, str] = field(default_factory=lambda: {"sandbox-client": "sandbox-secret"})
    # The redirect URIs (OAuth 1.0a callbacks too) registered for the sandbox client,
    # matched exactly; none registered (a standalone sandbox): loopback URIs only.
    redirect_uris: tuple[str, ...] = ()
    token_ttl_s: float = 21_600.0
    timeout_delay_s: float = 30.0
    # Every guarded data request waits this long first: a slow provider, so a test can
    # catch a sync in flight.
    latency_s: float = 0.0
    grants: dict[str, Grant] = field(default_factory=dict)  # by access token
    refresh_index: dict[str, Grant] = field(default_factory=dict)
    codes: dict[str, PendingCode] = field(default_factory=dict)
    request_tokens: dict[str, RequestToken] = field(default_factory=dict)
    seen_nonces: set[tuple[str, str]] = field(default_factory=set)
    failures: dict[str, list[Failure]] = field(default_factory=dict)
    windows: dict[str, list[Window]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for spec in SPECS.values():
            self.set_limits(spec.id, list(spec.sandbox_limits))

    # -- tokens ----------------------------------------------------------------------

    def issue(self, provider: str, athlete_id: int, scope: str, *, oauth1: bool = False) -> Grant:
        grant = Grant(
            provider=provider,
            athlete_id=athlete_id,
            scope=scope,
            access_token=secrets.token_urlsafe(24),
            refresh_token=None if oauth1 else secrets.token_urlsafe(24),
            expires_at=math.inf if oauth1 else self.clock() + self.token_ttl_s,
            token_secret=secrets.token_urlsafe(24) if oauth1 else None,
        )
        self.grants[grant.access_token] = grant
        if grant.refresh_token:
            self.refresh_index[grant.refresh_token] = grant
        return grant

    def rotate(self, refresh_token: str) -> Grant | None:
        """Refresh grant: the old tokens die, new ones are issued (refresh rotation)."""
        old = self.refresh_index.pop(refresh_token, None)
        if old is None or old.revoked:
            return None
        self.grants.pop(old.access_token, None)
        return self.issue(old.provider, old.athlete_id, old.scope)

    def renew(self, refresh_token: str) -> Grant | None:
        """Refresh grant without rotation (Google): a new access token; the refresh
        token stays valid and is not sent again."""
        old = self.refresh_index.get(refresh_token)
        if old is None or old.revoked:
            return None
        self.grants.pop(old.access_token, None)
        grant = Grant(provider=old.provider, athlete_id=old.athlete_id, scope=old.scope,
                      access_token=secrets.token_urlsafe(24), refresh_token=refresh_token,
                      expires_at=self.clock() + self.token_ttl_s)
        self.grants[grant.access_token] = grant
        self.refresh_index[refresh_token] = grant
        return grant

    def lookup(self, provider: str, access_token: str) -> Grant | None:
        grant = self.grants.get(access_token)
        if grant is None or grant.provider != provider or grant.revoked:
            return None
        return grant

    def revoke_athlete(self, provider: str, athlete_id: int) -> int:
        hit = 0
        for grant in self.grants.values():
            if grant.provider == provider and grant.athlete_id == athlete_id and not grant.revoked:
                grant.revoked = True
                hit += 1
        return hit

    def revoke_token(self, token: str) -> bool:
        grant = self.grants.get(token) or self.refresh_index.get(token)
        if grant is None:
            return False
        grant.revoked = True
        return True

    def expire_athlete(self, provider: str, athlete_id: int) -> None:
        for grant in self.grants.values():
            if grant.provider == provider and grant.athlete_id == athlete_id:
                grant.expires_at = min(grant.expires_at, self.clock() - 1)

    # -- failures and limits ---------------------------------------------------------

    def inject(self, provider: str, mode: str, count: int = 1, retry_after: float = 1.0) -> None:
        targets = PROVIDERS if provider == "*" else (provider,)
        for name in targets:
            self.failures.setdefault(name, []).extend(
                Failure(mode, retry_after) for _ in range(count)
            )

    def next_failure(self, provider: str) -> Failure | None:
        queue = self.failures.get(provider)
        return queue.pop(0) if queue else None

    def set_limits(self, provider: str, limits: list[tuple[int, float]]) -> None:
        self.windows[provider] = [Window(limit, seconds) for limit, seconds in limits]

    def consume(self, provider: str) -> Window | None:
        """Count one request; return the exhausted window if the request is over quota."""
        now = self.clock()
        self.counters[provider] = self.counters.get(provider, 0) + 1
        exhausted = None
        for window in self.windows.get(provider, []):
            if now >= window.resets_at():
                # Windows align to their period (Strava: quarter hours, days).
                window.started = math.floor(now / window.seconds) * window.seconds
                window.used = 0
            window.used += 1
            if window.used > window.limit and exhausted is None:
                exhausted = window
        return exhausted

    def redirect_allowed(self, uri: str) -> bool:
        """Whether the consent page may send a browser to `uri` (issue 28: it sent it
        anywhere): a registered URI exactly, or any loopback one when none is registered."""
        if self.redirect_uris:
            return uri in self.redirect_uris
        try:
            parts = urlsplit(uri)
            host = parts.hostname
        except ValueError:
            return False
        return (parts.scheme in ("http", "https") and not parts.fragment
                and host in ("127.0.0.1", "localhost", "::1"))  # fmt: skip

    def reset(self) -> None:
        forget_recorded()
        fresh = SandboxState(clock=self.clock, clients=self.clients)
        for name in self.__slots__:
            if name not in ("clock", "clients", "redirect_uris"):
                setattr(self, name, getattr(fresh, name))
