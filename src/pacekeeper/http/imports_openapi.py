"""OpenAPI of the whole-account export imports (http/imports.py, docs/import.md)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import ERROR, SESSION_AUTH, json_response, link, with_links
from pacekeeper.fitness.exports import KINDS

_INT = {"type": "integer", "minimum": 0}
_ERRORS = {401: "authentication required or invalid token", 400: "bad input",
           403: "CSRF failure", 404: "not the caller's, or none", 413: "export too large",
           429: "rate limited, or imports already waiting"}
_STATUS: dict[str, Any] = {
    "type": "object", "required": ["id", "status", "kind", "progress", "report"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "status": {"type": "string", "enum": ["queued", "running", "done", "failed"]},
        "kind": {"type": ["string", "null"], "enum": [*KINDS, None],
                 "description": "null until the job has opened the archive"},
        "filename": {"type": "string"},
        "status_url": {"type": "string"},
        "error": {"type": "string", "description": "why a failed import failed"},
        "progress": {"type": "object", "required": ["done", "total"],
                     "properties": {"done": _INT, "total": _INT}},
        "report": {"type": "object",
                   "required": ["imported", "merged", "duplicates", "rejected"],
                   "properties": {
                       "imported": _INT, "merged": _INT, "duplicates": _INT,
                       "days": {**_INT, "description": "daily health records written"},
                       "rejected_total": _INT,
                       "rejected": {"type": "array", "items": {
                           "type": "object", "required": ["name", "error"],
                           "properties": {"name": {"type": "string"},
                                          "error": {"type": "string"}}}}}},
    },
}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): json_response(_ERRORS[s], ERROR) for s in (401, *statuses)}


IMPORT_PATHS: dict[str, dict[str, Any]] = {
    "/api/imports": {"post": {
        "summary": "Import a whole-account export (Strava, Garmin, Google Takeout, Apple "
                   "Health) or activity files, in the background",
        "security": SESSION_AUTH,
        "parameters": [{"name": "X-Filename", "in": "header", "required": False,
                        "schema": {"type": "string"},
                        "description": "the file's name when the body is the file itself"}],
        "requestBody": {"required": True, "content": {
            "multipart/form-data": {"schema": {
                "type": "object", "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}}}},
            "application/octet-stream": {"schema": {"type": "string",
                                                    "format": "binary"}}}},
        "responses": {"202": with_links(json_response("accepted: the job is queued", {
            "type": "object", "required": ["id", "status_url"],
            "properties": {"id": {"type": "string", "format": "uuid"},
                           "status_url": {"type": "string"}}}),
            GetImport=link("/api/imports/{import_id}", "get",
                           import_id="$response.body#/id")),
            **_errors(400, 403, 413, 429)},
    }},
    "/api/imports/{import_id}": {"get": {
        "summary": "An import's status, progress and report",
        "security": SESSION_AUTH,
        "parameters": [{"name": "import_id", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": json_response("the import", _STATUS), **_errors(404)},
    }},
}

__all__ = ["IMPORT_PATHS"]
