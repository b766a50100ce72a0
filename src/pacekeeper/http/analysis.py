"""The analysis over HTTP for the web pages: the HTTP twin of each analysis tool, served by
one generic route that calls the tool in process (mcpcast's ``call_tool``, as A2A does),
for the caller only. A twin's answer is the tool's ``structuredContent``, so the two cannot
drift apart.

Query parameters are the tool's arguments by their wire names (an array comma-separated),
validated by the tool's own input schema: a bad one is 400 ``validation_error`` naming
it. A POST's JSON body is the arguments. The OpenAPI of every twin is derived from the
tool's input and output schemas (``analysis_paths``), never written by hand.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mcpcast import ProtocolError, Server
from mcpcast.protocol.exchange import Exchange
from mcpcast.protocol.session import Session
from mcpcast.protocol.versions import LATEST_LEGACY
from pacekeeper._openapi_parts import ERROR as _ERROR
from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.http._common import JSONResponse, read_json_object, services
from pacekeeper.tools._analysis_base import failures

# Each twin: its path, and per method the tool it answers with. A ``{name}`` of the path
# that is not one of the tool's arguments picks the tool (``get_{kind}_curve``).
TWINS: dict[str, dict[str, str]] = {
    "/api/training-summary": {"GET": "get_training_summary"},
    "/api/fitness-chart": {"GET": "get_fitness_chart"},
    "/api/curves/{kind}": {"GET": "get_{kind}_curve"},
    "/api/best-efforts": {"GET": "get_best_efforts"},
    "/api/critical-power": {"GET": "estimate_critical_power"},
    "/api/ftp-estimate": {"GET": "estimate_ftp"},
    "/api/zones": {"GET": "calculate_zones"},
    "/api/zone-distribution": {"GET": "get_zone_distribution"},
    "/api/load-risk": {"GET": "get_load_risk"},
    "/api/readiness": {"GET": "get_readiness"},
    "/api/recovery": {"GET": "get_recovery_status"},
    "/api/weekly-load": {"GET": "get_weekly_load"},
    "/api/patterns": {"GET": "detect_patterns"},
    "/api/period-summary": {"GET": "get_period_summary"},
    "/api/vo2max": {"GET": "estimate_vo2max"},
    "/api/activities/{activity_id}/analysis": {"GET": "analyze_activity"},
    "/api/activities/{activity_id}/wbal": {"GET": "get_wbal"},
    "/api/compare-activities": {"GET": "compare_activities"},
    "/api/compare-periods": {"GET": "compare_periods"},
    "/api/training-week": {"GET": "suggest_training_week"},
    "/api/race-prediction": {"GET": "predict_race_time"},
    "/api/training-paces": {"GET": "get_training_paces"},
    "/api/goals": {"GET": "get_goals", "POST": "set_goal"},
    "/api/goals/{goal_id}": {"DELETE": "delete_goal"},
    "/api/goals/{goal_id}/feasibility": {"GET": "goal_feasibility"},
}


def _names(template: str) -> list[str]:
    """The ``{name}``s of a path or a tool name template."""
    return re.findall(r"\{(\w+)\}", template)


def _choices(template: str, name: str, tools: Mapping[str, Any]) -> list[str]:
    """The values of a path's ``{name}`` that pick a tool (``power``, ``hr``, ``pace``)."""
    head, _, tail = template.partition("{" + name + "}")
    return sorted(t[len(head):len(t) - len(tail)] for t in tools
                  if t.startswith(head) and t.endswith(tail) and len(t) > len(head + tail))


def _types(schema: Mapping[str, Any]) -> set[str]:
    found = {schema["type"]} if isinstance(schema.get("type"), str) else set()
    for option in schema.get("anyOf", ()):
        found |= _types(option)
    return found


