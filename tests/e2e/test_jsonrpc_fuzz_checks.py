"""The fuzzers' own checks catch what they are there to catch (a checker that passes
everything would make tests/e2e/test_mcp_fuzz.py prove nothing)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from tests.e2e._jsonrpc_fuzz import check_http_answer, from_json_schema

OK = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}})
SENT = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


def test_a_well_formed_answer_passes() -> None:
    assert check_http_answer(200, "application/json", OK, SENT, ("secret",)) == [
        {"jsonrpc": "2.0", "id": 1, "result": {}}]
    assert check_http_answer(202, "", "", SENT, ()) == []


@pytest.mark.parametrize(("status", "text"), [
    (500, OK),
    (200, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}})),
    (200, json.dumps({"jsonrpc": "2.0", "id": 2, "result": {}})),  # not the id sent
    (200, json.dumps({"jsonrpc": "2.0", "id": 1,
                      "error": {"code": -32603, "message": "Internal error"}})),
    (200, json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}})),
    (400, json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": 'Traceback (most recent call last):\n  File "/x.py"'}})),
    (200, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"token": "secret"}})),
    (200, "not json"),
])
def test_a_bad_answer_fails(status: int, text: str) -> None:
    with pytest.raises((AssertionError, ValueError)):
        check_http_answer(status, "application/json", text, SENT, ("secret",))


SCHEMA = {"type": "object", "additionalProperties": False, "required": ["activity_id"],
          "properties": {"activity_id": {"type": "string", "minLength": 1, "maxLength": 64},
                         "limit": {"anyOf": [{"type": "integer", "minimum": 1,
                                              "maximum": 200}, {"type": "null"}]},
                         "sport": {"enum": ["run", "ride"]},
                         "day": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                         "durations_s": {"type": "array", "items": {"type": "integer"},
                                         "maxItems": 3}}}


@settings(max_examples=200, deadline=None, database=None)
@given(value=from_json_schema(SCHEMA))
def test_schema_strategy_draws_valid_values(value: object) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(value, SCHEMA)
