"""Protected resource metadata (RFC 9728, AS-11).

Two documents, each describing the resource its URL is derived from (RFC 9728 3.3):
`/.well-known/oauth-protected-resource` -> the service (base URL) and
`/.well-known/oauth-protected-resource/mcp` -> the MCP endpoint. Both name this
service as the authorization server. `scopes_supported` lists what an MCP client needs
to start, never `offline_access` (MCP 2026-07-28).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.oauth2 import _scopes
from pacekeeper.oauth2._components import components
from pacekeeper.oauth2.rfc6749 import json_no_store


def metadata(resource: str, issuer: str, base_url: str) -> dict[str, Any]:
    return {
        "resource": resource,
        "authorization_servers": [issuer],
        "scopes_supported": list(_scopes.MCP_REQUIRED),
        "bearer_methods_supported": ["header"],
        "resource_name": "Pacekeeper",
        "resource_documentation": f"{base_url}/openapi.json",
    }


def _respond(body: dict[str, Any]) -> Response:
    response = json_no_store(body, {})
    response.headers["Cache-Control"] = "public, max-age=3600"
    del response.headers["Pragma"]
    return response


async def root_resource_metadata(request: Request) -> Response:
    oauth = components(request)
    resources = oauth.server.resources
    return _respond(metadata(resources.base, oauth.server.issuer, oauth.base_url))


async def mcp_resource_metadata(request: Request) -> Response:
    oauth = components(request)
    resources = oauth.server.resources
    return _respond(metadata(resources.mcp, oauth.server.issuer, oauth.base_url))


__all__ = ["mcp_resource_metadata", "metadata", "root_resource_metadata"]
