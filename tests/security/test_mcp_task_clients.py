"""Issue 28 (info): MCP tasks were keyed by the person, not by the client, and `tasks/*`
checked no scope: one assistant's read token could read or cancel another assistant's
write task (a `sync_activities` task). Tasks now belong to the person *and* the OAuth
client that created them (`Principal.mcp_subject`), and every `tasks/*` call on a task
needs the scopes of the tool that created it.

Two OAuth clients of one person (tokens as the authorization server issues them after
consent: `client_id` and `scope` claims), a real socket, the provider sandbox.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx

from tests.pacekeeper.connections.conftest import conn_factory  # noqa: F401 - fixture
from tests.pacekeeper.connections.test_sync_task import _listen_honours, _result, _rpc, _socket

READ, WRITE = "fitness:read", "fitness:read fitness:write"


async def test_an_assistant_reaches_only_its_own_tasks_with_the_tools_scopes(
    conn_factory: Callable[..., Any],  # noqa: F811
) -> None:
    async with conn_factory(worker="off", sync_history_days=21) as h:
        user_id, login = await h.user("two-assistants@example.com")
        callback = await h.approve(await h.authorization_url("strava", user_id, login), 7)
        assert (await h.client.get(callback)).status_code == 200
        user = await h.services.users.get(uuid.UUID(user_id))
        assert user is not None

        def token(client: str, scope: str) -> dict[str, str]:
            issued = h.services.tokens.issue(user, "https://pk.test/mcp", scope=scope,
                                             client_id=client)
            return {"authorization": f"Bearer {issued.token}"}

        a_write, a_read = token("assistant-a", WRITE), token("assistant-a", READ)
        b_write, b_read = token("assistant-b", WRITE), token("assistant-b", READ)
        async with _socket(h.app) as base, httpx.AsyncClient(base_url=base,
                                                             timeout=60) as http:
            created = await _result(http, a_write, "tools/call", {
                "name": "sync_activities", "arguments": {"provider": "strava"}})
            assert created["resultType"] == "task"
            task_id = created["taskId"]
            # The other assistant (either token) and the person's own login token: the
            # task is as unknown as a made-up id, on every tasks/* method.
            for other in (b_read, b_write, login):
                for method, extra in (("tasks/get", {}), ("tasks/cancel", {}),
                                      ("tasks/update", {"inputResponses": {}})):
                    answer = await _rpc(http, other, method, {"taskId": task_id, **extra})
                    assert answer.status_code == 400, answer.text
                    assert answer.json()["error"]["code"] == -32602
                    assert answer.json()["error"]["message"] == f"Unknown task: {task_id}"
                assert await _listen_honours(http, other, task_id) == []
            # The same assistant with a read-only token: the write tool's task needs
            # fitness:write to be read or cancelled, as calling the tool does.
            for method in ("tasks/get", "tasks/cancel"):
                refused = await _rpc(http, a_read, method, {"taskId": task_id})
                assert refused.status_code == 403, refused.text
                error = refused.json()["error"]
                assert "insufficient" in error["message"] or "scope" in error["message"]
                assert "fitness:write" in str(error.get("data")), error
            # Its write token: the task is there, and it may cancel it.
            task = await _result(http, a_write, "tasks/get", {"taskId": task_id})
            assert task["taskId"] == task_id
            cancelled = await _result(http, a_write, "tasks/cancel", {"taskId": task_id})
            assert cancelled["resultType"] == "complete"
