"""The app with its sandbox reached in-process, and a helper that connects a provider."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.types import Receive, Scope, Send

from pacekeeper.app import create_app
from pacekeeper.db import Role
from pacekeeper.pages import STYLESHEET_PATH
from pacekeeper.ratelimit import MemoryRateLimiter
from tests.pacekeeper.conftest import PASSWORD, FakeClock, Harness, _harness, make_settings

PROVIDERS = ("strava", "fitbit", "garmin")
# The last: Google's (oauth2.googleapis.com/token), for Fitbit through the Google Health API.
TOKEN_PATHS = ("/oauth/token", "/oauth2/token", "/oauth/access_token", "/google/token")


class CountingTransport(httpx.AsyncBaseTransport):
    """Outgoing provider calls go to the app's own /sandbox; every path is recorded."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return await self.inner.handle_async_request(request)

    def token_hits(self, provider: str) -> int:
        prefix = f"/sandbox/{provider}/"
        return sum(1 for p in self.paths if p.startswith(prefix) and p.endswith(TOKEN_PATHS))


def assert_styled_by_the_shared_stylesheet(page: httpx.Response) -> None:
    """No inline style anywhere, only the shared stylesheet, and a CSP that allows nothing
    else: `style-src 'self'` like the OAuth pages, no `'unsafe-inline'`."""
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "style-src 'self'" in csp, csp
    assert "unsafe-inline" not in csp, csp
    assert "<style" not in page.text.lower() and " style=" not in page.text.lower()
    assert f'<link rel="stylesheet" href="{STYLESHEET_PATH}">' in page.text


@dataclass
class ConnHarness(Harness):
    transport: CountingTransport = field(default=None)  # type: ignore[assignment]
    _admin_headers: dict[str, str] | None = None

    async def user(self, email: str) -> tuple[str, dict[str, str]]:
        body = await self.register(email)
        self.client.cookies.clear()  # bearer from here on: no CSRF in the way
        return body["user_id"], {"authorization": f"Bearer {body['token']}"}

    async def authorization_url(self, provider: str, user_id: str, headers: dict[str, str]) -> str:
        """The provider's URL, through our connect page (its Continue binds this client)."""
        response = await self.client.get(f"/api/oauth/auth/{provider}/{user_id}", headers=headers)
        assert response.status_code == 200, response.text
        url: str = response.json()["authorization_url"]
        return await self.continue_connect(url)

    async def continue_connect(self, url: str) -> str:
        """Open our connect page and press Continue: the provider's URL (issue 20, #4)."""
        if not url.startswith("https://pk.test/api/oauth/connect/"):
            return url
        page = await self.client.get(url)
        assert page.status_code == 200, page.text
        form = dict(re.findall(r'name="(state|confirm)" value="([^"]*)"', page.text))
        path = urlsplit(url).path
        response = await self.client.post(path, data={**form, "decision": "continue"})
        assert response.status_code == 303, response.text
        location: str = response.headers["location"]
        return location

    async def approve(self, url: str, athlete: int = 7) -> str:
        """What the consent page's Approve does: the redirect back to our callback."""
        url = await self.continue_connect(url)
        sep = "&" if "?" in url else "?"
        response = await self.client.get(
            f"{url}{sep}sandbox_auto=approve&sandbox_athlete={athlete}"
        )
        assert response.status_code in (302, 303), response.text
        location = response.headers["location"]
        parts = urlsplit(location)
        return f"{parts.path}?{parts.query}"

    async def connect(self, provider: str, user_id: str, headers: dict[str, str]) -> httpx.Response:
        callback = await self.approve(await self.authorization_url(provider, user_id, headers))
        return await self.client.get(callback)

    async def sandbox_admin(self) -> dict[str, str]:
        """An admin JWT of the service: the mounted sandbox's control panel needs one."""
        if self._admin_headers is None:
            user = await self.services.accounts.register(
                f"sandbox-admin-{id(self)}@example.com", PASSWORD, role=Role.ADMIN
            )
            token = self.services.tokens.issue(user).token
            self._admin_headers = {"authorization": f"Bearer {token}"}
        return self._admin_headers

    async def admin(self, path: str, body: dict[str, Any]) -> None:
        response = await self.client.post(
            f"/sandbox/admin/{path}", json=body, headers=await self.sandbox_admin()
        )
        assert response.status_code < 300, response.text


@pytest.fixture
def conn_factory(
    db_url: str,
    tmp_path: Path,
    clock: FakeClock,
    keygen: Callable[[int], rsa.RSAPrivateKey],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., Any]:
    for provider in PROVIDERS:
        for suffix in ("CLIENT_ID", "CLIENT_SECRET", "REDIRECT_URI"):
            monkeypatch.delenv(f"{provider.upper()}_{suffix}", raising=False)
    monkeypatch.delenv("PACEKEEPER_PROVIDER_BASE_URL", raising=False)

    def make(**overrides: Any) -> Any:
        settings = make_settings(db_url, tmp_path, **overrides)
        holder: dict[str, Any] = {}

        async def app_proxy(scope: Scope, receive: Receive, send: Send) -> None:
            await holder["app"](scope, receive, send)

        transport = CountingTransport(httpx.ASGITransport(app=app_proxy))
        app = create_app(
            settings, clock=clock, keygen=keygen, limiter=MemoryRateLimiter(),
            provider_transport=transport,
        )  # fmt: skip
        holder["app"] = app

        return _harness(app, lambda client: ConnHarness(app, client, clock, transport))

    return make


@pytest.fixture
async def conn(conn_factory: Callable[..., Any]) -> AsyncIterator[ConnHarness]:
    async with conn_factory() as h:
        yield h
