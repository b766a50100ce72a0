"""OpenAPI descriptions of the OAuth 2.0 endpoints (merged into /openapi.json)."""

from __future__ import annotations

from typing import Any

_OAUTH_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}},
}
_FORM = "application/x-www-form-urlencoded"
_LIMITED = {"description": "per-IP limit; Retry-After and X-RateLimit-*"}


def _json(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": schema or {"type": "object"}}}}


def _form(required: list[str]) -> dict[str, Any]:
    return {"required": True, "content": {_FORM: {"schema": {
        "type": "object", "required": required,
        "additionalProperties": {"type": "string"}}}}}


def openapi_paths() -> dict[str, Any]:
    error = _json("RFC 6749 error", _OAUTH_ERROR)
    return {
        "/oauth2/authorize": {
            "get": {"summary": "Authorization endpoint (browser): login and consent pages; "
                               "redirects with code, state and iss",
                    "responses": {"200": {"description": "HTML page"},
                                  "303": {"description": "redirect to the client"},
                                  "400": {"description": "HTML error page (never a redirect)"},
                                  "429": _LIMITED}},
            "post": {"summary": "Login and consent form submissions (CSRF-protected)",
                     "responses": {"200": {"description": "HTML page"},
                                   "303": {"description": "redirect to the client"},
                                   "400": {"description": "HTML error page (never a redirect)"},
                                   "403": {"description": "form token invalid (HTML)"},
                                   "429": _LIMITED}},
        },
        "/oauth2/token": {"post": {
            "summary": "Token endpoint: authorization_code (PKCE S256) and refresh_token",
            "requestBody": _form(["grant_type"]),
            "responses": {"200": _json("tokens (Cache-Control: no-store)"), "400": error,
                          "401": error, "429": _LIMITED}}},
        "/oauth2/register": {"post": {
            "summary": "RFC 7591 dynamic client registration",
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": {"type": "object"}}}},
            "responses": {"201": _json("client_id, client_secret and the metadata"),
                          "400": error, "429": _LIMITED}}},
        "/oauth2/revoke": {"post": {
            "summary": "RFC 7009 revocation (a refresh token ends its grant)",
            "requestBody": _form(["token"]),
            "responses": {"200": {"description": "revoked or unknown"}, "400": error,
                          "401": error,
                          "429": _LIMITED}}},
        "/oauth2/static/pacekeeper.css": {"get": {
            "summary": "Stylesheet of every HTML page (login, consent, dashboard, result)",
            "responses": {"200": {"description": "text/css"}}}},
        "/.well-known/oauth-authorization-server": {"get": {
            "summary": "RFC 8414 authorization server metadata",
            "responses": {"200": _json("metadata")}}},
        "/.well-known/oauth-protected-resource": {"get": {
            "summary": "RFC 9728 metadata of the service (resource = base URL)",
            "responses": {"200": _json("metadata")}}},
        "/.well-known/oauth-protected-resource/mcp": {"get": {
            "summary": "RFC 9728 metadata of the MCP endpoint (resource = <base>/mcp)",
            "responses": {"200": _json("metadata")}}},
    }


__all__ = ["openapi_paths"]
