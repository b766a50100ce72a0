"""Fitness-data providers: one interface, the Strava, Fitbit and Garmin clients, the
normalizing mappers, and (in ``sandbox``) an emulator of all three.

Typical use::

    settings = ProviderSettings.from_env("strava", os.environ)   # PROV-7
    async with httpx.AsyncClient() as http:
        client = StravaClient(settings, http)
        start = await client.start_authorization(state)           # keep start beside state
        tokens = await client.complete_authorization(start, callback_query)
"""

import httpx

from ._base import GarminTokenLookup, IdempotencyStore, ProviderClient
from ._config import (
    DEFAULT_ENDPOINTS,
    ENV_SANDBOX_BASE,
    Endpoints,
    ProviderSettings,
    check_redirect_uri,
    sandbox_endpoints,
)
from ._errors import (
    AccessTokenRejected,
    ProviderAuthError,
    ProviderConfigError,
    ProviderError,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderResponseError,
    ProviderUnavailable,
    ReconnectRequired,
    WebhookRejected,
)
from ._garmin_webhook import GarminNotification, GarminWebhook, WebhookResult
from ._http import ProviderHTTP, RetryPolicy
from ._memory import MemoryIdempotencyStore
from ._oauth1 import OAuth1Auth
from ._ratelimit import (
    DEFAULT_TENANT_SHARE,
    RateLimitTracker,
    RateLimitWindow,
    current_tenant,
    parse_rate_limits,
)
from ._sealed import open_token_set, seal_token_set
from ._tokens import AuthorizationStart, TokenSet, code_challenge, new_code_verifier
from .fitbit import FitbitClient
from .garmin import GarminClient
from .strava import StravaClient

__all__ = [
    "DEFAULT_ENDPOINTS",
    "DEFAULT_TENANT_SHARE",
    "ENV_SANDBOX_BASE",
    "AccessTokenRejected",
    "AuthorizationStart",
    "Endpoints",
    "FitbitClient",
    "GarminClient",
    "GarminNotification",
    "GarminTokenLookup",
    "GarminWebhook",
    "IdempotencyStore",
    "MemoryIdempotencyStore",
    "OAuth1Auth",
    "ProviderAuthError",
    "ProviderClient",
    "ProviderConfigError",
    "ProviderError",
    "ProviderHTTP",
    "ProviderRateLimited",
    "ProviderRequestError",
    "ProviderResponseError",
    "ProviderSettings",
    "ProviderUnavailable",
    "RateLimitTracker",
    "RateLimitWindow",
    "ReconnectRequired",
    "RetryPolicy",
    "StravaClient",
    "TokenSet",
    "WebhookRejected",
    "WebhookResult",
    "check_redirect_uri",
    "client_for",
    "code_challenge",
    "current_tenant",
    "new_code_verifier",
    "open_token_set",
    "parse_rate_limits",
    "sandbox_endpoints",
    "seal_token_set",
]


def client_for(
    provider: str,
    settings: ProviderSettings,
    http: httpx.AsyncClient,
    tracker: RateLimitTracker | None = None,
) -> ProviderClient:
    """A client for a provider id, sharing the caller's ``httpx.AsyncClient``."""
    classes: dict[str, type[StravaClient] | type[FitbitClient] | type[GarminClient]] = {
        "strava": StravaClient,
        "fitbit": FitbitClient,
        "garmin": GarminClient,
    }
    if provider not in classes:
        raise ProviderConfigError(provider, "unknown provider")
    return classes[provider](settings, http, tracker=tracker)
