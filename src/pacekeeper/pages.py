"""Rendering every page of ours: one Jinja environment, one layout, one policy.

Every HTML page of the service (the web app, the OAuth login, consent and error pages,
the provider connect and result pages) is rendered here from `web/templates/`, extends
`base.html` and carries the same headers. The Content-Security-Policy allows only our own
scripts and stylesheet (`script-src 'self'; style-src 'self'`: no inline script, no
inline style), fetches to ourselves, forms posting to ourselves (plus, on the consent
page, the client's origin the browser is redirected to after the POST: Chromium applies
`form-action` to that redirect), and no framing at all (`frame-ancestors 'none'` and
`X-Frame-Options: DENY` against clickjacking a consent or a Continue button).

A leaf unit (it imports nothing of pacekeeper), so the OAuth 2.0 server and the HTTP
layer render pages without importing `pacekeeper.web`, whose page routes sit above the
services. The templates and the stylesheet are web/'s files, found by path: importing
the web package to find them would make this module import it after all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

_WEB = Path(__file__).parent / "web"
_ENV = Environment(
    loader=FileSystemLoader(_WEB / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
STATIC_PREFIX = "/static"
STYLESHEET_PATH = f"{STATIC_PREFIX}/pacekeeper.css"
# The logo and wordmark every page of ours shows (templates include the file).
BRAND_MARK = (_WEB / "templates" / "_brand.html").read_text()


@dataclass(frozen=True, slots=True)
class PageSecurity:
    form_targets: tuple[str, ...] = ()
    # Image sources beyond our own: the map tile server, on the activity page only.
    image_sources: tuple[str, ...] = ()

    def headers(self) -> dict[str, str]:
        form_action = " ".join(("'self'", *self.form_targets))
        img_src = " ".join(("'self'", "data:", *self.image_sources))
        csp = (
            f"default-src 'none'; script-src 'self'; style-src 'self'; img-src {img_src}; "
            f"connect-src 'self'; form-action {form_action}; frame-ancestors 'none'; "
            "base-uri 'none'"
        )
        return {
            "Content-Security-Policy": csp,
            "X-Frame-Options": "DENY",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
        }


def render_page(
    template: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    security: PageSecurity | None = None,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    html = _ENV.get_template(template).render(
        stylesheet=STYLESHEET_PATH, static=STATIC_PREFIX, **context
    )
    merged = {**(security or PageSecurity()).headers(), **(headers or {})}
    return HTMLResponse(html, status_code=status, headers=merged)


_CSS = _WEB / "static" / "pacekeeper.css"


async def stylesheet(_request: Request) -> Response:
    """The stylesheet at its historical path /oauth2/static/pacekeeper.css."""
    return Response(
        _CSS.read_bytes(),
        media_type="text/css",
        headers={"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )


__all__ = ["BRAND_MARK", "STATIC_PREFIX", "STYLESHEET_PATH", "PageSecurity", "render_page",
           "stylesheet"]
