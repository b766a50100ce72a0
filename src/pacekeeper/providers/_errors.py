"""Errors of the provider layer. Messages never contain tokens or secrets.

ProviderError
 +-- ProviderConfigError     missing or unsafe client settings (PROV-7)
 +-- ProviderAuthError       the provider refused our credentials
 |    +-- AccessTokenRejected   401 on a data call: refresh, then retry once
 |    +-- ReconnectRequired     refresh/code refused, access revoked: user must reconnect
 +-- ProviderRateLimited     429 or our own view of the quota; ``retry_after`` seconds
 +-- ProviderUnavailable     5xx, timeouts, connection failures after the retries
 +-- ProviderRequestError    any other 4xx (bad request, not found)
 +-- ProviderResponseError   a 2xx whose body is not the documented shape
 +-- WebhookRejected         an incoming provider notification failed verification
"""

from __future__ import annotations

from typing import Any

from pacekeeper.errors import PacekeeperError


def _rebuilt(cls: type[ProviderError], args: tuple[Any, ...]) -> ProviderError:
    error = cls.__new__(cls)
    error.args = args
    return error


class ProviderError(PacekeeperError):
    def __init__(self, provider: str, message: str, *, status: int | None = None) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.status = status

    def __reduce__(self) -> tuple[Any, ...]:
        # A mapper in the CPU pool raises these in a worker process (issue 30); the default
        # (``cls(*args)``) cannot rebuild them there, as ``args`` is the one joined message.
        return _rebuilt, (type(self), self.args), self.__dict__


class ProviderConfigError(ProviderError):
    pass


class ProviderAuthError(ProviderError):
    pass


class AccessTokenRejected(ProviderAuthError):
    pass


class ReconnectRequired(ProviderAuthError):
    """The stored grant is gone (revoked, expired refresh token, deauthorized)."""


class ProviderRateLimited(ProviderError):
    def __init__(
        self, provider: str, retry_after: float, *, status: int | None = 429,
        tenant_share: bool = False,
    ) -> None:
        super().__init__(provider, f"rate limited; retry after {retry_after:.0f}s", status=status)
        self.retry_after = retry_after
        # True: the provider still has quota; this tenant used its fair share of it.
        self.tenant_share = tenant_share


class ProviderUnavailable(ProviderError):
    pass


class ProviderRequestError(ProviderError):
    pass


class ProviderResponseError(ProviderError):
    pass


class WebhookRejected(ProviderError):
    pass
