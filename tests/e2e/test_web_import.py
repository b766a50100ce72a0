"""Import your history (issue 31 item 3): a Strava "Download your data" archive sent from
the page, the upload's progress, then the import job followed to its report; the
activities it brought in, with the CSV's names. In Chromium against a served instance
(its durable queue runs the job)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.e2e._browser import PageBrowser
from tests.e2e.test_web_app import SHOTS
from tests.e2e.test_web_home_activity import (  # noqa: F401
    _clean,
    _person,
    _sign_in,
    server,
)
from tests.pacekeeper.fitness._exports import raw, strava_export

pytestmark = [pytest.mark.e2e, pytest.mark.slow]



def test_a_strava_archive_comes_in_from_the_page(server: str, tmp_path: Path, chromium: PageBrowser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    SHOTS.mkdir(parents=True, exist_ok=True)
    archive = strava_export(tmp_path / "export_12345.zip", [
        ("1001.fit", raw("fit/2013-02-06-12-11-14.fit"), {"Activity Name": "Morning tempo"}),
        ("1002.gpx", raw("gpx/korita-zbevnica.gpx"), {"Activity Name": "Korita loop"}),
        ("1003.fit", b"not a fit file at all", {"Activity Name": "Broken"}),
    ])
    email = "import-page@example.com"
    auth = _person(server, email)
    with chromium as browser:
        try:
            page, checks = _sign_in(browser, server, email, "/activities")
            page.get_by_role("link", name="Import your history").click()
            expect(page.get_by_role("heading", name="Import your history", level=1)).to_be_visible()
            page.get_by_label("Archive (zip)").set_input_files(str(archive))
            page.get_by_role("button", name="Import").click()
            status = page.locator("[data-import-status]")
            expect(status.locator("[data-state=done]")).to_have_text(
                "Done: your Strava archive is in.", timeout=60_000)
            report = status.locator("[data-report]")
            expect(report).to_contain_text("Imported2")
            expect(report).to_contain_text("Refused1")
            expect(status.get_by_role("list", name="Refused files")).to_contain_text("1003.fit")
            assert re.search(r"\?id=[\w-]+$", page.url), page.url
            checks.page_done("import")
            page.screenshot(path=str(SHOTS / "web-import-1280.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(200)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.screenshot(path=str(SHOTS / "web-import-390.png"), full_page=True)
            # The job is the same one the API reports, and the names are the CSV's.
            job = httpx.get(f"{server}/api/imports/{page.url.rsplit('=', 1)[1]}",
                            headers=auth).json()
            assert (job["status"], job["kind"], job["report"]["imported"]) == ("done", "strava", 2)
            names = {a["name"] for a in httpx.get(f"{server}/api/activities",
                                                  headers=auth).json()["activities"]}
            assert {"Morning tempo", "Korita loop"} <= names
        finally:
            browser.close()
    _clean(checks)
