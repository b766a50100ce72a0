"""Editing an activity on its page, the units and locale of the Account page, and the
"session expired" notice, in headless Chromium (issue 33).

An hour's ride at 140 bpm becomes a run by hand: the page reloads with the run's load,
worked out here as hrTSS against the run's own LTHR (170 bpm, not the general 165), and
the name, description and notes as typed. The Account page stores metric or imperial, an
IANA time zone (a zone the server does not know is refused in words) and Sunday weeks,
and Home's "This week" then starts on the Sunday of the person's zone. With the session
cookie gone, saving an edit shows a notice with a sign-in link back to the same page
(next=), and what was typed stays on the page. Pages photographed at 1280 and 390 px and
checked with axe-core, for CSP violations and console errors (test_web_app.Checks).
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.e2e._browser import PageBrowser
from tests.e2e.test_web_app import PASSWORD, SHOTS, _csrf
from tests.e2e.test_web_home_activity import _clean, _gpx, _import, _person, _sign_in
from tests.pacekeeper.fitness.test_sport_thresholds import hr_tss_by_hand

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def server(web_server: str) -> str:
    """The page modules' shared served instance (tests/e2e/conftest.py)."""
    return web_server


def test_edit_an_activity_and_the_session_expires(server: str, chromium: PageBrowser) -> None:
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "edit@example.com"
    auth = _person(server, email)
    for body in ({"lthr_bpm": 165, "max_hr_bpm": 190, "resting_hr_bpm": 50, "sex": "M",
                  "valid_from": "2020-01-01"},
                 {"sport": "run", "lthr_bpm": 170, "valid_from": "2020-01-01"}):
        assert httpx.patch(f"{server}/api/athlete", headers=auth, json=body).status_code == 200
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
    ride = _import(server, auth, "ride.gpx", _gpx(start, "cycling", 3600, 3.0, 140))
    assert ride["sport"] == "ride"
    assert ride["load"] == pytest.approx(hr_tss_by_hand(140, 165, 50, 190), abs=0.1)
    path = f"/activities/{ride['id']}"
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, path)
            about = page.get_by_role("region", name="About this activity")
            expect(about).to_contain_text("No description yet")
            # The form only once asked for (a class's display once showed it at load).
            expect(page.locator("form[data-edit-form]")).to_be_hidden()
            about.get_by_role("button", name="Edit activity").click()
            form = page.get_by_role("form", name="Edit activity")
            expect(form.get_by_label("Name")).to_have_value(ride["name"])
            expect(form.get_by_label("Sport")).to_have_value("ride")
            form.get_by_label("Name").fill("Treadmill, not a ride")
            form.get_by_label("Sport").select_option("run")
            form.get_by_label("Description").fill("Steady hour on the treadmill")
            form.get_by_label("Private notes").fill("Left calf tight after 40 min")
            checks.page_done("activity-edit")
            with page.expect_navigation():  # a new sport: the page is worked out again
                form.get_by_role("button", name="Save").click()
            expect(page.get_by_role("heading", level=1)).to_have_text("Treadmill, not a ride")
            expect(about).to_contain_text("Steady hour on the treadmill")
            expect(about).to_contain_text("Left calf tight after 40 min")
            expect(page.locator("[data-when]")).to_contain_text("run")
            stored = httpx.get(f"{server}/api/activities/{ride['id']}", headers=auth).json()
            assert stored["sport"] == "run" and stored["edited"] == ["name", "sport"]
            assert stored["load"] == pytest.approx(hr_tss_by_hand(140, 170, 50, 190), abs=0.1)

            # Notes alone: saved in place, no reload.
            about.get_by_role("button", name="Edit activity").click()
            form.get_by_label("Private notes").fill("Calf fine the next day")
            form.get_by_role("button", name="Save").click()
            expect(about.locator("[data-saved]")).to_have_text("Saved.")
            expect(about).to_contain_text("Calf fine the next day")

            # The session cookie is gone: saving says so, with a way back to this page.
            page.context.clear_cookies(name="auth_token")
            about.get_by_role("button", name="Edit activity").click()
            form.get_by_label("Private notes").fill("Typed after the session ended")
            form.get_by_role("button", name="Save").click()
            notice = page.get_by_role("alert").filter(has_text="Your session expired")
            expect(notice).to_be_visible()
            link = notice.get_by_role("link", name="Sign in again")
            expect(link).to_have_attribute(
                "href", "/?reason=expired&next=" + path.replace("/", "%2F"))
            assert page.url == server + path  # not sent away: what was typed is still here
            expect(form.get_by_label("Private notes")).to_have_value(
                "Typed after the session ended")
            assert _csrf(page.context) == ""
            checks.page_done("session-expired")
            link.click()
            expect(page.locator("#signin-notice")).to_contain_text("sign in again")
            page.locator("form.signin").get_by_label("Email").fill(email)
            page.locator("form.signin").get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(server + path)  # back where the person was
            expect(page.get_by_role("heading", level=1)).to_have_text("Treadmill, not a ride")
        finally:
            browser.close()
    assert httpx.get(f"{server}/api/activities/{ride['id']}",
                     headers=auth).json()["notes"] == "Calf fine the next day"
    _clean(checks)


