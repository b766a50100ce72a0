"""The Home and activity pages in headless Chromium, and every page at a phone's width
(issue 33).

Home answers "how am I doing" for a person with five weeks of training (form and its
trend, readiness with its parts, a region "This week" against the four before, the
latest activities) and helps an empty account (connect or import; thresholds to set,
set from the page). The activity page shows a FIT run's route (a region "Route map": the
configured tiles, or the track drawn on its own when they cannot be reached), its laps (a
table "Laps", one row per lap, the device's figures) and its time in zones; a pool swim
and a multisport file show theirs. At 390 px no page is wider than the screen. Each page
is photographed at 1280 and 390 px and checked with axe-core, for CSP violations and
console errors (test_web_app.Checks).
"""

from __future__ import annotations

import base64
import math
import re
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._services import free_port
from tests.e2e._browser import PageBrowser
from tests.e2e._service_process import running, service_env
from tests.e2e.test_web_app import (
    CSP_LISTENER,
    FIT,
    PASSWORD,
    SHOTS,
    Checks,
    axe_script,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RUN = FIT / "2013-02-06-12-11-14.fit"  # a Forerunner 110 run: five laps, GPS
POOL = FIT / "activity_poolswim_with_hr.fit"
MULTISPORT = FIT / "triathlon_summary_first.fit"
OSM = "https://tile.openstreetmap.org"
# One 1x1 PNG: what the loopback tile server answers for every tile.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    return service_env(tmp, free_port(), PACEKEEPER_ADMIN_EMAIL="admin@example.com",
                       PACEKEEPER_ADMIN_PASSWORD=PASSWORD, **extra)


@pytest.fixture
def server(web_server: str) -> str:
    """One served instance for this and the other page modules (tests/e2e/conftest.py)."""
    return web_server


def _person(server: str, email: str) -> dict[str, str]:
    """A new person (open registration): their bearer header."""
    body = httpx.post(f"{server}/api/auth/register", json={"email": email, "password": PASSWORD})
    assert body.status_code in (200, 201), body.text
    return {"authorization": f"Bearer {body.json()['token']}"}


def _import(server: str, auth: dict[str, str], name: str, data: bytes) -> dict[str, Any]:
    answer = httpx.post(f"{server}/api/activities/import", headers=auth,
                        files={"file": (name, data)}, timeout=60)
    assert answer.status_code == 201, answer.text
    activity: dict[str, Any] = answer.json()["activity"]
    return activity


def _gpx(start: datetime, kind: str, seconds: int, mps: float, hr: int) -> bytes:
    """A loop at a steady speed and heart rate, a point a second (heart rate for a load)."""
    points, lat, lon = [], 45.0, 6.0
    for i in range(seconds):
        t = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        points.append(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>400</ele><time>{t}</time>'
                      f"<extensions><hr>{hr}</hr></extensions></trkpt>")
        angle = i / seconds * 2 * math.pi
        lat += mps * math.cos(angle) / 111_195.0
        lon += mps * math.sin(angle) / (111_195.0 * math.cos(math.radians(45.0)))
    return ('<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" '
            f'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>{kind} {start:%b %d}</name>'
            f"<type>{kind}</type><trkseg>" + "".join(points) + "</trkseg></trk></gpx>").encode()


def _sign_in(browser: Any, server: str, email: str, path: str, width: int = 1280,
             **context: Any) -> tuple[Any, Checks]:
    ctx = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US", **context)
    ctx.add_init_script(CSP_LISTENER)
    ctx.add_init_script(axe_script())
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    checks = Checks(page, "")
    page.goto(server + path)
    page.locator("form.signin").get_by_label("Email").fill(email)
    page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("navigation", name="Main").wait_for()
    return page, checks


def _clean(checks: Checks) -> None:
    assert checks.errors == []
    assert {k: v for k, v in checks.findings.items() if v} == {}, checks.findings


