"""Dynamic client registration (RFC 7591) at POST /oauth2/register (AS-1, AS-2).

Confidential clients get a secret (stored as SHA-256 only, shown once); public clients
(`token_endpoint_auth_method: none`) get none, which PKCE makes safe. The response is
201 with `client_id`, `client_secret` (confidential only), `client_id_issued_at`,
`client_secret_expires_at` (0: never) and the registered metadata. Invalid input is
400 `invalid_redirect_uri` or `invalid_client_metadata` and stores nothing.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.oauth2 import _scopes
from pacekeeper.oauth2._clients import AUTH_METHODS, hash_secret, redirect_uri_problem
from pacekeeper.oauth2._components import components
from pacekeeper.oauth2._store import StoredClient
from pacekeeper.oauth2.errors import InvalidClientMetadata, InvalidRedirectUri, OAuth2Error
from pacekeeper.oauth2.rfc6749 import json_no_store

GRANT_TYPES = ("authorization_code", "refresh_token")
_MAX_REDIRECT_URIS = 10
# Optional human-facing strings passed through as registered (RFC 7591 2).
_STRING_FIELDS = (
    "client_uri", "logo_uri", "tos_uri", "policy_uri", "software_id", "software_version",
    "application_type",
)


def _string_list(data: dict[str, Any], name: str, default: list[str]) -> list[str]:
    value = data.get(name, default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidClientMetadata(f"{name} must be an array of strings")
    return list(dict.fromkeys(value))


def validate_metadata(data: dict[str, Any]) -> dict[str, Any]:
    """The metadata to register, normalised; raises the RFC 7591 errors."""
    data = {k: v for k, v in data.items() if v is not None}  # null means "not given"
    if "redirect_uris" not in data:
        raise InvalidRedirectUri("redirect_uris is required")
    uris = _string_list(data, "redirect_uris", [])
    if not uris or len(uris) > _MAX_REDIRECT_URIS:
        raise InvalidRedirectUri(f"give 1 to {_MAX_REDIRECT_URIS} redirect_uris")
    for uri in uris:
        problem = redirect_uri_problem(uri)
        if problem is not None:
            raise InvalidRedirectUri(f"{problem}: {uri[:200]}")
    grants = _string_list(data, "grant_types", ["authorization_code"])
    if "authorization_code" not in grants or not set(grants) <= set(GRANT_TYPES):
        raise InvalidClientMetadata(
            "grant_types must include authorization_code and may add refresh_token"
        )
    if _string_list(data, "response_types", ["code"]) != ["code"]:
        raise InvalidClientMetadata('response_types must be ["code"]')
    method = data.get("token_endpoint_auth_method", "client_secret_basic")
    if method not in AUTH_METHODS:
        raise InvalidClientMetadata(f"token_endpoint_auth_method must be one of {AUTH_METHODS}")
    name = data.get("client_name")
    if name is not None and (not isinstance(name, str) or not 0 < len(name.strip()) <= 200):
        raise InvalidClientMetadata("client_name must be a string of 1 to 200 characters")
    metadata: dict[str, Any] = {
        "redirect_uris": uris,
        "grant_types": grants,
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "client_name": (name or "").strip() or "Unnamed client",
    }
    if "scope" in data:
        if not isinstance(data["scope"], str):
            raise InvalidClientMetadata("scope must be a string")
        try:
            metadata["scope"] = _scopes.parse(data["scope"])
        except OAuth2Error as exc:
            raise InvalidClientMetadata(exc.description) from None
    for key in _STRING_FIELDS:
        if key in data:
            if not isinstance(data[key], str) or len(data[key]) > 2000:
                raise InvalidClientMetadata(f"{key} must be a string")
            metadata[key] = data[key]
    if "contacts" in data:
        metadata["contacts"] = _string_list(data, "contacts", [])
    return metadata


def new_client(metadata: dict[str, Any], issued_at: int) -> tuple[StoredClient, dict[str, Any]]:
    """The row to store and the 201 body (with the secret, which is never stored)."""
    client_id = secrets.token_urlsafe(24)
    method = metadata["token_endpoint_auth_method"]
    secret = None if method == "none" else secrets.token_urlsafe(32)
    stored = StoredClient(
        client_id=client_id,
        client_secret_hash=hash_secret(secret) if secret else None,
        client_name=metadata["client_name"],
        token_endpoint_auth_method=method,
        metadata_json=orjson.dumps(metadata).decode(),
        client_id_issued_at=datetime.fromtimestamp(issued_at, UTC),
    )
    body: dict[str, Any] = {"client_id": client_id, "client_id_issued_at": issued_at}
    if secret is not None:
        body["client_secret"] = secret
    body["client_secret_expires_at"] = 0  # secrets do not expire
    body.update(metadata)
    return stored, body




async def register_endpoint(request: Request) -> Response:
    """POST /oauth2/register (AS-1, AS-2, AS-12): JSON in, 201 JSON out."""
    oauth = components(request)
    rate: dict[str, str] = {}
    try:
        rate = (await oauth.limits.check("register", request)).headers()
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise InvalidClientMetadata("body must be application/json")
        try:
            data = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            raise InvalidClientMetadata("body is not valid JSON") from None
        if not isinstance(data, dict):
            raise InvalidClientMetadata("body must be a JSON object")
        metadata = validate_metadata(data)
        issued_at = int(oauth.server.clock().timestamp())
        stored, body = new_client(metadata, issued_at)
        await oauth.server.store.add_client(stored)
    except OAuth2Error as exc:
        response = exc.response()
        response.headers.update({k: v for k, v in rate.items() if k not in exc.headers})
        return response
    return json_no_store(body, rate, status=201)


__all__ = ["GRANT_TYPES", "new_client", "register_endpoint", "validate_metadata"]
