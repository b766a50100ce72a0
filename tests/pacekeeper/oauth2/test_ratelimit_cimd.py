"""Per-IP limits of the OAuth endpoints (AS-12) and client ID metadata documents."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest
from starlette.requests import Request

from pacekeeper.oauth2._ratelimit import client_ip, parse_proxies
from pacekeeper.oauth2.cimd import MetadataDocumentError, MetadataDocuments
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import DOC, DOC_URL, authorize_params, pkce
from tests.pacekeeper.oauth2._flow import metadata_documents as _documents

REG = {"redirect_uris": ["https://app.example/cb"]}


@pytest.mark.parametrize(("path", "limit"), [
    ("/oauth2/register", 10), ("/oauth2/token", 30), ("/oauth2/authorize", 60)])
async def test_per_ip_limits_and_headers(harness: Harness, path: str, limit: int) -> None:
    """AS-12: N requests pass with X-RateLimit-*; the next is 429 with Retry-After."""
    async def hit() -> httpx.Response:
        if path == "/oauth2/register":
            return await harness.client.post(path, json=REG)
        if path == "/oauth2/token":
            return await harness.client.post(path, data={"grant_type": "x"})
        return await harness.client.get(path, params={"client_id": "x"})

    for index in range(limit):
        response = await hit()
        assert response.status_code != 429, index
        assert response.headers["x-ratelimit-limit"] == str(limit)
        assert response.headers["x-ratelimit-remaining"] == str(limit - index - 1)
        reset = int(response.headers["x-ratelimit-reset"])
        assert reset >= int(harness.clock().timestamp()) - 5
    refused = await hit()
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert refused.headers["x-ratelimit-limit"] == str(limit)
    if path != "/oauth2/authorize":
        assert refused.json()["error"] == "rate_limited"


async def test_limits_are_per_ip(harness: Harness) -> None:
    """AS-12: another client address has its own bucket."""
    for _ in range(10):
        await harness.client.post("/oauth2/register", json=REG)
    assert (await harness.client.post("/oauth2/register", json=REG)).status_code == 429
    other = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=harness.app, client=("10.9.8.7", 1234)),
        base_url="https://pk.test",
    )
    async with other:
        assert (await other.post("/oauth2/register", json=REG)).status_code == 201


def _request(peer: str, forwarded: str | None) -> Request:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return Request({"type": "http", "client": (peer, 1), "headers": headers})


def test_forwarded_for_only_from_trusted_proxies() -> None:
    """AS-12: X-Forwarded-For is believed only from PACEKEEPER_TRUSTED_PROXIES."""
    proxies = parse_proxies(["10.0.0.0/8", "192.168.1.1"])
    assert client_ip(_request("203.0.113.9", "1.2.3.4"), proxies) == "203.0.113.9"
    assert client_ip(_request("10.1.2.3", "1.2.3.4"), proxies) == "1.2.3.4"
    # The client may prepend anything; the right-most untrusted hop counts.
    assert client_ip(_request("10.1.2.3", "6.6.6.6, 1.2.3.4, 192.168.1.1"), proxies) == "1.2.3.4"
    assert client_ip(_request("10.1.2.3", "garbage"), proxies) == "10.1.2.3"
    assert client_ip(_request("10.1.2.3", "1.2.3.4"), ()) == "10.1.2.3"


async def test_metadata_document_is_fetched_and_cached() -> None:
    """CIMD: a valid document becomes a public client; cached per max-age."""
    docs, seen = _documents(200, DOC, {"cache-control": "max-age=600"})
    client = await docs.resolve(DOC_URL)
    assert client.client_name == "Doc Client"
    assert client.is_public and client.from_metadata_document
    await docs.resolve(DOC_URL)
    assert len(seen) == 1


@pytest.mark.parametrize(("status", "body", "message"), [
    (200, {**DOC, "client_id": "http://127.0.0.1:9/other.json"}, "does not match"),
    (200, {**DOC, "redirect_uris": ["http://evil.example/cb"]}, "redirect URI"),
    (200, {"client_id": DOC_URL}, "client_name"),
    (200, b"not json", "not JSON"),
    (200, b" " * (64 * 1024 + 1), "too large"),
    (302, b"", "answered 302"),
    (200, {**DOC, "token_endpoint_auth_method": "client_secret_basic"}, "public"),
])
async def test_bad_metadata_documents(status: int, body: Any, message: str) -> None:
    """CIMD: mismatched client_id, bad redirect URIs, non-JSON, oversize, redirects."""
    docs, _ = _documents(status, body)
    with pytest.raises(MetadataDocumentError, match=message):
        await docs.resolve(DOC_URL)


async def test_metadata_document_ssrf_guards() -> None:
    """CIMD: loopback/private targets are refused outside development; http off loopback too."""
    docs, seen = _documents(200, DOC, allow_loopback=False)
    for url in ("https://127.0.0.1/c.json", "https://10.0.0.1/c.json",
                "https://169.254.169.254/latest", "http://127.0.0.1:9/client.json"):
        with pytest.raises(MetadataDocumentError):
            await docs.resolve(url)
    assert seen == []


async def test_metadata_document_client_through_the_pages(harness: Harness) -> None:
    """CIMD: an authorization request with a URL client_id shows the consent for it."""
    docs, _ = _documents(200, {**DOC, "redirect_uris": ["http://127.0.0.1:5555/cb"]})
    oauth = harness.services.oauth
    assert oauth is not None
    oauth.server.documents = docs
    await harness.register("cimd@example.com")
    assert (await harness.login("cimd@example.com")).status_code == 200
    _, challenge = pkce()
    params = authorize_params(DOC_URL, challenge, redirect_uri="http://127.0.0.1:5555/cb")
    page = await harness.client.get("/oauth2/authorize", params=params)
    assert page.status_code == 200
    assert "Allow Doc Client?" in page.text
    assert "runs on your own computer" in page.text  # loopback redirect warning
    wrong = authorize_params(DOC_URL, challenge, redirect_uri="http://127.0.0.1:5555/other")
    assert (await harness.client.get("/oauth2/authorize", params=wrong)).status_code == 400


async def test_metadata_document_connection_is_pinned_to_the_checked_address() -> None:
    """CIMD SSRF: the fetch goes to the address that was checked, Host names the site."""
    url = "http://localhost:9/client.json"
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=orjson.dumps({**DOC, "client_id": url}))

    docs = MetadataDocuments(allow_loopback=True,
                             client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    client = await docs.resolve(url)
    assert client.client_id == url
    assert requests[0].url.host in ("127.0.0.1", "::1")
    assert requests[0].headers["host"] == "localhost:9"


async def test_forwarded_for_over_http(harness_factory: Any) -> None:
    """AS-12: behind a trusted proxy each forwarded client has its own bucket; else not."""
    async with harness_factory() as plain:
        for index in range(10):
            await plain.client.post("/oauth2/register", json=REG,
                                    headers={"x-forwarded-for": f"1.1.1.{index}"})
        spoofed = await plain.client.post("/oauth2/register", json=REG,
                                          headers={"x-forwarded-for": "9.9.9.9"})
        assert spoofed.status_code == 429  # the header is ignored: one peer, one bucket
    async with harness_factory(trusted_proxies="127.0.0.1, 10.0.0.0/8") as proxied:
        for _ in range(10):
            await proxied.client.post("/oauth2/register", json=REG,
                                      headers={"x-forwarded-for": "1.1.1.1"})
        same = await proxied.client.post("/oauth2/register", json=REG,
                                         headers={"x-forwarded-for": "1.1.1.1"})
        other = await proxied.client.post("/oauth2/register", json=REG,
                                          headers={"x-forwarded-for": "2.2.2.2"})
        assert same.status_code == 429
        assert other.status_code == 201
