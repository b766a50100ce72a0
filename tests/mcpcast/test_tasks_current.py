"""The tasks extension on the 2026-07-28 wire (Streamable HTTP, in process).

The extension is declared per request (``_meta`` client capabilities); the task methods
carry ``Mcp-Name: <taskId>``; results carry ``resultType``; a tool may gather input in
input-required rounds and then go on as a task; an authenticated caller never reaches
another's task. The handshake era is in test_tasks.py (in memory) and, over Streamable
HTTP with a session, in the last test here.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from mcpcast import RequestInfo, Server
from mcpcast.protocol.tasks import EXTENSION
from tests.mcpcast.fixtures_tasks import Jobs
from tests.mcpcast.test_current_era import Wire, client_for

EXT: dict[str, Any] = {"elicitation": {}, "extensions": {EXTENSION: {}}}
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


async def _post(wire: Wire, method: str, params: dict[str, Any], *,
                caps: dict[str, Any] | None = None, user: str | None = None,
                headers: dict[str, str] | None = None) -> httpx.Response:
    sent = {"mcp-name": params["taskId"]} if method in TASK_METHODS else {}
    if user is not None:
        sent["x-user"] = user
    return await wire.post(method, params, caps=EXT if caps is None else caps,
                           headers={**sent, **(headers or {})})


async def _result(wire: Wire, method: str, params: dict[str, Any],
                  **kwargs: Any) -> dict[str, Any]:
    response = await _post(wire, method, params, **kwargs)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


async def _finished(wire: Wire, task_id: str, **kwargs: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        task = await _result(wire, "tasks/get", {"taskId": task_id}, **kwargs)
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        await asyncio.sleep(0.005)
    raise AssertionError(f"task {task_id} did not end")


async def test_a_task_over_the_stateless_wire() -> None:
    """MCP-5: the same task tool and methods serve the stateless era."""
    jobs = Jobs()
    async with client_for(Server(jobs)) as http:
        wire = Wire(http)
        discovered = await _result(wire, "server/discover", {})
        assert discovered["capabilities"]["extensions"] == {EXTENSION: {}}
        created = await _result(wire, "tools/call", {"name": "wait", "arguments": {}})
        assert created["resultType"] == "task"
        assert {"result", "error", "inputRequests", "requestState", "task"}.isdisjoint(created)
        jobs.release.set()
        done = await _finished(wire, created["taskId"])
        assert done["resultType"] == "complete" and done["status"] == "completed"
        plain = await _result(wire, "tools/call", {"name": "wait", "arguments": {}},
                              caps={})
        assert plain["resultType"] == "complete" and plain["content"]


async def test_task_methods_check_the_routing_name() -> None:
    """MCP-3: Mcp-Name must name the body's taskId (400 + -32020 otherwise)."""
    async with client_for(Server(Jobs())) as http:
        wire = Wire(http)
        task_id = (await _result(wire, "tools/call", {"name": "wait", "arguments": {}}))[
            "taskId"]
        wrong = await _post(wire, "tasks/get", {"taskId": task_id},
                            headers={"mcp-name": "someone-else"})
        assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32020
        missing = await wire.post("tasks/get", {"taskId": task_id}, caps=EXT)
        assert missing.status_code == 400 and missing.json()["error"]["code"] == -32020
        gated = await _post(wire, "tasks/get", {"taskId": task_id}, caps={})
        assert gated.status_code == 400 and gated.json()["error"]["code"] == -32021
        removed = await wire.post("tasks/result", {"taskId": task_id}, caps=EXT)
        assert removed.status_code == 404 and removed.json()["error"]["code"] == -32601
        await _result(wire, "tasks/cancel", {"taskId": task_id})


async def test_input_required_rounds_then_a_task() -> None:
    """A task_start="tool" tool asks in the call's own rounds, then returns a task handle
    whose result reflects the answer (and carries no requestState)."""
    jobs = Jobs()
    async with client_for(Server(jobs)) as http:
        wire = Wire(http)
        params: dict[str, Any] = {"name": "ask_then_task", "arguments": {}}
        first = await _result(wire, "tools/call", params)
        assert first["resultType"] == "input_required" and "taskId" not in first
        assert list(first["inputRequests"]) == ["user_name"]
        second = await _result(wire, "tools/call", {
            **params, "requestState": first["requestState"],
            "inputResponses": {"user_name": {"action": "accept",
                                             "content": {"name": "Alice"}}}})
        assert second["resultType"] == "task" and "requestState" not in second
        jobs.release.set()
        done = await _finished(wire, second["taskId"])
    assert done["result"]["content"][0]["text"] == "Hello, Alice! task=True"


async def test_an_authenticated_caller_never_reaches_another_callers_task() -> None:
    """Over HTTP with an authentication hook: bob gets -32602 for alice's task on every
    task method, and alice's task runs on untouched."""
    async def authenticate(info: RequestInfo) -> str | None:
        return info.headers.get("x-user")

    jobs = Jobs()
    async with client_for(Server(jobs, authenticate=authenticate)) as http:
        wire = Wire(http)
        task_id = (await _result(wire, "tools/call", {"name": "wait", "arguments": {}},
                                 user="alice"))["taskId"]
        for method, extra in (("tasks/get", {}), ("tasks/cancel", {}),
                              ("tasks/update", {"inputResponses": {}})):
            stolen = await _post(wire, method, {"taskId": task_id, **extra}, user="bob")
            assert stolen.status_code == 400, stolen.text
            assert stolen.json()["error"] == {"code": -32602,
                                              "message": f"Unknown task: {task_id}",
                                              "data": {"taskId": task_id}}
        jobs.release.set()
        done = await _finished(wire, task_id, user="alice")
    assert done["status"] == "completed" and jobs.cancelled == 0


async def test_a_task_over_handshake_era_streamable_http() -> None:
    """MCP-5: the extension declared at initialize serves a session's calls over HTTP."""
    jobs = Jobs()
    accept = {"accept": "application/json, text/event-stream",
              "content-type": "application/json"}
    async with client_for(Server(jobs)) as http:
        init = await http.post("http://127.0.0.1:8000/mcp", headers=accept, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {"extensions": {
                    EXTENSION: {}}}, "clientInfo": {"name": "t", "version": "1"}}})
        assert init.json()["result"]["capabilities"]["extensions"] == {EXTENSION: {}}
        session = {**accept, "mcp-session-id": init.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-11-25"}
        await http.post("http://127.0.0.1:8000/mcp", headers=session,
                        json={"jsonrpc": "2.0", "method": "notifications/initialized"})

        async def rpc(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
            response = await http.post("http://127.0.0.1:8000/mcp", headers=session, json={
                "jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            assert response.status_code == 200, response.text
            result: dict[str, Any] = response.json()["result"]
            return result

        created = await rpc(2, "tools/call", {"name": "wait", "arguments": {"label": "h"}})
        assert created["resultType"] == "task"
        jobs.release.set()
        for rid in range(3, 400):
            task = await rpc(rid, "tasks/get", {"taskId": created["taskId"]})
            if task["status"] != "working":
                break
            await asyncio.sleep(0.005)
    assert task["status"] == "completed"
    assert task["result"]["content"][0]["text"] == "released h"
