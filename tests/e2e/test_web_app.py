"""The web app in headless Chromium, as a newcomer uses it (issue 17).

One `pacekeeper serve` (development, open registration, the provider sandbox). One
journey: register on `/`, sign in, import FIT files with the file picker (imported,
duplicate, rejected with the reason), open the activity and its charts, create a key (the
secret shown once, copied) and revoke it, copy the assistant configuration, the CSRF
token renewed before its 30 minutes run out (the browser's clock moved on), sign out, a
401 shows a "session expired" notice whose link signs in and comes back, the CSRF token cleared, download my data (a zip
with the activity, its streams and the original file) and delete the account. Every page
is photographed at 1280 and 390 px wide (docs/screenshots/ with UPDATE_SCREENSHOTS=1,
else a temporary folder), and checked with axe-core: no serious or critical violation,
no CSP violation, no console error.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._services import free_port
from tests.e2e._browser import PageBrowser
from tests.e2e._service_process import running, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = (ROOT / "docs" / "screenshots" if os.environ.get("UPDATE_SCREENSHOTS")
         else Path(tempfile.gettempdir()) / "pacekeeper-screenshots")  # fmt: skip
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
FIT = ROOT / "tests" / "data" / "activities" / "fit"
RIDE = FIT / "garmin-fenix-5-bike.fit"
NOT_AN_ACTIVITY = FIT / "Settings.fit"
PASSWORD = "Web-app-Passw0rd!"
AXE_VERSION = "4.10.3"
# Collects CSP violations before any script of the page runs (init scripts are exempt).
CSP_LISTENER = """window.__csp = [];
document.addEventListener("securitypolicyviolation",
  e => window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline")));"""


def axe_script() -> str:
    """axe-core from the npm registry: the pinned peers of .tools/npm when the test setup
    installed them, else installed here into .tools/axe (npm, no other network)."""
    for base in (os.environ.get("MCPCAST_NPM_TOOLS", ""), str(ROOT / ".tools" / "npm" / "node_modules"),
                 str(ROOT / ".tools" / "axe" / "node_modules")):  # fmt: skip
        candidate = Path(base) / "axe-core" / "axe.min.js"
        if base and candidate.is_file():
            return candidate.read_text()
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is needed to install axe-core for the accessibility check")
    target = ROOT / ".tools" / "axe"
    subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix",
                    str(target), f"axe-core@{AXE_VERSION}"], check=True, timeout=300)  # fmt: skip
    return (target / "node_modules" / "axe-core" / "axe.min.js").read_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = service_env(tmp_path_factory.mktemp("web-data"), free_port(),
                      PACEKEEPER_ADMIN_EMAIL="admin@example.com",
                      PACEKEEPER_ADMIN_PASSWORD=PASSWORD,
                      # The Live panel's sync: a month of sandbox history, within one
                      # tenant's share of the sandbox's Strava quota.
                      PACEKEEPER_SANDBOX_HISTORY_DAYS="30",
                      PACEKEEPER_PROVIDER_TENANT_SHARE="1")
    with running(env) as url:
        yield url


