"""OpenAPI path items for the agent card and /a2a/* (merged into /openapi.json)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json

_KEY: list[dict[str, list[str]]] = [{"apiKey": []}]




_KEY_ERRORS = {"401": _err("missing, unknown, deleted or expired key"),
               "429": _err("burst limit or 30-day quota")}

A2A_PATHS: dict[str, dict[str, Any]] = {
    "/.well-known/agent-card.json": {
        "get": {"summary": "A2A agent card", "security": [],
                "responses": {"200": _json("agent card", {"type": "object"})}},
    },
    "/a2a/tools": {
        "get": {
            "summary": "Tools (the MCP catalog) for A2A callers",
            "security": _KEY,
            "responses": {"200": _json("tools", {"type": "object", "properties": {
                "tools": {"type": "array", "items": {"type": "object"}}}}), **_KEY_ERRORS},
        },
    },
    "/a2a/execute": {
        "post": {
            "summary": "Run a tool as the key's owner",
            "security": _KEY,
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["tool"],
                "properties": {"tool": {"type": "string"},
                               "arguments": {"type": "object"}}}}}},
            "responses": {"200": _json("the tool's result", {"type": "object"}),
                          "400": _err("bad body or arguments"), "404": _err("unknown tool"),
                          **_KEY_ERRORS},
        },
    },
}

API_KEY_SCHEME = {"type": "apiKey", "in": "header", "name": "X-API-Key"}

__all__ = ["A2A_PATHS", "API_KEY_SCHEME"]
