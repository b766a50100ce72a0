"""A resource kept across tests (tests/e2e/conftest.py), and one test's view of the
shared Chromium."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import TracebackType
from typing import Any


class Held:
    """A resource started on first use and kept until `release`."""

    def __init__(self) -> None:
        self._stack: contextlib.ExitStack | None = None
        self._value: Any = None

    def get(self, start: Callable[[contextlib.ExitStack], Any]) -> Any:
        """The resource, started by `start` (entering what to undo into the stack) if
        it is not running."""
        if self._stack is None:
            with contextlib.ExitStack() as stack:
                self._value = start(stack)
                self._stack = stack.pop_all()
        return self._value

    def release(self) -> None:
        stack, self._stack, self._value = self._stack, None, None
        if stack is not None:
            stack.close()


class PageBrowser:
    """One test's use of the shared Chromium: the contexts (and pages) it opens are its
    own and `close()` closes them, not the browser. Anything else goes to the browser."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self._contexts: list[Any] = []

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        self._contexts.append(context)
        return context

    def new_page(self, **options: Any) -> Any:
        """A page in a context of its own, as `Browser.new_page` gives."""
        return self.new_context(**options).new_page()

    def close(self) -> None:
        contexts, self._contexts = self._contexts, []
        for context in contexts:
            context.close()

    def __enter__(self) -> PageBrowser:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)
