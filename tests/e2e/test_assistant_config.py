"""The assistant configuration the Assistants page offers to copy works as pasted (issue
17): the JSON copied in Chromium is handed to the official MCP Python SDK, which finds
the authorization server from the URL alone, registers, has the person sign in and
approve in the browser, and calls a tool. The Assistants page then lists that client,
and revoking it there ends its access token at once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from playwright.async_api import BrowserContext, Route, async_playwright, expect
from pydantic import AnyUrl

from tests._services import free_port
from tests.e2e._connect import CHROMIUM, CHROMIUM_ARGS
from tests.e2e._service_process import running, service_env
from tests.e2e.test_oauth_sdk import MemoryStorage

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
EMAIL = "assistant-user@example.com"
PASSWORD = "Assistant-Passw0rd"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with running(service_env(tmp_path / "data", free_port())) as url:
        yield url


class ApproveInBrowser:
    """The SDK's redirect and callback handlers: the person's own browser (already signed
    in to the web app, or signing in on the login page) approves on the consent page."""

    def __init__(self, context: BrowserContext, callback: str) -> None:
        self.context = context
        self.callback = callback
        self.result: asyncio.Future[AuthorizationCodeResult] = (
            asyncio.get_running_loop().create_future())

    async def redirect(self, url: str) -> None:
        page = await self.context.new_page()

        async def capture(route: Route) -> None:
            query = parse_qs(urlsplit(route.request.url).query)
            self.result.set_result(AuthorizationCodeResult(
                code=query["code"][0], state=query.get("state", [None])[0],
                iss=query.get("iss", [None])[0]))
            await route.fulfill(status=200, content_type="text/html", body="<p>Done.</p>")

        await page.route(f"{self.callback}**", capture)
        await page.goto(url)
        allow = page.get_by_role("button", name="Allow access")
        sign_in = page.get_by_role("heading", name="Sign in to continue")
        await expect(allow.or_(sign_in)).to_be_visible()
        if await sign_in.is_visible():
            await page.fill("input[name=email]", EMAIL)
            await page.fill("input[name=password]", PASSWORD)
            await page.click("button[type=submit]")
        await allow.click()
        await asyncio.wait_for(asyncio.shield(self.result), 20)
        await page.close()

    async def wait(self) -> AuthorizationCodeResult:
        return await asyncio.wait_for(self.result, 30)


async def test_the_copied_configuration_connects_the_sdk(server: str) -> None:
    async with httpx.AsyncClient(base_url=server) as http:
        made = await http.post("/api/auth/register", json={"email": EMAIL, "password": PASSWORD})
        assert made.status_code == 201, made.text
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context()
            await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
            page = await context.new_page()
            await page.goto(server + "/assistants")
            await page.locator("form.signin").get_by_label("Email").fill(EMAIL)
            await page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_role("button", name="Copy configuration").click()
            copied = json.loads(await page.evaluate("navigator.clipboard.readText()"))
            entry = copied["mcpServers"]["pacekeeper"]
            assert entry["type"] == "http"

            # Only what was copied: the URL. Discovery, registration, sign-in, consent.
            callback = f"http://127.0.0.1:{free_port()}/callback"
            step = ApproveInBrowser(context, callback)
            storage = MemoryStorage()
            auth = OAuthClientProvider(
                server_url=entry["url"],
                client_metadata=OAuthClientMetadata(
                    client_name="Pasted Config Client", redirect_uris=[AnyUrl(callback)],
                    grant_types=["authorization_code", "refresh_token"],
                    response_types=["code"]),
                storage=storage, redirect_handler=step.redirect, callback_handler=step.wait)
            http_client = httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30, read=60))
            async with Client(streamable_http_client(entry["url"], http_client=http_client)
                              ) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                assert "whoami" in tools
                answer = await client.call_tool("whoami", {})
                assert not answer.is_error, answer
                assert EMAIL in str(answer.content)
            assert storage.tokens is not None
            access = storage.tokens.access_token

            # The Assistants page lists the client; Revoke ends its token at once.
            await page.reload()
            row = page.locator("[data-clients] .row")
            await expect(row).to_have_count(1)
            await expect(row).to_contain_text("Pasted Config Client")
            page.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
            await page.get_by_role("button", name="Revoke Pasted Config Client").click()
            await expect(page.locator("[data-clients]")).to_contain_text("No assistant")
        finally:
            await browser.close()
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}}}
    async with httpx.AsyncClient() as http:
        refused = await http.post(entry["url"], json=call, headers={
            "authorization": f"Bearer {access}", "mcp-protocol-version": "2025-11-25",
            "accept": "application/json, text/event-stream"})
    assert refused.status_code == 401, refused.text
    assert "invalid token" in refused.text
