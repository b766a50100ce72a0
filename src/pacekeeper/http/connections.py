"""HTTP endpoints of the connection flow (PROV-1, 3, 4, 8, 10); webhooks: webhooks.py."""

from __future__ import annotations

import hmac
import logging
import secrets
import uuid
from urllib.parse import urlsplit

from starlette.requests import Request, cookie_parser
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pacekeeper.connections._config import PROVIDERS
from pacekeeper.connections._errors import ConnectionProblem, StateRejected
from pacekeeper.connections._service import ConnectionService
from pacekeeper.errors import (
    ApiError,
    Forbidden,
    Unauthenticated,
    ValidationFailed,
)
from pacekeeper.http._common import JSONResponse, services
from pacekeeper.owner import Owner
from pacekeeper.web.connection_pages import connect_page, result_page

log = logging.getLogger("pacekeeper.connections")
# Issue 20, #4: the browser binding. `pk_bind_<provider>` holds a random secret whose
# SHA-256 is stored with the state; SameSite=Lax so the provider's cross-site redirect
# back (a top-level GET) carries it, HttpOnly, Path = that provider's callback only.
# `pk_connect_confirm` is the connect page's double-submit token: SameSite=Strict, so a
# cross-site page cannot press Continue for someone.
BINDING_COOKIE = "pk_bind_"
CONFIRM_COOKIE = "pk_connect_confirm"
CONNECT_PREFIX = "/api/oauth/connect"


def _cookie(request: Request, name: str, value: str, *, path: str, max_age: int,
            same_site: str) -> str:
    secure = "; Secure" if services(request).settings.public_base_url.startswith("https:") else ""
    return (f"{name}={value}; Path={path}; Max-Age={max_age}; HttpOnly; "
            f"SameSite={same_site}{secure}")  # fmt: skip


def _binding_cookie(request: Request, provider: str, value: str, max_age: int) -> str:
    return _cookie(request, BINDING_COOKIE + provider, value,
                   path=f"/api/oauth/callback/{provider}", max_age=max_age, same_site="Lax")


def _read_cookie(request: Request, name: str) -> str | None:
    return cookie_parser(request.headers.get("cookie", "")).get(name) or None


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
    connections = connection_service(request)
    binding = secrets.token_urlsafe(32) if principal.via == "cookie" else None
    try:
        if binding is not None:
            # The dashboard: this browser holds the user's own session, so it is the one
            # that starts the flow; it is bound now and goes straight to the provider.
            url = await connections.start_in_browser(tenant_id, user_id, provider, binding)
        else:
            # A bearer caller is not the browser: our connect page binds whoever opens it.
            url = await connections.authorize(tenant_id, user_id, provider)
    except ConnectionProblem as problem:
        raise api_error(problem) from None
    response = JSONResponse({"authorization_url": url, "provider": provider})
    if binding is not None:
        max_age = int(connections.state_ttl_s)
        response.headers.append("Set-Cookie", _binding_cookie(request, provider, binding, max_age))
    return response


async def connect_page_view(request: Request) -> Response:
    """GET /api/oauth/connect/{provider}?state=: whose account, and Continue (issue 20, #4)."""
    provider = request.path_params["provider"]
    svc = services(request)
    state = request.query_params.get("state", "")
    try:
        pending = await connection_service(request).pending(provider, state)
    except ConnectionProblem as problem:
        return result_page(provider, ok=False, message=problem.message)
    user = await svc.users.get(pending.user_id)
    if user is None:
        return result_page(provider, ok=False, message="This authorization link is not valid.")
    confirm = secrets.token_urlsafe(32)
    endpoints = connection_service(request).client(provider).settings.endpoints
    origins = tuple(dict.fromkeys(
        f"{p.scheme}://{p.netloc}" for url in (endpoints.authorize, endpoints.oauth1_authorize)
        if url and (p := urlsplit(url)).scheme in ("http", "https")))
    response = connect_page(provider, user.email, state, confirm, origins)
    response.headers.append("Set-Cookie", _cookie(
        request, CONFIRM_COOKIE, confirm, path=CONNECT_PREFIX,
        max_age=int(connection_service(request).state_ttl_s), same_site="Strict"))  # fmt: skip
    return response


async def connect_continue(request: Request) -> Response:
    """POST /api/oauth/connect/{provider}: bind this browser, then go to the provider."""
    provider = request.path_params["provider"]
    form = await request.form(max_files=0, max_fields=8)
    state, confirm = form.get("state"), form.get("confirm")
    cookie = _read_cookie(request, CONFIRM_COOKIE)
    if not (isinstance(state, str) and isinstance(confirm, str) and cookie
            and hmac.compare_digest(cookie.encode(), confirm.encode())):  # fmt: skip
        return result_page(
            provider, ok=False,
            message="This page expired or was not opened here: open the link again.",
        )  # fmt: skip
    connections = connection_service(request)
    binding = secrets.token_urlsafe(32)
    try:
        url = await connections.begin(provider, state, binding)
    except ConnectionProblem as problem:
        return result_page(provider, ok=False, message=problem.message)
    response = RedirectResponse(url, status_code=303, headers={"Cache-Control": "no-store",
                                                               "Referrer-Policy": "no-referrer"})
    max_age = int(connections.state_ttl_s)
    response.headers.append("Set-Cookie", _binding_cookie(request, provider, binding, max_age))
    response.headers.append("Set-Cookie", _cookie(
        request, CONFIRM_COOKIE, "", path=CONNECT_PREFIX, max_age=0, same_site="Strict"))
    return response


async def connect_route(request: Request) -> Response:
    # One route for both methods, so a 405 (and OPTIONS) names GET and POST in `Allow`.
    if request.method == "POST":
        return await connect_continue(request)
    return await connect_page_view(request)


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
    binding = _read_cookie(request, BINDING_COOKIE + provider)
    try:
        connected = await connection_service(request).complete(
            provider, dict(request.query_params), session_user, binding
        )
    except StateRejected as problem:
        known = provider if provider in PROVIDERS else "unknown"  # no raw input in logs
        log.info("provider callback refused (%s): %s", known, problem.reason)
        return result_page(provider, ok=False, message=problem.message)
    except ConnectionProblem as problem:
        return result_page(provider, ok=False, message=problem.message)
    await _queue_sync(request, connected.user_id, connected.tenant_id, connected.provider)
    page = result_page(
        provider, ok=True, message="Your account is connected. Pacekeeper can now read your data."
    )
    if provider in PROVIDERS:
        page.headers.append("Set-Cookie", _binding_cookie(request, provider, "", 0))
    return page


async def _queue_sync(request: Request, user_id: uuid.UUID, tenant_id: uuid.UUID,
                      provider: str) -> None:
    """Queue a background sync; a queue failure is logged, never the person's problem."""
    jobs = services(request).jobs
    if jobs is None or services(request).syncs is None:
        return
    try:
        await jobs.enqueue_sync(Owner(user_id, tenant_id), provider)
    except Exception as exc:  # the connection itself succeeded
        log.error("queueing a %s sync failed: %s", provider, type(exc).__name__)


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


def connection_routes() -> list[Route]:
    return [
        Route("/api/oauth/auth/{provider}/{user_id}", start_authorization, methods=["GET"]),
        Route(CONNECT_PREFIX + "/{provider}", connect_route, methods=["GET", "POST"]),
        Route("/api/oauth/callback/{provider}", callback, methods=["GET"]),
        Route("/oauth/status", status, methods=["GET"]),
        Route("/api/oauth/connections/{provider}", disconnect, methods=["DELETE"]),
    ]


__all__ = ["api_error", "connection_routes", "connection_service"]
