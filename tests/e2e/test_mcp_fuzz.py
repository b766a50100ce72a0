"""A hypothesis-driven JSON-RPC fuzzer against a real `pacekeeper serve`'s /mcp, signed
in with a real token: over HTTP in the handshake era (initialize, Mcp-Session-Id) and the
2026-07-28 stateless era (the `_meta` envelope, Mcp-Method/Mcp-Name headers), and over
WebSocket. Malformed JSON, wrong types, huge ids, batches, unknown methods, and tools/call
of every listed tool with arguments drawn from its inputSchema. Every answer is below 500,
a well-formed JSON-RPC result or error (never an internal error), free of tracebacks and of
the token; the service is ready afterwards (ERR-1, ERR-3). On SQLite and on PostgreSQL +
Redis, the second with fewer examples (tests/e2e/_fuzz_target.py)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.e2e._fuzz_target import (
    BACKENDS,
    Target,
    assert_clean_text,
    assert_healthy_afterwards,
    backend_env,
    fuzz_target,
)
from tests.e2e._jsonrpc_fuzz import (
    JSON_VALUES,
    LEGACY,
    META,
    MODERN,
    bodies,
    check_http_answer,
    check_message,
    from_json_schema,
    header_safe,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
# Bounded: the whole module runs in well under a minute per backend on this machine.
# Both backends run every example: these calls are cheap, and a smaller budget on
# PostgreSQL did not reach the tool that stores a drawn NUL (set_goal's name).
BODIES = 800
PER_TOOL = 25


def _budget(_target: Target, examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", params=BACKENDS)
def target(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with fuzz_target(tmp_path_factory.mktemp("mcp-fuzz"), "mcp-fuzz@example.com",
                     backend=request.param,
                     backing=backend_env(request, request.param)) as live:
        yield live


@pytest.fixture(scope="module")
def http(target: Target) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=target.url, timeout=30,
                      headers={**ACCEPT, "authorization": f"Bearer {target.token}"}) as client:
        yield client


@pytest.fixture(scope="module")
def session(http: httpx.Client) -> dict[str, str]:
    """A handshake-era session's headers, initialized."""
    init = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY[0], "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"}}})
    assert init.status_code == 200, init.text
    headers = {"mcp-session-id": init.headers["mcp-session-id"],
               "mcp-protocol-version": LEGACY[0]}
    done = http.post("/mcp", headers=headers,
                     json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert done.status_code == 202
    return headers


@pytest.fixture(scope="module")
def tools(http: httpx.Client, session: dict[str, str]) -> list[dict[str, Any]]:
    listed = http.post("/mcp", headers=session,
                       json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).json()
    assert len(listed["result"]["tools"]) >= 30
    return list(listed["result"]["tools"])


def _post(http: httpx.Client, target: Target, body: bytes,
          headers: dict[str, str]) -> list[Any]:
    answer = http.post("/mcp", content=body, headers=headers)
    return check_http_answer(answer.status_code, answer.headers.get("content-type", ""),
                             answer.text, body, (target.token,))


def _modern_headers(body: bytes) -> dict[str, str]:
    """The routing headers a 2026-07-28 client sends, copied from the body when it has them."""
    headers = {"mcp-protocol-version": MODERN}
    try:
        message = json.loads(body)
    except ValueError:
        return headers
    if isinstance(message, dict):
        if method := header_safe(message.get("method")):
            headers["mcp-method"] = method
        params = message.get("params")
        if isinstance(params, dict) and (name := header_safe(params.get("name"))):
            headers["mcp-name"] = name
    return headers


def test_handshake_era_answers_any_body(target: Target, http: httpx.Client,
                                        session: dict[str, str]) -> None:
    @_budget(target, BODIES)
    @given(body=bodies(modern=False), version=st.sampled_from(LEGACY))
    def run(body: bytes, version: str) -> None:
        _post(http, target, body, {**session, "mcp-protocol-version": version})

    run()
    assert_healthy_afterwards(target)


def test_stateless_era_answers_any_body(target: Target, http: httpx.Client) -> None:
    @_budget(target, BODIES)
    @given(body=bodies(modern=True))
    def run(body: bytes) -> None:
        _post(http, target, body, _modern_headers(body))

    run()
    assert_healthy_afterwards(target)


def _arguments(tool: dict[str, Any], target: Target) -> st.SearchStrategy[Any]:
    """Mostly arguments valid by the tool's inputSchema (ids of the person's activities
    among them), some of any shape."""
    ids = st.sampled_from(target.activity_ids)
    valid = from_json_schema(tool["inputSchema"], {
        "activity_id": ids, "activity_ids": st.lists(ids, min_size=1, max_size=2)})
    return st.one_of(valid, valid, valid, JSON_VALUES,
                     st.dictionaries(st.sampled_from(sorted(
                         tool["inputSchema"].get("properties", {})) or ["x"]), JSON_VALUES))


def _check_tool_answer(found: list[Any]) -> str:
    """How the call ended: "ok", "tool error" (isError) or "refused" (a JSON-RPC error)."""
    assert len(found) >= 1
    final = found[-1]
    if "error" in final:
        return "refused"
    assert isinstance(final["result"]["content"], list), final
    assert isinstance(final["result"].get("isError", False), bool), final
    return "tool error" if final["result"].get("isError") else "ok"


# Values PostgreSQL refuses where SQLite stores them: a NUL in text (SQLSTATE 22021), an
# integer past a 32-bit or a 64-bit column (22003). Random draws rarely put one into a
# call that otherwise succeeds, so each tool's first successful call is replayed with
# each of them in each plain text or unbounded integer argument.
EDGE_TEXT = "edge\x00text"
EDGE_INTEGERS = (2**31, 2**63)
# A successful call of the tools whose arguments depend on each other (a goal's kind
# decides which values it needs), which random draws seldom meet: the replay's base when
# the draws found none. Each must succeed as it stands.
KNOWN_GOOD: dict[str, dict[str, Any]] = {
    "set_goal": {"kind": "ftp", "value": 250},
}


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return list(schema.get("anyOf") or schema.get("oneOf") or [schema])


def _edge_arguments(tool: dict[str, Any], arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The successful `arguments`, once per edge value and argument it fits."""
    edges = []
    for name, schema in tool["inputSchema"].get("properties", {}).items():
        for branch in _branches(schema):
            if branch.get("type") == "string" and not {"enum", "pattern", "format",
                                                       "const"} & set(branch):
                room = branch.get("maxLength", len(EDGE_TEXT))
                edges.append({**arguments, name: EDGE_TEXT[:room] if room > 1 else "\x00"})
            if branch.get("type") == "integer" and "maximum" not in branch \
                    and "exclusiveMaximum" not in branch:
                edges += [{**arguments, name: value} for value in EDGE_INTEGERS]
    return edges


def _call_tool(target: Target, http: httpx.Client, session: dict[str, str], tool: str,
               arguments: Any, modern: bool, call_id: int) -> list[Any]:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    headers = dict(session)
    if modern:
        params["_meta"] = META
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call",
                   "mcp-name": tool}
    body = json.dumps({"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                       "params": params}).encode()
    return _post(http, target, body, headers)


def _fuzz_tool(target: Target, http: httpx.Client, session: dict[str, str],
               tool: dict[str, Any]) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    succeeded: list[dict[str, Any]] = []

    @_budget(target, PER_TOOL)
    @given(arguments=_arguments(tool, target), modern=st.booleans(), call_id=st.integers(1, 2**40))
    def run(arguments: Any, modern: bool, call_id: int) -> None:
        outcome = _check_tool_answer(_call_tool(target, http, session, tool["name"], arguments,
                                                modern, call_id))
        outcomes[outcome] += 1
        if outcome == "ok" and isinstance(arguments, dict) and not succeeded:
            succeeded.append(arguments)

    run()
    if not succeeded and tool["name"] in KNOWN_GOOD:
        base = KNOWN_GOOD[tool["name"]]
        found = _call_tool(target, http, session, tool["name"], base, False, 1)
        assert _check_tool_answer(found) == "ok", found
        succeeded.append(base)
    for edge in _edge_arguments(tool, succeeded[0]) if succeeded else []:
        found = _call_tool(target, http, session, tool["name"], edge, False, 1)
        outcome = _check_tool_answer(found)
        if outcome == "tool error":  # the caller's mistake, said as such: not a crash
            text = found[-1]["result"]["content"][0]["text"]
            assert "internal error" not in text, (tool["name"], edge, text)
        outcomes[f"edge {outcome}"] += 1
    return outcomes


def test_every_tool_called_with_fuzzed_arguments(target: Target, http: httpx.Client,
                                                 session: dict[str, str],
                                                 tools: list[dict[str, Any]]) -> None:
    """tools/call of each listed tool, in both eras, arguments from its inputSchema; then
    its first successful call again with a NUL or a huge integer in each argument that
    takes one (EDGE_TEXT, EDGE_INTEGERS): a result or the caller's error, never an
    internal one."""
    # The deleting tools last: until then the activities' ids lead somewhere.
    ordered = sorted(tools, key=lambda tool: tool["name"].startswith("delete_"))
    outcomes = {tool["name"]: _fuzz_tool(target, http, session, tool) for tool in ordered}
    # The drawn arguments get past validation into the tools, not only refusals: a tool
    # ran when it answered, even with its own error (an unknown id, a period with no
    # data). The draws are random, so the bars leave room: this run's answers, not a
    # fixed seed's, are what the fuzzer is for.
    reached = [name for name, seen in outcomes.items() if seen["ok"] or seen["tool error"]]
    assert len(reached) >= len(tools) * 3 // 4, outcomes
    answered = [name for name, seen in outcomes.items() if seen["ok"]]
    assert len(answered) >= len(tools) // 2, outcomes
    assert_healthy_afterwards(target)


def _exchange(ws: ClientConnection, frame: str | bytes, probe: int) -> list[Any]:
    """Send a frame, then a ping with a fresh id; every message before the ping's answer is
    the server's answer to the frame."""
    ws.send(frame)
    ws.send(json.dumps({"jsonrpc": "2.0", "id": f"probe-{probe}", "method": "ping"}))
    answers: list[Any] = []
    while True:
        message = json.loads(ws.recv(timeout=30))
        if isinstance(message, dict) and message.get("id") == f"probe-{probe}":
            check_message(message)
            return answers
        answers.append(message)


def test_websocket_answers_any_frame(target: Target) -> None:
    """Text and binary frames of any content on one authenticated socket: each answered
    with well-formed JSON-RPC, and the socket still serving afterwards."""
    url = target.url.replace("http://", "ws://") + "/mcp"
    counter = iter(range(10**9))
    with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                 additional_headers={"Authorization": f"Bearer {target.token}"},
                 max_size=2**24) as ws:
        _fuzz_socket(target, ws, counter)
    assert_healthy_afterwards(target)


def _fuzz_socket(target: Target, ws: ClientConnection, counter: Iterator[int]) -> None:
    try:
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY[0], "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"}}}))
        check_message(json.loads(ws.recv(timeout=30)), 0)
        ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

        @_budget(target, BODIES)
        @given(body=bodies(modern=False), as_text=st.booleans())
        def run(body: bytes, as_text: bool) -> None:
            frame: str | bytes = body.decode(errors="replace") if as_text else body
            for message in _exchange(ws, frame, next(counter)):
                assert_clean_text(json.dumps(message), (target.token,), "a WebSocket answer")
                check_message(message)

        run()
        tools = _exchange(ws, json.dumps({"jsonrpc": "2.0", "id": "last",
                                          "method": "tools/list"}), next(counter))
        assert any("tools" in m.get("result", {}) for m in tools), tools
    except ConnectionClosed as closed:
        pytest.fail(f"the server closed the socket: {closed}")