def test_home_for_an_empty_account_says_how_to_start(server: str, chromium: PageBrowser) -> None:
    """No activities: how to bring some in (connect, import); no thresholds: which to set,
    and setting them on the page stores them."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "empty-home@example.com"
    auth = _person(server, email)
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/")
            start = page.get_by_role("region", name="Get started")
            expect(start).to_be_visible()
            expect(start.get_by_role("link", name=re.compile("Connect Strava"))).to_have_attribute(
                "href", "/connections")
            expect(start.get_by_role("link", name="Import activity files")).to_have_attribute(
                "href", "/activities")
            expect(page.get_by_role("region", name="This week")).to_contain_text("Nothing this week")
            expect(page.get_by_role("region", name="Form today")).to_contain_text("No training load yet")
            expect(page.get_by_role("region", name="Readiness")).to_contain_text("connect a device")
            expect(page.get_by_role("region", name="Planned next")).to_be_visible()
            note = page.locator("[data-thresholds-note]")
            for missing in ("FTP", "threshold heart rate", "run threshold pace"):
                expect(note).to_contain_text(missing)
            checks.page_done("home-empty")

            form = page.locator("[data-thresholds]")
            form.get_by_label("FTP (W)").fill("250")
            form.get_by_label("Threshold heart rate (bpm)").fill("168")
            form.get_by_label(re.compile("Run threshold pace")).fill("4:30")
            form.get_by_role("button", name="Save thresholds").click()
            expect(page.locator("[data-thresholds-status]")).to_contain_text("Saved")
            expect(note).not_to_contain_text("Not set yet")
        finally:
            browser.close()
    settings = httpx.get(f"{server}/api/athlete", headers=auth).json()["settings"]
    assert (settings["ftp_watts"], settings["lthr_bpm"], settings["threshold_pace_s_per_km"]) == (
        250, 168, 270)
    _clean(checks)


def test_home_answers_how_am_i_doing(server: str, chromium: PageBrowser) -> None:
    """Five weeks: a 40-minute run at 3.2 m/s today and on the same weekday in each of the
    four weeks before, an hour's ride at 8 m/s in each of those four weeks only. This week
    against the four before, per sport, is worked out here from those numbers; form and
    readiness are the service's own answers, shown with their parts."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "home@example.com"
    auth = _person(server, email)
    assert httpx.patch(f"{server}/api/athlete", headers=auth, json={
        "lthr_bpm": 165, "max_hr_bpm": 190, "resting_hr_bpm": 50, "valid_from": "2020-01-01",
    }).status_code == 200  # a load from heart rate alone (hrTSS) needs all three
    now = datetime.now(UTC).replace(microsecond=0)
    today = max(now - timedelta(minutes=45), now.replace(hour=0, minute=0, second=0))
    for weeks in range(5):
        day = today - timedelta(weeks=weeks)
        _import(server, auth, f"run{weeks}.gpx", _gpx(day, "running", 2400, 3.2, 150))
        if weeks:
            # Apart from the run (not merged with it), on the same day (in the same week).
            ride = day - timedelta(hours=3) if day.hour >= 3 else day + timedelta(hours=1)
            _import(server, auth, f"ride{weeks}.gpx", _gpx(ride, "cycling", 3600, 8.0, 140))
    run_km, ride_km, run_h = 2400 * 3.2 / 1000, 3600 * 8.0 / 1000, 2400 / 3600
    summary = httpx.get(f"{server}/api/training-summary", headers=auth).json()
    readiness = httpx.get(f"{server}/api/readiness", headers=auth).json()
    # Planned next (issue 32): a workout in three days, 2 x 20 min at 95-100 % LTHR with
    # 10 min easy between; planned 50 min, hrTSS by hand: (40/60) x 0.975^2 x 100 = 63.4.
    plan_day = (datetime.now(UTC) + timedelta(days=3)).date()
    made = httpx.post(f"{server}/api/workouts", headers=auth, json={
        "name": "Two by twenty", "sport": "running", "date": plan_day.isoformat(), "steps": [
            {"repeat": 2, "steps": [
                {"kind": "active", "end": {"time_s": 1200},
                 "target": {"type": "lthr_pct", "low": 95, "high": 100}},
                {"kind": "recovery", "end": {"time_s": 300}}]}]})
    assert made.status_code == 201, made.text
    assert made.json()["load"] == 63.4 and made.json()["duration_s"] == 3000
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/")
            week = page.get_by_role("region", name="This week")
            run = week.get_by_role("row", name=re.compile("^Run"))
            ride = week.get_by_role("row", name=re.compile("^Ride"))
            expect(run.locator("td").nth(1)).to_have_text(f"{run_km:.1f} kmavg {run_km:.1f} km")
            expect(run.locator("td").nth(0)).to_have_text(f"{run_h:.1f} havg {run_h:.1f} h")
            expect(ride.locator("td").nth(1)).to_have_text(f"0.0 kmavg {ride_km:.1f} km")
            expect(ride.locator("td").nth(0)).to_have_text("0.0 havg 1.0 h")
            total = week.get_by_role("row", name=re.compile("^All"))
            expect(total.locator("td").nth(1)).to_have_text(
                f"{run_km:.1f} kmavg {run_km + ride_km:.1f} km")
            form = page.get_by_role("region", name="Form today")
            tsb = summary["tsb"]
            expect(form.locator("[data-tsb]")).to_contain_text(f"{'+' if tsb > 0 else ''}{tsb:.1f}")
            expect(form).to_contain_text(f"{summary['ctl']:.1f}")
            expect(form.locator("figure[data-chart=form] canvas")).to_be_visible()
            ready = page.get_by_role("region", name="Readiness")
            expect(ready).to_contain_text(f"{readiness['score']} / 100")
            expect(ready.locator("tr[data-input=tsb]")).to_contain_text("Form (TSB)")
            latest = page.get_by_role("region", name="Latest activities")
            expect(latest.locator("tbody tr")).to_have_count(5)
            expect(latest.locator("tbody tr").first).to_contain_text(f"running {today:%b %d}")
            expect(page.get_by_role("region", name="Get started")).to_be_hidden()
            planned = page.get_by_role("table", name="Planned next")
            expect(planned.locator("tbody tr")).to_have_count(1)
            expect(planned.get_by_role("link", name="Two by twenty")).to_have_attribute(
                "href", f"/workouts/{made.json()['id']}")
            expect(planned.locator("tbody tr td").nth(3)).to_have_text("63")
            expect(planned.get_by_role("link", name="FIT")).to_have_attribute(
                "href", f"/api/workouts/{made.json()['id']}/export?format=fit")
            checks.page_done("home-week")
        finally:
            browser.close()
    _clean(checks)


