"""An assistant pages through a person's training with the official `mcp` SDK client,
over real sockets against `pacekeeper serve` (issue 14's end-to-end proof, data part):
a FIT file imported over HTTP, then listed, read, streamed (downsampled), imported
again over MCP (a duplicate), settings changed, and the resources read; in both eras."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests._services import free_port
from tests.e2e._service_process import serve, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RIDE = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / "4801048867.fit"
DATA_TOOLS = {"list_activities", "get_activity", "get_activity_streams", "get_athlete",
              "update_athlete_settings", "get_daily_summaries", "sync_activities",
              "import_activity", "delete_activity"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = service_env(tmp_path_factory.mktemp("fitness-sdk"), free_port())
    with serve(env) as url:
        yield url


@pytest.fixture(scope="module")
def person(server: str) -> dict[str, Any]:
    token = httpx.post(f"{server}/api/auth/register",
                       json={"email": "runner@example.com", "password": "e2e-Passw0rd!"}
                       ).json()["token"]
    auth = {"authorization": f"Bearer {token}"}
    response = httpx.post(f"{server}/api/activities/import", headers=auth,
                          files={"file": (RIDE.name, RIDE.read_bytes())}, timeout=60)
    assert response.status_code == 201, response.text
    return {"auth": auth, "activity": response.json()["activity"]}


def _client(server: str, auth: dict[str, str], mode: str) -> Client:
    http = httpx.AsyncClient(headers=auth, timeout=60)
    return Client(streamable_http_client(f"{server}/mcp", http_client=http), mode=mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_assistant_pages_through_training(server: str, person: dict[str, Any],
                                                   mode: str) -> None:
    imported = person["activity"]
    async with _client(server, person["auth"], mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) >= DATA_TOOLS
        for name in DATA_TOOLS:
            assert tools[name].output_schema is not None, name
            assert tools[name].annotations is not None, name
        assert tools["list_activities"].annotations.read_only_hint is True  # type: ignore[union-attr]
        assert tools["delete_activity"].annotations.destructive_hint is True  # type: ignore[union-attr]

        page = (await client.call_tool("list_activities", {"limit": 10})).structured_content
        assert page is not None
        assert [a["id"] for a in page["activities"]] == [imported["id"]]
        assert page["next_cursor"] is None
        # The tool's line names its units and rounds (km to 10 m); the HTTP body is exact.
        assert page["activities"][0]["distance_km"] == round(imported["distance_m"] / 1000, 2)

        detail = (await client.call_tool("get_activity", {"activity_id": imported["id"]})
                  ).structured_content
        assert detail is not None and len(detail["laps"]) == len(imported["laps"])
        assert [lap.get("distance_m") for lap in detail["laps"]] == [
            None if lap.get("distance_m") is None else round(lap["distance_m"])
            for lap in imported["laps"]]

        streams = (await client.call_tool("get_activity_streams", {
            "activity_id": imported["id"], "keys": ["heartrate", "speed"], "max_points": 200,
        })).structured_content
        assert streams is not None and 0 < streams["points"] <= 200
        assert set(streams["streams"]) == {"time", "heartrate", "speed"}

        again = (await client.call_tool("import_activity", {
            "content_base64": base64.b64encode(RIDE.read_bytes()).decode(),
            "filename": RIDE.name,
        })).structured_content
        assert again is not None and again["duplicate"] is True
        assert again["activity"]["id"] == imported["id"]

        bad = await client.call_tool("get_activity", {"activity_id": "not-an-id"})
        assert bad.is_error

        settings = (await client.call_tool("update_athlete_settings",
                                           {"max_hr_bpm": 188, "resting_hr_bpm": 48})
                    ).structured_content
        assert settings is not None and settings["settings"]["max_hr_bpm"] == 188

        resource = await client.read_resource(f"activity://{imported['id']}")
        assert imported["id"] in resource.contents[0].text  # type: ignore[union-attr]
        profile = await client.read_resource("athlete://profile")
        assert "max_hr_bpm" in profile.contents[0].text  # type: ignore[union-attr]


async def test_another_person_sees_none_of_it(server: str, person: dict[str, Any]) -> None:
    async with httpx.AsyncClient() as http:
        token = (await http.post(f"{server}/api/auth/register", json={
            "email": "other@example.com", "password": "e2e-Passw0rd!"})).json()["token"]
    async with _client(server, {"authorization": f"Bearer {token}"}, "auto") as client:
        page = (await client.call_tool("list_activities", {})).structured_content
        assert page is not None and page["activities"] == []
        theirs = await client.call_tool("get_activity",
                                        {"activity_id": person["activity"]["id"]})
        assert theirs.is_error
