"""Hypothesis strategies for JSON-RPC traffic to /mcp, and the check every answer must
pass: a well-formed JSON-RPC response (or notification on a stream), never a 5xx, an
internal error, a traceback or the caller's token (ERR-1, ERR-3)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from tests.e2e._fuzz_target import assert_clean_text

MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26")
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}}
METHOD_NAMES = ("initialize", "ping", "tools/list", "tools/call", "prompts/list",
                "prompts/get", "resources/list", "resources/read", "resources/templates/list",
                "resources/subscribe", "resources/unsubscribe", "logging/setLevel",
                "completion/complete", "server/discover", "subscriptions/listen",
                "notifications/initialized", "notifications/cancelled", "tasks/get",
                "tasks/list", "tasks/cancel", "tasks/result")

_SCALARS = (st.none() | st.booleans() | st.integers()
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                 max_size=4),
    max_leaves=12)
IDS = st.one_of(
    st.integers(min_value=-(2**31), max_value=2**31), st.text(max_size=24),
    st.integers(min_value=2**53, max_value=2**200),  # beyond what a double holds exactly
    st.integers(max_value=-(2**53)), st.none(), st.booleans(), st.floats(allow_nan=False,
                                                                           allow_infinity=False),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=4), st.integers(),
                                                         max_size=2))
METHODS = st.sampled_from(METHOD_NAMES) | st.text(max_size=30)
PARAMS = st.dictionaries(st.sampled_from(["name", "arguments", "uri", "cursor", "_meta",
                                          "protocolVersion", "capabilities", "level", "x"])
                         | st.text(max_size=8), JSON_VALUES, max_size=5) | JSON_VALUES


@st.composite
def messages(draw: st.DrawFn, modern: bool) -> dict[str, Any]:
    """A JSON-RPC-shaped object: mostly right, any part of it possibly wrong."""
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0"])
                                               | JSON_VALUES)}
    if draw(st.integers(0, 9)):
        message["id"] = draw(IDS)
    if draw(st.integers(0, 19)):
        message["method"] = draw(METHODS)
    if draw(st.booleans()):
        params = draw(PARAMS)
        if modern and isinstance(params, dict) and draw(st.integers(0, 4)):
            params["_meta"] = META  # mostly a right envelope, so the method itself runs
        message["params"] = params
    if not draw(st.integers(0, 9)):
        message[draw(st.sampled_from(["result", "error", "extra"]))] = draw(JSON_VALUES)
    return message


def bodies(modern: bool) -> st.SearchStrategy[bytes]:
    """Raw bytes, any JSON, JSON-RPC-shaped objects and batches of them."""
    shaped = messages(modern)
    return st.one_of(
        st.binary(max_size=120),
        JSON_VALUES.map(lambda v: json.dumps(v).encode()),
        shaped.map(lambda m: json.dumps(m).encode()),
        shaped.map(lambda m: json.dumps(m).encode()),
        st.lists(shaped, max_size=4).map(lambda b: json.dumps(b).encode()),
        shaped.map(lambda m: json.dumps(m).encode()[: max(1, len(json.dumps(m)) // 2)]),
    )


def _with_nul(low: int, high: int) -> st.SearchStrategy[str]:
    """Text of a valid length with a NUL character in it: SQLite stores one, PostgreSQL
    refuses it (SQLSTATE 22021), so on PostgreSQL a caller's NUL that reaches a query
    must be their error, not a 500. Plain `st.text()` draws one too rarely for a small
    budget to reach the tool that stores the text."""
    if high < 1:
        return st.just("")
    return st.text(min_size=max(low, 1), max_size=high).flatmap(
        lambda t: st.integers(0, len(t) - 1).map(lambda i: t[:i] + "\x00" + t[i + 1:]))


def from_json_schema(schema: dict[str, Any],
                     known: dict[str, st.SearchStrategy[Any]] | None = None
                     ) -> st.SearchStrategy[Any]:
    """Values for the JSON Schema subset the tools' inputSchemas use (type, enum, anyOf,
    bounds, lengths, pattern, items, properties/required): mostly valid, and at the
    edges (bounds, empty strings) where handlers slip. Written here because
    hypothesis-jsonschema 0.23 does not run on this Hypothesis. `known` adds values to
    draw for properties of that name (real ids, so calls get past "no such ...")."""
    known = known or {}
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    if "anyOf" in schema or "oneOf" in schema:
        return st.one_of([from_json_schema(s, known)
                          for s in schema.get("anyOf") or schema.get("oneOf") or []])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_json_schema({**schema, "type": k}, known) for k in kind])
    if kind == "string":
        if "pattern" in schema:
            # ASCII: `\d` would draw any Unicode digit, which no date or id takes, so
            # nearly every draw stopped at the tool's own validation.
            return st.from_regex(schema["pattern"], fullmatch=True,
                                 alphabet=st.characters(codec="ascii")).filter(
                lambda t: schema.get("minLength", 0) <= len(t) <= schema.get("maxLength", 10**6))
        low, high = schema.get("minLength", 0), min(schema.get("maxLength", 40), 40)
        return st.text(min_size=low, max_size=high) | _with_nul(low, high)
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        if kind == "integer":
            return st.integers(min_value=None if low is None else int(low),
                               max_value=None if high is None else int(high))
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False,
                         exclude_min="exclusiveMinimum" in schema,
                         exclude_max="exclusiveMaximum" in schema)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_json_schema(schema.get("items", {}), known),
                        min_size=schema.get("minItems", 0),
                        max_size=min(schema.get("maxItems", 6), 6))
    if kind == "object" or "properties" in schema:
        # A known value two times in three, a drawn one otherwise.
        properties = {k: st.one_of(from_json_schema(v, known), known[k], known[k]) if k in known
                      else from_json_schema(v, known)
                      for k, v in schema.get("properties", {}).items()}
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {k: v for k, v in properties.items() if k in required},
            optional={k: v for k, v in properties.items() if k not in required})
    return JSON_VALUES


def header_safe(text: Any) -> str | None:
    """`text` when it can travel in an HTTP header as is, else None."""
    if isinstance(text, str) and text.isascii() and text.isprintable() and text.strip() == text:
        return text
    return None


def check_message(message: Any, sent_id: Any = None) -> None:
    """One JSON-RPC message from the server: a response (result xor error, a proper error
    object) or a notification; never an internal error."""
    assert isinstance(message, dict), message
    assert message.get("jsonrpc") == "2.0", message
    if "method" in message:  # a notification on a stream (progress, log)
        assert isinstance(message["method"], str) and "id" not in message, message
        return
    assert "id" in message, message
    assert ("result" in message) != ("error" in message), message
    if "error" in message:
        error = message["error"]
        assert isinstance(error, dict), message
        assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), \
            message
        assert error["code"] != -32603, message  # an internal error is a bug the fuzz found
    else:
        assert isinstance(message["result"], dict), message
    if sent_id is not None and message["id"] is not None:
        assert message["id"] == sent_id, (message, sent_id)


def _valid_id(message: Any) -> Any:
    if isinstance(message, dict):
        value = message.get("id")
        if isinstance(value, str) or (type(value) is int and abs(value) < 2**53):
            return value
    return None


def check_http_answer(status: int, content_type: str, text: str, sent: bytes,
                      secrets: tuple[str, ...]) -> list[Any]:
    """Any HTTP answer of /mcp: below 500, clean, and JSON-RPC in JSON or SSE (202 and an
    empty body for what needs no answer). The messages it held."""
    assert status < 500, (status, text[:500], sent[:300])
    assert_clean_text(text, secrets, f"an answer to {sent[:200]!r}")
    if status == 202 or (not text and status in (200, 204)):
        return []
    try:
        request = json.loads(sent)
    except ValueError:
        request = None
    sent_id = _valid_id(request)
    if content_type.startswith("text/event-stream"):
        found = [json.loads(line[5:]) for line in text.splitlines()
                 if line.startswith("data:") and line[5:].strip()]
        for message in found:
            check_message(message, sent_id)
        return found
    assert content_type.startswith("application/json"), (status, content_type, text[:300])
    answer = json.loads(text)
    found = answer if isinstance(answer, list) else [answer]
    for message in found:
        check_message(message, sent_id if not isinstance(answer, list) else None)
    return found


__all__ = ["JSON_VALUES", "LEGACY", "META", "MODERN", "bodies", "check_http_answer",
           "check_message", "from_json_schema", "header_safe", "messages"]
