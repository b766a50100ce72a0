"""The page tests' shared Chromium and server (tests/e2e/conftest.py, tests/e2e/_browser.py):
started once, each test's contexts its own, and nothing left running for the tests after."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from tests.e2e._browser import Held, PageBrowser

pytestmark = [pytest.mark.e2e]


def test_a_held_resource_starts_once_and_is_undone_on_release() -> None:
    starts: list[int] = []
    undone: list[int] = []

    def start(stack: contextlib.ExitStack) -> int:
        starts.append(len(starts))
        stack.callback(undone.append, starts[-1])
        return starts[-1]

    held = Held()
    assert (held.get(start), held.get(start)) == (0, 0)
    assert undone == []
    held.release()
    assert undone == [0]
    held.release()  # a second release undoes nothing twice
    assert held.get(start) == 1 and undone == [0]
    held.release()
    assert undone == [0, 1]


def test_a_failed_start_leaves_nothing_held() -> None:
    undone: list[str] = []

    def start(stack: contextlib.ExitStack) -> str:
        stack.callback(undone.append, "half")
        raise RuntimeError("no browser")

    held = Held()
    with pytest.raises(RuntimeError):
        held.get(start)
    assert undone == ["half"]
    assert held.get(lambda stack: "second") == "second"


class _Context:
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def new_page(self) -> tuple[str, _Context]:
        return ("page", self)


class _Browser:
    version = "1.0"

    def __init__(self) -> None:
        self.contexts: list[_Context] = []
        self.closed = False

    def new_context(self, **options: Any) -> _Context:
        self.contexts.append(_Context(options))
        return self.contexts[-1]

    def close(self) -> None:
        self.closed = True


def test_a_test_closes_its_own_contexts_not_the_browser() -> None:
    shared = _Browser()
    earlier = shared.new_context()
    with PageBrowser(shared) as browser:
        context = browser.new_context(locale="en-US")
        _, page_context = browser.new_page(viewport={"width": 390})
        assert browser.version == "1.0"
        browser.close()  # what the page tests call in their `finally`
        assert context.closed and page_context.closed
        assert page_context.options == {"viewport": {"width": 390}}
    assert not earlier.closed and not shared.closed


def test_the_shared_chromium_serves_a_page(chromium: PageBrowser) -> None:
    page = chromium.new_page()
    page.set_content("<title>shared</title>")
    assert page.title() == "shared"


def test_a_test_after_one_with_chromium_can_run_an_event_loop() -> None:
    """Playwright's sync API marks its loop running on this thread while it is started:
    the browser must be stopped before a test that does not ask for it (this one runs
    right after the one above)."""

    async def answer() -> int:
        return 42

    assert asyncio.run(answer()) == 42