def test_a_run_shows_its_route_laps_and_zones(server: str, chromium: PageBrowser) -> None:
    """The Forerunner's run: its route on the map (the default OpenStreetMap tiles cannot
    be reached here: the track is drawn on its own and the page says so), its five laps
    with the device's own lap figures (read here with garmin-fit-sdk), pace per km and
    then per mile, and its time in heart-rate and pace zones."""
    from garmin_fit_sdk import Decoder, Stream
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "laps@example.com"
    auth = _person(server, email)
    assert httpx.patch(f"{server}/api/athlete", headers=auth, json={
        "lthr_bpm": 165, "threshold_pace_s_per_km": 300, "valid_from": "2010-01-01",
    }).status_code == 200
    activity = _import(server, auth, RUN.name, RUN.read_bytes())
    laps = Decoder(Stream.from_file(str(RUN))).read()[0]["lap_mesgs"]
    page_csp = httpx.get(f"{server}/activities/{activity['id']}").headers  # signed out: sign-in
    assert OSM not in page_csp["content-security-policy"]
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/activities/" + activity["id"])
            with page.expect_response(server + "/activities/" + activity["id"]) as answer:
                page.reload()
            csp = answer.value.headers["content-security-policy"]
            assert f"img-src 'self' data: {OSM};" in csp, csp
            route = page.get_by_role("region", name="Route map")
            expect(route).to_be_visible()
            line = route.locator("path.route-line")
            expect(line).to_have_count(1)
            assert len(re.findall(r"[ML]", line.get_attribute("d") or "")) > 100
            expect(route.locator("[data-map]")).to_have_attribute("data-tiles", "unavailable")
            expect(route.locator("[data-map-note]")).to_contain_text(
                "tile.openstreetmap.org: the route is drawn on its own")
            expect(route).to_contain_text("OpenStreetMap contributors")

            table = page.get_by_role("table", name="Laps")
            rows = table.locator("tbody tr")
            expect(rows).to_have_count(len(laps))
            for i, lap in enumerate(laps):
                cells = rows.nth(i).locator("td")
                device_m = lap["total_distance"]
                shown = f"{device_m / 1000:.2f} km" if device_m >= 1000 else f"{round(device_m)} m"
                assert cells.nth(2).inner_text().split("\n")[0] == shown
                whole = round(lap["total_elapsed_time"])
                assert cells.nth(1).inner_text().split("\n")[0] == f"{whole // 60}:{whole % 60:02d}"
                assert re.fullmatch(r"\d+:[0-5]\d /km", cells.nth(3).inner_text().split("\n")[0])
                assert cells.nth(4).inner_text().split("\n")[0] == str(lap["avg_heart_rate"])
            expect(table).not_to_contain_text("km/h")
            expect(table.locator("small.ours").first).to_contain_text("ours ")

            hr = page.locator("[data-zone-kind=hr]")
            expect(hr.locator("tbody tr")).to_have_count(7)
            shares = [int(t.strip().rstrip("%")) for t in hr.locator(".share").all_inner_texts()]
            assert 98 <= sum(shares) <= 102, shares
            expect(page.locator("[data-zone-kind=pace]")).to_contain_text("/km")
            checks.page_done("activity-run-laps-map")

            assert httpx.patch(f"{server}/api/athlete", headers=auth,
                               json={"units": "imperial"}).status_code == 200
            page.reload()
            expect(table.locator("tbody tr").first.locator("td").nth(3)).to_contain_text("/mi")
            expect(table.locator("tbody tr").first.locator("td").nth(2)).to_contain_text("0.62 mi")
            expect(page.locator("[data-zone-kind=pace]")).to_contain_text("/mi")
        finally:
            browser.close()
    _clean(checks)


