"""Gear in Chromium (issue 33): a bike added on the Gear page as the rides' default with a
wear alert, a ride imported takes it, its distance shown (the activity's, summed here) and
marked due past the alert; an activity's gear changed on its page; retire and delete; at
390 px the page fits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.e2e._browser import PageBrowser
from tests.e2e.test_web_app import SHOTS
from tests.e2e.test_web_home_activity import (  # noqa: F401
    _clean,
    _gpx,
    _import,
    _person,
    _sign_in,
    server,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]



def test_gear_from_the_page_to_the_activities(server: str, chromium: PageBrowser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "gear-page@example.com"
    auth = _person(server, email)
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/gear")
            expect(page.locator("[data-gear-list]")).to_contain_text("No gear yet")
            form = page.locator("[data-gear-form]")
            form.get_by_label("Name").fill("Winter bike")
            form.get_by_label("Kind").select_option("bike")
            form.get_by_label("Default for").select_option("ride")
            form.get_by_label("Alert at (km)").fill("30")
            form.get_by_role("button", name="Add").click()
            expect(page.get_by_role("table", name="Gear")).to_contain_text("default for ride")
            # A 75-minute ride at 8 m/s (36 km) imported: it takes the default bike.
            start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
            ride = _import(server, auth, "ride.gpx", _gpx(start, "cycling", 4500, 8.0, 140))
            stored = httpx.get(f"{server}/api/activities/{ride['id']}", headers=auth).json()
            page.reload()
            row = page.get_by_role("table", name="Gear").locator("tbody tr").first
            expect(row.locator("td").nth(0)).to_have_text(
                f"{stored['distance_m'] / 1000:.1f} km due")
            expect(row.locator("td").nth(2)).to_have_text("1")
            checks.page_done("gear")
            page.screenshot(path=str(SHOTS / "web-gear-1280.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(200)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            wrap = page.locator("[data-gear-list]")  # the table whole, no sideways scroll
            assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth")
            page.screenshot(path=str(SHOTS / "web-gear-390.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
            # On the activity: its gear named; set to none in the Edit form.
            page.goto(f"{server}/activities/{ride['id']}")
            expect(page.locator("[data-gear]")).to_have_text("Gear: Winter bike")
            page.get_by_role("button", name="Edit activity").click()
            page.locator("[data-edit-form]").get_by_label("Gear").select_option("")
            page.locator("[data-edit-form]").get_by_role("button", name="Save").click()
            expect(page.locator("[data-saved]")).to_have_text("Saved.")
            expect(page.locator("[data-gear]")).to_have_text("")
            assert httpx.get(f"{server}/api/activities/{ride['id']}",
                             headers=auth).json()["gear_id"] is None
            # Retire, then delete: the activity stays.
            page.goto(f"{server}/gear")
            page.get_by_role("button", name="Retire").click()
            expect(page.get_by_role("table", name="Gear")).to_contain_text("retired")
            page.get_by_role("button", name="Delete Winter bike").click()
            expect(page.locator("[data-gear-list]")).to_contain_text("No gear yet")
            assert httpx.get(f"{server}/api/activities/{ride['id']}",
                             headers=auth).status_code == 200
        finally:
            browser.close()
    _clean(checks)
