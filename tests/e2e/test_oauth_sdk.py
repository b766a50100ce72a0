"""The official MCP Python SDK's OAuth client against the live service, browser included.

Discovery (RFC 9728 + RFC 8414), dynamic registration, the authorization step done by
headless Chromium through our real login and consent pages (Playwright), the token
exchange, tools/call whoami, and a refresh once the short-lived access token expires.
Screenshots of the login, consent and error pages land in docs/screenshots/.
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from playwright.async_api import Browser, Route, async_playwright
from pydantic import AnyUrl

from tests._services import free_port
from tests.e2e._service_process import serve, service_env
from tests.e2e.test_oauth_races import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
# The pages are photographed on every run; UPDATE_SCREENSHOTS=1 refreshes the copies in
# docs/screenshots/ (looked at by a person), otherwise they go to a temporary folder.
SHOTS = (Path(__file__).resolve().parents[2] / "docs" / "screenshots"
         if os.environ.get("UPDATE_SCREENSHOTS")
         else Path(tempfile.gettempdir()) / "pacekeeper-screenshots")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
EMAIL = "runner@example.com"


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None
        self.history: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class BrowserStep:
    """redirect_handler + callback_handler: Chromium signs in and approves."""

    def __init__(self, browser: Browser, callback: str) -> None:
        self.browser = browser
        self.callback = callback
        self.result: asyncio.Future[AuthorizationCodeResult] = (
            asyncio.get_running_loop().create_future())

    async def redirect(self, url: str) -> None:
        context = await self.browser.new_context(viewport={"width": 720, "height": 860})
        page = await context.new_page()

        async def capture(route: Route) -> None:
            query = parse_qs(urlsplit(route.request.url).query)
            self.result.set_result(AuthorizationCodeResult(
                code=query["code"][0], state=query.get("state", [None])[0],
                iss=query.get("iss", [None])[0]))
            await route.fulfill(status=200, content_type="text/html",
                                body="<p>You can close this window.</p>")

        await page.route(f"{self.callback}**", capture)
        await page.goto(url)
        await page.wait_for_selector("text=Sign in to continue")
        await page.screenshot(path=str(SHOTS / "oauth-login.png"), full_page=True)
        await page.fill("input[name=email]", EMAIL)
        await page.fill("input[name=password]", PASSWORD)
        await page.click("button[type=submit]")
        await page.wait_for_selector("text=Allow access")
        await page.screenshot(path=str(SHOTS / "oauth-consent.png"), full_page=True)
        await page.click("button[value=allow]")
        await asyncio.wait_for(asyncio.shield(self.result), 20)
        await context.close()

    async def wait(self) -> AuthorizationCodeResult:
        return await asyncio.wait_for(self.result, 30)


@pytest.fixture
def live(tmp_path: Path) -> Any:
    port = free_port()
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    # 3-second access tokens, so the SDK has to refresh during the test.
    env = service_env(tmp_path / "data", port, key, PACEKEEPER_OAUTH_ACCESS_TOKEN_MINUTES="0.05")
    with serve(env) as url:
        yield url


async def _screenshot_error_and_denial(browser: Browser, base: str, client_id: str,
                                       callback: str) -> None:
    context = await browser.new_context(viewport={"width": 720, "height": 640})
    page = await context.new_page()
    params = {"response_type": "code", "client_id": client_id,
              "redirect_uri": "https://attacker.example/steal", "code_challenge": "x" * 43,
              "code_challenge_method": "S256", "state": "s"}
    response = await page.goto(f"{base}/oauth2/authorize?{urlencode(params)}")
    assert response is not None and response.status == 400
    assert page.url.startswith(f"{base}/oauth2/authorize")  # AS-4: never redirected
    await page.wait_for_selector("text=Redirect URI mismatch")
    await page.screenshot(path=str(SHOTS / "oauth-error.png"), full_page=True)
    await context.close()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_sdk_oauth_flow_with_browser(live: str, mode: str) -> None:
    """AS-1, AS-3, AS-7, AS-10, AS-11, AS-14, SMCP-2: the official SDK completes the flow."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    async with httpx.AsyncClient(base_url=live) as http:
        registered = await http.post("/api/auth/register",
                                     json={"email": EMAIL, "password": PASSWORD})
        assert registered.status_code == 201, registered.text
    callback = f"http://127.0.0.1:{free_port()}/callback"
    storage = MemoryStorage()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium",
                                           args=CHROMIUM_ARGS)
        try:
            step = BrowserStep(browser, callback)
            provider = OAuthClientProvider(
                server_url=f"{live}/mcp",
                client_metadata=OAuthClientMetadata(
                    client_name="SDK E2E Client", redirect_uris=[AnyUrl(callback)],
                    grant_types=["authorization_code", "refresh_token"],
                    response_types=["code"]),
                storage=storage,
                redirect_handler=step.redirect,
                callback_handler=step.wait,
            )
            http2 = httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30, read=60))
            async with Client(streamable_http_client(f"{live}/mcp", http_client=http2),
                              mode=mode) as client:
                first = await client.call_tool("whoami", {})
                assert not first.is_error, first
                assert EMAIL in str(first.content)
                tokens_after_login = storage.tokens
                assert tokens_after_login is not None and tokens_after_login.refresh_token
                assert storage.client is not None and storage.client.client_secret
                await asyncio.sleep(4)  # the 3-second access token expires
                second = await client.call_tool("whoami", {})
                assert not second.is_error, second
                assert EMAIL in str(second.content)
                assert storage.tokens is not None
                assert storage.tokens.access_token != tokens_after_login.access_token
                assert storage.tokens.refresh_token != tokens_after_login.refresh_token
            await _screenshot_error_and_denial(browser, live, storage.client.client_id or "",
                                               callback)
        finally:
            await browser.close()
    # The rotated-away refresh token is dead (AS-9).
    # The client authenticates exactly as it registered, so the only thing wrong is the
    # refresh token: exactly 400 invalid_grant (a 401 invalid_client would prove nothing).
    client_id = storage.client.client_id or ""
    secret = storage.client.client_secret or ""
    form = {"grant_type": "refresh_token", "refresh_token": tokens_after_login.refresh_token}
    headers: dict[str, str] = {}
    method = storage.client.token_endpoint_auth_method or "client_secret_basic"
    if method == "client_secret_basic":
        headers["authorization"] = "Basic " + base64.b64encode(
            f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()).decode()
    elif method == "client_secret_post":
        form |= {"client_id": client_id, "client_secret": secret}
    else:
        form["client_id"] = client_id
    async with httpx.AsyncClient(base_url=live) as http:
        reuse = await http.post("/oauth2/token", data=form, headers=headers)
        assert reuse.status_code == 400, reuse.text
        assert reuse.json()["error"] == "invalid_grant"
    for name in ("oauth-login.png", "oauth-consent.png", "oauth-error.png"):
        assert (SHOTS / name).stat().st_size > 5000
