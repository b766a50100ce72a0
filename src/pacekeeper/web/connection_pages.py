"""The small HTML pages of a provider connection: our Continue page before the provider's
(whose account is being connected) and the result when the provider sends the person
back (PROV-4). Rendered by the one page renderer (`pacekeeper.web`): the shared layout,
stylesheet and Content-Security-Policy (no inline script or style, no framing)."""

from __future__ import annotations

from starlette.responses import HTMLResponse

from pacekeeper.pages import PageSecurity, render_page
from pacekeeper.providers import PROVIDERS


def provider_label(provider: str) -> str:
    spec = PROVIDERS.get(provider)
    return spec.name if spec is not None else provider[:40]


def result_page(provider: str, *, ok: bool, message: str) -> HTMLResponse:
    label = provider_label(provider)
    return render_page("result.html", {
        "body_class": "result",
        "title": f"{label} connected" if ok else f"{label}: connection not completed",
        "message": message,
        "provider_label": label,
        "outcome": "success" if ok else "failure",
        "tone": "ok" if ok else "bad",
        "icon": "\u2713" if ok else "!",
        "next_step": "You can close this window and return to your assistant." if ok
        else "Close this window and start the connection again from your assistant.",
    }, status=200 if ok else 400)  # fmt: skip


def connect_page(provider: str, email: str, state: str, confirm: str,
                 provider_origins: tuple[str, ...] = ()) -> HTMLResponse:
    """Our page before the provider's: whose account is being connected, and Continue.

    Continue posts to us and we redirect to the provider: CSP's form-action also governs
    the redirects that follow a form's submission, so the provider's origins are named."""
    label = provider_label(provider)
    return render_page("connect.html", {
        "body_class": "result", "title": f"Connect {label}", "provider_label": label,
        "provider": provider, "email": email, "state": state, "confirm": confirm,
    }, security=PageSecurity(form_targets=provider_origins))  # fmt: skip


__all__ = ["connect_page", "provider_label", "result_page"]
