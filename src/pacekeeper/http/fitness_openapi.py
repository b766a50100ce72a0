"""OpenAPI path items of the fitness routes (merged into /openapi.json by the app)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import ERROR as _ERROR
from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import blank_or, link, with_links
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper.fitness._edit import MAX_NAME, MAX_TEXT
from pacekeeper.fitness._records import HEADLINE_METRICS
from pacekeeper.fitness._service import DEFAULT_STREAM_POINTS, MAX_STREAM_POINTS
from pacekeeper.fitness._settings import SETTINGS
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import CHANNELS
from pacekeeper.fitness.summary import FIGURES
from pacekeeper.providers import PROVIDER_IDS

_NUM = {"type": ["number", "null"]}
_STR = {"type": ["string", "null"]}
_DATE = {"type": "string", "format": "date"}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {400: "bad input", 401: "authentication required or invalid token",
            403: "CSRF failure or not permitted", 404: "not the caller's, or none",
            409: "conflict", 413: "file too large", 429: "rate limited", 503: "not available"}
    return {str(s): _json(text[s], _ERROR) for s in (401, 429, *statuses)}


_SUMMARY: dict[str, Any] = {
    "type": "object",
    "required": ["id", "sport", "start_time", "sources", "streams"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "name": _STR,
        "sport": {"type": "string", "enum": [s.value for s in Sport]},
        "start_time": {"type": "string", "description": "ISO 8601, in the local offset"},
        # The summary's figures as activity_json names them (fitness/summary.py), then
        # the headline metrics.
        **{f.http: _NUM for f in FIGURES if not f.detail_only},
        **{k: _STR if k == "load_method" else _NUM for k in HEADLINE_METRICS},
        "sources": {"type": "array"},
        "streams": {"type": "array", "items": {"type": "string"}},
    },
}
_DETAIL: dict[str, Any] = {
    **_SUMMARY,
    "properties": {
        **_SUMMARY["properties"],
        "start_time_utc": {"type": "string", "format": "date-time"},
        **{f.http: _NUM for f in FIGURES if f.detail_only},
        "laps": {"type": "array", "items": {"type": "object"}},
        "metrics": {"type": "object"},
        "device_metrics": {"type": "object"},
        "timer_time_s": _NUM,
        "legs": {"type": "array", "items": {"type": "object"},
                 "description": "a multisport file's legs (swim, transition, bike, run)"},
        "swim": {"type": "object", "description": "a pool swim's lengths, pace, SWOLF, rests"},
        "computed": {"type": "object",
                     "description": "our figures beside the device's totals shown above"},
        "description": _STR,
        "notes": {**_STR, "description": "the person's private notes"},
        "edited": {"type": "array", "items": {"type": "string"},
                   "description": "fields the person set (no later source changes them)"},
    },
}
_IMPORT_RESULT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["imported", "duplicate", "merged"]},
        "duplicate": {"type": "boolean"},
        "activity": _DETAIL,
        "results": {"type": "array", "items": {"type": "object"}},
    },
}
_ID = [{"name": "activity_id", "in": "path", "required": True,
        "schema": {"type": "string", "format": "uuid"}}]
def _setting_schema(spec: Any) -> dict[str, Any]:
    """A setting's JSON schema: its choices, a free string (a time zone: checked by the
    service), or a number with its bounds."""
    if spec.choices:
        return {"type": ["string", "null"], "enum": [*spec.choices, None]}
    if spec.kind is str:
        return {"type": ["string", "null"]}
    bounds = {k: v for k, v in (("minimum", spec.low), ("maximum", spec.high)) if v is not None}
    return {"type": ["integer" if spec.kind is int else "number", "null"], **bounds}


_SETTINGS_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: _setting_schema(spec) for name, spec in SETTINGS.items()},
        # null is the same as leaving it out: from today.
        "valid_from": {"type": ["string", "null"], "format": "date"},
    },
    "additionalProperties": False,
}


def _query(name: str, schema: dict[str, Any], description: str, required: bool = False
           ) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema,
            "description": description}


def fitness_paths() -> dict[str, dict[str, Any]]:
    """The path items; the provider enum is read from the registry when asked."""
    provider = {"type": "string", "enum": list(PROVIDER_IDS)}
    return _paths(provider)


def _activity_links(activity_id: str) -> dict[str, dict[str, Any]]:
    """Where an activity's id leads: read it, its streams, delete it."""
    one = "/api/activities/{activity_id}"
    return {"GetActivity": link(one, "get", activity_id=activity_id),
            "GetStreams": link(one + "/streams", "get", activity_id=activity_id),
            "DeleteActivity": link(one, "delete", activity_id=activity_id)}


