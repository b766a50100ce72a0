"""The login, consent and error pages of the authorization endpoint."""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from pacekeeper.oauth2 import _scopes
from pacekeeper.oauth2._authrequest import AuthorizationRequest, ErrorPage
from pacekeeper.oauth2._clients import is_loopback_redirect
from pacekeeper.pages import PageSecurity, render_page

LOGIN_CSRF_COOKIE = "pk_oauth_login"
_SCOPE_TEXT = {
    _scopes.READ: ("Read your fitness data", "Activities, connection status and your profile."),
    _scopes.WRITE: ("Change your fitness data", "Connect providers and update your records."),
    _scopes.OFFLINE: ("Stay connected", "Keep access while you are away, until you revoke it."),
}


def login_cookie(value: str) -> str:
    return (
        f"{LOGIN_CSRF_COOKIE}={value}; Path=/oauth2; HttpOnly; Secure; SameSite=Strict; "
        "Max-Age=1800"
    )


def login_page(
    request: AuthorizationRequest, login_csrf: str | None, *, error: str = "", email: str = "",
    status: int = 200,
) -> HTMLResponse:
    token = login_csrf or secrets.token_urlsafe(32)
    response = render_page(
        "login.html",
        {
            "title": "Sign in",
            "client_name": request.client.client_name,
            "params": request.params,
            "login_csrf": token,
            "error": error,
            "email": email,
        },
        status=status,
    )
    if login_csrf is None:
        response.headers.append("Set-Cookie", login_cookie(token))
    return response


def consent_page(
    request: AuthorizationRequest, email: str, csrf_token: str,
    granted: frozenset[str] = frozenset(),
) -> HTMLResponse:
    """`granted`: what the person already allowed this client. In a step-up the scopes
    it does not cover are marked new, so the person sees what the approval adds."""
    parts = urlsplit(request.redirect_uri)
    origin = f"{parts.scheme}://{parts.netloc}"
    requested = [s for s in request.scope.split() if s in _SCOPE_TEXT]
    new = set(_scopes.missing(granted, requested)) if granted else set()
    scopes = [
        {"title": _SCOPE_TEXT[s][0], "detail": _SCOPE_TEXT[s][1], "new": s in new}
        for s in requested
    ]
    return render_page(
        "consent.html",
        {
            "title": "Authorize",
            "client_name": request.client.client_name,
            "client_id": request.client.client_id,
            "metadata_document": request.client.from_metadata_document,
            "email": email,
            "scopes": scopes,
            "step_up": bool(new),
            "redirect_host": parts.netloc,
            "loopback": is_loopback_redirect(request.redirect_uri),
            "params": request.params,
            "csrf_token": csrf_token,
        },
        security=PageSecurity(form_targets=(origin,)),
    )


def error_page(error: ErrorPage, headers: dict[str, str] | None = None) -> HTMLResponse:
    return render_page(
        "error.html",
        {"title": error.title, "heading": error.title, "detail": error.detail},
        status=error.status,
        headers=headers,
    )


__all__ = ["LOGIN_CSRF_COOKIE", "consent_page", "error_page", "login_cookie", "login_page"]
