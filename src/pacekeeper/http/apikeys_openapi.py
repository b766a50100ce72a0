"""OpenAPI path items for /api/keys (merged into /openapi.json by the app)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import ISO_TIME as _ISO
from pacekeeper._openapi_parts import SESSION_AUTH as _BEARER
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper._openapi_parts import link, with_links

_TIER = {"type": "string", "enum": ["trial", "starter", "professional", "enterprise"]}
_KEY: dict[str, Any] = {
    "type": "object",
    "required": ["id", "name", "tier", "prefix", "created_at"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "tier": _TIER,
        "prefix": {"type": "string"},
        "created_at": _ISO,
        "last_used_at": {"type": ["string", "null"], "format": "date-time"},
        "expires_at": {"type": ["string", "null"], "format": "date-time"},
    },
}

KEY_PATHS: dict[str, dict[str, Any]] = {
    "/api/keys": {
        "post": {
            "summary": "Create an API key; the secret is in this response only",
            "security": _BEARER,
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object",
                "required": ["name", "tier"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 100},
                    "tier": _TIER,
                    "user_id": {"type": ["string", "null"], "format": "uuid",
                                "description": "admin; null is the same as leaving it out"},
                },
            }}}},
            "responses": {
                "201": with_links(
                    _json("created", {**_KEY, "properties": {
                        **_KEY["properties"], "api_key": {"type": "string"}}}),
                    DeleteKey=link("/api/keys/{key_id}", "delete", key_id="$response.body#/id")),
                "400": _err("bad input"), "401": _err("no valid JWT"),
                "403": _err("tier not in the plan, or CSRF"), "404": _err("no such user"),
                "409": _err("a cap on keys per person is reached"),
                "429": _err("rate limited"),
            },
        },
        "get": {
            "summary": "List API keys (metadata and usage, never the secret)",
            "security": _BEARER,
            "parameters": [{"name": "user_id", "in": "query", "required": False,
                            "schema": {"type": "string", "format": "uuid"}}],
            "responses": {
                "200": _json("keys", {"type": "object", "properties": {
                    "keys": {"type": "array", "items": _KEY}}}),
                "400": _err("bad user_id"), "401": _err("no valid JWT"),
                "403": _err("not an admin"), "429": _err("rate limited"),
            },
        },
    },
    "/api/keys/{key_id}": {
        "delete": {
            "summary": "Delete an API key (refused at once afterwards)",
            "security": _BEARER,
            "parameters": [{"name": "key_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {
                "204": {"description": "deleted"}, "401": _err("no valid JWT"),
                "403": _err("CSRF"), "404": _err("no such key"), "429": _err("rate limited"),
            },
        },
    },
}

__all__ = ["KEY_PATHS"]
