"""`sync_activities` as a task (the MCP tasks extension) over a real socket.

A provider sync takes minutes, so a client that declares ``io.modelcontextprotocol/tasks``
gets a task handle at once and polls ``tasks/get`` until the sync's result is inlined.
The installed official ``mcp`` SDK (2.3.0) has no tasks support, so the client here is
raw JSON-RPC over HTTP (the 2026-07-28 wire) against uvicorn on loopback; the service,
its database and the in-process provider sandbox are real. Another person never reaches
the task.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import httpx
import uvicorn

from pacekeeper.fitness import ActivityFilter
from pacekeeper.providers.sandbox import _generator as gen

EXTENSION = "io.modelcontextprotocol/tasks"
V = "2026-07-28"
_NAME = {"tools/call": "name", "tasks/get": "taskId", "tasks/cancel": "taskId",
         "tasks/update": "taskId"}


@contextlib.asynccontextmanager
async def _socket(app: Any) -> AsyncIterator[str]:
    """Serve the already started app with uvicorn on a loopback port, in this event loop
    (its database connections belong to it)."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="off",
                                           log_level="warning"))
    serving = asyncio.ensure_future(server.serve())
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and not serving.done(), "uvicorn did not start"
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await serving


async def _rpc(http: httpx.AsyncClient, auth: dict[str, str], method: str,
               params: dict[str, Any]) -> httpx.Response:
    headers = {**auth, "accept": "application/json, text/event-stream",
               "content-type": "application/json", "mcp-protocol-version": V,
               "mcp-method": method}
    if method in _NAME:
        headers["mcp-name"] = str(params[_NAME[method]])
    meta = {"io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientInfo": {"name": "task-poller", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}}}
    return await http.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}})


async def _result(http: httpx.AsyncClient, auth: dict[str, str], method: str,
                  params: dict[str, Any]) -> dict[str, Any]:
    response = await _rpc(http, auth, method, params)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


async def _listen_honours(http: httpx.AsyncClient, auth: dict[str, str],
                          task_id: str) -> list[str]:
    """The task ids a `subscriptions/listen` stream naming `task_id` was granted (its
    first message), the stream then closed."""
    headers = {**auth, "accept": "application/json, text/event-stream",
               "content-type": "application/json", "mcp-protocol-version": V,
               "mcp-method": "subscriptions/listen"}
    meta = {"io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientInfo": {"name": "task-poller", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
            "params": {"notifications": {"taskIds": [task_id]}, "_meta": meta}}
    async with http.stream("POST", "/mcp", headers=headers, json=body) as stream:
        assert stream.status_code == 200
        async for line in stream.aiter_lines():
            if line.startswith("data:"):
                first = json.loads(line[5:])
                granted: list[str] = first["params"]["notifications"]["taskIds"]
                return granted
    raise AssertionError("the listen stream said nothing")


async def test_a_sync_runs_as_a_task_its_owner_polls(conn_factory: Callable[..., Any]) -> None:
    async with conn_factory(worker="off", sync_history_days=21) as h:
        user_id, owner = await h.user("tasks@example.com")
        callback = await h.approve(await h.authorization_url("strava", user_id, owner), 7)
        assert (await h.client.get(callback)).status_code == 200
        _, stranger = await h.user("stranger@example.com")
        async with _socket(h.app) as base, httpx.AsyncClient(base_url=base,
                                                             timeout=60) as http:
            listed = await _result(http, owner, "tools/list", {})
            sync_tool = next(t for t in listed["tools"] if t["name"] == "sync_activities")
            assert sync_tool["execution"] == {"taskSupport": "optional"}
            created = await _result(http, owner, "tools/call", {
                "name": "sync_activities", "arguments": {"provider": "strava"}})
            assert created["resultType"] == "task" and created["status"] == "working"
            task_id = created["taskId"]
            # Every tasks/* method: another person's task is as unknown as a made-up id.
            for method, extra in (("tasks/get", {}), ("tasks/cancel", {}),
                                  ("tasks/update", {"inputResponses": {}})):
                stolen = await _rpc(http, stranger, method, {"taskId": task_id, **extra})
                assert stolen.status_code == 400, stolen.text
                assert stolen.json()["error"]["code"] == -32602
            # A listen stream naming the task: the stranger's filter honours nothing.
            assert await _listen_honours(http, stranger, task_id) == []
            mine = await _listen_honours(http, owner, task_id)
            if mine != [task_id]:  # only a running task is honoured: this one just ended
                assert (await _result(http, owner, "tasks/get", {"taskId": task_id})
                        )["status"] != "working"
            deadline = time.monotonic() + 120
            while True:
                task = await _result(http, owner, "tasks/get", {"taskId": task_id})
                if task["status"] != "working":
                    break
                assert time.monotonic() < deadline, "the sync task did not end"
                await asyncio.sleep(task["pollIntervalMs"] / 1000)
        assert task["status"] == "completed", task
        report = task["result"]["structuredContent"]
        assert (report["provider"], report["status"]) == ("strava", "done")
        assert task["statusMessage"]  # the sync's last progress message
        now = h.clock()
        # Whole UTC days: every activity from the day 21 days before today (docs/fitness.md).
        expected = [a for a in gen.activities_between(7, (now - timedelta(days=21)).date(),
                                                      now.date())
                    if a.start + timedelta(seconds=a.duration_s) <= now]
        stored = await h.services.fitness.store.page(uuid.UUID(user_id), ActivityFilter(),
                                                     limit=200)
        assert report["imported"] == len(stored.items) == len(expected) > 0
