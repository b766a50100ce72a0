"""GET /dashboard: the signed-in person's providers with Connect and Disconnect buttons.

A cookie session (POST /oauth/token sets it). Connect asks /api/oauth/auth/... for the
URL and goes there; Disconnect is a fetch DELETE carrying X-CSRF-Token from the
script-readable csrf_token cookie, so the one CSRF check of the service applies. The
inline script runs under a per-response CSP nonce; nothing else may run. Styles come only
from the shared stylesheet (`style-src 'self'`, no inline styles), like every page.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from html import escape
from importlib import resources
from string import Template
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from pacekeeper.api._common import services
from pacekeeper.auth import Principal
from pacekeeper.connections._config import PROVIDERS
from pacekeeper.connections._pages import provider_label
from pacekeeper.errors import Unauthenticated
from pacekeeper.web import BRAND_MARK, STYLESHEET_PATH

_TEMPLATE = Template(
    resources.files("pacekeeper.connections").joinpath("templates/dashboard.html").read_text()
)
_SIGN_IN = """<h1>Sign in</h1>
<p class="lead">Sign in to connect $names to Pacekeeper.</p>
<div class="card"><form class="signin">
<input name="email" type="email" autocomplete="username" placeholder="Email" required>
<input name="password" type="password" autocomplete="current-password"
 placeholder="Password" required>
<button type="submit" class="primary">Sign in</button></form></div>"""


def _sign_in() -> str:
    names = [escape(provider_label(p)) for p in PROVIDERS]
    listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    return Template(_SIGN_IN).substitute(names=listed)


def _row(provider: str, entry: dict[str, Any]) -> str:
    label = escape(provider_label(provider))
    if entry.get("connected"):
        state, css = "Connected", "connected"
        if entry.get("expires_at"):
            expires = datetime.strptime(entry["expires_at"], "%Y-%m-%dT%H:%M:%SZ")
            state += f" · access renews automatically (now until {expires:%d %b %H:%M} UTC)"
        action = f'<button class="secondary" data-disconnect="{provider}">Disconnect</button>'
    elif entry.get("needs_reconnect"):
        state, css = "Access expired or was revoked: reconnect", "needs_reconnect"
        action = f'<button class="primary" data-connect="{provider}">Reconnect</button>'
    else:
        state, css = "Not connected", "disconnected"
        action = f'<button class="primary" data-connect="{provider}">Connect</button>'
    return (
        f'<div class="row {css}" data-provider="{provider}"><div>'
        f'<div class="name">{label}</div><div class="state"><span class="dot"></span>{state}'
        f"</div></div>{action}</div>"
    )


async def _principal(request: Request) -> Principal | None:
    try:
        principal = await services(request).resolver.resolve(request.headers)
    except Unauthenticated:
        return None  # an expired cookie: show the sign-in form again
    return principal if principal is not None and principal.via == "cookie" else None


async def dashboard(request: Request) -> Response:
    principal = await _principal(request)
    nonce = secrets.token_urlsafe(16)
    connections = services(request).connections
    if principal is None or connections is None:
        body, who, user_id = _sign_in(), "", ""
    else:
        status = await connections.status(principal.user_id)
        rows = "".join(_row(p, status[p]) for p in PROVIDERS)
        body = (
            '<h1>Your connections</h1><p class="lead">Pacekeeper reads your training data '
            f'from the providers you connect.</p><div class="card">{rows}</div>'
        )
        who, user_id = escape(principal.email), str(principal.user_id)
    html = _TEMPLATE.substitute(
        body=body, who=who, user_id=user_id, nonce=nonce, stylesheet=STYLESHEET_PATH,
        brand=BRAND_MARK,
    )
    return HTMLResponse(
        html,
        headers={
            "Cache-Control": "no-store",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": (
                f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'self'; "
                "connect-src 'self'; form-action 'self'; base-uri 'none'"
            ),
        },
    )


def dashboard_routes() -> list[Route]:
    return [Route("/dashboard", dashboard, methods=["GET"])]


__all__ = ["dashboard", "dashboard_routes"]
