"""API keys: tiers, key material, storage, usage counting, the service.

The HTTP handlers live in `pacekeeper.http.apikeys`, imported by the app only: they
need `pacekeeper.services`, which itself builds the `ApiKeyService` from this package.
"""

from pacekeeper.apikeys._meter import Metered, RedisKeyMeter
from pacekeeper.apikeys._revocation import (
    FileRevocationSignal,
    RedisRevocationSignal,
    RevocationSignal,
    SignallingUserRepository,
)
from pacekeeper.apikeys._secret import KEY_PREFIX, digest, display_prefix, key_id_of, new_key
from pacekeeper.apikeys._service import (
    API_KEY_HEADER,
    CHALLENGE,
    ApiKeyService,
    CreatedKey,
    KeyCaller,
    QuotaExceeded,
    rejected,
)
from pacekeeper.apikeys._store import ApiKey, ApiKeyRepository, KeyLookup, SqlApiKeyRepository
from pacekeeper.apikeys._tables import ApiKeyRow, ApiKeyUsageRow
from pacekeeper.apikeys._tiers import (
    BURST_PER_MINUTE,
    PLAN_TIERS,
    QUOTA_WINDOW_DAYS,
    QUOTAS,
    TRIAL_LIFETIME,
    Tier,
    parse_tier,
    tiers_for_plan,
)
from pacekeeper.apikeys._usage import MemoryUsageCounter, PendingUsage, UsageCounter
from pacekeeper.apikeys._usage_redis import RedisUsageCounter
from pacekeeper.apikeys._window import QuotaDecision, day_of, decide

__all__ = [
    "API_KEY_HEADER",
    "BURST_PER_MINUTE",
    "CHALLENGE",
    "KEY_PREFIX",
    "PLAN_TIERS",
    "QUOTAS",
    "QUOTA_WINDOW_DAYS",
    "TRIAL_LIFETIME",
    "ApiKey",
    "ApiKeyRepository",
    "ApiKeyRow",
    "ApiKeyService",
    "ApiKeyUsageRow",
    "CreatedKey",
    "FileRevocationSignal",
    "KeyCaller",
    "KeyLookup",
    "MemoryUsageCounter",
    "Metered",
    "PendingUsage",
    "QuotaDecision",
    "QuotaExceeded",
    "RedisKeyMeter",
    "RedisRevocationSignal",
    "RedisUsageCounter",
    "RevocationSignal",
    "SignallingUserRepository",
    "SqlApiKeyRepository",
    "Tier",
    "UsageCounter",
    "day_of",
    "decide",
    "digest",
    "display_prefix",
    "key_id_of",
    "new_key",
    "parse_tier",
    "rejected",
    "tiers_for_plan",
]
