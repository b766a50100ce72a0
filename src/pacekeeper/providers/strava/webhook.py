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
from typing import TYPE_CHECKING, Any

from pacekeeper._openapi_parts import error_response as err
from pacekeeper._openapi_parts import json_response as ok

from .._errors import WebhookRejected
from .._webhook import WebhookAnswer, WebhookHost, WebhookRequest, WebhookSpec
from ._id import ID

if TYPE_CHECKING:
    from pacekeeper.config import Settings

    from .._config import ProviderSettings

MAX_EVENT_BYTES = 16 * 1024


class StravaWebhook:
    per_minute: int | None = None  # as before: a forged event costs one de-duplicated sync at most

    def __init__(self, verify_token: str) -> None:
        self._verify_token = verify_token

    async def handle(self, request: WebhookRequest, host: WebhookHost) -> WebhookAnswer:
        if request.method == "GET":
            return self._validate(request)
        return await self._event(request, host)

    def _validate(self, request: WebhookRequest) -> WebhookAnswer:
        """GET ?hub.mode=subscribe&hub.challenge=&hub.verify_token="""
        q = request.query
        presented = q.get("hub.verify_token", "")
        challenge = q.get("hub.challenge", "")
        expected = self._verify_token
        if not expected or not hmac.compare_digest(presented.encode(), expected.encode()):
            raise WebhookRejected(ID, "verify token mismatch", status=403)
        if q.get("hub.mode") != "subscribe" or not challenge or len(challenge) > 256:
            raise WebhookRejected(ID, "expected hub.mode=subscribe and a hub.challenge")
        return WebhookAnswer({"hub.challenge": challenge})

    async def _event(self, request: WebhookRequest, host: WebhookHost) -> WebhookAnswer:
        """POST {object_type, aspect_type, object_id, owner_id, ...}."""
        if len(request.body) > MAX_EVENT_BYTES:
            raise WebhookRejected(ID, "event too large", status=413)
        try:
            event = json.loads(request.body)
        except ValueError:
            raise WebhookRejected(ID, "the event is not JSON") from None
        if not isinstance(event, dict):
            raise WebhookRejected(ID, "the event must be an object")
        owner_id, kind = event.get("owner_id"), event.get("object_type")
        if not isinstance(owner_id, int) or isinstance(owner_id, bool) \
                or kind not in ("activity", "athlete"):
            raise WebhookRejected(ID, "owner_id (a number) and object_type are required")
        # An athlete event is a deauthorization or a profile change: nothing to fetch.
        owners = await host.owners_of(str(owner_id)) if kind == "activity" else []
        return WebhookAnswer({"received": True, "queued": 0}, tuple(owners), "queued")


def _build(settings: Settings, provider: ProviderSettings, host: WebhookHost) -> StravaWebhook:
    return StravaWebhook(settings.strava_webhook_verify_token.get_secret_value())


def _openapi() -> dict[str, Any]:
    return {
        "get": {
            "summary": "Strava's subscription check: echo hub.challenge when "
                       "hub.verify_token is ours",
            "security": [{}],
            "parameters": [{"name": n, "in": "query", "schema": {"type": "string"}}
                           for n in ("hub.mode", "hub.challenge", "hub.verify_token")],
            "responses": {"200": ok("the challenge", {"type": "object"}),
                          "400": err("not a subscription check"),
                          "403": err("wrong verify token")},
        },
        "post": {
            "summary": "Strava event: a sync is queued for the athlete's connections",
            "security": [{}],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"type": "object", "required": ["owner_id", "object_type"],
                           "properties": {"owner_id": {"type": "integer"},
                                          "object_type": {"type": "string"}}}}}},
            "responses": {"200": ok("received", {"type": "object"}),
                          "400": err("not an event"), "413": err("too large")},
        },
    }  # fmt: skip


WEBHOOK = WebhookSpec(build=_build, methods=("GET", "POST"), max_body_bytes=MAX_EVENT_BYTES,
                      openapi={"": _openapi()})
