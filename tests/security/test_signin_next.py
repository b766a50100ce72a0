"""Issue 28 (low-medium): no open redirect after signing in.

The web app sends a person whose session ended to `/?next=<where they were>` and, after a
real sign-in, on to `next`. The check was on the text (`/` but not `//`), while the browser
resolves the URL: `/%5Cevil.example/phish` (a backslash, read as `/`) and
`/%09/evil.example/phish` (a tab, dropped) led to evil.example. `nextPath()` now resolves
`next` against the page's origin and follows it only when the origin is the page's own.

Real `pacekeeper serve` and headless Chromium; requests to evil.example are answered by
the test (no network), so a page that gets there is seen where it lands.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

from tests._services import free_port
from tests.e2e._service_process import running, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip
PASSWORD = "Next-param-Passw0rd!"
SHOTS = Path(tempfile.gettempdir()) / "pacekeeper-screenshots"

# As typed into the address bar (already URL-encoded where a browser would encode).
OFF_SITE = [
    "/%5Cevil.example/phish",  # the review's: a backslash is a slash to the URL parser
    "/%09/evil.example/phish",  # the review's: a tab is dropped, leaving //evil.example
    "/%5C%5Cevil.example/phish",
    "%2F%2Fevil.example/phish",  # an encoded //
    "//evil.example/phish",
    "/%2F/evil.example/phish",
    "https://evil.example/phish",
    "HTTPS:evil.example/phish",
    "javascript:alert(document.domain)",
    "%20//evil.example/phish",
    "/.//evil.example/phish",  # a path that resolves to `//evil...`: the absolute URL is kept
    "data:text/html,phished",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # One person signs in once a case: the login limits are not what is tested here.
    env = service_env(tmp_path_factory.mktemp("next-data"), free_port(),
                      PACEKEEPER_LOGIN_LIMIT_PER_ACCOUNT="1000",
                      PACEKEEPER_LOGIN_LIMIT_PER_ADDRESS="1000")
    with running(env) as url:
        answer = httpx.post(f"{url}/api/auth/register",
                            json={"email": "next@example.com", "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _sign_in_with_next(browser: Any, server: str, raw_next: str) -> tuple[str, Any]:
    """Open `/?next=<raw_next>` signed out, sign in for real; where the page ends up."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    evil: list[str] = []

    def phish(route: Any) -> None:
        evil.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>phished</h1>")

    context.route(lambda url: urlsplit(url).hostname == "evil.example", phish)
    page = context.new_page()
    page.set_default_timeout(15_000)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{server}/?next={raw_next}")
    form = page.locator("form.signin")
    form.get_by_label("Email").fill("next@example.com")
    form.get_by_label("Password").fill(PASSWORD)
    with page.expect_navigation():
        form.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("load")
    assert evil == [] and dialogs == [], (raw_next, evil, dialogs)
    return page.url, context


@pytest.mark.parametrize("raw_next", OFF_SITE)
def test_next_off_site_is_not_followed(server: str, browser: Any, raw_next: str) -> None:
    url, context = _sign_in_with_next(browser, server, raw_next)
    try:
        # Home, or (`/.//evil.example`) a path of this origin: never another host.
        assert urlsplit(url).netloc == urlsplit(server).netloc, (raw_next, url)
        if raw_next.startswith("/./"):
            return  # this origin's (unknown) path `//evil.example/phish`: its 404 page
        assert url == server + "/", (raw_next, url)
        # Signed in (the home page's navigation), not left on the sign-in form.
        assert context.pages[0].get_by_role("navigation", name="Main").is_visible()
    finally:
        context.close()


def test_next_on_site_keeps_its_path_query_and_fragment(server: str, browser: Any) -> None:
    """A legitimate `next` (what `toSignIn` writes: the page's path and query) is still
    followed, with its query and fragment."""
    url, context = _sign_in_with_next(browser, server, quote("/activities?x=1#y", safe=""))
    try:
        assert url == server + "/activities?x=1#y"
        page = context.pages[0]
        assert page.get_by_role("heading", name="Activities").first.is_visible()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "web-signin-next-activities-1280.png"))
    finally:
        context.close()
