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


def connect_without_browser(server: str, token: str, user_id: str, provider: str,
                            athlete: int) -> None:
    """The same steps over plain HTTP with a cookie jar (for tests about what follows the
    connection; the browser itself is proven by the tests that use Chromium): our connect
    page, its Continue form, the sandbox's Approve for ``athlete``, our callback."""
    import re

    with httpx.Client(timeout=30) as browser:
        page = browser.get(authorization_url(server, token, user_id, provider))
        assert page.status_code == 200, page.text
        form = dict(re.findall(r'name="(state|confirm)" value="([^"]*)"', page.text))
        go = browser.post(str(page.url).split("?")[0], data={**form, "decision": "continue"})
        assert go.status_code == 303, go.text
        url = go.headers["location"]
        approved = browser.get(f"{url}&sandbox_auto=approve&sandbox_athlete={athlete}")
        assert approved.status_code in (302, 303), approved.text
        done = browser.get(approved.headers["location"])
        assert 'data-outcome="success"' in done.text, done.text
