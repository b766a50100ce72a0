"""``/api/gear``: the person's bikes and shoes (issue 33, fitness/_gear.py)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper.errors import ApiError
from pacekeeper.fitness import GearService
from pacekeeper.http._common import JSONResponse, person, read_json_object, services
from pacekeeper.http.workouts import with_auth_errors


def _gear(request: Request) -> GearService:
    found = services(request).gear
    if found is None:
        raise ApiError("gear is not available on this server", status=503)
    return found


async def gear_list(request: Request) -> Response:
    """GET: the person's gear with its totals; POST {name, kind?, default_for?,
    alert_km?}: 201 with the new gear."""
    owner, headers = await person(request)
    if request.method == "POST":
        made = await _gear(request).create(owner, await read_json_object(request))
        return JSONResponse(made, 201, headers={"Location": f"/api/gear/{made['id']}",
                                                **headers})
    return JSONResponse({"gear": await _gear(request).list(owner)}, headers=headers)


async def gear_item(request: Request) -> Response:
    """GET, PATCH (the fields given; ``retired`` true clears a default) and DELETE (the
    activities that used it stay, without it)."""
    owner, headers = await person(request)
    ident, svc = str(request.path_params["gear_id"]), _gear(request)
    if request.method == "DELETE":
        await svc.delete(owner, ident)
        return Response(status_code=204, headers=headers)
    if request.method == "PATCH":
        return JSONResponse(await svc.update(owner, ident, await read_json_object(request)),
                            headers=headers)
    return JSONResponse(await svc.get(owner, ident), headers=headers)


def gear_routes() -> list[BaseRoute]:
    return [Route("/api/gear", gear_list, methods=["GET", "POST"]),
            Route("/api/gear/{gear_id}", gear_item, methods=["GET", "PATCH", "DELETE"])]


_GEAR = {"type": "object", "properties": {
    "name": {"type": "string"}, "kind": {"type": "string", "enum": ["bike", "shoes", "other"]},
    "default_for": {"type": ["string", "null"]}, "retired": {"type": "boolean"},
    "alert_km": {"type": ["number", "null"]}}}
_ID = [{"name": "gear_id", "in": "path", "required": True, "schema": {"type": "string"}}]


def gear_paths() -> dict[str, dict[str, Any]]:
    body = {"required": True, "content": {"application/json": {"schema": _GEAR}}}
    return with_auth_errors({
        "/api/gear": {
            "get": {"summary": "The person's gear: distance, time, activities, due",
                    "security": _AUTH, "responses": {"200": _json("gear", {"type": "object"})}},
            "post": {"summary": "New gear", "security": _AUTH, "requestBody": body,
                     "responses": {"201": _json("the gear", {"type": "object"}),
                                   "400": _err("bad input")}}},
        "/api/gear/{gear_id}": {
            "get": {"summary": "One piece of gear", "security": _AUTH, "parameters": _ID,
                    "responses": {"200": _json("the gear", {"type": "object"}),
                                  "404": _err("no such gear of the caller's")}},
            "patch": {"summary": "Change gear", "security": _AUTH, "parameters": _ID,
                      "requestBody": body,
                      "responses": {"200": _json("the gear", {"type": "object"}),
                                    "400": _err("bad input"),
                                    "404": _err("no such gear of the caller's")}},
            "delete": {"summary": "Delete gear (its activities stay)", "security": _AUTH,
                       "parameters": _ID,
                       "responses": {"204": {"description": "deleted"},
                                     "404": _err("no such gear of the caller's")}}},
    })


__all__ = ["gear_paths", "gear_routes"]