class Checks:
    """Per page: screenshots at two widths, axe-core, CSP violations, console errors."""

    def __init__(self, page: Any, axe: str) -> None:
        self.page = page
        self.axe = axe
        self.errors: list[str] = []
        self.findings: dict[str, list[str]] = {}
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror {exc}"))

    def _console(self, message: Any) -> None:
        url = message.location.get("url", "")
        # 404s are expected where the Fitness page probes analysis routes not yet served,
        # and the admin page's 403 for a non-admin; the pages say so in words.
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.errors.append(f"{message.text} ({url})")

    def page_done(self, name: str) -> None:
        page = self.page
        page.wait_for_load_state("networkidle")
        violations: list[str] = page.evaluate("window.__csp")
        assert violations == [], (name, violations)
        result = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length,"
            " target: v.nodes[0] && v.nodes[0].target.join(' ')}))")  # fmt: skip
        bad = [f"{v['id']} ({v['impact']}, {v['nodes']}x, e.g. {v['target']})"
               for v in result if v["impact"] in ("serious", "critical")]  # fmt: skip
        self.findings[name] = bad
        for width, height in ((1280, 900), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(150)  # the charts follow their container's width
            page.screenshot(path=str(SHOTS / f"web-{name}-{width}.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})


def _csrf(context: Any) -> str:
    for cookie in context.cookies():
        if cookie["name"] == "csrf_token":
            return str(cookie["value"])
    return ""


def test_a_newcomer_uses_the_web_app(server: str, chromium: PageBrowser) -> None:
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    axe = axe_script()
    email = "runner@example.com"
    with chromium as browser:
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900},
                                          accept_downloads=True)  # fmt: skip
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
            context.add_init_script(CSP_LISTENER)
            context.add_init_script(axe)  # init scripts are exempt from the page's CSP
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.clock.install()
            checks = Checks(page, axe)

            # Landing: sign-in and (open) registration.
            page.goto(server + "/")
            signin = page.locator("form.signin")
            expect(signin.get_by_label("Email")).to_be_visible()
            expect(signin.get_by_label("Password")).to_be_visible()
            expect(signin.get_by_role("button", name="Sign in")).to_be_visible()
            checks.page_done("landing")
            register = page.locator("form.register")
            register.get_by_label("Email").fill(email)
            register.get_by_label("Password").fill(PASSWORD)
            register.get_by_role("button", name="Create account").click()
            nav = page.get_by_role("navigation", name="Main")
            for name in ("Activities", "Fitness", "Connections", "API keys", "Assistants",
                         "Account"):  # fmt: skip
                expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
            expect(nav.get_by_role("link", name="Admin")).to_have_count(0)
            checks.page_done("home")

            # Activities: import with the file picker; per-file results.
            nav.get_by_role("link", name="Activities").click()
            page.get_by_label("Import activity files").set_input_files(
                [str(RIDE), str(RIDE), str(NOT_AN_ACTIVITY)])
            results = page.locator("[data-import-results]")
            expect(results.locator("li.summary")).to_be_visible()
            statuses = results.locator("li[data-status]").evaluate_all(
                "items => items.map(i => i.dataset.status)")
            assert statuses == ["imported", "duplicate", "rejected"], statuses
            assert "not an activity" in results.locator("li.rejected").inner_text()
            rows = page.locator("[data-activities] tbody tr")
            expect(rows).to_have_count(1)
            checks.page_done("activities")

            # The activity: metrics and charts of its streams.
            rows.first.get_by_role("link").click()
            page.wait_for_url(server + "/activities/*")
            expect(page.locator("[data-metrics] div").first).to_be_visible()
            for chart in ("heartrate", "speed", "altitude"):
                expect(page.locator(f"[data-chart={chart}] canvas")).to_be_visible()
            assert "Distance" in page.locator("[data-metrics]").inner_text()
            checks.page_done("activity")

            # Fitness: renders, or says plainly what this server does not offer yet.
            nav.get_by_role("link", name="Fitness").click()
            expect(page.locator("[data-fitness-chart] .muted, [data-fitness-chart] canvas")
                   .first).to_be_visible()  # fmt: skip
            checks.page_done("fitness")

            # Connections: the dashboard under the one layout.
            nav.get_by_role("link", name="Connections").click()
            expect(page.locator("[data-provider=strava] button[data-connect]")).to_be_visible()
            checks.page_done("connections")

            # API keys: create (secret once, copied), then revoke.
            nav.get_by_role("link", name="API keys").click()
            page.get_by_label("Name").fill("my agent")
            page.get_by_role("button", name="Create key").click()
            secret = page.locator("[data-secret-value]")
            expect(secret).not_to_be_empty()
            page.get_by_role("button", name="Copy", exact=True).click()
            assert page.evaluate("navigator.clipboard.readText()") == secret.inner_text()
            expect(page.locator("[data-keys] tbody tr")).to_have_count(1)
            key = secret.inner_text()
            assert httpx.get(f"{server}/a2a/tools", headers={"X-API-Key": key}).status_code == 200
            checks.page_done("keys")
            page.once("dialog", lambda dialog: dialog.accept())
            page.get_by_role("button", name="Revoke my agent").click()
            expect(page.locator("[data-keys] tbody tr")).to_have_count(0)
            assert httpx.get(f"{server}/a2a/tools", headers={"X-API-Key": key}).status_code == 401

            # Assistants: copy the configuration; it names this server's MCP endpoint.
            nav.get_by_role("link", name="Assistants").click()
            page.get_by_role("button", name="Copy configuration").click()
            config = json.loads(page.evaluate("navigator.clipboard.readText()"))
            assert config["mcpServers"]["pacekeeper"]["url"] == server + "/mcp"
            page.get_by_role("button", name="Copy command").click()
            assert f"--url {server}/mcp" in page.evaluate("navigator.clipboard.readText()")
            initialize = httpx.post(config["mcpServers"]["pacekeeper"]["url"], json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "web-e2e", "version": "1"}}},
                headers={"accept": "application/json, text/event-stream"})  # fmt: skip
            assert initialize.status_code == 200, initialize.text
            checks.page_done("assistants")

            # CSRF renewed before it expires: 26 minutes later (the browser's clock), the
            # client has called /api/auth/refresh and holds a new token; a write works.
            before = _csrf(context)
            with page.expect_response(lambda r: r.url.endswith("/api/auth/refresh")) as renewed:
                page.clock.run_for("26:00")
            assert renewed.value.status == 200
            assert _csrf(context) not in ("", before)
            nav.get_by_role("link", name="API keys").click()
            page.get_by_label("Name").fill("after renewal")
            page.get_by_role("button", name="Create key").click()
            expect(page.locator("[data-keys] tbody tr")).to_have_count(1)

            # Account page, and the admin page refused to a non-admin.
            nav.get_by_role("link", name="Account").click()
            checks.page_done("account")

            # Sign out, then sign in again (labels "Email", "Password", button "Sign in").
            page.get_by_role("button", name="Sign out").click()
            page.wait_for_url(server + "/?reason=signed-out")
            assert _csrf(context) == ""
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            expect(nav).to_be_visible()

            # A 401 (the session cookie is gone) says the session expired, clears the CSRF
            # token, and its sign-in link returns to the page (issue 33).
            nav.get_by_role("link", name="Activities").click()
            expect(page.locator("[data-activities] tbody tr")).to_have_count(1)
            assert _csrf(context) != ""
            context.clear_cookies(name="auth_token")
            page.get_by_role("button", name="Filter").click()
            notice = page.get_by_role("alert").filter(has_text="Your session expired")
            notice.get_by_role("link", name="Sign in again").click()
            page.wait_for_url(server + "/?reason=expired&next=%2Factivities")
            assert _csrf(context) == ""
            expect(page.locator("#signin-notice")).to_contain_text("sign in again")
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(server + "/activities")  # back where the person was

            # Download my data: one zip with the activity, its streams, the original file.
            nav.get_by_role("link", name="Account").click()
            with page.expect_download() as download_info:
                page.get_by_role("button", name="Download my data").click()
            archive = zipfile.ZipFile(io.BytesIO(Path(download_info.value.path()).read_bytes()))
            names = archive.namelist()
            activities = [n for n in names if n.startswith("activities/")]
            assert len(activities) == 1, names
            detail = json.loads(archive.read(activities[0]))
            assert detail["streams"]["heartrate"] and detail["sources"]
            originals = [n for n in names if n.startswith("originals/")]
            assert [archive.read(n) for n in originals] == [RIDE.read_bytes()]
            keys = json.loads(archive.read("api_keys.json"))
            assert {k["name"] for k in keys} == {"after renewal"}
            assert all("api_key" not in k for k in keys)

            # Delete the account: confirmed twice (password + checkbox, then the dialog).
            form = page.locator("[data-delete-account]")
            form.get_by_label("Password").fill(PASSWORD)
            form.get_by_label("I understand").check()
            page.once("dialog", lambda dialog: dialog.accept())
            form.get_by_role("button", name="Delete my account").click()
            page.wait_for_url(server + "/?reason=deleted")
            refused = httpx.post(f"{server}/oauth/token", data={
                "grant_type": "password", "username": email, "password": PASSWORD})
            assert refused.status_code == 401

            # The admin sees Admin: disables a person (their token fails at once), makes
            # registration invite-only, creates a tenant and changes its plan.
            other = httpx.post(f"{server}/api/auth/register", json={
                "email": "other@example.com", "password": PASSWORD}).json()["token"]
            other_auth = {"authorization": f"Bearer {other}"}
            assert httpx.get(f"{server}/api/activities", headers=other_auth).status_code == 200
            page.locator("form.signin").get_by_label("Email").fill("admin@example.com")
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            nav.get_by_role("link", name="Admin").click()
            expect(page.locator("[data-admin-status] code").first).to_be_visible()
            other_row = page.locator("[data-users] tr[data-user='other@example.com']")
            expect(other_row).to_have_attribute("data-status", "active")
            page.once("dialog", lambda dialog: dialog.accept())
            page.get_by_role("button", name="Disable other@example.com").click()
            expect(other_row).to_have_attribute("data-status", "disabled")
            refused = httpx.get(f"{server}/api/activities", headers=other_auth)
            assert refused.status_code == 401 and refused.json()["error"] == "invalid_token"
            page.get_by_label("Invite only").check()
            page.get_by_role("button", name="Save registration mode").click()
            expect(page.locator("[data-registration-status]")).to_contain_text("invitation")
            assert httpx.post(f"{server}/api/auth/register", json={
                "email": "late@example.com", "password": PASSWORD}).status_code == 401
            tenant_form = page.locator("[data-create-tenant]")
            tenant_form.get_by_label("Tenant name").fill("Harriers AC")
            tenant_form.get_by_label("Plan").select_option("starter")
            tenant_form.get_by_role("button", name="Create tenant").click()
            expect(page.locator("[data-tenants] tr[data-tenant^=harriers-ac]")).to_have_count(1)
            page.get_by_label("Plan of Harriers AC").select_option("professional")
            page.get_by_role("button", name="Save Harriers AC").click()
            expect(page.locator("[data-tenant-status]")).to_contain_text("plan professional")
            checks.page_done("admin")
        finally:
            browser.close()
    assert checks.errors == []
    assert {k: v for k, v in checks.findings.items() if v} == {}, checks.findings


