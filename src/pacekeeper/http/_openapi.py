"""OpenAPI 3.1 description of the HTTP API, kept by hand next to the routes.

A test checks that every mounted route is described here, so the two cannot drift.
"""

from __future__ import annotations

from typing import Any

from pacekeeper import __version__
from pacekeeper._openapi_parts import ISO_TIME as _ISO
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _ok
from pacekeeper.auth import EMAIL_PATTERN

_SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error", "message"],
        "properties": {
            "error": {"type": "string", "description": "snake_case code"},
            "message": {"type": "string"},
        },
    },
    "RegisterRequest": {
        "type": "object",
        "required": ["email", "password"],
        "properties": {
            "email": {"type": "string", "maxLength": 254, "pattern": EMAIL_PATTERN},
            "password": {"type": "string", "minLength": 8, "maxLength": 1024},
            # Optional members: null is the same as leaving them out.
            "display_name": {"type": ["string", "null"], "maxLength": 200},
            "tenant_id": {"type": ["string", "null"], "format": "uuid",
                          "description": "admin only"},
        },
    },
    "RegisterResponse": {
        "type": "object",
        "required": ["user_id", "email", "token", "expires_at"],
        "properties": {
            "user_id": {"type": "string", "format": "uuid"},
            "email": {"type": "string"},
            "token": {"type": "string", "description": "JWT"},
            "expires_at": _ISO,
        },
    },
    "LoginResponse": {
        "type": "object",
        "required": ["jwt_token", "csrf_token", "user", "expires_at"],
        "properties": {
            "jwt_token": {"type": "string", "deprecated": True},
            "csrf_token": {"type": "string"},
            "user": {
                "type": "object",
                "required": ["id", "email"],
                "properties": {"id": {"type": "string", "format": "uuid"},
                               "email": {"type": "string"}},
            },
            "expires_at": _ISO,
        },
    },
    "Jwks": {
        "type": "object",
        "required": ["keys"],
        "properties": {"keys": {"type": "array", "items": {
            "type": "object",
            "required": ["kty", "use", "kid", "n", "e"],
            "properties": {k: {"type": "string"} for k in ("kty", "use", "kid", "n", "e", "alg")},
        }}},
    },
}

_JWKS_OP = {
    "summary": "Public signing keys (RFC 7517)",
    "responses": {"200": _ok("JWKS; Cache-Control: public, max-age=3600",
                             {"$ref": "#/components/schemas/Jwks"})},
}


_READINESS = {"type": "object", "properties": {
    "status": {"type": "string", "enum": ["ready", "not_ready"]},
    "checks": {"type": "object", "additionalProperties": {"type": "string"}}}}


