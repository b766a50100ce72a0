"""Why a connection operation failed, in words a person (or an MCP client) can act on.

Messages never carry tokens, and never the provider's raw response body.
"""

from __future__ import annotations

from pacekeeper.errors import PacekeeperError
from pacekeeper.providers import (
    PROVIDER_IDS,
    ProviderConfigError,
    ProviderError,
    ProviderRateLimited,
    ProviderUnavailable,
    ReconnectRequired,
)


class ConnectionProblem(PacekeeperError):
    """Base: ``code`` is stable for programs, ``message`` is for people."""

    code = "connection_error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownProvider(ConnectionProblem):
    code = "unknown_provider"
    status = 404

    def __init__(self, provider: str) -> None:
        known = list(PROVIDER_IDS)
        use = ", ".join(known[:-1]) + f" or {known[-1]}" if len(known) > 1 else known[0]
        super().__init__(f"unknown provider {provider[:40]!r}: use {use}")


class ProviderNotConfigured(ConnectionProblem):
    code = "provider_not_configured"
    status = 503

    def __init__(self, provider: str) -> None:
        super().__init__(
            f"{provider} is not configured on this server "
            f"({provider.upper()}_CLIENT_ID, _CLIENT_SECRET, _REDIRECT_URI)"
        )


class NotConnected(ConnectionProblem):
    code = "not_connected"
    status = 404

    def __init__(self, provider: str) -> None:
        super().__init__(f"{provider} is not connected: call connect_provider first")


class NeedsReconnect(ConnectionProblem):
    code = "needs_reconnect"
    status = 409

    def __init__(self, provider: str, reason: str | None = None) -> None:
        why = reason or "access was revoked or expired"
        super().__init__(f"{provider} needs to be reconnected ({why}): call connect_provider again")


class TokensUnreadable(ConnectionProblem):
    """The stored envelope does not open (wrong or missing master key, altered row)."""

    code = "tokens_unreadable"
    status = 500

    def __init__(self, provider: str) -> None:
        super().__init__(
            f"the stored {provider} credentials cannot be decrypted on this server: "
            "call connect_provider to connect again"
        )


class ProviderTrouble(ConnectionProblem):
    """The provider is rate limiting us, down, or answered something unusable."""

    code = "provider_error"
    status = 502

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def explain_provider_error(provider: str, exc: ProviderError) -> ConnectionProblem:
    """Map the provider layer's error tree to what callers of this layer see."""
    if isinstance(exc, ReconnectRequired):
        return NeedsReconnect(provider)
    if isinstance(exc, ProviderRateLimited):
        seconds = max(1, round(exc.retry_after))
        text = (
            f"your account's share of this server's {provider} request quota is used up: "
            f"try again in {seconds} s"
            if exc.tenant_share
            else f"{provider} is rate limiting requests: try again in {seconds} s"
        )
        problem = ProviderTrouble(text, retry_after=seconds)
        problem.code, problem.status = "provider_rate_limited", 429
        return problem
    if isinstance(exc, ProviderUnavailable):
        problem = ProviderTrouble(f"{provider} is unavailable right now: try again later")
        problem.code, problem.status = "provider_unavailable", 503
        return problem
    if isinstance(exc, ProviderConfigError):
        return ProviderTrouble(f"{provider} refused this server's client credentials")
    return ProviderTrouble(f"{provider} request failed ({type(exc).__name__})")


STATE_REASONS = {
    "invalid": "This authorization link is not valid.",
    "expired": "This authorization link has expired.",
    "used": "This authorization link was already used. If you finished it a moment ago, "
    "your account is already connected.",
    "wrong_user": "This authorization link was issued to another account.",
    "wrong_provider": "This authorization link belongs to another provider.",
    "denied": "Access was not granted.",
    "not_continued": "This connection was not started from Pacekeeper's connect page. "
    "Open the link your assistant gave you and press Continue.",
    "continued": "This connection link was already opened and continued in a browser. "
    "Ask your assistant for a new link.",
    "wrong_browser": "This connection was started in another browser. Start it again in "
    "this browser, from the link your assistant gave you.",
    "exchange_failed": "The provider did not complete the connection.",
}


class StateRejected(ConnectionProblem):
    """A provider callback that must not connect anything (PROV-3)."""

    code = "invalid_state"

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(detail or STATE_REASONS[reason])
        self.reason = reason


__all__ = [
    "STATE_REASONS",
    "ConnectionProblem",
    "NeedsReconnect",
    "NotConnected",
    "ProviderNotConfigured",
    "ProviderTrouble",
    "StateRejected",
    "TokensUnreadable",
    "UnknownProvider",
    "explain_provider_error",
]
