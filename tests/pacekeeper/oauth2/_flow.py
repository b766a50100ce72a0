"""Drive the authorization server like a browser and a client would (over the ASGI app)."""

from __future__ import annotations

import base64
import html
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import orjson

from pacekeeper.oauth2.cimd import MetadataDocuments
from pacekeeper.oauth2.rfc7636 import s256
from tests.pacekeeper.conftest import PASSWORD, Harness

REDIRECT = "https://client.example/callback"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@dataclass
class Registered:
    client_id: str
    client_secret: str | None
    body: dict[str, Any]


def hidden_fields(page: str) -> list[tuple[str, str]]:
    return [(html.unescape(k), html.unescape(v)) for k, v in _HIDDEN.findall(page)]


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, s256(verifier)


async def register_client(h: Harness, **metadata: Any) -> Registered:
    body = {
        "redirect_uris": [REDIRECT],
        "client_name": "Trail Coach",
        "grant_types": ["authorization_code", "refresh_token"],
        **metadata,
    }
    response = await h.client.post("/oauth2/register", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return Registered(data["client_id"], data.get("client_secret"), data)


def authorize_params(client_id: str, challenge: str, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-" + secrets.token_hex(4),
        **extra,
    }


FORM = {"content-type": "application/x-www-form-urlencoded"}


async def post_form(client: httpx.AsyncClient, fields: list[tuple[str, str]]) -> httpx.Response:
    return await client.post("/oauth2/authorize", content=urlencode(fields), headers=FORM)


async def login_and_consent(
    client: httpx.AsyncClient, params: dict[str, str], email: str, decision: str = "allow"
) -> httpx.Response:
    """GET the login page, sign in, approve or deny; returns the redirect response."""
    page = await client.get("/oauth2/authorize", params=params)
    assert page.status_code == 200, page.text
    fields = hidden_fields(page.text)
    if ("action", "login") in fields:
        consent = await post_form(client, fields + [("email", email), ("password", PASSWORD)])
        assert consent.status_code == 200, consent.text
        fields = hidden_fields(consent.text)
    assert ("action", "consent") in fields
    return await post_form(client, fields + [("decision", decision)])


def redirect_query(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith(REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def basic(client_id: str, secret: str) -> dict[str, str]:
    raw = f"{client_id}:{secret}".encode()
    return {"authorization": "Basic " + base64.b64encode(raw).decode()}


async def exchange(
    h: Harness, reg: Registered, code: str, verifier: str, **extra: str
) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
            "redirect_uri": REDIRECT, **extra}
    headers = {"content-type": "application/x-www-form-urlencoded"}
    if reg.client_secret is not None:
        headers |= basic(reg.client_id, reg.client_secret)
    else:
        form["client_id"] = reg.client_id
    return await h.client.post("/oauth2/token", content=urlencode(form), headers=headers)


async def refresh(h: Harness, reg: Registered, token: str) -> httpx.Response:
    form = {"grant_type": "refresh_token", "refresh_token": token}
    headers = {"content-type": "application/x-www-form-urlencoded"}
    if reg.client_secret is not None:
        headers |= basic(reg.client_id, reg.client_secret)
    else:
        form["client_id"] = reg.client_id
    return await h.client.post("/oauth2/token", content=urlencode(form), headers=headers)


async def full_flow(
    h: Harness, email: str, **metadata: Any
) -> tuple[Registered, dict[str, Any]]:
    """Register a user and a client, authorize, exchange: (client, token response)."""
    await h.register(email)
    h.client.cookies.clear()
    reg = await register_client(h, **metadata)
    verifier, challenge = pkce()
    params = authorize_params(reg.client_id, challenge)
    query = redirect_query(await login_and_consent(h.client, params, email))
    response = await exchange(h, reg, query["code"], verifier)
    assert response.status_code == 200, response.text
    h.client.cookies.clear()
    return reg, response.json()


async def allowed_client(
    h: Harness, email: str, scope: str = "fitness:read", **metadata: Any
) -> tuple[Registered, dict[str, Any]]:
    """A person signs in and allows a public client `scope` (a live grant: the token
    response); the browser keeps its session, so the next authorize goes to consent."""
    h.client.cookies.clear()
    await h.register(email)
    h.client.cookies.clear()
    reg = await register_client(h, scope=scope, token_endpoint_auth_method="none", **metadata)
    verifier, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope=scope)
    query = redirect_query(await login_and_consent(h.client, params, email))
    response = await exchange(h, reg, query["code"], verifier)
    assert response.status_code == 200, response.text
    return reg, response.json()


async def call_whoami(client: httpx.AsyncClient, token: str) -> httpx.Response:
    headers = {**ACCEPT, "authorization": f"Bearer {token}",
               "mcp-protocol-version": "2025-11-25"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    started = await client.post("/mcp", headers=headers, json=init)
    assert started.status_code == 200, started.text
    headers["mcp-session-id"] = started.headers["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}}}
    return await client.post("/mcp", headers=headers, json=call)


def metadata_documents(status: int, body: Any, headers: dict[str, str] | None = None,
                       *, allow_loopback: bool = True) -> tuple[MetadataDocuments, list[str]]:
    """Client ID metadata documents answered with `status` and `body` instead of
    fetched from the network; the list records the URLs asked for."""
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        content = body if isinstance(body, bytes) else orjson.dumps(body)
        return httpx.Response(status, content=content, headers=headers or {})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return MetadataDocuments(allow_loopback=allow_loopback, client=client), seen


DOC_URL = "http://127.0.0.1:9/client.json"
DOC = {"client_id": DOC_URL, "client_name": "Doc Client",
       "redirect_uris": ["http://127.0.0.1:5555/cb"], "token_endpoint_auth_method": "none"}
