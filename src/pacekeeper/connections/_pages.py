"""The small HTML page a person sees when the provider sends them back (PROV-4)."""

from __future__ import annotations

from html import escape
from importlib import resources
from string import Template

from starlette.responses import HTMLResponse

from pacekeeper.providers import PROVIDERS
from pacekeeper.web import BRAND_MARK, STYLESHEET_PATH

_TEMPLATE = Template(
    resources.files("pacekeeper.connections").joinpath("templates/result.html").read_text()
)
_CONNECT = Template(
    resources.files("pacekeeper.connections").joinpath("templates/connect.html").read_text()
)
# No caching (the page is per person), no framing (clickjacking), and nothing but the
# shared stylesheet (no inline styles, no scripts).
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'self'",
    "Referrer-Policy": "no-referrer",
}


def provider_label(provider: str) -> str:
    spec = PROVIDERS.get(provider)
    return spec.name if spec is not None else provider[:40]


def result_page(provider: str, *, ok: bool, message: str) -> HTMLResponse:
    label = provider_label(provider)
    html = _TEMPLATE.substitute(
        stylesheet=STYLESHEET_PATH,
        brand=BRAND_MARK,
        title=escape(f"{label} connected" if ok else f"{label}: connection not completed"),
        message=escape(message),
        provider_label=escape(label),
        outcome="success" if ok else "failure",
        tone="ok" if ok else "bad",
        icon="&#10003;" if ok else "&#33;",
        next_step=escape(
            "You can close this window and return to your assistant."
            if ok
            else "Close this window and start the connection again from your assistant."
        ),
    )
    return HTMLResponse(html, status_code=200 if ok else 400, headers=_HEADERS)


def connect_page(provider: str, email: str, state: str, confirm: str) -> HTMLResponse:
    """Our page before the provider's: whose account is being connected, and Continue."""
    label = provider_label(provider)
    html = _CONNECT.substitute(
        stylesheet=STYLESHEET_PATH, brand=BRAND_MARK, provider_label=escape(label),
        provider=escape(provider), email=escape(email), state=escape(state),
        confirm=escape(confirm),
    )  # fmt: skip
    # frame-ancestors as well as X-Frame-Options: Continue must never be clickjacked.
    headers = {**_HEADERS, "Content-Security-Policy":
               "default-src 'none'; style-src 'self'; frame-ancestors 'none'"}  # fmt: skip
    return HTMLResponse(html, headers=headers)


__all__ = ["connect_page", "provider_label", "result_page"]
