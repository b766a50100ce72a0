"""Dynamic registration (RFC 7591) and discovery metadata (RFC 8414, RFC 9728)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from sqlalchemy import func, select

from pacekeeper.oauth2._models import OAuthClientRow
from pacekeeper.services import Services
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import register_client


async def _client_count(services: Services) -> int:
    async with services.engine.connect() as conn:
        found = await conn.scalar(select(func.count()).select_from(OAuthClientRow))
        return int(found or 0)


async def test_confidential_registration_returns_rfc7591_fields(harness: Harness) -> None:
    """AS-1: 201 with client_id, client_secret, issued_at, expires_at and the metadata."""
    response = await harness.client.post("/oauth2/register", json={
        "redirect_uris": ["https://app.example/cb"], "client_name": "Coach",
        "grant_types": ["authorization_code"], "token_endpoint_auth_method": "client_secret_post",
    })
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["client_id"] and body["client_secret"]
    assert body["client_secret_expires_at"] == 0
    assert abs(body["client_id_issued_at"] - harness.clock().timestamp()) < 2
    assert body["redirect_uris"] == ["https://app.example/cb"]
    assert body["client_name"] == "Coach"
    assert body["grant_types"] == ["authorization_code"]
    assert body["token_endpoint_auth_method"] == "client_secret_post"
    assert response.headers["cache-control"] == "no-store"
    # The secret is stored only as its SHA-256 (never in clear).
    async with harness.services.engine.connect() as conn:
        row = (await conn.execute(select(OAuthClientRow.client_secret_hash, OAuthClientRow
                                         .metadata_json))).one()
    assert row.client_secret_hash == hashlib.sha256(body["client_secret"].encode()).hexdigest()
    assert body["client_secret"] not in row.metadata_json


async def test_public_registration_has_no_secret(harness: Harness) -> None:
    """AS-1: public clients (token_endpoint_auth_method none) get no secret."""
    reg = await register_client(harness, token_endpoint_auth_method="none",
                                redirect_uris=["http://127.0.0.1:33418/callback"])
    assert reg.client_secret is None
    assert reg.body["token_endpoint_auth_method"] == "none"


@pytest.mark.parametrize("uri", [
    "http://app.example/cb",            # http off loopback
    "https://*.example/cb",             # wildcard
    "https://app.example/cb#frag",      # fragment
    "ftp://app.example/cb",
    "javascript:alert(1)",
    "/relative/cb",
    "",
])
async def test_bad_redirect_uris_are_refused_and_nothing_is_stored(
    harness: Harness, uri: str
) -> None:
    """AS-2: https, or http on localhost/127.0.0.1 only; no fragments or wildcards."""
    response = await harness.client.post("/oauth2/register", json={"redirect_uris": [uri]})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"
    assert "error_description" in response.json()
    assert await _client_count(harness.services) == 0


@pytest.mark.parametrize("uri", ["http://localhost:8765/cb", "http://127.0.0.1/cb",
                                 "https://app.example/cb?x=1"])
async def test_allowed_redirect_uris(harness: Harness, uri: str) -> None:
    """AS-2: loopback http and any https are fine."""
    reg = await register_client(harness, redirect_uris=[uri])
    assert reg.body["redirect_uris"] == [uri]


@pytest.mark.parametrize("body", [
    {"redirect_uris": ["https://a.example/cb"], "grant_types": ["password"]},
    {"redirect_uris": ["https://a.example/cb"], "grant_types": ["refresh_token"]},
    {"redirect_uris": ["https://a.example/cb"], "response_types": ["token"]},
    {"redirect_uris": ["https://a.example/cb"], "token_endpoint_auth_method": "private_key_jwt"},
    {"redirect_uris": ["https://a.example/cb"], "client_name": 7},
    {"redirect_uris": ["https://a.example/cb"], "scope": "admin"},
    {"redirect_uris": "https://a.example/cb"},
    {"client_name": "no uris"},
    [1, 2],
])
async def test_bad_metadata_is_refused(harness: Harness, body: Any) -> None:
    """AS-1, AS-13: invalid metadata is 400 with an RFC error code; nothing stored."""
    response = await harness.client.post("/oauth2/register", json=body)
    assert response.status_code == 400
    assert response.json()["error"] in ("invalid_client_metadata", "invalid_redirect_uri")
    assert await _client_count(harness.services) == 0


async def test_non_json_registration_is_refused(harness: Harness) -> None:
    """AS-13: a non-JSON body is invalid_client_metadata, not a crash."""
    response = await harness.client.post(
        "/oauth2/register", content=b"{oops", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"


async def test_authorization_server_metadata(harness: Harness) -> None:
    """AS-10: RFC 8414 document with S256 only, DCR, CIMD and RFC 9207 support."""
    response = await harness.client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    body = response.json()
    assert body["issuer"] == "https://pk.test"
    assert body["code_challenge_methods_supported"] == ["S256"]
    assert body["authorization_endpoint"] == "https://pk.test/oauth2/authorize"
    assert body["token_endpoint"] == "https://pk.test/oauth2/token"
    assert body["registration_endpoint"] == "https://pk.test/oauth2/register"
    assert body["revocation_endpoint"] == "https://pk.test/oauth2/revoke"
    assert body["jwks_uri"] == "https://pk.test/oauth2/jwks"
    assert body["response_types_supported"] == ["code"]
    assert body["client_id_metadata_document_supported"] is True
    assert body["authorization_response_iss_parameter_supported"] is True
    assert "offline_access" in body["scopes_supported"]
    assert set(body["token_endpoint_auth_methods_supported"]) == {
        "client_secret_basic", "client_secret_post", "none"}


async def test_protected_resource_metadata_both_forms(harness: Harness) -> None:
    """AS-11: root and path-suffixed documents, each naming its own resource."""
    root = (await harness.client.get("/.well-known/oauth-protected-resource")).json()
    mcp = (await harness.client.get("/.well-known/oauth-protected-resource/mcp")).json()
    assert root["resource"] == "https://pk.test"
    assert mcp["resource"] == "https://pk.test/mcp"
    for doc in (root, mcp):
        assert doc["authorization_servers"] == ["https://pk.test"]
        assert doc["scopes_supported"] == ["fitness:read"]
        assert "offline_access" not in doc["scopes_supported"]
