"""``@mcp_server(schemas=...)``: how much of each tool's schemas a tools/list says.

``"full"`` (the default) is the generated schemas as they are (tests/mcpcast/test_schema.py).
``"compact"`` and ``"minimal"`` say less of the same tools: inputSchemas with arguments
without ``additionalProperties: false`` (unknown arguments still refused), outputSchemas as
an outline (each field's type, nested shapes as object/array) or as the list of the fields'
names. Each published schema is valid JSON Schema, an object schema (MCP), passes the MCP
Inspector's --strict rules, and every result the full schema accepts still validates.
"""

from __future__ import annotations

from typing import Any, NotRequired

import jsonschema  # type: ignore[import-untyped]
import pytest
from typing_extensions import TypedDict

from mcpcast import RegistrationError, mcp_server, tool
from mcpcast._registry import collect
from tests.mcpcast.strict_rules import portability_problems


class _Point(TypedDict):
    duration_s: int
    watts: float | None


class _Curve(TypedDict):
    summary: str
    kind: str
    best_w: float | None
    points: list[_Point]
    again: list[_Point]  # a shape used twice: a root $defs in the full schema
    days: list[str]
    by_sport: dict[str, _Point]
    sport: NotRequired[str]


def _server(schemas: Any) -> dict[str, dict[str, Any]]:
    @mcp_server("levels", schemas=schemas)
    class Levels:
        @tool()
        def curve(self, sport: str, days: int = 7) -> _Curve:
            return CURVE

        @tool()
        def today(self) -> _Point:
            return {"duration_s": 1, "watts": None}

    return {name: entry.listing for name, entry in collect(Levels(), ()).tools.items()}


CURVE: _Curve = {"summary": "2 points", "kind": "power", "best_w": None,
                 "points": [{"duration_s": 5, "watts": 901.5}, {"duration_s": 60, "watts": None}],
                 "again": [], "days": ["2026-12-01"], "by_sport": {"ride": {"duration_s": 5,
                                                                           "watts": 1.0}}}


def _valid(schema: dict[str, Any], *results: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert portability_problems(schema) == []
    for result in results:
        jsonschema.validate(result, schema, cls=jsonschema.Draft202012Validator)


def test_compact_outlines_each_field_with_its_type() -> None:
    full, compact = _server("full"), _server("compact")
    assert full["curve"]["outputSchema"]["$defs"]  # the rows are spelled out in full
    outline = compact["curve"]["outputSchema"]
    nullable = {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert outline == {"type": "object", "properties": {
        "summary": {"type": "string"}, "kind": {"type": "string"}, "best_w": nullable,
        "points": {"type": "array"}, "again": {"type": "array"},
        "days": {"type": "array", "items": {"type": "string"}},
        "by_sport": {"type": "object"}, "sport": {"type": "string"}}}
    _valid(outline, CURVE, {**CURVE, "sport": "ride", "undeclared": 1})
    for bad in ({**CURVE, "best_w": "1"}, {**CURVE, "days": [1]}, {**CURVE, "points": {}}):
        with pytest.raises(jsonschema.ValidationError):  # the types it keeps still bind
            jsonschema.validate(bad, outline, cls=jsonschema.Draft202012Validator)
    # A result's own shape at the top stays typed field by field.
    assert compact["today"]["outputSchema"] == {"type": "object", "properties": {
        "duration_s": {"type": "integer"}, "watts": nullable}}


def test_minimal_lists_the_fields_by_name() -> None:
    listing = _server("minimal")["curve"]["outputSchema"]
    assert listing == {"type": "object", "description": "Fields: summary, kind, best_w, "
                       "points, again, days, by_sport, sport."}
    _valid(listing, CURVE)


def test_inputs_say_no_additional_properties_only_without_arguments() -> None:
    """Outside "full", an inputSchema with arguments leaves out additionalProperties:
    false (a model gains nothing from it; the server still refuses an unknown argument),
    one without keeps it (MCP's recommended schema for a tool that takes nothing)."""
    for level in ("compact", "minimal"):
        tools = _server(level)
        assert tools["curve"]["inputSchema"] == {
            "type": "object", "properties": {"sport": {"type": "string"},
                                             "days": {"type": "integer", "default": 7}},
            "required": ["sport"]}
        assert tools["today"]["inputSchema"]["additionalProperties"] is False
    assert _server("full")["curve"]["inputSchema"]["additionalProperties"] is False


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(RegistrationError, match="schemas must be"):
        mcp_server("levels", schemas="tiny")  # type: ignore[arg-type]
