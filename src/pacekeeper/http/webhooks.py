"""Every provider's push webhook behind one route: ``/api/webhooks/<id>[/<kind>]``.

The provider's own handler (``ProviderSpec.webhook``, in its folder) verifies and reads
a delivery; what every webhook shares is here: the per-address limit (before the body
is read), the body limit (``webhook_body_limits``, enforced while it streams in, by the
app's BodyLimitMiddleware), the error shapes, and queueing the syncs it names, each
once. An unknown provider or kind, or an unconfigured provider, is a 404.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pacekeeper.errors import ApiError, RateLimited, ValidationFailed
from pacekeeper.http._common import JSONResponse, services
from pacekeeper.owner import Owner
from pacekeeper.providers import (
    PROVIDERS,
    WEBHOOK_PREFIX,
    ProviderError,
    WebhookRejected,
    WebhookRequest,
    webhook_path,
)

log = logging.getLogger("pacekeeper.webhooks")


def webhook_body_limits() -> dict[str, int]:
    """Each webhook path's body limit, from the registry (Garmin's 8 MiB is above the
    app's 1 MiB, Strava's 16 KiB below it)."""
    return {webhook_path(spec.id, kind): spec.webhook.max_body_bytes
            for spec in PROVIDERS.values() if spec.webhook is not None
            for kind in spec.webhook.kinds}  # fmt: skip


async def _queue(request: Request, user_id: uuid.UUID, tenant_id: uuid.UUID,
                 provider: str) -> int:
    """Queue a background sync; a queue failure is logged, never the sender's problem."""
    svc = services(request)
    if svc.jobs is None or svc.syncs is None:
        return 0
    try:
        return await svc.jobs.enqueue_sync(Owner(user_id, tenant_id), provider)
    except Exception as exc:  # the delivery itself was accepted
        log.error("queueing a %s sync failed: %s", provider, type(exc).__name__)
        return 0


async def provider_webhook(request: Request, provider: str, kind: str) -> Response:
    """/api/webhooks/<provider>[/<kind>]: the provider's handler decides."""
    svc = services(request)
    layer = svc.connection_layer
    found = None if layer is None else layer.webhooks.get(provider)
    if found is None:  # not configured
        raise ApiError("not found", code="not_found", status=404)
    hook, host = found
    if hook.per_minute is not None:
        # Before the body is read: anyone who knows the URL can send, and each delivery
        # costs a parse and a lookup.
        address = (svc.attempts.address(request) if svc.attempts is not None
                   else request.client.host if request.client else "unknown")
        decision = await svc.limiter.hit(f"{provider}-webhook:{address}", hook.per_minute)
        if not decision.allowed:
            raise RateLimited("too many webhook deliveries from this address; retry later",
                              headers=decision.headers())
    body = await request.body() if request.method == "POST" else b""
    try:
        answer = await hook.handle(
            WebhookRequest(request.method, kind, dict(request.query_params), body), host)
    except WebhookRejected as exc:
        if exc.status == 413:
            raise ApiError(f"notification rejected: {exc}", code="payload_too_large",
                           status=413) from None
        if exc.status == 403:
            raise ApiError(f"notification rejected: {exc}", code="forbidden",
                           status=403) from None
        raise ValidationFailed(f"notification rejected: {exc}") from None
    except ProviderError:
        raise ApiError("notification could not be processed", status=500) from None
    queued = 0
    for user_id, tenant_id in dict.fromkeys(answer.syncs):
        queued += await _queue(request, user_id, tenant_id, provider)
    body_out = dict(answer.body)
    if answer.queued_key is not None:
        body_out[answer.queued_key] = queued
        log.info("%s webhook: %d syncs queued", provider, queued)
    return JSONResponse(body_out)


def _endpoint(provider: str, kind: str) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return await provider_webhook(request, provider, kind)
    return endpoint


def webhook_routes() -> list[Route]:
    """One path per provider and kind, from the registry, all served by
    ``provider_webhook`` (concrete paths: each is documented, and an unknown provider
    or kind, or another method, is Starlette's 404 or 405 with ``Allow``)."""
    return [Route(webhook_path(spec.id, kind), _endpoint(spec.id, kind),
                  methods=list(spec.webhook.methods))
            for spec in PROVIDERS.values() if spec.webhook is not None
            for kind in spec.webhook.kinds]  # fmt: skip


__all__ = ["WEBHOOK_PREFIX", "provider_webhook", "webhook_body_limits", "webhook_routes"]