def openapi_document(base_url: str) -> dict[str, Any]:
    bearer_or_cookie: list[dict[str, list[str]]] = [{"bearer": []}, {"cookie": []}]
    paths: dict[str, Any] = {
        "/health": {"get": {"summary": "Liveness and version", "responses": {"200": _ok(
            "ok", {"type": "object", "properties": {"status": {"type": "string"},
                                                    "version": {"type": "string"}}})}}},
        "/ready": {"get": {"summary": "Readiness: database (migrations applied), Redis and "
                                      "job queue reachable, not shutting down",
                           "responses": {
            "200": _ok("ready", _READINESS), "503": _ok("not ready (a check is not ok)",
                                                        _READINESS)}}},
        "/metrics": {"get": {
            "summary": "Prometheus metrics (loopback callers without a proxy, or the "
                       "metrics bearer token; docs/deploy.md)",
            "responses": {"200": {"description": "Prometheus text exposition format",
                                  "content": {"text/plain": {"schema": {"type": "string"}}}},
                          "403": _err("not a local scraper and no valid metrics token")}}},
        "/openapi.json": {"get": {"summary": "This document",
                                  "responses": {"200": {"description": "OpenAPI 3.1"}}}},
        "/api/auth/register": {"post": {
            "summary": "Register a user (admin token required when registration=admin; "
                       "refused when closed; the mode an admin stored, else the env's)",
            "security": [*bearer_or_cookie, {}],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/RegisterRequest"}}}},
            "responses": {
                "201": _ok("created", {"$ref": "#/components/schemas/RegisterResponse"}),
                "400": _err("bad input"), "401": _err("admin token missing or invalid"),
                "403": _err("not an admin, registration closed, or CSRF failure"),
                "409": _err("email taken"),
                "413": _err("body too large"),
                "429": _err("tenant rate limit, or too many registrations from this address"),
            },
        }},
        "/oauth/token": {"post": {
            "summary": "Password grant; sets the auth_token and csrf_token cookies",
            "requestBody": {"required": True, "content": {
                "application/x-www-form-urlencoded": {"schema": {
                    "type": "object", "required": ["grant_type", "username", "password"],
                    "properties": {"grant_type": {"const": "password"},
                                   "username": {"type": "string", "minLength": 1},
                                   "password": {"type": "string", "minLength": 1}}}}}},
            "responses": {
                "200": _ok("logged in", {"$ref": "#/components/schemas/LoginResponse"}),
                "400": {"description": "RFC 6749 error (invalid_request, "
                                       "unsupported_grant_type)"},
                "401": {"description": "invalid_grant: wrong email or password"},
                "403": _err("a cross-site request (login CSRF)"),
                "429": _err("too many sign-in attempts from this address or for this "
                            "account from it"),
            },
        }},
        "/api/auth/refresh": {"post": {
            "summary": "New JWT and CSRF token; cookie callers get new cookies and "
                       "{csrf_token, expires_at}, bearer callers the login response",
            "security": bearer_or_cookie,
            "parameters": [{"name": "X-CSRF-Token", "in": "header", "required": False,
                            "schema": {"type": "string"},
                            "description": "required for cookie callers"}],
            "responses": {
                "200": _ok("refreshed", {"$ref": "#/components/schemas/LoginResponse"}),
                "401": _err("authentication required / invalid token"),
                "403": _err("CSRF failure"), "429": _err("tenant rate limit"),
            },
        }},
        "/api/auth/logout": {"post": {
            "summary": "Clear both session cookies (Max-Age=0) and revoke the JWT it ends",
            "responses": {"200": _ok("cleared", {"type": "object"}),
                          "403": _err("a cross-site request (forced logout)")},
        }},
        "/mcp": {
            "get": {"summary": "Legacy era: open the server-to-client SSE stream of a session",
                    "responses": {"200": {"description": "text/event-stream"},
                                  "400": {"description": "session header missing"},
                                  "404": {"description": "unknown session"},
                                  "406": {"description": "Accept lacks text/event-stream"},
                                  "409": {"description": "stream already open"},
                                  "421": {"description": "Host not allowed"}}},
            "delete": {"summary": "Legacy era: end a session (Mcp-Session-Id)",
                       "responses": {"200": {"description": "ended"},
                                     "204": {"description": "ended"},
                                     "400": {"description": "session header missing"},
                                     "404": {"description": "unknown session"},
                                     "421": {"description": "Host not allowed"}}},
            "post": {
            "summary": "MCP (JSON-RPC 2.0, Streamable HTTP). initialize, server/discover, "
                       "tools/list, prompts/list, resources/list and ping are public; "
                       "tools/call needs a JWT (cookie or bearer)",
            "security": [*bearer_or_cookie, {}],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"type": "object", "required": ["jsonrpc", "method"]}}}},
            "responses": {
                "200": {"description": "JSON-RPC response (JSON or SSE)"},
                "401": {"description": "JSON-RPC error: authentication required / invalid "
                                       "token; WWW-Authenticate: Bearer resource_metadata"},
                "400": {"description": "JSON-RPC parse or request error"},
                "403": {"description": "Origin not allowed, or CSRF failure for cookies"},
                "404": {"description": "unknown session"},
                "406": {"description": "Accept lacks application/json or text/event-stream"},
                "413": {"description": "body larger than 4 MiB"},
                "415": {"description": "Content-Type is not application/json"},
                "421": {"description": "Host not allowed"},
                "429": {"description": "tenant rate limit; Retry-After, X-RateLimit-*"},
            },
        }},
        "/mcp/topics/{topic}": {"get": {
            "summary": "The person's live feed (SSE; WebSocket at the same path): topic "
                       "user.<own user id> only, with the session cookie or a bearer token",
            "security": bearer_or_cookie,
            "parameters": [{"name": "topic", "in": "path", "required": True,
                            "schema": {"type": "string"}},
                           {"name": "after", "in": "query", "required": False,
                            "schema": {"type": "integer", "minimum": 0},
                            "description": "resume after this seq"}],
            "responses": {
                "200": {"description": "frames: subscribed, message, close",
                        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                "400": {"description": "a bad resume point"},
                "403": {"description": "not the caller's own topic, no or bad credentials, "
                                       "or a cookie from another origin"},
                "404": {"description": "not a topic name"},
                "421": {"description": "Host not allowed"},
                "503": {"description": "too many subscribers, or shutting down"},
            }}},
        "/mcp/mcpcast.js": {"get": {
            "summary": "mcpcast's browser client (subscribe to a topic)",
            "responses": {"200": {"description": "JavaScript", "content": {
                "text/javascript": {"schema": {"type": "string"}}}}}}},
        "/oauth2/jwks": {"get": _JWKS_OP},
        "/admin/jwks": {"get": {**_JWKS_OP, "summary": "Legacy alias of /oauth2/jwks"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Pacekeeper", "version": __version__},
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "schemas": _SCHEMAS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "auth_token"},
            },
        },
    }


def add_path(document: dict[str, Any], path: str, item: dict[str, Any]) -> None:
    """Let optional mounts (e.g. /mcp) describe themselves."""
    document["paths"][path] = item


__all__ = ["add_path", "openapi_document"]
