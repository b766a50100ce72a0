"""MCP Apps views (issue 17): the fitness chart, a mean-maximal curve and one activity.

With the official `mcp` SDK over real sockets: each tool names its `ui://` view in
`_meta.ui.resourceUri`, the view is listed and reads back as one HTML document of type
`text/html;profile=mcp-app` whose Content-Security-Policy allows exactly its own inline
script and style. Then in Chromium, a minimal host (an iframe sandboxed as hosts do,
speaking the MCP Apps postMessage protocol) feeds each view the tool's real result; the
view draws it with no CSP violation and no error, and is photographed."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import async_playwright

from pacekeeper.tools.apps import ACTIVITY, CALENDAR, FITNESS_CHART, view_html
from tests._services import free_port
from tests.e2e._connect import CHROMIUM, CHROMIUM_ARGS
from tests.e2e._service_process import running, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = (ROOT / "docs" / "screenshots" if os.environ.get("UPDATE_SCREENSHOTS")
         else Path(tempfile.gettempdir()) / "pacekeeper-screenshots")  # fmt: skip
FIT = ROOT / "tests" / "data" / "activities" / "fit"
# Rides of spring 2020 to March 2021, two of them with power.
RIDES = ("2020-06-01-16-52-40.fit", "4801048867.fit", "6449921903_ACTIVITY.fit")
PERIOD = {"from": "2020-04-01", "to": "2021-03-31"}
MIME = "text/html;profile=mcp-app"
VIEWS = {"get_fitness_chart": "ui://pacekeeper/fitness-chart",
         "get_power_curve": "ui://pacekeeper/curve", "get_hr_curve": "ui://pacekeeper/curve",
         "get_pace_curve": "ui://pacekeeper/curve", "get_activity": "ui://pacekeeper/activity",
         "get_calendar": "ui://pacekeeper/calendar"}
# The week of the first ride (Monday 2020-06-01): a planned ride on its day (matched to it)
# and one two days later, not done.
WEEK = {"from": "2020-06-01", "to": "2020-06-07"}

# The host side of the protocol, as little as a host needs: answer ui/initialize, then
# send the tool result once the view says it is initialized.
HOST = """<!doctype html><html><head><meta charset="utf-8"><title>host</title></head>
<body style="margin:0;background:#f1f5f9"><iframe id="view" sandbox="allow-scripts"
 style="border:0;width:100%;height:600px;background:#fff"></iframe></body></html>"""
HOST_SCRIPT = """([html, result, toolName]) => new Promise((resolve) => {
  const frame = document.getElementById('view');
  window.__seen = [];
  window.addEventListener('message', (e) => {
    if (e.source !== frame.contentWindow) return;
    const m = e.data; window.__seen.push(m.method || 'response');
    const reply = (x) => frame.contentWindow.postMessage(x, '*');
    if (m.method === 'ui/initialize') {
      reply({jsonrpc: '2.0', id: m.id, result: {protocolVersion: '2026-01-26',
        hostInfo: {name: 'test-host', version: '1'}, hostCapabilities: {},
        hostContext: {theme: 'light', displayMode: 'inline'}}});
    } else if (m.method === 'ui/notifications/initialized') {
      reply({jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: {arguments: {}}});
      reply({jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result});
    } else if (m.method === 'ui/notifications/size-changed') {
      frame.style.height = m.params.height + 'px';
      resolve(m.params);
    }
  });
  frame.srcdoc = html;
})"""


class _Doc(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.csp = ""
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = dict(attrs)
        if tag == "meta" and found.get("http-equiv") == "Content-Security-Policy":
            self.csp = found.get("content") or ""
        if tag == "script":
            assert "src" not in found  # self-contained
        self._in = tag if tag in ("script", "style") else None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in = None


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(service_env(tmp_path_factory.mktemp("apps"), free_port())) as url:
        yield url


@pytest.fixture(scope="module")
def person(server: str) -> tuple[dict[str, str], list[str]]:
    token = httpx.post(f"{server}/api/auth/register", json={
        "email": "apps@example.com", "password": "Apps-Passw0rd!"}).json()["token"]
    auth = {"authorization": f"Bearer {token}"}
    # Thresholds from before the rides, so each ride has a training load (TSS).
    settings = httpx.patch(f"{server}/api/athlete", headers=auth, json={
        "ftp_watts": 180, "max_hr_bpm": 190, "lthr_bpm": 165, "valid_from": "2019-01-01"})
    assert settings.status_code == 200, settings.text
    ids = []
    for name in RIDES:
        answer = httpx.post(f"{server}/api/activities/import", headers=auth, timeout=60,
                            files={"file": (name, (FIT / name).read_bytes())})
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["activity"]["id"])
    for day, name in (("2020-06-01", "Endurance ride"), ("2020-06-03", "Sweet spot 3x12")):
        made = httpx.post(f"{server}/api/workouts", headers=auth, json={
            "name": name, "sport": "cycling", "date": day, "steps": [
                {"kind": "active", "end": {"time_s": 3600},
                 "target": {"type": "ftp_pct", "low": 60, "high": 70}}]})
        assert made.status_code == 201, made.text
    return auth, ids


async def _results(server: str, auth: dict[str, str], ids: list[str]
                   ) -> tuple[dict[str, Any], dict[str, str]]:
    http = httpx.AsyncClient(headers=auth, timeout=60)
    async with Client(streamable_http_client(f"{server}/mcp", http_client=http)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name, uri in VIEWS.items():
            meta = tools[name].meta or {}
            assert meta["ui"]["resourceUri"] == uri, name
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        html: dict[str, str] = {}
        for uri in set(VIEWS.values()):
            assert listed[uri].mime_type == MIME
            contents = (await client.read_resource(uri)).contents
            assert len(contents) == 1 and contents[0].mime_type == MIME
            html[uri] = getattr(contents[0], "text")
        results: dict[str, Any] = {}
        for name, args in (("get_fitness_chart", PERIOD), ("get_power_curve", PERIOD),
                           ("get_activity", {"activity_id": ids[0]}), ("get_calendar", WEEK)):
            called = await client.call_tool(name, args)
            assert not called.is_error, called
            results[name] = called.model_dump(by_alias=True, exclude_none=True, mode="json")
    return results, html


async def test_views_are_advertised_served_and_drawn(
        server: str, person: tuple[dict[str, str], list[str]]) -> None:
    results, html = await _results(server, *person)
    for uri, text in html.items():
        doc = _Doc()
        doc.feed(text)
        assert doc.tags[:2] == ["html", "head"] and "body" in doc.tags and "main" in doc.tags
        assert len(doc.scripts) == 1 and len(doc.styles) == 1, uri
        assert f"script-src {_hash(doc.scripts[0])};" in doc.csp, uri
        assert f"style-src {_hash(doc.styles[0])};" in doc.csp, uri
        assert doc.csp.startswith("default-src 'none';"), uri

    SHOTS.mkdir(parents=True, exist_ok=True)
    expected = {"get_fitness_chart": ("ui://pacekeeper/fitness-chart", "Fitness, fatigue and form"),
                "get_power_curve": ("ui://pacekeeper/curve", "Power curve"),
                "get_activity": ("ui://pacekeeper/activity", "Power curve"),
                "get_calendar": ("ui://pacekeeper/calendar", "Training calendar")}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name, (uri, heading) in expected.items():
                page = await browser.new_page(viewport={"width": 720, "height": 700})
                problems: list[str] = []
                page.on("console", lambda m: problems.append(m.text)
                        if m.type in ("error", "warning") else None)
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                await page.set_content(HOST)
                size = await page.evaluate(HOST_SCRIPT, [html[uri], results[name], name])
                assert size["height"] > 150, size
                view = page.frame_locator("#view")
                state = await view.locator("body").get_attribute("data-state")
                assert state == "rendered", (name, await view.locator("main").inner_text())
                assert heading in await view.locator("main").inner_text()
                if name == "get_calendar":
                    # One week, Monday first: the planned ride done on its day, with its
                    # ratios; the one not done two days later.
                    days = view.locator("table[aria-label=Calendar] tbody td")
                    assert await days.count() == 7
                    monday = view.locator("td[data-date='2020-06-01'] li.planned.done")
                    assert "Endurance ride" in await monday.inner_text()
                    assert "done: time" in await monday.inner_text()
                    wednesday = view.locator("td[data-date='2020-06-03'] li.planned")
                    assert "Sweet spot 3x12" in await wednesday.inner_text()
                    assert "done" not in await wednesday.get_attribute("class")
                else:
                    paths = view.locator("svg path[data-series]")
                    assert await paths.count() >= 1
                    drawn = await paths.first.get_attribute("d") or ""
                    assert len(re.findall(r"[ML]", drawn)) >= 2, (name, drawn)  # a line
                seen = await page.evaluate("window.__seen")
                assert seen[:2] == ["ui/initialize", "ui/notifications/initialized"], seen
                assert problems == [], (name, problems)  # no CSP violation, no error
                await page.screenshot(path=str(SHOTS / f"mcp-app-{uri.rsplit('/', 1)[1]}.png"),
                                      full_page=True)
                await page.close()
        finally:
            await browser.close()
    chart = results["get_fitness_chart"]["structuredContent"]
    assert sum(1 for d in chart["days"] if d["load"] > 0) == 2, json.dumps(chart)[:500]


async def test_markup_in_a_persons_data_is_shown_as_text_never_run() -> None:
    """An activity named with markup (a file's or a provider's name is the uploader's
    choice) is drawn as text by the activity view: no element made of it, no script run,
    no CSP violation to report. The view is the same document for everyone (it holds
    nobody's data: `resources/read` of a view takes no caller), so only what the host
    hands it is drawn."""
    name = '<img src=x onerror="parent.postMessage(1,\'*\')"><script>parent.x=1</script>'
    activity = {"name": name, "sport": "ride</h1><b>bold</b>", "device": "<svg onload=alert(1)>",
                "start_time": "2020-06-01T16:52:40Z", "distance_m": 1000.0,
                "elapsed_time_s": 600, "moving_time_s": 600, "metrics": {},
                "laps": [{"elapsed_s": 300}, {"elapsed_s": 300}]}
    chart = {"summary": name, "days": [
        {"date": "2020-06-01", "load": 50.0, "ctl": 1.0, "atl": 7.0, "tsb": -6.0},
        {"date": "2020-06-02", "load": 0.0, "ctl": 1.2, "atl": 6.0, "tsb": -4.8}]}
    calendar = {"summary": "one week", "from": "2020-06-01", "to": "2020-06-07", "days": [
        {"date": "2020-06-02", "planned": [{"id": "w", "name": name, "sport": "ride</td>",
                                            "duration_s": 600, "load": 10.0}],
         "done": [{"id": "a", "name": name, "sport": "run", "moving_s": 60, "load": 1.0}]}]}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for uri, data, heading in ((ACTIVITY, activity, "h1"),
                                       (FITNESS_CHART, chart, "p.summary"),
                                       (CALENDAR, calendar, "li strong")):
                page = await browser.new_page()
                problems: list[str] = []
                page.on("console", lambda m: problems.append(m.text)
                        if m.type in ("error", "warning") else None)
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                await page.set_content(HOST)
                result = {"content": [{"type": "text", "text": json.dumps(data)}],
                          "structuredContent": data, "isError": False}
                await page.evaluate(HOST_SCRIPT, [view_html(uri), result, "tool"])
                view = page.frame_locator("#view")
                assert await view.locator("body").get_attribute("data-state") == "rendered"
                assert await view.locator("main " + heading).first.text_content() == name
                for tag in ("img", "script", "b", "svg[onload]"):
                    assert await view.locator(f"main {tag}").count() == 0, (uri, tag)
                seen = await page.evaluate("window.__seen")
                assert "response" not in seen, seen  # the view posted nothing of its own
                assert problems == [], (uri, problems)
                await page.close()
        finally:
            await browser.close()
