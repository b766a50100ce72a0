"""The MCP Inspector's --strict tool-schema rules (inspector 2.12, lintToolSchemas), so
tests check a schema's portability without Node: mcpcast's generated schemas
(tests/mcpcast/test_schema_levels.py) and the service's tools/list
(tests/pacekeeper/test_tool_list_size.py)."""

from __future__ import annotations

from typing import Any


def portability_problems(schema: Any, path: str = "schema") -> list[str]:
    """Every place in ``schema`` the rules flag (empty: clean)."""
    found: list[str] = []
    _portability(schema, path, None, found)
    return found


def _portability(node: Any, path: str, keyword: str | None, found: list[str]) -> None:
    """The MCP Inspector's --strict tool-schema rules (inspector 2.12, lintToolSchemas):
    a bare boolean schema, a "type" array, a schema with no validation keyword (a bare
    {} or a description alone), a $ref outside the document."""
    if isinstance(node, bool):
        found.append(f"{path}: boolean schema")
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("type"), list):
        found.append(f"{path}: type array")
    ref = node.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        found.append(f"{path}: remote $ref")
    if keyword != "not" and not set(node) & CONSTRAINING:
        found.append(f"{path}: untyped schema")
    for key in ("properties", "patternProperties", "$defs", "dependentSchemas"):
        for name, sub in (node.get(key) or {}).items():
            _portability(sub, f"{path}.{key}.{name}", key, found)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, sub in enumerate(node.get(key) or []):
            _portability(sub, f"{path}.{key}[{index}]", key, found)
    for key in ("items", "additionalProperties", "not", "contains", "propertyNames", "if",
                "then", "else", "unevaluatedProperties", "unevaluatedItems"):
        if key in node and not (key in ("additionalProperties", "unevaluatedProperties",
                                        "unevaluatedItems") and isinstance(node[key], bool)):
            _portability(node[key], f"{path}.{key}", key, found)


CONSTRAINING = {
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "format", "contentMediaType",
    "contentEncoding", "contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "allOf",
    "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "properties",
    "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
    "dependentSchemas", "$ref"}
