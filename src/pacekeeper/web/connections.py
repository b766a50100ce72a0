"""GET /connections (and its old address /dashboard): the signed-in person's providers.

Rendered under the one layout of the web app (`pacekeeper.web`): each provider with its
state and expiry and the matching button. `static/connections.js` does the rest through
`static/app.js`: Connect asks /api/oauth/auth/... for the URL and goes there; Sync now
starts POST /api/sync and polls GET /api/sync/{provider}; Disconnect is a DELETE with the
X-CSRF-Token header, so the one CSRF check of the service applies. Without a cookie
session the page is the sign-in form.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pacekeeper.connections._config import PROVIDERS
from pacekeeper.services import request_services as services
from pacekeeper.web.connection_pages import provider_label
from pacekeeper.web.routes import app_page, session_principal, sign_in_page


def _row(provider: str, entry: dict[str, Any]) -> dict[str, str]:
    row = {"provider": provider, "label": provider_label(provider)}
    if entry.get("connected"):
        state = "Connected"
        if entry.get("expires_at"):
            expires = datetime.strptime(entry["expires_at"], "%Y-%m-%dT%H:%M:%SZ")
            state += f" · access renews automatically (now until {expires:%d %b %H:%M} UTC)"
        row.update(css="connected", state=state)
    elif entry.get("needs_reconnect"):
        # A retired provider API says why (its own words); otherwise the grant was lost.
        why = entry.get("reason") or "Access expired or was revoked"
        row.update(css="needs_reconnect", state=f"{why}: reconnect")
    else:
        row.update(css="disconnected", state="Not connected")
    return row


async def dashboard(request: Request) -> Response:
    principal = await session_principal(request)
    connections = services(request).connections
    if principal is None:
        return await sign_in_page(request)
    rows: list[dict[str, str]] = []
    if connections is not None:
        status = await connections.status(principal.user_id)
        rows = [_row(p, status[p]) for p in PROVIDERS]
    return app_page(principal, "connections", "connections.html", "Connections", rows=rows)


def dashboard_routes() -> list[Route]:
    return [Route("/connections", dashboard, methods=["GET"]),
            Route("/dashboard", dashboard, methods=["GET"])]  # fmt: skip


__all__ = ["dashboard", "dashboard_routes"]
