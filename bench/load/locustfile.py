"""The mixed workload (Locust): each simulated person signs in, then at a fixed rate calls
MCP tools (list activities, fitness chart, power curve: the stateless 2026-07-28
revision, so nginx may spread them over every process), signs in again, refreshes their
JWT, imports an activity file, and creates and deletes an API key.

Every request is checked: a non-2xx status fails as "HTTP <status>" (so 5xx are counted
by status), a tool call also fails on a JSON-RPC error or an `isError` result. Read by
bench/load/__main__.py through the environment: LOAD_USERS (a JSON file of
[email, password] pairs), LOAD_RATE_PER_USER (requests per second per person),
LOAD_FIT (the file imported).
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

from locust import HttpUser, constant_throughput, task

from bench.mcp_throughput._requests import tool_call

_PEOPLE = itertools.cycle(json.loads(Path(os.environ["LOAD_USERS"]).read_text()))
_FIT = Path(os.environ["LOAD_FIT"]).read_bytes()


class Athlete(HttpUser):
    wait_time = constant_throughput(float(os.environ.get("LOAD_RATE_PER_USER", "1")))

    def on_start(self) -> None:
        self.email, self.password = next(_PEOPLE)
        self.token = ""
        self.sign_in()

    def _ok(self, response: Any) -> bool:
        if not 200 <= response.status_code < 300:
            response.failure(f"HTTP {response.status_code}")
            return False
        return True

    @task(2)
    def sign_in(self) -> None:
        with self.client.post("/oauth/token", name="sign-in", catch_response=True, data={
                "grant_type": "password", "username": self.email,
                "password": self.password}) as response:
            if self._ok(response):
                self.token = response.json()["jwt_token"]

    def _tool(self, name: str, arguments: dict[str, Any]) -> None:
        request = tool_call("current", name, arguments, client="bench-load",
                            extra_headers={"Authorization": f"Bearer {self.token}"})
        with self.client.post("/mcp", name=f"tool {name}", data=request.body,
                              headers=request.headers, catch_response=True) as response:
            if not self._ok(response):
                return
            body = response.json()
            result = body.get("result")
            if not isinstance(result, dict) or result.get("isError"):
                response.failure(f"tool failed: {json.dumps(body)[:120]}")

    @task(10)
    def list_activities(self) -> None:
        self._tool("list_activities", {"limit": 20})

    @task(4)
    def fitness_chart(self) -> None:
        self._tool("get_fitness_chart", {})

    @task(4)
    def power_curve(self) -> None:
        self._tool("get_power_curve", {})

    @task(2)
    def refresh(self) -> None:
        with self.client.post("/api/auth/refresh", name="refresh JWT", catch_response=True,
                              headers={"Authorization": f"Bearer {self.token}"}) as response:
            if self._ok(response):
                self.token = response.json()["jwt_token"]

    @task(1)
    def import_file(self) -> None:
        with self.client.post("/api/activities/import", name="import file",
                              catch_response=True,
                              headers={"Authorization": f"Bearer {self.token}"},
                              files={"file": ("ride.fit", _FIT)}) as response:
            self._ok(response)

    @task(1)
    def api_key(self) -> None:
        auth = {"Authorization": f"Bearer {self.token}"}
        with self.client.post("/api/keys", name="create API key", catch_response=True,
                              headers=auth, json={"name": "bench", "tier": "trial"}) as created:
            if not self._ok(created):
                return
            key_id = created.json()["id"]
        with self.client.delete(f"/api/keys/{key_id}", name="delete API key",
                                catch_response=True, headers=auth) as deleted:
            self._ok(deleted)
