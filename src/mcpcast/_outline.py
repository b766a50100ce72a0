"""A tool's outputSchema said as an outline: each field of the result and its type.

``@mcp_server(..., output_schemas="outline")`` publishes this instead of the full
schema. MCP asks one thing of an outputSchema: the ``structuredContent`` a tool returns
validates against it. An outline keeps every top-level field with its own schema when
that is a plain value (its type, enum, format, null or not) and says only ``object`` or
``array`` of a nested shape (an array keeps what its items are, outlined the same way);
a less detailed schema of the same results, so every result that validated still does.
What it saves: the rows of lists, curves and charts spelled out field by field in a
tools/list that rides along in every conversation of a model, which reads each row's
fields in the result itself.
"""

from __future__ import annotations

from typing import Any

__all__ = ["field_list", "outline"]

_NESTED = ("object", "array")


def outline(schema: dict[str, Any]) -> dict[str, Any]:
    """The outline of an outputSchema (``{"type": "object", "properties": ...}``, with
    the shapes used twice under a root ``$defs``, as mcpcast generates it)."""
    defs: dict[str, Any] = schema.get("$defs", {})
    out = {k: v for k, v in schema.items() if k not in ("properties", "$defs")}
    if "properties" in schema:
        out["properties"] = {name: _field(sub, defs, set())
                             for name, sub in schema["properties"].items()}
    if isinstance(schema.get("additionalProperties"), dict):
        out["additionalProperties"] = _field(schema["additionalProperties"], defs, set())
    return out


def field_list(schema: dict[str, Any]) -> dict[str, Any]:
    """The least an outputSchema can say and still tell a reader what a result holds: an
    object, and its fields' names in its description (units are in the names). Every
    result validates; a client learns no types from it."""
    names = list(schema.get("properties", {}))
    if not names:
        return outline(schema)  # a free-form object (dict): nothing to list
    said = schema.get("description")
    listed = "Fields: " + ", ".join(names) + "."
    return {"type": "object", "description": f"{said} {listed}" if said else listed}


def _field(node: Any, defs: dict[str, Any], seen: set[str]) -> Any:
    """One field: a plain value as it is, a nested object as its type, an array with its
    items outlined (``seen``: the definitions being expanded, so recursion ends)."""
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/"):]
        if name in defs and name not in seen:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return {**_field(defs[name], defs, seen | {name}), **rest}
        return {"type": "object"}  # a recursive shape: an object, as far as an outline goes
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            branches: list[Any] = []
            for branch in node[key]:
                outlined = _field(branch, defs, seen)
                if outlined not in branches:
                    branches.append(outlined)
            rest = {k: v for k, v in node.items() if k != key}
            return {**rest, key: branches} if len(branches) > 1 else {**rest, **branches[0]}
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        return {"type": "object", **_described(node)}
    if kind == "array":
        items = node.get("items")
        outlined_items = {"items": _field(items, defs, seen)} if isinstance(items, dict) else {}
        if outlined_items.get("items") == {"type": "object"}:
            # An array of rows: what each row holds is for the result to show; "items":
            # {"type": "object"} alone would cost every listing 24 bytes per array.
            outlined_items = {}
        return {"type": "array", **outlined_items, **_described(node)}
    return node


def _described(node: dict[str, Any]) -> dict[str, Any]:
    return {"description": node["description"]} if "description" in node else {}
