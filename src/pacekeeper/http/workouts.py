"""Plans over HTTP (issue 32): workouts, their files, the calendar, and the calendar feed
behind a per-person secret (PLAN-4). Each handler resolves the caller (JWT from cookie or
header; CSRF for cookie writes) and hands the service the caller's own owner: another
person's workout is 404, as one that does not exist. The feed alone takes no login: its
token is the credential."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper.connections._errors import ConnectionProblem
from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.http._common import JSONResponse, person, read_json_object, services
from pacekeeper.http.connections import api_error
from pacekeeper.workouts import WorkoutService
from pacekeeper.workouts._service import FORMATS

FEED_PATH = "/api/calendar.ics"
TOKEN_PATH = "/api/account/calendar-token"  # noqa: S105 (a path, not a secret)


def _workouts(request: Request) -> WorkoutService:
    found = services(request).workouts
    if found is None:
        raise ApiError("plans are not available on this server", status=503)
    return found


async def create_workout(request: Request) -> Response:
    """POST /api/workouts {name, sport, steps, description?, date?}: 201 with the workout,
    its id and derived figures. GET: the workouts without a date (the calendar's
    "Unscheduled"), newest first."""
    owner, headers = await person(request)
    if request.method == "GET":
        return JSONResponse({"unscheduled": await _workouts(request).unscheduled(owner)},
                            headers=headers)
    body = await _workouts(request).create(owner, await read_json_object(request))
    return JSONResponse(body, 201, headers={"Location": f"/api/workouts/{body['id']}",
                                            **headers})


async def workout(request: Request) -> Response:
    """GET, PATCH (the fields given; ``date`` null unschedules) and DELETE one workout."""
    owner, headers = await person(request)
    ident = str(request.path_params["workout_id"])
    svc = _workouts(request)
    if request.method == "DELETE":
        await svc.delete(owner, ident)
        return Response(status_code=204, headers=headers)
    if request.method == "PATCH":
        body = await svc.update(owner, ident, await read_json_object(request))
        return JSONResponse(body, headers=headers)
    return JSONResponse(await svc.get(owner, ident), headers=headers)


async def export_workout(request: Request) -> Response:
    """GET /api/workouts/{id}/export?format=fit|zwo|erg|mrc: the file (400 when the
    format cannot hold the workout, saying why)."""
    owner, headers = await person(request)
    fmt = request.query_params.get("format", "")
    data, media, name = await _workouts(request).export(
        owner, str(request.path_params["workout_id"]), fmt)
    return Response(data, media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{name}"', **headers})


async def send_workout(request: Request) -> Response:
    """POST /api/workouts/{id}/send {"provider"}: onto the person's account there (and
    its calendar on the workout's date), whence their device gets it."""
    owner, headers = await person(request)
    body = await read_json_object(request)
    provider = body.get("provider")
    try:
        sent = await _workouts(request).send(
            owner, str(request.path_params["workout_id"]), str(provider or ""))
    except ConnectionProblem as problem:
        raise api_error(problem) from None
    return JSONResponse(sent, headers=headers)


async def calendar(request: Request) -> Response:
    """GET /api/calendar?from=&to=: planned and done per day, with compliance."""
    owner, headers = await person(request)
    q = request.query_params
    for name in ("from", "to"):
        if name in q and not q[name]:  # given empty is not left out (decisions.md)
            raise ValidationFailed(f"{name} must be a date (YYYY-MM-DD)")
    body = await _workouts(request).calendar(owner, q.get("from"), q.get("to"))
    return JSONResponse(body, headers=headers)


async def calendar_token(request: Request) -> Response:
    """POST: a new feed secret (shown once; the old one stops working), 201 with the feed
    URL; DELETE: revoke it (204; 404 when there is none)."""
    owner, headers = await person(request)
    svc = _workouts(request)
    if request.method == "DELETE":
        if not await svc.revoke_feed_token(owner):
            raise ApiError("no calendar feed to revoke", code="not_found", status=404)
        return Response(status_code=204, headers=headers)
    token = await svc.new_feed_token(owner)
    base = services(request).settings.public_base_url
    return JSONResponse({"token": token, "url": f"{base}{FEED_PATH}?token={token}"}, 201,
                        headers={"Cache-Control": "no-store", **headers})


async def calendar_feed(request: Request) -> Response:
    """GET /api/calendar.ics?token=: the plan as iCalendar, for calendar apps (no login:
    the token is the credential; 404 for a wrong or revoked one)."""
    body = await _workouts(request).feed(request.query_params.get("token"))
    return Response(body, media_type="text/calendar; charset=utf-8",
                    headers={"Cache-Control": "private, no-store"})


def workout_routes() -> list[BaseRoute]:
    return [
        Route("/api/workouts", create_workout, methods=["GET", "POST"]),
        Route("/api/workouts/{workout_id}", workout, methods=["GET", "PATCH", "DELETE"]),
        Route("/api/workouts/{workout_id}/export", export_workout, methods=["GET"]),
        Route("/api/workouts/{workout_id}/send", send_workout, methods=["POST"]),
        Route("/api/calendar", calendar, methods=["GET"]),
        Route(FEED_PATH, calendar_feed, methods=["GET"]),
        Route(TOKEN_PATH, calendar_token, methods=["POST", "DELETE"]),
    ]


