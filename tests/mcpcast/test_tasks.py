"""The tasks extension (``io.modelcontextprotocol/tasks``) in the handshake era, in memory.

A client that declared the extension gets a task handle for a ``@tool(task=...)`` call
and polls ``tasks/get``; ``tasks/update`` answers the task's questions, ``tasks/cancel``
stops it; one caller never sees another's tasks. The 2026-07-28 wire is in
test_tasks_current.py and the conformance suite's tasks scenarios in
tests/e2e/test_conformance.py.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from mcpcast import RegistrationError, Server, ServerConfig, mcp_server, tool
from mcpcast.protocol.tasks import EXTENSION
from mcpcast.tasks import MemoryTaskStore, TaskRecord
from mcpcast.testing import RemoteError, TestClient
from tests.mcpcast.fixtures_tasks import Jobs

EXT: dict[str, Any] = {"extensions": {EXTENSION: {}}}


async def _finished(client: TestClient, task_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        task: dict[str, Any] = await client.request("tasks/get", {"taskId": task_id})
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        await asyncio.sleep(0.005)
    raise AssertionError(f"task {task_id} did not end")


async def _status(client: TestClient, task_id: str, wanted: str) -> dict[str, Any]:
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        task: dict[str, Any] = await client.request("tasks/get", {"taskId": task_id})
        if task["status"] == wanted:
            return task
        await asyncio.sleep(0.005)
    raise AssertionError(f"task {task_id} never became {wanted}")


def _client(server: Server, **kwargs: Any) -> TestClient:
    return TestClient(server, capabilities=EXT, **kwargs)


async def test_listing_and_capabilities_declare_the_extension() -> None:
    server = Server(Jobs())
    async with _client(server) as client:
        assert client.initialize_result["capabilities"]["extensions"] == {EXTENSION: {}}
        assert "tasks" not in client.initialize_result["capabilities"]  # not the v1 slot
        tools = {t["name"]: t for t in await client.list_tools()}
    assert tools["wait"]["execution"] == {"taskSupport": "optional"}
    assert tools["tool_error"]["execution"] == {"taskSupport": "required"}
    assert "execution" not in tools["greet"]

    @mcp_server(name="plain")
    class Plain:
        @tool(description="x")
        def x(self) -> str:
            return "x"
    async with _client(Server(Plain())) as client:
        assert "extensions" not in client.initialize_result["capabilities"]
        with pytest.raises(RemoteError) as absent:  # no task tools: no tasks/* methods
            await client.request("tasks/get", {"taskId": "x"})
        assert absent.value.code == -32601


async def test_a_task_runs_to_completion_and_its_result_is_inlined() -> None:
    jobs = Jobs()
    async with _client(Server(jobs)) as client:
        created = await client.call_tool("wait", {"label": "one"})
        assert created["resultType"] == "task"
        assert set(created) == {"resultType", "taskId", "status", "createdAt",
                                "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
        assert created["status"] == "working"
        assert created["ttlMs"] == 3_600_000 and created["pollIntervalMs"] == 1000
        assert created["createdAt"].endswith("Z")
        working = await client.request("tasks/get", {"taskId": created["taskId"]})
        assert working["status"] == "working" and working["resultType"] == "complete"
        assert "result" not in working and "error" not in working
        jobs.release.set()
        done = await _finished(client, created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["content"] == [{"type": "text", "text": "released one"}]
    assert done["result"]["isError"] is False
    assert "_meta" not in done["result"]  # no v1 related-task key: the id is at the root
    assert jobs.done == 1


async def test_tool_errors_complete_with_is_error_and_protocol_errors_fail() -> None:
    """MCP-4: a crash inside a task reads as a short message, never a traceback."""
    async with _client(Server(Jobs())) as client:
        failed_tool = await _finished(client, (await client.call_tool("tool_error"))["taskId"])
        failed_protocol = await _finished(
            client, (await client.call_tool("protocol_error"))["taskId"])
        crashed = await _finished(client, (await client.call_tool("crash"))["taskId"])
    assert failed_tool["status"] == "completed"
    assert failed_tool["result"]["isError"] is True
    assert failed_tool["result"]["content"][0]["text"] == "bad input"
    assert failed_protocol["status"] == "failed" and "result" not in failed_protocol
    assert failed_protocol["error"] == {"code": -32603, "message": "worker lost"}
    assert failed_protocol["statusMessage"] == "worker lost"
    assert crashed["status"] == "failed"
    assert crashed["error"] == {"code": -32603,
                                "message": "Tool 'crash' failed with an internal error"}
    assert "passwd" not in str(crashed)


async def test_cancel_stops_the_tool_and_is_idempotent() -> None:
    jobs = Jobs()
    async with _client(Server(jobs)) as client:
        task_id = (await client.call_tool("wait"))["taskId"]
        await asyncio.sleep(0.01)  # let the tool start waiting
        ack = await client.request("tasks/cancel", {"taskId": task_id})
        assert ack == {"resultType": "complete"}
        task = await client.request("tasks/get", {"taskId": task_id})
        assert task["status"] == "cancelled"
        await asyncio.sleep(0.01)
        assert jobs.cancelled == 1
        assert await client.request("tasks/cancel", {"taskId": task_id}) == ack
        jobs.release.set()
        await asyncio.sleep(0.01)
        assert (await client.request("tasks/get", {"taskId": task_id}))["status"] == "cancelled"
    assert jobs.done == 0


async def test_questions_wait_in_the_task_until_tasks_update_answers_them() -> None:
    async with _client(Server(Jobs()), elicitation=_never) as client:
        task_id = (await client.call_tool("two_questions"))["taskId"]
        waiting = await _status(client, task_id, "input_required")
        assert set(waiting["inputRequests"]) == {"name", "ok"}
        assert waiting["inputRequests"]["name"]["method"] == "elicitation/create"
        assert client.server_requests == []  # never asked on a stream: it waits in the task
        with pytest.raises(RemoteError) as bad:
            await client.request("tasks/update", {"taskId": task_id,
                                                  "inputResponses": {"name": {"no": 1}}})
        assert bad.value.code == -32602
        ack = await client.request("tasks/update", {"taskId": task_id, "inputResponses": {
            "name": {"action": "accept", "content": {"name": "Ada"}},
            "unknown": {"ignored": True}}})
        assert ack == {"resultType": "complete"}
        partial = await client.request("tasks/get", {"taskId": task_id})
        assert partial["status"] == "input_required"
        assert set(partial["inputRequests"]) == {"ok"}
        await client.request("tasks/update", {"taskId": task_id, "inputResponses": {
            "ok": {"action": "accept", "content": {"ok": True}}}})
        done = await _finished(client, task_id)
    assert done["result"]["content"][0]["text"] == "Ada True"


async def test_a_question_key_is_never_reused_within_a_task() -> None:
    async with _client(Server(Jobs()), elicitation=_never) as client:
        task_id = (await client.call_tool("twice"))["taskId"]
        keys = []
        for answer in (True, False):
            waiting = await _status(client, task_id, "input_required")
            keys.append(list(waiting["inputRequests"]))
            await client.request("tasks/update", {"taskId": task_id, "inputResponses": {
                keys[-1][0]: {"action": "accept", "content": {"ok": answer}}}})
        done = await _finished(client, task_id)
    assert keys == [["again"], ["again.2"]]
    assert done["result"]["content"][0]["text"] == "True False"


async def _never(params: dict[str, Any]) -> dict[str, Any]:
    raise AssertionError("a task's question went to the call's stream")


async def test_without_the_extension_a_call_is_ordinary_or_refused() -> None:
    """MCP-3: -32021 names the missing extension; tasks/* are refused the same way."""
    jobs = Jobs()
    jobs.release.set()
    async with TestClient(Server(jobs)) as client:
        plain = await client.call_tool("wait", {"label": "sync"})
        assert plain["content"][0]["text"] == "released sync"
        assert "resultType" not in plain and "taskId" not in plain
        with pytest.raises(RemoteError) as refused:
            await client.call_tool("tool_error")
        assert refused.value.code == -32021
        assert refused.value.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            with pytest.raises(RemoteError) as gated:
                await client.request(method, {"taskId": "x", "inputResponses": {}})
            assert gated.value.code == -32021
        # One request may opt in through its _meta client capabilities.
        opted = await client.request("tools/call", {
            "name": "wait", "arguments": {},
            "_meta": {"io.modelcontextprotocol/clientCapabilities": EXT}})
        assert opted["resultType"] == "task"


async def test_unknown_tasks_and_the_removed_v1_methods() -> None:
    async with _client(Server(Jobs())) as client:
        with pytest.raises(RemoteError) as unknown:
            await client.request("tasks/get", {"taskId": "nope"})
        assert unknown.value.code == -32602
        with pytest.raises(RemoteError) as missing:
            await client.request("tasks/get", {})
        assert missing.value.code == -32602
        for removed in ("tasks/result", "tasks/list"):
            with pytest.raises(RemoteError) as gone:
                await client.request(removed, {"taskId": "nope"})
            assert gone.value.code == -32601
        # The v1 `task` hint neither errs nor makes an ordinary tool a task.
        greeted = await client.request("tools/call", {"name": "greet",
                                                      "arguments": {"name": "v1"},
                                                      "task": {"ttl": 60000}})
        assert greeted["content"][0]["text"] == "Hello, v1!" and "taskId" not in greeted


async def test_one_caller_never_sees_another_callers_task() -> None:
    """No path shows one person's task to another: get, update and cancel all answer
    as for an unknown task, and the owner's task runs on untouched."""
    jobs = Jobs()
    server = Server(jobs, identify=lambda p: p)
    async with _client(server, principal="alice", elicitation=_never) as alice, \
            _client(server, principal="bob") as bob:
        task_id = (await alice.call_tool("two_questions"))["taskId"]
        await _status(alice, task_id, "input_required")
        for method, params in (
                ("tasks/get", {}), ("tasks/cancel", {}),
                ("tasks/update", {"inputResponses": {
                    "name": {"action": "accept", "content": {"name": "Mallory"}}}})):
            with pytest.raises(RemoteError) as refused:
                await bob.request(method, {"taskId": task_id, **params})
            assert refused.value.code == -32602
            assert refused.value.message == f"Unknown task: {task_id}"
        still = await alice.request("tasks/get", {"taskId": task_id})
        assert still["status"] == "input_required" and set(still["inputRequests"]) == {
            "name", "ok"}
        assert bob.server_stream() == []  # bob's stream heard nothing of alice's task
        assert any(m["params"]["taskId"] == task_id for m in alice.server_stream())


async def test_status_changes_are_announced_on_the_creating_session() -> None:
    jobs = Jobs()
    async with _client(Server(jobs)) as client:
        task_id = (await client.call_tool("wait"))["taskId"]
        jobs.release.set()
        await _finished(client, task_id)
        heard = [m for m in client.server_stream()
                 if m["method"] == "notifications/tasks"]
    assert [m["params"]["status"] for m in heard] == ["working", "completed"]
    assert heard[-1]["params"]["result"]["content"][0]["text"] == "released x"


async def test_progress_becomes_the_status_message() -> None:
    jobs = Jobs()
    async with _client(Server(jobs)) as client:
        task_id = (await client.call_tool("reporting"))["taskId"]
        await asyncio.sleep(0.01)
        task = await client.request("tasks/get", {"taskId": task_id})
        assert task["statusMessage"] == "half way"
        jobs.release.set()
        await _finished(client, task_id)


async def test_a_tool_may_ask_within_the_call_and_then_start_its_task() -> None:
    async def answer(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}
    jobs = Jobs()
    async with _client(Server(jobs), elicitation=answer) as client:
        created = await client.call_tool("ask_then_task")
        assert created["resultType"] == "task"
        assert [r["method"] for r in client.server_requests] == ["elicitation/create"]
        jobs.release.set()
        done = await _finished(client, created["taskId"])
    assert done["result"]["content"][0]["text"] == "Hello, Ada! task=True"


async def test_a_sync_task_tool_runs_in_a_thread() -> None:
    """Even its first call: a task tool is expected to take long (never on the loop)."""
    jobs = Jobs()
    async with _client(Server(jobs)) as client:
        done = await _finished(client, (await client.call_tool("sync_job", {"n": 21}))["taskId"])
    assert done["result"]["content"][0]["text"] == "42"
    assert jobs.threads and threading.get_ident() not in jobs.threads


async def test_bad_arguments_are_refused_before_a_task_exists() -> None:
    """MCP-3: -32602 on the call itself, not a failed task."""
    async with _client(Server(Jobs())) as client:
        with pytest.raises(RemoteError) as bad:
            await client.call_tool("sync_job", {"n": "many"})
    assert bad.value.code == -32602


async def test_running_tasks_per_caller_are_bounded() -> None:
    jobs = Jobs()
    server = Server(jobs, config=ServerConfig(max_running_tasks_per_principal=2))
    async with _client(server) as client:
        for _ in range(2):
            await client.call_tool("wait")
        with pytest.raises(RemoteError) as full:
            await client.call_tool("wait")
        assert full.value.code == -32600
        jobs.release.set()
        await asyncio.sleep(0.02)
        assert (await client.call_tool("wait"))["resultType"] == "task"


async def test_the_memory_store_keeps_a_task_for_its_ttl_then_drops_it() -> None:
    store = MemoryTaskStore()
    now = time.time()
    running = TaskRecord("run", "o", now - 100, ttl_ms=1000, poll_interval_ms=500)
    ended = TaskRecord("end", "o", now - 100, ttl_ms=1000, poll_interval_ms=500,
                       status="completed", updated_at=now - 0.5)
    old = TaskRecord("old", "o", now - 100, ttl_ms=1000, poll_interval_ms=500,
                     status="completed", updated_at=now - 2)
    for record in (running, ended, old):
        await store.save(record)
    assert (await store.load("run")) == running  # a running task never expires
    assert (await store.load("end")) == ended
    assert await store.load("old") is None
    loaded = await store.load("end")
    assert loaded is not None
    loaded.status = "failed"  # a copy: the store changes only through save
    assert (await store.load("end")) == ended


def test_bad_task_declarations_are_refused() -> None:
    with pytest.raises(RegistrationError, match="task must be one of"):
        tool(description="x", task="always")  # type: ignore[arg-type]
    with pytest.raises(RegistrationError, match="task_start"):
        tool(description="x", task="optional", task_start="later")  # type: ignore[arg-type]


async def test_shutdown_ends_running_tasks_as_failed() -> None:
    jobs = Jobs()
    server = Server(jobs)
    async with _client(server) as client:
        task_id = (await client.call_tool("wait"))["taskId"]
        await asyncio.sleep(0.01)
        server.end_streams()
        await asyncio.sleep(0.01)
        task = await client.request("tasks/get", {"taskId": task_id})
    assert task["status"] == "failed" and jobs.cancelled == 1
    assert task["error"]["message"] == "The server stopped before the task ended"


async def test_stop_tasks_waits_until_each_has_ended() -> None:
    jobs = Jobs()
    server = Server(jobs)
    async with _client(server) as client:
        task_id = (await client.call_tool("wait"))["taskId"]
        await asyncio.sleep(0.01)
        await server.stop_tasks()
        record = await server.methods.tasks.store.load(task_id)  # no polling needed
    assert record is not None and record.status == "failed"