def test_a_pool_swim_and_a_multisport_file_show_their_laps(server: str, chromium: PageBrowser) -> None:
    """A pool swim's laps are one table "Laps" that fits a phone (no sideways scroll at
    390 px) with no route; a triathlon's eleven laps each read in their leg's sport (the
    run's pace per km, the ride's speed, a transition named), and its route is drawn."""
    from garmin_fit_sdk import Decoder, Stream
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "laps-swim@example.com"
    auth = _person(server, email)
    swim = _import(server, auth, POOL.name, POOL.read_bytes())
    tri = _import(server, auth, MULTISPORT.name, MULTISPORT.read_bytes())
    swim_laps = Decoder(Stream.from_file(str(POOL))).read()[0]["lap_mesgs"]
    tri_laps = Decoder(Stream.from_file(str(MULTISPORT))).read()[0]["lap_mesgs"]
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/activities/" + swim["id"], width=390)
            table = page.get_by_role("table", name="Laps")
            expect(table.locator("tbody tr")).to_have_count(len(swim_laps))
            expect(page.locator("[data-laps-section]")).to_be_hidden()
            expect(page.get_by_role("region", name="Route map")).to_have_count(0)
            wrap = table.locator("xpath=..")
            assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), wrap.evaluate(
                "w => [w.scrollWidth, w.clientWidth]")
            # The lap's stroke sits under its number, not beside it, and a pace cell is one line.
            first = table.locator("tbody tr").first.locator("td")
            expect(first.nth(0)).to_contain_text("freestyle")
            assert first.nth(4).evaluate("c => c.getClientRects().length === 1 && c.offsetHeight < 60")
            page.set_viewport_size({"width": 1280, "height": 900})
            checks.page_done("activity-pool-swim-laps")

            page.goto(server + "/activities/" + tri["id"])
            rows = page.get_by_role("table", name="Laps").locator("tbody tr")
            expect(rows).to_have_count(len(tri_laps))
            texts = rows.all_inner_texts()
            runs = [t for t in texts if re.match(r"\d+\s+run", t)]
            rides = [t for t in texts if re.match(r"\d+\s+ride", t)]
            assert runs and all("/km" in t and "km/h" not in t for t in runs), runs
            assert rides and all("km/h" in t for t in rides), rides
            assert any(re.match(r"\d+\s+transition", t) for t in texts), texts
            expect(page.get_by_role("region", name="Route map").locator("path.route-line")).to_have_count(1)
            checks.page_done("activity-multisport-laps")
            # At 390 px the laps fit their card (they scrolled sideways by 22 px: "ours
            # 2:10 /100 m" kept on one line under the pace).
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(200)
            wrap = page.get_by_role("table", name="Laps").locator("xpath=..")
            assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), wrap.evaluate(
                "w => [w.scrollWidth, w.clientWidth]")
            # The figure beneath stays whole: "ours", maybe a line break, "2:10 /100 m".
            ours = wrap.locator("small.ours").all_inner_texts()
            assert ours and all(re.fullmatch(r"ours [^ ]+", t) for t in ours), ours
        finally:
            browser.close()
    _clean(checks)


