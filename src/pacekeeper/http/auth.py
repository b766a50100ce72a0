"""Accounts over HTTP: register, password grant, refresh, logout (ACC, JWT-9, CSRF-1/2)."""

from __future__ import annotations

import uuid

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.auth import (
    CSRF_COOKIE,
    LOGIN,
    REGISTER,
    Principal,
    clear_session_cookies,
    set_session_cookies,
)
from pacekeeper.config import RegistrationMode
from pacekeeper.db import User
from pacekeeper.errors import Forbidden, ValidationFailed
from pacekeeper.http._common import (
    JSONResponse,
    attempts,
    iso_utc,
    read_json_object,
    refuse_cross_site,
    registration_mode,
    required_string,
    services,
    string_field,
)
from pacekeeper.ratelimit import RateDecision
from pacekeeper.services import Services

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
_BAD_CREDENTIALS = "invalid email or password"


def _rate_headers(principal: Principal | None) -> dict[str, str]:
    return principal.rate.headers() if principal and principal.rate else {}


async def register(request: Request) -> Response:
    """POST /api/auth/register (ACC-1..4): admin token needed in `admin` mode; nobody
    registers over HTTP in `closed` mode (the mode an admin stored, else the env's)."""
    svc = services(request)
    principal = await svc.resolver.resolve(request.headers)
    if principal is not None:
        await svc.resolver.enforce(request.method, request.headers, principal)
    is_admin = principal is not None and principal.is_admin
    mode = await registration_mode(svc)
    if mode is RegistrationMode.CLOSED:
        raise Forbidden("registration is closed on this server")
    if mode is RegistrationMode.ADMIN and not is_admin:
        if principal is None:
            raise svc.resolver.unauthenticated(invalid=False)
        raise Forbidden("registration requires an admin token")
    data = await read_json_object(request)
    email = required_string(data, "email")
    password = required_string(data, "password")
    limited: RateDecision | None = None
    if not is_admin:  # an admin creating accounts is trusted; anyone else is counted
        limited = await attempts(svc).check(REGISTER, request, email)
    display_name = string_field(data, "display_name", required=False)
    tenant_text = string_field(data, "tenant_id", required=False)
    tenant_id = None
    if tenant_text is not None:
        if not is_admin:
            raise Forbidden("only an admin may choose the tenant")
        try:
            tenant_id = uuid.UUID(tenant_text)
        except ValueError:
            raise ValidationFailed("tenant_id must be a UUID") from None
    user = await svc.accounts.register(email, password, display_name, tenant_id=tenant_id)
    issued = svc.tokens.issue(user)
    body = {
        "user_id": str(user.id),
        "email": user.email,
        "token": issued.token,
        "expires_at": iso_utc(issued.expires_at),
    }
    headers = {**_NO_STORE, **_rate_headers(principal)}
    if limited is not None:
        headers.update(limited.headers())
    return JSONResponse(body, 201, headers=headers)


def _oauth_error(status: int, error: str, description: str, svc: Services) -> JSONResponse:
    # RFC 6749 body (error, error_description) plus the service's `message` (ERR-1).
    headers = dict(_NO_STORE)
    if status == 401:
        headers["WWW-Authenticate"] = svc.resolver.unauthenticated(invalid=False).headers[
            "WWW-Authenticate"
        ]
    body = {"error": error, "error_description": description, "message": description}
    return JSONResponse(body, status, headers=headers)


def _single(form: FormData, name: str) -> str | None:
    values = form.getlist(name)
    if len(values) > 1:
        raise ValueError(f"{name} given more than once")
    if not values:
        return None
    value = values[0]
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a text field")
    return value


async def _login_body(svc: Services, user: User, *, cookies: bool) -> JSONResponse:
    issued = svc.tokens.issue(user)
    csrf = await svc.csrf.issue(user.id)
    body = {
        "jwt_token": issued.token,
        "csrf_token": csrf.token,
        "user": {"id": str(user.id), "email": user.email},
        "expires_at": iso_utc(issued.expires_at),
    }
    response = JSONResponse(body, headers=_NO_STORE)
    if cookies:
        set_session_cookies(
            response, issued.token, csrf.token, svc.settings.jwt_lifetime_seconds
        )
    return response


async def password_grant(request: Request) -> Response:
    """POST /oauth/token, grant_type=password (ACC-5, ACC-6, CSRF-1)."""
    svc = services(request)
    refuse_cross_site(request)  # login CSRF: finding 3
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return _oauth_error(
            400, "invalid_request", "body must be application/x-www-form-urlencoded", svc
        )
    form = await request.form()
    try:
        grant_type = _single(form, "grant_type")
        username = _single(form, "username")
        password = _single(form, "password")
    except ValueError as exc:
        return _oauth_error(400, "invalid_request", str(exc), svc)
    if grant_type is None:
        return _oauth_error(400, "invalid_request", "grant_type is required", svc)
    if grant_type != "password":
        return _oauth_error(
            400, "unsupported_grant_type", "only grant_type=password is served here", svc
        )
    if not username or not password:
        return _oauth_error(400, "invalid_request", "username and password are required", svc)
    # Counted before the password is checked, for known and unknown emails alike.
    limited = await attempts(svc).check(LOGIN, request, username)
    user = await svc.accounts.authenticate(username, password)
    if user is None:
        refused = _oauth_error(401, "invalid_grant", _BAD_CREDENTIALS, svc)
        refused.headers.update(limited.headers())
        return refused
    response = await _login_body(svc, user, cookies=True)
    response.headers.update(limited.headers())
    return response


async def refresh(request: Request) -> Response:
    """POST /api/auth/refresh (JWT-9): a new JWT and CSRF token before expiry."""
    svc = services(request)
    refuse_cross_site(request)
    principal = await svc.resolver.require(request.method, request.headers)
    user = await svc.users.get(principal.user_id)
    if user is None:  # deleted between the check and here
        raise svc.resolver.unauthenticated(invalid=True)
    if principal.via == "bearer":
        # Bearer callers keep their token in hand: no cookies for them.
        response = await _login_body(svc, user, cookies=False)
        response.headers.update(_rate_headers(principal))
        return response
    issued = svc.tokens.issue(user)
    csrf = await svc.csrf.issue(user.id)
    await svc.csrf.revoke(request.cookies.get(CSRF_COOKIE, ""))
    body = {"csrf_token": csrf.token, "expires_at": iso_utc(issued.expires_at)}
    response = JSONResponse(body, headers={**_NO_STORE, **_rate_headers(principal)})
    set_session_cookies(response, issued.token, csrf.token, svc.settings.jwt_lifetime_seconds)
    return response


async def logout(request: Request) -> Response:
    """POST /api/auth/logout (CSRF-2): revokes the JWT it was sent (cookie, else bearer)
    and clears both cookies; needs no valid session."""
    svc = services(request)
    refuse_cross_site(request)  # forced logout: finding 3
    await svc.resolver.end_session(request.headers)  # the JWT ends here too (finding 13)
    await svc.csrf.revoke(request.cookies.get(CSRF_COOKIE, ""))
    response = JSONResponse({"logged_out": True}, headers=_NO_STORE)
    clear_session_cookies(response)
    return response


__all__ = ["logout", "password_grant", "refresh", "register"]
