"""The official MCP Python SDK's OAuth client against the live service, browser included.

Discovery (RFC 9728 + RFC 8414), dynamic registration, the authorization step done by
headless Chromium through our real login and consent pages (Playwright), the token
exchange, tools/call whoami, and a refresh once the short-lived access token expires.
Then scope step-up: a write tool refused with 403 insufficient_scope, the SDK's second
authorization for the union of scopes, the consent page marking the new one.
Screenshots of the login, consent (first and step-up) and error pages land in
docs/screenshots/.
"""

from __future__ import annotations

import asyncio
import base64
import json
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
    """redirect_handler + callback_handler: Chromium signs in and approves, once per
    authorization (a step-up is a second one); `consents` keeps each consent panel's
    HTML, `requested` each authorization URL's scope."""

    def __init__(self, browser: Browser, callback: str, email: str = EMAIL) -> None:
        self.browser = browser
        self.callback = callback
        self.email = email
        self.consents: list[str] = []
        self.requested: list[str] = []
        self.result: asyncio.Future[AuthorizationCodeResult] = (
            asyncio.get_running_loop().create_future())

    async def redirect(self, url: str) -> None:
        if self.result.done():  # a further authorization: a fresh answer to wait for
            self.result = asyncio.get_running_loop().create_future()
        self.requested.append(parse_qs(urlsplit(url).query).get("scope", [""])[0])
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
        await page.fill("input[name=email]", self.email)
        await page.fill("input[name=password]", PASSWORD)
        await page.click("button[type=submit]")
        await page.wait_for_selector("text=Allow access")
        self.consents.append(await page.inner_html(".panel"))
        name = "oauth-consent.png" if len(self.consents) == 1 else "oauth-consent-step-up.png"
        await page.screenshot(path=str(SHOTS / name), full_page=True)
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


def _jwt_scope(token: str) -> set[str]:
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return set(str(claims["scope"]).split())


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_sdk_scope_step_up_with_browser(live: str, mode: str) -> None:
    """Issue 28 (MCP scope challenge handling), AS-14: the SDK's client starts with the
    resource metadata's fitness:read; a write tool gets 403 insufficient_scope naming
    fitness:write; the SDK re-authorizes for the union; the consent page marks only the
    new scope; the write succeeds; after a refresh the token still holds both."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    email = f"stepup-{mode}@example.com"
    async with httpx.AsyncClient(base_url=live) as http:
        registered = await http.post("/api/auth/register",
                                     json={"email": email, "password": PASSWORD})
        assert registered.status_code == 201, registered.text
    callback = f"http://127.0.0.1:{free_port()}/callback"
    storage = MemoryStorage()
    challenges: list[tuple[int, str]] = []

    async def record(response: httpx2.Response) -> None:
        if response.request.url.path == "/mcp" and response.status_code in (401, 403):
            challenges.append((response.status_code,
                               response.headers.get("www-authenticate", "")))

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium",
                                           args=CHROMIUM_ARGS)
        try:
            step = BrowserStep(browser, callback, email)
            provider = OAuthClientProvider(
                server_url=f"{live}/mcp",
                client_metadata=OAuthClientMetadata(
                    client_name="SDK Step-up Client", redirect_uris=[AnyUrl(callback)],
                    grant_types=["authorization_code", "refresh_token"],
                    response_types=["code"]),
                storage=storage, redirect_handler=step.redirect, callback_handler=step.wait,
            )
            http2 = httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30, read=60),
                                       event_hooks={"response": [record]})
            async with Client(streamable_http_client(f"{live}/mcp", http_client=http2),
                              mode=mode) as client:
                goals = await client.call_tool("get_goals", {})
                assert not goals.is_error, goals
                assert storage.client is not None
                assert storage.client.scope == "fitness:read offline_access"  # as registered
                read = storage.tokens
                assert read is not None and read.scope is not None
                assert set(read.scope.split()) == {"fitness:read", "offline_access"}
                assert len(step.consents) == 1 and "New" not in step.consents[0]
                goal = await client.call_tool("set_goal", {
                    "kind": "ftp", "value": 260, "date": "2030-06-01", "name": "Step-up"})
                assert not goal.is_error, goal
                # The write was refused once, with MCP's step-up challenge.
                refusals = [c for c in challenges if c[0] == 403]
                assert len(refusals) == 1, challenges
                assert 'error="insufficient_scope"' in refusals[0][1]
                assert 'scope="fitness:read fitness:write"' in refusals[0][1]
                assert "resource_metadata=" in refusals[0][1]
                # Re-authorized for the union; the consent page marked only fitness:write.
                assert step.requested[1].split() == [
                    "fitness:read", "offline_access", "fitness:write"]
                assert len(step.consents) == 2
                stepped = step.consents[1]
                assert "asks for more access than you allowed before" in stepped
                assert stepped.count('class="new"') == 1
                new_item = stepped.split('class="new"', 1)[1].split("</li>", 1)[0]
                assert "Change your fitness data" in new_item and "New" in new_item
                write = storage.tokens
                assert write is not None and write.scope is not None
                both = {"fitness:read", "fitness:write", "offline_access"}
                assert set(write.scope.split()) == both
                assert _jwt_scope(write.access_token) == both
                listed = await client.call_tool("get_goals", {})
                assert "Step-up" in str(listed.content)
                await asyncio.sleep(4)  # the 3-second access token expires: a refresh
                again = await client.call_tool("get_goals", {})
                assert not again.is_error, again
                refreshed = storage.tokens
                assert refreshed is not None and refreshed.scope is not None
                assert refreshed.refresh_token != write.refresh_token  # it was a refresh
                assert set(refreshed.scope.split()) == both
                assert _jwt_scope(refreshed.access_token) == both
                assert len(step.consents) == 2  # no further sign-in
        finally:
            await browser.close()
    assert (SHOTS / "oauth-consent-step-up.png").stat().st_size > 5000
