"""Connecting a sandbox provider in headless Chromium, as a person does: our connect page
(Continue), the provider's consent page (Approve), our result page."""

from __future__ import annotations

from typing import Any

import httpx

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


def authorization_url(server: str, token: str, user_id: str, provider: str) -> str:
    """The connect-page URL a bearer caller gets for its own account."""
    response = httpx.get(f"{server}/api/oauth/auth/{provider}/{user_id}",
                         headers={"authorization": f"Bearer {token}"}, timeout=30)
    assert response.status_code == 200, response.text
    url: str = response.json()["authorization_url"]
    return url


def continue_and_approve(page: Any, server: str, url: str, provider: str,
                         sandbox: str | None = None) -> None:
    """Open our connect page, press Continue, Approve at the provider (the sandbox, by
    default the one mounted in the service), see success."""
    assert url.startswith(f"{server}/api/oauth/connect/{provider}?state=")
    page.goto(url)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(f"{sandbox or server + '/sandbox'}/{provider}/**")
    page.get_by_role("button", name="Approve").click()
    page.wait_for_url(f"{server}/api/oauth/callback/{provider}*")
    assert page.locator("#result").get_attribute("data-outcome") == "success"
