"""Authorization server metadata (RFC 8414, AS-10) at /.well-known/oauth-authorization-server.

`issuer` is exactly the string tokens carry in `iss` and authorization responses in
`iss` (RFC 9207); MCP clients compare it character for character.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.oauth2 import _scopes
from pacekeeper.oauth2._clients import AUTH_METHODS
from pacekeeper.oauth2._components import components
from pacekeeper.oauth2.rfc6749 import json_no_store
from pacekeeper.oauth2.rfc7636 import SUPPORTED_METHODS


def metadata(issuer: str, base_url: str) -> dict[str, Any]:
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{base_url}/oauth2/authorize",
        "token_endpoint": f"{base_url}/oauth2/token",
        "registration_endpoint": f"{base_url}/oauth2/register",
        "revocation_endpoint": f"{base_url}/oauth2/revoke",
        "jwks_uri": f"{base_url}/oauth2/jwks",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "revocation_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "code_challenge_methods_supported": list(SUPPORTED_METHODS),
        "scopes_supported": list(_scopes.SUPPORTED),
        "client_id_metadata_document_supported": True,
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": f"{base_url}/openapi.json",
    }


async def authorization_server_metadata(request: Request) -> Response:
    oauth = components(request)
    response = json_no_store(metadata(oauth.server.issuer, oauth.base_url), {})
    response.headers["Cache-Control"] = "public, max-age=3600"
    del response.headers["Pragma"]
    return response


__all__ = ["authorization_server_metadata", "metadata"]
