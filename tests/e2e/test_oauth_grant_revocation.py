"""A revoked grant's access token dies at once, over sockets, across two processes.

RFC 7009 2.1: two `pacekeeper serve` processes share PostgreSQL and Redis (so each
caches "this grant is live" and relies on the Redis signal). The official MCP SDK
(`OAuthClientProvider`) authorizes against process A (the consent step done with
plain HTTP) and calls a tool, so A caches the grant as live; the refresh token is then
revoked at process B. The access token the SDK holds is refused by A on the very next
request (401 with the ordinary invalid-token challenge), another grant of the same user
keeps working, and the SDK, seeing the 401, cannot refresh and authorizes again.
(Each test process has its own base URL, hence its own issuer and audience: tokens are
presented to the process that issued them, the one a deployment shares.)
"""

from __future__ import annotations

import asyncio
import base64
import secrets
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from pydantic import AnyUrl

from tests._services import free_port
from tests.e2e._service_process import new_database, serve, service_env
from tests.e2e.test_oauth_races import _HIDDEN, PASSWORD, REDIRECT, Browserless, _ip
from tests.e2e.test_oauth_sdk import MemoryStorage

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

EMAIL = "revoked-grant@example.com"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def two_processes(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[list[str]]:
    database = new_database(postgres_url, "famrev_")
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    extra = {"PACEKEEPER_DATABASE_URL": database, "PACEKEEPER_REDIS_URL": redis_url,
             "PACEKEEPER_TRUSTED_PROXIES": "127.0.0.1"}
    port_a, port_b = free_port(), free_port()
    with serve(service_env(tmp_path / "a", port_a, key, **extra), [PASSWORD]) as a, \
            serve(service_env(tmp_path / "b", port_b, key, **extra), [PASSWORD]) as b:
        yield [a, b]


async def whoami(base: str, token: str) -> httpx.Response:
    """tools/call whoami with a bearer token, raw HTTP (the session opened without it)."""
    async with httpx.AsyncClient(base_url=base, timeout=20.0) as http:
        init = await http.post("/mcp", headers=ACCEPT, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}})
        assert init.status_code == 200, init.text
        return await http.post("/mcp", headers={
            **ACCEPT, "mcp-session-id": init.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25", "authorization": f"Bearer {token}",
        }, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "whoami", "arguments": {}}})


class Consent:
    """The SDK's redirect and callback handlers: approve with the user's session cookie."""

    def __init__(self, browser: Browserless) -> None:
        self.browser = browser
        self.redirects = 0
        self.result: asyncio.Future[AuthorizationCodeResult] | None = None

    async def redirect(self, url: str) -> None:
        self.redirects += 1
        self.result = asyncio.get_running_loop().create_future()
        b = self.browser
        page = await b.http.get(url, headers={"cookie": f"auth_token={b.jwt}",
                                              "x-forwarded-for": _ip()})
        assert page.status_code == 200, page.text
        fields = dict(_HIDDEN.findall(page.text))
        done = await b.http.post(url.split("?")[0], data={**fields, "decision": "allow"},
                                 headers={"cookie": f"auth_token={b.jwt}; "
                                                    f"csrf_token={fields['csrf_token']}",
                                          "x-forwarded-for": _ip()})
        assert done.status_code == 303, done.text
        query = parse_qs(urlsplit(done.headers["location"]).query)
        self.result.set_result(AuthorizationCodeResult(
            code=query["code"][0], state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0]))

    async def wait(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return await asyncio.wait_for(self.result, 30)


async def test_revoked_grant_is_refused_by_every_process(two_processes: list[str]) -> None:
    """RFC 7009 2.1, AS-7: revoke at B, refused at A at once; the SDK must re-authorize."""
    a, b = two_processes
    browser = Browserless(a, EMAIL)
    await browser.login()
    consent = Consent(browser)
    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=f"{a}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Revocation E2E", redirect_uris=[AnyUrl(REDIRECT)],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"]),
        storage=storage, redirect_handler=consent.redirect, callback_handler=consent.wait,
    )
    http2 = httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30, read=60))
    async with Client(streamable_http_client(f"{a}/mcp", http_client=http2)) as client:
        first = await client.call_tool("whoami", {})
        assert not first.is_error and EMAIL in str(first.content)
        tokens, registered = storage.tokens, storage.client
        assert tokens is not None and tokens.refresh_token and registered is not None
        assert registered.client_id and registered.client_secret
        auth = (registered.client_id, registered.client_secret)
        # Another grant of the same user and client (the plain way).
        code, verifier = await browser.code(registered.client_id)
        async with httpx.AsyncClient(timeout=20.0, auth=auth) as http:
            other = (await http.post(f"{a}/oauth2/token", data={
                "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": REDIRECT}, headers={"x-forwarded-for": _ip()})).json()
            # A now caches both grants as live.
            assert (await whoami(a, tokens.access_token)).status_code == 200
            assert (await whoami(a, other["access_token"])).status_code == 200
            revoked = await http.post(f"{b}/oauth2/revoke",
                                      data={"token": tokens.refresh_token},
                                      headers={"x-forwarded-for": _ip()})
            assert revoked.status_code == 200
        refused = await whoami(a, tokens.access_token)
        assert refused.status_code == 401, refused.text
        assert refused.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{a}/.well-known/oauth-protected-resource", '
            'error="invalid_token", error_description="invalid token"')
        assert (await whoami(a, other["access_token"])).status_code == 200
        # The SDK's next call meets the 401; its refresh token is dead too, so it goes
        # back to the authorization step (a second consent) and then succeeds.
        again = await client.call_tool("whoami", {})
        assert not again.is_error and EMAIL in str(again.content)
        assert consent.redirects == 2
        assert storage.tokens is not None
        assert storage.tokens.access_token != tokens.access_token
    await browser.http.aclose()
