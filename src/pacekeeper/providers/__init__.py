"""Fitness-data providers: one interface (``ProviderClient``, ``ProviderSpec``), one
folder per provider (client, mapping, sandbox emulation, spec), the registry they are
listed in (``PROVIDERS``), and (in ``sandbox``) the emulator's shared machinery.

Typical use::

    settings = ProviderSettings.from_env("strava", os.environ)   # PROV-7
    async with httpx.AsyncClient() as http:
        client = StravaClient(settings, http)
        start = await client.start_authorization(state)           # keep start beside state
        tokens = await client.complete_authorization(start, callback_query)
"""

import httpx

from ._base import IdempotencyStore, ProviderClient, TokenLookup, WorkoutReceiver
from ._config import (
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
from ._http import ProviderHTTP, RetryPolicy
from ._memory import MemoryIdempotencyStore
from ._oauth1 import OAuth1Auth
from ._offload import RunCpu, run_here
from ._policy import DataPolicy, Policies, agreements
from ._ratelimit import (
    DEFAULT_TENANT_SHARE,
    RateLimitTracker,
    RateLimitWindow,
    current_share_keys,
    parse_rate_limits,
    share_keys,
)
from ._sealed import open_token_set, seal_token_set
from ._spec import (
    ActivityBatch,
    AuthKind,
    Capabilities,
    HealthDays,
    ProviderCall,
    ProviderSpec,
    ProviderSync,
)
from ._tokens import AuthorizationStart, TokenSet, code_challenge, new_code_verifier
from ._webhook import (
    WEBHOOK_PREFIX,
    ProviderWebhook,
    WebhookAnswer,
    WebhookHost,
    WebhookRequest,
    WebhookSpec,
    webhook_path,
)
from ._window import history_activities, history_start, in_history
from .fitbit import FitbitClient
from .garmin import GarminClient
from .garmin.webhook import GarminNotification, GarminWebhook, WebhookResult
from .registry import PROVIDER_IDS, PROVIDERS, default_endpoints
from .strava import StravaClient

DEFAULT_ENDPOINTS = default_endpoints()  # the real providers' URLs, by provider id

__all__ = [
    "DEFAULT_ENDPOINTS",
    "DEFAULT_TENANT_SHARE",
    "ENV_SANDBOX_BASE",
    "PROVIDERS",
    "PROVIDER_IDS",
    "WEBHOOK_PREFIX",
    "AccessTokenRejected",
    "ActivityBatch",
    "AuthKind",
    "AuthorizationStart",
    "Capabilities",
    "DataPolicy",
    "Endpoints",
    "FitbitClient",
    "GarminClient",
    "GarminNotification",
    "GarminWebhook",
    "HealthDays",
    "IdempotencyStore",
    "MemoryIdempotencyStore",
    "OAuth1Auth",
    "Policies",
    "ProviderAuthError",
    "ProviderCall",
    "ProviderClient",
    "ProviderConfigError",
    "ProviderError",
    "ProviderHTTP",
    "ProviderRateLimited",
    "ProviderRequestError",
    "ProviderResponseError",
    "ProviderSettings",
    "ProviderSpec",
    "ProviderSync",
    "ProviderUnavailable",
    "ProviderWebhook",
    "RateLimitTracker",
    "RateLimitWindow",
    "ReconnectRequired",
    "RetryPolicy",
    "RunCpu",
    "StravaClient",
    "TokenLookup",
    "TokenSet",
    "WebhookAnswer",
    "WebhookHost",
    "WebhookRejected",
    "WebhookRequest",
    "WebhookResult",
    "WebhookSpec",
    "WorkoutReceiver",
    "agreements",
    "check_redirect_uri",
    "client_for",
    "code_challenge",
    "current_share_keys",
    "history_activities",
    "history_start",
    "in_history",
    "new_code_verifier",
    "open_token_set",
    "parse_rate_limits",
    "run_here",
    "sandbox_endpoints",
    "seal_token_set",
    "share_keys",
    "webhook_path",
]


def client_for(
    provider: str,
    settings: ProviderSettings,
    http: httpx.AsyncClient,
    tracker: RateLimitTracker | None = None,
    run_cpu: RunCpu = run_here,
) -> ProviderClient:
    """A client for a provider id, sharing the caller's ``httpx.AsyncClient``;
    ``run_cpu``: where it decodes and maps large bodies (``_offload``, issue 30)."""
    spec = PROVIDERS.get(provider)
    if spec is None:
        raise ProviderConfigError(provider, "unknown provider")
    return spec.client(settings, http, tracker=tracker, run_cpu=run_cpu)
