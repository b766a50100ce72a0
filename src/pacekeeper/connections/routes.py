"""HTTP endpoints of the connection flow (PROV-1, 3, 4, 8, 10) and Garmin's webhooks."""

from __future__ import annotations

import logging
import uuid

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pacekeeper.api import BodyLimitMiddleware
from pacekeeper.api._common import JSONResponse, services
from pacekeeper.connections._config import PROVIDERS
from pacekeeper.connections._errors import ConnectionProblem, StateRejected
from pacekeeper.connections._pages import result_page
from pacekeeper.connections._service import ConnectionService
from pacekeeper.errors import ApiError, Forbidden, Unauthenticated, ValidationFailed
from pacekeeper.providers import ProviderError, WebhookRejected
from pacekeeper.providers._garmin_webhook import MAX_BODY_BYTES

log = logging.getLogger("pacekeeper.connections")
WEBHOOK_PREFIX = "/api/webhooks/garmin"


def connection_service(request: Request) -> ConnectionService:
    found = services(request).connections
    if found is None:
        raise ApiError("provider connections are not available", status=503)
    return found


def api_error(problem: ConnectionProblem) -> ApiError:
    headers = {}
    retry_after = getattr(problem, "retry_after", None)
    if retry_after is not None:
        headers["Retry-After"] = str(int(retry_after))
    return ApiError(problem.message, code=problem.code, status=problem.status, headers=headers)


async def start_authorization(request: Request) -> Response:
    """GET /api/oauth/auth/{provider}/{user_id}: your own id only, unless admin (PROV-1)."""
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    provider = request.path_params["provider"]
    try:
        user_id = uuid.UUID(request.path_params["user_id"])
    except ValueError:
        raise ValidationFailed("user_id must be a user id (UUID)") from None
    tenant_id = principal.tenant_id
    if user_id != principal.user_id:
        if not principal.is_admin:
            raise Forbidden("you may only connect providers to your own account")
        target = await svc.users.get(user_id)
        if target is None:
            raise ApiError("no such user", code="not_found", status=404)
        tenant_id = target.tenant_id
    try:
        url = await connection_service(request).authorize(tenant_id, user_id, provider)
    except ConnectionProblem as problem:
        raise api_error(problem) from None
    return JSONResponse({"authorization_url": url, "provider": provider})


async def callback(request: Request) -> Response:
    """GET /api/oauth/callback/{provider}: no service login; the state names the user."""
    provider = request.path_params["provider"]
    svc = services(request)
    session_user = None
    try:
        principal = await svc.resolver.resolve(request.headers)
        session_user = principal.user_id if principal is not None else None
    except Unauthenticated:
        pass  # a stale session cookie must not block a valid provider callback
    try:
        await connection_service(request).complete(
            provider, dict(request.query_params), session_user
        )
    except StateRejected as problem:
        known = provider if provider in PROVIDERS else "unknown"  # no raw input in logs
        log.info("provider callback refused (%s): %s", known, problem.reason)
        return result_page(provider, ok=False, message=problem.message)
    except ConnectionProblem as problem:
        return result_page(provider, ok=False, message=problem.message)
    return result_page(
        provider, ok=True, message="Your account is connected. Pacekeeper can now read your data."
    )


async def status(request: Request) -> Response:
    """GET /oauth/status (PROV-8)."""
    principal = await services(request).resolver.require(request.method, request.headers)
    return JSONResponse(await connection_service(request).status(principal.user_id))


async def disconnect(request: Request) -> Response:
    """DELETE /api/oauth/connections/{provider}: tokens gone at once (PROV-10)."""
    principal = await services(request).resolver.require(request.method, request.headers)
    try:
        result = await connection_service(request).disconnect(
            principal.user_id, request.path_params["provider"]
        )
    except ConnectionProblem as problem:
        raise api_error(problem) from None
    return JSONResponse(result)


async def garmin_webhook(request: Request) -> Response:
    """POST /api/webhooks/garmin/{push|ping}: verified, de-duplicated deliveries."""
    hook = services(request).garmin_webhook
    if hook is None:
        raise ApiError("not found", code="not_found", status=404)
    try:
        result = await hook.accept(
            await request.body(), presented_secret=request.query_params.get("secret")
        )
    except WebhookRejected as exc:
        raise ValidationFailed(f"notification rejected: {exc}") from None
    except ProviderError:
        raise ApiError("notification could not be processed", status=500) from None
    for note in result.fresh:
        log.info("garmin %s for user %s", note.kind, note.user_id)
    return JSONResponse(
        {"accepted": len(result.fresh), "replays": result.replays,
         "unknown_users": result.unknown_users}
    )  # fmt: skip


def connection_routes() -> list[Route]:
    return [
        Route("/api/oauth/auth/{provider}/{user_id}", start_authorization, methods=["GET"]),
        Route("/api/oauth/callback/{provider}", callback, methods=["GET"]),
        Route("/oauth/status", status, methods=["GET"]),
        Route("/api/oauth/connections/{provider}", disconnect, methods=["DELETE"]),
        # Garmin's activityDetails deliveries are large: their own 8 MiB limit (the app's
        # 1 MiB one exempts WEBHOOK_PREFIX), still enforced while the body streams in.
        *(
            Route(
                f"{WEBHOOK_PREFIX}/{kind}",
                garmin_webhook,
                methods=["POST"],
                middleware=[Middleware(BodyLimitMiddleware, max_bytes=MAX_BODY_BYTES)],
            )
            for kind in ("push", "ping")
        ),
    ]


__all__ = ["WEBHOOK_PREFIX", "api_error", "connection_routes", "connection_service"]
