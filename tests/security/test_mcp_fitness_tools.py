"""The adversarial pass on the fitness MCP tools (docs/security.md, "Adversarial pass"),
over a real socket: a `fitness:read` token calls no write tool, and another person's
activity id reads, streams and deletes nothing."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.security._mcp_live import (
    bearer,
    call,
    initialize,
    oauth_token,
    register,
    serve,
    service_app,
    session_headers,
)

FIT = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / "4801048867.fit"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    app = service_app(tmp_path_factory.mktemp("fitness-tools"))
    with serve(app) as base:
        yield base, app


def _post(base: str, token: str, message: dict[str, Any]) -> httpx.Response:
    headers = session_headers(initialize(base, bearer(token)), bearer(token))
    return httpx.post(f"{base}/mcp", headers=headers, json=message, timeout=60)


def _import(base: str, token: str) -> str:
    answer = httpx.post(f"{base}/api/activities/import", headers=bearer(token), timeout=60,
                        files={"file": (FIT.name, FIT.read_bytes())})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["activity"]["id"])


WRITES = [
    ("import_activity", {"content_base64": base64.b64encode(FIT.read_bytes()).decode(),
                         "filename": FIT.name}),
    ("delete_activity", {"activity_id": "00000000-0000-0000-0000-000000000000"}),
    ("update_athlete_settings", {"ftp_watts": 250}),
    ("sync_activities", {"provider": "strava"}),
]


@pytest.mark.parametrize(("tool", "arguments"), WRITES, ids=[w[0] for w in WRITES])
def test_a_read_only_token_calls_no_write_tool(live: tuple[str, Any], tool: str,
                                               arguments: dict[str, Any]) -> None:
    base, app = live
    login = register(base, f"ro-{tool}@example.com")
    refused = _post(base, oauth_token(app, login, "fitness:read"), call(tool, **arguments))
    assert refused.status_code == 403, refused.text
    assert 'error="insufficient_scope"' in refused.headers["www-authenticate"]
    assert refused.json()["error"]["data"]["scope"] == "fitness:read fitness:write"


def test_another_persons_activity_id_reaches_nothing(live: tuple[str, Any]) -> None:
    base, _ = live
    owner = register(base, "owner@example.com")
    other = register(base, "other@example.com")
    activity_id = _import(base, owner)
    for tool in ("get_activity", "get_activity_streams", "delete_activity"):
        answer = _post(base, other, call(tool, activity_id=activity_id))
        assert answer.status_code == 200, answer.text
        result = answer.json()["result"]
        assert result["isError"] is True, (tool, result)
        assert result["content"][0]["text"] == "no such activity", (tool, result)
    listed = _post(base, other, call("list_activities")).json()["result"]
    assert listed["structuredContent"]["activities"] == []
    still = _post(base, owner, call("get_activity", activity_id=activity_id)).json()["result"]
    assert not still.get("isError") and still["structuredContent"]["id"] == activity_id
