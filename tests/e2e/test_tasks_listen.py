"""Task status notifications on ``subscriptions/listen`` (tasks extension, 2026-07-28),
over a real uvicorn: a listen stream naming ``taskIds`` hears ``notifications/tasks`` for
its caller's own running tasks only; without the extension such a filter is -32021."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from mcpcast import RequestInfo, Server, ServerConfig
from mcpcast.protocol.tasks import EXTENSION
from tests.e2e.test_current_listen import SUBSCRIPTION, Events, running
from tests.mcpcast.fixtures_tasks import Jobs
from tests.mcpcast.test_current_era import envelope, routing

pytestmark = pytest.mark.e2e

EXT: dict[str, Any] = {"extensions": {EXTENSION: {}}}


async def _user(info: RequestInfo) -> str | None:
    return info.headers.get("x-user")


@pytest.fixture
def url() -> Iterator[str]:
    server = Server(Jobs(), authenticate=_user, config=ServerConfig(heartbeat_interval=5))
    with running(server.asgi_app()) as (found, _):
        yield found


def _post(method: str, params: dict[str, Any], user: str, caps: dict[str, Any] | None = None
          ) -> tuple[dict[str, str], bytes]:
    params = {**params, "_meta": envelope(EXT if caps is None else caps)}
    headers = {**routing(method, params), "x-user": user}
    if "taskId" in params:
        headers["mcp-name"] = params["taskId"]
    return headers, orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                                  "params": params})


async def test_listen_hears_only_the_callers_own_tasks(url: str) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        headers, body = _post("tools/call", {"name": "wait", "arguments": {}}, "alice")
        task_id = (await http.post(url, headers=headers, content=body)).json()["result"][
            "taskId"]
        listen = {"notifications": {"taskIds": [task_id]}}
        headers, body = _post("subscriptions/listen", listen, "alice", caps={})
        refused = await http.post(url, headers=headers, content=body)
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == -32021
        alice_headers, alice_body = _post("subscriptions/listen", listen, "alice")
        bob_headers, bob_body = _post("subscriptions/listen", listen, "bob")
        async with http.stream("POST", url, headers=alice_headers, content=alice_body) as mine, \
                http.stream("POST", url, headers=bob_headers, content=bob_body) as theirs:
            alice, bob = Events(mine), Events(theirs)
            assert (await alice.next())["params"]["notifications"] == {"taskIds": [task_id]}
            assert (await bob.next())["params"]["notifications"] == {"taskIds": []}
            headers, body = _post("tasks/cancel", {"taskId": task_id}, "alice")
            assert (await http.post(url, headers=headers, content=body)).status_code == 200
            heard = await alice.next()
            assert heard["method"] == "notifications/tasks"
            assert heard["params"]["taskId"] == task_id
            assert heard["params"]["status"] == "cancelled"
            assert heard["params"]["_meta"][SUBSCRIPTION] == 1
            with pytest.raises(TimeoutError):
                await bob.next(within=0.5)  # bob's stream heard nothing of alice's task