_WORKOUT = {"type": "object", "required": ["name", "sport", "steps"], "properties": {
    "name": {"type": "string"}, "sport": {"type": "string"},
    "steps": {"type": "array", "items": {"type": "object"}},
    "description": {"type": "string"}, "date": {"type": "string", "format": "date"}}}
_ID = [{"name": "workout_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_NOT_YOURS = _err("no such workout of the caller's")


def with_auth_errors(paths: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every authenticated operation's 401 (no or a bad credential), and a write's 403
    (a cookie session without its CSRF token), beside its own answers."""
    for operations in paths.values():
        for method, operation in operations.items():
            if "security" in operation:
                answers = operation["responses"]
                answers.setdefault("401", _err("authentication required"))
                if method in ("post", "put", "patch", "delete"):
                    answers.setdefault("403", _err("a cookie session's CSRF token missing"))
    return paths


def workout_paths() -> dict[str, dict[str, Any]]:
    return with_auth_errors(_workout_paths())


def _workout_paths() -> dict[str, dict[str, Any]]:
    day = {"type": "string", "format": "date"}
    return {
        "/api/workouts": {"get": {
            "summary": "The workouts made without a date (not on the calendar), newest "
                       "first, at most 100: as GET /api/workouts/{id} answers each",
            "security": _AUTH,
            "responses": {"200": _json("{unscheduled: [workout]}", {
                "type": "object", "required": ["unscheduled"], "properties": {
                    "unscheduled": {"type": "array", "items": {"type": "object"}}}})}},
            "post": {
            "summary": "Create a structured workout (docs/plans.md): 201 with its id and "
                       "planned duration, distance and load",
            "security": _AUTH,
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": _WORKOUT}}},
            "responses": {"201": _json("created", {"type": "object"}),
                          "400": _err("a bad workout (the message names the step)"),
                          "401": _err("authentication required"), "403": _err("CSRF")}}},
        "/api/workouts/{workout_id}": {
            "get": {"summary": "One workout", "security": _AUTH, "parameters": _ID,
                    "responses": {"200": _json("the workout", {"type": "object"}),
                                  "404": _NOT_YOURS}},
            "patch": {"summary": "Change a workout (date null: unscheduled)",
                      "security": _AUTH, "parameters": _ID,
                      "requestBody": {"required": True, "content": {
                          "application/json": {"schema": {"type": "object"}}}},
                      "responses": {"200": _json("changed", {"type": "object"}),
                                    "400": _err("bad input"), "404": _NOT_YOURS}},
            "delete": {"summary": "Delete a workout", "security": _AUTH, "parameters": _ID,
                       "responses": {"204": {"description": "deleted"},
                                     "404": _NOT_YOURS}}},
        "/api/workouts/{workout_id}/export": {"get": {
            "summary": "The workout as a file", "security": _AUTH,
            "parameters": [*_ID, {"name": "format", "in": "query", "required": True,
                                  "schema": {"type": "string", "enum": list(FORMATS)}}],
            "responses": {"200": {"description": "the file", "content": {
                "application/octet-stream": {"schema": {"type": "string",
                                                        "format": "binary"}}}},
                "400": _err("unknown format, or one the workout cannot be written in"),
                "404": _NOT_YOURS}}},
        "/api/workouts/{workout_id}/send": {"post": {
            "summary": "Send the workout to the person's device account (Garmin's Training "
                       "API): created there and put on its date",
            "security": _AUTH, "parameters": _ID,
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["provider"],
                "properties": {"provider": {"type": "string"}}}}}},
            "responses": {"200": _json("the provider's ids of it", {"type": "object"}),
                          "400": _err("a provider that takes no workouts, or a target "
                                      "the provider cannot hold"),
                          "404": _err("no such workout, or the provider not connected"),
                          "409": _err("the provider needs reconnecting"),
                          "502": _err("the provider refused or failed")}}},
        "/api/calendar": {"get": {
            "summary": "Planned workouts and done activities per day, with compliance",
            "security": _AUTH,
            "parameters": [{"name": n, "in": "query", "required": False, "schema": day}
                           for n in ("from", "to")],
            "responses": {"200": _json("the days", {"type": "object"}),
                          "400": _err("a bad or too long range")}}},
        FEED_PATH: {"get": {
            "summary": "The plan as an iCalendar feed (the token is the credential)",
            "parameters": [{"name": "token", "in": "query", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": {"description": "text/calendar", "content": {
                "text/calendar": {"schema": {"type": "string"}}}},
                "404": _err("no, a wrong or a revoked token")}}},
        TOKEN_PATH: {
            "post": {"summary": "A new calendar feed secret (shown once; replaces the old)",
                     "security": _AUTH,
                     "responses": {"201": _json("token and feed URL", {"type": "object"})}},
            "delete": {"summary": "Revoke the calendar feed", "security": _AUTH,
                       "responses": {"204": {"description": "revoked"},
                                     "404": _err("no feed to revoke")}}},
    }


__all__ = ["FEED_PATH", "TOKEN_PATH", "with_auth_errors", "workout_paths", "workout_routes"]
