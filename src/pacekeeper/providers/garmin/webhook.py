"""Garmin push/ping notifications: parsing, verification, idempotency.

Garmin POSTs ``{"<summaryType>": [ {...}, ... ]}``. A *push* entry carries the summary
itself; a *ping* entry carries a ``callbackURL`` to pull it from. Garmin signs nothing,
so verification is ours: an optional shared secret in the endpoint (compared in
constant time), callback URLs confined to the configured Garmin API (no SSRF, no token
sent elsewhere), and the ``userAccessToken`` of a known connection. Garmin retries
deliveries, so each entry gets an idempotency key and replays are dropped.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json

from .._base import IdempotencyStore, TokenLookup
from .._errors import ProviderConfigError, WebhookRejected
from .._webhook import WebhookAnswer, WebhookHost, WebhookRequest, WebhookSpec
from ._id import ID

if TYPE_CHECKING:
    from pacekeeper.config import Settings

    from .._config import ProviderSettings

log = logging.getLogger("pacekeeper.connections")

SUMMARY_TYPES = frozenset(
    {
        "activities", "activityDetails", "manuallyUpdatedActivities", "moveIQActivities",
        "dailies", "epochs", "sleeps", "bodyComps", "stressDetails", "userMetrics",
        "pulseox", "allDayRespiration", "healthSnapshot", "hrv", "bloodPressures",
        "skinTemp", "deregistrations", "userPermissionsChange",
    }
)  # fmt: skip
MAX_BODY_BYTES = 8 * 1024 * 1024
# Entries (summaries or pings) per delivery. Garmin does not publish a maximum; it sends
# one notification per upload and batches what arrives within a few minutes, so a real
# delivery holds one person's day or a backfill (90 days of epochs at 96 a day is 8,640).
# Beyond this the delivery is refused unread (413): the review's 23,000 entries of
# unknown users in 1 MiB cost 15.6 s of CPU.
MAX_ENTRIES = 10_000


@dataclass(frozen=True, slots=True)
class GarminNotification:
    kind: str
    garmin_user_id: str
    user_access_token: str = field(repr=False)
    idempotency_key: str
    summary: dict[str, Any] | None = None  # push
    callback_url: str | None = None  # ping
    user_id: str | None = None  # ours, when the token belongs to a known connection


@dataclass(slots=True)
class WebhookResult:
    fresh: list[GarminNotification] = field(default_factory=list)
    replays: int = 0
    unknown_users: int = 0


def _key(kind: str, entry: dict[str, Any]) -> str:
    # The content digest is part of the key: Garmin re-sends an updated daily summary
    # under the same summaryId, and that update must not be mistaken for a replay.
    canonical = json.dumps(entry, sort_keys=True, separators=(",", ":")).encode()
    digest = hashlib.sha256(canonical).hexdigest()
    return f"garmin:{kind}:{entry.get('userId')}:{entry.get('summaryId', '')}:{digest}"


class GarminWebhook:
    def __init__(
        self,
        api_base: str,
        store: IdempotencyStore,
        tokens: TokenLookup | None = None,
        *,
        shared_secret: str | None = None,
        replay_window_s: float = 7 * 86_400,
    ) -> None:
        api = urlsplit(api_base)
        self._api_origin = (api.scheme, api.netloc)
        self._api_path = api.path.rstrip("/") + "/"
        self._store = store
        self._tokens = tokens
        self._secret = shared_secret
        self._ttl = replay_window_s

    def parse(self, body: bytes) -> list[GarminNotification]:
        """Validate the body's shape; ``WebhookRejected`` for anything malformed."""
        if len(body) > MAX_BODY_BYTES:
            raise WebhookRejected("garmin", "notification body too large")
        try:
            payload = json.loads(body)
        except ValueError as exc:
            raise WebhookRejected("garmin", "notification is not JSON") from exc
        if not isinstance(payload, dict) or not payload:
            raise WebhookRejected("garmin", "notification must be a non-empty object")
        for kind, entries in payload.items():
            if kind not in SUMMARY_TYPES or not isinstance(entries, list):
                raise WebhookRejected("garmin", f"unknown summary type {kind!r}")
        if sum(len(entries) for entries in payload.values()) > MAX_ENTRIES:
            raise WebhookRejected(
                "garmin", f"a delivery holds at most {MAX_ENTRIES} entries", status=413)
        found: list[GarminNotification] = []
        for kind, entries in payload.items():
            for entry in entries:
                found.append(self._entry(kind, entry))
        return found

    def _entry(self, kind: str, entry: Any) -> GarminNotification:
        if not isinstance(entry, dict):
            raise WebhookRejected("garmin", "summary entries must be objects")
        user, token = entry.get("userId"), entry.get("userAccessToken")
        if not isinstance(user, str) or not isinstance(token, str) or not user or not token:
            raise WebhookRejected("garmin", "entry lacks userId or userAccessToken")
        callback = entry.get("callbackURL")
        if callback is not None:
            self._check_callback(callback)
        summary = None if callback is not None else entry
        return GarminNotification(kind, user, token, _key(kind, entry), summary, callback)

    def _check_callback(self, url: Any) -> None:
        parts = urlsplit(url) if isinstance(url, str) else None
        if (
            parts is None
            or (parts.scheme, parts.netloc) != self._api_origin
            or not parts.path.startswith(self._api_path)
        ):
            raise WebhookRejected("garmin", "callbackURL is outside the Garmin API")

    async def accept(self, body: bytes, *, presented_secret: str | None = None) -> WebhookResult:
        """Verify, parse and de-duplicate one delivery."""
        if self._secret is not None and not hmac.compare_digest(
            (presented_secret or "").encode(), self._secret.encode()
        ):
            raise WebhookRejected("garmin", "webhook secret mismatch")
        result = WebhookResult()
        notes = self.parse(body)
        # One lookup for the delivery's tokens together, not one per entry.
        users = (None if self._tokens is None else
                 await self._tokens.users_for_tokens({n.user_access_token for n in notes}))
        for note in notes:
            user_id = None
            if users is not None:
                user_id = users.get(note.user_access_token)
                if user_id is None:
                    result.unknown_users += 1
                    continue
            if not await self._store.claim(note.idempotency_key, self._ttl):
                result.replays += 1
                continue
            result.fresh.append(
                GarminNotification(
                    note.kind,
                    note.garmin_user_id,
                    note.user_access_token,
                    note.idempotency_key,
                    note.summary,
                    note.callback_url,
                    user_id,
                )
            )
        return result


