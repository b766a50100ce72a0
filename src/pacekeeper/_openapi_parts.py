"""The pieces every module's OpenAPI path items share (no imports of the service: any
module may use them). The document itself is assembled in ``api._openapi``."""

from __future__ import annotations

from typing import Any

ERROR: dict[str, Any] = {"$ref": "#/components/schemas/Error"}
ISO_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
HTML: dict[str, Any] = {"text/html": {"schema": {"type": "string"}}}
# A JWT as a bearer header or in the auth_token cookie (JWT-4).
SESSION_AUTH: list[dict[str, list[str]]] = [{"bearer": []}, {"cookie": []}]


def json_response(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def error_response(description: str) -> dict[str, Any]:
    """A response with the service's `{"error", "message"}` body (ERR-1)."""
    return json_response(description, ERROR)


__all__ = ["ERROR", "HTML", "ISO_TIME", "SESSION_AUTH", "error_response", "json_response"]