_ADMIN_TOKENS: dict[str, str] = {}


def _registered_by_admin(server: str, email: str) -> dict[str, Any]:
    """A person made by the admin (whatever registration mode the journey left behind):
    the register answer, with their token. The admin signs in once per server: every
    sign-in counts against the login limits, and the module's tests add up past them."""
    if server not in _ADMIN_TOKENS:
        admin = httpx.post(f"{server}/oauth/token", data={
            "grant_type": "password", "username": "admin@example.com", "password": PASSWORD})
        assert admin.status_code == 200, admin.text
        _ADMIN_TOKENS[server] = admin.json()["jwt_token"]
    body: dict[str, Any] = httpx.post(
        f"{server}/api/auth/register", json={"email": email, "password": PASSWORD},
        headers={"authorization": f"Bearer {_ADMIN_TOKENS[server]}"}).json()
    return body


def _signed_in_on_connections(browser: Any, server: str, email: str) -> tuple[Any, Any, Checks]:
    """A desktop page with the CSP listener and axe, signed in on Connections."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(CSP_LISTENER)
    context.add_init_script(axe_script())
    page = context.new_page()
    page.set_default_timeout(30_000)
    checks = Checks(page, "")
    page.goto(server + "/connections")
    page.locator("form.signin").get_by_label("Email").fill(email)
    page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    return context, page, checks


def test_the_live_panel_shows_a_sync_as_it_runs(server: str, chromium: PageBrowser) -> None:
    """The Live panel on Connections subscribes to the person's own topic over the
    cookie-authenticated WebSocket: while the person connects Strava in another tab, the
    sync that connecting starts shows its progress and each new activity appears on the
    open page, and the row turns connected, without a reload; Sync now then shows a
    second run to its end, and a file imported elsewhere appears too."""
    from playwright.sync_api import expect

    from tests.e2e._connect import authorization_url, continue_and_approve

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "live@example.com"
    body = _registered_by_admin(server, email)
    with chromium as browser:
        try:
            context, page, checks = _signed_in_on_connections(browser, server, email)
            live = page.locator("[data-live]")
            expect(live).to_have_attribute("data-state", "open")
            transport = page.evaluate("performance.getEntriesByType('resource')"
                                      ".filter(e => e.name.includes('/mcp/topics/')).length")
            # Every line the panel shows, as it shows it (the sync may be quick).
            page.evaluate("""() => { window.__lines = [];
              const line = document.querySelector('[data-live-line]');
              new MutationObserver(() => window.__lines.push(line.textContent))
                .observe(line, {childList: true, characterData: true, subtree: true}); }""")
            navigations: list[str] = []
            page.on("framenavigated", lambda frame: navigations.append(frame.url))

            other_tab = context.new_page()
            url = authorization_url(server, body["token"], body["user_id"], "strava")
            continue_and_approve(other_tab, server, url, "strava")
            other_tab.close()

            expect(live).to_have_attribute("data-sync", "done", timeout=60_000)
            arrived = page.locator("[data-live-activities] li")
            expect(arrived.first).to_be_visible()
            count = arrived.count()
            stored = httpx.get(f"{server}/api/activities", params={"limit": 200},
                               headers={"authorization": f"Bearer {body['token']}"}).json()
            assert count == len(stored["activities"]) > 0
            lines: list[str] = page.evaluate("window.__lines")
            assert any(" of " in line for line in lines), lines  # progress, batch by batch
            assert lines[-1].startswith(f"Sync of strava done: {count} new"), lines
            assert transport == 0  # the WebSocket, not the SSE fallback (a fetch)
            expect(page.locator("[data-provider=strava] .state")).to_have_text("Connected")
            checks.page_done("connections-live")

            # The row shows Strava connected now; Sync now runs live to its end.
            page.get_by_role("button", name="Sync now").click()
            expect(page.locator("[data-live-line]")).to_have_text(
                "Sync of strava done: 0 new, 0 merged, 0 already there.", timeout=30_000)
            assert navigations == []  # no reload, no navigation
            page.locator("[data-live-activities]").evaluate("e => e.replaceChildren()")
            arrived.first.wait_for(state="detached")
            imported = httpx.post(f"{server}/api/activities/import", headers={
                "authorization": f"Bearer {body['token']}"},
                files={"file": (RIDE.name, RIDE.read_bytes())})
            assert imported.status_code == 201
            expect(arrived).to_have_count(1)  # an import elsewhere shows up here too
            expect(arrived.first).to_contain_text("imported")
        finally:
            browser.close()
    assert checks.errors == []
    assert {k: v for k, v in checks.findings.items() if v} == {}, checks.findings


def test_the_live_panel_shows_what_an_assistant_does(server: str, chromium: PageBrowser) -> None:
    """The Live panel shows an assistant's tool calls as they happen: with Connections
    open in Chromium, the official MCP SDK (the person's token) calls whoami and a tool
    that fails; each appears with its assistant, summary and outcome, without a reload.
    Screenshots at 1280 and 390, axe-core, no CSP violation."""
    import asyncio
    import concurrent.futures

    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "watcher@example.com"
    body = _registered_by_admin(server, email)

    async def assistant() -> tuple[bool, bool]:
        http = httpx.AsyncClient(headers={"authorization": f"Bearer {body['token']}"},
                                 timeout=60)
        async with Client(streamable_http_client(f"{server}/mcp", http_client=http)) as client:
            ok = await client.call_tool("whoami", {})
            failed = await client.call_tool("get_provider_profile", {"provider": "strava"})
        return ok.is_error, failed.is_error

    with chromium as browser:
        try:
            context, page, checks = _signed_in_on_connections(browser, server, email)
            expect(page.locator("[data-live]")).to_have_attribute("data-state", "open")
            navigations: list[str] = []
            page.on("framenavigated", lambda frame: navigations.append(frame.url))
            calls = page.locator("[data-live-tools] li")
            expect(calls).to_have_count(0)
            # The SDK's own event loop, in a thread: Playwright's sync API holds this one.
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                errors = pool.submit(asyncio.run, assistant()).result(timeout=120)
            assert errors == (False, True)
            expect(calls).to_have_count(2)
            whoami = page.locator("[data-live-tools] li[data-tool=whoami]")
            expect(whoami).to_have_attribute("data-outcome", "ok")
            expect(whoami).to_contain_text("A sign-in token called whoami")
            expect(whoami).to_contain_text("The signed-in user")
            expect(whoami.locator("[data-call-state]")).to_have_text(re.compile(r"^done in \d+ ms$"))
            profile = page.locator("[data-live-tools] li[data-tool=get_provider_profile]")
            expect(profile).to_have_attribute("data-outcome", "error")
            expect(profile.locator("[data-call-state]")).to_have_text(
                re.compile(r"^failed in \d+ ms$"))
            expect(page.locator("[data-live-tools-empty]")).to_be_hidden()
            assert page.locator("[data-live-tools]").get_attribute("aria-live") == "polite"
            assert body["token"] not in page.content()
            assert navigations == []  # no reload
            checks.page_done("connections-assistants")
        finally:
            browser.close()
    assert checks.errors == []
    assert {k: v for k, v in checks.findings.items() if v} == {}, checks.findings


def test_an_activity_shows_its_own_local_date_and_time(server: str, chromium: PageBrowser) -> None:
    """An activity's date and time are its own wall clock (the offset its file recorded),
    whatever the reader's time zone: the Fenix 5 ride started at 16:09 UTC in California
    (UTC-7), 09:09 on 12 June 2017. A reader in Kiritimati (UTC+14) saw 13 June, the day
    after the one its load is counted on (audit finding, 2026-11-28)."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "timezones@example.com"
    body = _registered_by_admin(server, email)
    imported = httpx.post(f"{server}/api/activities/import",
                          headers={"authorization": f"Bearer {body['token']}"},
                          files={"file": (RIDE.name, RIDE.read_bytes())})
    assert imported.status_code == 201
    assert imported.json()["activity"]["start_time"].startswith("2017-06-12T09:09:22-07:00")
    with chromium as browser:
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900},
                                          timezone_id="Pacific/Kiritimati", locale="en-US")
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.goto(server + "/activities")
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            # Signing in on /activities reloads it (the URL is already the one waited for):
            # wait for the signed-in list, which outlives the reload, before evaluating.
            first = page.locator("[data-activities] tbody tr").first
            expect(first.locator("td").first).to_have_text("Jun 12, 2017")
            # The browser's own zone would say 13 June: the page says the ride's day.
            assert page.evaluate("new Date('2017-06-12T16:09:22Z').getDate()") == 13
            page.screenshot(path=str(SHOTS / "web-activities-timezone.png"), full_page=True)
            first.get_by_role("link").click()
            page.wait_for_url(server + "/activities/*")
            expect(page.locator("[data-when]")).to_contain_text("Jun 12, 2017, 9:09")
            page.screenshot(path=str(SHOTS / "web-activity-timezone.png"), full_page=True)
        finally:
            browser.close()


