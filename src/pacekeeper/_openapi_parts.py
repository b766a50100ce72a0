"""The pieces every module's OpenAPI path items share (no imports of the service: any
module may use them). The document itself is assembled in ``http._openapi``."""

from __future__ import annotations

from typing import Any

ERROR: dict[str, Any] = {"$ref": "#/components/schemas/Error"}
ISO_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
HTML: dict[str, Any] = {"text/html": {"schema": {"type": "string"}}}
# A JWT as a bearer header or in the auth_token cookie (JWT-4).
SESSION_AUTH: list[dict[str, list[str]]] = [{"bearer": []}, {"cookie": []}]


def json_response(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def blank_or(schema: dict[str, Any]) -> dict[str, Any]:
    """A query parameter whose empty value means its default (``?limit=``, as an HTML
    form with an empty field sends it), else `schema`."""
    return {"anyOf": [schema, {"type": "string", "maxLength": 0}]}


def link(path: str, method: str, **parameters: str) -> dict[str, Any]:
    """An OpenAPI link from a response to the operation at `path`/`method`, its parameters
    taken from the response (runtime expressions such as ``$response.body#/id``): clients
    and schemathesis' stateful phase chain operations through these."""
    pointer = path.replace("~", "~0").replace("/", "~1")
    return {"operationRef": f"#/paths/{pointer}/{method}", "parameters": parameters}


def with_links(response: dict[str, Any], **links: dict[str, Any]) -> dict[str, Any]:
    return {**response, "links": links}


def error_response(description: str) -> dict[str, Any]:
    """A response with the service's `{"error", "message"}` body (ERR-1)."""
    return json_response(description, ERROR)


__all__ = ["ERROR", "HTML", "ISO_TIME", "SESSION_AUTH", "blank_or", "error_response",
           "json_response", "link", "with_links"]
