"""The analysis over HTTP for the web pages: each route returns exactly what its MCP tool
returns (the same AnalysisService method or calculator builds both), for the caller only.

Query parameters mirror the tools' arguments; a bad one is 400 ``validation_error``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pacekeeper._openapi_parts import ERROR as _ERROR
from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper.api._common import JSONResponse, read_json_object, services
from pacekeeper.errors import ValidationFailed
from pacekeeper.fitness._calculators import training_paces, zones
from pacekeeper.fitness._records import Owner
from pacekeeper.fitness.analysis import AnalysisService

Handler = Callable[[Request, AnalysisService, Owner], Awaitable[Mapping[str, Any]]]


T = TypeVar("T", int, None)


def _float(request: Request, name: str, *, required: bool = False) -> float | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        if required:
            raise ValidationFailed(f"{name} is required")
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValidationFailed(f"{name} must be a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValidationFailed(f"{name} must be a number")
    return value


def _int(request: Request, name: str, default: T) -> int | T:
    text = request.query_params.get(name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValidationFailed(f"{name} must be a whole number") from None


def _durations(request: Request) -> list[int] | None:
    text = request.query_params.get("durations_s")
    if not text:
        return None
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValidationFailed("durations_s must be whole seconds, comma-separated") from None
    if len(values) > 80:
        raise ValidationFailed("at most 80 durations")
    return values


def _choice(request: Request, name: str, choices: tuple[str, ...], default: str) -> str:
    value = request.query_params.get(name) or default
    if value not in choices:
        raise ValidationFailed(f"{name} must be one of {', '.join(choices)}")
    return value


def endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        svc = services(request)
        principal = await svc.resolver.require(request.method, request.headers)
        owner = Owner(principal.user_id, principal.tenant_id)
        body = await handler(request, svc.fitness.analysis, owner)
        headers = principal.rate.headers() if principal.rate else {}
        return JSONResponse(body, headers=headers)

    return run


def _q(request: Request, name: str) -> str | None:
    return request.query_params.get(name) or None


async def _summary(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.training_summary(o)


async def _chart(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.fitness_chart(o, _q(r, "from"), _q(r, "to"),
                                 _int(r, "ctl_days", None), _int(r, "atl_days", None))


async def _curve(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    kind = r.path_params["kind"]
    if kind not in ("power", "hr", "pace"):
        raise ValidationFailed("the curve is power, hr or pace")
    found: Mapping[str, Any] = await a.curve(
        o, kind, activity_id=_q(r, "activity_id"), start=_q(r, "from"), end=_q(r, "to"),
        durations=_durations(r), sport=_q(r, "sport"))
    return found


async def _efforts(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.best_efforts(o, _q(r, "from"), _q(r, "to"))


async def _cp(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    model = _choice(r, "model", ("2p", "3p"), "2p")
    return await a.critical_power(o, _q(r, "from"), _q(r, "to"), model,  # type: ignore[arg-type]
                                  _q(r, "sport"))


async def _ftp(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.ftp_estimate(o, _q(r, "from"), _q(r, "to"), _q(r, "sport"))


async def _zone_dist(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    kind = _choice(r, "kind", ("power", "hr", "pace"), "power")
    return await a.zone_distribution(o, _q(r, "from"), _q(r, "to"),
                                     kind, _q(r, "sport"))  # type: ignore[arg-type]


async def _zones(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    given = {k: v for k in ("ftp_watts", "lthr_bpm", "max_hr_bpm", "resting_hr_bpm",
                            "threshold_pace_s_per_km") if (v := _float(r, k)) is not None}
    if not given:
        given = await services(r).fitness.thresholds(o, _q(r, "sport"))
    return zones(given)


async def _risk(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.load_risk(o, _q(r, "date"))


async def _readiness(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.readiness(o, _q(r, "date"))


async def _recovery(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.recovery_status(o)


async def _weekly(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.weekly_load(o, _int(r, "weeks", 8))


async def _patterns(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.patterns(o, _int(r, "weeks", 12))


async def _analysis(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.analyze(o, r.path_params["activity_id"])


async def _wbal(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    model = _choice(r, "model", ("skiba2012", "skiba2015"), "skiba2015")
    points = _int(r, "max_points", 200)
    if not 10 <= points <= 1000:
        raise ValidationFailed("max_points must be between 10 and 1000")
    return await a.w_prime_balance(o, r.path_params["activity_id"], _float(r, "cp_watts"),
                                   _float(r, "w_prime_j"), model,  # type: ignore[arg-type]
                                   points)


async def _period(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.period_summary(o, _q(r, "from"), _q(r, "to"))


async def _week(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.suggest_week(o, _q(r, "goal_id"), _q(r, "sport"))


async def _race(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    target = _float(r, "target_distance_m")
    return await a.race_prediction(o, _float(r, "distance_m"), _float(r, "time_s"),
                                   [target] if target else [])


async def _paces(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return training_paces(_float(r, "vdot"), _float(r, "distance_m"), _float(r, "time_s"))


async def _goals(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    if r.method == "POST":
        data = await read_json_object(r)
        allowed = {"kind", "date", "name", "sport", "distance_m", "time_s", "value"}
        unknown = set(data) - allowed
        if unknown:
            raise ValidationFailed(f"unknown field {sorted(unknown)[0]!r}")
        for k in ("distance_m", "time_s", "value"):
            v = data.get(k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                                  or not 0 < v <= 100000):
                raise ValidationFailed(f"{k} must be a positive number")
        for k in ("kind", "date", "name", "sport"):
            if data.get(k) is not None and not isinstance(data[k], str):
                raise ValidationFailed(f"{k} must be a string")
        return await a.set_goal(o, kind=str(data.get("kind", "")), target_date=data.get("date"),
                                name=data.get("name"), sport=data.get("sport"),
                                distance_m=data.get("distance_m"), time_s=data.get("time_s"),
                                value=data.get("value"))
    return await a.goals(o)


async def _goal(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.delete_goal(o, r.path_params["goal_id"])


async def _feasibility(r: Request, a: AnalysisService, o: Owner) -> Mapping[str, Any]:
    return await a.goal_feasibility(o, r.path_params["goal_id"])


ROUTES: dict[str, tuple[Handler, list[str], str]] = {
    "/api/training-summary": (_summary, ["GET"], "get_training_summary"),
    "/api/fitness-chart": (_chart, ["GET"], "get_fitness_chart"),
    "/api/curves/{kind}": (_curve, ["GET"], "get_power_curve, get_hr_curve, get_pace_curve"),
    "/api/best-efforts": (_efforts, ["GET"], "get_best_efforts"),
    "/api/critical-power": (_cp, ["GET"], "estimate_critical_power"),
    "/api/ftp-estimate": (_ftp, ["GET"], "estimate_ftp"),
    "/api/zones": (_zones, ["GET"], "calculate_zones"),
    "/api/zone-distribution": (_zone_dist, ["GET"], "get_zone_distribution"),
    "/api/load-risk": (_risk, ["GET"], "get_load_risk"),
    "/api/readiness": (_readiness, ["GET"], "get_readiness"),
    "/api/recovery": (_recovery, ["GET"], "get_recovery_status"),
    "/api/weekly-load": (_weekly, ["GET"], "get_weekly_load"),
    "/api/patterns": (_patterns, ["GET"], "detect_patterns"),
    "/api/period-summary": (_period, ["GET"], "get_period_summary"),
    "/api/activities/{activity_id}/analysis": (_analysis, ["GET"], "analyze_activity"),
    "/api/activities/{activity_id}/wbal": (_wbal, ["GET"], "get_wbal"),
    "/api/training-week": (_week, ["GET"], "suggest_training_week"),
    "/api/race-prediction": (_race, ["GET"], "predict_race_time"),
    "/api/training-paces": (_paces, ["GET"], "get_training_paces"),
    "/api/goals": (_goals, ["GET", "POST"], "get_goals (GET), set_goal (POST)"),
    "/api/goals/{goal_id}": (_goal, ["DELETE"], "delete_goal"),
    "/api/goals/{goal_id}/feasibility": (_feasibility, ["GET"], "goal_feasibility"),
}


def analysis_routes() -> list[BaseRoute]:
    return [Route(path, endpoint(handler), methods=methods)
            for path, (handler, methods, _) in ROUTES.items()]




def analysis_paths() -> Mapping[str, Any]:
    """OpenAPI path items: each names the MCP tool whose result it returns."""
    out: dict[str, Any] = {}
    for path, (_, methods, tool) in ROUTES.items():
        params = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                  for p in ("kind", "activity_id", "goal_id") if "{" + p + "}" in path]
        item = {}
        for method in methods:
            op: dict[str, Any] = {
                "summary": f"The result of the MCP tool {tool}",
                "security": _AUTH,
                "parameters": params,
                "responses": {
                    "200": {"description": f"as {tool} (structuredContent)",
                            "content": {"application/json": {"schema": {"type": "object"}}}},
                    "400": {"description": "bad parameter",
                            "content": {"application/json": {"schema": _ERROR}}},
                    "401": {"description": "no or bad JWT",
                            "content": {"application/json": {"schema": _ERROR}}},
                    "404": {"description": "not the caller's activity or goal",
                            "content": {"application/json": {"schema": _ERROR}}},
                },
            }
            if method == "POST":
                op["requestBody"] = {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["kind"]}}}}
            item[method.lower()] = op
        out[path] = item
    return out


__all__ = ["ROUTES", "analysis_paths", "analysis_routes"]