def test_units_and_locale_on_the_account_page(server: str, chromium: PageBrowser) -> None:
    """Imperial, Los Angeles and Sunday weeks, set on the Account page; Home's week then
    starts on the Sunday of today in Los Angeles (worked out here with zoneinfo)."""
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    email = "locale@example.com"
    auth = _person(server, email)
    # A run at 00:30 UTC of today's date in Los Angeles: always past (that date begins at
    # 08:00 UTC there), and, a GPX having no offset, on that date.
    today = datetime.now(zoneinfo.ZoneInfo("America/Los_Angeles")).date()
    start = datetime.combine(today, datetime.min.time(), UTC) + timedelta(minutes=30)
    _import(server, auth, "run.gpx", _gpx(start, "running", 1200, 3.0, 150))
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/account")
            card = page.get_by_role("region", name="Units and locale")
            expect(card.get_by_label("Units")).to_have_value("metric")
            card.get_by_label("Time zone").fill("Mars/Olympus_Mons")
            card.get_by_role("button", name="Save units and locale").click()
            expect(card.get_by_role("status")).to_contain_text("not an IANA time zone name")
            card.get_by_label("Units").select_option("imperial")
            card.get_by_label("Time zone").fill("America/Los_Angeles")
            card.get_by_label("First day of the week").select_option("sunday")
            card.get_by_role("button", name="Save units and locale").click()
            expect(card.get_by_role("status")).to_have_text("Saved.")
            expect(card).to_contain_text("Now in America/Los_Angeles")
            checks.page_done("account-settings")
            settings = httpx.get(f"{server}/api/athlete", headers=auth).json()["settings"]
            assert (settings["units"], settings["time_zone"], settings["first_day_of_week"]) \
                == ("imperial", "America/Los_Angeles", "sunday")

            sunday = today - timedelta(days=(today.weekday() + 1) % 7)
            page.goto(server + "/")
            week = page.get_by_role("region", name="This week")
            expect(week).to_contain_text(
                re.compile(rf"Week from {sunday:%b} {sunday.day}, {sunday.year}"))
        finally:
            browser.close()
    _clean(checks)


def test_moments_read_in_the_persons_time_zone(server: str, chromium: PageBrowser) -> None:
    """A moment (the admin's last sign-in on the Admin page) is shown in the person's time
    zone setting, not the browser's: a Chromium in Kiritimati (UTC+14) reads the time in
    Los Angeles (UTC-8), 22 hours apart (it read Kiritimati's)."""
    from playwright.sync_api import expect

    token = httpx.post(f"{server}/oauth/token", data={
        "grant_type": "password", "username": "admin@example.com", "password": PASSWORD})
    assert token.status_code == 200, token.text
    auth = {"authorization": f"Bearer {token.json()['jwt_token']}"}
    saved = httpx.patch(f"{server}/api/athlete", headers=auth,
                        json={"time_zone": "America/Los_Angeles"})
    assert saved.status_code == 200, saved.text
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, "admin@example.com", "/admin",
                                    timezone_id="Pacific/Kiritimati")
            row = page.locator("[data-users] tr[data-user='admin@example.com']")
            expect(row).to_contain_text("Active")
            users = httpx.get(f"{server}/api/admin/users?q=admin@", headers=auth).json()
            at = datetime.fromisoformat(
                [u for u in users["users"] if u["email"] == "admin@example.com"][0][
                    "last_login_at"])
            la = at.astimezone(zoneinfo.ZoneInfo("America/Los_Angeles"))
            there = at.astimezone(zoneinfo.ZoneInfo("Pacific/Kiritimati"))
            shown = row.locator("td").nth(3).inner_text()
            clock = f"{la.hour % 12 or 12}:{la:%M}"
            assert f"{la:%b} {la.day}, {la.year}" in shown and clock in shown, (shown, la)
            assert f"{there.hour % 12 or 12}:{there:%M}" not in shown, (shown, there)
            checks.page_done("admin-time-zone")
        finally:
            browser.close()
    _clean(checks)