def test_a_multisport_and_a_pool_swim_show_their_legs_and_lengths(server: str, chromium: PageBrowser) -> None:
    """FIG-1, FIG-2 (issue 27): a triathlon's page lists its legs (sport, time,
    distance, heart rate, power) with their total; a pool swim's shows pool length, lengths, pace per 100 m,
    strokes, SWOLF and rests, and a pace where a ride shows a speed. Each value is the
    device's (read here with garmin-fit-sdk), photographed and checked with axe-core."""
    from garmin_fit_sdk import Decoder, Stream
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    axe = axe_script()
    email = "triathlete@example.com"
    body = _registered_by_admin(server, email)
    ids = {}
    for name in ("triathlon_summary_first.fit", "activity_poolswim_with_hr.fit"):
        imported = httpx.post(f"{server}/api/activities/import",
                              headers={"authorization": f"Bearer {body['token']}"},
                              files={"file": (name, (FIT / name).read_bytes())})
        assert imported.status_code == 201, imported.text
        ids[name] = imported.json()["activity"]["id"]
    tri, _ = Decoder(Stream.from_file(str(FIT / "triathlon_summary_first.fit"))).read()
    legs = sorted(tri["session_mesgs"], key=lambda s: s["start_time"])
    swim, _ = Decoder(Stream.from_file(str(FIT / "activity_poolswim_with_hr.fit"))).read()
    session = swim["session_mesgs"][0]
    with chromium as browser:
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900},
                                          locale="en-US")
            context.add_init_script(CSP_LISTENER)
            context.add_init_script(axe)
            page = context.new_page()
            page.set_default_timeout(30_000)
            checks = Checks(page, axe)
            page.goto(server + "/activities")
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(server + "/activities")
            page.wait_for_load_state("networkidle")

            page.goto(server + "/activities/" + ids["triathlon_summary_first.fit"])
            rows = page.locator("[data-legs] tbody tr")
            expect(rows).to_have_count(len(legs) + 1)  # and the total
            total_km = sum(s["total_distance"] for s in legs) / 1000
            expect(rows.last).to_contain_text(f"{total_km:.1f} km")
            expect(rows.nth(2)).to_contain_text(f"{legs[2]['total_distance'] / 1000:.1f} km")
            expect(rows.nth(4)).to_contain_text(f"{legs[4]['avg_power']} W")
            expect(rows.nth(1)).to_contain_text("Transition")
            expect(page.locator("[data-metrics]")).to_contain_text(f"{total_km:.1f} km")
            checks.page_done("activity-multisport")

            page.goto(server + "/activities/" + ids["activity_poolswim_with_hr.fit"])
            box = page.locator("[data-swim]")
            expect(box).to_contain_text(f"{session['num_active_lengths']}")
            expect(box).to_contain_text(f"{session['total_distance']:,.0f} m")
            expect(box).to_contain_text(f"{session['total_strokes']}")
            active = [x for x in swim["length_mesgs"] if x["length_type"] == "active"]
            pace = round(sum(x["total_timer_time"] for x in active) / session["total_distance"]
                         * 100)
            expect(box).to_contain_text(f"{pace // 60}:{pace % 60:02d} /100 m")
            expect(page.locator("[data-metrics]")).to_contain_text("/100 m")
            expect(page.locator("[data-metrics]")).not_to_contain_text("km/h")
            laps = page.locator("[data-swim-laps] tbody tr")
            expect(laps).to_have_count(len(swim["lap_mesgs"]))
            expect(laps.nth(1)).to_contain_text("rest")
            # FIG-2, FIG-10. The pace chart is per lap (a pool swim has no pace between its lengths' ends:
            # the chart from its samples was an empty frame); its fastest lap is the
            # device's lengths' own (lap time over lap distance).
            chart = page.locator("figure[data-chart='pace']")
            expect(chart.locator("h3")).to_have_text("Pace per lap (min/100 m)")
            lengths = swim["length_mesgs"]
            fastest = min(
                round(sum(x["total_timer_time"] for x in lengths[lap["first_length_index"]:
                          lap["first_length_index"] + lap["num_lengths"]]
                          if x["length_type"] == "active") / lap["total_distance"] * 100, 1)
                for lap in swim["lap_mesgs"] if lap["total_distance"])
            whole = round(fastest)
            expect(chart.locator("[role=img]")).to_have_attribute(
                "aria-label", re.compile(f"fastest lap {whole // 60}:{whole % 60:02d} /100 m"))
            expect(chart).to_have_attribute("data-y-ticks", re.compile(r"\d:[0-5]\d \d"))
            checks.page_done("activity-pool-swim")
        finally:
            browser.close()
    assert checks.errors == []
    assert {k: v for k, v in checks.findings.items() if v} == {}, checks.findings


