"""OpenAPI 3.1 items of the connection endpoints (merged into /openapi.json)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import HTML as _HTML
from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper.providers import PROVIDER_IDS, PROVIDERS, webhook_path

_STATUS = {
    "type": "object",
    "required": ["connected_providers"],
    "properties": {"connected_providers": {"type": "array", "items": {"type": "string"}}},
    "additionalProperties": {
        "type": "object",
        "required": ["connected"],
        "properties": {
            "connected": {"type": "boolean"},
            "expires_at": {"type": ["string", "null"], "format": "date-time"},
            "needs_reconnect": {"type": "boolean"},
            "reason": {"type": "string"},  # why a reconnect is needed, when not a lost grant
        },
    },
}
def _webhooks() -> dict[str, Any]:
    """Each provider's webhook paths, as its spec describes them (from the registry)."""
    return {webhook_path(spec.id, kind): dict(item)
            for spec in PROVIDERS.values() if spec.webhook is not None
            for kind, item in spec.webhook.openapi.items()}  # fmt: skip


def _provider() -> dict[str, Any]:
    return {"name": "provider", "in": "path", "required": True,
            "schema": {"type": "string", "enum": list(PROVIDER_IDS)}}  # fmt: skip


def connection_paths() -> dict[str, Any]:
    provider = _provider()
    return {
        "/api/oauth/auth/{provider}/{user_id}": {"get": {
            "summary": "Start a provider authorization (PROV-1): your own user id, or any "
                       "for an admin",
            "security": _AUTH,
            "parameters": [provider, {"name": "user_id", "in": "path", "required": True,
                                       "schema": {"type": "string", "format": "uuid"}}],
            "responses": {
                "200": _json("the URL to open", {"type": "object", "properties": {
                    "authorization_url": {"type": "string"}, "provider": {"type": "string"}}}),
                "400": _err("user_id is not a UUID"), "401": _err("no or bad JWT"),
                "403": _err("another user's id"), "404": _err("unknown provider or user"),
                "429": _err("provider rate limit"), "503": _err("provider not configured"),
            },
        }},
        "/api/oauth/connect/{provider}": {
            "get": {
                "summary": "Our connect page: whose account the provider will be connected "
                           "to, and Continue (no login asked)",
                "security": [{}],
                "parameters": [_provider(),
                               {"name": "state", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the page", "content": _HTML},
                              "400": {"description": "why the link is not valid",
                                      "content": _HTML}},
            },
            "post": {
                "summary": "Continue: bind this browser to the authorization, then go to "
                           "the provider",
                "security": [{}],
                "parameters": [_provider()],
                "requestBody": {"required": True, "content": {
                    "application/x-www-form-urlencoded": {"schema": {
                        "type": "object", "properties": {"state": {"type": "string"},
                                                         "confirm": {"type": "string"}}}}}},
                "responses": {"303": {"description": "to the provider's consent page"},
                              "200": {"description": "refused; the page says why",
                                      "content": _HTML},
                              "400": {"description": "refused (the page says why), or a "
                                                     "body that is not a form",
                                      "content": {**_HTML, **_err("")["content"]}}},
            },
        },
        "/api/oauth/callback/{provider}": {"get": {
            "summary": "Provider redirect target: checks the state, stores the tokens, shows "
                       "an HTML result page (no login asked)",
            "security": [{}],
            "parameters": [provider,
                           {"name": "state", "in": "query", "schema": {"type": "string"}},
                           {"name": "code", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "connected", "content": _HTML},
                          "400": {"description": "refused; the page says why",
                                  "content": _HTML}},
        }},
        "/oauth/status": {"get": {
            "summary": "Provider connection status (PROV-8)",
            "security": _AUTH,
            "responses": {"200": _json("per provider", _STATUS), "401": _err("no or bad JWT")},
        }},
        "/api/oauth/connections/{provider}": {"delete": {
            "summary": "Disconnect: tokens deleted at once, provider deauthorized (PROV-10)",
            "security": _AUTH,
            "parameters": [provider],
            "responses": {
                "200": _json("done", {"type": "object", "properties": {
                    "provider": {"type": "string"}, "removed": {"type": "boolean"},
                    "deauthorized": {"type": "boolean"}}}),
                "401": _err("no or bad JWT"), "403": _err("CSRF failure for cookies"),
                "404": _err("unknown provider"),
            },
        }},
        **_webhooks(),
        "/dashboard": {"get": {
            "summary": "Connections page for a cookie session (HTML)",
            "security": [{"cookie": []}, {}],
            "responses": {"200": {"description": "sign-in form or the providers",
                                  "content": _HTML}},
        }},
    }  # fmt: skip


__all__ = ["connection_paths"]
