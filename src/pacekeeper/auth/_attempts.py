"""Rate limits on password guessing and mass registration (finding 1), one place.

Two token buckets per kind of attempt (the shared `RateLimiter`: memory or Redis):

- per address: every login (or registration) attempt from one client address, whatever
  the account: `PACEKEEPER_LOGIN_LIMIT_PER_ADDRESS` / `PACEKEEPER_REGISTER_LIMIT_PER_ADDRESS`;
- per account *and* address: attempts on one account from one address:
  `PACEKEEPER_LOGIN_LIMIT_PER_ACCOUNT` / `PACEKEEPER_REGISTER_LIMIT_PER_ACCOUNT`.

No bucket is keyed by the account alone: whoever could empty it (an attacker anywhere)
would lock the account's owner out. Keyed by account and address, an attacker only
empties their own buckets, and the owner signing in from their own address still gets
in. The price: guessing spread over many addresses is bounded per address only
(Argon2id makes each guess cost the attacker a request and us ~20-50 ms; docs/security.md).

The account part of a key is a digest of the submitted email as typed after
normalisation (never whether it exists), so known and unknown emails are limited
alike and no email is written into Redis.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request

from pacekeeper.auth._accounts import normalize_email
from pacekeeper.errors import RateLimited
from pacekeeper.ratelimit import RateDecision, RateLimiter

LOGIN = "login"
REGISTER = "register"


@dataclass(frozen=True, slots=True)
class AttemptLimits:
    per_address: int
    per_account: int


def _account(email: str) -> str:
    return hashlib.sha256(normalize_email(email).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _tighter(a: RateDecision, b: RateDecision) -> RateDecision:
    return a if a.remaining <= b.remaining else b


class AttemptLimiter:
    def __init__(self, limiter: RateLimiter, limits: dict[str, AttemptLimits],
                 address: Callable[[Request], str]) -> None:
        self._limiter = limiter
        self._limits = limits
        self.address = address  # the client address (trusted proxies honoured)

    async def check(self, kind: str, request: Request, email: str) -> RateDecision:
        """Count one attempt of `kind` on `email` from the request's address; 429
        `rate_limited` (Retry-After, X-RateLimit-*) when either bucket is empty."""
        limits = self._limits[kind]
        ip = self.address(request)
        by_address = await self._limiter.hit(f"{kind}:addr:{ip}", limits.per_address)
        if not by_address.allowed:
            raise RateLimited(f"too many {kind} attempts from this address; retry later",
                              headers=by_address.headers())
        by_account = await self._limiter.hit(
            f"{kind}:acct:{_account(email)}:{ip}", limits.per_account)
        if not by_account.allowed:
            raise RateLimited(f"too many {kind} attempts for this account; retry later",
                              headers=by_account.headers())
        return _tighter(by_address, by_account)


__all__ = ["LOGIN", "REGISTER", "AttemptLimiter", "AttemptLimits"]
