"""``GET /api/records``: the Records page's figures in one answer (issue 33 follow-up).

The page asked for best efforts over all time, then per season, then each season's power
curve: 23 requests a load. This route is thin over the analysis service's ``records``,
which gives the same figures (get_best_efforts' and get_power_curve's, per range) at once,
rounded as the tools round them. The caller's own data only: no parameter names a person.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper.fitness._figures import rounded_answer
from pacekeeper.fitness.analysis import Records
from pacekeeper.http._common import JSONResponse, person, services
from pacekeeper.http.analysis import _inline
from pacekeeper.http.workouts import with_auth_errors


async def records(request: Request) -> Response:
    owner, headers = await person(request)
    found = await services(request).fitness.analysis.records(owner)
    return JSONResponse(rounded_answer(found), headers=headers)


def records_routes() -> list[BaseRoute]:
    return [Route("/api/records", records, methods=["GET"])]


def records_paths() -> dict[str, dict[str, Any]]:
    schema = TypeAdapter(Records).json_schema()
    return with_auth_errors({"/api/records": {"get": {
        "summary": "Run best efforts over all time and per season (calendar year), and each "
                   "season's power curve: the seasons with runs or power, newest first",
        "security": _AUTH,
        "responses": {"200": _json("as get_best_efforts and get_power_curve per range",
                                   _inline(schema, schema.get("$defs", {})))}}}})


__all__ = ["records_paths", "records_routes"]