def _array_items(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    if schema.get("type") == "array":
        items: Mapping[str, Any] = schema.get("items", {})
        return items
    for option in schema.get("anyOf", ()):
        if option.get("type") == "array":
            return _array_items(option)
    return {}


def _coerce(schema: Mapping[str, Any], text: str) -> Any:
    """A query value as the JSON type its schema names; what does not parse stays text,
    so the tool's validation refuses it with its own message."""
    kinds = _types(schema)
    if "array" in kinds:
        item = _array_items(schema)
        return [_coerce(item, part.strip()) for part in text.split(",") if part.strip()]
    if "integer" in kinds:
        try:
            return int(text)
        except ValueError:
            pass
    if "number" in kinds:
        try:
            value = float(text)
        except ValueError:
            return text
        return value if math.isfinite(value) else text  # NaN and inf are not numbers here
    if "boolean" in kinds and text in ("true", "false"):
        return text == "true"
    return text


def _arguments(request: Request, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's arguments from the path and the query string (unknown query parameters
    are ignored, as a cache buster; an argument given empty is refused: its schema has no
    empty value, and a client that meant "leave it out" should leave it out)."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    found: dict[str, Any] = {}
    for name, value in request.path_params.items():
        if name in properties:
            found[name] = value
    for name, prop in properties.items():
        text = request.query_params.get(name)
        if text == "":
            raise ValidationFailed(f"{name} is empty: give a value or leave it out")
        if text is not None and name not in found:
            found[name] = _coerce(prop, text)
    return found


def _tool_name(template: str, request: Request, tools: Mapping[str, Any]) -> str:
    name = template.format(**request.path_params)
    if name not in tools:  # a path's {name} that picks no tool
        param = _names(template)[0]
        choices = _choices(template, param, tools)
        raise ValidationFailed(f"{param} must be one of {', '.join(choices)}")
    return name


def _said(exc: ProtocolError) -> str:
    """A refused argument as the HTTP routes have always said it: a domain check's own
    reason after the argument's name ("from must be a date from ..."); any other
    validation error (a type, a bound, a pattern) as the tool's message."""
    argument = exc.data.get("argument") if isinstance(exc.data, dict) else None
    head = f"Invalid argument {argument!r}: Value error, "
    if isinstance(argument, str) and exc.message.startswith(head):
        return f"{argument} {exc.message.removeprefix(head)}"
    return exc.message


def twin(server: Server, methods: Mapping[str, str]) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of one path: the caller resolved (as every API route), then the tool
    called in process with them as the principal (the tool's ``owner``)."""
    tools = server.registry.tools

    async def run(request: Request) -> Response:
        principal = await services(request).resolver.require(request.method, request.headers)
        name = _tool_name(methods[request.method], request, tools)
        schema = tools[name].listing["inputSchema"]
        if request.method == "POST":
            arguments = await read_json_object(request)
        else:
            arguments = _arguments(request, schema)
        # The person's own API: the tool's owner sees all their data (no provider's
        # assistant terms apply to it; pacekeeper.mcp._caller).
        exchange = Exchange(Session(None, LATEST_LEGACY), f"http-{secrets.token_hex(6)}",
                            principal._replace(direct=True))
        with failures() as failed:
            try:
                result = await server.methods.call_tool(
                    {"name": name, "arguments": arguments}, exchange)
            except ProtocolError as exc:  # bad arguments: the message names the argument
                raise ValidationFailed(_said(exc)) from None
        if result.get("isError"):
            if failed:  # the service's refusal (its status: 404 not_found) or a failure
                raise failed[0]  # (a database out of reach: the app's 503), as before
            # Neither (the tool ran out of time): not the caller's doing.
            raise ApiError(result["content"][0]["text"], code="internal_error", status=500)
        headers = principal.rate.headers() if principal.rate else {}
        return JSONResponse(result["structuredContent"], headers=headers)

    return run


def analysis_routes(server: Server) -> list[BaseRoute]:
    return [TwinRoute(path, twin(server, methods), methods=list(methods),
                      openapi=_path_item(path, methods, server.registry.tools))
            for path, methods in TWINS.items()]


class TwinRoute(Route):
    """A twin's route, carrying its OpenAPI path item (derived from its tools)."""

    def __init__(self, path: str, endpoint: Callable[[Request], Awaitable[Response]], *,
                 methods: list[str], openapi: dict[str, Any]) -> None:
        super().__init__(path, endpoint, methods=methods)
        self.openapi = openapi


# -- OpenAPI ------------------------------------------------------------------------------


def _inline(schema: Any, defs: Mapping[str, Any]) -> Any:
    """A tool schema with its ``#/$defs/...`` references inlined (they resolve against
    the tool's schema, not the OpenAPI document; the shapes are not recursive)."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline(v, defs) for v in schema]
    return schema


def _full_output(entry: Any) -> dict[str, Any]:
    """The result's whole typed schema (tools/list publishes only its field names, to
    keep every conversation's list small; the OpenAPI document can say it all)."""
    schema: dict[str, Any] | None = entry.signature.output_schema
    if schema is None:
        return {"type": "object"}
    inlined: dict[str, Any] = _inline(schema, schema.get("$defs", {}))
    return inlined


def _parameters(path: str, schema: Mapping[str, Any], choices: Mapping[str, Sequence[str]]
                ) -> list[dict[str, Any]]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    out: list[dict[str, Any]] = []
    for name in _names(path):
        if name in properties:
            prop = dict(properties[name])
            out.append({"name": name, "in": "path", "required": True,
                        "description": prop.pop("description", name), "schema": prop})
        else:
            out.append({"name": name, "in": "path", "required": True,
                        "schema": {"type": "string", "enum": list(choices[name])}})
    for name, prop in properties.items():
        if name in _names(path):
            continue
        prop = dict(prop)
        param: dict[str, Any] = {"name": name, "in": "query", "required": name in required}
        if "description" in prop:
            param["description"] = prop.pop("description")
        param["schema"] = prop
        if "array" in _types(prop):
            param["style"], param["explode"] = "form", False  # a,b,c
        out.append(param)
    return out


def _merged(params: list[dict[str, Any]], others: list[list[dict[str, Any]]]
            ) -> list[dict[str, Any]]:
    """One path's parameters for several tools of one argument list: an argument whose
    schema differs between them takes each (``anyOf``)."""
    out = []
    for param in params:
        schemas = [param["schema"]]
        for other in others:
            for candidate in other:
                if candidate["name"] == param["name"] and candidate["schema"] not in schemas:
                    schemas.append(candidate["schema"])
        out.append({**param, "schema": schemas[0] if len(schemas) == 1 else
                    {"anyOf": schemas}})
    return out


def _path_item(path: str, methods: Mapping[str, str], tools: Mapping[str, Any]
               ) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for method, template in methods.items():
        picks = {n: _choices(template, n, tools) for n in _names(path)
                 if "{" + n + "}" in template}
        names = ([template.format(**{n: c}) for n, cs in picks.items() for c in cs]
                 or [template])
        listing = tools[names[0]].listing
        schema = _inline(listing["inputSchema"], listing["inputSchema"].get("$defs", {}))
        output = _full_output(tools[names[0]])
        params = _parameters(path, schema, picks)
        if len(names) > 1:  # one path, several tools (by kind): each argument's schemas
            params = _merged(params, [_parameters(path, _inline(
                tools[n].listing["inputSchema"], tools[n].listing["inputSchema"].get(
                    "$defs", {})), picks) for n in names[1:]])
            # anyOf, not oneOf: an empty curve (or a point with every figure) is each.
            output = {"anyOf": [_full_output(tools[n]) for n in names]}
        op: dict[str, Any] = {
            "summary": f"The result of the MCP tool {', '.join(names)}",
            "security": _AUTH,
            # A POST's arguments are its body: only the path's parameters here.
            "parameters": [p for p in params if method != "POST" or p["in"] == "path"],
            "responses": {
                "200": {"description": f"as {names[0]} (structuredContent)",
                        "content": {"application/json": {"schema": output}}},
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
                "schema": _nullable_optionals(schema)}}}
        item[method.lower()] = op
    return item


def _nullable_optionals(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A body's schema as the tool takes it: tools/list advertises an optional argument
    as its plain type (mcpcast's compact schemas), and the tool takes null for it too
    (left out or null, it is None); an HTTP client is told both."""
    required = set(schema.get("required", ()))
    properties = {name: prop if name in required else {"anyOf": [prop, {"type": "null"}]}
                  for name, prop in schema.get("properties", {}).items()}
    return {**schema, "properties": properties}


def analysis_paths(routes: Sequence[BaseRoute]) -> dict[str, Any]:
    """OpenAPI path items of the twins among an app's routes: each names its tool."""
    return {r.path: r.openapi for r in routes if isinstance(r, TwinRoute)}


__all__ = ["TWINS", "TwinRoute", "analysis_paths", "analysis_routes", "twin"]
