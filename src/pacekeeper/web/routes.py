"""The web app's pages: `/` (sign-in and registration, then home) and one page per area.

Every page is the same shell rendered on the server (the layout, the navigation, the
person's email) and filled by the page's script from the JSON API, with the session's
cookies: `static/app.js` adds X-CSRF-Token to every write, renews the CSRF token before
its 30 minutes run out, and on any 401 clears the token and returns to sign-in (spec 5.2
and 7). Without a cookie session every page answers with the sign-in form at its own
address, so a bookmark works after signing in. The static files (scripts, the
stylesheet, the vendored chart library) are served from `static/` under /static.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from pacekeeper.auth import Principal
from pacekeeper.config import RegistrationMode
from pacekeeper.errors import ApiError
from pacekeeper.fitness.models import Sport
from pacekeeper.pages import STATIC_PREFIX, PageSecurity, render_page
from pacekeeper.services import registration_mode
from pacekeeper.services import request_services as services

CHARTS = ("vendor/uplot/uPlot.iife.min.js", "charts.js")
MAP = ("vendor/leaflet/leaflet.js", "map.js")


@dataclass(frozen=True, slots=True)
class Page:
    key: str
    path: str
    label: str
    scripts: tuple[str, ...] = ()
    admin: bool = False
    own_route: bool = False
    in_nav: bool = True  # False: reached from another page's link


PAGES = (
    Page("activities", "/activities", "Activities", ("activities.js",)),
    Page("calendar", "/calendar", "Calendar", ("calendar.js",)),
    Page("fitness", "/fitness", "Fitness", (*CHARTS, "fitness.js")),
    Page("records", "/records", "Records", (*CHARTS, "records.js")),
    Page("gear", "/gear", "Gear", ("gear.js",)),
    Page("import", "/import", "Import your history", ("import.js",), in_nav=False),
    # Served by pacekeeper.web.connections (the provider list is rendered there).
    # The Live panel: mcpcast's browser client, served with /mcp (pacekeeper.live).
    Page("connections", "/connections", "Connections",
         ("/mcp/mcpcast.js", "live.js", "connections.js"), own_route=True),
    Page("keys", "/keys", "API keys", ("keys.js",)),
    Page("assistants", "/assistants", "Assistants", ("assistants.js",)),
    Page("account", "/account", "Account", ("account.js",)),
    Page("admin", "/admin", "Admin", ("admin.js",), admin=True),
)
_BY_KEY = {p.key: p for p in PAGES}
_UPLOT_CSS = ("vendor/uplot/uPlot.min.css",)
_LEAFLET_CSS = ("vendor/leaflet/leaflet.css",)


async def session_principal(request: Request) -> Principal | None:
    """The cookie session's principal, or None (no cookie, an expired or revoked one, or
    a bearer token: a bearer token alone is not a browser session)."""
    try:
        principal = await services(request).resolver.resolve(request.headers)
    except ApiError:
        return None
    return principal if principal is not None and principal.via == "cookie" else None


def _nav(principal: Principal) -> list[tuple[str, str, str]]:
    return [(p.key, p.path, p.label) for p in PAGES
            if p.in_nav and (not p.admin or principal.is_admin)]


def _user(principal: Principal) -> dict[str, Any]:
    return {"id": str(principal.user_id), "email": principal.email,
            "is_admin": principal.is_admin}  # fmt: skip


async def sign_in_page(request: Request, title: str = "Sign in") -> Response:
    open_registration = await registration_mode(services(request)) is RegistrationMode.OPEN
    return render_page("signin.html", {
        "layout": "app", "page": "signin", "title": title, "user": None,
        "registration": open_registration, "scripts": ("app.js",),
    })  # fmt: skip


def app_page(
    principal: Principal, page: str, template: str, title: str,
    scripts: tuple[str, ...] | None = None, security: PageSecurity | None = None,
    **extra: Any,
) -> Response:
    """A page of the app for a signed-in person: the layout, the navigation, the page's
    scripts (its own by default) after app.js."""
    if scripts is None:
        scripts = _BY_KEY[page].scripts
    css = (*(_UPLOT_CSS if any("uplot" in s for s in scripts) else ()),
           *(_LEAFLET_CSS if any("leaflet" in s for s in scripts) else ()))
    return render_page(template, {
        "layout": "app", "page": page, "title": title, "user": _user(principal),
        "nav": _nav(principal), "scripts": ("app.js", *scripts), "extra_css": css, **extra,
    }, security=security)  # fmt: skip


def tile_source(url: str) -> str:
    """The img-src entry for a tile URL template: its scheme and host, a `{s}` subdomain
    as `*` (https://{s}.tile.example.org/... -> https://*.tile.example.org)."""
    parts = urlsplit(url.replace("{s}", "s-placeholder"))
    host = (parts.netloc or "").replace("s-placeholder", "*")
    if parts.scheme not in ("http", "https") or not host or "{" in host:
        raise ValueError(f"PACEKEEPER_MAP_TILE_URL is not an http(s) URL: {url!r}")
    return f"{parts.scheme}://{host}"


async def home(request: Request) -> Response:
    principal = await session_principal(request)
    if principal is None:
        return await sign_in_page(request, "Welcome")
    return app_page(principal, "home", "home.html", "Home", (*CHARTS, "home.js"))


def _page_handler(page: Page) -> Any:
    async def handler(request: Request) -> Response:
        principal = await session_principal(request)
        if principal is None:
            return await sign_in_page(request)
        if page.admin and not principal.is_admin:
            return render_page("forbidden.html", {
                "layout": "app", "page": page.key, "title": "Not allowed",
                "user": _user(principal), "nav": _nav(principal), "scripts": ("app.js",),
            }, status=403)  # fmt: skip
        return app_page(principal, page.key, f"{page.key}.html", page.label, page.scripts,
                        sports=[sport.value for sport in Sport])

    handler.__name__ = f"{page.key}_page"
    return handler


async def activity_page(request: Request) -> Response:
    principal = await session_principal(request)
    if principal is None:
        return await sign_in_page(request)
    settings = services(request).settings
    return app_page(principal, "activities", "activity.html", "Activity",
                    (*CHARTS, *MAP, "activity.js"),
                    PageSecurity(image_sources=(tile_source(settings.map_tile_url),)),
                    activity_id=request.path_params["activity_id"],
                    sports=[sport.value for sport in Sport],
                    tile_url=settings.map_tile_url,
                    tile_attribution=settings.map_tile_attribution)


async def workout_page(request: Request) -> Response:
    """/workouts/{id}: one workout (its steps as a chart of targets, its files, a send to
    Garmin); its data, and a 404 for another person's, come from the API."""
    principal = await session_principal(request)
    if principal is None:
        return await sign_in_page(request)
    return app_page(principal, "calendar", "workout.html", "Workout", (*CHARTS, "workout.js"),
                    workout_id=request.path_params["workout_id"])


async def builder_page(request: Request) -> Response:
    """/workouts/new and /workouts/{id}/edit: the workout builder."""
    principal = await session_principal(request)
    if principal is None:
        return await sign_in_page(request)
    workout_id = request.path_params.get("workout_id", "")
    return app_page(principal, "calendar", "builder.html",
                    "Edit workout" if workout_id else "New workout", ("builder.js",),
                    workout_id=workout_id)


def web_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = [Route("/", home, methods=["GET"])]
    routes.extend(Route(p.path, _page_handler(p), methods=["GET"]) for p in PAGES
                  if not p.own_route)
    routes.append(Route("/activities/{activity_id}", activity_page, methods=["GET"]))
    routes.append(Route("/workouts/new", builder_page, methods=["GET"]))
    routes.append(Route("/workouts/{workout_id}/edit", builder_page, methods=["GET"]))
    routes.append(Route("/workouts/{workout_id}", workout_page, methods=["GET"]))
    routes.append(Mount(STATIC_PREFIX, app=StaticFiles(packages=[("pacekeeper.web", "static")]),
                        name="static"))
    return routes


__all__ = ["PAGES", "app_page", "session_principal", "sign_in_page", "tile_source",
           "web_routes"]
