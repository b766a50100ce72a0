"""Strava's push webhook: subscription validation and events, each queueing a sync.

Strava signs nothing. The subscription handshake (``GET`` with ``hub.challenge``) is
answered only with the verify token we subscribed with (PACEKEEPER_STRAVA_WEBHOOK_VERIFY_
TOKEN); an event names a Strava athlete (``owner_id``), and all it does here is queue a
sync of the Pacekeeper people connected to exactly that athlete (the sync then asks
Strava itself, with that person's tokens): a forged event costs at most one
de-duplicated sync and reaches nobody else's data. Strava wants a 200 within two
seconds; queueing is one insert.
"""

from __future__ import annotations

import hmac
import json
import logging

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.http._common import JSONResponse, services
from pacekeeper.owner import Owner

log = logging.getLogger("pacekeeper.webhooks")
STRAVA_WEBHOOK = "/api/webhooks/strava"
MAX_EVENT_BYTES = 16 * 1024


async def strava_validate(request: Request) -> Response:
    """GET /api/webhooks/strava?hub.mode=subscribe&hub.challenge=&hub.verify_token="""
    q = request.query_params
    expected = services(request).settings.strava_webhook_verify_token.get_secret_value()
    presented = q.get("hub.verify_token", "")
    challenge = q.get("hub.challenge", "")
    if not expected or not hmac.compare_digest(presented.encode(), expected.encode()):
        raise ApiError("verify token mismatch", code="forbidden", status=403)
    if q.get("hub.mode") != "subscribe" or not challenge or len(challenge) > 256:
        raise ValidationFailed("expected hub.mode=subscribe and a hub.challenge")
    return JSONResponse({"hub.challenge": challenge})


async def strava_event(request: Request) -> Response:
    """POST /api/webhooks/strava {object_type, aspect_type, object_id, owner_id, ...}."""
    body = await request.body()
    if len(body) > MAX_EVENT_BYTES:
        raise ApiError("event too large", code="payload_too_large", status=413)
    try:
        event = json.loads(body)
    except ValueError:
        raise ValidationFailed("the event is not JSON") from None
    if not isinstance(event, dict):
        raise ValidationFailed("the event must be an object")
    owner_id, kind = event.get("owner_id"), event.get("object_type")
    if not isinstance(owner_id, int) or isinstance(owner_id, bool) \
            or kind not in ("activity", "athlete"):
        raise ValidationFailed("owner_id (a number) and object_type are required")
    svc = services(request)
    layer, jobs = svc.connection_layer, svc.jobs
    queued = 0
    # An athlete event is a deauthorization or a profile change: nothing to fetch.
    if kind == "activity" and layer is not None and jobs is not None:
        for user_id, tenant_id in await layer.repository.owners_of("strava", str(owner_id)):
            queued += await jobs.enqueue_sync(Owner(user_id, tenant_id), "strava")
    log.info("strava %s event: %d syncs queued", kind, queued)
    return JSONResponse({"received": True, "queued": queued})


async def strava_webhook(request: Request) -> Response:
    # One route for both methods, so a 405 (and OPTIONS) names GET and POST in `Allow`.
    if request.method == "POST":
        return await strava_event(request)
    return await strava_validate(request)


def webhook_routes() -> list[Route]:
    return [Route(STRAVA_WEBHOOK, strava_webhook, methods=["GET", "POST"])]


__all__ = ["STRAVA_WEBHOOK", "webhook_routes"]
