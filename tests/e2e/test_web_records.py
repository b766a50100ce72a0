"""Records (issue 33): best efforts per sport over all time and per season, each with the
activity it came from, and this season's power curve against the best season's.

In Chromium against a served instance: the page shows the API's own figures (the
get_best_efforts and get_power_curve twins, tested elsewhere against hand-computed
values), per season; each record links to its activity; an empty account says what to do;
at 390 px it fits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.e2e._browser import PageBrowser
from tests.e2e.test_web_app import FIT, SHOTS
from tests.e2e.test_web_home_activity import (  # noqa: F401
    _clean,
    _gpx,
    _import,
    _person,
    _sign_in,
    server,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
# Two rides with power: 113 s on 2020-06-01, 324 s on 2021-03-18 (its 5-minute power).
RIDES = ("2020-06-01-16-52-40.fit", "6449921903_ACTIVITY.fit")



def test_records_per_season_with_their_activities(server: str, chromium: PageBrowser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "records@example.com"
    auth = _person(server, email)
    now = datetime.now(UTC).replace(microsecond=0, second=0, minute=0)
    year = now.year
    # This season a 40-minute run at 3.2 m/s; last season a faster one, 3.5 m/s: the
    # all-time records are last season's, this season's column has its own.
    this = _import(server, auth, "now.gpx", _gpx(now - timedelta(hours=2), "running", 2400, 3.2, 150))
    last = _import(server, auth, "last.gpx", _gpx(datetime(year - 1, 6, 15, 8, tzinfo=UTC),
                                                   "running", 2400, 3.5, 150))
    for name in RIDES:
        _import(server, auth, name, (FIT / name).read_bytes())
    far = (now - timedelta(days=4017)).date().isoformat()
    all_time = httpx.get(f"{server}/api/best-efforts?from={far}&to={now:%Y-%m-%d}",
                         headers=auth).json()
    season = httpx.get(f"{server}/api/best-efforts?from={year}-01-01&to={now:%Y-%m-%d}",
                       headers=auth).json()
    five = {e["distance"]: e for e in all_time["efforts"]}["5km"]
    five_now = {e["distance"]: e for e in season["efforts"]}["5km"]
    assert five["activity_id"] == last["id"] and five_now["activity_id"] == this["id"]
    assert five["time_s"] < five_now["time_s"]
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/records")
            records = page.get_by_role("table", name="Running records")
            row = records.locator("tr[data-distance='5km']")
            expect(row.locator("td").nth(0)).to_contain_text(five["time"])
            expect(row.locator("td").nth(1)).to_contain_text(five_now["time"])
            expect(row.locator("td").nth(0).get_by_role("link")).to_have_attribute(
                "href", f"/activities/{last['id']}")
            seasons = page.get_by_role("table", name="Seasons")
            expect(seasons.locator("tbody tr")).to_have_count(2)
            expect(seasons.locator(f"tr[data-season='{year - 1}']")).to_contain_text(five["time"])
            # The best season by 5-minute power (no season has 20 minutes): 2021's ride.
            best5 = [p for p in httpx.get(
                f"{server}/api/curves/power?from=2021-01-01&to=2021-12-31",
                headers=auth).json()["points"] if p["duration_s"] == 300][0]["watts"]
            expect(page.locator("[data-power-summary]")).to_have_text(
                f"Best season 2021: {round(best5)} W for 5 minutes; this season none yet.")
            expect(page.locator("[data-power] canvas")).to_be_visible()
            # One load of the page asks the API once (it asked 23 times: each season's
            # best efforts and power curve, then all time).
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url) if "/api/" in r.url else None)
            page.reload()
            expect(page.locator("[data-power-summary]")).to_contain_text("Best season 2021")
            expect(page.locator("[data-seasons] tbody tr")).to_have_count(2)
            page.wait_for_load_state("networkidle")
            assert [u.removeprefix(server) for u in asked] == ["/api/records"], asked
            checks.page_done("records")
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(200)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, width
            # Nor do the tables scroll sideways in their cards (they did, by up to 60 px):
            # a record's pace over its day, the seasons' empty distances left out.
            wide = page.evaluate("""Array.from(document.querySelectorAll('.table-wrap'))
                .map((w) => [w.scrollWidth, w.clientWidth])""")
            assert len(wide) == 2 and all(s <= c for s, c in wide), wide
            expect(seasons.locator("thead th")).to_have_text(["Season", "5 km", "VDOT"])
            page.screenshot(path=str(SHOTS / "web-records-390.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
            page.wait_for_timeout(200)
            page.screenshot(path=str(SHOTS / "web-records-1280.png"), full_page=True)
        finally:
            browser.close()
    _clean(checks)


def test_records_of_an_empty_account_say_what_to_do(server: str, chromium: PageBrowser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    email = "records-empty@example.com"
    _person(server, email)
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/records")
            expect(page.locator("[data-runs]")).to_contain_text("No runs with a distance record yet")
            expect(page.locator("[data-seasons]")).to_contain_text("No seasons with runs yet")
            expect(page.locator("[data-power]")).to_contain_text("No rides with power yet")
            checks.page_done("records-empty")
        finally:
            browser.close()
    _clean(checks)