class _Tiles(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(PNG)))
        self.end_headers()
        self.wfile.write(PNG)

    def log_message(self, *args: Any) -> None:
        pass


def test_the_map_takes_its_tiles_from_the_configured_server(
        tmp_path_factory: pytest.TempPathFactory, chromium: PageBrowser) -> None:
    """PACEKEEPER_MAP_TILE_URL names a tile server on this machine: the page loads its
    tiles from there (no CSP violation: that host, and only it, is in img-src) and says
    nothing about a missing map."""
    from playwright.sync_api import expect

    tiles = ThreadingHTTPServer(("127.0.0.1", 0), _Tiles)
    threading.Thread(target=tiles.serve_forever, daemon=True).start()
    host = f"http://127.0.0.1:{tiles.server_address[1]}"
    env = _env(tmp_path_factory.mktemp("web-tiles"), PACEKEEPER_MAP_TILE_URL=host + "/{z}/{x}/{y}.png",
               PACEKEEPER_MAP_TILE_ATTRIBUTION="Test tiles")
    try:
        with running(env) as server, chromium as browser:
            email = "tiles@example.com"
            activity = _import(server, _person(server, email), RUN.name, RUN.read_bytes())
            try:
                page, checks = _sign_in(browser, server, email, "/activities/" + activity["id"])
                requested: list[str] = []
                page.on("request", lambda r: requested.append(r.url))
                with page.expect_response(server + "/activities/" + activity["id"]) as answer:
                    page.reload()
                csp = answer.value.headers["content-security-policy"]
                assert f"img-src 'self' data: {host};" in csp and OSM not in csp, csp
                route = page.get_by_role("region", name="Route map")
                expect(route.locator("[data-map]")).to_have_attribute("data-tiles", "loaded")
                expect(route.locator("img.leaflet-tile-loaded").first).to_be_attached()
                expect(route.locator("[data-map-note]")).to_be_hidden()
                expect(route).to_contain_text("Test tiles")
                page.wait_for_load_state("networkidle")
                assert page.evaluate("window.__csp") == []
                assert [u for u in requested if u.startswith(host)], requested
            finally:
                browser.close()
    finally:
        tiles.shutdown()
    assert checks.errors == []