def _paths(provider: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        "/api/activities/import": {"post": {
            "summary": "Import an activity file (FIT, GPX, TCX, gzipped, or a bulk-export zip)",
            "security": _AUTH,
            "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}}}}}},
            "responses": {"201": with_links(_json("imported", _IMPORT_RESULT),
                                            **_activity_links("$response.body#/activity/id")),
                          "200": with_links(
                              _json("a duplicate, merged, or an archive's results",
                                    _IMPORT_RESULT),
                              **_activity_links("$response.body#/activity/id")),
                          # 429 also `busy`: the import pool is full; 503: its worker died
                          **_errors(400, 403, 413, 503)},
        }},
        "/api/activities": {"get": {
            "summary": "The caller's activities, newest first, with a cursor",
            "security": _AUTH,
            "parameters": [
                _query("sport", {"type": "string", "enum": ["", *(s.value for s in Sport)]},
                       "a sport (empty: any)"),
                _query("after", {"type": "string"}, "ISO date or time (inclusive)"),
                _query("before", {"type": "string"}, "ISO date or time (exclusive)"),
                _query("text", {"type": "string"}, "words of the name"),
                _query("limit", blank_or({"type": "integer", "minimum": 1, "maximum": 200}),
                       "page size"),
                _query("cursor", {"type": "string"}, "next_cursor of the previous page"),
            ],
            "responses": {"200": with_links(_json("a page", {
                "type": "object", "required": ["activities", "next_cursor"],
                "properties": {"activities": {"type": "array", "items": _SUMMARY},
                               "next_cursor": _STR}}),
                **_activity_links("$response.body#/activities/0/id")), **_errors(400)},
        }},
        "/api/activities/{activity_id}": {
            "get": {"summary": "One activity in detail", "security": _AUTH, "parameters": _ID,
                    "responses": {"200": _json("the activity", _DETAIL), **_errors(404)}},
            "patch": {"summary": "Edit an activity's name, sport, description or notes",
                      "security": _AUTH, "parameters": _ID,
                      "requestBody": {"required": True, "content": {"application/json": {
                          "schema": {"type": "object", "additionalProperties": False,
                                     "minProperties": 1, "properties": {
                                         "name": {"type": "string", "maxLength": MAX_NAME},
                                         "sport": {"type": "string",
                                                   "enum": [s.value for s in Sport]},
                                         "description": {"type": ["string", "null"],
                                                         "maxLength": MAX_TEXT},
                                         "notes": {"type": ["string", "null"],
                                                   "maxLength": MAX_TEXT}}}}}},
                      "responses": {"200": _json("the activity after the change", _DETAIL),
                                    **_errors(400, 403, 404)}},
            "delete": {"summary": "Delete an activity with its streams and files",
                       "security": _AUTH, "parameters": _ID,
                       "responses": {"204": {"description": "deleted"}, **_errors(403, 404)}},
        },
        "/api/activities/{activity_id}/streams": {"get": {
            "summary": "An activity's samples, optionally downsampled",
            "security": _AUTH,
            "parameters": [*_ID,
                           _query("keys", {"type": "string"},
                                  f"comma-separated: time, {', '.join(CHANNELS)}"),
                           _query("max_points", blank_or({
                               "type": "integer", "minimum": 2, "maximum": MAX_STREAM_POINTS}),
                                  "at most this many points (bucket means); default "
                                  f"{DEFAULT_STREAM_POINTS}, at most {MAX_STREAM_POINTS}")],
            "responses": {"200": _json("the streams", {
                "type": "object", "required": ["activity_id", "points", "streams"],
                "properties": {"activity_id": {"type": "string"},
                               "points": {"type": "integer"},
                               "streams": {"type": "object"}}}), **_errors(400, 404)},
        }},
        "/api/athlete": {
            "get": {"summary": "Settings valid today and their history", "security": _AUTH,
                    "responses": {"200": _json("the athlete", {"type": "object"}), **_errors()}},
            "patch": {"summary": "Set settings from a day on; dependent metrics are recomputed",
                      "security": _AUTH,
                      "requestBody": {"required": True, "content": {
                          "application/json": {"schema": _SETTINGS_BODY}}},
                      "responses": {"200": _json("the athlete", {"type": "object"}),
                                    **_errors(400, 403)}},
        },
        "/api/daily": {"get": {
            "summary": "Daily health, merged across providers",
            "security": _AUTH,
            "parameters": [_query("from", _DATE, "first day", True),
                           _query("to", _DATE, "last day", True)],
            "responses": {"200": _json("days", {
                "type": "object", "required": ["days"],
                "properties": {"days": {"type": "array", "items": {"type": "object"}}}}),
                **_errors(400)},
        }},
        "/api/sync": {"post": {
            "summary": "Start a provider sync in the background",
            "security": _AUTH,
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["provider"],
                "properties": {"provider": provider}}}}},
            "responses": {"202": with_links(_json("started (or already running)", {
                "type": "object", "required": ["provider", "status_url"],
                "properties": {"provider": provider, "started": {"type": "boolean"},
                               "status_url": {"type": "string"}}}),
                SyncState=link("/api/sync/{provider}", "get",
                               provider="$response.body#/provider")),
                **_errors(400, 403, 409, 503)},
        }},
        "/api/sync/{provider}": {"get": {
            "summary": "A provider sync's state",
            "security": _AUTH,
            "parameters": [{"name": "provider", "in": "path", "required": True,
                            "schema": provider}],
            "responses": {"200": _json("the state", {
                "type": "object", "required": ["provider", "status"],
                "properties": {"provider": provider, "status": {"type": "string"}}}),
                **_errors(400)},
        }},
        "/api/data/{provider}": {"delete": {
            "summary": "Forget what one provider brought",
            "security": _AUTH,
            "parameters": [{"name": "provider", "in": "path", "required": True,
                            "schema": provider}],
            "responses": {"200": _json("what was deleted", {
                "type": "object", "required": ["provider", "deleted_activities"],
                "properties": {"provider": provider,
                               "deleted_activities": {"type": "integer"}}}),
                **_errors(400, 403)},
        }},
    }

__all__ = ["fitness_paths"]
