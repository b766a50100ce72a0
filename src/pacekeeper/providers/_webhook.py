"""A provider's own webhook, behind one generic route (``/api/webhooks/<id>[/<kind>]``).

A provider that pushes to us declares a ``WebhookSpec`` on its ``ProviderSpec``: the path
kinds it serves, its body limit, how to build its handler from the service settings,
what production requires of those settings, and its OpenAPI. The handler verifies and
parses a delivery its own way (Strava's verify token, Garmin's shared secret and
idempotency keys) and answers with the syncs to queue; the route (http/webhooks.py)
does what every webhook shares: the per-address limit, the body limit, the error shapes,
and queueing. The service lends the handler a ``WebhookHost`` bound to its provider.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pacekeeper.config import Settings

    from ._config import ProviderSettings


@dataclass(frozen=True, slots=True)
class WebhookRequest:
    method: str
    kind: str  # the path segment after /api/webhooks/<id>/ ("" for none)
    query: Mapping[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class WebhookAnswer:
    body: dict[str, Any]
    # (user, tenant) of the syncs to queue; the route queues each once.
    syncs: tuple[tuple[uuid.UUID, uuid.UUID], ...] = ()
    # The answer's key that reports how many were queued (Strava's "queued"), if any.
    queued_key: str | None = None


class WebhookHost(Protocol):
    """What the service lends one provider's webhook (bound to that provider)."""

    async def claim(self, key: str, ttl_s: float) -> bool:
        """True for the first claim of ``key`` within ``ttl_s``; False for a replay."""
        ...

    async def users_for_tokens(self, user_access_tokens: Collection[str]) -> dict[str, str]:
        """Our user id for each access token of a connected connection (others absent)."""
        ...

    async def owners_of(self, provider_user_id: str) -> list[tuple[uuid.UUID, uuid.UUID]]:
        """(user, tenant) of the connections to one account, named by the provider's id."""
        ...

    async def owner(self, user_id: uuid.UUID) -> tuple[uuid.UUID, uuid.UUID] | None:
        """(user, tenant) of our user's connection, while it exists."""
        ...


class ProviderWebhook(Protocol):
    # Deliveries per minute from one client address (None: no limit of its own).
    per_minute: int | None

    async def handle(self, request: WebhookRequest, host: WebhookHost) -> WebhookAnswer:
        """Verify and read one delivery; ``WebhookRejected`` (its ``status``: 400, 403 or
        413) for anything refused."""
        ...


WebhookFactory = Callable[["Settings", "ProviderSettings", "WebhookHost"], ProviderWebhook]


def _no_check(settings: Settings) -> None:
    return None


@dataclass(frozen=True, slots=True)
class WebhookSpec:
    build: WebhookFactory
    kinds: tuple[str, ...] = ("",)  # path segments served ("": /api/webhooks/<id> itself)
    methods: tuple[str, ...] = ("POST",)
    max_body_bytes: int = 16 * 1024  # enforced while the body streams in
    # Raises ProviderConfigError when the settings are unsafe for production with this
    # provider configured (Garmin: no webhook secret).
    check: Callable[[Settings], None] = _no_check
    # OpenAPI path items by kind.
    openapi: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


WEBHOOK_PREFIX = "/api/webhooks"


def webhook_path(provider: str, kind: str) -> str:
    return f"{WEBHOOK_PREFIX}/{provider}" + (f"/{kind}" if kind else "")



__all__ = [
    "WEBHOOK_PREFIX",
    "ProviderWebhook",
    "WebhookAnswer",
    "WebhookFactory",
    "WebhookHost",
    "WebhookRequest",
    "WebhookSpec",
    "webhook_path",
]