class GarminWebhookHandler:
    """``/api/webhooks/garmin/{push|ping}``: verified, de-duplicated deliveries, a sync
    queued once per user of the fresh ones."""

    def __init__(self, hook: GarminWebhook, per_minute: int) -> None:
        self.hook = hook
        # Per client address: the endpoint is open to anyone who knows the URL (Garmin
        # signs nothing), and each delivery costs a parse and a lookup.
        self.per_minute: int | None = per_minute

    async def handle(self, request: WebhookRequest, host: WebhookHost) -> WebhookAnswer:
        result = await self.hook.accept(request.body,
                                        presented_secret=request.query.get("secret"))
        owners: list[tuple[uuid.UUID, uuid.UUID]] = []
        seen: set[str] = set()
        for note in result.fresh:
            log.info("garmin %s for user %s", note.kind, note.user_id)
            if note.user_id is not None and note.user_id not in seen:
                seen.add(note.user_id)
                found = await host.owner(uuid.UUID(note.user_id))
                if found is not None:
                    owners.append(found)
        return WebhookAnswer(
            {"accepted": len(result.fresh), "replays": result.replays,
             "unknown_users": result.unknown_users}, tuple(owners))  # fmt: skip


def _build(settings: Settings, provider: ProviderSettings,
           host: WebhookHost) -> GarminWebhookHandler:
    secret = settings.garmin_webhook_secret.get_secret_value() or None
    hook = GarminWebhook(provider.endpoints.api, host, host, shared_secret=secret)
    return GarminWebhookHandler(hook, settings.garmin_webhook_limit_per_minute)


def _check(settings: Settings) -> None:
    if settings.is_production and not settings.garmin_webhook_secret.get_secret_value():
        # Garmin signs nothing: the secret in the registered URL is what tells its
        # deliveries from anyone's. Development (and the sandbox) may go without.
        raise ProviderConfigError(
            ID, "PACEKEEPER_GARMIN_WEBHOOK_SECRET must be set in production when "
            "Garmin is configured: register the webhook URLs with ?secret=<it>")


_OPENAPI: dict[str, Any] = {"post": {
    "summary": "Garmin notification (push or ping); replays are counted, not processed",
    "parameters": [
        {"name": "secret", "in": "query", "required": False, "schema": {"type": "string"}}
    ],
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
    },
    "responses": {
        "200": _json("accepted", {"type": "object", "properties": {
            "accepted": {"type": "integer"}, "replays": {"type": "integer"},
            "unknown_users": {"type": "integer"}}}),
        "400": _err("malformed, wrong secret, or callbackURL outside the Garmin API"),
        "404": _err("Garmin is not configured"),
        "413": _err("body over 8 MiB, or more than 10,000 entries"),
        "429": _err("too many deliveries from this address"),
    },
}}  # fmt: skip

# activityDetails deliveries are large: 8 MiB, above the app's 1 MiB.
WEBHOOK = WebhookSpec(build=_build, kinds=("push", "ping"), max_body_bytes=MAX_BODY_BYTES,
                      check=_check, openapi={"push": _OPENAPI, "ping": _OPENAPI})
