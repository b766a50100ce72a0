"""Tidying the JSON Schemas pydantic generates for MCP clients (see ``_schema``'s
docstring for what and why): no titles, ``$defs`` inlined unless recursive or shared,
what JSON Schema says by default left out, no ``required`` in an outputSchema."""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import GenerateJsonSchema


class CleanJsonSchema(GenerateJsonSchema):
    def field_title_should_be_set(self, schema: Any) -> bool:
        return False  # "title": "A" next to property "a" only adds noise for clients


def tidy(schema: dict[str, Any], *, arguments: bool = False) -> dict[str, Any]:
    """Drop the root title, inline every non-recursive ``$defs`` entry and compact it
    (``arguments``: a schema of values sent to us, whose null defaults may be left out)."""
    defs: dict[str, Any] = schema.pop("$defs", {})
    schema.pop("title", None)
    recursive = {name for name in defs if name in _reachable(defs[name], defs, set())}
    # A shape used more than once stays one shared definition (its body said once).
    shared = {name for name, uses in _ref_counts(schema, defs).items() if uses > 1}
    recursive |= shared

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(item) for item in node]
        if not isinstance(node, dict):
            return node
        target = _ref_name(node)
        if target is not None and target in defs and target not in recursive:
            inlined = {k: v for k, v in resolve(defs[target]).items() if k != "title"}
            return {**inlined, **{k: resolve(v) for k, v in node.items() if k != "$ref"}}
        return {k: resolve(v) for k, v in node.items()}

    tidy: dict[str, Any] = resolve(schema)
    root = _ref_name(tidy)
    if root is not None and root in recursive:
        # A recursive type at the root: its body must be there (MCP wants "type": "object").
        body = {k: v for k, v in resolve(defs[root]).items() if k != "title"}
        tidy = {**body, **{k: v for k, v in tidy.items() if k != "$ref"}}
    if recursive:
        tidy["$defs"] = {name: {k: v for k, v in resolve(defs[name]).items() if k != "title"}
                         for name in sorted(recursive)}
    compact: dict[str, Any] = _compact(tidy, arguments)
    return compact


# Keywords whose value is one schema, a list of schemas, or a map of name -> schema: the
# walk below touches schemas only, never a property that happens to be named "default".
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not", "contains", "if", "then",
                        "else", "propertyNames", "unevaluatedProperties",
                        "unevaluatedItems", "contentSchema"})
_SUBSCHEMAS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "patternProperties", "dependentSchemas"})


def _compact(node: Any, arguments: bool) -> Any:
    """The same schema, said in fewer bytes (see the module's docstring)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _SUBSCHEMA and isinstance(value, dict):
            value = _compact(value, arguments)
            if value == {} and key in ("items", "additionalProperties"):
                continue  # any item / any extra key: JSON Schema's default
        elif key in _SUBSCHEMAS and isinstance(value, list):
            value = [_compact(v, arguments) for v in value]
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            optional = key == "properties" and arguments
            value = {name: _compact(_optional(v) if optional else v, arguments)
                     for name, v in value.items()}
        elif key == "additionalProperties" and value is True:
            continue
        elif key == "default" and value is None:
            continue  # left out, an optional value is None: saying so adds nothing
        out[key] = value
    return out


def _optional(prop: Any) -> Any:
    """An argument (or a field of one) that defaults to null: its plain type. A client
    leaves it out rather than send null; the validator still takes null."""
    if not isinstance(prop, dict) or "default" not in prop or prop["default"] is not None:
        return prop
    rest = {k: v for k, v in prop.items() if k != "default"}
    branches = rest.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        other = branches[1 - branches.index({"type": "null"})]
        if isinstance(other, dict) and not set(other) & (set(rest) - {"anyOf"}):
            return {**other, **{k: v for k, v in rest.items() if k != "anyOf"}}
    return rest


def results(schema: dict[str, Any]) -> dict[str, Any]:
    """An outputSchema says what each field of a result is, not which fields are always
    there: no ``required`` (at any depth). The result comes from the tool's own typed code,
    the schema's readers are models and clients' validators, and it rides along in every
    tools/list (a TypedDict's list of required keys repeats every property name)."""
    def strip(node: Any, in_map: bool = False) -> Any:
        if isinstance(node, list):
            return [strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        if in_map:  # a map of name -> schema: "required" here is a property's name
            return {k: strip(v) for k, v in node.items()}
        return {k: strip(v, k in _SCHEMA_MAPS) for k, v in node.items()
                if k != "required" or not isinstance(v, list)}
    stripped: dict[str, Any] = strip(schema)
    return stripped


def _ref_counts(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, int]:
    """How many times each definition is reached from ``schema`` once every definition
    used once is inlined (a definition inside a shared one counts once per use of it)."""
    counts: dict[str, int] = {}

    def visit(node: Any, trail: frozenset[str]) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item, trail)
        elif isinstance(node, dict):
            target = _ref_name(node)
            if target is not None and target in defs and target not in trail:
                counts[target] = counts.get(target, 0) + 1
                visit(defs[target], trail | {target})
            for key, value in node.items():
                if key != "$ref":
                    visit(value, trail)

    visit(schema, frozenset())
    return counts


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return ref[len("#/$defs/"):]
    return None


def _reachable(node: Any, defs: dict[str, Any], seen: set[str]) -> set[str]:
    """Names of the definitions reachable from ``node`` through ``$ref`` (``seen`` grows)."""
    if isinstance(node, list):
        for item in node:
            _reachable(item, defs, seen)
    elif isinstance(node, dict):
        target = _ref_name(node)
        if target is not None and target not in seen and target in defs:
            seen.add(target)
            _reachable(defs[target], defs, seen)
        for value in node.values():
            _reachable(value, defs, seen)
    return seen


__all__ = ["CleanJsonSchema", "results", "tidy"]