def test_a_truncated_file_says_so_on_its_activity_page(server: str, chromium: PageBrowser) -> None:
    """FIG-11 (issue 27 item 9): the Strava app's file, 19 bytes short, is imported as far
    as it reads; its page says it was truncated, in the import's own words."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "truncated@example.com"
    body = _registered_by_admin(server, email)
    cut = RIDE.parents[1] / "corrupt" / "strava-android-app-201.10-b1218918.fit"
    imported = httpx.post(f"{server}/api/activities/import",
                          headers={"authorization": f"Bearer {body['token']}"},
                          files={"file": (cut.name, cut.read_bytes())})
    assert imported.status_code == 201, imported.text
    warning = imported.json()["warnings"][0]
    activity_id = imported.json()["activity"]["id"]
    with chromium as browser:
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            page.goto(server + "/activities")
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(server + "/activities")
            page.locator(f"[data-activities] a[href$='{activity_id}']").click()
            page.wait_for_url(server + "/activities/*")
            expect(page.locator("[data-warnings]")).to_have_text(warning)
            page.screenshot(path=str(SHOTS / "web-activity-truncated.png"), full_page=True)
        finally:
            browser.close()


def test_a_run_shows_its_pace_not_a_speed(server: str, chromium: PageBrowser) -> None:
    """Issue 27 item 14: a run's page gives its average pace in min/km (m:ss), where a
    ride gives km/h, and its cadence in steps a minute. The pace is worked out here from the distance and moving time the
    same page shows (the device's figures), not read back from the page's own code."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "pace@example.com"
    body = _registered_by_admin(server, email)
    auth = {"authorization": f"Bearer {body['token']}"}
    run = FIT / "activity-small-fenix2-run.fit"
    imported = httpx.post(f"{server}/api/activities/import", headers=auth,
                          files={"file": (run.name, run.read_bytes())})
    assert imported.status_code == 201, imported.text
    a = imported.json()["activity"]
    assert a["sport"] == "run"
    seconds_per_km = round(a["moving_time_s"] / (a["distance_m"] / 1000))
    expected = f"{seconds_per_km // 60}:{seconds_per_km % 60:02d} /km"
    with chromium as browser:
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            page.goto(server + "/activities/" + a["id"])
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            metrics = page.locator("[data-metrics]")
            expect(metrics).to_contain_text("Average pace")
            expect(metrics).to_contain_text(expected)
            expect(metrics).not_to_contain_text("km/h")
            # Cadence in steps a minute: the stored strides (FIT's unit) doubled.
            expect(metrics).to_contain_text(f"{round(a['average_cadence'] * 2)} spm")
            page.screenshot(path=str(SHOTS / "web-activity-run-pace.png"), full_page=True)
        finally:
            browser.close()


def _mss(seconds: float) -> str:
    """Seconds as m:ss, rounded half up (as a runner's watch and JavaScript round)."""
    whole = int(seconds + 0.5)
    return f"{whole // 60}:{whole % 60:02d}"


def _run_gpx(start: datetime) -> bytes:
    """A run written here: 5 min at 4.0 m/s, 2 min standing, 10 min at 3.1 m/s (322.6 s/km: m:ss rounds up), a
    point a second due north (the pace chart must leave the standing minutes a gap)."""
    points, lat, t = [], 45.0, start
    for seconds, mps in ((300, 4.0), (120, 0.0), (600, 3.1)):
        for _ in range(seconds):
            points.append(f'<trkpt lat="{lat:.7f}" lon="6.0000000"><ele>400</ele>'
                          f"<time>{t.strftime('%Y-%m-%dT%H:%M:%SZ')}</time></trkpt>")
            lat += mps / 111_195.0
            t += timedelta(seconds=1)
    return ('<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" '
            'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Pace run</name>'
            "<type>running</type><trkseg>" + "".join(points)
            + "</trkseg></trk></gpx>").encode()  # fmt: skip


def test_a_runs_charts_read_pace_in_minutes_per_km_or_mile(server: str, chromium: PageBrowser) -> None:
    """Issue 27 item 14: a run's speed chart is a pace chart (min/km, m:ss ticks and
    legend, standing left a gap) and the Fitness page's pace curve is in min/km, min/mi
    once the person's units are imperial. The expected labels are worked out here from
    the API's own speeds (the stream and the curve), not from the page's code."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    axe = axe_script()
    email = "runner-pace@example.com"
    body = _registered_by_admin(server, email)
    auth = {"authorization": f"Bearer {body['token']}"}
    start = (datetime.now(UTC) - timedelta(days=1)).replace(microsecond=0)
    imported = httpx.post(f"{server}/api/activities/import", headers=auth,
                          files={"file": ("pace-run.gpx", _run_gpx(start))})
    assert imported.status_code == 201, imported.text
    a = imported.json()["activity"]
    assert a["sport"] == "run"
    streams = httpx.get(f"{server}/api/activities/{a['id']}/streams?keys=speed&max_points=800",
                        headers=auth).json()["streams"]  # fmt: skip
    moving = [v for v in streams["speed"] if v is not None and v >= 0.5]
    stream_paces = {_mss(1000 / v) + " /km" for v in moving}
    fastest, slowest = 1000 / max(moving), 1000 / min(moving)
    day = start.date().isoformat()
    curve = httpx.get(f"{server}/api/curves/pace?from={start.year}-01-01&to="
                      f"{(start + timedelta(days=2)).date().isoformat()}", headers=auth).json()
    speeds = [p["speed_mps"] for p in curve["points"] if p.get("speed_mps")]
    assert speeds, (day, curve)

    def ticks(figure: Any) -> list[int]:
        expect(figure).to_have_attribute("data-y-ticks", re.compile(r"\d"))
        labels = (figure.get_attribute("data-y-ticks") or "").split()
        assert len(labels) >= 2 and all(re.fullmatch(r"\d+:[0-5]\d", x) for x in labels), labels
        return [int(x.split(":")[0]) * 60 + int(x.split(":")[1]) for x in labels]

    def hovered(figure: Any) -> str:
        figure.locator(".u-over").hover()
        return str(figure.locator(".u-legend .u-series").nth(1).locator(".u-value").inner_text())

    with chromium as browser:
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
            context.add_init_script(CSP_LISTENER)
            context.add_init_script(axe)
            page = context.new_page()
            page.set_default_timeout(30_000)
            checks = Checks(page, axe)
            page.goto(server + "/activities/" + a["id"])
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            chart = page.locator("figure[data-chart='pace']")
            expect(chart.locator("h3")).to_have_text("Pace (min/km)")
            expect(page.locator("[data-streams]")).not_to_contain_text("km/h")
            marks = ticks(chart)
            # The ticks span the run's paces (the scale pads a step either side).
            assert min(marks) <= slowest and max(marks) >= fastest, (marks, fastest, slowest)
            assert all(fastest - 60 <= m <= slowest + 60 for m in marks), (marks, fastest, slowest)
            assert hovered(chart) in stream_paces
            # Sample by sample: the legend's pace is the API's speed at the time it names.
            over = chart.locator(".u-over").bounding_box()
            legend = chart.locator(".u-legend .u-series")
            by_time = {_mss(t): v for t, v in zip(streams["time"], streams["speed"], strict=True)}
            for fx in (0.5, 0.6, 0.7, 0.8, 0.9):
                chart.locator(".u-over").hover(position={"x": over["width"] * fx, "y": 10})
                speed = by_time[legend.nth(0).locator(".u-value").inner_text()]
                assert legend.nth(1).locator(".u-value").inner_text() == _mss(1000 / speed) + " /km"
            # Faster is up: the line's row (in the chart's own teal) in the 4.0 m/s minutes
            # lies above the one in the 3.1 m/s minutes.
            rows = chart.evaluate("""f => {
              const c = f.querySelector("canvas"), d = c.getContext("2d");
              const row = (fx) => { const px = d.getImageData(Math.round(c.width * fx), 0, 1, c.height).data;
                for (let y = 0; y < c.height; y++) { const [r, g, b, a] = px.slice(y * 4, y * 4 + 4);
                  if (a > 150 && Math.abs(r - 15) < 40 && Math.abs(g - 118) < 40 && Math.abs(b - 110) < 40) { return y; } }
                return null; };
              return [row(0.15), row(0.85)]; }""")  # fmt: skip
            assert None not in rows and rows[0] < rows[1], rows
            # The standing minutes (5:00 to 7:00) are a gap, not a pace.
            chart.locator(".u-over").hover(position={
                "x": over["width"] * 360 / streams["time"][-1], "y": over["height"] / 2})
            expect(chart.locator(".u-legend .u-series").nth(1).locator(".u-value")).to_have_text("–")
            checks.page_done("activity-run-pace-chart")

            page.goto(server + "/fitness")
            page.locator("[data-curve-kind]").select_option("pace")
            curve_chart = page.locator("figure[data-chart='curve-pace']")
            expect(curve_chart.locator("h3")).to_have_text("Pace curve (min/km)")
            ticks(curve_chart)
            assert hovered(curve_chart) in {_mss(1000 / v) + " /km" for v in speeds}
            checks.page_done("fitness-pace-curve")

            # Imperial units: the same curve per mile.
            changed = httpx.patch(f"{server}/api/athlete", headers=auth, json={"units": "imperial"})
            assert changed.status_code == 200, changed.text
            page.reload()
            page.locator("[data-curve-kind]").select_option("pace")
            expect(curve_chart.locator("h3")).to_have_text("Pace curve (min/mi)")
            ticks(curve_chart)
            assert hovered(curve_chart) in {_mss(1609.344 / v) + " /mi" for v in speeds}
            page.goto(server + "/activities/" + a["id"])
            expect(chart.locator("h3")).to_have_text("Pace (min/mi)")
            expect(page.locator("[data-metrics]")).to_contain_text("/mi")
        finally:
            browser.close()
    assert checks.errors == []
    assert {k: v for k, v in checks.findings.items() if v} == {}, checks.findings