def test_every_page_fits_a_phone(server: str, chromium: PageBrowser) -> None:
    """At 390 px no page is wider than the screen (document scrollWidth), and the
    activities table shows its Time and Load without a sideways scroll (it was 425 px)."""
    from playwright.sync_api import expect

    email = "phone@example.com"
    auth = _person(server, email)
    ids = [_import(server, auth, f.name, f.read_bytes())["id"] for f in (RUN, POOL, MULTISPORT)]
    pages = ["/", "/activities", "/calendar", "/fitness", "/records", "/import", "/connections",
             "/keys",
             "/assistants",
             "/account",
             *(f"/activities/{i}" for i in ids)]

    def wide(page: Any) -> list[int]:
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(200)  # the charts follow their container's width
        return list(page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"))

    with chromium as browser:
        try:
            signed_out = browser.new_page(viewport={"width": 390, "height": 844})
            signed_out.goto(server + "/")
            width, screen = wide(signed_out)
            assert width <= screen == 390, ("/ signed out", width)
            page, checks = _sign_in(browser, server, email, "/activities", width=390)
            expect(page.locator("[data-activities] tbody tr")).to_have_count(3)
            table = page.locator("[data-activities]")
            assert table.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth")
            # Across, on the screen (the menu's rows may push it below the fold).
            box = table.get_by_role("columnheader", name="Load").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
            checks.page_done("activities-list")
            page.set_viewport_size({"width": 390, "height": 844})
            for path in pages:
                page.goto(server + path)
                width, screen = wide(page)
                assert width <= screen, (path, width)
                if path == f"/activities/{ids[0]}":  # the run's laps: no sideways scroll
                    laps = page.get_by_role("table", name="Laps").locator("xpath=..")
                    assert laps.evaluate("w => w.scrollWidth <= w.clientWidth"), laps.evaluate(
                        "w => [w.scrollWidth, w.clientWidth]")
            admin, _ = _sign_in(browser, server, "admin@example.com", "/admin", width=390)
            admin.locator("[data-users] tr").first.wait_for()
            width, screen = wide(admin)
            assert width <= screen, ("/admin", width)
            # The admin's menu (ten items) at 390 px: every item and Sign out on the screen.
            header = admin.locator("header.topbar")
            for item in [*header.get_by_role("link").all(), header.get_by_role(
                    "button", name="Sign out")]:
                box = item.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
            assert header.get_by_role("navigation", name="Main").get_by_role("link").count() == 10
            # At 1280 px: brand, menu and who is signed in on one row (the signed-in line
            # was pushed to a second: 101 px high).
            admin.set_viewport_size({"width": 1280, "height": 900})
            admin.wait_for_timeout(200)
            rows = header.evaluate("""h => ['.brand', 'nav', '.who'].map((s) => {
                const r = h.querySelector(s).getBoundingClientRect(); return [r.top, r.bottom]; })""")
            (brand_top, brand_bottom), (nav_top, nav_bottom), (who_top, who_bottom) = rows
            assert nav_top < brand_bottom and who_top < nav_bottom and who_bottom > nav_top, rows
            assert header.evaluate("h => h.getBoundingClientRect().height") <= 70
            assert admin.evaluate("document.documentElement.scrollWidth") <= 1280
        finally:
            browser.close()
    _clean(checks)


def test_a_runs_charts_go_along_distance_and_a_stretch_gives_its_figures(server: str, chromium: PageBrowser) -> None:
    """The run's charts drawn along distance when asked, and a drag across the heart-rate
    chart selects a stretch: its time, distance, pace and average heart rate, worked here
    from the same samples the API gives (the charts' own streams request)."""
    from playwright.sync_api import expect

    email = "stretch@example.com"
    auth = _person(server, email)
    run = _import(server, auth, RUN.name, RUN.read_bytes())
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, f"/activities/{run['id']}")
            chart = page.locator("figure[data-chart=heartrate] .u-over")
            expect(chart).to_be_visible()
            chart.scroll_into_view_if_needed()  # the mouse works in the viewport
            box = chart.bounding_box()
            assert box is not None
            y = box["y"] + box["height"] / 2
            page.mouse.move(box["x"] + box["width"] * 0.25, y)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] * 0.75, y, steps=8)
            page.mouse.up()
            stretch = page.get_by_role("status", name="Selected range")
            expect(stretch).to_contain_text("Average heart rate")
            # The stretch's figures from the very samples the page drew (the same request).
            keys = ",".join(k for k in ("heartrate", "speed", "altitude", "distance")
                            if k in run["streams"])
            data = httpx.get(f"{server}/api/activities/{run['id']}/streams?keys={keys}"
                             "&max_points=800", headers=auth).json()["streams"]
            first, last = (float(stretch.get_attribute(a)) for a in ("data-from-s", "data-to-s"))
            inside = [i for i, t in enumerate(data["time"]) if first <= t <= last]
            hr = [data["heartrate"][i] for i in inside if data["heartrate"][i] is not None]
            shown = stretch.locator("[data-fact='Average heart rate']").inner_text()
            assert shown == f"{math.floor(sum(hr) / len(hr) + 0.5)} bpm"  # as JS rounds
            km = (data["distance"][inside[-1]] - data["distance"][inside[0]]) / 1000
            assert stretch.locator("[data-fact=Distance]").inner_text() == f"{km:.2f} km"
            # Along distance: the x axis in km, the selection cleared.
            page.get_by_label("Distance").check()
            expect(page.locator("figure[data-chart=heartrate]")).to_be_visible()
            expect(stretch).to_have_text("")
            checks.page_done("activity-stretch")
        finally:
            browser.close()
    _clean(checks)
