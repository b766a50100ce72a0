"""A tool that names its caller keeps mcpcast's short path on a POST (issue 19, SMCP-4).

`caller: Principal` / `owner: Owner` are `FromPrincipal` injectors: on a POST the gate's
principal is handed to the tool without the general path (exchange, session work,
streaming responder). These tests count the entries of both paths of mcpcast's
`Methods` while the service answers `whoami` for the right user, and check that the call
is still in the tool metrics. A WebSocket's call takes the general path and re-checks
its caller once (ACC-8: a disabled user's stream stops at once).
"""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect

from pacekeeper import metrics
from tests._tool_paths import count_tool_paths
from tests.e2e._asgi_server import serving
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.test_mcp_one_resolution import CURRENT, JSON, LEGACY, Counted, _call, _init


class Paths:
    def __init__(self) -> None:
        self.general = 0
        self.short = 0


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Paths:
    found = Paths()
    count_tool_paths(monkeypatch, found)
    return found


def _whoami_calls() -> float:
    value = metrics.REGISTRY.get_sample_value(
        "pacekeeper_mcp_tool_calls_total", {"tool": "whoami", "outcome": "ok"})
    return value or 0.0


@pytest.mark.parametrize("era", [LEGACY, CURRENT])
async def test_a_post_of_whoami_takes_the_short_path(harness: Harness, paths: Paths,
                                                     era: str) -> None:
    token = (await harness.register("short@example.com"))["token"]
    headers = {**JSON, "authorization": f"Bearer {token}", "mcp-protocol-version": era}
    if era == LEGACY:  # the service keeps sessions in this era: the call runs on one
        opened = await harness.client.post("/mcp", headers=headers, json=_init(LEGACY))
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    else:
        headers |= {"mcp-method": "tools/call", "mcp-name": "whoami"}
    counted = Counted(harness.services.resolver, "resolve")
    before = _whoami_calls()
    for request_id in (1, 2):
        answer = await harness.client.post("/mcp", headers=headers, json=_call(request_id, era))
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["structuredContent"]["email"] == "short@example.com"
    assert (paths.short, paths.general) == (2, 0)
    assert counted.calls == 2  # one resolution per request, by the gate
    assert _whoami_calls() == before + 2  # the short path is observed too


async def test_a_websocket_call_takes_the_general_path_and_rechecks(
        harness: Harness, paths: Paths) -> None:
    token = (await harness.register("stream@example.com"))["token"]
    counted = Counted(harness.services.resolver, "resolve")
    async with serving(harness.app) as base:
        url = base.replace("http://", "ws://") + "/mcp"
        async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                           additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            await ws.send(json.dumps(_init(LEGACY)))
            assert "result" in json.loads(await ws.recv())
            opened = counted.calls
            await ws.send(json.dumps(_call(1)))
            answer = json.loads(await ws.recv())
            assert answer["result"]["structuredContent"]["email"] == "stream@example.com"
            assert counted.calls - opened == 1  # the call's own re-check
            assert await harness.services.accounts.disable("stream@example.com")
            await ws.send(json.dumps(_call(2)))
            refused = json.loads(await ws.recv())
    assert refused["result"]["isError"] is True
    assert refused["result"]["content"][0]["text"] == "invalid token"
    assert (paths.short, paths.general) == (0, 2)
