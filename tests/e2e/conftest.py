"""The web page tests' shared Chromium and served instance (tests/e2e/test_web_*.py).

Each page test used to start Playwright's driver and a Chromium of its own (about 2 s of
a loaded machine per test), and each page module a `pacekeeper serve`. Here one of each
is started by the first test that asks for it and kept for the tests that follow. The
tests stay independent: each signs in a new person of its own, in browser contexts of
its own (their own cookies and storage), closed when the test ends.

Playwright's sync API leaves its event loop marked running on this thread while it is
started (`asyncio.run` then refuses to run), so the browser is stopped as soon as the next
test does not ask for it; the server, a separate process, after the last test of the run
that asks for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e._browser import Held, PageBrowser
from tests.e2e._connect import CHROMIUM, CHROMIUM_ARGS

_CHROMIUM = Held()
_WEB_SERVER = Held()
# Per item (node id): its position in the run; per fixture: the last position using it.
_POSITION: dict[str, int] = {}
_LAST_USE: dict[str, int] = {}


def _start_chromium(stack: contextlib.ExitStack) -> Any:
    from playwright.sync_api import sync_playwright

    pw = stack.enter_context(sync_playwright())
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    stack.callback(browser.close)
    return browser


@pytest.fixture
def chromium() -> Iterator[PageBrowser]:
    """The shared headless Chromium, through this test's own contexts."""
    browser = PageBrowser(_CHROMIUM.get(_start_chromium))
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def web_server(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The page tests' shared `pacekeeper serve` (test_web_home_activity._env): its URL."""
    from tests.e2e._service_process import running
    from tests.e2e.test_web_home_activity import _env

    url: str = _WEB_SERVER.get(
        lambda stack: stack.enter_context(running(_env(tmp_path_factory.mktemp("web")))))
    return url


def pytest_collection_finish(session: pytest.Session) -> None:
    for index, item in enumerate(session.items):
        _POSITION[item.nodeid] = index
        for name in ("chromium", "web_server"):
            if name in getattr(item, "fixturenames", ()):
                _LAST_USE[name] = index


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield  # after the test's own fixtures (the chromium fixture closes its contexts)
    if nextitem is None or "chromium" not in getattr(nextitem, "fixturenames", ()):
        _CHROMIUM.release()
    if nextitem is None or _POSITION.get(item.nodeid, -1) >= _LAST_USE.get("web_server", -1):
        _WEB_SERVER.release()


def pytest_sessionfinish(session: pytest.Session) -> None:
    _CHROMIUM.release()
    _WEB_SERVER.release()
